//! JSON strings as regex text and as code-point encodings, in either escape mode.
//!
//! [`Escapes::Canonical`]: every decoded string has exactly one encoding, serde_json's:
//! `"` and `\` are escaped as `\"` and `\\`; U+0008, U+000C, U+000A, U+000D, U+0009 as
//! `\b`, `\f`, `\n`, `\r`, `\t`; the other code points below U+0020 as `\u00xx`
//! (lower-case hex); every other code point is written raw (UTF-8).
//! [`Escapes::Any`]: every spelling JSON allows (see [`encodings`]).
//!
//! Either way the encodings of distinct code points are disjoint and a JSON string body
//! splits into code-point encodings one way only, so lengths (a count of encodings),
//! patterns, enums and the exclusion of declared property names stay exact over decoded
//! text. [`encodings`] is the one description of a code-point set's spellings: rendered
//! as regex text here ([`encode_class`]) and as automaton paths by
//! `Algebra::substitute_chars` ([`code`]).

use std::fmt::Write;

use regex_syntax::utf8::Utf8Sequences;

use crate::config::Escapes;

/// An inclusive range of code points.
pub(crate) type CharRange = (char, char);

/// A set of bytes, as sorted inclusive ranges.
pub(crate) type ByteSet = Vec<(u8, u8)>;

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

/// The short escapes of [`Escapes::Any`]: code point and the letter after `\`, in
/// code-point order.
const SHORT: [(u32, u8); 8] = [
    (0x08, b'b'),
    (0x09, b't'),
    (0x0a, b'n'),
    (0x0c, b'f'),
    (0x0d, b'r'),
    (0x22, b'"'),
    (0x2f, b'/'),
    (0x5c, b'\\'),
];

/// The spellings of a set of code points: those written raw (as UTF-8), and escape
/// sequences (ASCII, one byte set per position).
pub(crate) struct Encodings {
    pub(crate) raw: Vec<CharRange>,
    pub(crate) escaped: Vec<Vec<ByteSet>>,
}

/// The encodings of the code points of `ranges` (sorted, disjoint). Raw: every code point
/// but `"`, `\` and those below U+0020. Escaped, canonically: `encode_char`'s; under
/// [`Escapes::Any`]: the short escapes, `\uXXXX` for every code point of the Basic
/// Multilingual Plane (the range split into pieces whose hex digits are independent
/// ranges, either case), and surrogate pairs above it (one rectangle of high and low
/// surrogate ranges per piece). Surrogates themselves are never encoded.
pub(crate) fn encodings(ranges: &[CharRange], escapes: Escapes) -> Encodings {
    let mut out = Encodings {
        raw: Vec::new(),
        escaped: Vec::new(),
    };
    for &(lo, hi) in ranges {
        let (lo, hi) = (lo as u32, hi as u32);
        for (a, b) in [(0x20, 0x21), (0x23, 0x5b), (0x5d, 0x10ffff)] {
            // Both ends are code points; a range across the surrogates keeps them, as
            // regex classes and UTF-8 sequences skip them.
            if let (Some(a), Some(b)) = (char::from_u32(lo.max(a)), char::from_u32(hi.min(b))) {
                if a <= b {
                    out.raw.push((a, b));
                }
            }
        }
        match escapes {
            Escapes::Canonical => {
                for c in lo..=hi.min(0x5c) {
                    let c = char::from_u32(c).expect("below 0x5d");
                    if !is_raw(c) {
                        let bytes = encode_char(c).into_bytes();
                        out.escaped
                            .push(bytes.iter().map(|&b| vec![(b, b)]).collect());
                    }
                }
            }
            Escapes::Any => any_escapes(lo, hi, &mut out.escaped),
        }
    }
    out
}

/// The escapes of `lo..=hi` that [`Escapes::Any`] admits.
fn any_escapes(lo: u32, hi: u32, out: &mut Vec<Vec<ByteSet>>) {
    let byte = |b: u8| vec![(b, b)];
    for (c, letter) in SHORT {
        if (lo..=hi).contains(&c) {
            out.push(vec![byte(b'\\'), byte(letter)]);
        }
    }
    let u = || vec![byte(b'\\'), byte(b'u')];
    let mut bmp = Vec::new();
    push_scalar_range(&mut bmp, lo, hi.min(0xffff));
    for (a, b) in bmp {
        for digits in hex_pieces(a as u32, b as u32, 4) {
            out.push([u(), digits].concat());
        }
    }
    if hi < 0x10000 {
        return;
    }
    let (v0, v1) = (lo.max(0x10000) - 0x10000, hi - 0x10000);
    let (h0, l0, h1, l1) = (v0 >> 10, v0 & 0x3ff, v1 >> 10, v1 & 0x3ff);
    let mut rectangles = Vec::new();
    if h0 == h1 {
        rectangles.push((h0, h0, l0, l1));
    } else {
        let (mut first, mut last) = (h0, h1);
        if l0 != 0 {
            rectangles.push((h0, h0, l0, 0x3ff));
            first += 1;
        }
        if l1 != 0x3ff {
            rectangles.push((h1, h1, 0, l1));
            last -= 1;
        }
        if first <= last {
            rectangles.push((first, last, 0, 0x3ff));
        }
    }
    for (ha, hb, la, lb) in rectangles {
        for high in hex_pieces(0xd800 + ha, 0xd800 + hb, 4) {
            for low in hex_pieces(0xdc00 + la, 0xdc00 + lb, 4) {
                out.push([u(), high.clone(), u(), low].concat());
            }
        }
    }
}

/// `lo..=hi` as `digits`-digit hex numerals: pieces whose digits are independent ranges
/// (like UTF-8 sequences of a code-point range), each digit a set of either case.
fn hex_pieces(lo: u32, hi: u32, digits: u32) -> Vec<Vec<ByteSet>> {
    if digits == 0 {
        return vec![Vec::new()];
    }
    let unit = 16u32.pow(digits - 1);
    let (dlo, dhi, rlo, rhi) = (lo / unit, hi / unit, lo % unit, hi % unit);
    let with = |d0: u32, d1: u32, rest: Vec<Vec<ByteSet>>| {
        rest.into_iter()
            .map(|r| [vec![hex_digits(d0, d1)], r].concat())
            .collect::<Vec<_>>()
    };
    if dlo == dhi {
        return with(dlo, dlo, hex_pieces(rlo, rhi, digits - 1));
    }
    let mut out = Vec::new();
    let (mut first, mut last) = (dlo, dhi);
    if rlo != 0 {
        out.extend(with(dlo, dlo, hex_pieces(rlo, unit - 1, digits - 1)));
        first += 1;
    }
    let mut tail = Vec::new();
    if rhi != unit - 1 {
        tail = with(dhi, dhi, hex_pieces(0, rhi, digits - 1));
        last -= 1;
    }
    if first <= last {
        out.extend(with(first, last, hex_pieces(0, unit - 1, digits - 1)));
    }
    out.extend(tail);
    out
}

/// The hex digits worth `d0..=d1`, in either case.
fn hex_digits(d0: u32, d1: u32) -> ByteSet {
    let mut set = Vec::new();
    if d0 <= 9 {
        set.push((b'0' + d0 as u8, b'0' + d1.min(9) as u8));
    }
    if d1 >= 10 {
        let (a, b) = (d0.max(10) as u8 - 10, d1 as u8 - 10);
        set.push((b'A' + a, b'A' + b));
        set.push((b'a' + a, b'a' + b));
    }
    set
}

impl Encodings {
    /// Every encoding as a sequence of byte sets: raw code points by their UTF-8
    /// sequences, then the escapes.
    pub(crate) fn sequences(&self) -> Vec<Vec<ByteSet>> {
        let mut out = Vec::new();
        for &(lo, hi) in &self.raw {
            for seq in Utf8Sequences::new(lo, hi) {
                out.push(
                    seq.as_slice()
                        .iter()
                        .map(|r| vec![(r.start, r.end)])
                        .collect(),
                );
            }
        }
        out.extend(self.escaped.iter().cloned());
        out
    }

    /// Regex text matching any one encoding, or `None` when there is none: the raw code
    /// points as one class of ranges, then the escapes with common prefixes factored
    /// out (the text is parsed for every use of a string, so its length is compile time).
    pub(crate) fn regex(&self) -> Option<String> {
        let mut class = String::new();
        for &(lo, hi) in &self.raw {
            push_range(&mut class, lo, hi);
        }
        let mut alts = Vec::new();
        if !class.is_empty() {
            alts.push(format!("[{class}]"));
        }
        let escaped: Vec<&[ByteSet]> = self.escaped.iter().map(|s| s.as_slice()).collect();
        if !escaped.is_empty() {
            alts.push(factored_regex(&escaped));
        }
        match alts.len() {
            0 => None,
            1 => alts.pop(),
            _ => Some(format!("(?:{})", alts.join("|"))),
        }
    }
}

/// Regex text of the sequences `seqs` (none empty, each set ASCII), alternatives with a
/// common first set sharing it: `\\(?:b|t|u00(?:0[0-7]|...))` rather than each in full.
fn factored_regex(seqs: &[&[ByteSet]]) -> String {
    let mut groups: Vec<(&ByteSet, Vec<&[ByteSet]>)> = Vec::new();
    let mut ends = false;
    for seq in seqs {
        let Some((first, rest)) = seq.split_first() else {
            ends = true;
            continue;
        };
        match groups.iter_mut().find(|(set, _)| *set == first) {
            Some((_, tails)) => tails.push(rest),
            None => groups.push((first, vec![rest])),
        }
    }
    // Sets that end their sequences become one class: `[0-7bef]`, not `0|1|...|f`.
    let mut last: ByteSet = Vec::new();
    groups.retain(|(set, tails)| {
        let ends_here = tails.iter().all(|t| t.is_empty());
        if ends_here {
            last.extend(set.iter().copied());
        }
        !ends_here
    });
    let mut alts: Vec<String> = Vec::new();
    if !last.is_empty() {
        last.sort_unstable();
        // Adjacent or overlapping ranges as one: `[0-7]`, not `[0-00-1...]`.
        let mut merged: ByteSet = Vec::with_capacity(last.len());
        for (a, b) in last {
            match merged.last_mut() {
                Some((_, hi)) if a <= hi.saturating_add(1) => *hi = (*hi).max(b),
                _ => merged.push((a, b)),
            }
        }
        let last = merged;
        alts.push(sequence_regex(std::slice::from_ref(&last)));
    }
    alts.extend(groups.iter().map(|(set, tails)| {
        let head = sequence_regex(std::slice::from_ref(*set));
        let tails: Vec<&[ByteSet]> = tails.clone();
        match tails.as_slice() {
            [[]] => head,
            [t] => format!("{head}{}", sequence_regex(t)),
            _ => format!("{head}{}", factored_regex(&tails)),
        }
    }));
    if ends {
        alts.insert(0, String::new());
    }
    if alts.len() == 1 {
        return alts.pop().expect("one");
    }
    format!("(?:{})", alts.join("|"))
}

/// Regex text of one escape sequence (ASCII byte sets).
fn sequence_regex(seq: &[ByteSet]) -> String {
    let mut out = String::new();
    for set in seq {
        match set.as_slice() {
            [(a, b)] if a == b => out.push_str(&regex_syntax::escape(&(*a as char).to_string())),
            _ => {
                out.push('[');
                for &(a, b) in set {
                    let _ = write!(out, "\\x{{{a:x}}}-\\x{{{b:x}}}");
                }
                out.push(']');
            }
        }
    }
    out
}

/// The encodings of `escapes` as `Algebra::substitute_chars` takes them.
pub(crate) fn code(escapes: Escapes) -> impl Fn(&[CharRange]) -> Vec<Vec<ByteSet>> {
    move |ranges| encodings(ranges, escapes).sequences()
}

/// Regex text matching exactly the encodings of `text`.
pub(crate) fn encode_literal(text: &str, escapes: Escapes) -> String {
    text.chars()
        .map(|c| match escapes {
            Escapes::Canonical => regex_syntax::escape(&encode_char(c)),
            Escapes::Any => encode_class(&[(c, c)], escapes).expect("a code point"),
        })
        .collect()
}

/// Regex text for a JSON text written canonically (serde_json's string escapes), where
/// each string may be spelled in any way `escapes` allows.
pub(crate) fn encode_json_text(text: &str, escapes: Escapes) -> String {
    if escapes == Escapes::Canonical {
        return regex_syntax::escape(text);
    }
    let mut out = String::new();
    let mut rest = text;
    while let Some(open) = rest.find('"') {
        out.push_str(&regex_syntax::escape(&rest[..open]));
        // The closing quote is the first one not escaped.
        let body = &rest[open + 1..];
        let mut end = 0;
        let mut escaped = false;
        for (i, c) in body.char_indices() {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => {
                    end = i;
                    break;
                }
                _ => {}
            }
        }
        let literal = &rest[open..open + end + 2];
        let decoded: String = serde_json::from_str(literal).expect("serde_json wrote a string");
        let _ = write!(out, "\"{}\"", encode_literal(&decoded, escapes));
        rest = &rest[open + end + 2..];
    }
    out.push_str(&regex_syntax::escape(rest));
    out
}

/// Whether `c` is written raw (not escaped) canonically.
pub(crate) fn is_raw(c: char) -> bool {
    c >= ' ' && c != '"' && c != '\\'
}

/// Regex text matching the encoding of any one code point of `ranges`, or `None` when
/// the set is empty. Raw code points form one class; escaped ones are listed.
pub(crate) fn encode_class(ranges: &[CharRange], escapes: Escapes) -> Option<String> {
    encodings(ranges, escapes).regex()
}

fn push_range(class: &mut String, lo: char, hi: char) {
    if lo == hi {
        let _ = write!(class, "\\x{{{:x}}}", lo as u32);
    } else {
        let _ = write!(class, "\\x{{{:x}}}-\\x{{{:x}}}", lo as u32, hi as u32);
    }
}

/// Regex text for the encoding of any one code point, built once per process for each
/// kind of escapes: schema-free values ask for it at every string they allow, and
/// encoding the whole range takes ~1 ms (a recursive schema of strings took seconds).
pub(crate) fn any_char(escapes: Escapes) -> String {
    static CANONICAL: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    static ANY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    let cell = match escapes {
        Escapes::Canonical => &CANONICAL,
        Escapes::Any => &ANY,
    };
    cell.get_or_init(|| encode_class(&[('\0', char::MAX)], escapes).expect("non-empty"))
        .clone()
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
        let any = any_char(Escapes::Canonical);
        for text in [
            "a", "é", "😀", "\\\"", "\\\\", "\\n", "\\u001f", "/", "\u{7f}",
        ] {
            assert!(matches(&any, text), "{text}");
        }
        for text in ["\"", "\\", "\n", "\\u000a", "\\/", "ab", ""] {
            assert!(!matches(&any, text), "{text}");
        }
        let digits = encode_class(&[('0', '9')], Escapes::Canonical).unwrap();
        assert!(matches(&digits, "7") && !matches(&digits, "a"));
        assert_eq!(encode_class(&[], Escapes::Canonical), None);
    }

    /// Every spelling of a code point, as the oracle (serde_json) would read it.
    fn spellings(c: char) -> Vec<String> {
        let mut out = Vec::new();
        if is_raw(c) {
            out.push(c.to_string());
        }
        out.push(encode_char(c));
        if let Some(&(_, letter)) = SHORT.iter().find(|(x, _)| *x == c as u32) {
            out.push(format!("\\{}", letter as char));
        }
        let mut units = [0u16; 2];
        let units = c.encode_utf16(&mut units);
        out.push(units.iter().map(|u| format!("\\u{u:04x}")).collect());
        out.push(units.iter().map(|u| format!("\\u{u:04X}")).collect());
        out
    }

    /// Classes under `Any` match exactly the bodies serde_json decodes to one code point
    /// of the class: every spelling of code points in and around random ranges, and
    /// bodies JSON refuses (lone surrogates, bad hex, `\x`, raw controls).
    #[test]
    fn any_classes_match_every_spelling_and_nothing_else() {
        let mut rng = fstc_core::sample::SplitMix64::new(0x2545_f491_4f6c_dd1d);
        let mut next = |n: u32| rng.below(u64::from(n)) as u32;
        let points = |lo: u32| {
            [
                lo,
                lo + 1,
                0x22,
                0x2f,
                0x5c,
                0x1f,
                0x7f,
                0xe9,
                0xd7ff,
                0xe000,
                0xffff,
                0x10000,
                0x1f600,
                0x10ffff,
            ]
        };
        for _ in 0..60 {
            let span = [0x10, 0x100, 0x3000, 0x20000][next(4) as usize];
            let lo = next(0x10ffff - span);
            let ranges = complement(&complement(&[(
                char::from_u32(lo).unwrap_or('a'),
                char::from_u32(lo + span).unwrap_or('z'),
            )]));
            let re = encode_class(&ranges, Escapes::Any).unwrap();
            let re = regex::Regex::new(&format!("^(?:{re})$")).unwrap();
            let inside = |c: char| ranges.iter().any(|&(a, b)| a <= c && c <= b);
            for p in points(lo).into_iter().chain(points(lo + span - 1)) {
                let Some(c) = char::from_u32(p) else { continue };
                for text in spellings(c) {
                    assert_eq!(re.is_match(&text), inside(c), "{ranges:?} on {text}");
                }
            }
            for bad in [
                "\\ud83d",
                "\\ude00",
                "\\ud83d\\u0041",
                "\\x41",
                "\\u12G4",
                "\\u12",
                "\n",
                "\"",
                "\\",
            ] {
                assert!(!re.is_match(bad), "{ranges:?} on {bad}");
                let json = format!("\"{bad}\"");
                assert!(serde_json::from_str::<String>(&json).is_err(), "{json}");
            }
        }
    }
}
