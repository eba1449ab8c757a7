//! Which sub-schema makes the byte DFA outgrow the state limit.
//!
//! Counted keywords multiply when nested (arrays of arrays each with `maxItems` need a
//! counter per level at once), so the whole schema's DFA can pass the limit although
//! every part is small. When it does, the sub-schemas are translated and built alone,
//! top-down: the deepest one that is too large while each of its own sub-schemas fits is
//! where the product happens, and the error names it, its counting keywords and the
//! option to raise. A diagnosis only: it runs after the compile has already failed, within
//! what is left of the compile's time budget (past it, the plain error is given).

use std::collections::HashMap;
use std::time::Instant;

use fstc_regex::{RegexError, RegexErrorKind};
use serde_json::Value;

use crate::config::Config;
use crate::decimal::NumberTexts;
use crate::error::{child, JsonSchemaError};
use crate::schema::Translator;
use crate::schema_regex::SchemaRegex;

/// Keywords whose values multiply states, named in the error in this order.
const COUNTING: &[&str] = &[
    "maxItems",
    "minItems",
    "prefixItems",
    "maxLength",
    "minLength",
    "maxProperties",
    "minProperties",
    "enum",
    "properties",
    "pattern",
    "format",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "contains",
    "$ref",
    "items",
];

/// Which limit a build passed.
#[derive(Clone, Copy)]
pub(crate) enum Limit {
    /// Byte-DFA states (or the subset construction's budget, which scales with them).
    States,
    /// NFA states (a cap of 64 per allowed DFA state).
    Nfa,
    /// regex-syntax's 250 nested groups (not an option).
    Nesting,
}

/// The size limit `error` reports, if it is one.
pub(crate) fn limit_of(error: &RegexError) -> Option<Limit> {
    match error.kind() {
        RegexErrorKind::TooManyNfaStates { .. } => Some(Limit::Nfa),
        RegexErrorKind::TooManyStates { .. } => Some(Limit::States),
        RegexErrorKind::Syntax if error.to_string().contains("nested parentheses") => {
            Some(Limit::Nesting)
        }
        _ => None,
    }
}

/// The error for a schema whose DFA passed a size limit: the culprit sub-schema's
/// pointer and counting keywords, or `fallback` when none can be singled out before
/// `deadline`.
pub(crate) fn too_large(
    root: &Value,
    config: &Config,
    fallback: String,
    deadline: Option<Instant>,
) -> JsonSchemaError {
    let numbers = NumberTexts::default();
    let Ok(bundled) = crate::refs::bundle(root, &numbers, config) else {
        return JsonSchemaError::other(fallback);
    };
    let doc = Doc {
        root: &bundled.value,
        anchors: &bundled.anchors,
    };
    let mut visited = Vec::new();
    let node = (doc.root, String::new(), 0);
    let Some((pointer, value, limit)) = culprit(doc, config, node, &mut visited, deadline) else {
        return JsonSchemaError::other(fallback);
    };
    let present: Vec<String> = COUNTING
        .iter()
        .filter(|k| **k != "items")
        .filter_map(|k| value.get(*k).map(|v| (k, v)))
        .map(|(k, v)| match v {
            Value::Number(n) => format!("`{k}` {n}"),
            Value::Array(a) => format!("`{k}` of {}", a.len()),
            Value::Object(o) if *k == "properties" => format!("`{k}` of {}", o.len()),
            _ => format!("`{k}`"),
        })
        .collect();
    let keyword = COUNTING.iter().find(|k| value.get(**k).is_some());
    let states = config.get_dfa_state_limit();
    let why = match limit {
        Limit::States => format!(
            "its byte DFA alone needs more than {states} states (the DFA state limit) while \
             each of its sub-schemas fits: {} multiply the states of what it contains; raise \
             the limit (--dfa-state-limit, Config::dfa_state_limit) or lower the counts",
            if present.is_empty() {
                "its keywords".to_string()
            } else {
                present.join(", ")
            }
        ),
        Limit::Nfa => format!(
            "its regex alone needs more than {} NFA states (64 per allowed DFA state) while \
             each of its sub-schemas fits: a counted container (`maxItems`, `minItems`, \
             `prefixItems`) copies its item once per counted position, at each level of \
             nesting; raise the DFA state limit (--dfa-state-limit, \
             Config::dfa_state_limit), or nest less",
            states * 64
        ),
        Limit::Nesting => "its regex alone nests more than 250 groups (regex-syntax's limit, \
             not an option) while each of its sub-schemas fits: each level of arrays or objects \
             adds groups; nest less, or write the structure as a grammar (`fstc compile grammar`)"
            .to_string(),
    };
    JsonSchemaError::at(&pointer, keyword.copied().unwrap_or("schema"), why)
}

/// The schema being diagnosed, its references resolved (`crate::refs`).
#[derive(Clone, Copy)]
struct Doc<'v> {
    root: &'v Value,
    anchors: &'v HashMap<String, String>,
}

/// Most sub-schemas built alone in one diagnosis (each build stops at the limit), so a
/// schema of many large parts is diagnosed in bounded time: past it, the deepest
/// too-large sub-schema found so far is named.
const MAX_BUILDS: usize = 48;

/// The deepest too-large sub-schema under `node` (itself included) whose sub-schemas
/// fit, with the limit it passes; `None` if `node` fits, or nothing was found before
/// `deadline`. `visited` holds the pointers built (it stops recursive `$ref`s and counts
/// towards [`MAX_BUILDS`]).
fn culprit<'v>(
    doc: Doc<'v>,
    config: &Config,
    node: (&'v Value, String, usize),
    visited: &mut Vec<String>,
    deadline: Option<Instant>,
) -> Option<(String, &'v Value, Limit)> {
    let (value, pointer, level) = node;
    if visited.contains(&pointer) || visited.len() >= MAX_BUILDS {
        return None;
    }
    visited.push(pointer.clone());
    // The rest of the compile's time budget, for this sub-schema's translation and build.
    let left = match deadline {
        Some(d) => Some(d.checked_duration_since(Instant::now())?),
        None => None,
    };
    let config = match left {
        Some(left) => config.clone().time_budget(left),
        None => config.clone(),
    };
    let limit = overflow(doc, &config, value, &pointer, level, deadline)?;
    for sub in sub_schemas(doc.root, value, &pointer, level) {
        if let Some(found) = culprit(doc, &config, sub, visited, deadline) {
            return Some(found);
        }
    }
    Some((pointer, value, limit))
}

/// The limit the schema `value` at `pointer`, translated alone, passes (`None` when it
/// builds, or fails otherwise: other failures are not what is diagnosed here).
fn overflow(
    doc: Doc<'_>,
    config: &Config,
    value: &Value,
    pointer: &str,
    level: usize,
    deadline: Option<Instant>,
) -> Option<Limit> {
    // Limits do not depend on the numbers' last digits: serde_json's values will do.
    let numbers = NumberTexts::default();
    let anchors = doc.anchors.clone();
    let mut translator = Translator::new(doc.root, config, &numbers, anchors);
    let regex = translator.schema(value, pointer, level).ok()??;
    let (warnings, automata) = translator.into_parts();
    let schema = SchemaRegex {
        regex: automata.inline_within(&regex).ok()?.into_owned(),
        automata: automata.list,
        warnings,
    };
    limit_of(
        &schema
            .dfa_until(config.get_dfa_state_limit(), deadline)
            .err()?,
    )
}

/// The sub-schemas of `value`: (schema, pointer, nesting level of the values it admits).
fn sub_schemas<'v>(
    root: &'v Value,
    value: &'v Value,
    pointer: &str,
    level: usize,
) -> Vec<(&'v Value, String, usize)> {
    let Some(map) = value.as_object() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let nested = [
        "items",
        "additionalItems",
        "contains",
        "additionalProperties",
    ];
    let same = ["not", "if", "then", "else"];
    let lists = ["prefixItems", "items", "allOf", "anyOf", "oneOf"];
    let maps = ["properties", "patternProperties", "dependentSchemas"];
    // A dependent schema applies to the object itself; the others to its members.
    for (k, v) in map {
        let p = child(pointer, k);
        let down = usize::from(!same.contains(&k.as_str()) && !k.ends_with("Of"));
        if (nested.contains(&k.as_str()) || same.contains(&k.as_str())) && v.is_object() {
            out.push((v, p, level + down));
        } else if lists.contains(&k.as_str()) {
            for (i, item) in v.as_array().into_iter().flatten().enumerate() {
                out.push((item, child(&p, &i.to_string()), level + down));
            }
        } else if maps.contains(&k.as_str()) {
            for (name, item) in v.as_object().into_iter().flatten() {
                let down = usize::from(k != "dependentSchemas");
                out.push((item, child(&p, name), level + down));
            }
        } else if k == "$ref" {
            let target = v.as_str().and_then(|t| t.strip_prefix('#'));
            if let Some(target) = target.and_then(|t| root.pointer(t)) {
                out.push((target, v.as_str().unwrap_or("#")[1..].to_string(), level));
            }
        }
    }
    out
}
