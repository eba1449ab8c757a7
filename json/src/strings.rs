//! JSON strings in their canonical encoding, as regex text.
//!
//! Every decoded string has exactly one encoding here, serde_json's: `"` and `\` are
//! escaped as `\"` and `\\`; U+0008, U+000C, U+000A, U+000D, U+0009 as `\b`, `\f`, `\n`,
//! `\r`, `\t`; the other code points below U+0020 as `\u00xx` (lower-case hex); every
//! other code point is written raw (UTF-8). One encoding per string keeps lengths,
//! patterns, enums and the exclusion of declared property names exact over decoded text.

use std::collections::BTreeMap;
use std::fmt::Write;

/// An inclusive range of code points.
pub(crate) type CharRange = (char, char);

/// The canonical encoding of one code point, as it appears between the quotes.
pub(crate) fn encode_char(c: char) -> String {
    match c {
        '"' => "\\\"".into(),
        '\\' => "\\\\".into(),
        '\u{8}' => "\\b".into(),
        '\u{c}' => "\\f".into(),
        '\n' => "\\n".into(),
        '\r' => "\\r".into(),
        '\t' => "\\t".into(),
        c if (c as u32) < 0x20 => format!("\\u{:04x}", c as u32),
        c => c.to_string(),
    }
}

/// Regex text matching exactly the canonical encoding of `text`.
pub(crate) fn encode_literal(text: &str) -> String {
    text.chars()
        .map(|c| regex_syntax::escape(&encode_char(c)))
        .collect()
}

/// Whether `c` is written raw (not escaped).
fn is_raw(c: char) -> bool {
    c >= ' ' && c != '"' && c != '\\'
}

/// Regex text matching the encoding of any one code point of `ranges`, or `None` when
/// the set is empty. Raw code points form one class; escaped ones are listed.
pub(crate) fn encode_class(ranges: &[CharRange]) -> Option<String> {
    let mut class = String::new();
    let mut escaped = Vec::new();
    for &(lo, hi) in ranges {
        let (mut c, hi) = (lo as u32, hi as u32);
        // Escaped code points are below U+0020 or `"` / `\`: walk those one by one.
        while c <= hi && c < 0x5d {
            let ch = char::from_u32(c).expect("below 0x5d");
            if is_raw(ch) {
                push_range(&mut class, ch, ch);
            } else {
                escaped.push(regex_syntax::escape(&encode_char(ch)));
            }
            c += 1;
        }
        if c <= hi {
            let (lo, hi) = (char::from_u32(c), char::from_u32(hi));
            push_range(&mut class, lo.expect("scalar"), hi.expect("scalar"));
        }
    }
    let mut alts = escaped;
    if !class.is_empty() {
        alts.insert(0, format!("[{class}]"));
    }
    match alts.len() {
        0 => None,
        1 => alts.pop(),
        _ => Some(format!("(?:{})", alts.join("|"))),
    }
}

fn push_range(class: &mut String, lo: char, hi: char) {
    if lo == hi {
        let _ = write!(class, "\\x{{{:x}}}", lo as u32);
    } else {
        let _ = write!(class, "\\x{{{:x}}}-\\x{{{:x}}}", lo as u32, hi as u32);
    }
}

/// Regex text for the encoding of any one code point.
pub(crate) fn any_char() -> String {
    encode_class(&[('\0', char::MAX)]).expect("non-empty")
}

/// The complement of `ranges` within all code points (ranges sorted, disjoint).
pub(crate) fn complement(ranges: &[CharRange]) -> Vec<CharRange> {
    let mut out = Vec::new();
    let mut next = 0u32;
    for &(lo, hi) in ranges {
        if (lo as u32) > next {
            push_scalar_range(&mut out, next, lo as u32 - 1);
        }
        next = hi as u32 + 1;
    }
    if next <= char::MAX as u32 {
        push_scalar_range(&mut out, next, char::MAX as u32);
    }
    out
}

/// Pushes `lo..=hi` minus the surrogates (which are not code points of a string).
fn push_scalar_range(out: &mut Vec<CharRange>, lo: u32, hi: u32) {
    let parts = [(lo, hi.min(0xd7ff)), (lo.max(0xe000), hi)];
    for (a, b) in parts {
        if let (Some(a), Some(b)) = (char::from_u32(a), char::from_u32(b)) {
            if a <= b {
                out.push((a, b));
            }
        }
    }
}

/// Regex text for the body (between the quotes) of any string that decodes to none of
/// `names`: a trie of the names where every node may also end (unless a name ends there)
/// or leave the trie by a code point that no name continues with. Linear in the names.
pub(crate) fn body_except(names: &[&str]) -> String {
    #[derive(Default)]
    struct Node {
        word: bool,
        children: BTreeMap<char, Node>,
    }
    let mut root = Node::default();
    for name in names {
        let mut node = &mut root;
        for c in name.chars() {
            node = node.children.entry(c).or_default();
        }
        node.word = true;
    }
    let any = any_char();
    fn walk(node: &Node, any: &str) -> String {
        let mut alts = Vec::new();
        if !node.word {
            alts.push(String::new());
        }
        let taken: Vec<CharRange> = node.children.keys().map(|&c| (c, c)).collect();
        if let Some(other) = encode_class(&complement(&taken)) {
            alts.push(format!("{other}(?:{any})*"));
        }
        for (&c, child) in &node.children {
            alts.push(format!(
                "{}{}",
                encode_literal(&c.to_string()),
                walk(child, any)
            ));
        }
        format!("(?:{})", alts.join("|"))
    }
    walk(&root, &any)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matches(re: &str, text: &str) -> bool {
        regex::Regex::new(&format!("^(?:{re})$"))
            .unwrap()
            .is_match(text)
    }

    #[test]
    fn classes_encode_raw_and_escaped_code_points() {
        let any = any_char();
        for text in [
            "a", "é", "😀", "\\\"", "\\\\", "\\n", "\\u001f", "/", "\u{7f}",
        ] {
            assert!(matches(&any, text), "{text}");
        }
        for text in ["\"", "\\", "\n", "\\u000a", "\\/", "ab", ""] {
            assert!(!matches(&any, text), "{text}");
        }
        let digits = encode_class(&[('0', '9')]).unwrap();
        assert!(matches(&digits, "7") && !matches(&digits, "a"));
        assert_eq!(encode_class(&[]), None);
    }

    #[test]
    fn body_except_excludes_exactly_the_names() {
        let re = body_except(&["id", "i", "name"]);
        for ok in ["", "x", "ids", "nam", "names", "n", "\\n", "Id"] {
            assert!(matches(&re, ok), "{ok}");
        }
        for bad in ["id", "i", "name"] {
            assert!(!matches(&re, bad), "{bad}");
        }
    }
}
