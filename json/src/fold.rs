//! `allOf` branches and `$ref`s beside other keywords folded into one schema object where
//! that is exact, before anything is translated.
//!
//! Schemas as people write them extend a base object with `allOf: [{$ref: base}, {properties:
//! …}]` or restate `{type: object, $ref: …}`. Translated part by part, each part is a whole
//! object automaton and their intersection a product of two large DFAs (the bulk of the
//! compile time of such schemas). A schema object is the conjunction of its keywords, and
//! most keywords mean the same whatever their siblings, so the conjuncts can be written as
//! one object: `type`s intersected, `required` united, bounds tightened, and per property
//! the conjunction of what each part says about it (its `properties` entry, else its
//! `additionalProperties`). What does not fold (two `anyOf`s, `patternProperties` beside
//! another part's properties, keywords whose numbers are read by JSON pointer) stays a
//! conjunct of its own, intersected as before.
//!
//! Every sub-schema the folded object holds is a `$ref` to where it stands in the document,
//! so it is translated at its own pointer: errors name it and its numbers keep their text.

use serde_json::{json, Map, Value};

use crate::decimal::NumberTexts;
use crate::error::child;
use crate::schema::{is_keyword, type_allows, types, Translator, ALL_TYPES, ANNOTATIONS};

/// A schema object folded from a conjunction, and the `$ref` targets it took in (they
/// are active while it is translated, so recursion is cut as deep as before).
pub(crate) struct Folded {
    pub(crate) map: Map<String, Value>,
    pub(crate) targets: Vec<String>,
}

/// Keywords whose meaning depends on siblings: they move and merge as one group.
const GROUPS: &[&[&str]] = &[
    &["properties", "patternProperties", "additionalProperties"],
    &["items", "prefixItems", "additionalItems"],
    &["contains", "minContains", "maxContains"],
    &["if", "then", "else"],
];

/// Keywords whose numbers the translator reads by JSON pointer (for their exact text): a
/// part where one is written with more digits than a double keeps is translated where it
/// stands, not folded.
const NUMERIC: &[&str] = &[
    "enum",
    "const",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
];

/// Integer-valued keywords: the larger lower bound and the smaller upper bound hold both
/// (a part where one is not a plain integer is not folded).
const LOWER: &[&str] = &["minLength", "minItems", "minProperties"];
const UPPER: &[&str] = &["maxLength", "maxItems", "maxProperties"];

/// Keywords a fold does not know how to carry (nothing is folded where they appear).
const NEVER: &[&str] = &[
    "unevaluatedProperties",
    "unevaluatedItems",
    "$dynamicRef",
    "$recursiveRef",
];

/// Most branches an `anyOf` takes the rest of its schema into (each a copy).
const MAX_DISTRIBUTED: usize = 512;

/// How many `$ref`s and `allOf`s deep a fold looks.
const MAX_DEPTH: usize = 8;

/// A part of the conjunction: a schema object and where it stands.
struct Conjunct<'v> {
    map: &'v Map<String, Value>,
    pointer: String,
}

impl Translator<'_> {
    /// Whether `map` (at `pointer`) must be translated where it stands: it has numbers
    /// that are read by their text or are not plain integers.
    fn pinned(&self, map: &Map<String, Value>, pointer: &str) -> bool {
        let long = NUMERIC.iter().any(|k| {
            map.get(*k)
                .is_some_and(|v| has_long_numbers(v, &child(pointer, k), self.numbers))
        });
        let counts = LOWER
            .iter()
            .chain(UPPER)
            .chain(&["minContains", "maxContains"]);
        long || counts
            .filter_map(|k| map.get(*k))
            .any(|v| v.as_u64().is_none())
    }

    /// `map` (at `pointer`) with its `allOf` branches and `$ref` folded in, or `None` when
    /// it has nothing to fold or cannot be folded exactly.
    #[inline(never)]
    pub(crate) fn fold(&self, map: &Map<String, Value>, pointer: &str) -> Option<Folded> {
        let others = |but: &str| {
            map.keys()
                .any(|k| k != but && !ANNOTATIONS.contains(&k.as_str()))
        };
        let foldable = map.contains_key("allOf")
            || (map.contains_key("$ref") && others("$ref"))
            || (map.contains_key("anyOf") && others("anyOf"));
        if !foldable {
            return None;
        }
        // The map read at `pointer` (itself, or a copy a fold made of it: the properties
        // of a folded object are copies of the maps at their pointers).
        let here = self.at(pointer).and_then(Value::as_object);
        if !here.is_some_and(|h| std::ptr::eq(h, map) || h == map) && !is_joined(map) {
            return None;
        }
        let mut conjuncts = Vec::new();
        let mut residual = Vec::new();
        let mut targets = Vec::new();
        self.expand(map, pointer, 0, &mut conjuncts, &mut residual, &mut targets)?;
        let mut merged = conjunction(Map::new(), &conjuncts, residual);
        self.constants_as_enum(&mut merged);
        if !self.pinned(map, pointer) {
            if let Some(distributed) = self.distribute(&merged, &targets) {
                merged = distributed;
            }
        }
        Some(Folded {
            map: merged,
            targets,
        })
    }

    /// `merged`'s `anyOf` written as one `enum` when each branch only lists constants:
    /// the same values, which its siblings then filter one by one (`enumeration`)
    /// instead of each branch being translated and the union intersected with them
    /// (Azure Pipelines' 300 task names beside the pattern of one, in each of 228
    /// branches). Not where a constant's number is read by its text.
    fn constants_as_enum(&self, merged: &mut Map<String, Value>) {
        if merged.contains_key("enum") || merged.contains_key("const") {
            return;
        }
        let Some(Value::Array(branches)) = merged.get("anyOf") else {
            return;
        };
        let mut values = Vec::new();
        for branch in branches {
            let Some(at) = located_pointer(branch) else {
                return;
            };
            let Some(Value::Object(m)) = self.at(&at) else {
                return;
            };
            let listed = match (m.get("enum"), m.get("const")) {
                (Some(list @ Value::Array(_)), None) => (list, child(&at, "enum")),
                (None, Some(c)) => (c, child(&at, "const")),
                _ => return,
            };
            let constrains = |k: &String| k != "enum" && k != "const" && is_keyword(k);
            if m.keys().any(constrains) || has_long_numbers(listed.0, &listed.1, self.numbers) {
                return;
            }
            match listed.0 {
                Value::Array(list) if listed.1.ends_with("/enum") => {
                    values.extend(list.iter().cloned())
                }
                one => values.push(one.clone()),
            }
        }
        merged.remove("anyOf");
        merged.insert("enum".into(), Value::Array(values));
    }

    /// `merged` with its `anyOf` taking in the rest: `A ∧ anyOf[Bᵢ]` is `anyOf[A ∧ Bᵢ]`,
    /// each branch folded with `A`: a union of objects
    /// rather than an object intersected with a union (Azure Pipelines' `task` is an
    /// object beside an `anyOf` of 300 objects). `None` where it does not apply (`A` says
    /// nothing of an object's members).
    fn distribute(
        &self,
        merged: &Map<String, Value>,
        targets: &[String],
    ) -> Option<Map<String, Value>> {
        // Not `oneOf` (`A ∧ oneOf[Bᵢ]` is `oneOf[A ∧ Bᵢ]` too): its overlap test would then
        // see `A`'s objects in every branch, whose translation is not complete.
        // Only objects gain: their members fold; scalars would multiply small
        // intersections (an enum of 300 names beside 300 patterns).
        let object = GROUPS[0]
            .iter()
            .chain(&["required"])
            .any(|k| merged.contains_key(*k));
        let Some(Value::Array(branches)) = merged.get("anyOf") else {
            return None;
        };
        if !object || branches.len() > MAX_DISTRIBUTED {
            return None;
        }
        let mut base = merged.clone();
        base.remove("anyOf");
        let outer = base.remove("allOf");
        let mut alternatives = Vec::with_capacity(branches.len());
        for branch in branches {
            if *branch == Value::Bool(true) {
                alternatives.push(Value::Object(base.clone()));
                continue;
            }
            let at = located_pointer(branch)?;
            let Some(Value::Object(m)) = self.at(&at) else {
                return None;
            };
            let (mut conjuncts, mut residual, mut seen) =
                (Vec::new(), Vec::new(), targets.to_vec());
            self.expand(m, &at, 1, &mut conjuncts, &mut residual, &mut seen)?;
            let one = conjunction(base.clone(), &conjuncts, residual);
            alternatives.push(Value::Object(one));
        }
        let mut out = Map::new();
        out.extend(outer.map(|o| ("allOf".to_string(), o)));
        out.insert("anyOf".into(), Value::Array(alternatives));
        Some(out)
    }

    /// Adds `map` and what its `allOf` and `$ref` name to `conjuncts`; parts that are not
    /// folded (recursive targets, parts with numbers, `false`) go to `residual`.
    fn expand<'v>(
        &'v self,
        map: &'v Map<String, Value>,
        pointer: &str,
        depth: usize,
        conjuncts: &mut Vec<Conjunct<'v>>,
        residual: &mut Vec<Value>,
        targets: &mut Vec<String>,
    ) -> Option<()> {
        if NEVER.iter().any(|k| map.contains_key(*k)) {
            return None;
        }
        let is_site = depth == 0;
        if !is_site && (depth > MAX_DEPTH || self.pinned(map, pointer)) {
            residual.push(reference_to(pointer));
            return Some(());
        }
        conjuncts.push(Conjunct {
            map,
            pointer: pointer.to_string(),
        });
        if let Some(Value::Array(branches)) = map.get("allOf") {
            let here = child(pointer, "allOf");
            for (i, branch) in branches.iter().enumerate() {
                match branch {
                    Value::Bool(true) => {}
                    Value::Object(m) => {
                        let at = child(&here, &i.to_string());
                        self.expand(m, &at, depth + 1, conjuncts, residual, targets)?;
                    }
                    _ => residual.push(branch.clone()),
                }
            }
        } else if map.contains_key("allOf") {
            return None;
        }
        if let Some(target) = map.get("$ref") {
            let at = target.as_str().and_then(|t| self.resolve(t))?;
            let seen = self.active_refs.contains(&at)
                || self.folded_refs.contains(&at)
                || targets.contains(&at);
            match self.at(&at) {
                Some(Value::Object(m)) if !seen && depth < MAX_DEPTH && !self.pinned(m, &at) => {
                    targets.push(at.clone());
                    self.expand(m, &at, depth + 1, conjuncts, residual, targets)?;
                }
                _ => residual.push(json!({ "$ref": target })),
            }
        }
        Some(())
    }
}

/// Whether `map` is an `allOf` of `$ref`s and booleans that [`both`] wrote: a schema
/// that stands nowhere in the document but holds nothing that depends on where.
fn is_joined(map: &Map<String, Value>) -> bool {
    let located = |v: &Value| match v {
        Value::Bool(_) => true,
        Value::Object(m) => m.len() == 1 && m.contains_key("$ref"),
        _ => false,
    };
    map.len() == 1
        && matches!(map.get("allOf"), Some(Value::Array(list)) if list.iter().all(located))
}

/// Whether `value` (at `pointer`) holds a number whose text is not the one serde_json
/// writes for it: read elsewhere, it would lose digits.
fn has_long_numbers(value: &Value, pointer: &str, numbers: &NumberTexts) -> bool {
    match value {
        Value::Number(n) => numbers.text(n, pointer) != n.to_string(),
        Value::Array(list) => list
            .iter()
            .enumerate()
            .any(|(i, v)| has_long_numbers(v, &child(pointer, &i.to_string()), numbers)),
        Value::Object(m) => m
            .iter()
            .any(|(k, v)| has_long_numbers(v, &child(pointer, k), numbers)),
        _ => false,
    }
}

/// The pointer of a sub-schema [`located`] wrote as a `$ref` (`None` for anything else).
fn located_pointer(schema: &Value) -> Option<String> {
    let map = schema.as_object().filter(|m| m.len() == 1)?;
    let target = map.get("$ref")?.as_str()?.strip_prefix('#')?;
    Some(target.replace("%25", "%"))
}

/// A `$ref` to the sub-schema at `pointer` (a JSON pointer of the document).
pub(crate) fn reference_to(pointer: &str) -> Value {
    json!({ "$ref": fragment_of(pointer) })
}

/// `#pointer` as a `$ref` writes it (`%` escaped: a `$ref`'s fragment is percent-decoded).
pub(crate) fn fragment_of(pointer: &str) -> String {
    format!("#{}", pointer.replace('%', "%25"))
}

/// `value` of `keyword` at `pointer` with every sub-schema it holds written as a `$ref` to
/// where it stands (boolean schemas as they are).
fn located(keyword: &str, value: &Value, pointer: &str) -> Value {
    let at = child(pointer, keyword);
    let schema = |v: &Value, p: &str| match v {
        Value::Bool(_) => v.clone(),
        _ => reference_to(p),
    };
    match (keyword, value) {
        ("properties" | "patternProperties" | "dependentSchemas", Value::Object(m)) => {
            let m = m
                .iter()
                .map(|(k, v)| (k.clone(), schema(v, &child(&at, k))));
            Value::Object(m.collect())
        }
        ("dependencies", Value::Object(m)) => {
            let one = |(k, v): (&String, &Value)| match v {
                Value::Array(_) => (k.clone(), v.clone()),
                _ => (k.clone(), schema(v, &child(&at, k))),
            };
            Value::Object(m.iter().map(one).collect())
        }
        ("anyOf" | "oneOf" | "prefixItems" | "items", Value::Array(a)) => {
            let each = a.iter().enumerate();
            Value::Array(
                each.map(|(i, v)| schema(v, &child(&at, &i.to_string())))
                    .collect(),
            )
        }
        (
            "additionalProperties"
            | "propertyNames"
            | "items"
            | "additionalItems"
            | "contains"
            | "not"
            | "if"
            | "then"
            | "else",
            _,
        ) => schema(value, &at),
        _ => value.clone(),
    }
}

/// `base` with every conjunct absorbed, and what did not merge as its `allOf`.
fn conjunction(
    mut base: Map<String, Value>,
    conjuncts: &[Conjunct],
    mut residual: Vec<Value>,
) -> Map<String, Value> {
    for conjunct in conjuncts {
        absorb(&mut base, conjunct, &mut residual);
    }
    if !residual.is_empty() {
        base.insert("allOf".into(), Value::Array(residual));
    }
    base
}

/// Adds the keywords of `conjunct` to `merged`, merging those both have; what does not
/// merge becomes one more conjunct in `residual`.
fn absorb(merged: &mut Map<String, Value>, conjunct: &Conjunct, residual: &mut Vec<Value>) {
    let (map, pointer) = (conjunct.map, conjunct.pointer.as_str());
    let mut rest = Map::new();
    for group in GROUPS {
        let mine: Vec<&str> = group
            .iter()
            .copied()
            .filter(|k| map.contains_key(*k))
            .collect();
        if mine.is_empty() {
            continue;
        }
        let theirs = group.iter().any(|k| merged.contains_key(*k));
        if theirs && merge_group(merged, map, pointer, group) {
            continue;
        }
        let target = if theirs { &mut rest } else { &mut *merged };
        for k in mine {
            target.insert(k.to_string(), located(k, &map[k], pointer));
        }
    }
    for (k, v) in map {
        let k = k.as_str();
        let grouped = GROUPS.iter().any(|g| g.contains(&k));
        if grouped || k == "allOf" || k == "$ref" || ANNOTATIONS.contains(&k) {
            continue;
        }
        let v = located(k, v, pointer);
        match merged.get(k) {
            None => {
                merged.insert(k.to_string(), v);
            }
            Some(old) => match merge_keyword(k, old, &v) {
                Some(both) => {
                    merged.insert(k.to_string(), both);
                }
                None => {
                    rest.insert(k.to_string(), v);
                }
            },
        }
    }
    if !rest.is_empty() {
        residual.push(Value::Object(rest));
    }
}

/// The conjunction of two sub-schemas (`$ref`s or booleans, or an `allOf` of them).
fn both(a: &Value, b: &Value) -> Value {
    match (a, b) {
        (Value::Bool(true), x) | (x, Value::Bool(true)) => x.clone(),
        (Value::Bool(false), _) | (_, Value::Bool(false)) => Value::Bool(false),
        _ => {
            let mut all = match a.get("allOf") {
                Some(Value::Array(list)) if a.as_object().is_some_and(|m| m.len() == 1) => {
                    list.clone()
                }
                _ => vec![a.clone()],
            };
            all.push(b.clone());
            json!({ "allOf": all })
        }
    }
}

/// Merges `map`'s keywords of `group` into `merged`'s, which has some of the group too;
/// `false` when they do not merge exactly (the caller keeps them apart).
fn merge_group(
    merged: &mut Map<String, Value>,
    map: &Map<String, Value>,
    pointer: &str,
    group: &[&str],
) -> bool {
    match group[0] {
        "properties" => merge_objects(merged, map, pointer),
        "items" => {
            let plain = |m: &Map<String, Value>| {
                !m.contains_key("prefixItems")
                    && !m.contains_key("additionalItems")
                    && m.get("items").is_some_and(|v| !v.is_array())
            };
            if !plain(merged) || !plain(map) {
                return false;
            }
            let mine = located("items", &map["items"], pointer);
            let joined = both(&merged["items"], &mine);
            merged.insert("items".into(), joined);
            true
        }
        _ => false,
    }
}

/// `properties` and `additionalProperties` of two objects (neither with
/// `patternProperties`): each name gets what both say of it.
fn merge_objects(merged: &mut Map<String, Value>, map: &Map<String, Value>, pointer: &str) -> bool {
    if merged.contains_key("patternProperties") || map.contains_key("patternProperties") {
        return false;
    }
    let empty = Map::new();
    let props = |m: &Map<String, Value>| match m.get("properties") {
        Some(Value::Object(p)) => Some(p.clone()),
        None => Some(empty.clone()),
        Some(_) => None,
    };
    let (Some(old), Some(new)) = (props(merged), props(map)) else {
        return false;
    };
    let new = match located("properties", &Value::Object(new), pointer) {
        Value::Object(m) => m,
        _ => unreachable!("properties stay an object"),
    };
    let old_extra = merged
        .get("additionalProperties")
        .cloned()
        .unwrap_or(Value::Bool(true));
    let new_extra = match map.get("additionalProperties") {
        Some(v) => located("additionalProperties", v, pointer),
        None => Value::Bool(true),
    };
    let mut out = Map::new();
    for (name, schema) in &old {
        let theirs = new.get(name).unwrap_or(&new_extra);
        out.insert(name.clone(), both(schema, theirs));
    }
    for (name, schema) in &new {
        if !old.contains_key(name) {
            out.insert(name.clone(), both(&old_extra, schema));
        }
    }
    merged.insert("properties".into(), Value::Object(out));
    match both(&old_extra, &new_extra) {
        Value::Bool(true) => merged.remove("additionalProperties"),
        extra => merged.insert("additionalProperties".into(), extra),
    };
    true
}

/// Two values of keyword `k` as one, where that is exact (`None`: keep both).
fn merge_keyword(k: &str, a: &Value, b: &Value) -> Option<Value> {
    if a == b {
        return Some(a.clone());
    }
    match k {
        "type" => Some(Value::Array(type_intersection(a, b)?)),
        "required" => {
            let (Value::Array(x), Value::Array(y)) = (a, b) else {
                return None;
            };
            let mut all = x.clone();
            all.extend(y.iter().filter(|n| !x.contains(n)).cloned());
            Some(Value::Array(all))
        }
        "uniqueItems" => Some(Value::Bool(a.as_bool()? || b.as_bool()?)),
        "propertyNames" => Some(both(a, b)),
        _ if LOWER.contains(&k) => Some(json!(a.as_u64()?.max(b.as_u64()?))),
        _ if UPPER.contains(&k) => Some(json!(a.as_u64()?.min(b.as_u64()?))),
        _ => None,
    }
}

/// The instance types both `type` values allow (`number` covers `integer`), in
/// [`ALL_TYPES`] order; `None` when one is not a valid `type`.
fn type_intersection(a: &Value, b: &Value) -> Option<Vec<Value>> {
    let read = |v: &Value| types(&Map::from_iter([("type".to_string(), v.clone())]), "").ok();
    let (x, y) = (read(a)?, read(b)?);
    let mut out: Vec<&str> = ALL_TYPES
        .into_iter()
        .filter(|t| type_allows(&x, t) && type_allows(&y, t))
        .collect();
    if out.contains(&"number") {
        out.retain(|t| *t != "integer");
    }
    Some(out.into_iter().map(|t| Value::String(t.into())).collect())
}
