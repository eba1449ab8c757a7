//! The JSON form: each call is an object with one member, `{"name": argument}` or
//! `{"name": [arguments]}`; an argument is a call, a string or a non-negative integer.
//! A `json_schema` argument may also be the schema itself (an object or a boolean).
//! Errors name the JSON pointer of the node at fault.

use serde_json::Value;

use crate::error::ExprError;
use crate::tree::{build, Arg, Expr, Loc, MAX_DEPTH};

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
    let object = match value {
        Value::Object(o) if o.len() == 1 => o,
        _ => {
            return Err(loc
                .error("expected a call: an object with one member, such as {\"regex\": \"...\"}"))
        }
    };
    let Some((name, argument)) = object.iter().next() else {
        unreachable!("an object of one member")
    };
    let here = format!("{pointer}/{}", name.replace('~', "~0").replace('/', "~1"));
    let args = match argument {
        Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(i, item)| self::argument(name, item, &format!("{here}/{i}"), depth))
            .collect::<Result<Vec<_>, _>>()?,
        single => vec![self::argument(name, single, &here, depth)?],
    };
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
        _ => Err(loc.error("expected a call (an object), a string or a non-negative integer")),
    }
}
