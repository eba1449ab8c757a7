//! The ECMAScript dialect against `regress`, an ECMAScript regex engine, with the `u`
//! flag: random patterns of ECMAScript escapes, classes, `.`, word boundaries and
//! look-around, full match (`^(?:...)$`), on every text of up to three pieces chosen
//! where ECMAScript and the `regex` crate differ (Unicode digits, NEL, U+FEFF, no-break
//! space, line and paragraph separators, `é`).

use crate::regex_support::all_texts;
use fst_core::regex::{ByteDfa, Dialect, RegexBuilder, RegexErrorKind};
use fst_core::sample::SplitMix64;

const PIECES: &[&str] = &[
    "a", "Z", "1", "\u{663}", " ", "\u{a0}", "\u{feff}", "\u{85}", "\n", "\r", "\u{2028}", "é",
    "_", "-",
];

const LEAVES: &[&str] = &[
    r"\d",
    r"\D",
    r"\w",
    r"\W",
    r"\s",
    r"\S",
    r"\b",
    r"\B",
    ".",
    "[^]",
    r"[\d-]",
    r"[^\s\d]",
    r"[\w\u00e9]",
    r"\u0061",
    r"\u{e9}",
    r"\x5f",
    r"\/",
    "a",
    "-",
    "",
    r"(?=\d)",
    r"(?!\s)",
    r"(?<=\w)",
    r"(?<!a)",
    r"[\b]",
    r"\uD83D\uDE00",
    r"\p{Nd}",
    "[a-z]",
];

/// One to four items, each a leaf or an alternation of two, with at most one quantifier:
/// `regress` (a backtracking engine) exhausts memory on nested nullable loops such as
/// `(?:(?:x*)?)*`, so quantifiers are not nested.
fn flat_pattern(rng: &mut SplitMix64) -> String {
    let leaf = |rng: &mut SplitMix64| LEAVES[rng.index(LEAVES.len())];
    let mut out = String::new();
    for _ in 0..1 + rng.below(4) {
        let item = match rng.below(3) {
            0 => format!("(?:{}|{})", leaf(rng), leaf(rng)),
            _ => format!("(?:{})", leaf(rng)),
        };
        let quantifier = ["", "", "?", "*", "+", "{1,2}"][rng.index(6)];
        // ECMAScript (with `u`) forbids quantified look-around.
        let quantifier = if item.contains("(?=") || item.contains("(?!") || item.contains("(?<") {
            ""
        } else {
            quantifier
        };
        out.push_str(&item);
        out.push_str(quantifier);
    }
    out
}

fn ecma(pattern: &str) -> Result<ByteDfa, fst_core::regex::RegexError> {
    RegexBuilder::new()
        .dialect(Dialect::EcmaScript)
        .build(pattern)
}

#[test]
fn ecmascript_patterns_agree_with_regress() {
    let pieces: Vec<&[u8]> = PIECES.iter().map(|p| p.as_bytes()).collect();
    let texts = all_texts(&pieces, 3);
    let mut rng = SplitMix64::new(262);
    for _ in 0..300 {
        let pattern = flat_pattern(&mut rng);
        let dfa = ecma(&pattern).unwrap_or_else(|e| panic!("{pattern}: {e}"));
        let oracle = regress::Regex::with_flags(&format!("^(?:{pattern})$"), "u")
            .unwrap_or_else(|e| panic!("regress refuses {pattern}: {e}"));
        for t in &texts {
            let s = std::str::from_utf8(t).unwrap();
            assert_eq!(
                dfa.is_match(t),
                oracle.find(s).is_some(),
                "{pattern} on {s:?}"
            );
        }
    }
}

#[test]
fn ecmascript_meanings_differ_from_the_regex_crate() {
    for (pattern, text, ecma_matches, regex_matches) in [
        (r"\d", "\u{663}", false, true),
        (r"\w", "é", false, true),
        (r"\s", "\u{feff}", true, false),
        (r"\s", "\u{85}", false, true),
        (".", "\r", false, true),
        (r"a\bé", "aé", true, false),
    ] {
        let e = ecma(pattern).unwrap();
        let r = ByteDfa::from_regex(pattern, 10_000).unwrap();
        assert_eq!(
            e.is_match(text.as_bytes()),
            ecma_matches,
            "{pattern} {text:?}"
        );
        assert_eq!(
            r.is_match(text.as_bytes()),
            regex_matches,
            "{pattern} {text:?}"
        );
    }
    let named = ecma(r"(?<year>\d{4})-(?<month>\d\d)").unwrap();
    assert!(named.is_match(b"2024-01"));
    assert!(ecma("[]").unwrap().is_empty());
}

#[test]
fn constructs_outside_ecmascript_are_refused_by_name() {
    for (pattern, construct, span) in [
        ("(?i)a", "non-ECMAScript group", (0, 4)),
        ("(?P<x>a)", "non-ECMAScript group", (0, 4)),
        (r"a\A", "escape", (1, 3)),
        (r"\pL", "escape", (0, 2)),
        (r"x\1", "backreference", (1, 3)),
        (r"\k<a>", "backreference", (0, 2)),
        (r"\uD800", "escape", (0, 6)),
        (r"\u{110000}", "escape", (0, 10)),
        ("[ab", "unclosed class", (0, 3)),
        (r"\c1", "escape", (0, 2)),
    ] {
        let e = ecma(pattern)
            .err()
            .unwrap_or_else(|| panic!("{pattern} accepted"));
        assert_eq!(
            e.kind(),
            &RegexErrorKind::Unsupported { construct },
            "{pattern}: {e}"
        );
        assert_eq!(e.span(), Some(span), "{pattern}: {e}");
        assert!(e.to_string().contains(construct), "{e}");
    }
    let e = RegexBuilder::new()
        .dialect(Dialect::EcmaScript)
        .case_insensitive(true)
        .build("a")
        .unwrap_err();
    assert!(e.to_string().contains("case-insensitive"), "{e}");
}

/// Mutated patterns (characters deleted, duplicated or replaced by syntax characters)
/// compile or fail with an error, in both dialects: never a panic. What compiles in
/// the ECMAScript dialect and `regress` also accepts must agree with it.
#[test]
fn mutated_patterns_never_panic() {
    const SYNTAX: &[&str] = &[
        "\\", "[", "]", "(", ")", "(?", "(?<", "(?=", "{", "}", "u", "u{", "x", "c", "^", "-", "|",
        "é", "\\u", "\\p{", "*", "?",
    ];
    let pieces: Vec<&[u8]> = PIECES.iter().map(|p| p.as_bytes()).collect();
    let texts = all_texts(&pieces, 2);
    let mut rng = SplitMix64::new(99);
    for _ in 0..2000 {
        let mut pattern = flat_pattern(&mut rng);
        for _ in 0..1 + rng.below(3) {
            let chars: Vec<(usize, char)> = pattern.char_indices().collect();
            let (at, c) = match chars.get(rng.index(chars.len().max(1))) {
                Some(&(at, c)) => (at, c.len_utf8()),
                None => (0, 0),
            };
            let insert = SYNTAX[rng.index(SYNTAX.len())];
            match rng.below(3) {
                0 => pattern.replace_range(at..at + c, ""),
                1 => pattern.insert_str(at, insert),
                _ => pattern.replace_range(at..at + c, insert),
            }
        }
        let _ = ByteDfa::from_regex(&pattern, 10_000);
        let Ok(dfa) = ecma(&pattern) else { continue };
        // Nested quantifiers can exhaust `regress`'s memory (see `flat_pattern`).
        if pattern
            .replace("(?", "")
            .matches(['*', '+', '?', '{'])
            .count()
            > 1
        {
            continue;
        }
        let Ok(oracle) = regress::Regex::with_flags(&format!("^(?:{pattern})$"), "u") else {
            continue;
        };
        for t in &texts {
            let s = std::str::from_utf8(t).unwrap();
            assert_eq!(
                dfa.is_match(t),
                oracle.find(s).is_some(),
                "{pattern} on {s:?}"
            );
        }
    }
}
