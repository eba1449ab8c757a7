//! A structural tag as one byte language: regex text (regex-syntax dialect, full match)
//! whose leaves are escaped literals or `(?P<AUTOMATON>N)` splices of byte DFAs built
//! here — each JSON Schema by fstc-json, each `regex` in the ECMAScript dialect, each free
//! text as UTF-8 minus the texts containing an excluded string. One DFA of the whole text
//! then composes with the vocabulary, so a token may span free text, a trigger and a tag.

use std::collections::HashMap;
use std::sync::Arc;

use fstc_core::bytes::{Algebra, ByteDfa, NetworkBuilder, Universe};
use fstc_core::compiled::Warning;
use fstc_json::JsonSchemaCompiler;
use fstc_regex::{Dialect, RegexBuilder};
use serde_json::Value;

use crate::error::{child, TagsError};
use crate::format::{Format, Tag, TagsWithSeparator, TriggeredTags};
use crate::parse::{Spelling, StructuralTag};
use crate::tokens;

/// The language of a structural tag, ready for [`RegexBuilder::automata`]; with calls,
/// the regex is the root machine's and `network` holds the machines it calls.
pub(crate) struct Language {
    pub regex: String,
    pub automata: Vec<Arc<ByteDfa>>,
    pub warnings: Vec<Warning>,
    pub network: Option<NetworkBuilder>,
}

/// Lowers a tree, building each distinct leaf automaton once (tools that share a schema
/// share its DFA).
pub(crate) struct Lowering<'c> {
    json: &'c JsonSchemaCompiler,
    state_limit: usize,
    spelling: Spelling,
    automata: Vec<Arc<ByteDfa>>,
    built: HashMap<String, usize>,
    warnings: Vec<Warning>,
    /// With calls: each JSON Schema's call network goes here, and its uses are calls of
    /// its root (by schema text, once per distinct schema).
    network: Option<(NetworkBuilder, HashMap<String, u32>)>,
    /// Lowering to markings (`crate::tokens`): every leaf with token-end markers.
    marked: bool,
}

impl<'c> Lowering<'c> {
    pub fn new(json: &'c JsonSchemaCompiler) -> Lowering<'c> {
        Lowering {
            json,
            state_limit: json.get_config().get_dfa_state_limit(),
            spelling: Spelling::Bare,
            automata: Vec::new(),
            built: HashMap::new(),
            warnings: Vec::new(),
            network: None,
            marked: false,
        }
    }

    /// Lowers to the markings of the language (`crate::tokens`), which decide
    /// `max_tokens`: each leaf with markers, limited free text with counted ones, and
    /// markers allowed after the whole.
    pub fn with_markers(mut self) -> Lowering<'c> {
        self.marked = true;
        self
    }

    /// Lowers JSON Schemas to calls of their networks' roots instead of spliced DFAs.
    pub fn with_calls(mut self) -> Lowering<'c> {
        self.network = Some((NetworkBuilder::new(), HashMap::new()));
        self
    }

    /// The regex and automata of `tag`.
    pub fn language(mut self, tag: &StructuralTag) -> Result<Language, TagsError> {
        self.spelling = tag.spelling;
        let root = match tag.spelling {
            Spelling::Current => "/format",
            Spelling::Bare | Spelling::Legacy => "",
        };
        let mut regex = self.lower(&tag.format, root, &[])?;
        if self.marked {
            let algebra = self.algebra();
            let after = self.splice_as_is("marks".into(), || Ok(tokens::marks(&algebra)))?;
            regex = format!("(?:{regex}){after}");
        }
        Ok(Language {
            regex,
            automata: self.automata,
            warnings: self.warnings,
            network: self.network.map(|(builder, _)| builder),
        })
    }

    /// `format` at `path` as a regex group; `ends` are the non-empty end strings of the
    /// nearest enclosing tag, which its free text may not contain.
    fn lower(&mut self, format: &Format, path: &str, ends: &[String]) -> Result<String, TagsError> {
        let content = |s: &mut Self, f: &Format| s.lower(f, &child(path, "content"), ends);
        Ok(match format {
            Format::ConstString(text) => self.literal(text)?,
            Format::JsonSchema(schema) => self.schema(schema, path)?,
            Format::Regex(pattern) => self.regex(pattern, path)?,
            Format::AnyText {
                excludes,
                max_chars,
                max_tokens,
            } => self.free_text(excludes, ends, (*max_chars, *max_tokens), path)?,
            Format::Sequence(elements) => {
                let parts = self.elements(elements, path, ends)?;
                format!("(?:{})", parts.concat())
            }
            Format::Or(elements) => {
                if elements.is_empty() {
                    return Err(TagsError::at(
                        &child(path, "elements"),
                        "`or` has no elements",
                    ));
                }
                format!("(?:{})", self.elements(elements, path, ends)?.join("|"))
            }
            Format::Optional(inner) => format!("(?:{})?", content(self, inner)?),
            Format::Star(inner) => format!("(?:{})*", content(self, inner)?),
            Format::Plus(inner) => format!("(?:{})+", content(self, inner)?),
            Format::Repeat {
                min,
                max,
                content: inner,
            } => {
                let body = content(self, inner)?;
                match max {
                    Some(max) => format!("(?:{body}){{{min},{max}}}"),
                    None => format!("(?:{body}){{{min},}}"),
                }
            }
            Format::Tag(tag) => self.tag(tag, path, "content")?,
            Format::TriggeredTags(triggered) => self.triggered(triggered, path, ends)?,
            Format::TagsWithSeparator(separated) => self.separated(separated, path, ends)?,
        })
    }

    fn elements(
        &mut self,
        elements: &[Format],
        path: &str,
        ends: &[String],
    ) -> Result<Vec<String>, TagsError> {
        let list = child(path, "elements");
        elements
            .iter()
            .enumerate()
            .map(|(i, e)| self.lower(e, &child(&list, i), ends))
            .collect()
    }

    /// `begin`, the content (whose free text may not contain the end strings), an end.
    fn tag(&mut self, tag: &Tag, path: &str, content_field: &str) -> Result<String, TagsError> {
        let (opened, end) = self.tag_parts(tag, path, content_field)?;
        Ok(format!("(?:{opened}{end})"))
    }

    /// A tag as `begin` and the content, and the alternation of its end strings.
    fn tag_parts(
        &mut self,
        tag: &Tag,
        path: &str,
        content_field: &str,
    ) -> Result<(String, String), TagsError> {
        if tag.end.is_empty() {
            return Err(TagsError::at(&child(path, "end"), "`end` is an empty list"));
        }
        let ends: Vec<String> = tag.end.iter().filter(|e| !e.is_empty()).cloned().collect();
        let content = self.lower(&tag.content, &child(path, content_field), &ends)?;
        let end = tag
            .end
            .iter()
            .map(|e| self.literal(e))
            .collect::<Result<Vec<_>, _>>()?
            .join("|");
        Ok((
            format!("{}{content}", self.literal(&tag.begin)?),
            format!("(?:{end})"),
        ))
    }

    /// The tags of a dispatching format as one alternation.
    fn tag_choice(&mut self, tags: &[Tag], path: &str) -> Result<String, TagsError> {
        // The legacy spelling's root tags are its `structures`, their content `schema`.
        let (list, content_field) = match (self.spelling, path) {
            (Spelling::Legacy, "") => ("/structures".to_string(), "schema"),
            _ => (child(path, "tags"), "content"),
        };
        if tags.is_empty() {
            let name = if content_field == "schema" {
                "structures"
            } else {
                "tags"
            };
            return Err(TagsError::at(&list, format!("`{name}` is empty")));
        }
        // Tags with the same ends share one copy of them, `(?:b1 c1|b2 c2)(?:e)`: the
        // same language, but the automaton does not spell the end once per tool.
        let mut groups: Vec<(String, Vec<String>)> = Vec::new();
        for (i, tag) in tags.iter().enumerate() {
            let (opened, end) = self.tag_parts(tag, &child(&list, i), content_field)?;
            match groups.iter_mut().find(|(e, _)| *e == end) {
                Some((_, openings)) => openings.push(opened),
                None => groups.push((end, vec![opened])),
            }
        }
        let alternatives: Vec<String> = groups
            .into_iter()
            .map(|(end, openings)| format!("(?:{}){end}", openings.join("|")))
            .collect();
        Ok(format!("(?:{})", alternatives.join("|")))
    }

    fn triggered(
        &mut self,
        t: &TriggeredTags,
        path: &str,
        ends: &[String],
    ) -> Result<String, TagsError> {
        check_triggers(t, path, self.spelling)?;
        let excluded: Vec<String> = t.triggers.iter().chain(&t.excludes).cloned().collect();
        let text = self.free_text(&excluded, ends, (None, None), path)?;
        let tags = self.tag_choice(&t.tags, path)?;
        Ok(match (t.at_least_one, t.stop_after_first) {
            (false, false) => format!("(?:{text}(?:{tags}{text})*)"),
            (true, false) => format!("(?:{tags}{text}(?:{tags}{text})*)"),
            (false, true) => format!("(?:{text}{tags}?)"),
            (true, true) => tags,
        })
    }

    /// Separated tags; a separator equal to an enclosing end string ends the list after
    /// one tag (as XGrammar reads it: the end would be ambiguous otherwise).
    fn separated(
        &mut self,
        t: &TagsWithSeparator,
        path: &str,
        ends: &[String],
    ) -> Result<String, TagsError> {
        let tags = self.tag_choice(&t.tags, path)?;
        let sep = self.literal(&t.separator)?;
        let single = t.stop_after_first || ends.contains(&t.separator);
        Ok(match (t.at_least_one, single) {
            (true, true) => tags,
            (false, true) => format!("(?:{tags})?"),
            (true, false) => format!("(?:{tags}(?:{sep}{tags})*)"),
            (false, false) => format!("(?:{tags}(?:{sep}{tags})*)?"),
        })
    }

    /// Free text: UTF-8 containing none of `excludes` and `ends`, at most `max_chars` code
    /// points; with markers, written by at most `max_tokens` tokens.
    fn free_text(
        &mut self,
        excludes: &[String],
        ends: &[String],
        (max_chars, max_tokens): (Option<u32>, Option<u32>),
        path: &str,
    ) -> Result<String, TagsError> {
        if let Some(i) = excludes.iter().position(String::is_empty) {
            return Err(TagsError::at(
                &child(&child(path, "excludes"), i),
                "an excluded string is empty (no text would be left)",
            ));
        }
        let mut banned: Vec<&String> = excludes.iter().chain(ends).collect();
        banned.sort();
        banned.dedup();
        let key = format!("text\0{max_chars:?}\0{banned:?}");
        let algebra = self.algebra();
        let limit = self.state_limit;
        let fail = |e: &dyn std::fmt::Display| {
            TagsError::at(
                path,
                format!("the free text's automaton could not be built: {e}"),
            )
        };
        let build = || {
            let mut dfa = ByteDfa::universe(Universe::Utf8);
            if !banned.is_empty() {
                let any = banned
                    .iter()
                    .map(|s| escape(s))
                    .collect::<Vec<_>>()
                    .join("|");
                let containing = RegexBuilder::new()
                    .state_limit(limit)
                    .build(&format!("(?s:.)*(?:{any})(?s:.)*"))
                    .map_err(|e| fail(&e))?;
                dfa = algebra
                    .difference(&dfa, &containing)
                    .map_err(|e| fail(&e))?;
            }
            if let Some(n) = max_chars {
                let short = RegexBuilder::new()
                    .state_limit(limit)
                    .build(&format!("(?s:.){{0,{n}}}"))
                    .map_err(|e| fail(&e))?;
                dfa = algebra.intersect(&dfa, &short).map_err(|e| fail(&e))?;
            }
            Ok(dfa)
        };
        match (max_tokens, self.marked) {
            (None, _) => self.splice(key, path, build),
            (Some(_), false) => Err(TagsError::at(
                &child(path, "max_tokens"),
                "`max_tokens` counts tokens, which the text alone does not show: only the \
                 eager compile for a vocabulary decides it (not the byte DFA, the call \
                 network or the lazy compile)",
            )),
            (Some(n), true) => self.splice_as_is(format!("{key}\0tokens {n}"), || {
                let text = build()?;
                tokens::counted(&text, n, &algebra, limit)
                    .map_err(|e| TagsError::at(&child(path, "max_tokens"), e))
            }),
        }
    }

    /// A JSON Schema's DFA, from fstc-json with the compiler's options.
    fn schema(&mut self, schema: &Value, path: &str) -> Result<String, TagsError> {
        let text = serde_json::to_string(schema).expect("a JSON value serializes");
        let at = match (self.spelling, path.starts_with("/structures/")) {
            (Spelling::Legacy, true) => path.to_string(),
            _ => child(path, "json_schema"),
        };
        if self.network.is_some() {
            return self.schema_call(&text, &at);
        }
        let json = self.json;
        let limit = self.state_limit;
        let mut warnings = Vec::new();
        let spliced = self.splice(format!("json\0{text}"), &at, || {
            let regex = json
                .to_regex(&text)
                .map_err(|e| TagsError::at(&at, format!("JSON Schema: {e}")))?;
            warnings = regex.warnings.clone();
            regex.dfa(limit).map_err(|e| {
                TagsError::at(
                    &at,
                    format!("the schema's automaton could not be built: {e}"),
                )
            })
        })?;
        self.warnings.extend(warnings.into_iter().map(|w| Warning {
            pointer: format!("{at}{}", w.pointer),
            ..w
        }));
        Ok(spliced)
    }

    /// `(?P<CALL>N)` of the root of the call network of `schema` (JSON text at `at`).
    fn schema_call(&mut self, schema: &str, at: &str) -> Result<String, TagsError> {
        let (builder, roots) = self.network.as_mut().expect("lowering with calls");
        let root = match roots.get(schema) {
            Some(&root) => root,
            None => {
                let compiled = self
                    .json
                    .call_network(schema)
                    .map_err(|e| TagsError::at(at, format!("JSON Schema: {e}")))?;
                let root = builder.add_network(&compiled.automaton);
                roots.insert(schema.to_string(), root);
                self.warnings
                    .extend(compiled.warnings.into_iter().map(|w| Warning {
                        pointer: format!("{at}{}", w.pointer),
                        ..w
                    }));
                root
            }
        };
        Ok(format!("(?P<CALL>{root})"))
    }

    /// A `regex` leaf, read as ECMAScript (as XGrammar and JSON Schema patterns are).
    fn regex(&mut self, pattern: &str, path: &str) -> Result<String, TagsError> {
        let limit = self.state_limit;
        self.splice(format!("regex\0{pattern}"), path, || {
            RegexBuilder::new()
                .state_limit(limit)
                .dialect(Dialect::EcmaScript)
                .build(pattern)
                .map_err(|e| TagsError::at(&child(path, "pattern"), format!("regex: {e}")))
        })
    }

    /// `(?P<AUTOMATON>N)` for the DFA `build` makes (with markers when lowering to
    /// markings; errors of that at `path`), built once per `key`.
    fn splice(
        &mut self,
        key: String,
        path: &str,
        build: impl FnOnce() -> Result<ByteDfa, TagsError>,
    ) -> Result<String, TagsError> {
        if !self.marked {
            return self.splice_as_is(key, build);
        }
        let algebra = self.algebra();
        self.splice_as_is(format!("marked\0{key}"), || {
            tokens::with_markers(&build()?, &algebra).map_err(|e| TagsError::at(path, e))
        })
    }

    /// `(?P<AUTOMATON>N)` for the DFA `build` makes, as it is, built once per `key`.
    fn splice_as_is(
        &mut self,
        key: String,
        build: impl FnOnce() -> Result<ByteDfa, TagsError>,
    ) -> Result<String, TagsError> {
        let index = match self.built.get(&key) {
            Some(&i) => i,
            None => {
                let dfa = build()?;
                self.automata.push(Arc::new(dfa));
                self.built.insert(key, self.automata.len() - 1);
                self.automata.len() - 1
            }
        };
        Ok(format!("(?P<AUTOMATON>{index})"))
    }

    /// The algebra with the state limit.
    fn algebra(&self) -> Algebra {
        let mut a = Algebra::new();
        a.state_limit(self.state_limit);
        a
    }

    /// Exactly `text` (with markers when lowering to markings).
    fn literal(&mut self, text: &str) -> Result<String, TagsError> {
        if !self.marked {
            return Ok(literal(text));
        }
        let limit = self.state_limit;
        self.splice(format!("literal\0{text}"), "", || {
            RegexBuilder::new()
                .state_limit(limit)
                .build(&escape(text))
                .map_err(|e| TagsError::at("", format!("a literal could not be built: {e}")))
        })
    }
}

/// Each tag's `begin` starts with exactly one trigger; no trigger is empty.
fn check_triggers(t: &TriggeredTags, path: &str, spelling: Spelling) -> Result<(), TagsError> {
    let triggers_path = child(path, "triggers");
    if t.triggers.is_empty() {
        return Err(TagsError::at(&triggers_path, "`triggers` is empty"));
    }
    if let Some(i) = t.triggers.iter().position(String::is_empty) {
        return Err(TagsError::at(
            &child(&triggers_path, i),
            "a trigger is the empty string (no free text would be left)",
        ));
    }
    let list = match (spelling, path) {
        (Spelling::Legacy, "") => "/structures".to_string(),
        _ => child(path, "tags"),
    };
    for (i, tag) in t.tags.iter().enumerate() {
        let opening: Vec<String> = t
            .triggers
            .iter()
            .filter(|trigger| tag.begin.starts_with(trigger.as_str()))
            .map(|s| format!("{s:?}"))
            .collect();
        let at = child(&child(&list, i), "begin");
        match opening.len() {
            1 => {}
            0 => {
                return Err(TagsError::at(
                    &at,
                    format!("`begin` {:?} starts with none of the triggers", tag.begin),
                ))
            }
            _ => {
                return Err(TagsError::at(
                    &at,
                    format!(
                        "`begin` {:?} starts with more than one trigger ({})",
                        tag.begin,
                        opening.join(", ")
                    ),
                ))
            }
        }
    }
    Ok(())
}

/// `text` as a regex group matching exactly it.
fn literal(text: &str) -> String {
    format!("(?:{})", escape(text))
}

fn escape(text: &str) -> String {
    regex_syntax::escape(text)
}
