//! Arrays and objects.
//!
//! Objects: declared properties in schema order (`properties`, then names `required`
//! but not declared), each optional one skippable, then additional members. The member
//! sequence is built right to left as two regexes per position — "the rest, each member
//! after a comma" and "the rest, non-empty, first member without a comma" — so commas
//! are exact without listing subsets; before a required member an optional one is just
//! `(member,)?`, linear, and only a run of optional members at the end costs a
//! quadratic regex (its DFA stays linear).

use serde_json::{Map, Value};

use crate::error::{child, JsonSchemaError};
use crate::lang::{alternation, Lang};
use crate::pattern::NOTHING;
use crate::scalars::count;
use crate::schema::{Translator, ONE_ORDER};
use crate::{pattern, strings};

/// One member position of an object.
struct Member {
    regex: String,
    required: bool,
}

/// Additional members: their regex and how many of them (`max` `None`: unbounded).
struct Extra {
    regex: String,
    min: u64,
    max: Option<u64>,
}

/// `minProperties` (0 without it) and `maxProperties`.
#[derive(Clone, Copy)]
struct Counts {
    min: u64,
    max: Option<u64>,
}

impl Counts {
    fn of(map: &Map<String, Value>, pointer: &str) -> Result<Counts, JsonSchemaError> {
        Ok(Counts {
            min: count(map, pointer, "minProperties")?.unwrap_or(0),
            max: count(map, pointer, "maxProperties")?,
        })
    }
}

impl Translator<'_> {
    /// `type: array`: `prefixItems` (or draft-07 `items` as an array), `items` (or
    /// `additionalItems`), `minItems`, `maxItems`, `uniqueItems` when trivially true.
    pub(crate) fn array(
        &mut self,
        map: &Map<String, Value>,
        pointer: &str,
        level: usize,
    ) -> Result<Lang, JsonSchemaError> {
        self.deepest = self.deepest.max(level);
        let (prefix, prefix_key, rest, rest_key) = match (map.get("prefixItems"), map.get("items"))
        {
            (Some(Value::Array(p)), _) => (p.as_slice(), "prefixItems", map.get("items"), "items"),
            (_, Some(Value::Array(p))) => (
                p.as_slice(),
                "items",
                map.get("additionalItems"),
                "additionalItems",
            ),
            _ => (&[][..], "prefixItems", map.get("items"), "items"),
        };
        let min = count(map, pointer, "minItems")?.unwrap_or(0);
        let max = count(map, pointer, "maxItems")?;
        if map.get("uniqueItems") == Some(&Value::Bool(true)) && max.map_or(true, |m| m > 1) {
            self.refuse(
                pointer,
                "uniqueItems",
                "distinct items cannot be enforced by a finite automaton over unbounded arrays",
            )?;
        }
        if max.is_some_and(|m| m < min) {
            return Ok(None);
        }
        let mut elems = Vec::new();
        for (i, item) in prefix.iter().enumerate() {
            elems.push(self.schema(
                item,
                &child(&child(pointer, prefix_key), &i.to_string()),
                level + 1,
            )?);
        }
        let x = match rest {
            Some(rest) => self.schema(rest, &child(pointer, rest_key), level + 1)?,
            None => Some(self.any_value(level + 1, self.config.get_any_json_depth())),
        };
        let sep = self.ws().sep(level);
        let k = elems.len() as u64;
        // Items after the prefix: between max(0, min - k) and max - k of them.
        let lo = min.saturating_sub(k);
        let hi = max.map(|m| m.saturating_sub(k));
        let mut tail: Lang = match (&x, hi) {
            (_, Some(0)) | (None, _) if lo > 0 => None,
            (_, Some(0)) | (None, _) => Some(String::new()),
            (Some(x), hi) => Some(format!(
                "(?:{sep}{x}){{{lo},{}}}",
                hi.map_or(String::new(), |h| h.to_string())
            )),
        };
        // A body starting with the first rest item, when there is no prefix: the regex
        // extension `DELIMITED_LIST`, which names the item once. Spelled `x(?:sep x){..}`
        // the item's text doubles at every nesting level (arrays nested 32 deep: 2^32
        // copies, gigabytes of regex before any limit could refuse it).
        let mut body: Lang = match (&x, k, max) {
            (Some(x), 0, m) if m != Some(0) => {
                let hi = m.map_or(String::new(), |m| m.to_string());
                Some(format!(
                    "(?P<DELIMITED_LIST>(?:{sep})|(?:{x})|{}|{hi})",
                    lo.max(1)
                ))
            }
            _ => None,
        };
        for (i, elem) in elems.iter().enumerate().rev() {
            let position = i as u64 + 1;
            let needed = position <= min;
            let allowed = max.map_or(true, |m| position <= m);
            let here = match (elem, &tail, allowed) {
                (Some(e), Some(t), true) => Some(format!("{e}{t}")),
                _ => None,
            };
            if i == 0 {
                body = here;
                break;
            }
            tail = match (here, needed) {
                (Some(h), true) => Some(format!("{sep}{h}")),
                (Some(h), false) => Some(format!("(?:{sep}{h})?")),
                (None, true) => None,
                (None, false) => Some(String::new()),
            };
        }
        let lang = self
            .ws()
            .container("\\[", "\\]", body.as_deref(), min == 0, level);
        let mut items: Vec<String> = elems.into_iter().flatten().collect();
        items.extend(x);
        self.contains(map, pointer, level, lang, alternation(items))
    }

    /// `contains` with `minContains`/`maxContains`: the array language intersected with
    /// the arrays of items from `items` (every item the array admits) where the count of
    /// items matching `contains` is in range. Top-level commas split items unambiguously.
    fn contains(
        &mut self,
        map: &Map<String, Value>,
        pointer: &str,
        level: usize,
        lang: Lang,
        items: Lang,
    ) -> Result<Lang, JsonSchemaError> {
        let Some(schema) = map.get("contains") else {
            return Ok(lang);
        };
        let lo = count(map, pointer, "minContains")?.unwrap_or(1);
        let hi = count(map, pointer, "maxContains")?;
        let Some(items) = items else {
            // No item at all: only the empty array, which has no matching item.
            return Ok(if lo == 0 { lang } else { None });
        };
        let Some(lang) = lang else { return Ok(None) };
        if hi.is_some_and(|h| h < lo) {
            return Ok(None);
        }
        let mark = self.incomplete.len();
        let matching = self.schema(schema, &child(pointer, "contains"), level + 1)?;
        if let (Some(why), Some(_)) = (self.incomplete_since(mark, level + 1), hi) {
            let why = format!(
                "items counted as not matching must not satisfy `contains`, which is exact \
                 only when its translation admits every value satisfying it, and {why}"
            );
            self.refuse(pointer, "maxContains", &why)?;
        }
        let c = match matching.clone() {
            Some(m) => self.automata.intersect(&[items.clone(), m])?,
            None => None,
        };
        // With a most, other spellings of a matching value (`1.0` for `1`) must not pass
        // as not matching: the non-matching items are cut to canonical numbers.
        let n = match hi {
            Some(_) => match self.canonical(&items)? {
                Some(items) => self.automata.difference(&items, matching)?,
                None => None,
            },
            None => self.automata.difference(&items, matching)?,
        };
        let sep = self.ws().sep(level);
        let mut alts = Vec::new();
        if let (Some(c), true) = (&c, hi != Some(0)) {
            // Items not matching, each before a separator; then the matching ones.
            let skip = n
                .as_ref()
                .map_or(String::new(), |n| format!("(?:{n}{sep})*"));
            let tail = n
                .as_ref()
                .map_or(String::new(), |n| format!("(?:{sep}{n})*"));
            let hi = hi.map_or(String::new(), |h| (h - 1).to_string());
            alts.push(format!(
                "{skip}(?:{c}{sep}{skip}){{{},{hi}}}{c}{tail}",
                lo.max(1) - 1
            ));
        }
        if let (Some(n), 0) = (&n, lo) {
            alts.push(format!("{n}(?:{sep}{n})*"));
        }
        let body = alternation(alts);
        match self
            .ws()
            .container("\\[", "\\]", body.as_deref(), lo == 0, level)
        {
            Some(counted) => self.automata.intersect(&[lang, counted]),
            None => Ok(None),
        }
    }

    /// `type: object`.
    pub(crate) fn object(
        &mut self,
        map: &Map<String, Value>,
        pointer: &str,
        level: usize,
    ) -> Result<Lang, JsonSchemaError> {
        self.deepest = self.deepest.max(level);
        let colon = self.ws().colon();
        let required = self.required(map, pointer)?;
        let empty = Map::new();
        let properties = match map.get("properties") {
            Some(Value::Object(p)) => p,
            Some(_) => {
                return Err(JsonSchemaError::at(
                    pointer,
                    "properties",
                    "must be an object",
                ))
            }
            None => &empty,
        };
        let additional = match map.get("additionalProperties") {
            Some(v) => v.clone(),
            None => Value::Bool(self.config.get_additional_properties()),
        };
        let patterns = self.patterns(map, pointer)?;
        // Every name any part of the combined schema mentions has a position.
        let mut names = self.hint_names(level);
        for name in properties.keys().chain(&required) {
            if !names.contains(name) {
                names.push(name.clone());
            }
        }
        if !names.is_empty() {
            self.incomplete.push((Some(level), ONE_ORDER.into()));
        }
        let allowed = self.property_names(map, pointer, level, &names)?;
        let mut members = Vec::new();
        for name in &names {
            let is_required = required.contains(name);
            let value = if allowed.contains(name) {
                self.member_value(name, properties, &patterns, &additional, pointer, level)?
            } else {
                None
            };
            match value {
                Some(v) => members.push(Member {
                    regex: format!(
                        "\"{}\"{colon}{v}",
                        strings::encode_literal(name, self.config.get_escapes())
                    ),
                    required: is_required,
                }),
                None if is_required => return Ok(None),
                None => {}
            }
        }
        let extra = self.extra_members(map, pointer, level, &additional, &patterns, &names)?;
        let counts = Counts::of(map, pointer)?;
        if counts.max.is_some_and(|m| m < counts.min) {
            return Ok(None);
        }
        // Where the counts need no automaton: with only unnamed members they bound the
        // repetition of those; up to one member (or the required ones) they only rule out
        // the empty object, or nothing.
        let only_extra = members.is_empty() && extra.is_some();
        let required_count = members.iter().filter(|m| m.required).count() as u64;
        let at_least = counts.max.is_none() && counts.min <= required_count.max(1);
        let extra = extra.map(|regex| Extra {
            regex,
            min: if only_extra { counts.min } else { 0 },
            max: if only_extra { counts.max } else { None },
        });
        let (body, empty) = sequence(&members, extra.as_ref(), &self.ws().sep(level));
        let empty = empty && (only_extra || counts.min == 0);
        let lang = self
            .ws()
            .container("\\{", "\\}", body.as_deref(), empty, level);
        if only_extra || at_least {
            return Ok(lang);
        }
        let mut all: Vec<String> = members.into_iter().map(|m| m.regex).collect();
        all.extend(extra.map(|e| e.regex));
        self.property_counts(counts, level, lang, all)
    }

    fn required(
        &self,
        map: &Map<String, Value>,
        pointer: &str,
    ) -> Result<Vec<String>, JsonSchemaError> {
        match map.get("required") {
            None => Ok(Vec::new()),
            Some(Value::Array(names)) => names
                .iter()
                .map(|n| n.as_str().map(str::to_string))
                .collect::<Option<Vec<_>>>()
                .ok_or_else(|| {
                    JsonSchemaError::at(pointer, "required", "must be an array of strings")
                }),
            Some(_) => Err(JsonSchemaError::at(
                pointer,
                "required",
                "must be an array of strings",
            )),
        }
    }

    /// `patternProperties`: each pattern's key regex (`"…"`), schema and pointer.
    fn patterns(
        &mut self,
        map: &Map<String, Value>,
        pointer: &str,
    ) -> Result<Vec<(String, Value, String)>, JsonSchemaError> {
        let patterns = match map.get("patternProperties") {
            Some(Value::Object(p)) => p,
            None => return Ok(Vec::new()),
            Some(_) => {
                return Err(JsonSchemaError::at(
                    pointer,
                    "patternProperties",
                    "must be an object",
                ))
            }
        };
        let here = child(pointer, "patternProperties");
        patterns
            .iter()
            .map(|(p, schema)| {
                let body = pattern::body(p, self.config.get_escapes(), &mut self.automata)
                    .map_err(|why| {
                        pattern::refused(&self.automata, pointer, "patternProperties", why)
                    })?;
                Ok((format!("\"{body}\""), schema.clone(), child(&here, p)))
            })
            .collect()
    }

    /// The value of member `name`: its `properties` schema and every matching pattern's
    /// schema, all of them (intersection), or else `additionalProperties`.
    fn member_value(
        &mut self,
        name: &str,
        properties: &Map<String, Value>,
        patterns: &[(String, Value, String)],
        additional: &Value,
        pointer: &str,
        level: usize,
    ) -> Result<Lang, JsonSchemaError> {
        let mut schemas: Vec<(&Value, String)> = Vec::new();
        if let Some(s) = properties.get(name) {
            schemas.push((s, child(&child(pointer, "properties"), name)));
        }
        let key = Value::String(name.to_string()).to_string();
        for (regex, schema, at) in patterns {
            if self.automata.dfa(regex)?.is_match(key.as_bytes()) {
                schemas.push((schema, at.clone()));
            }
        }
        if schemas.is_empty() {
            schemas.push((additional, child(pointer, "additionalProperties")));
        }
        let mut langs = Vec::new();
        for (schema, at) in schemas {
            match self.schema(schema, &at, level + 1)? {
                Some(l) => langs.push(l),
                None => return Ok(None),
            }
        }
        self.automata.intersect(&langs)
    }

    /// The names that `propertyNames` admits (all of them without it).
    fn property_names(
        &mut self,
        map: &Map<String, Value>,
        pointer: &str,
        level: usize,
        names: &[String],
    ) -> Result<Vec<String>, JsonSchemaError> {
        let Some(regex) = self.key_language(map, pointer, level)? else {
            return Ok(names.to_vec());
        };
        let dfa = self.automata.dfa(&regex)?;
        Ok(names
            .iter()
            .filter(|n| dfa.is_match(Value::String(n.to_string()).to_string().as_bytes()))
            .cloned()
            .collect())
    }

    /// The keys (`"…"` texts) `propertyNames` admits, `Ok(None)` without it (a schema
    /// admitting no string gives the empty regex `[^\x00-\x{10FFFF}]`).
    fn key_language(
        &mut self,
        map: &Map<String, Value>,
        pointer: &str,
        level: usize,
    ) -> Result<Option<String>, JsonSchemaError> {
        let Some(schema) = map.get("propertyNames") else {
            return Ok(None);
        };
        let any_key = format!("\"(?:{})*\"", strings::any_char(self.config.get_escapes()));
        let keys = match self.schema(schema, &child(pointer, "propertyNames"), level)? {
            Some(lang) => self.automata.intersect(&[any_key, lang])?,
            None => None,
        };
        Ok(Some(keys.unwrap_or_else(|| NOTHING.to_string())))
    }

    /// The keys that decode to none of `names`: any key minus the names' spellings, as
    /// an automaton (a product the size of the names' trie) rather than the regex of that
    /// trie, whose text repeats the class of every other character at each of its nodes.
    fn unnamed_keys(&mut self, names: &[String]) -> Result<String, JsonSchemaError> {
        let escapes = self.config.get_escapes();
        let any_key = format!("\"(?:{})*\"", strings::any_char(escapes));
        if names.is_empty() {
            return Ok(any_key);
        }
        let any_key = self.automata.fixed(&any_key);
        let spelled: Vec<String> = names
            .iter()
            .map(|n| format!("\"{}\"", strings::encode_literal(n, escapes)))
            .collect();
        let keys = self.automata.difference(&any_key, alternation(spelled))?;
        Ok(keys.unwrap_or_else(|| NOTHING.to_string()))
    }

    /// The members whose names are not positioned: for each set of patterns, the keys
    /// matching exactly those (and `propertyNames`), with the value of every pattern of
    /// the set, or `additionalProperties` for keys matching none.
    fn extra_members(
        &mut self,
        map: &Map<String, Value>,
        pointer: &str,
        level: usize,
        additional: &Value,
        patterns: &[(String, Value, String)],
        names: &[String],
    ) -> Result<Option<String>, JsonSchemaError> {
        if patterns.len() > MAX_PATTERNS {
            let why = format!(
                "more than {MAX_PATTERNS} patterns: the keys are split by which patterns they \
                 match, 2^n sets"
            );
            self.refuse(pointer, "patternProperties", &why)?;
        }
        let patterns = &patterns[..patterns.len().min(MAX_PATTERNS)];
        let colon = self.ws().colon();
        let limit = self.key_language(map, pointer, level)?;
        // The unnamed keys (any key minus the names) only where some key may be unnamed:
        // with `additionalProperties: false` and no patterns (the usual closed object) no
        // member is extra, and building it would be wasted work.
        let mut unnamed: Option<String> = None;
        let mut alts = Vec::new();
        for set in 0..1usize << patterns.len() {
            if set == 0 && *additional == Value::Bool(false) {
                continue;
            }
            if unnamed.is_none() {
                unnamed = Some(self.unnamed_keys(names)?);
            }
            let mut keys = vec![unnamed.clone().expect("just set")];
            keys.extend(limit.clone());
            let mut others = Vec::new();
            let mut values = Vec::new();
            for (i, (regex, schema, at)) in patterns.iter().enumerate() {
                if set >> i & 1 == 1 {
                    keys.push(regex.clone());
                    values.push((schema, at.clone()));
                } else {
                    others.push(regex.clone());
                }
            }
            if values.is_empty() {
                values.push((additional, child(pointer, "additionalProperties")));
            }
            let keys = match self.automata.intersect(&keys)? {
                Some(k) => self.automata.difference(&k, alternation(others))?,
                None => None,
            };
            let Some(keys) = keys else { continue };
            let mut langs = Vec::new();
            for (schema, at) in values {
                langs.push(self.schema(schema, &at, level + 1)?);
            }
            let value = match langs.into_iter().collect::<Option<Vec<String>>>() {
                Some(langs) => self.automata.intersect(&langs)?,
                None => None,
            };
            if let Some(value) = value {
                alts.push(format!("{keys}{colon}{value}"));
            }
        }
        Ok(alternation(alts))
    }

    /// `minProperties`/`maxProperties`: the object language intersected with the objects
    /// of so many members, each one of `members` (top-level commas split members
    /// unambiguously, so the count is exact).
    fn property_counts(
        &mut self,
        counts: Counts,
        level: usize,
        lang: Lang,
        members: Vec<String>,
    ) -> Result<Lang, JsonSchemaError> {
        let (min, max) = (counts.min, counts.max);
        let Some(lang) = lang else { return Ok(None) };
        if min == 0 && max.is_none() {
            return Ok(Some(lang));
        }
        let m = alternation(members);
        let body = match (m, max) {
            (_, Some(0)) | (None, _) => None,
            (Some(m), max) => {
                let sep = self.ws().sep(level);
                let hi = max.map_or(String::new(), |h| (h - 1).to_string());
                Some(format!("{m}(?:{sep}{m}){{{},{hi}}}", min.max(1) - 1))
            }
        };
        let counted = self
            .ws()
            .container("\\{", "\\}", body.as_deref(), min == 0, level);
        match counted {
            Some(c) => self.automata.intersect(&[lang, c]),
            None => Ok(None),
        }
    }
}

/// Most `patternProperties` patterns (their key sets are split 2^n ways).
const MAX_PATTERNS: usize = 4;

/// The object body (non-empty) and whether the empty body is allowed, built right to left.
///
/// A run of optional members with nothing required after it is "a non-empty subsequence
/// of these, in order, separated by `sep`": the regex extension `DELIMITED_SUBSEQUENCE_OF`,
/// whose NFA is linear in the members. Spelled out as alternations (each optional member
/// either opens the body or is skipped) the regex text grows quadratically: 40 optional
/// properties made 600 kB of regex and 0.7 s of byte DFA construction.
fn sequence(members: &[Member], extra: Option<&Extra>, sep: &str) -> (Lang, bool) {
    // (after: the rest with each member after a separator; first: the rest, non-empty,
    // without a leading separator; empty: whether the rest may be empty; optional_run:
    // while `empty`, the non-empty forms of the rest's items, right to left)
    let mut optional_run: Vec<String> = Vec::new();
    let (mut after, mut first, mut empty) = match extra {
        Some(e) if e.max != Some(0) => {
            let hi = e.max.map_or(String::new(), |m| m.to_string());
            let hi1 = e.max.map_or(String::new(), |m| (m - 1).to_string());
            let after = format!("(?:{sep}{}){{{},{hi}}}", e.regex, e.min);
            let first = format!(
                "{}(?:{sep}{}){{{},{hi1}}}",
                e.regex,
                e.regex,
                e.min.saturating_sub(1)
            );
            if e.min == 0 {
                optional_run.push(first.clone());
            }
            (after, Some(first), e.min == 0)
        }
        _ => (String::new(), None, true),
    };
    for m in members.iter().rev() {
        let r = &m.regex;
        if m.required {
            first = Some(format!("{r}{after}"));
            after = format!("{sep}{r}{after}");
            empty = false;
        } else {
            first = match (&first, empty) {
                (Some(f), false) => Some(format!("(?:{r}{sep})?{f}")),
                (Some(_), true) => {
                    optional_run.push(r.clone());
                    let fields: Vec<String> = std::iter::once(sep)
                        .chain(optional_run.iter().rev().map(String::as_str))
                        .map(|f| format!("(?:{f})"))
                        .collect();
                    Some(format!(
                        "(?P<DELIMITED_SUBSEQUENCE_OF>{})",
                        fields.join("|")
                    ))
                }
                (None, _) => {
                    optional_run.push(r.clone());
                    Some(format!("{r}{after}"))
                }
            };
            after = format!("(?:{sep}{r})?{after}");
        }
    }
    (first, empty)
}
