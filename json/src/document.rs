//! A schema document as read: its nesting bounded (every walk that recurses on it then
//! fits a small stack), and what it holds in memory counted against the memory budget
//! before anything is translated (a schema of a few megabytes parses into tens of them).

use serde_json::Value;

use crate::decimal::NumberTexts;
use crate::error::{child, show_pointer, JsonSchemaError};

/// Most arrays and objects one inside another in a schema document: what serde_json reads
/// from JSON text, and what a document given as a value may hold. The walks that recurse
/// on the document's own nesting (the keyword check, `enum` equality and writing, the
/// number scan, serde_json's clone, serialization and drop) stay within it on a small stack.
pub(crate) const MAX_DEPTH: usize = 127;

/// The schema document in `text` and the texts of its numbers; `what` names the
/// document in errors (the schema, a file a `$ref` names). Nested past [`MAX_DEPTH`], the
/// error names the JSON pointer where.
pub(crate) fn parse(text: &str, what: &str) -> Result<(Value, NumberTexts), JsonSchemaError> {
    match serde_json::from_str(text) {
        Ok(value) => Ok((value, NumberTexts::scan(text))),
        Err(e) if e.to_string().starts_with("recursion limit exceeded") => {
            let at = NumberTexts::pointer_past_depth(text, MAX_DEPTH).unwrap_or_default();
            Err(too_deep(what, &at))
        }
        Err(e) => Err(JsonSchemaError::other(format!(
            "{what} is not valid JSON: {e}"
        ))),
    }
}

/// An error when `root` nests arrays and objects deeper than [`MAX_DEPTH`] (a document
/// given as a value, not read from text), naming the pointer of the first too deep;
/// walked with a stack of its own.
pub(crate) fn check_depth(root: &Value, what: &str) -> Result<(), JsonSchemaError> {
    let mut path: Vec<Token<'_>> = Vec::new();
    let mut open = vec![members(root)];
    while let Some(top) = open.last_mut() {
        let Some((token, value)) = top.next() else {
            open.pop();
            path.pop();
            continue;
        };
        if !(value.is_array() || value.is_object()) {
            continue;
        }
        path.push(token);
        if open.len() >= MAX_DEPTH {
            let at = path.iter().fold(String::new(), |p, t| match t {
                Token::Index(i) => child(&p, &i.to_string()),
                Token::Key(k) => child(&p, k),
            });
            return Err(too_deep(what, &at));
        }
        open.push(members(value));
    }
    Ok(())
}

/// A member's place in its container.
enum Token<'v> {
    Index(usize),
    Key(&'v str),
}

/// The members of a container with their places (none for other values).
fn members(v: &Value) -> Box<dyn Iterator<Item = (Token<'_>, &Value)> + '_> {
    match v {
        Value::Array(items) => {
            Box::new((items.iter().enumerate()).map(|(i, v)| (Token::Index(i), v)))
        }
        Value::Object(map) => Box::new(map.iter().map(|(k, v)| (Token::Key(k.as_str()), v))),
        _ => Box::new(std::iter::empty()),
    }
}

/// The error of a document nested past [`MAX_DEPTH`] at `pointer`.
fn too_deep(what: &str, pointer: &str) -> JsonSchemaError {
    JsonSchemaError::other(format!(
        "{what} nests arrays and objects more than {MAX_DEPTH} deep: the value at {} is \
         nested {} deep (JSON text is read to that depth)",
        show_pointer(pointer),
        MAX_DEPTH + 1
    ))
}

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

/// The bytes the parsed document holds ([`bytes`]), or an error when they alone pass
/// `budget` bytes (checked once, before the translation, whose running total starts from
/// them).
pub(crate) fn check(root: &Value, budget: usize) -> Result<usize, JsonSchemaError> {
    let held = bytes(root);
    if held <= budget {
        return Ok(held);
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
