//! Every rejected construct gives an error naming it, with its span and fragment, and
//! size limits stop blow-ups quickly instead of exhausting memory.

use std::time::{Duration, Instant};

use fstc_core::bytes::DEFAULT_DFA_STATE_LIMIT;

use fstc_regex::{RegexBuilder, RegexError, RegexErrorKind};

fn err(pattern: &str) -> RegexError {
    match fstc_regex::byte_dfa(pattern, DEFAULT_DFA_STATE_LIMIT) {
        Ok(_) => panic!("{pattern:?} should be rejected"),
        Err(e) => e,
    }
}

/// Asserts kind, span, and that the message names the construct, the fragment and the
/// byte offsets.
fn assert_rejected(pattern: &str, construct: &str, span: (usize, usize), fragment: &str) {
    let e = err(pattern);
    let msg = e.to_string();
    assert!(
        matches!(e.kind(), RegexErrorKind::Unsupported { construct: c } if *c == construct),
        "{pattern}: {:?}: {msg}",
        e.kind()
    );
    assert_eq!(e.span(), Some(span), "{pattern}: {msg}");
    assert!(msg.contains(construct), "{pattern}: {msg}");
    assert!(msg.contains(&format!("`{fragment}`")), "{pattern}: {msg}");
    assert!(
        msg.contains(&format!("bytes {}..{}", span.0, span.1)),
        "{pattern}: {msg}"
    );
    assert_eq!(&pattern[span.0..span.1], fragment);
}

#[test]
fn look_around_fstc_cannot_compile_is_rejected_naming_the_group() {
    // A wildcard terminal inside a look-around body: what the body sees is a token.
    assert_rejected(
        "(?=(?P<TEXT_TOKEN>))",
        "look-ahead",
        (0, 20),
        "(?=(?P<TEXT_TOKEN>))",
    );
    let e = err("(?=a");
    assert!(e.to_string().contains("no matching `)`"), "{e}");
}

/// An assertion decided by a terminal's token is refused, naming the terminal; one that
/// bytes between them decide compiles.
#[test]
fn assertions_beside_wildcard_terminals_are_exact_or_refused() {
    for pattern in [
        r"(?P<TEXT_TOKEN>)\b",
        r"\b(?P<TEXT_TOKEN>)",
        r"(?P<PARAGRAPH_TOKEN>)(?m:^)a",
        r"a(?=bc)(?P<TEXT_TOKEN>)",
        r"(?P<TEXT_TOKEN>)(?<=a)",
    ] {
        let e = err(pattern);
        assert!(
            matches!(e.kind(), RegexErrorKind::Unsupported { construct } if *construct == "assertion with wildcard terminals"),
            "{pattern}: {e}"
        );
        assert!(e.to_string().contains("<"), "{pattern}: {e}");
    }
    for (pattern, text, ok) in [
        (r"(?P<TEXT_TOKEN>)x\b", "", false),
        (r"(?P<TEXT_TOKEN>) \bfoo\b", "", false),
        (r"\bfoo\b (?P<TEXT_TOKEN>)", "", false),
        (r"(?=ab)ab(?P<TEXT_TOKEN>)", "", false),
        (r"(?P<TEXT_TOKEN>)+é\b", "", false),
        (r"(?:\bab\b (?P<PARAGRAPH_TOKEN>)\n)+|(?m:^)x$", "x", true),
        (r"(?:\bab\b (?P<PARAGRAPH_TOKEN>)\n)+|(?m:^)x$", "ab", false),
    ] {
        let dfa = fstc_regex::byte_dfa(pattern, DEFAULT_DFA_STATE_LIMIT)
            .unwrap_or_else(|e| panic!("{pattern}: {e}"));
        assert!(!dfa.terminals().is_empty(), "{pattern}");
        assert_eq!(dfa.is_match(text.as_bytes()), ok, "{pattern} on {text:?}");
    }
}

#[test]
fn backreferences_are_rejected_with_their_span() {
    assert_rejected(r"(a)\1", "backreference", (3, 5), r"\1");
    assert_rejected(r"(a)(b)x\2", "backreference", (7, 9), r"\2");
    assert_rejected(r"(?<w>a)\k<w>", "backreference", (7, 9), r"\k");
}

#[test]
fn patterns_that_can_match_invalid_utf8_are_rejected() {
    assert_rejected(r"(?-u:\xFF)", "non-UTF-8 construct", (5, 9), r"\xFF");
    assert_rejected("(?-u).", "non-UTF-8 construct", (5, 6), ".");
    assert_rejected(r"a(?-u)\W", "non-UTF-8 construct", (6, 8), r"\W");
    // ASCII-only byte classes are fine.
    assert!(fstc_regex::byte_dfa(r"(?-u)\w+", 100)
        .unwrap()
        .is_match(b"ab_1"));
}

#[test]
fn syntax_errors_pass_through_with_span() {
    for (pattern, span, words) in [
        ("a(", (1, 2), "unclosed group"),
        ("[z-a]", (1, 4), "invalid character class range"),
        ("a{2,1}", (1, 6), "invalid repetition count range"),
        ("*", (0, 0), "repetition operator missing expression"),
        (r"\p{Foo}", (0, 7), "Unicode property not found"),
        ("(?m-m)a", (4, 5), "duplicate flag"),
    ] {
        let e = err(pattern);
        let msg = e.to_string();
        assert_eq!(e.kind(), &RegexErrorKind::Syntax, "{pattern}: {msg}");
        assert_eq!(e.span(), Some(span), "{pattern}: {msg}");
        assert!(msg.contains(words), "{pattern}: {msg}");
        assert!(
            msg.contains(&format!("bytes {}..{}", span.0, span.1)),
            "{pattern}: {msg}"
        );
    }
}

/// A limit error must come back fast; generous bound so a loaded machine does not flake
/// (the real times are a few ms).
fn assert_fast(pattern: &str, limit: usize, started: Instant) {
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{pattern} with limit {limit} took {:?}",
        started.elapsed()
    );
}

#[test]
fn exponential_blowup_hits_the_dfa_limit() {
    let pattern = "(a|b)*a(a|b){24}";
    for limit in [100, 1000, DEFAULT_DFA_STATE_LIMIT] {
        let t = Instant::now();
        let e = fstc_regex::byte_dfa(pattern, limit).unwrap_err();
        assert_fast(pattern, limit, t);
        assert_eq!(e.kind(), &RegexErrorKind::TooManyStates { limit });
        let msg = e.to_string();
        assert!(
            msg.contains(&format!("more than {limit} byte-DFA states")),
            "{msg}"
        );
        assert!(msg.contains("RegexBuilder::state_limit"), "{msg}");
        assert_eq!(e.span(), None);
    }
    // A smaller instance fits once the limit is raised: 2^(n+1) states for n = 8.
    let dfa = fstc_regex::byte_dfa("(a|b)*a(a|b){8}", 1 << 12).unwrap();
    assert_eq!(dfa.num_states(), 1 << 9);
}

#[test]
fn huge_counted_repetitions_hit_a_limit_fast() {
    for pattern in [
        "a{100000}",
        r"(\w{50}){50}",
        "a{1000}{1000}",
        "(a{65535}){65535}",
        r"\p{L}{1000}",
        r"\w{100}",
    ] {
        let t = Instant::now();
        let e = fstc_regex::byte_dfa(pattern, DEFAULT_DFA_STATE_LIMIT).unwrap_err();
        assert_fast(pattern, DEFAULT_DFA_STATE_LIMIT, t);
        match e.kind() {
            RegexErrorKind::TooManyStates { limit } => assert_eq!(*limit, DEFAULT_DFA_STATE_LIMIT),
            RegexErrorKind::TooManyNfaStates { limit } => {
                assert!(*limit >= DEFAULT_DFA_STATE_LIMIT);
                assert!(e.to_string().contains("NFA states"), "{e}");
                assert!(e.to_string().contains("raise"), "{e}");
            }
            other => panic!("{pattern}: unexpected {other:?}: {e}"),
        }
    }
    // Multiplied repetitions are refused before any NFA is built.
    let e = fstc_regex::byte_dfa("(a{65535}){65535}", DEFAULT_DFA_STATE_LIMIT).unwrap_err();
    assert!(matches!(e.kind(), RegexErrorKind::TooManyNfaStates { .. }));
    // Raising the limit lets a long counted repetition through.
    let dfa = RegexBuilder::new()
        .state_limit(30_000)
        .build("a{20000}")
        .unwrap();
    assert_eq!(dfa.num_states(), 20_001);
    assert!(dfa.is_match(&[b'a'; 20_000]));
    assert!(!dfa.is_match(&[b'a'; 19_999]));
}

#[test]
fn many_simultaneously_active_parts_hit_the_set_budget() {
    let t = Instant::now();
    let e = fstc_regex::byte_dfa("(a?){5000}a{5000}", DEFAULT_DFA_STATE_LIMIT).unwrap_err();
    assert_fast("(a?){5000}a{5000}", DEFAULT_DFA_STATE_LIMIT, t);
    assert_eq!(
        e.kind(),
        &RegexErrorKind::TooManyStates {
            limit: DEFAULT_DFA_STATE_LIMIT
        }
    );
    assert!(e.to_string().contains("raise the state limit"), "{e}");
}

#[test]
fn deep_nesting_compiles_or_is_refused_without_overflow() {
    // Within regex-syntax's nesting limit: compiles (on a test thread's small stack).
    let pattern = format!("{}a{}", "(".repeat(120), ")*".repeat(120));
    let dfa = fstc_regex::byte_dfa(&pattern, 100).unwrap();
    assert!(dfa.is_match(b"aaa") && dfa.is_match(b""));
    let pattern = format!("{}a{}", "(?:b|".repeat(120), ")".repeat(120));
    let dfa = fstc_regex::byte_dfa(&pattern, 100).unwrap();
    assert!(dfa.is_match(b"a") && dfa.is_match(b"b") && !dfa.is_match(b"ab"));
    // Past it: a syntax error whose message stays one short line.
    let pattern = format!("{}a{}", "(".repeat(300), ")".repeat(300));
    let e = fstc_regex::byte_dfa(&pattern, 100).unwrap_err();
    assert_eq!(e.kind(), &RegexErrorKind::Syntax);
    assert!(e.to_string().contains("nested"), "{e}");
    assert!(e.to_string().len() < 300, "{e}");
}
