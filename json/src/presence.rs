//! `oneOf` whose branches only require properties ("exactly one of these keys"), written
//! as a union of objects instead of each branch minus the others.
//!
//! Branch `i` holds iff its names `Rᵢ` are all present. Exactly one holds iff some `Rᵢ` is
//! present and, for every other `j`, some name of `Rⱼ` is absent; with `Rᵢ` present that is
//! a name of `Rⱼ \ Rᵢ`. Where that set has one name for every `j`, the alternative is the
//! object itself with `Rᵢ` required and those names forbidden (`properties: {x: false}`);
//! where it is empty (`Rⱼ ⊆ Rᵢ`), branch `j` holds whenever `i` does, and alternative `i`
//! is dropped. The alternatives exclude each other (each requires a name every other one
//! forbids), so their union is exact with no automaton operation, and no difference has
//! to be refused for an incomplete branch.

use serde_json::{Map, Value};

use crate::error::JsonSchemaError;
use crate::lang::{alternation, Lang};
use crate::schema::{types, Translator, ANNOTATIONS};

impl Translator<'_> {
    /// The language of object schema `map` when its `oneOf` only requires properties, or
    /// `None` where the rewrite does not apply.
    #[inline(never)]
    pub(crate) fn presence_one_of(
        &mut self,
        map: &Map<String, Value>,
        pointer: &str,
        level: usize,
    ) -> Result<Option<Lang>, JsonSchemaError> {
        let Some(alternatives) = presence_alternatives(map, pointer) else {
            return Ok(None);
        };
        let mut langs = Vec::with_capacity(alternatives.len());
        for alternative in &alternatives {
            if let Some(lang) = self.combined(alternative, pointer, level)? {
                langs.push(lang);
            }
        }
        Ok(Some(alternation(langs)))
    }
}

/// The alternatives of `map`'s `oneOf` (see the module docs), or `None` where it does not
/// apply: not an object-only schema, a branch with more than `required`, or an
/// alternative that would need one of several names absent.
fn presence_alternatives(
    map: &Map<String, Value>,
    pointer: &str,
) -> Option<Vec<Map<String, Value>>> {
    let Value::Array(branches) = map.get("oneOf")? else {
        return None;
    };
    let well_typed = !matches!(map.get("required"), Some(r) if !r.is_array())
        && !matches!(map.get("properties"), Some(p) if !p.is_object());
    if branches.len() < 2
        || !well_typed
        || map.contains_key("anyOf")
        || types(map, pointer).ok()? != ["object"]
    {
        return None;
    }
    let required: Vec<Vec<&str>> = branches.iter().map(required_only).collect::<Option<_>>()?;
    let mut alternatives = Vec::new();
    'branch: for (i, mine) in required.iter().enumerate() {
        let mut forbidden = Vec::new();
        for (j, theirs) in required.iter().enumerate() {
            let missing: Vec<&str> = theirs
                .iter()
                .copied()
                .filter(|n| !mine.contains(n))
                .collect();
            match (i == j, missing.as_slice()) {
                (true, _) => {}
                (false, []) => continue 'branch,
                (false, [one]) => forbidden.push(*one),
                (false, _) => return None,
            }
        }
        alternatives.push(alternative(map, mine, &forbidden));
    }
    Some(alternatives)
}

/// The names a branch requires, when `required` is all it says (annotations aside).
fn required_only(branch: &Value) -> Option<Vec<&str>> {
    let branch = branch.as_object()?;
    let annotation = |k: &String| ANNOTATIONS.contains(&k.as_str());
    if branch.keys().any(|k| k != "required" && !annotation(k)) {
        return None;
    }
    let Value::Array(names) = branch.get("required")? else {
        return None;
    };
    names.iter().map(Value::as_str).collect()
}

/// `map` without its `oneOf`, with `names` required and `forbidden` absent.
fn alternative(map: &Map<String, Value>, names: &[&str], forbidden: &[&str]) -> Map<String, Value> {
    let mut out = map.clone();
    out.remove("oneOf");
    let mut required: Vec<Value> = match out.remove("required") {
        Some(Value::Array(r)) => r,
        _ => Vec::new(),
    };
    for name in names {
        if !required.iter().any(|r| r == name) {
            required.push(Value::from(*name));
        }
    }
    out.insert("required".into(), Value::Array(required));
    let properties = out
        .entry("properties")
        .or_insert_with(|| Value::Object(Map::new()));
    if let Value::Object(properties) = properties {
        for name in forbidden {
            properties.insert(name.to_string(), Value::Bool(false));
        }
    }
    out
}
