//! A structural tag as one byte language: regex text (regex-syntax dialect, full match)
//! whose leaves are escaped literals or `(?P<AUTOMATON>N)` splices of byte DFAs built
//! here — each JSON Schema by fstc-json, each `regex` in the ECMAScript dialect, each free
//! text as UTF-8 minus the texts containing an excluded string. One DFA of the whole text
//! then composes with the vocabulary, so a token may span free text, a trigger and a tag.
//!
//! The same walk lowers a structure with `grammar` pieces to grammar rules instead
//! ([`Target`] is what a lowering builds): the tree is the start rule, the regular leaves
//! are the same DFAs spliced in, and each piece's rules join it renamed (`PATH:name`).

use std::collections::HashMap;
use std::sync::Arc;

use fstc_core::bytes::{Algebra, ByteDfa, NetworkBuilder, Universe};
use fstc_core::compiled::Warning;
use fstc_json::JsonSchemaCompiler;
use fstc_pda::gbnf::{Expr, RuleDef, Rules};
use fstc_pda::{Pda, Syntax};
use fstc_regex::{Dialect, RegexBuilder};
use serde_json::Value;

use crate::budget::Budget;
use crate::error::{child, TagsError};
use crate::format::{Format, Node, Tag, TagsWithSeparator, TokenRef, TriggeredTags};
use crate::parse::{Spelling, StructuralTag};
use crate::pieces;
use crate::special;
use crate::tokens;

/// The language of a structural tag, ready for [`RegexBuilder::automata`]; with calls,
/// the regex is the root machine's and `network` holds the machines it calls.
pub(crate) struct Language {
    pub regex: String,
    pub automata: Vec<Arc<ByteDfa>>,
    pub warnings: Vec<Warning>,
    pub network: Option<NetworkBuilder>,
    /// The excluded strings of each distinct free text without a limit (the lazy
    /// automaton's wildcards: `fstc_core::vocab::FreeText`).
    pub free_texts: Vec<Vec<String>>,
}

/// What a lowering builds: regex text over splices (the byte DFA and call network
/// paths) or a grammar rule body (the token PDA path).
pub(crate) trait Target: Clone + PartialEq + Sized {
    /// Exactly `text`.
    fn literal(text: &str) -> Self;
    /// The parts one after another.
    fn seq(parts: Vec<Self>) -> Self;
    /// One of the parts.
    fn alt(parts: Vec<Self>) -> Self;
    /// `min` to `max` (`None`: unbounded) times.
    fn repeat(self, min: u32, max: Option<u32>) -> Self;
    /// The language of automaton `index` (which is `dfa`).
    fn splice(index: usize, dfa: &Arc<ByteDfa>) -> Self;
    /// The rule named `name`, where rules can be called.
    fn rule(name: &str) -> Option<Self>;
    /// A call of machine `root` of a call network, where machines can be called.
    fn call(root: u32) -> Option<Self>;
    /// The regex text, where this is one.
    fn as_regex(&self) -> Option<&str>;
}

impl Target for String {
    fn literal(text: &str) -> String {
        literal(text)
    }
    fn seq(parts: Vec<String>) -> String {
        format!("(?:{})", parts.concat())
    }
    fn alt(parts: Vec<String>) -> String {
        format!("(?:{})", parts.join("|"))
    }
    fn repeat(self, min: u32, max: Option<u32>) -> String {
        match (min, max) {
            (0, Some(1)) => format!("(?:{self})?"),
            (0, None) => format!("(?:{self})*"),
            (1, None) => format!("(?:{self})+"),
            (min, Some(max)) => format!("(?:{self}){{{min},{max}}}"),
            (min, None) => format!("(?:{self}){{{min},}}"),
        }
    }
    fn splice(index: usize, _: &Arc<ByteDfa>) -> String {
        format!("(?P<AUTOMATON>{index})")
    }
    fn rule(_: &str) -> Option<String> {
        None
    }
    fn call(root: u32) -> Option<String> {
        Some(format!("(?P<CALL>{root})"))
    }
    fn as_regex(&self) -> Option<&str> {
        Some(self)
    }
}

impl Target for Expr {
    fn literal(text: &str) -> Expr {
        Expr::Bytes(text.as_bytes().to_vec())
    }
    fn seq(parts: Vec<Expr>) -> Expr {
        Expr::Seq(parts)
    }
    fn alt(parts: Vec<Expr>) -> Expr {
        Expr::Alt(parts)
    }
    fn repeat(self, min: u32, max: Option<u32>) -> Expr {
        Expr::Repeat {
            expr: Box::new(self),
            min,
            max,
            at: None,
        }
    }
    fn splice(_: usize, dfa: &Arc<ByteDfa>) -> Expr {
        Expr::Dfa(Arc::clone(dfa))
    }
    fn rule(name: &str) -> Option<Expr> {
        Some(Expr::Ref(name.to_string(), None))
    }
    fn call(_: u32) -> Option<Expr> {
        None
    }
    fn as_regex(&self) -> Option<&str> {
        None
    }
}

/// A tag's opening as a key: its token and its text.
type Opening<'t> = (&'t Option<TokenRef>, &'t str);

/// The start rule of the rules a structure lowers to (no grammar names a rule so: the
/// pieces' rules are `PATH:name`).
const START: &str = "structural tag";

/// Lowers a tree, building each distinct leaf automaton once (tools that share a schema
/// share its DFA).
pub(crate) struct Lowering<'c, T = String> {
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
    /// Inside the content of a tag limited to some tokens: that limit's path.
    limited: Option<String>,
    /// The grammar pieces' rules, renamed, and each distinct piece's start rule.
    rules: Vec<RuleDef>,
    pieces: HashMap<(String, Syntax), String>,
    /// The compile's budgets, checked before each leaf automaton is built.
    budget: Option<Budget>,
    /// Lowering a dispatch (`pieces`): the body of each hole so far, and whether there
    /// were more than [`pieces::MAX_HOLES`].
    holes: Option<(Vec<T>, bool)>,
    /// The excluded strings of each distinct free text without a limit, in order of use.
    free_texts: Vec<Vec<String>>,
    target: std::marker::PhantomData<T>,
}

impl<'c, T: Target> Lowering<'c, T> {
    pub fn new(json: &'c JsonSchemaCompiler) -> Lowering<'c, T> {
        Lowering {
            json,
            state_limit: json.get_config().get_dfa_state_limit(),
            spelling: Spelling::Bare,
            automata: Vec::new(),
            built: HashMap::new(),
            warnings: Vec::new(),
            network: None,
            marked: false,
            limited: None,
            rules: Vec::new(),
            pieces: HashMap::new(),
            budget: None,
            holes: None,
            free_texts: Vec::new(),
            target: std::marker::PhantomData,
        }
    }

    /// Where paths of `tag`'s tree start.
    fn root(&mut self, tag: &StructuralTag) -> &'static str {
        self.spelling = tag.spelling;
        match tag.spelling {
            Spelling::Current => "/format",
            Spelling::Bare | Spelling::Legacy => "",
        }
    }

    /// `format` at `path`; `ends` are the non-empty end strings of the nearest enclosing
    /// tag, which its free text may not contain.
    fn lower(&mut self, format: &Format, path: &str, ends: &[String]) -> Result<T, TagsError> {
        let content = |s: &mut Self, f: &Format| s.lower(f, &child(path, "content"), ends);
        Ok(match format {
            Format::ConstString(text) => self.literal(text)?,
            Format::JsonSchema(schema) => self.schema(schema, path)?,
            Format::Regex(pattern) => self.regex(pattern, path)?,
            Format::Grammar { text, syntax } => self.grammar(text, *syntax, path)?,
            Format::AnyText {
                excludes,
                max_chars,
                max_tokens,
            } => self.free_text(excludes, ends, (*max_chars, *max_tokens), path)?,
            Format::Sequence(elements) => T::seq(self.elements(elements, path, ends)?),
            Format::Or(elements) => {
                if elements.is_empty() {
                    return Err(TagsError::at(
                        &child(path, "elements"),
                        "`or` has no elements",
                    ));
                }
                T::alt(self.elements(elements, path, ends)?)
            }
            Format::Optional(inner) => content(self, inner)?.repeat(0, Some(1)),
            Format::Star(inner) => content(self, inner)?.repeat(0, None),
            Format::Plus(inner) => content(self, inner)?.repeat(1, None),
            Format::Repeat {
                min,
                max,
                content: inner,
            } => content(self, inner)?.repeat(*min, *max),
            Format::Token(token) => self.token(token, &child(path, "token"))?,
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
    ) -> Result<Vec<T>, TagsError> {
        let list = child(path, "elements");
        elements
            .iter()
            .enumerate()
            .map(|(i, e)| self.lower(e, &child(&list, i), ends))
            .collect()
    }

    /// `begin`, the content (whose free text may not contain the end strings), an end.
    fn tag(&mut self, tag: &Tag, path: &str, content_field: &str) -> Result<T, TagsError> {
        let (opened, end) = self.tag_parts(tag, path, content_field)?;
        Ok(T::seq(vec![opened, end]))
    }

    /// A tag as `begin` and the content, and the alternation of its end strings.
    fn tag_parts(
        &mut self,
        tag: &Tag,
        path: &str,
        content_field: &str,
    ) -> Result<(T, T), TagsError> {
        let (content, end) = self.tag_body(tag, path, content_field)?;
        let begin = self.opening(tag, path)?;
        Ok((T::seq(vec![begin, content]), end))
    }

    /// A tag's `begin`: its token (if any), then its text.
    fn opening(&mut self, tag: &Tag, path: &str) -> Result<T, TagsError> {
        let text = self.literal(&tag.begin)?;
        Ok(match &tag.begin_token {
            Some(token) => {
                let at = child(&child(path, "begin"), "token");
                T::seq(vec![self.token(token, &at)?, text])
            }
            None => text,
        })
    }

    /// One token (at `path`), read as its marker (`crate::special`); a name not resolved
    /// to an id is an error.
    fn token(&mut self, token: &TokenRef, path: &str) -> Result<T, TagsError> {
        let id = special::id_of(token, path)?;
        self.splice(format!("token\0{id}"), path, || Ok(special::marker_dfa(id)))
    }

    /// A tag's content (whose free text may not contain the end strings), and the
    /// alternation of its end strings.
    fn tag_body(
        &mut self,
        tag: &Tag,
        path: &str,
        content_field: &str,
    ) -> Result<(T, T), TagsError> {
        if tag.end.is_empty() {
            return Err(TagsError::at(&child(path, "end"), "`end` is an empty list"));
        }
        let ends: Vec<String> = tag.end.iter().filter(|e| !e.is_empty()).cloned().collect();
        let content = self.content(tag, (path, content_field), &ends)?;
        let end = (tag.end.iter())
            .map(|e| self.literal(e))
            .collect::<Result<Vec<_>, _>>()?;
        let end = match &tag.end_token {
            Some(token) => {
                let at = child(&child(path, "end"), "token");
                T::seq(vec![T::alt(end), self.token(token, &at)?])
            }
            None => T::alt(end),
        };
        Ok((content, end))
    }

    /// The content of `tag` (at `tag_path`, field `field`); with `max_tokens`, and
    /// lowering to markings, the markings of its texts written by at most that many tokens
    /// (`crate::tokens`).
    fn content(
        &mut self,
        tag: &Tag,
        (tag_path, field): (&str, &str),
        ends: &[String],
    ) -> Result<T, TagsError> {
        let path = child(tag_path, field);
        let Some(n) = tag.max_tokens else {
            return self.lower(&tag.content, &path, ends);
        };
        let at = child(tag_path, "max_tokens");
        if let Some(outer) = &self.limited {
            return Err(nested_limit(&at, outer));
        }
        if !self.marked {
            return Err(refused_limit(&at));
        }
        // The content's own language, then its counted markings.
        (self.marked, self.limited) = (false, Some(at.clone()));
        let plain = self.lower(&tag.content, &path, ends);
        (self.marked, self.limited) = (true, None);
        let plain = plain?;
        let regex = plain
            .as_regex()
            .expect("markings are lowered to regex text");
        let key = format!("body\0{n}\0{regex}");
        let (automata, limit, algebra) = (self.automata.clone(), self.state_limit, self.algebra());
        self.splice_as_is(key, || {
            let dfa = RegexBuilder::new()
                .state_limit(limit)
                .automata(automata)
                .build(regex)
                .map_err(|e| {
                    TagsError::at(
                        &path,
                        format!("the content's automaton could not be built: {e}"),
                    )
                })?;
            tokens::counted(&dfa, n, &algebra, limit).map_err(|e| TagsError::at(&at, e))
        })
    }

    /// The tags of a dispatching format as one alternation; lowering a dispatch, its
    /// holes ([`cut`](Self::cut)).
    fn tag_choice(&mut self, tags: &[Tag], path: &str) -> Result<T, TagsError> {
        if self.holes.is_some() {
            return self.cut(tags, path);
        }
        let (list, content_field) = tag_list(self.spelling, path, tags)?;
        // Tags with the same ends share one copy of them, `(?:b1 c1|b2 c2)(?:e)`: the
        // same language, but the automaton does not spell the end once per tool.
        let mut groups: Vec<(T, Vec<T>)> = Vec::new();
        for (i, tag) in tags.iter().enumerate() {
            let (opened, end) = self.tag_parts(tag, &child(&list, i), content_field)?;
            match groups.iter_mut().find(|(e, _)| *e == end) {
                Some((_, openings)) => openings.push(opened),
                None => groups.push((end, vec![opened])),
            }
        }
        let alternatives: Vec<T> = groups
            .into_iter()
            .map(|(end, openings)| T::seq(vec![T::alt(openings), end]))
            .collect();
        Ok(T::alt(alternatives))
    }

    /// A dispatch's tag list (`pieces`): per distinct `begin`, the `begin` and the marker of
    /// a new hole, whose body (the contents and ends of the tags opening with it, then
    /// the exit marker) is kept for a piece of its own. Past [`pieces::MAX_HOLES`] the
    /// list is lowered whole and the dispatch is not used.
    fn cut(&mut self, tags: &[Tag], path: &str) -> Result<T, TagsError> {
        // The contents are lowered whole (an error ends the lowering, holes and all).
        let (mut bodies, too_many) = self.holes.take().expect("lowering a dispatch");
        let grouped = self.by_begin(tags, path)?;
        if too_many || bodies.len() + grouped.len() > pieces::MAX_HOLES {
            let whole = self.tag_choice(tags, path);
            self.holes = Some((bodies, true));
            return whole;
        }
        let exit = self.splice_as_is("exit".into(), || Ok(pieces::exit_marker()))?;
        let mut opened = Vec::new();
        for (begin, contents) in grouped {
            let i = bodies.len();
            bodies.push(T::seq(vec![T::alt(contents), exit.clone()]));
            let marker = self.splice_as_is(format!("hole\0{i}"), || Ok(pieces::hole_marker(i)))?;
            opened.push(T::seq(vec![begin, marker]));
        }
        self.holes = Some((bodies, false));
        Ok(T::alt(opened))
    }

    /// The tags of a list grouped by `begin` (token and text): each distinct `begin`,
    /// lowered, with the alternatives that may follow it (a content and one of its ends).
    fn by_begin(&mut self, tags: &[Tag], path: &str) -> Result<Vec<(T, Vec<T>)>, TagsError> {
        let (list, content_field) = tag_list(self.spelling, path, tags)?;
        let mut holes: Vec<(Opening<'_>, T, Vec<T>)> = Vec::new();
        for (i, tag) in tags.iter().enumerate() {
            let at = child(&list, i);
            let (content, end) = self.tag_body(tag, &at, content_field)?;
            let body = T::seq(vec![content, end]);
            let key = (&tag.begin_token, tag.begin.as_str());
            match holes.iter_mut().find(|(k, _, _)| *k == key) {
                Some((_, _, bodies)) => bodies.push(body),
                None => holes.push((key, self.opening(tag, &at)?, vec![body])),
            }
        }
        Ok(holes
            .into_iter()
            .map(|(_, b, bodies)| (b, bodies))
            .collect())
    }

    fn triggered(
        &mut self,
        t: &TriggeredTags,
        path: &str,
        ends: &[String],
    ) -> Result<T, TagsError> {
        check_triggers(t, path, self.spelling)?;
        // Checked here, where an index into `excludes` is the user's (the text below also
        // excludes the triggers, listed first).
        no_empty_excludes(&t.excludes, path)?;
        let excluded: Vec<String> = t.triggers.iter().chain(&t.excludes).cloned().collect();
        let text = self.free_text(&excluded, ends, (None, None), path)?;
        let tags = self.tag_choice(&t.tags, path)?;
        let more = || T::seq(vec![tags.clone(), text.clone()]).repeat(0, None);
        Ok(match (t.at_least_one, t.stop_after_first) {
            (false, false) => T::seq(vec![text.clone(), more()]),
            (true, false) => T::seq(vec![tags.clone(), text.clone(), more()]),
            (false, true) => T::seq(vec![text.clone(), tags.clone().repeat(0, Some(1))]),
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
    ) -> Result<T, TagsError> {
        let tags = self.tag_choice(&t.tags, path)?;
        let sep = self.literal(&t.separator)?;
        let single = t.stop_after_first || ends.contains(&t.separator);
        let list = || {
            let more = T::seq(vec![sep.clone(), tags.clone()]).repeat(0, None);
            T::seq(vec![tags.clone(), more])
        };
        Ok(match (t.at_least_one, single) {
            (true, true) => tags,
            (false, true) => tags.repeat(0, Some(1)),
            (true, false) => list(),
            (false, false) => list().repeat(0, Some(1)),
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
    ) -> Result<T, TagsError> {
        no_empty_excludes(excludes, path)?;
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
        let plain: Vec<String> = banned.iter().map(|s| s.to_string()).collect();
        if (max_chars, max_tokens) == (None, None) && !self.free_texts.contains(&plain) {
            self.free_texts.push(plain);
        }
        let at = child(path, "max_tokens");
        match (max_tokens, self.marked, &self.limited) {
            (None, _, _) => self.splice(key, path, build),
            (Some(_), _, Some(outer)) => Err(nested_limit(&at, outer)),
            (Some(_), false, None) => Err(refused_limit(&at)),
            (Some(n), true, None) => self.splice_as_is(format!("{key}\0tokens {n}"), || {
                let text = build()?;
                tokens::counted(&text, n, &algebra, limit).map_err(|e| TagsError::at(&at, e))
            }),
        }
    }

    /// A JSON Schema's DFA, from fstc-json with the compiler's options.
    fn schema(&mut self, schema: &Value, path: &str) -> Result<T, TagsError> {
        let text = serde_json::to_string(schema).expect("a JSON value serializes");
        let at = match (self.spelling, path.starts_with("/structures/")) {
            (Spelling::Legacy, true) => path.to_string(),
            _ => child(path, "json_schema"),
        };
        if self.network.is_some() {
            let root = self.schema_call(&text, &at)?;
            return Ok(T::call(root).expect("call networks are lowered to regex text"));
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

    /// The root machine of the call network of `schema` (JSON text at `at`).
    fn schema_call(&mut self, schema: &str, at: &str) -> Result<u32, TagsError> {
        let (builder, roots) = self.network.as_mut().expect("lowering with calls");
        let root = match roots.get(schema) {
            Some(&root) => root,
            None => {
                let compiled = crate::networks::schema_network(self.json, schema)
                    .map_err(|e| TagsError::at(at, format!("JSON Schema: {e}")))?;
                let root = builder.add_network(&compiled.automaton);
                roots.insert(schema.to_string(), root);
                self.warnings
                    .extend(compiled.warnings.iter().cloned().map(|w| Warning {
                        pointer: format!("{at}{}", w.pointer),
                        ..w
                    }));
                root
            }
        };
        Ok(root)
    }

    /// A `regex` leaf, read as ECMAScript (as XGrammar and JSON Schema patterns are).
    fn regex(&mut self, pattern: &str, path: &str) -> Result<T, TagsError> {
        let limit = self.state_limit;
        self.splice(format!("regex\0{pattern}"), path, || {
            RegexBuilder::new()
                .state_limit(limit)
                .dialect(Dialect::EcmaScript)
                .build(pattern)
                .map_err(|e| TagsError::at(&child(path, "pattern"), format!("regex: {e}")))
        })
    }

    /// The DFA `build` makes (with markers when lowering to markings; errors of that at
    /// `path`), built once per `key`.
    fn splice(
        &mut self,
        key: String,
        path: &str,
        build: impl FnOnce() -> Result<ByteDfa, TagsError>,
    ) -> Result<T, TagsError> {
        if !self.marked {
            return self.splice_as_is(key, build);
        }
        let algebra = self.algebra();
        self.splice_as_is(format!("marked\0{key}"), || {
            tokens::with_markers(&build()?, &algebra).map_err(|e| TagsError::at(path, e))
        })
    }

    /// The DFA `build` makes, as it is, built once per `key`.
    fn splice_as_is(
        &mut self,
        key: String,
        build: impl FnOnce() -> Result<ByteDfa, TagsError>,
    ) -> Result<T, TagsError> {
        let index = match self.built.get(&key) {
            Some(&i) => i,
            None => {
                if let Some(budget) = &self.budget {
                    budget.check_time("", "building the parts of the structural tag")?;
                }
                let dfa = build()?;
                self.automata.push(Arc::new(dfa));
                self.built.insert(key, self.automata.len() - 1);
                self.automata.len() - 1
            }
        };
        Ok(T::splice(index, &self.automata[index]))
    }

    /// The algebra with the state limit (and the budget's deadline).
    fn algebra(&self) -> Algebra {
        let mut a = Algebra::new();
        a.state_limit(self.state_limit);
        a.deadline(self.budget.as_ref().and_then(Budget::deadline));
        a
    }

    /// Lowers within the compile's budgets.
    pub fn with_budget(mut self, budget: Budget) -> Lowering<'c, T> {
        self.budget = Some(budget);
        self
    }

    /// Exactly `text` (with markers when lowering to markings).
    fn literal(&mut self, text: &str) -> Result<T, TagsError> {
        if !self.marked {
            return Ok(T::literal(text));
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

impl<T: Target> Lowering<'_, T> {
    /// A `grammar` piece at `path`: the DFA of its language when it needs no stack (as a
    /// `regex` is), else a call of its start rule, its rules (each name `PATH:name`, so
    /// pieces never share a name) added once per distinct piece.
    fn grammar(&mut self, text: &str, syntax: Syntax, path: &str) -> Result<T, TagsError> {
        let key = (text.to_string(), syntax);
        if let Some(start) = self.pieces.get(&key) {
            return Ok(T::rule(start).expect("rules can be called"));
        }
        let at = child(path, "grammar");
        let rules = piece_rules(text, syntax, &at)?;
        let limit = self.state_limit;
        let regular = fstc_pda::regular_dfa(&rules, limit)
            .map_err(|e| TagsError::at(&at, format!("grammar ({syntax}): {e}")))?;
        if let Some(dfa) = regular {
            return self.splice(format!("grammar\0{syntax}\0{text}"), path, || Ok(dfa));
        }
        if T::rule("").is_none() {
            return Err(TagsError::at(
                path,
                "a recursive `grammar` piece is context-free: the structure compiles to a \
                 token PDA (`compile_any`), not to a token FSA, a byte DFA, a call network \
                 or a lazy automaton",
            ));
        }
        let rename = |name: &str| format!("{path}:{name}");
        self.rules.extend(rules.rules.iter().map(|r| RuleDef {
            name: rename(&r.name),
            at: r.at,
            body: renamed(&r.body, &rename),
        }));
        let start = rename(&rules.start);
        self.pieces.insert(key, start.clone());
        Ok(T::rule(&start).expect("rules can be called"))
    }
}

/// A piece's rules, checked on their own (unknown rules, left recursion that cannot be
/// rewritten), so that their errors are named at the piece (`at`).
fn piece_rules(text: &str, syntax: Syntax, at: &str) -> Result<Rules, TagsError> {
    let fail = |e: fstc_pda::PdaError| TagsError::at(at, format!("grammar ({syntax}): {e}"));
    let rules = syntax.parse(text).map_err(fail)?;
    Pda::from_rules(&rules).map_err(fail)?;
    Ok(rules)
}

/// Whether `format` holds a `grammar` piece whose language needs a stack (one that cannot
/// be read, or is too large, counts as not: the token FSA's compile reports it).
pub(crate) fn needs_stack(format: &Format, state_limit: usize) -> bool {
    format.any(&|node| match node {
        Node::Format(Format::Grammar { text, syntax }) => piece_rules(text, *syntax, "")
            .is_ok_and(|rules| matches!(fstc_pda::regular_dfa(&rules, state_limit), Ok(None))),
        _ => false,
    })
}

impl<'c> Lowering<'c, String> {
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
        let root = self.root(tag);
        let mut regex = self.lower(&tag.format, root, &[])?;
        if self.marked {
            let algebra = self.algebra();
            let after = self.splice_as_is("marks".into(), || Ok(tokens::marks(&algebra)))?;
            regex = String::seq(vec![regex, after]);
        }
        Ok(Language {
            regex,
            automata: self.automata,
            warnings: self.warnings,
            network: self.network.map(|(builder, _)| builder),
            free_texts: self.free_texts,
        })
    }
}

/// A structure with tag lists (`triggered_tags`, `tags_with_separator`), lowered in
/// pieces (`crate::pieces`): the dispatch (the tree with each tag list's `begin` strings
/// followed by a marker naming their hole; tag lists inside a tag's content stay whole)
/// and, per distinct body, the contents and end strings of the tags of a hole, followed
/// by the exit marker. Regex texts over `automata`.
pub(crate) struct PieceLanguages {
    /// The whole text as one regex (over the same automata).
    pub whole: String,
    pub dispatch: String,
    pub bodies: Vec<String>,
    /// The body of each hole (each distinct `begin` of each tag list, in order of use).
    pub body_of_hole: Vec<usize>,
    pub automata: Vec<Arc<ByteDfa>>,
    pub warnings: Vec<Warning>,
}

impl<'c> Lowering<'c, String> {
    /// The pieces of `tag` when it has a tag list outside any tag list's contents, with at
    /// most [`pieces::MAX_HOLES`] distinct `begin` strings in all; `None` otherwise. Errors
    /// as [`language`](Self::language) gives them.
    pub fn pieces(mut self, tag: &StructuralTag) -> Result<Option<PieceLanguages>, TagsError> {
        let root = self.root(tag);
        self.holes = Some((Vec::new(), false));
        let dispatch = self.lower(&tag.format, root, &[])?;
        let (holes, too_many) = self.holes.take().expect("lowered as a dispatch");
        if holes.is_empty() || too_many {
            return Ok(None);
        }
        let (mut bodies, mut body_of_hole) = (Vec::<String>::new(), Vec::new());
        for body in holes {
            let k = bodies.iter().position(|b| *b == body).unwrap_or_else(|| {
                bodies.push(body);
                bodies.len() - 1
            });
            body_of_hole.push(k);
        }
        let whole = self.lower(&tag.format, root, &[])?;
        Ok(Some(PieceLanguages {
            whole,
            dispatch,
            bodies,
            body_of_hole,
            automata: self.automata,
            warnings: self.warnings,
        }))
    }
}

impl<'c> Lowering<'c, Expr> {
    /// The rules of `tag`: the tree is the start rule [`START`], with the pieces' rules.
    pub fn rules(mut self, tag: &StructuralTag) -> Result<(Rules, Vec<Warning>), TagsError> {
        let root = self.root(tag);
        let body = self.lower(&tag.format, root, &[])?;
        let mut rules = vec![RuleDef {
            name: START.to_string(),
            at: None,
            body,
        }];
        rules.append(&mut self.rules);
        let rules = Rules {
            start: START.to_string(),
            rules,
        };
        Ok((rules, self.warnings))
    }
}

/// `e` with every rule reference renamed.
fn renamed(e: &Expr, rename: &dyn Fn(&str) -> String) -> Expr {
    match e {
        Expr::Ref(name, at) => Expr::Ref(rename(name), *at),
        Expr::Seq(items) => Expr::Seq(items.iter().map(|x| renamed(x, rename)).collect()),
        Expr::Alt(items) => Expr::Alt(items.iter().map(|x| renamed(x, rename)).collect()),
        Expr::Repeat { expr, min, max, at } => Expr::Repeat {
            expr: Box::new(renamed(expr, rename)),
            min: *min,
            max: *max,
            at: *at,
        },
        Expr::Bytes(_) | Expr::Class { .. } | Expr::Dfa(_) => e.clone(),
    }
}

/// A token limit inside a tag body that has one.
fn nested_limit(at: &str, outer: &str) -> TagsError {
    TagsError::at(
        at,
        format!("a token limit inside a tag body limited by {outer} is not supported (keep one)"),
    )
}

/// A token limit where only the eager compile of a regular structure decides it.
fn refused_limit(at: &str) -> TagsError {
    TagsError::at(
        at,
        "`max_tokens` counts tokens, which the text alone does not show: only a compile \
         for a vocabulary (eager or lazy) decides it (not the byte DFA, the call network, \
         nor a structure with a recursive `grammar` piece)",
    )
}

/// Where a format's tags stand and what their content is called: the legacy spelling's
/// root tags are its `structures`, their content `schema`.
fn tags_at(spelling: Spelling, path: &str) -> (String, &'static str) {
    match (spelling, path) {
        (Spelling::Legacy, "") => ("/structures".to_string(), "schema"),
        _ => (child(path, "tags"), "content"),
    }
}

/// [`tags_at`], and an error there when the list is empty.
fn tag_list(
    spelling: Spelling,
    path: &str,
    tags: &[Tag],
) -> Result<(String, &'static str), TagsError> {
    let (list, content_field) = tags_at(spelling, path);
    if tags.is_empty() {
        let name = if content_field == "schema" {
            "structures"
        } else {
            "tags"
        };
        return Err(TagsError::at(&list, format!("`{name}` is empty")));
    }
    Ok((list, content_field))
}

/// Each tag's `begin` starts with exactly one trigger, or opens with one of the trigger
/// tokens; no trigger is empty.
fn check_triggers(t: &TriggeredTags, path: &str, spelling: Spelling) -> Result<(), TagsError> {
    let triggers_path = child(path, "triggers");
    if t.triggers.is_empty() && t.trigger_tokens.is_empty() {
        return Err(TagsError::at(&triggers_path, "`triggers` is empty"));
    }
    if let Some(i) = t.triggers.iter().position(String::is_empty) {
        return Err(TagsError::at(
            &child(&triggers_path, i),
            "a trigger is the empty string (no free text would be left)",
        ));
    }
    let (list, _) = tags_at(spelling, path);
    for (i, tag) in t.tags.iter().enumerate() {
        let at = child(&child(&list, i), "begin");
        if let Some(token) = &tag.begin_token {
            if !t.trigger_tokens.contains(token) {
                return Err(TagsError::at(
                    &child(&at, "token"),
                    format!("the tag opens with {token:?}, none of `trigger_tokens`"),
                ));
            }
            continue;
        }
        if t.triggers.is_empty() {
            return Err(TagsError::at(
                &at,
                "`begin` is text: the tags of `token_triggered_tags` open with a `token`",
            ));
        }
        let opening: Vec<String> = t
            .triggers
            .iter()
            .filter(|trigger| tag.begin.starts_with(trigger.as_str()))
            .map(|s| format!("{s:?}"))
            .collect();
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

/// An error at the first empty string of `excludes` (at `path`/excludes): no text would be
/// left.
fn no_empty_excludes(excludes: &[String], path: &str) -> Result<(), TagsError> {
    match excludes.iter().position(String::is_empty) {
        Some(i) => Err(TagsError::at(
            &child(&child(path, "excludes"), i),
            "an excluded string is empty (no text would be left)",
        )),
        None => Ok(()),
    }
}
