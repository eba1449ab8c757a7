//! The structural-tag tree: what the JSON spellings are read into and what the Rust
//! builder makes. Each node is a set of texts (its language); see docs/structural-tags.md.

use fstc_pda::Syntax;
use serde_json::Value;

/// One format of a structural tag: a set of texts, built from smaller ones.
#[derive(Clone, Debug, PartialEq)]
pub enum Format {
    /// Exactly this text.
    ConstString(String),
    /// A JSON text the schema admits, in the JSON compiler's output form.
    JsonSchema(Value),
    /// A text the pattern (ECMAScript syntax, full match) matches.
    Regex(String),
    /// A text the context-free grammar derives from its start rule: a byte DFA when no
    /// rule is recursive, else the structure holding it compiles to a token PDA.
    Grammar {
        /// The grammar text.
        text: String,
        /// Its syntax (XGrammar's EBNF by default, as XGrammar reads this format).
        syntax: Syntax,
    },
    /// Free text: any UTF-8 text containing none of `excludes` (nor the end strings of the
    /// nearest enclosing tag), of at most `max_chars` code points, written by at most
    /// `max_tokens` tokens.
    AnyText {
        /// Strings the text may not contain.
        excludes: Vec<String>,
        /// Most code points, if bounded.
        max_chars: Option<u32>,
        /// Most tokens that carry a byte of the text (a token that crosses into the next
        /// part counts too), if bounded; only a compile against a vocabulary decides it.
        max_tokens: Option<u32>,
    },
    /// The elements one after another.
    Sequence(Vec<Format>),
    /// Any one of the elements.
    Or(Vec<Format>),
    /// The content or nothing.
    Optional(Box<Format>),
    /// The content zero or more times.
    Star(Box<Format>),
    /// The content one or more times.
    Plus(Box<Format>),
    /// The content between `min` and `max` times (`None`: unbounded).
    Repeat {
        /// Fewest repetitions.
        min: u32,
        /// Most repetitions, if bounded.
        max: Option<u32>,
        /// What is repeated.
        content: Box<Format>,
    },
    /// One token of the vocabulary, by id or name: never text, so nothing else spells it.
    Token(TokenRef),
    /// `begin`, the content, one of the end strings.
    Tag(Tag),
    /// Free text in which each trigger must open one of the tags (see [`TriggeredTags`]).
    TriggeredTags(TriggeredTags),
    /// Tags separated by a fixed string, nothing else (see [`TagsWithSeparator`]).
    TagsWithSeparator(TagsWithSeparator),
}

/// One token of the vocabulary, as XGrammar's `{"type": "token", "token": ...}` names it: a
/// special token (`<|python_tag|>`, which has no text) or an added one (Qwen 3's
/// `<tool_call>`). Only that token matches it, never other tokens spelling its name.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TokenRef {
    /// By id.
    Id(u32),
    /// By its name in the tokenizer (a special or added token's content), resolved against
    /// a vocabulary by [`StructuralTag::resolve_token_names`](crate::StructuralTag::resolve_token_names).
    Name(String),
}

/// `begin`, then the content, then one of `end`.
#[derive(Clone, Debug, PartialEq)]
pub struct Tag {
    /// The opening text (after `begin_token`, if any).
    pub begin: String,
    /// A token that opens the tag, before `begin`.
    pub begin_token: Option<TokenRef>,
    /// What stands between.
    pub content: Box<Format>,
    /// The closing texts (one of them closes the tag); never empty.
    pub end: Vec<String>,
    /// A token that closes the tag, after the closing text (`end` is `[""]` when the
    /// token alone closes it).
    pub end_token: Option<TokenRef>,
    /// Most tokens that carry a byte of the content (counted as in `any_text`), if bounded.
    pub max_tokens: Option<u32>,
}

/// Free text (without any trigger or exclude) and tags, each tag's `begin` starting with
/// one trigger: `F (T F)*`, or with `at_least_one` `T F (T F)*`, with `stop_after_first`
/// `F T?`, with both `T`.
#[derive(Clone, Debug, PartialEq)]
pub struct TriggeredTags {
    /// Strings that may appear in the free text only as the start of a tag.
    pub triggers: Vec<String>,
    /// Tokens that open a tag (`token_triggered_tags`): each tag whose `begin_token` is one
    /// of them. No free text holds a token named so.
    pub trigger_tokens: Vec<TokenRef>,
    /// Tokens the free text may not hold (`token_triggered_tags`' `exclude_tokens`): only
    /// tokens without text, which no free text holds anyway, are accepted.
    pub exclude_tokens: Vec<TokenRef>,
    /// The tags the triggers open.
    pub tags: Vec<Tag>,
    /// No free text before the first tag, and at least one tag.
    pub at_least_one: bool,
    /// At most one tag, and nothing after it.
    pub stop_after_first: bool,
    /// Strings the free text may not contain either.
    pub excludes: Vec<String>,
}

/// Tags separated by `separator`: `(T (s T)*)?`, with `at_least_one` `T (s T)*`, with
/// `stop_after_first` `T?`, with both `T`.
#[derive(Clone, Debug, PartialEq)]
pub struct TagsWithSeparator {
    /// The tags that may appear.
    pub tags: Vec<Tag>,
    /// What stands between two tags.
    pub separator: String,
    /// At least one tag.
    pub at_least_one: bool,
    /// At most one tag.
    pub stop_after_first: bool,
}

/// The Rust builder: short constructors for the same tree the JSON spellings give.
impl Format {
    /// Exactly `text`.
    pub fn const_string(text: impl Into<String>) -> Format {
        Format::ConstString(text.into())
    }

    /// A JSON text admitted by `schema`.
    pub fn json_schema(schema: Value) -> Format {
        Format::JsonSchema(schema)
    }

    /// A text matching `pattern` (ECMAScript syntax).
    pub fn regex(pattern: impl Into<String>) -> Format {
        Format::Regex(pattern.into())
    }

    /// A text the grammar `text`, written in `syntax`, derives.
    pub fn grammar(text: impl Into<String>, syntax: Syntax) -> Format {
        Format::Grammar {
            text: text.into(),
            syntax,
        }
    }

    /// Any text.
    pub fn any_text() -> Format {
        Format::AnyText {
            excludes: Vec::new(),
            max_chars: None,
            max_tokens: None,
        }
    }

    /// Any text containing none of `excludes`.
    pub fn any_text_excluding<S: Into<String>>(excludes: impl IntoIterator<Item = S>) -> Format {
        Format::AnyText {
            excludes: excludes.into_iter().map(Into::into).collect(),
            max_chars: None,
            max_tokens: None,
        }
    }

    /// The elements in order.
    pub fn sequence(elements: impl IntoIterator<Item = Format>) -> Format {
        Format::Sequence(elements.into_iter().collect())
    }

    /// One of the elements.
    pub fn or(elements: impl IntoIterator<Item = Format>) -> Format {
        Format::Or(elements.into_iter().collect())
    }

    /// `self` or nothing.
    pub fn optional(self) -> Format {
        Format::Optional(Box::new(self))
    }

    /// `self` zero or more times.
    pub fn star(self) -> Format {
        Format::Star(Box::new(self))
    }

    /// `self` one or more times.
    pub fn plus(self) -> Format {
        Format::Plus(Box::new(self))
    }

    /// `self` between `min` and `max` times (`None`: unbounded).
    pub fn repeat(self, min: u32, max: Option<u32>) -> Format {
        Format::Repeat {
            min,
            max,
            content: Box::new(self),
        }
    }

    /// `begin`, the content, `end`.
    pub fn tag(begin: impl Into<String>, content: Format, end: impl Into<String>) -> Format {
        Format::Tag(Tag::new(begin, content, end))
    }

    /// Exactly one token.
    pub fn token(token: TokenRef) -> Format {
        Format::Token(token)
    }
}

/// A node of the tree as [`Format::any`] shows it: a format, or a tag of a list.
pub(crate) enum Node<'f> {
    Format(&'f Format),
    Tag(&'f Tag),
}

impl Format {
    /// Whether some part limits tokens (then only a vocabulary decides the language).
    pub(crate) fn counts_tokens(&self) -> bool {
        self.any(&|node| match node {
            Node::Format(Format::AnyText { max_tokens, .. }) => max_tokens.is_some(),
            Node::Tag(tag) => tag.max_tokens.is_some(),
            Node::Format(_) => false,
        })
    }

    /// Whether some part names a token (then only a vocabulary decides the language).
    pub(crate) fn names_tokens(&self) -> bool {
        self.any(&|node| match node {
            Node::Format(Format::Token(_)) => true,
            Node::Format(Format::TriggeredTags(t)) => !t.trigger_tokens.is_empty(),
            Node::Tag(tag) => tag.begin_token.is_some() || tag.end_token.is_some(),
            Node::Format(_) => false,
        })
    }

    /// Whether some part is a grammar (a recursive one makes the structure a token PDA).
    pub fn has_grammar(&self) -> bool {
        self.any(&|node| matches!(node, Node::Format(Format::Grammar { .. })))
    }

    /// Whether `test` holds for this format or a node inside it.
    pub(crate) fn any(&self, test: &dyn Fn(Node<'_>) -> bool) -> bool {
        let tags = |tags: &[Tag]| tags.iter().any(|t| t.any(test));
        test(Node::Format(self))
            || match self {
                Format::Sequence(elements) | Format::Or(elements) => {
                    elements.iter().any(|e| e.any(test))
                }
                Format::Optional(inner) | Format::Star(inner) | Format::Plus(inner) => {
                    inner.any(test)
                }
                Format::Repeat { content, .. } => content.any(test),
                Format::Tag(tag) => tag.any(test),
                Format::TriggeredTags(t) => tags(&t.tags),
                Format::TagsWithSeparator(t) => tags(&t.tags),
                Format::ConstString(_)
                | Format::JsonSchema(_)
                | Format::Regex(_)
                | Format::Grammar { .. }
                | Format::Token(_)
                | Format::AnyText { .. } => false,
            }
    }
}

impl Tag {
    /// `begin`, the content, `end`.
    pub fn new(begin: impl Into<String>, content: Format, end: impl Into<String>) -> Tag {
        Tag {
            begin: begin.into(),
            begin_token: None,
            content: Box::new(content),
            end: vec![end.into()],
            end_token: None,
            max_tokens: None,
        }
    }

    /// The tag opened by `token` (then `begin`).
    pub fn begin_token(mut self, token: TokenRef) -> Tag {
        self.begin_token = Some(token);
        self
    }

    /// The tag closed by `token` (after the end string).
    pub fn end_token(mut self, token: TokenRef) -> Tag {
        self.end_token = Some(token);
        self
    }

    /// The tag with its content written by at most `n` tokens.
    pub fn max_tokens(mut self, n: u32) -> Tag {
        self.max_tokens = Some(n);
        self
    }

    /// Whether `test` holds for the tag or a node inside it.
    fn any(&self, test: &dyn Fn(Node<'_>) -> bool) -> bool {
        test(Node::Tag(self)) || self.content.any(test)
    }
}

impl TriggeredTags {
    /// Tags opened by `triggers` in free text, both flags off, no excludes.
    pub fn new<S: Into<String>>(
        triggers: impl IntoIterator<Item = S>,
        tags: impl IntoIterator<Item = Tag>,
    ) -> TriggeredTags {
        TriggeredTags {
            triggers: triggers.into_iter().map(Into::into).collect(),
            trigger_tokens: Vec::new(),
            exclude_tokens: Vec::new(),
            tags: tags.into_iter().collect(),
            at_least_one: false,
            stop_after_first: false,
            excludes: Vec::new(),
        }
    }

    /// Tags opened by `tokens` in free text (XGrammar's `token_triggered_tags`): each
    /// tag's `begin_token` is one of them.
    pub fn by_tokens(
        tokens: impl IntoIterator<Item = TokenRef>,
        tags: impl IntoIterator<Item = Tag>,
    ) -> TriggeredTags {
        TriggeredTags {
            trigger_tokens: tokens.into_iter().collect(),
            ..TriggeredTags::new(Vec::<String>::new(), tags)
        }
    }

    /// The format of these triggered tags.
    pub fn into_format(self) -> Format {
        Format::TriggeredTags(self)
    }
}

impl TagsWithSeparator {
    /// `tags` separated by `separator`, both flags off.
    pub fn new(tags: impl IntoIterator<Item = Tag>, separator: impl Into<String>) -> Self {
        TagsWithSeparator {
            tags: tags.into_iter().collect(),
            separator: separator.into(),
            at_least_one: false,
            stop_after_first: false,
        }
    }

    /// The format of these separated tags.
    pub fn into_format(self) -> Format {
        Format::TagsWithSeparator(self)
    }
}
