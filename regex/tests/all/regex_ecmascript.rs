//! The ECMAScript dialect against `regress`, an ECMAScript regex engine, with the `u`
//! flag: random patterns of ECMAScript escapes, classes, `.`, word boundaries and
//! look-around, full match (`^(?:...)$`), on every text of up to three pieces chosen
//! where ECMAScript and the `regex` crate differ (Unicode digits, NEL, U+FEFF, no-break
//! space, line and paragraph separators, `é`).

use fstc_core::bytes::ByteDfa;
use fstc_core::sample::SplitMix64;
use fstc_regex::{Dialect, RegexBuilder, RegexErrorKind};
use testkit::patterns::all_texts;

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
    r"(?=\w\b)",
    r"(?<!^)",
    r"(?=.$)",
    r"(?<=^\s|(?!\d)\w)",
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

fn ecma(pattern: &str) -> Result<ByteDfa, fstc_regex::RegexError> {
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
        assert_same_verdict(&pattern);
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
        let r = fstc_regex::byte_dfa(pattern, 10_000).unwrap();
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
    // Annex B's identity escapes of punctuation are the character itself.
    let escaped = ecma(r"^[^\/~\^\: \[\]\\]+(\/[^\:]+)*\-\@$").unwrap();
    assert!(escaped.is_match(b"a/b-@"));
    assert!(!escaped.is_match(b"a:b-@") && !escaped.is_match(b"a/b@"));
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

/// Constructs fstc refuses by name although ECMAScript has them: backreferences (not
/// regular), lone surrogates (not UTF-8 text), reserved extension names, size limits.
fn refused_by_name(e: &fstc_regex::RegexError) -> bool {
    match e.kind() {
        RegexErrorKind::Unsupported { construct } => {
            *construct == "backreference"
                || (*construct == "escape" && e.to_string().contains("surrogate"))
        }
        RegexErrorKind::Extension { .. }
        | RegexErrorKind::TooManyStates { .. }
        | RegexErrorKind::TooManyNfaStates { .. } => true,
        _ => false,
    }
}

/// `pattern` with each escaped ASCII punctuation character written `\xHH`: the
/// character itself, as fstc reads Annex B's identity escapes (`\:`), which `u` mode
/// refuses; the spelling `regress` is asked about.
fn identity_escapes_as_hex(pattern: &str) -> String {
    let mut out = String::new();
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        match (c, chars.clone().next()) {
            ('\\', Some(p)) if p.is_ascii_punctuation() || p == ' ' => {
                chars.next();
                out.push_str(&format!("\\x{:02X}", p as u32));
            }
            ('\\', Some(p)) => {
                chars.next();
                out.push(c);
                out.push(p);
            }
            _ => out.push(c),
        }
    }
    out
}

/// fstc accepts `pattern` in the ECMAScript dialect iff `regress` (`u` flag) does, but
/// for what fstc refuses by name (and identity escapes, see [`identity_escapes_as_hex`]).
fn assert_same_verdict(pattern: &str) -> Option<ByteDfa> {
    let theirs = regress::Regex::with_flags(&identity_escapes_as_hex(pattern), "u");
    match ecma(pattern) {
        Ok(dfa) => {
            assert!(
                theirs.is_ok(),
                "fstc accepts {pattern:?}, regress refuses it: {:?}",
                theirs.err()
            );
            Some(dfa)
        }
        Err(e) => {
            // regress accepts a quantified `\b` or `\B` (`\b?`), which ECMA-262's grammar
            // (Term :: Assertion, no quantifier) and V8 with `u` refuse: fstc follows them.
            let quantified_boundary = e.to_string().contains("cannot be quantified")
                && e.span().is_some_and(|(a, _)| {
                    a >= 2 && matches!(&pattern.as_bytes()[a - 2..a], b"\\b" | b"\\B")
                });
            assert!(
                theirs.is_err() || refused_by_name(&e) || quantified_boundary,
                "regress accepts {pattern:?}, fstc refuses it: {e}"
            );
            if let Some((a, b)) = e.span() {
                assert!(a <= b && b <= pattern.len(), "{pattern:?}: {e}");
            }
            None
        }
    }
}

/// Syntax ECMAScript's `u` mode rejects and regex-syntax would accept: refused with the
/// offset of the fault.
#[test]
fn ecmascript_u_mode_syntax_errors_are_refused_with_their_offset() {
    for (pattern, span) in [
        ("a]", (1, 2)),
        ("}", (0, 1)),
        ("a{", (1, 2)),
        ("a{1", (1, 2)),
        ("x{,2}", (1, 2)),
        ("{2}", (0, 1)),
        (r"a\a", (1, 3)),
        ("(?<1a>x)", (0, 4)),
        ("(?<a.b>x)", (0, 5)),
        ("(?<a>x)(?<a>y)", (7, 12)),
        ("(?=a)*", (5, 6)),
        ("(?<!a){2}", (6, 9)),
        ("^*", (1, 2)),
        ("a**", (2, 3)),
        ("a{2,1}", (1, 6)),
        (r"[\d-z]", (1, 5)),
        (r"[a-\w]", (1, 5)),
        ("[z-a]", (1, 4)),
        ("a)", (1, 2)),
        ("[[]]", (3, 4)),
        ("(?=[[)", (0, 3)),
    ] {
        assert!(
            regress::Regex::with_flags(pattern, "u").is_err(),
            "regress accepts {pattern:?}"
        );
        let e = ecma(pattern)
            .err()
            .unwrap_or_else(|| panic!("fstc accepts {pattern:?}"));
        assert_eq!(e.span(), Some(span), "{pattern:?}: {e}");
        assert!(
            e.to_string()
                .contains(&format!("bytes {}..{}", span.0, span.1)),
            "{e}"
        );
    }
    // ECMA-262 refuses a quantified word boundary too (regress accepts it).
    assert_eq!(ecma(r"a\b+").unwrap_err().span(), Some((3, 4)));
    // A `[` inside an ECMAScript class is literal, inside look-around too.
    for (pattern, text, ok) in [
        ("(?=[[])..", "[a", true),
        ("(?=[[])..", "a[", false),
        ("[[]x", "[x", true),
        ("a(?<=[]|a)b", "ab", true),
        ("(?<=[^])b", "b", false),
        (r"(?<$name_1>x)(?<é>y)\k<é>?", "xy", true),
    ] {
        if pattern.contains(r"\k") {
            let e = ecma(pattern).unwrap_err();
            assert!(e.to_string().contains("backreference"), "{e}");
            continue;
        }
        let dfa = ecma(pattern).unwrap_or_else(|e| panic!("{pattern}: {e}"));
        let hex = identity_escapes_as_hex(pattern);
        let oracle = regress::Regex::with_flags(&format!("^(?:{hex})$"), "u").unwrap();
        assert_eq!(
            oracle.find(text).is_some(),
            ok,
            "oracle: {pattern} on {text:?}"
        );
        assert_eq!(dfa.is_match(text.as_bytes()), ok, "{pattern} on {text:?}");
    }
    assert!(ecma(r"(?<$name_1>x)(?<é>y)")
        .unwrap()
        .is_match("xy".as_bytes()));
}

/// Mutated patterns (characters deleted, duplicated or replaced by syntax characters)
/// compile or fail with an error, in both dialects: never a panic. In the ECMAScript
/// dialect fstc accepts a pattern iff `regress` does (but for what fstc refuses by
/// name), and what both accept matches the same texts.
#[test]
fn mutated_patterns_never_panic() {
    const SYNTAX: &[&str] = &[
        "\\", "[", "]", "(", ")", "(?", "(?<", "(?=", "{", "}", "u", "u{", "x", "c", "^", "-", "|",
        "é", "\\u", "\\p{", "*", "?", "{2}", "{1,", "\\-", "\\a", "(?<x>", "(?<1>", ")*", "[[]",
        "\\k<x>", "\\1", "$", "\\b",
    ];
    let pieces: Vec<&[u8]> = PIECES.iter().map(|p| p.as_bytes()).collect();
    let texts = all_texts(&pieces, 2);
    let mut rng = SplitMix64::new(99);
    let mut accepted = 0;
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
        let _ = fstc_regex::byte_dfa(&pattern, 10_000);
        let Some(dfa) = assert_same_verdict(&pattern) else {
            continue;
        };
        accepted += 1;
        // Nested quantifiers can exhaust `regress`'s memory (see `flat_pattern`).
        if pattern
            .replace("(?", "")
            .matches(['*', '+', '?', '{'])
            .count()
            > 1
        {
            continue;
        }
        let hex = identity_escapes_as_hex(&pattern);
        let oracle = regress::Regex::with_flags(&format!("^(?:{hex})$"), "u").unwrap();
        for t in &texts {
            let s = std::str::from_utf8(t).unwrap();
            assert_eq!(
                dfa.is_match(t),
                oracle.find(s).is_some(),
                "{pattern} on {s:?}"
            );
        }
    }
    assert!(accepted >= 250, "only {accepted} mutated patterns compiled");
}
