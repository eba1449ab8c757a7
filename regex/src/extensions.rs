//! Koo et al. §2.5 extensions: capture groups with reserved names (`(?P<QUOTED_TEXT>)`,
//! `(?P<DELIMITED_LIST>, |\d+)`) that stand for wildcard terminals or for sugar too
//! large or too awkward to write as a plain regex.
//!
//! regex-syntax rejects duplicate group names and knows nothing of extensions, so the
//! pattern is rewritten first: a small lexer (aware of escapes and bracketed classes)
//! finds each extension group and its matching `)`, splits its argument into fields at
//! top-level `|`, and replaces the group by placeholder groups that regex-syntax parses as
//! ordinary captures: `(?P<__fstc_ext_N>(?P<__fstc_arg_N_0>field0)(?P<__fstc_arg_N_1>field1))`,
//! or `(?P<__fstc_ext_N>\x00?)` without arguments.
//! Fields keep their text, so they inherit the flags in force (`(?i)`), may contain
//! further extensions, and are parsed in the same pass. The NFA compiler recognizes the
//! placeholder captures in the HIR and expands them. A [`SpanMap`] maps offsets in the
//! rewritten text back to the pattern, so regex-syntax's errors still point at the
//! user's text. Patterns without extension groups are not rewritten at all.

pub use fstc_core::bytes::TerminalKind;

use super::ecma;
use super::spans::{Output, SpanMap};
use super::{shown, unsupported_at, RegexError, RegexErrorKind};

/// One extension, for documentation and `--help` listings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExtensionInfo {
    /// The group name (`"DELIMITED_LIST"`).
    pub name: &'static str,
    /// How the group is written.
    pub syntax: &'static str,
    /// What it matches, in one line.
    pub summary: &'static str,
}

/// Every extension, terminals first (in precedence order), then the sugar.
pub const EXTENSIONS: &[ExtensionInfo] = &[
    ExtensionInfo {
        name: "IMAGE",
        syntax: "(?P<IMAGE>)",
        summary: "terminal: one token of the configured image-token set",
    },
    ExtensionInfo {
        name: "PARAGRAPH_TOKEN",
        syntax: "(?P<PARAGRAPH_TOKEN>)",
        summary: "terminal: one text token without a newline",
    },
    ExtensionInfo {
        name: "TEXT_TOKEN",
        syntax: "(?P<TEXT_TOKEN>)",
        summary: "terminal: one text token",
    },
    ExtensionInfo {
        name: "QUOTED_TEXT",
        syntax: "(?P<QUOTED_TEXT>)",
        summary: "a double-quoted string with backslash escapes",
    },
    ExtensionInfo {
        name: "UNQUOTED_TEXT",
        syntax: "(?P<UNQUOTED_TEXT>)",
        summary: "a one-line YAML plain scalar",
    },
    ExtensionInfo {
        name: "TEXT_UNTIL",
        syntax: "(?P<TEXT_UNTIL>STOP1|STOP2|...)",
        summary: "any text up to and including the first stop phrase",
    },
    ExtensionInfo {
        name: "SUBSTRING_OF",
        syntax: "(?P<SUBSTRING_OF>TEXT)",
        summary: "any non-empty substring of a literal text",
    },
    ExtensionInfo {
        name: "DELIMITED_LIST",
        syntax: "(?P<DELIMITED_LIST>DELIMITER|ITEM[|MIN[|MAX]])",
        summary: "ITEM (DELIMITER ITEM)*, with MIN..=MAX items (default 1..)",
    },
    ExtensionInfo {
        name: "DELIMITED_SUBSEQUENCE_OF",
        syntax: "(?P<DELIMITED_SUBSEQUENCE_OF>DELIMITER|ITEM1|...|ITEMn)",
        summary: "one or more of the items, in order, each at most once, delimited",
    },
    ExtensionInfo {
        name: "AUTOMATON",
        syntax: "(?P<AUTOMATON>N)",
        summary: "library only: the language of byte DFA number N given to RegexBuilder::automata",
    },
    ExtensionInfo {
        name: "CALL",
        syntax: "(?P<CALL>N)",
        summary: "library only: a call of machine N of a call network (fstc_core::bytes::CallNetwork); such a DFA is not composed directly",
    },
];

/// What an extension group expands to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Terminal(TerminalKind),
    QuotedText,
    UnquotedText,
    TextUntil,
    SubstringOf,
    DelimitedList,
    DelimitedSubsequenceOf,
    /// `(?P<AUTOMATON>N)`: a byte DFA supplied with the pattern, spliced in whole.
    Automaton,
    /// A look-around group (`(?=R)`, `(?!R)`, `(?<=R)`, `(?<!R)`), rewritten like an
    /// extension so that regex-syntax (which refuses look-around) parses its body.
    LookAround {
        ahead: bool,
        negated: bool,
    },
}

impl Kind {
    fn from_name(name: &str) -> Option<Kind> {
        if let Some(t) = TerminalKind::from_name(name) {
            return Some(Kind::Terminal(t));
        }
        Some(match name {
            "QUOTED_TEXT" => Kind::QuotedText,
            "UNQUOTED_TEXT" => Kind::UnquotedText,
            "TEXT_UNTIL" => Kind::TextUntil,
            "SUBSTRING_OF" => Kind::SubstringOf,
            "DELIMITED_LIST" => Kind::DelimitedList,
            "DELIMITED_SUBSEQUENCE_OF" => Kind::DelimitedSubsequenceOf,
            "AUTOMATON" => Kind::Automaton,
            // The machine number is read with the arguments.
            "CALL" => Kind::Terminal(TerminalKind::Call(0)),
            _ => return None,
        })
    }
}

/// One extension group of the pattern, numbered by its placeholder.
#[derive(Debug)]
pub(crate) struct Use {
    pub(crate) kind: Kind,
    pub(crate) name: &'static str,
    /// The whole group `(?P<NAME>...)` in the original pattern.
    span: (usize, usize),
    group: String,
    /// `DELIMITED_LIST` item-count bounds (others: 1, None).
    pub(crate) min: usize,
    pub(crate) max: Option<usize>,
}

impl Use {
    /// An error about this group, naming it.
    pub(crate) fn error(&self, what: &str) -> RegexError {
        ext_error(self.name, self.span, &self.group, what)
    }

    /// The group as messages name it: "the look-ahead `(?=a)` at bytes 3..8".
    pub(crate) fn describe(&self) -> String {
        format!(
            "the {} `{}` at bytes {}..{}",
            self.name,
            shown(&self.group),
            self.span.0,
            self.span.1
        )
    }

    /// A look-around group fstc cannot compile exactly, naming it and its span.
    pub(crate) fn unsupported(&self, why: &str) -> RegexError {
        unsupported_at(self.name, self.span, &self.group, why)
    }
}

fn ext_error(name: &str, span: (usize, usize), group: &str, what: &str) -> RegexError {
    RegexError::new(
        RegexErrorKind::Extension {
            name: name.to_string(),
        },
        Some(span),
        format!(
            "extension {name} at bytes {}..{} (`{}`): {what}",
            span.0,
            span.1,
            shown(group)
        ),
    )
}

/// The error for an extension group regex-syntax saw but the rewriter did not.
pub(crate) fn unrecognized(name: &str) -> RegexError {
    RegexError::new(
        RegexErrorKind::Extension {
            name: name.to_string(),
        },
        None,
        format!(
            "extension group {name} was not recognized: in verbose mode (`(?x)`), a comment \
             before it contains an unbalanced `[` or `(`; remove or escape it"
        ),
    )
}

const EXT_PREFIX: &str = "__fstc_ext_";
const ARG_PREFIX: &str = "__fstc_arg_";
const INTERNAL_PREFIX: &str = "__fstc_";

/// The extension number of a placeholder capture name.
pub(crate) fn placeholder_id(name: &str) -> Option<usize> {
    name.strip_prefix(EXT_PREFIX)?.parse().ok()
}

/// Whether `name` is a reserved extension name: `[A-Z][A-Z0-9_]*`.
pub(crate) fn is_reserved(name: &str) -> bool {
    let mut bytes = name.bytes();
    matches!(bytes.next(), Some(b'A'..=b'Z'))
        && bytes.all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
}

/// A pattern with its extension groups replaced by placeholder groups.
#[derive(Debug)]
pub(crate) struct Rewritten {
    pub(crate) text: String,
    pub(crate) uses: Vec<Use>,
    pub(crate) map: SpanMap,
}

/// Index just past the bracketed class opening at `i`, or `None` when it never closes.
/// Follows regex-syntax: `]` right after `[` or `[^` is a literal, `[` inside a class
/// opens a nested class (`[[:alpha:]x]`), `\` escapes the next character.
fn class_end(p: &[u8], mut i: usize) -> Option<usize> {
    let mut depth = 0usize;
    while i < p.len() {
        match p[i] {
            b'[' => {
                depth += 1;
                i += 1;
                if p.get(i) == Some(&b'^') {
                    i += 1;
                }
                if p.get(i) == Some(&b']') {
                    i += 1;
                }
            }
            b'\\' => i += 2,
            b']' => {
                depth -= 1;
                i += 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => i += 1,
        }
    }
    None
}

/// A named group header at `i`: (name start, name end, index after `>`).
fn group_header(p: &str, i: usize) -> Option<(usize, usize, usize)> {
    let rest = &p[i..];
    let start = if rest.starts_with("(?P<") {
        i + 4
    } else if rest.starts_with("(?<") {
        i + 3
    } else {
        return None;
    };
    let bytes = p.as_bytes();
    let mut end = start;
    while end < p.len()
        && (bytes[end].is_ascii_alphanumeric() || matches!(bytes[end], b'_' | b'.' | b'[' | b']'))
    {
        end += 1;
    }
    (end > start && bytes.get(end) == Some(&b'>')).then_some((start, end, end + 1))
}

/// The look-around group opening at `i`: its kind, name and header length.
fn look_header(p: &str, i: usize) -> Option<(Kind, &'static str, usize)> {
    let rest = &p[i..];
    let (ahead, negated, name, len) = if rest.starts_with("(?=") {
        (true, false, "look-ahead", 3)
    } else if rest.starts_with("(?!") {
        (true, true, "negative look-ahead", 3)
    } else if rest.starts_with("(?<=") {
        (false, false, "look-behind", 4)
    } else if rest.starts_with("(?<!") {
        (false, true, "negative look-behind", 4)
    } else {
        return None;
    };
    Some((Kind::LookAround { ahead, negated }, name, len))
}

/// Rewrites the extension and look-around groups of `pattern`, and with `ecma` its
/// ECMAScript escapes, classes, `.` and group names (see [`ecma::translate`]); `None` when
/// nothing changed.
pub(crate) fn rewrite(pattern: &str, ecma: bool) -> Result<Option<Rewritten>, RegexError> {
    let mut r = Rewriter {
        p: pattern,
        out: Output::with_capacity(pattern.len()),
        uses: Vec::new(),
        ecma,
    };
    r.range(0, pattern.len())?;
    if r.uses.is_empty() && !ecma {
        return Ok(None);
    }
    Ok(Some(Rewritten {
        text: r.out.text,
        uses: r.uses,
        map: r.out.map,
    }))
}

struct Rewriter<'p> {
    p: &'p str,
    out: Output,
    uses: Vec<Use>,
    /// The pattern is ECMAScript (ECMA-262, `u` flag semantics).
    ecma: bool,
}

impl Rewriter<'_> {
    /// The end of the class opening at `i`, by the dialect's rules.
    fn class_end(&self, i: usize) -> Option<usize> {
        if self.ecma {
            ecma::class_end(self.p.as_bytes(), i)
        } else {
            class_end(self.p.as_bytes(), i)
        }
    }

    /// Whether the ECMAScript construct at `i` is [`ecma::translate`]'s: an escape, a
    /// class, `.`, or a group header other than `(`, `(?:`, look-around and extensions.
    fn ecma_translates(&self, i: usize) -> bool {
        let rest = &self.p[i..];
        if !rest.starts_with("(?") {
            return !rest.starts_with('(');
        }
        if rest.starts_with("(?:") || look_header(self.p, i).is_some() {
            return false;
        }
        !group_header(self.p, i).is_some_and(|(ns, ne, _)| is_reserved(&self.p[ns..ne]))
    }

    fn copy(&mut self, a: usize, b: usize) {
        self.out.copy(self.p, a, b);
    }

    fn emit(&mut self, text: &str, orig: usize, orig_end: usize) {
        self.out.emit(text, orig, orig_end);
    }

    /// Copies `p[start..end]`, rewriting the extension groups in it.
    fn range(&mut self, start: usize, end: usize) -> Result<(), RegexError> {
        let bytes = self.p.as_bytes();
        let mut i = start;
        let mut pending = start;
        while i < end {
            match bytes[i] {
                b'\\' | b'[' | b'.' | b'(' if self.ecma && self.ecma_translates(i) => {
                    self.copy(pending, i);
                    i = ecma::translate(self.p, i, end, &mut self.out)?;
                    pending = i;
                }
                b'\\' => i += 2,
                // An unclosed class is regex-syntax's to report.
                b'[' => i = self.class_end(i).unwrap_or(end),
                b'(' if look_header(self.p, i).is_some() => {
                    self.copy(pending, i);
                    i = self.look_around(i, end)?;
                    pending = i;
                }
                b'(' => match group_header(self.p, i) {
                    Some((ns, ne, body)) => {
                        let name = &self.p[ns..ne];
                        if name.starts_with(INTERNAL_PREFIX) {
                            return Err(ext_error(
                                name,
                                (i, body),
                                &self.p[i..body],
                                "group names starting with `__fstc_` are reserved for fstc's \
                                 own use; rename the group",
                            ));
                        }
                        if is_reserved(name) {
                            self.copy(pending, i);
                            i = self.extension(i, ns, ne, body, end)?;
                            pending = i;
                        } else {
                            i = body;
                        }
                    }
                    None => i += 1,
                },
                _ => i += 1,
            }
        }
        self.copy(pending, end.min(i));
        Ok(())
    }

    /// The error for group `name` opening at `open` (its header ending at `body`) that
    /// never closes.
    fn unclosed(&self, name: &str, open: usize, body: usize) -> RegexError {
        ext_error(
            name,
            (open, body),
            &self.p[open..body],
            "the group has no matching `)` (unbalanced parentheses); close it, and \
             escape literal parentheses as `\\(` and `\\)`",
        )
    }

    /// Rewrites the look-around group opening at `open` (closing before `end`) into a
    /// placeholder group around its body; returns the index after its `)`.
    fn look_around(&mut self, open: usize, end: usize) -> Result<usize, RegexError> {
        let (kind, name, len) = look_header(self.p, open).expect("caller checked");
        let body = open + len;
        let Some((close, _)) = group_end(self.p.as_bytes(), body, end, self.ecma) else {
            return Err(self.unclosed(name, open, body));
        };
        let id = self.uses.len();
        self.uses.push(Use {
            kind,
            name,
            span: (open, close + 1),
            group: self.p[open..close + 1].to_string(),
            min: 1,
            max: None,
        });
        self.emit(&format!("(?P<{EXT_PREFIX}{id}>"), open, body);
        self.range(body, close)?;
        self.emit(")", close, close + 1);
        Ok(close + 1)
    }

    /// Rewrites the extension group opening at `open` (name `ns..ne`, argument from
    /// `body`), which must close before `end`; returns the index after its `)`.
    fn extension(
        &mut self,
        open: usize,
        ns: usize,
        ne: usize,
        body: usize,
        end: usize,
    ) -> Result<usize, RegexError> {
        let name_text = &self.p[ns..ne];
        let Some(kind) = Kind::from_name(name_text) else {
            let names: Vec<&str> = EXTENSIONS.iter().map(|e| e.name).collect();
            return Err(ext_error(
                name_text,
                (open, body),
                &self.p[open..body],
                &format!(
                    "unknown extension `{name_text}`; group names of upper-case letters, digits \
                     and `_` are reserved for extensions ({}); use a lower-case name for an \
                     ordinary group",
                    names.join(", ")
                ),
            ));
        };
        let name = EXTENSIONS
            .iter()
            .find(|e| e.name == name_text)
            .map(|e| e.name)
            .expect("every Kind is listed in EXTENSIONS");
        let Some((close, bars)) = group_end(self.p.as_bytes(), body, end, self.ecma) else {
            return Err(self.unclosed(name, open, body));
        };
        let span = (open, close + 1);
        let mut fields: Vec<(usize, usize)> = Vec::with_capacity(bars.len() + 1);
        let mut a = body;
        for &bar in &bars {
            fields.push((a, bar));
            a = bar + 1;
        }
        fields.push((a, close));
        let mut u = Use {
            kind,
            name,
            span,
            group: self.p[open..close + 1].to_string(),
            min: 1,
            max: None,
        };
        let passed = check_arguments(&mut u, &fields, &self.p[body..close], |(a, b)| {
            &self.p[a..b]
        })?;
        let id = self.uses.len();
        self.uses.push(u);
        // regex-syntax collapses repetitions of what can only match the empty text
        // (`(?P<X>)+` becomes `(?P<X>)`), so an argument-less placeholder holds a
        // dummy that the NFA compiler ignores.
        let dummy = if passed == 0 { r"\x00?" } else { "" };
        self.emit(&format!("(?P<{EXT_PREFIX}{id}>{dummy}"), open, body);
        for (j, &(a, b)) in fields[..passed].iter().enumerate() {
            self.emit(&format!("(?P<{ARG_PREFIX}{id}_{j}>"), a, a);
            self.range(a, b)?;
            self.emit(")", b, b);
        }
        self.emit(")", close, close + 1);
        Ok(close + 1)
    }
}

/// Checks the arguments of extension group `u` (`fields`: its `|`-separated fields as
/// spans, `argument`: all of them as text, `text`: a span's text), sets a list's
/// `MIN`/`MAX`, and returns how many leading fields are passed on as sub-patterns.
fn check_arguments<'p>(
    u: &mut Use,
    fields: &[(usize, usize)],
    argument: &str,
    text: impl Fn((usize, usize)) -> &'p str,
) -> Result<usize, RegexError> {
    Ok(match u.kind {
        Kind::Terminal(TerminalKind::Call(_)) => {
            let machine = argument.parse::<u32>().map_err(|_| {
                u.error("takes the number of a machine of the call network, e.g. `(?P<CALL>3)`")
            })?;
            u.kind = Kind::Terminal(TerminalKind::Call(machine));
            0
        }
        Kind::Terminal(_) | Kind::QuotedText | Kind::UnquotedText => {
            if !argument.is_empty() {
                return Err(u.error(&format!(
                    "takes no argument, but was given `{}`; write `(?P<{}>)`",
                    shown(argument),
                    u.name
                )));
            }
            0
        }
        Kind::TextUntil => {
            if let Some(i) = fields.iter().position(|&f| f.0 == f.1) {
                return Err(u.error(&format!(
                    "stop phrase {} is empty; every stop phrase must be a non-empty literal \
                     string (fields are separated by `|`; escape a literal `|` as `\\|`)",
                    i + 1
                )));
            }
            fields.len()
        }
        Kind::Automaton => {
            if fields.len() != 1 || argument.is_empty() {
                return Err(
                    u.error("takes the number of an automaton given to RegexBuilder::automata")
                );
            }
            1
        }
        Kind::SubstringOf => {
            if fields.len() != 1 {
                return Err(u.error(&format!(
                    "takes one literal string, but was given {} `|`-separated fields; \
                     escape a literal `|` as `\\|`",
                    fields.len()
                )));
            }
            if argument.is_empty() {
                return Err(u.error(
                    "the string is empty, so it has no non-empty substring; give the text \
                     whose substrings may match",
                ));
            }
            1
        }
        Kind::DelimitedList => {
            if !(2..=4).contains(&fields.len()) {
                return Err(u.error(&format!(
                    "takes DELIMITER|ITEM, DELIMITER|ITEM|MIN or DELIMITER|ITEM|MIN|MAX, but \
                     was given {} field(s); escape a literal `|` as `\\|`",
                    fields.len()
                )));
            }
            if let Some(&f) = fields.get(2) {
                u.min = count(u, "MIN", text(f))?
                    .ok_or_else(|| u.error("MIN is empty; write a number (0 allows the empty text) or leave the field out (default 1)"))?;
            }
            if let Some(&f) = fields.get(3) {
                u.max = count(u, "MAX", text(f))?;
            }
            if let Some(max) = u.max {
                if u.min > max {
                    return Err(u.error(&format!("MIN ({}) is larger than MAX ({max})", u.min)));
                }
            }
            2
        }
        Kind::LookAround { .. } => unreachable!("Kind::from_name never names a look-around"),
        Kind::DelimitedSubsequenceOf => {
            if fields.len() < 2 {
                return Err(u.error(
                    "takes DELIMITER|ITEM1|...|ITEMn with at least one item, but was given \
                     one field",
                ));
            }
            fields.len()
        }
    })
}

/// A `DELIMITED_LIST` bound: decimal digits, or `None` when the field is empty.
fn count(u: &Use, what: &str, text: &str) -> Result<Option<usize>, RegexError> {
    if text.is_empty() {
        return Ok(None);
    }
    if !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(u.error(&format!(
            "{what} must be a decimal number, not `{}`",
            shown(text)
        )));
    }
    text.parse()
        .map(Some)
        .map_err(|_| u.error(&format!("{what} `{}` is too large", shown(text))))
}

/// The `)` closing the group whose body starts at `i` (before `end`), and the positions
/// of the `|` at its top level. `None` when it does not close.
fn group_end(p: &[u8], mut i: usize, end: usize, ecma: bool) -> Option<(usize, Vec<usize>)> {
    let mut depth = 0usize;
    let mut bars = Vec::new();
    while i < end {
        match p[i] {
            b'\\' => i += 2,
            b'[' if ecma => i = ecma::class_end(p, i)?,
            b'[' => i = class_end(p, i)?,
            b'(' => {
                depth += 1;
                i += 1;
            }
            b')' => {
                if depth == 0 {
                    return Some((i, bars));
                }
                depth -= 1;
                i += 1;
            }
            b'|' => {
                if depth == 0 {
                    bars.push(i);
                }
                i += 1;
            }
            _ => i += 1,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_end_where_regex_syntax_ends_them() {
        for (p, end) in [
            ("[a]x", 3),
            ("[]a]x", 4),
            ("[^]a]x", 5),
            ("[[:alpha:]]x", 11),
            ("[a[b]c]x", 7),
            (r"[\]]x", 4),
            ("[(]x", 3),
        ] {
            assert_eq!(class_end(p.as_bytes(), 0), Some(end), "{p}");
        }
        assert_eq!(class_end(b"[ab", 0), None);
    }

    #[test]
    fn groups_are_rewritten_and_spans_map_back() {
        let p = r"x(?P<DELIMITED_LIST>,|[|)](a\|)|2)y";
        let r = rewrite(p, false).unwrap().unwrap();
        assert_eq!(
            r.text,
            r"x(?P<__fstc_ext_0>(?P<__fstc_arg_0_0>,)(?P<__fstc_arg_0_1>[|)](a\|)))y"
        );
        assert_eq!(r.uses[0].min, 2);
        // `y` and `x` map to themselves; the inserted header maps to the original header.
        let y = r.text.len() - 1;
        assert_eq!(r.map.start(y), p.len() - 1);
        assert_eq!(r.map.end(y + 1), p.len());
        assert_eq!(r.map.start(0), 0);
        assert_eq!(r.map.start(1), 1);
        assert!(rewrite("(?P<lower>a)(?P<Mixed>b)[(?P<X>)]", false)
            .unwrap()
            .is_none());
    }

    #[test]
    fn nested_uses_get_distinct_placeholders() {
        let r = rewrite(
            "(?P<DELIMITED_LIST>(?P<TEXT_TOKEN>)|(?P<QUOTED_TEXT>))",
            false,
        )
        .unwrap()
        .unwrap();
        assert_eq!(r.uses.len(), 3);
        assert!(r.text.contains(r"__fstc_ext_1>\x00?)") && r.text.contains(r"__fstc_ext_2>\x00?)"));
    }
}
