//! Reading the JSON spellings into a [`Format`]: XGrammar's current
//! `{"type": "structural_tag", "format": {...}}`, the legacy `{"structures": [...],
//! "triggers": [...]}` that vLLM and SGLang forward, or a bare format object. Every field
//! is checked; a field or format that fstc would not enforce exactly is refused by name.

use fstc_pda::Syntax;
use serde_json::{Map, Value};

use crate::error::{child, TagsError};
use crate::format::{Format, Tag, TagsWithSeparator, TokenRef, TriggeredTags};

/// Formats fstc knows but refuses, with the reason.
const REFUSED_TYPES: &[(&str, &str)] = &[
    (
        "dispatch",
        "not supported yet; spell it as `triggered_tags` whose triggers are the patterns",
    ),
    (
        "exclude_token",
        "this token-level format is not supported yet: fstc reads a token by id only as \
         `token`, a tag's `begin`/`end` or `token_triggered_tags`' `trigger_tokens`",
    ),
    (
        "any_tokens",
        "this token-level format is not supported yet: fstc reads free text as text; use \
         `any_text`",
    ),
    (
        "token_dispatch",
        "this token-level format is not supported yet; spell it as `token_triggered_tags`",
    ),
    (
        "qwen_xml_parameter",
        "the XML parameter styles are not supported; use `json_schema` with style `json`",
    ),
];

const FORMAT_TYPES: &str = "const_string, json_schema, regex, grammar, any_text, token, sequence, \
                            or, optional, star, plus, repeat, tag, triggered_tags, \
                            token_triggered_tags, tags_with_separator";

/// A structural tag: its format tree and how it was spelled, so that errors found while
/// compiling point into the spec as written.
#[derive(Clone, Debug, PartialEq)]
pub struct StructuralTag {
    /// The tree.
    pub format: Format,
    pub(crate) spelling: Spelling,
}

/// Which spelling a [`StructuralTag`] came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Spelling {
    /// `{"type": "structural_tag", "format": ...}`: paths start at `/format`.
    Current,
    /// A format object alone, or a tree built in Rust: paths start at the root.
    Bare,
    /// `{"structures": [...], "triggers": [...]}`: tag `i` is `/structures/i`, its
    /// content `/structures/i/schema`.
    Legacy,
}

impl StructuralTag {
    /// Reads a structural tag from its JSON text (either spelling, or a bare format).
    pub fn from_json(text: &str) -> Result<StructuralTag, TagsError> {
        let value: Value = serde_json::from_str(text)
            .map_err(|e| TagsError::at("", format!("the spec is not valid JSON: {e}")))?;
        StructuralTag::from_value(&value)
    }

    /// Reads a structural tag from parsed JSON (either spelling, or a bare format).
    pub fn from_value(value: &Value) -> Result<StructuralTag, TagsError> {
        let top = object(value, "")?;
        let bare_triggered = top.get("type").and_then(Value::as_str) == Some("triggered_tags");
        if top.contains_key("structures") || (top.contains_key("triggers") && !bare_triggered) {
            return Ok(StructuralTag {
                format: legacy(top)?,
                spelling: Spelling::Legacy,
            });
        }
        match top.get("type").and_then(Value::as_str) {
            Some("structural_tag") => {
                allow_keys(top, "", &["type", "format"])?;
                let format = top
                    .get("format")
                    .ok_or_else(|| TagsError::at("", "missing field `format`"))?;
                Ok(StructuralTag {
                    format: parse_format(format, "/format")?,
                    spelling: Spelling::Current,
                })
            }
            _ => Ok(StructuralTag::from_format(parse_format(value, "")?)),
        }
    }

    /// A tree built in Rust (paths in errors name its fields as the JSON spelling does).
    pub fn from_format(format: Format) -> StructuralTag {
        StructuralTag {
            format,
            spelling: Spelling::Bare,
        }
    }
}

/// The legacy spelling: triggered tags, each a `begin`, a JSON Schema and an `end`.
fn legacy(top: &Map<String, Value>) -> Result<Format, TagsError> {
    allow_keys(top, "", &["type", "structures", "triggers"])?;
    if let Some(kind) = top.get("type") {
        if kind.as_str() != Some("structural_tag") {
            return Err(TagsError::at(
                "/type",
                "the legacy spelling (`structures`, `triggers`) has type `structural_tag`",
            ));
        }
    }
    let triggers = strings(required(top, "", "triggers")?, "/triggers")?;
    let list = array(required(top, "", "structures")?, "/structures")?;
    let mut tags = Vec::with_capacity(list.len());
    for (i, item) in list.iter().enumerate() {
        let path = child("/structures", i);
        let item_map = object(item, &path)?;
        allow_keys(item_map, &path, &["begin", "schema", "end"])?;
        let begin = string(required(item_map, &path, "begin")?, &child(&path, "begin"))?;
        let schema = required(item_map, &path, "schema")?;
        let end = string(required(item_map, &path, "end")?, &child(&path, "end"))?;
        tags.push(Tag::new(begin, Format::JsonSchema(schema.clone()), end));
    }
    Ok(Format::TriggeredTags(TriggeredTags::new(triggers, tags)))
}

/// One format object at `path`.
fn parse_format(value: &Value, path: &str) -> Result<Format, TagsError> {
    let map = object(value, path)?;
    let kind = match map.get("type") {
        Some(Value::String(kind)) => kind.as_str(),
        Some(_) => {
            return Err(TagsError::at(
                &child(path, "type"),
                "`type` is not a string",
            ))
        }
        None => return Err(TagsError::at(path, "missing field `type`")),
    };
    if let Some((_, why)) = REFUSED_TYPES.iter().find(|(name, _)| *name == kind) {
        return Err(TagsError::at(
            path,
            format!("format `{kind}` is refused: {why}"),
        ));
    }
    let field = |key: &str| required(map, path, key);
    let content = |key: &str| parse_format(field(key)?, &child(path, key)).map(Box::new);
    let format = match kind {
        "const_string" => {
            allow_keys(map, path, &["type", "value"])?;
            Format::ConstString(string(field("value")?, &child(path, "value"))?)
        }
        "json_schema" => json_schema(map, path)?,
        "regex" => {
            allow_keys(map, path, &["type", "pattern"])?;
            Format::Regex(string(field("pattern")?, &child(path, "pattern"))?)
        }
        "grammar" => grammar(map, path)?,
        "any_text" => any_text(map, path)?,
        "token" => Format::Token(token(map, path)?),
        "sequence" | "or" => {
            allow_keys(map, path, &["type", "elements"])?;
            let elements_path = child(path, "elements");
            let list = array(field("elements")?, &elements_path)?;
            let elements = list
                .iter()
                .enumerate()
                .map(|(i, v)| parse_format(v, &child(&elements_path, i)))
                .collect::<Result<Vec<_>, _>>()?;
            if kind == "or" {
                Format::Or(elements)
            } else {
                Format::Sequence(elements)
            }
        }
        "optional" | "star" | "plus" => {
            allow_keys(map, path, &["type", "content"])?;
            let inner = content("content")?;
            match kind {
                "optional" => Format::Optional(inner),
                "star" => Format::Star(inner),
                _ => Format::Plus(inner),
            }
        }
        "repeat" => repeat(map, path)?,
        "tag" => Format::Tag(tag(map, path)?),
        "triggered_tags" => triggered_tags(map, path)?,
        "token_triggered_tags" => token_triggered_tags(map, path)?,
        "tags_with_separator" => tags_with_separator(map, path)?,
        other => {
            return Err(TagsError::at(
                &child(path, "type"),
                format!("unknown format type `{other}` (known: {FORMAT_TYPES})"),
            ))
        }
    };
    Ok(format)
}

fn json_schema(map: &Map<String, Value>, path: &str) -> Result<Format, TagsError> {
    allow_keys(map, path, &["type", "json_schema", "style", "any_order"])?;
    if let Some(style) = map.get("style") {
        match style.as_str() {
            Some("json") => {}
            Some(other) => {
                return Err(TagsError::at(
                    &child(path, "style"),
                    format!("style `{other}` is refused: only `json` is supported"),
                ))
            }
            None => {
                return Err(TagsError::at(
                    &child(path, "style"),
                    "`style` is not a string",
                ))
            }
        }
    }
    if let Some(any_order) = map.get("any_order") {
        if flag(Some(any_order), &child(path, "any_order"))? {
            return Err(TagsError::at(
                &child(path, "any_order"),
                "`any_order: true` is refused: its language (entries in any order, duplicates \
                 allowed, required keys not tracked) is not supported",
            ));
        }
    }
    let schema = required(map, path, "json_schema")?;
    if !(schema.is_object() || schema.is_boolean()) {
        return Err(TagsError::at(
            &child(path, "json_schema"),
            "`json_schema` is not a schema (an object or a boolean)",
        ));
    }
    Ok(Format::JsonSchema(schema.clone()))
}

/// A grammar piece: its text, and `syntax` (an fstc extension; XGrammar's EBNF when left
/// out, as XGrammar reads this format).
fn grammar(map: &Map<String, Value>, path: &str) -> Result<Format, TagsError> {
    allow_keys(map, path, &["type", "grammar", "syntax"])?;
    let text = string(required(map, path, "grammar")?, &child(path, "grammar"))?;
    let syntax = match map.get("syntax") {
        None | Some(Value::Null) => Syntax::Ebnf,
        Some(v) => {
            let at = child(path, "syntax");
            let name = string(v, &at)?;
            match name.parse::<Syntax>() {
                Ok(syntax @ (Syntax::Ebnf | Syntax::Gbnf | Syntax::Lark)) => syntax,
                _ => {
                    return Err(TagsError::at(
                        &at,
                        format!("unknown grammar syntax {name:?} (known: ebnf, gbnf, lark)"),
                    ))
                }
            }
        }
    };
    Ok(Format::Grammar { text, syntax })
}

fn any_text(map: &Map<String, Value>, path: &str) -> Result<Format, TagsError> {
    allow_keys(map, path, &["type", "excludes", "max_tokens", "max_chars"])?;
    let max_tokens = match map.get("max_tokens") {
        None | Some(Value::Null) => None,
        Some(v) => Some(count(v, &child(path, "max_tokens"))?),
    };
    let max_chars = match map.get("max_chars") {
        None | Some(Value::Null) => None,
        Some(v) => Some(count(v, &child(path, "max_chars"))?),
    };
    let excludes = optional_strings(map, path, "excludes")?;
    Ok(Format::AnyText {
        excludes,
        max_chars,
        max_tokens,
    })
}

fn repeat(map: &Map<String, Value>, path: &str) -> Result<Format, TagsError> {
    allow_keys(map, path, &["type", "min", "max", "content"])?;
    let min = count(required(map, path, "min")?, &child(path, "min"))?;
    let max_value = required(map, path, "max")?;
    let max = if max_value.as_i64() == Some(-1) {
        None
    } else {
        Some(count(max_value, &child(path, "max"))?)
    };
    if max.is_some_and(|max| max < min) {
        return Err(TagsError::at(
            &child(path, "max"),
            format!("`max` {} is below `min` {min}", max.unwrap_or(0)),
        ));
    }
    let content = parse_format(required(map, path, "content")?, &child(path, "content"))?;
    Ok(Format::Repeat {
        min,
        max,
        content: Box::new(content),
    })
}

/// A `tag` object (inside `triggered_tags` and `tags_with_separator` too, where `type`
/// may be left out).
fn tag(map: &Map<String, Value>, path: &str) -> Result<Tag, TagsError> {
    allow_keys(
        map,
        path,
        &["type", "begin", "content", "end", "max_tokens"],
    )?;
    let begin_path = child(path, "begin");
    let (begin, begin_token) = match required(map, path, "begin")? {
        Value::Object(m) => (String::new(), Some(token(m, &begin_path)?)),
        v => (string(v, &begin_path)?, None),
    };
    let end_path = child(path, "end");
    let (end, end_token) = match required(map, path, "end")? {
        Value::Object(m) => (vec![String::new()], Some(token(m, &end_path)?)),
        v @ Value::Array(_) => (strings(v, &end_path)?, None),
        v => (vec![string(v, &end_path)?], None),
    };
    let content = parse_format(required(map, path, "content")?, &child(path, "content"))?;
    let max_tokens = match map.get("max_tokens") {
        None | Some(Value::Null) => None,
        Some(v) => Some(count(v, &child(path, "max_tokens"))?),
    };
    Ok(Tag {
        begin,
        begin_token,
        content: Box::new(content),
        end,
        end_token,
        max_tokens,
    })
}

/// A `{"type": "token", "token": ID or NAME}` object (`type` checked by the caller for a
/// format, here for a delimiter).
fn token(map: &Map<String, Value>, path: &str) -> Result<TokenRef, TagsError> {
    allow_keys(map, path, &["type", "token"])?;
    if map.get("type").and_then(Value::as_str) != Some("token") {
        return Err(TagsError::at(
            &child(path, "type"),
            "a delimiter object must be a `token` (`{\"type\": \"token\", \"token\": ...}`)",
        ));
    }
    token_ref(required(map, path, "token")?, &child(path, "token"))
}

/// A token id (an integer from 0 to 2^32 - 1) or name (a non-empty string).
fn token_ref(value: &Value, path: &str) -> Result<TokenRef, TagsError> {
    match value {
        Value::String(name) if !name.is_empty() => Ok(TokenRef::Name(name.clone())),
        Value::String(_) => Err(TagsError::at(path, "a token name is empty")),
        v => count(v, path).map(TokenRef::Id).map_err(|_| {
            TagsError::at(
                path,
                format!(
                    "expected a token id (an integer from 0 to {}) or name, found {v}",
                    u32::MAX
                ),
            )
        }),
    }
}

/// A list of token ids or names at `path`/`key` (empty when left out).
fn token_refs(map: &Map<String, Value>, path: &str, key: &str) -> Result<Vec<TokenRef>, TagsError> {
    let at = child(path, key);
    match map.get(key) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(v) => (array(v, &at)?.iter().enumerate())
            .map(|(i, v)| token_ref(v, &child(&at, i)))
            .collect(),
    }
}

/// The `tags` list of a dispatching format.
fn tag_list(map: &Map<String, Value>, path: &str) -> Result<Vec<Tag>, TagsError> {
    let tags_path = child(path, "tags");
    let list = array(required(map, path, "tags")?, &tags_path)?;
    list.iter()
        .enumerate()
        .map(|(i, v)| {
            let item = child(&tags_path, i);
            let m = object(v, &item)?;
            match m.get("type") {
                None => {}
                Some(t) if t.as_str() == Some("tag") => {}
                Some(_) => {
                    return Err(TagsError::at(
                        &child(&item, "type"),
                        "an element of `tags` must be a `tag`",
                    ))
                }
            }
            tag(m, &item)
        })
        .collect()
}

fn triggered_tags(map: &Map<String, Value>, path: &str) -> Result<Format, TagsError> {
    allow_keys(
        map,
        path,
        &[
            "type",
            "triggers",
            "tags",
            "at_least_one",
            "stop_after_first",
            "excludes",
        ],
    )?;
    let (at_least_one, stop_after_first) = list_flags(map, path)?;
    Ok(Format::TriggeredTags(TriggeredTags {
        triggers: strings(required(map, path, "triggers")?, &child(path, "triggers"))?,
        trigger_tokens: Vec::new(),
        exclude_tokens: Vec::new(),
        tags: tag_list(map, path)?,
        at_least_one,
        stop_after_first,
        excludes: optional_strings(map, path, "excludes")?,
    }))
}

/// XGrammar's `token_triggered_tags`: triggered tags opened by tokens, each tag's `begin`
/// a `token`.
fn token_triggered_tags(map: &Map<String, Value>, path: &str) -> Result<Format, TagsError> {
    allow_keys(
        map,
        path,
        &[
            "type",
            "trigger_tokens",
            "tags",
            "exclude_tokens",
            "at_least_one",
            "stop_after_first",
        ],
    )?;
    required(map, path, "trigger_tokens")?;
    let trigger_tokens = token_refs(map, path, "trigger_tokens")?;
    if trigger_tokens.is_empty() {
        return Err(TagsError::at(
            &child(path, "trigger_tokens"),
            "`trigger_tokens` is empty",
        ));
    }
    let (at_least_one, stop_after_first) = list_flags(map, path)?;
    Ok(Format::TriggeredTags(TriggeredTags {
        triggers: Vec::new(),
        trigger_tokens,
        exclude_tokens: token_refs(map, path, "exclude_tokens")?,
        tags: tag_list(map, path)?,
        at_least_one,
        stop_after_first,
        excludes: Vec::new(),
    }))
}

/// A tag list's `at_least_one` and `stop_after_first` (false when left out).
fn list_flags(map: &Map<String, Value>, path: &str) -> Result<(bool, bool), TagsError> {
    Ok((
        flag(map.get("at_least_one"), &child(path, "at_least_one"))?,
        flag(
            map.get("stop_after_first"),
            &child(path, "stop_after_first"),
        )?,
    ))
}

fn tags_with_separator(map: &Map<String, Value>, path: &str) -> Result<Format, TagsError> {
    allow_keys(
        map,
        path,
        &[
            "type",
            "tags",
            "separator",
            "at_least_one",
            "stop_after_first",
        ],
    )?;
    let tags = tag_list(map, path)?;
    let separator = string(required(map, path, "separator")?, &child(path, "separator"))?;
    let (at_least_one, stop_after_first) = list_flags(map, path)?;
    Ok(Format::TagsWithSeparator(TagsWithSeparator {
        tags,
        separator,
        at_least_one,
        stop_after_first,
    }))
}

fn object<'v>(value: &'v Value, path: &str) -> Result<&'v Map<String, Value>, TagsError> {
    value
        .as_object()
        .ok_or_else(|| TagsError::at(path, format!("expected an object, found {}", kind(value))))
}

fn array<'v>(value: &'v Value, path: &str) -> Result<&'v Vec<Value>, TagsError> {
    value
        .as_array()
        .ok_or_else(|| TagsError::at(path, format!("expected an array, found {}", kind(value))))
}

fn string(value: &Value, path: &str) -> Result<String, TagsError> {
    value
        .as_str()
        .map(str::to_string)
        .ok_or_else(|| TagsError::at(path, format!("expected a string, found {}", kind(value))))
}

fn strings(value: &Value, path: &str) -> Result<Vec<String>, TagsError> {
    array(value, path)?
        .iter()
        .enumerate()
        .map(|(i, v)| string(v, &child(path, i)))
        .collect()
}

fn optional_strings(
    map: &Map<String, Value>,
    path: &str,
    key: &str,
) -> Result<Vec<String>, TagsError> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(v) => strings(v, &child(path, key)),
    }
}

fn flag(value: Option<&Value>, path: &str) -> Result<bool, TagsError> {
    match value {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(v) => Err(TagsError::at(
            path,
            format!("expected a boolean, found {}", kind(v)),
        )),
    }
}

/// A non-negative integer that fits in `u32`.
fn count(value: &Value, path: &str) -> Result<u32, TagsError> {
    value
        .as_u64()
        .and_then(|n| u32::try_from(n).ok())
        .ok_or_else(|| {
            TagsError::at(
                path,
                format!("expected an integer from 0 to {}, found {value}", u32::MAX),
            )
        })
}

fn required<'v>(
    map: &'v Map<String, Value>,
    path: &str,
    key: &str,
) -> Result<&'v Value, TagsError> {
    map.get(key)
        .ok_or_else(|| TagsError::at(path, format!("missing field `{key}`")))
}

/// Refuses a field this format does not have (it might be a constraint fstc would drop).
fn allow_keys(map: &Map<String, Value>, path: &str, known: &[&str]) -> Result<(), TagsError> {
    match map.keys().find(|k| !known.contains(&k.as_str())) {
        None => Ok(()),
        Some(key) => Err(TagsError::at(
            &child(path, key),
            format!(
                "unknown field `{key}` (this format has: {})",
                known.join(", ")
            ),
        )),
    }
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
