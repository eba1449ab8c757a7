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
use crate::scalars::count;
use crate::schema::{Lang, Translator};
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

impl Translator<'_> {
    /// `type: array`: `prefixItems` (or draft-07 `items` as an array), `items` (or
    /// `additionalItems`), `minItems`, `maxItems`, `uniqueItems` when trivially true.
    pub(crate) fn array(
        &mut self,
        map: &Map<String, Value>,
        pointer: &str,
        level: usize,
    ) -> Result<Lang, JsonSchemaError> {
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
            None => Some(self.any_value(level + 1, self.config.any_json_depth)),
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
        Ok(self
            .ws()
            .container("\\[", "\\]", body.as_deref(), min == 0, level))
    }

    /// `type: object`.
    pub(crate) fn object(
        &mut self,
        map: &Map<String, Value>,
        pointer: &str,
        level: usize,
    ) -> Result<Lang, JsonSchemaError> {
        let colon = self.ws().colon();
        let mut names: Vec<String> = Vec::new();
        let mut members = Vec::new();
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
            None => Value::Bool(self.config.additional_properties),
        };
        let mut declared: Vec<(String, Value, String)> = properties
            .iter()
            .map(|(k, v)| {
                (
                    k.clone(),
                    v.clone(),
                    child(&child(pointer, "properties"), k),
                )
            })
            .collect();
        for name in &required {
            if !properties.contains_key(name) {
                declared.push((
                    name.clone(),
                    additional.clone(),
                    child(pointer, "additionalProperties"),
                ));
            }
        }
        let allowed_names = self.property_names(map, pointer, level, &declared)?;
        for (name, schema, at) in &declared {
            let is_required = required.contains(name);
            let value = if allowed_names.contains(name) {
                self.schema(schema, at, level + 1)?
            } else {
                None
            };
            match value {
                Some(v) => members.push(Member {
                    regex: format!("\"{}\"{colon}{v}", strings::encode_literal(name)),
                    required: is_required,
                }),
                None if is_required => return Ok(None),
                None => {}
            }
            names.push(name.clone());
        }
        let extra = self.extra_members(map, pointer, level, &additional, &names)?;
        let extra = self.property_counts(map, pointer, &members, extra)?;
        let Some(extra) = extra else { return Ok(None) };
        let (body, empty) = sequence(&members, extra.as_ref(), &self.ws().sep(level));
        Ok(self
            .ws()
            .container("\\{", "\\}", body.as_deref(), empty, level))
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

    /// The declared names that `propertyNames` admits (all of them without it).
    fn property_names(
        &mut self,
        map: &Map<String, Value>,
        pointer: &str,
        level: usize,
        declared: &[(String, Value, String)],
    ) -> Result<Vec<String>, JsonSchemaError> {
        let names: Vec<String> = declared.iter().map(|d| d.0.clone()).collect();
        let Some(schema) = map.get("propertyNames") else {
            return Ok(names);
        };
        let texts: Vec<String> = names
            .iter()
            .map(|n| Value::String(n.clone()).to_string())
            .collect();
        match self.schema(schema, &child(pointer, "propertyNames"), level)? {
            None => Ok(Vec::new()),
            Some(regex) => {
                let ok = crate::check::filter_matching(&regex, texts, self.config.dfa_state_limit)?;
                Ok(names
                    .into_iter()
                    .filter(|n| ok.contains(&Value::String(n.clone()).to_string()))
                    .collect())
            }
        }
    }

    /// The members beside the declared ones: `additionalProperties` keys (any name but
    /// the declared ones), or a single `patternProperties` pattern when nothing else is allowed.
    fn extra_members(
        &mut self,
        map: &Map<String, Value>,
        pointer: &str,
        level: usize,
        additional: &Value,
        names: &[String],
    ) -> Result<Option<String>, JsonSchemaError> {
        let colon = self.ws().colon();
        let value = self.schema(
            additional,
            &child(pointer, "additionalProperties"),
            level + 1,
        )?;
        let patterns = match map.get("patternProperties") {
            Some(Value::Object(p)) if !p.is_empty() => Some(p),
            Some(Value::Object(_)) | None => None,
            Some(_) => {
                return Err(JsonSchemaError::at(
                    pointer,
                    "patternProperties",
                    "must be an object",
                ))
            }
        };
        if let Some(patterns) = patterns {
            if value.is_some() || patterns.len() > 1 {
                let why = "keys matching a pattern must avoid the other patterns and the additional keys, \
                           which needs a difference of key languages (not yet built); supported: one \
                           pattern with additionalProperties false";
                self.refuse(pointer, "patternProperties", why)?;
                return Ok(
                    value.map(|v| format!("\"{}\"{colon}{v}", strings::body_except(&refs(names))))
                );
            }
            let (p, schema) = patterns.iter().next().expect("one pattern");
            let here = child(&child(pointer, "patternProperties"), p);
            let body = pattern::body_regex(p)
                .map_err(|why| JsonSchemaError::at(pointer, "patternProperties", why))?;
            let key = format!("\"{body}\"");
            let texts: Vec<String> = names
                .iter()
                .map(|n| Value::String(n.clone()).to_string())
                .collect();
            if !crate::check::filter_matching(&key, texts, self.config.dfa_state_limit)?.is_empty()
            {
                let why = "a declared property matches the pattern and would need both schemas (intersection)";
                self.refuse(pointer, "patternProperties", why)?;
            }
            return Ok(self
                .schema(schema, &here, level + 1)?
                .map(|v| format!("{key}{colon}{v}")));
        }
        let Some(value) = value else { return Ok(None) };
        if map.contains_key("propertyNames") {
            let why =
                "additional keys would have to match propertyNames and avoid the declared names \
                       (intersection, not yet built); supported with additionalProperties false";
            self.refuse(pointer, "propertyNames", why)?;
        }
        Ok(Some(format!(
            "\"{}\"{colon}{value}",
            strings::body_except(&refs(names))
        )))
    }

    /// Applies `minProperties`/`maxProperties`; `Ok(None)` when they cannot be met.
    fn property_counts(
        &mut self,
        map: &Map<String, Value>,
        pointer: &str,
        members: &[Member],
        extra: Option<String>,
    ) -> Result<Option<Option<Extra>>, JsonSchemaError> {
        let min = count(map, pointer, "minProperties")?.unwrap_or(0);
        let max = count(map, pointer, "maxProperties")?;
        let n_required = members.iter().filter(|m| m.required).count() as u64;
        let all_required = n_required == members.len() as u64;
        let mut extra = extra.map(|regex| Extra {
            regex,
            min: 0,
            max: None,
        });
        if let Some(max) = max {
            let most = members.len() as u64;
            match &mut extra {
                _ if max < n_required => return Ok(None),
                None if most <= max => {}
                Some(e) if all_required => e.max = Some(max - n_required),
                _ => self.refuse(
                    pointer,
                    "maxProperties",
                    "counting optional members is not built yet",
                )?,
            }
        }
        if min > n_required {
            match &mut extra {
                Some(e) if all_required && min - n_required == 1 => e.min = 1,
                None if all_required => return Ok(None),
                _ => {
                    let why = "at least two more members than the required ones would have to have \
                               distinct names, or optional members would have to be counted (not built)";
                    self.refuse(pointer, "minProperties", why)?
                }
            }
        }
        Ok(Some(extra))
    }
}

fn refs(names: &[String]) -> Vec<&str> {
    names.iter().map(String::as_str).collect()
}

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
