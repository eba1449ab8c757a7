//! JSON values: equality as JSON Schema defines it, and serialization in an output form.

use serde_json::Value;

use crate::config::Whitespace;

/// JSON Schema equality: numbers by value (`1 == 1.0`), objects regardless of order.
pub(crate) fn equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            x.as_f64() == y.as_f64() && (x.is_f64() || y.is_f64() || x == y)
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| equal(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| equal(v, w)))
        }
        _ => a == b,
    }
}

/// `value` as the output form writes it at nesting `level` (flexible whitespace writes
/// the compact form, which it admits). Numbers are written canonically (see
/// [`number_text`]), so that `1.0` in an `enum` is the integer `1` the `integer` type and
/// the universe of `not` spell, as JSON Schema's equality says it is.
pub(crate) fn to_text(value: &Value, whitespace: Whitespace, level: usize) -> String {
    match whitespace {
        Whitespace::Pretty { indent } => pretty(value, indent, level),
        _ => compact(value),
    }
}

/// A number spelled canonically: integers without fraction, exponent or `-0`; others
/// as the shortest decimal that reads back as the same double, without exponent.
pub(crate) fn number_text(n: &serde_json::Number) -> String {
    if n.is_i64() || n.is_u64() {
        return n.to_string();
    }
    let x = n.as_f64().expect("a finite number");
    if x == 0.0 {
        return "0".into();
    }
    // Rust's `Display` for f64 writes the shortest round-trip digits without exponent.
    format!("{x}")
}

fn compact(value: &Value) -> String {
    match value {
        Value::Number(n) => number_text(n),
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(compact).collect();
            format!("[{}]", items.join(","))
        }
        Value::Object(map) => {
            let members: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("{}:{}", Value::String(k.clone()), compact(v)))
                .collect();
            format!("{{{}}}", members.join(","))
        }
        _ => value.to_string(),
    }
}

fn pretty(value: &Value, indent: usize, level: usize) -> String {
    let pad = |l: usize| format!("\n{}", " ".repeat(indent * l));
    match value {
        Value::Array(items) if !items.is_empty() => {
            let items: Vec<String> = items.iter().map(|v| pretty(v, indent, level + 1)).collect();
            format!(
                "[{}{}{}]",
                pad(level + 1),
                items.join(&format!(",{}", pad(level + 1))),
                pad(level)
            )
        }
        Value::Object(map) if !map.is_empty() => {
            let members: Vec<String> = map
                .iter()
                .map(|(k, v)| {
                    format!(
                        "{}: {}",
                        Value::String(k.clone()),
                        pretty(v, indent, level + 1)
                    )
                })
                .collect();
            format!(
                "{{{}{}{}}}",
                pad(level + 1),
                members.join(&format!(",{}", pad(level + 1))),
                pad(level)
            )
        }
        Value::Number(n) => number_text(n),
        _ => value.to_string(),
    }
}
