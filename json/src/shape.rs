//! The type each keyword's value must have, checked over the whole document before
//! translation: a wrong-typed value (`"prefixItems": {…}`, `"uniqueItems": "yes"`) makes
//! an invalid schema, refused with the keyword and pointer (lenient or not) rather than
//! ignored, wherever it is (also under `$defs` nothing references, or `then` without `if`).
//! Unknown keywords are not looked into: the specification ignores them.

use serde_json::{Map, Value};

use crate::error::{child, JsonSchemaError};

/// What a keyword's value must be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shape {
    /// An object or a boolean.
    Schema,
    /// An array of schemas.
    Schemas,
    /// An object whose members are schemas.
    SchemaMap,
    /// A schema or an array of schemas (draft-07 `items`).
    SchemaOrSchemas,
    String,
    /// An array of strings.
    Strings,
    /// A string or an array of strings (`type`).
    TypeNames,
    /// A non-negative integer (`1.0` is one, as JSON Schema counts numbers).
    Count,
    Number,
    Boolean,
    Array,
    /// An object whose members are arrays of strings (`dependentRequired`).
    StringLists,
    /// An object whose members are arrays of strings or schemas (draft-07 `dependencies`).
    Dependencies,
    /// An object whose members are booleans (`$vocabulary`).
    Booleans,
}

/// Every keyword whose value has a type, draft 2020-12 and the draft-07 spellings the
/// compiler reads (`const`, `default` and unknown keywords may hold anything).
pub(crate) const KEYWORDS: &[(&str, Shape)] = &[
    ("$schema", Shape::String),
    ("$id", Shape::String),
    ("$ref", Shape::String),
    ("$anchor", Shape::String),
    ("$dynamicRef", Shape::String),
    ("$dynamicAnchor", Shape::String),
    ("$recursiveRef", Shape::String),
    ("$recursiveAnchor", Shape::Boolean),
    ("$vocabulary", Shape::Booleans),
    ("$comment", Shape::String),
    ("$defs", Shape::SchemaMap),
    ("definitions", Shape::SchemaMap),
    ("allOf", Shape::Schemas),
    ("anyOf", Shape::Schemas),
    ("oneOf", Shape::Schemas),
    ("not", Shape::Schema),
    ("if", Shape::Schema),
    ("then", Shape::Schema),
    ("else", Shape::Schema),
    ("dependentSchemas", Shape::SchemaMap),
    ("prefixItems", Shape::Schemas),
    ("items", Shape::SchemaOrSchemas),
    ("additionalItems", Shape::Schema),
    ("contains", Shape::Schema),
    ("properties", Shape::SchemaMap),
    ("patternProperties", Shape::SchemaMap),
    ("additionalProperties", Shape::Schema),
    ("propertyNames", Shape::Schema),
    ("unevaluatedItems", Shape::Schema),
    ("unevaluatedProperties", Shape::Schema),
    ("type", Shape::TypeNames),
    ("enum", Shape::Array),
    ("multipleOf", Shape::Number),
    ("maximum", Shape::Number),
    ("exclusiveMaximum", Shape::Number),
    ("minimum", Shape::Number),
    ("exclusiveMinimum", Shape::Number),
    ("maxLength", Shape::Count),
    ("minLength", Shape::Count),
    ("pattern", Shape::String),
    ("maxItems", Shape::Count),
    ("minItems", Shape::Count),
    ("uniqueItems", Shape::Boolean),
    ("maxContains", Shape::Count),
    ("minContains", Shape::Count),
    ("maxProperties", Shape::Count),
    ("minProperties", Shape::Count),
    ("required", Shape::Strings),
    ("dependentRequired", Shape::StringLists),
    ("dependencies", Shape::Dependencies),
    ("format", Shape::String),
    ("contentEncoding", Shape::String),
    ("contentMediaType", Shape::String),
    ("contentSchema", Shape::Schema),
    ("title", Shape::String),
    ("description", Shape::String),
    ("deprecated", Shape::Boolean),
    ("readOnly", Shape::Boolean),
    ("writeOnly", Shape::Boolean),
    ("examples", Shape::Array),
];

/// The schemas directly inside the schema object `map` at `pointer`, each with its
/// pointer: the values of the keywords that take schemas (not `enum`, `const` or unknown
/// keywords, whose contents are data). Values of the wrong type are skipped ([`check`]
/// refuses them).
pub(crate) fn sub_schemas<'v>(
    map: &'v Map<String, Value>,
    pointer: &str,
) -> Vec<(&'v Value, String)> {
    let mut out = Vec::new();
    for (keyword, value) in map {
        let Some(&(_, shape)) = KEYWORDS.iter().find(|(k, _)| k == keyword) else {
            continue;
        };
        let at = child(pointer, keyword);
        match (shape, value) {
            (Shape::Schema | Shape::SchemaOrSchemas, Value::Object(_) | Value::Bool(_)) => {
                out.push((value, at))
            }
            (Shape::Schemas | Shape::SchemaOrSchemas, Value::Array(items)) => {
                out.extend(
                    items
                        .iter()
                        .enumerate()
                        .map(|(i, v)| (v, child(&at, &i.to_string()))),
                );
            }
            (Shape::SchemaMap | Shape::Dependencies, Value::Object(members)) => {
                let schemas = members
                    .iter()
                    .filter(|(_, v)| v.is_object() || v.is_boolean());
                out.extend(schemas.map(|(k, v)| (v, child(&at, k))));
            }
            _ => {}
        }
    }
    out
}

/// Checks the schema `value` at `pointer` and every schema inside it.
pub(crate) fn check(value: &Value, pointer: &str) -> Result<(), JsonSchemaError> {
    match value {
        Value::Bool(_) => Ok(()),
        Value::Object(map) => check_object(map, pointer),
        _ => Err(JsonSchemaError::at(
            pointer,
            "schema",
            "a schema must be an object or a boolean",
        )),
    }
}

fn check_object(map: &Map<String, Value>, pointer: &str) -> Result<(), JsonSchemaError> {
    for (keyword, value) in map {
        let Some(&(_, shape)) = KEYWORDS.iter().find(|(k, _)| k == keyword) else {
            continue;
        };
        let at = child(pointer, keyword);
        let wrong = |place: &str, v: &Value| {
            let what = match place == at {
                true => format!(", not {}", kind(v)),
                false => format!("; #{place} is {}", kind(v)),
            };
            JsonSchemaError::at(
                pointer,
                keyword,
                format!("must be {}{what}", describe(shape)),
            )
        };
        let is_schema = |v: &Value| v.is_object() || v.is_boolean();
        let items_are = |items: &[Value], ok: &dyn Fn(&Value) -> bool| match items
            .iter()
            .enumerate()
            .find(|(_, v)| !ok(v))
        {
            Some((i, v)) => Err(wrong(&child(&at, &i.to_string()), v)),
            None => Ok(()),
        };
        match (shape, value) {
            (Shape::Schema | Shape::SchemaOrSchemas, v) if is_schema(v) => {}
            (Shape::Schemas | Shape::SchemaOrSchemas, Value::Array(items)) => {
                items_are(items, &is_schema)?
            }
            (Shape::String | Shape::TypeNames, Value::String(_))
            | (Shape::Number, Value::Number(_))
            | (Shape::Boolean, Value::Bool(_))
            | (Shape::Array, Value::Array(_)) => {}
            (Shape::Count, Value::Number(n)) if is_count(n) => {}
            (Shape::Strings | Shape::TypeNames, Value::Array(items)) => {
                items_are(items, &Value::is_string)?
            }
            (
                Shape::SchemaMap | Shape::StringLists | Shape::Dependencies | Shape::Booleans,
                Value::Object(members),
            ) => {
                for (name, v) in members {
                    let place = child(&at, name);
                    match (shape, v) {
                        (Shape::Booleans, Value::Bool(_)) => {}
                        (Shape::SchemaMap | Shape::Dependencies, v) if is_schema(v) => {}
                        (Shape::StringLists | Shape::Dependencies, Value::Array(items)) => {
                            if let Some((i, v)) =
                                items.iter().enumerate().find(|(_, v)| !v.is_string())
                            {
                                return Err(wrong(&child(&place, &i.to_string()), v));
                            }
                        }
                        _ => return Err(wrong(&place, v)),
                    }
                }
            }
            _ => return Err(wrong(&at, value)),
        }
    }
    for (schema, at) in sub_schemas(map, pointer) {
        check(schema, &at)?;
    }
    Ok(())
}

fn is_count(n: &serde_json::Number) -> bool {
    n.is_u64() || n.as_f64().is_some_and(|x| x >= 0.0 && x.fract() == 0.0)
}

/// What a value of `shape` is, for messages.
fn describe(shape: Shape) -> &'static str {
    match shape {
        Shape::Schema => "a schema (an object or a boolean)",
        Shape::Schemas => "an array of schemas",
        Shape::SchemaMap => "an object of schemas",
        Shape::SchemaOrSchemas => "a schema or an array of schemas",
        Shape::String => "a string",
        Shape::Strings => "an array of strings",
        Shape::TypeNames => "a type name or an array of them",
        Shape::Count => "a non-negative integer",
        Shape::Number => "a number",
        Shape::Boolean => "a boolean",
        Shape::Array => "an array",
        Shape::StringLists => "an object of arrays of property names",
        Shape::Dependencies => "an object of arrays of property names or schemas",
        Shape::Booleans => "an object of booleans",
    }
}

/// What `v` is, for messages (numbers and booleans by value: a number may be of the
/// wrong kind, like `-1` for a count).
fn kind(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => format!("`{b}`"),
        Value::Number(n) => format!("the number {n}"),
        Value::String(_) => "a string".into(),
        Value::Array(_) => "an array".into(),
        Value::Object(_) => "an object".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `enum` values and unknown keywords hold data, not schemas.
    #[test]
    fn sub_schemas_are_the_schema_positions_only() {
        let schema = serde_json::json!({
            "enum": [{"$anchor": "x"}], "x-defs": {"a": {}}, "items": [true, {}],
            "$defs": {"d": false}, "dependencies": {"a": ["b"], "c": {}}, "not": {}
        });
        let map = schema.as_object().unwrap();
        let mut at: Vec<String> = sub_schemas(map, "").into_iter().map(|s| s.1).collect();
        at.sort();
        assert_eq!(
            at,
            [
                "/$defs/d",
                "/dependencies/c",
                "/items/0",
                "/items/1",
                "/not"
            ]
        );
    }
}
