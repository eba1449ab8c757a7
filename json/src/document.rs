//! What a parsed schema document holds in memory, counted against the memory budget
//! before anything is translated: a schema of a few megabytes parses into tens of them.

use serde_json::Value;

use crate::error::JsonSchemaError;

/// Bytes of one object member besides its key's text and its value's own heap: the
/// index map's entry (hash, key `String`, `Value`) and its index slot.
const MEMBER: usize = 8 + 24 + std::mem::size_of::<Value>() + 16;

/// About the bytes `root` holds on the heap, walked without recursion (documents nest
/// deeper than the call stack would allow).
pub(crate) fn bytes(root: &Value) -> usize {
    let mut total = std::mem::size_of::<Value>();
    let mut work = vec![root];
    while let Some(v) = work.pop() {
        total += match v {
            Value::String(s) => s.len(),
            Value::Array(items) => {
                work.extend(items);
                items.len() * std::mem::size_of::<Value>()
            }
            Value::Object(map) => {
                work.extend(map.values());
                map.keys().map(|k| MEMBER + k.len()).sum()
            }
            _ => 0,
        };
    }
    total
}

/// An error when the parsed document alone passes `budget` bytes (checked once, before
/// the translation, whose own budget counts what it builds).
pub(crate) fn check(root: &Value, budget: usize) -> Result<(), JsonSchemaError> {
    let held = bytes(root);
    if held <= budget {
        return Ok(());
    }
    Err(JsonSchemaError::other(format!(
        "the compile passed its memory budget of {budget} bytes while reading the schema: \
         the parsed document holds about {held} bytes; raise it (memory_budget, \
         `--memory-budget`) or simplify the schema"
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_grow_with_the_document() {
        let small: Value = serde_json::from_str(r#"{"type": "string"}"#).unwrap();
        let large: Value =
            serde_json::from_str(&serde_json::json!({"enum": vec!["abcdefgh"; 1000]}).to_string())
                .unwrap();
        assert!(bytes(&small) >= MEMBER + 4 + 6);
        assert!(bytes(&large) >= 1000 * (8 + std::mem::size_of::<Value>()));
        assert!(check(&large, 1000)
            .unwrap_err()
            .to_string()
            .contains("memory_budget"));
        assert!(check(&small, 1 << 20).is_ok());
    }
}
