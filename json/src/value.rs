//! JSON values of a schema (`enum`, `const`): equality as JSON Schema defines it, and
//! serialization in an output form. Numbers are taken at their exact decimal value, from
//! the schema's text where it has one ([`NumberTexts`]), so each value is located by its
//! JSON pointer.

use serde_json::Value;

use crate::config::Whitespace;
use crate::decimal::NumberTexts;
use crate::error::child;

/// A value of the schema and where it is.
#[derive(Clone, Copy)]
pub(crate) struct Located<'v, 'p> {
    pub(crate) value: &'v Value,
    pub(crate) pointer: &'p str,
}

/// JSON Schema equality: numbers by value (`1 == 1.0`), objects regardless of order.
pub(crate) fn equal(a: Located, b: Located, numbers: &NumberTexts) -> bool {
    let at = |l: Located, token: &str| child(l.pointer, token);
    match (a.value, b.value) {
        (Value::Number(x), Value::Number(y)) => {
            numbers.decimal(x, a.pointer) == numbers.decimal(y, b.pointer)
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len()
                && x.iter().zip(y).enumerate().all(|(i, (v, w))| {
                    let (pv, pw) = (at(a, &i.to_string()), at(b, &i.to_string()));
                    equal(
                        Located {
                            value: v,
                            pointer: &pv,
                        },
                        Located {
                            value: w,
                            pointer: &pw,
                        },
                        numbers,
                    )
                })
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter().all(|(k, v)| {
                    y.get(k).is_some_and(|w| {
                        let (pv, pw) = (at(a, k), at(b, k));
                        equal(
                            Located {
                                value: v,
                                pointer: &pv,
                            },
                            Located {
                                value: w,
                                pointer: &pw,
                            },
                            numbers,
                        )
                    })
                })
        }
        (x, y) => x == y,
    }
}

/// `value` as the output form writes it at nesting `level` (flexible whitespace writes
/// the compact form, which it admits). Numbers are written canonically
/// (`Decimal::canonical`), so that `1.0` in an `enum` is the integer `1` the `integer`
/// type and the universe of `not` spell, as JSON Schema's equality says it is.
pub(crate) fn to_text(
    value: Located,
    numbers: &NumberTexts,
    whitespace: Whitespace,
    level: usize,
) -> String {
    let indent = match whitespace {
        Whitespace::Pretty { indent } => Some(indent),
        _ => None,
    };
    write(value, numbers, indent, level)
}

/// Compact (`indent` `None`) or pretty.
fn write(located: Located, numbers: &NumberTexts, indent: Option<usize>, level: usize) -> String {
    let Located { value, pointer } = located;
    let inner = |token: &str, v: &Value| {
        let p = child(pointer, token);
        write(
            Located {
                value: v,
                pointer: &p,
            },
            numbers,
            indent,
            level + 1,
        )
    };
    let pad = |l: usize| match indent {
        Some(indent) => format!("\n{}", " ".repeat(indent * l)),
        None => String::new(),
    };
    let (sep, colon) = match indent {
        Some(_) => (format!(",{}", pad(level + 1)), ": "),
        None => (",".to_string(), ":"),
    };
    match value {
        Value::Number(n) => numbers.decimal(n, pointer).canonical(),
        Value::Array(items) if !items.is_empty() => {
            let items: Vec<String> = items
                .iter()
                .enumerate()
                .map(|(i, v)| inner(&i.to_string(), v))
                .collect();
            format!("[{}{}{}]", pad(level + 1), items.join(&sep), pad(level))
        }
        Value::Object(map) if !map.is_empty() => {
            let members: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("{}{colon}{}", Value::String(k.clone()), inner(k, v)))
                .collect();
            format!("{{{}{}{}}}", pad(level + 1), members.join(&sep), pad(level))
        }
        _ => value.to_string(),
    }
}
