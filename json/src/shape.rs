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
        // The schemas inside, each with its pointer, once the value's type is right.
        let mut schemas: Vec<(&Value, String)> = Vec::new();
        match (shape, value) {
            (Shape::Schema, Value::Object(_) | Value::Bool(_)) => schemas.push((value, at.clone())),
            (Shape::Schemas | Shape::SchemaOrSchemas, Value::Array(items)) => {
                schemas.extend(
                    items
                        .iter()
                        .enumerate()
                        .map(|(i, v)| (v, child(&at, &i.to_string()))),
                );
            }
            (Shape::SchemaOrSchemas, Value::Object(_) | Value::Bool(_)) => {
                schemas.push((value, at.clone()))
            }
            (Shape::SchemaMap, Value::Object(members)) => {
                schemas.extend(members.iter().map(|(k, v)| (v, child(&at, k))));
            }
            (Shape::String, Value::String(_))
            | (Shape::Number, Value::Number(_))
            | (Shape::Boolean, Value::Bool(_))
            | (Shape::Array, Value::Array(_))
            | (Shape::TypeNames, Value::String(_)) => {}
            (Shape::Count, Value::Number(n)) if is_count(n) => {}
            (Shape::Strings | Shape::TypeNames, Value::Array(items)) => {
                strings(items, &at).map_err(|(p, v)| wrong(&p, v))?;
            }
            (
                Shape::StringLists | Shape::Dependencies | Shape::Booleans,
                Value::Object(members),
            ) => {
                for (name, v) in members {
                    let place = child(&at, name);
                    match (shape, v) {
                        (Shape::Booleans, Value::Bool(_)) => {}
                        (Shape::StringLists | Shape::Dependencies, Value::Array(items)) => {
                            strings(items, &place).map_err(|(p, v)| wrong(&p, v))?;
                        }
                        (Shape::Dependencies, Value::Object(_) | Value::Bool(_)) => {
                            schemas.push((v, place))
                        }
                        _ => return Err(wrong(&place, v)),
                    }
                }
            }
            _ => return Err(wrong(&at, value)),
        }
        for (schema, place) in schemas {
            if !matches!(schema, Value::Object(_) | Value::Bool(_)) {
                return Err(wrong(&place, schema));
            }
            check(schema, &place)?;
        }
    }
    Ok(())
}

/// `Err` with the first item that is not a string, and its pointer.
fn strings<'v>(items: &'v [Value], at: &str) -> Result<(), (String, &'v Value)> {
    match items.iter().enumerate().find(|(_, v)| !v.is_string()) {
        Some((i, v)) => Err((child(at, &i.to_string()), v)),
        None => Ok(()),
    }
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
