//! `unevaluatedProperties` and `unevaluatedItems` rewritten into keywords the translator
//! knows, exactly, where what was evaluated follows from the schema's shape.
//!
//! A property (item) is evaluated when a keyword of the schema or of an in-place sub-schema
//! that validated names it: `properties`, `patternProperties`, `additionalProperties`
//! (`prefixItems`, `items`, `contains`), a nested `unevaluated*`. Through `allOf` and
//! `$ref` every sub-schema validated; through `anyOf`, `oneOf`, `if`/`then`/`else` and
//! `dependentSchemas` it depends on which did, so each of those that evaluates something
//! is a *condition*. The rewrite adds to `allOf` a decision tree of `if`s over the
//! conditions whose leaves say "every property (item) not evaluated on this path satisfies
//! the `unevaluated*` schema" with `additionalProperties` (`items` after `prefixItems`);
//! the applicators themselves stay as written, so their meaning is unchanged.

use std::collections::HashMap;

use serde_json::{json, Map, Value};

use crate::error::{child, show_pointer, JsonSchemaError};
use crate::fold::reference_to;
use crate::lang::Lang;
use crate::schema::{resolve_in, Translator, MAX_NESTING};

/// Most conditions expanded (the tree has 2^n leaves, each an object or array language).
const MAX_CONDITIONS: usize = 4;

/// Which of the two keywords is rewritten.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Properties,
    Items,
}

impl Kind {
    fn keyword(self) -> &'static str {
        match self {
            Kind::Properties => "unevaluatedProperties",
            Kind::Items => "unevaluatedItems",
        }
    }
}

/// What a validated schema evaluated: everything, or the listed names and patterns
/// (properties), or the first `prefix` items and those `contains` matched (items).
#[derive(Clone, Default, PartialEq)]
struct Evaluated {
    all: bool,
    names: Vec<String>,
    patterns: Vec<String>,
    prefix: usize,
    /// Pointers of `contains` schemas.
    contains: Vec<String>,
}

impl Evaluated {
    fn is_empty(&self) -> bool {
        *self == Evaluated::default()
    }

    fn add(&mut self, other: &Evaluated) {
        self.all |= other.all;
        self.prefix = self.prefix.max(other.prefix);
        for (mine, theirs) in [
            (&mut self.names, &other.names),
            (&mut self.patterns, &other.patterns),
            (&mut self.contains, &other.contains),
        ] {
            for x in theirs {
                if !mine.contains(x) {
                    mine.push(x.clone());
                }
            }
        }
    }
}

/// A sub-schema whose validity decides what else was evaluated.
struct Condition {
    test: Value,
    when_valid: Evaluated,
    when_invalid: Evaluated,
}

impl Translator<'_> {
    /// `map`'s language with its `unevaluated*` keywords rewritten, `None` when it has none
    /// (out of line: `object_schema` frames nest with the schema). Schemas of the document
    /// were rewritten before translation ([`rewrite_document`]); what reaches here is a
    /// refusal (or a map a fold wrote).
    #[inline(never)]
    pub(crate) fn unevaluated_rewritten(
        &mut self,
        map: &Map<String, Value>,
        pointer: &str,
        level: usize,
    ) -> Option<Result<Lang, JsonSchemaError>> {
        if !has_unevaluated(map) {
            return None;
        }
        let anchors = self.anchors.clone();
        let doc = Doc {
            root: self.root,
            anchors: &anchors,
        };
        let mut refused = Ok(());
        let rewritten = rewrite(&doc, map, pointer, false, |keyword, why| {
            if refused.is_ok() {
                refused = self.refuse(pointer, keyword, &why);
            }
        });
        Some(refused.and_then(|()| self.object_schema(&rewritten, pointer, level)))
    }
}

/// The document with each schema of `at` (pointers of schemas with `unevaluated*`)
/// rewritten where that is exact; the others are left for the translator to refuse.
pub(crate) fn rewrite_document(
    root: &mut std::borrow::Cow<'_, Value>,
    anchors: &HashMap<String, String>,
    at: &[String],
) {
    let mut done = Vec::new();
    let doc = Doc { root, anchors };
    for pointer in at {
        let Some(Value::Object(map)) = doc.at(pointer) else {
            continue;
        };
        let mut exact = true;
        let rewritten = rewrite(&doc, map, pointer, true, |_, _| exact = false);
        if exact {
            done.push((pointer, rewritten));
        }
    }
    for (pointer, rewritten) in done {
        if let Some(slot) = root.to_mut().pointer_mut(pointer) {
            *slot = Value::Object(rewritten);
        }
    }
}

fn has_unevaluated(map: &Map<String, Value>) -> bool {
    KINDS.iter().any(|k| map.contains_key(k.keyword()))
}

const KINDS: [Kind; 2] = [Kind::Properties, Kind::Items];

/// A document's schemas by pointer, its `$ref`s resolved with its root's anchors.
struct Doc<'a> {
    root: &'a Value,
    anchors: &'a HashMap<String, String>,
}

impl Doc<'_> {
    fn at(&self, pointer: &str) -> Option<&Value> {
        self.root.pointer(pointer)
    }

    fn resolve(&self, target: &str) -> Option<String> {
        resolve_in(self.anchors, target)
    }
}

/// `map` (at `pointer`) with its `unevaluated*` keywords rewritten; one whose evaluated set
/// is not known from the shape is left out and given to `refuse` with the reason.
fn rewrite(
    doc: &Doc<'_>,
    map: &Map<String, Value>,
    pointer: &str,
    in_document: bool,
    mut refuse: impl FnMut(&'static str, String),
) -> Map<String, Value> {
    let mut plain = map.clone();
    plain.retain(|k, _| !KINDS.iter().any(|kind| kind.keyword() == k));
    let mut out = plain.clone();
    for kind in KINDS {
        let Some(unevaluated) = map.get(kind.keyword()) else {
            continue;
        };
        // In a rewritten document the schema moves beside the map, where it still stands.
        let key = match in_document {
            true => format!("$fstc-{}", kind.keyword()),
            false => kind.keyword().to_string(),
        };
        let at = child(pointer, &key);
        let rest = match unevaluated {
            Value::Bool(true) => None,
            Value::Bool(_) => Some(unevaluated.clone()),
            _ => Some(reference_to(&at)),
        };
        let Some(rest) = rest else { continue };
        match tree(doc, kind, &plain, pointer, &rest) {
            Ok(tree) => append_all_of(&mut out, tree),
            Err(why) => refuse(kind.keyword(), why),
        }
        if in_document {
            out.insert(key, unevaluated.clone());
        }
    }
    out
}

fn append_all_of(map: &mut Map<String, Value>, schema: Value) {
    if schema == Value::Bool(true) {
        return;
    }
    match map.get_mut("allOf") {
        Some(Value::Array(all)) => all.push(schema),
        _ => {
            map.insert("allOf".into(), Value::Array(vec![schema]));
        }
    }
}

/// The decision tree over the conditions of `map`, whose leaves hold `rest` (the
/// `unevaluated*` schema) for what their path left unevaluated.
fn tree(
    doc: &Doc<'_>,
    kind: Kind,
    map: &Map<String, Value>,
    pointer: &str,
    rest: &Value,
) -> Result<Value, String> {
    let mut walk = Walk {
        doc,
        kind,
        visited: vec![pointer.to_string()],
        depth: 0,
        conditions: Vec::new(),
    };
    let mut base = Evaluated::default();
    walk.schema(map, pointer, false, &mut base)?;
    if walk.conditions.len() > MAX_CONDITIONS {
        return Err(format!(
            "what is evaluated depends on {} applicators (`anyOf`/`oneOf` branches, `if`, \
             `dependentSchemas` entries that evaluate {}); at most {MAX_CONDITIONS} are expanded",
            walk.conditions.len(),
            match kind {
                Kind::Properties => "properties",
                Kind::Items => "items",
            }
        ));
    }
    Ok(branch(kind, &walk.conditions, base, rest))
}

/// The subtree over `conditions` with `done` evaluated so far.
fn branch(kind: Kind, conditions: &[Condition], done: Evaluated, rest: &Value) -> Value {
    let Some((first, others)) = conditions.split_first() else {
        return leaf(kind, &done, rest);
    };
    let mut valid = done.clone();
    valid.add(&first.when_valid);
    let mut invalid = done;
    invalid.add(&first.when_invalid);
    let then = branch(kind, others, valid, rest);
    let otherwise = branch(kind, others, invalid, rest);
    if then == otherwise {
        return then;
    }
    json!({"if": first.test, "then": then, "else": otherwise})
}

/// "Every property (item) `done` leaves unevaluated satisfies `rest`."
fn leaf(kind: Kind, done: &Evaluated, rest: &Value) -> Value {
    if done.all {
        return Value::Bool(true);
    }
    let every = |keys: &[String]| -> Value {
        Value::Object(
            keys.iter()
                .map(|k| (k.clone(), Value::Bool(true)))
                .collect(),
        )
    };
    match kind {
        Kind::Properties => {
            // Empty lists left out: a fold does not merge `patternProperties` beside
            // another part's `properties`.
            let mut leaf = Map::new();
            if !done.names.is_empty() {
                leaf.insert("properties".into(), every(&done.names));
            }
            if !done.patterns.is_empty() {
                leaf.insert("patternProperties".into(), every(&done.patterns));
            }
            leaf.insert("additionalProperties".into(), rest.clone());
            Value::Object(leaf)
        }
        Kind::Items => {
            let tail = match done.contains.is_empty() {
                true => rest.clone(),
                false => {
                    let mut any: Vec<Value> =
                        done.contains.iter().map(|p| reference_to(p)).collect();
                    any.push(rest.clone());
                    json!({ "anyOf": any })
                }
            };
            json!({"prefixItems": vec![Value::Bool(true); done.prefix], "items": tail})
        }
    }
}

/// The walk over a schema's in-place sub-schemas.
struct Walk<'w, 'd> {
    doc: &'w Doc<'d>,
    kind: Kind,
    /// `$ref` targets followed (a recursive reference evaluates nothing new).
    visited: Vec<String>,
    /// Sub-schemas entered, one inside the next (bounded by [`MAX_NESTING`]).
    depth: usize,
    conditions: Vec<Condition>,
}

impl Walk<'_, '_> {
    /// Adds to `out` what `map` evaluates when valid; records its conditions, which inside
    /// a condition's branch (`nested`) cannot be expanded.
    fn schema(
        &mut self,
        map: &Map<String, Value>,
        pointer: &str,
        nested: bool,
        out: &mut Evaluated,
    ) -> Result<(), String> {
        self.own(map, pointer, out);
        if let Some(Value::Array(all)) = map.get("allOf") {
            for (i, member) in all.iter().enumerate() {
                self.sub(
                    member,
                    &child(&child(pointer, "allOf"), &i.to_string()),
                    nested,
                    out,
                )?;
            }
        }
        if let Some(target) = map.get("$ref").and_then(Value::as_str) {
            let at = self
                .doc
                .resolve(target)
                .ok_or_else(|| format!("`$ref` `{target}` is not resolved"))?;
            if !self.visited.contains(&at) {
                self.visited.push(at.clone());
                let value = self
                    .doc
                    .at(&at)
                    .ok_or_else(|| format!("`$ref` `{target}` points at nothing"))?;
                self.sub(value, &at, nested, out)?;
            }
        }
        self.conditions_of(map, pointer, nested)
    }

    /// What `map`'s own keywords evaluate.
    fn own(&self, map: &Map<String, Value>, pointer: &str, out: &mut Evaluated) {
        let has = |k: &str| map.contains_key(k);
        match self.kind {
            Kind::Properties => {
                if let Some(Value::Object(p)) = map.get("properties") {
                    out.add(&Evaluated {
                        names: p.keys().cloned().collect(),
                        ..Default::default()
                    });
                }
                if let Some(Value::Object(p)) = map.get("patternProperties") {
                    out.add(&Evaluated {
                        patterns: p.keys().cloned().collect(),
                        ..Default::default()
                    });
                }
                out.all |= has("additionalProperties") || has("unevaluatedProperties");
            }
            Kind::Items => {
                let prefix = match (map.get("prefixItems"), map.get("items")) {
                    (Some(Value::Array(p)), _) | (None, Some(Value::Array(p))) => p.len(),
                    _ => 0,
                };
                out.prefix = out.prefix.max(prefix);
                let tail = match map.get("items") {
                    Some(Value::Array(_)) => has("additionalItems"),
                    Some(_) => true,
                    None => false,
                };
                out.all |= tail || has("unevaluatedItems");
                if has("contains") {
                    out.add(&Evaluated {
                        contains: vec![child(pointer, "contains")],
                        ..Default::default()
                    });
                }
            }
        }
    }

    /// A sub-schema applied in place (`allOf`, `$ref`): what it evaluates is evaluated.
    fn sub(
        &mut self,
        value: &Value,
        pointer: &str,
        nested: bool,
        out: &mut Evaluated,
    ) -> Result<(), String> {
        let Value::Object(map) = value else {
            return Ok(());
        };
        // A chain of `$ref`s to distinct targets is as deep as it is long.
        if self.depth >= MAX_NESTING {
            return Err(format!(
                "the sub-schemas it applies in place (`allOf`, `$ref`s, applicators' \
                 branches) nest more than {MAX_NESTING} deep, at {}",
                show_pointer(pointer)
            ));
        }
        self.depth += 1;
        let walked = self.schema(map, pointer, nested, out);
        self.depth -= 1;
        walked
    }

    /// What `value` at `pointer` evaluates when valid, as a condition's branch.
    fn branch(&mut self, value: Option<&Value>, pointer: &str) -> Result<Evaluated, String> {
        let mut out = Evaluated::default();
        if let Some(value) = value {
            self.sub(value, pointer, true, &mut out)?;
        }
        Ok(out)
    }

    /// The conditions of `map`'s `anyOf`, `oneOf`, `if` and `dependentSchemas`.
    fn conditions_of(
        &mut self,
        map: &Map<String, Value>,
        pointer: &str,
        nested: bool,
    ) -> Result<(), String> {
        let mut found = Vec::new();
        for keyword in ["anyOf", "oneOf"] {
            if let Some(Value::Array(branches)) = map.get(keyword) {
                for (i, b) in branches.iter().enumerate() {
                    let at = child(&child(pointer, keyword), &i.to_string());
                    let when_valid = self.branch(Some(b), &at)?;
                    found.push(Condition {
                        test: located(b, &at),
                        when_valid,
                        when_invalid: Evaluated::default(),
                    });
                }
            }
        }
        if let Some(test) = map.get("if") {
            let at = child(pointer, "if");
            let mut when_valid = self.branch(Some(test), &at)?;
            when_valid.add(&self.branch(map.get("then"), &child(pointer, "then"))?);
            let when_invalid = self.branch(map.get("else"), &child(pointer, "else"))?;
            found.push(Condition {
                test: located(test, &at),
                when_valid,
                when_invalid,
            });
        }
        for keyword in ["dependentSchemas", "dependencies"] {
            if let Some(Value::Object(d)) = map.get(keyword) {
                for (name, schema) in d.iter().filter(|(_, s)| !s.is_array()) {
                    let when_valid =
                        self.branch(Some(schema), &child(&child(pointer, keyword), name))?;
                    let test = json!({"type": "object", "required": [name]});
                    found.push(Condition {
                        test,
                        when_valid,
                        when_invalid: Evaluated::default(),
                    });
                }
            }
        }
        for condition in found {
            if condition.when_valid.is_empty() && condition.when_invalid.is_empty() {
                continue;
            }
            if nested {
                return Err(
                    "a conditional applicator inside another's branch evaluates some of them"
                        .into(),
                );
            }
            self.conditions.push(condition);
        }
        Ok(())
    }
}

/// A sub-schema as a condition's test: a `$ref` to where it stands (booleans as they are).
fn located(value: &Value, pointer: &str) -> Value {
    match value {
        Value::Bool(_) => value.clone(),
        _ => reference_to(pointer),
    }
}
