//! The JSON form: each call is an object with one function member, `{"name": argument}`
//! or `{"name": [arguments]}`, and its keyword arguments as further members
//! (`{"json": "s.json", "whitespace": "pretty"}`); an argument is a call, a string, a
//! non-negative integer or a boolean. A `json_schema` argument may also be the schema
//! itself (an object or a boolean). Errors name the JSON pointer of the node at fault.

use serde_json::Value;

use crate::error::ExprError;
use crate::keywords::build;
use crate::keywords::CallArgs;
use crate::tree::{is_function, Arg, Expr, Loc, MAX_DEPTH};

pub(crate) fn parse(text: &str) -> Result<Expr, ExprError> {
    let value: Value = serde_json::from_str(text).map_err(|e| {
        ExprError::new(
            format!("line {}, column {}", e.line(), e.column()),
            None,
            format!("not JSON: {e}"),
        )
    })?;
    call(&value, "", 0)
}

fn call(value: &Value, pointer: &str, depth: usize) -> Result<Expr, ExprError> {
    let loc = Loc::Pointer(pointer.to_string());
    if depth >= MAX_DEPTH {
        return Err(loc.error(format!("calls nested deeper than {MAX_DEPTH}")));
    }
    let expected =
        || loc.error("expected a call: an object with one member, such as {\"regex\": \"...\"}");
    let Value::Object(object) = value else {
        return Err(expected());
    };
    // One member names the function (the only one, when no member does: an unknown
    // function); the others are keywords.
    let mut functions = object.iter().filter(|(k, _)| is_function(k));
    let (name, argument) = match (functions.next(), functions.next(), object.len()) {
        (Some(call), None, _) => call,
        (None, _, 1) => object.iter().next().expect("one member"),
        _ => return Err(expected()),
    };
    let here = child(pointer, name);
    let mut args = CallArgs::default();
    args.positional = match argument {
        Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(i, item)| self::argument(name, item, &format!("{here}/{i}"), depth))
            .collect::<Result<Vec<_>, _>>()?,
        single => vec![self::argument(name, single, &here, depth)?],
    };
    for (key, v) in object.iter().filter(|(k, _)| *k != name) {
        let at = child(pointer, key);
        let value = self::argument(key, v, &at, depth)?;
        args.named.push((key.clone(), Loc::Pointer(at), value));
    }
    let node = build(name, args, &loc)?;
    Ok(Expr {
        node,
        loc: Some(loc),
    })
}

fn argument(function: &str, value: &Value, pointer: &str, depth: usize) -> Result<Arg, ExprError> {
    let loc = Loc::Pointer(pointer.to_string());
    match value {
        Value::String(s) => Ok(Arg::Str(s.clone(), loc)),
        Value::Object(_) | Value::Bool(_) if function == "json_schema" => {
            Ok(Arg::Str(value.to_string(), loc))
        }
        Value::Object(_) => Ok(Arg::Expr(call(value, pointer, depth + 1)?)),
        Value::Number(n) => match n.as_u64() {
            Some(n) => Ok(Arg::Int(n, loc)),
            None => Err(loc.error(format!("{n} is not a non-negative integer"))),
        },
        Value::Bool(b) => Ok(Arg::Bool(*b, loc)),
        _ => Err(
            loc.error("expected a call (an object), a string, a non-negative integer or a boolean")
        ),
    }
}

/// The pointer of member `key` of the object at `pointer`.
fn child(pointer: &str, key: &str) -> String {
    format!("{pointer}/{}", key.replace('~', "~0").replace('/', "~1"))
}
