//! Hostile patterns and limits (issue 27): each ends in a byte DFA or an error, on a
//! 2 MiB stack, without sizing anything by a limit the user raised past what memory holds.

use fstc_regex::RegexErrorKind;
use proptest::prelude::*;

use testkit::stack::on_small_stack;

/// `\w{0,10000}` under a state limit of ten million (or any larger one) used to grow its
/// NFA and subset construction until an allocation failed and the process aborted.
#[test]
fn a_huge_state_limit_does_not_size_the_construction() {
    for limit in [10_000_000, usize::MAX] {
        let e = fstc_regex::byte_dfa(r"\w{0,10000}", limit).unwrap_err();
        assert!(
            matches!(
                e.kind(),
                RegexErrorKind::TooManyNfaStates { .. } | RegexErrorKind::TooManyStates { .. }
            ),
            "{limit}: {e}"
        );
        let message = e.to_string();
        assert!(
            message.contains("ceiling") || message.contains("the most fstc builds"),
            "{message}"
        );
    }
}

/// A subset construction whose table passes its ceiling stops there, with an error.
#[test]
fn a_dfa_table_past_its_ceiling_is_an_error() {
    // Every ASCII byte its own class (128 columns) and 2^19 states pass 2^25 table
    // entries before the state limit of 2^21.
    let every_byte: String = (0..128u8).map(|b| format!("\\x{b:02x}")).collect();
    let pattern = format!("(?:[ab]*a[ab]{{18}}|{every_byte})");
    let e = fstc_regex::byte_dfa(&pattern, 1 << 21).unwrap_err();
    assert!(e.to_string().contains("passes the ceiling"), "{e}");
}

/// The look-around construction has the same ceiling: `\b` sends this pattern through it.
/// (A counter, not `[ab]*a[ab]{18}`: the look-around construction's states hold more
/// words, so that one passes its state-set budget first.)
#[test]
fn a_look_around_dfa_table_past_its_ceiling_is_an_error() {
    let every_byte: String = (0..128u8).map(|b| format!("\\x{b:02x}")).collect();
    let pattern = format!("(?:a{{0,270000}}\\b|{every_byte})");
    let e = fstc_regex::byte_dfa(&pattern, 1 << 21).unwrap_err();
    assert!(e.to_string().contains("passes the ceiling"), "{e}");
}

/// A build within its size limits that would take long stops at its deadline, with the
/// deadline's error: the plain and the look-around constructions, and the algebra's.
#[test]
fn a_deadline_stops_a_long_construction() {
    use fstc_core::bytes::{Algebra, ByteDfaErrorKind};
    use std::time::{Duration, Instant};
    for pattern in [
        r"[ab]*a[ab]{20}",
        r"[ab]*a[ab]{20}\b",
        r"(?=[ab]*a[ab]{20})[ab]*",
    ] {
        let started = Instant::now();
        let e = fstc_regex::RegexBuilder::new()
            .state_limit(1 << 22)
            .deadline(Some(started + Duration::from_millis(200)))
            .build(pattern)
            .unwrap_err();
        assert_eq!(e.kind(), &RegexErrorKind::Deadline, "{pattern}: {e}");
        assert!(e.to_string().contains("deadline"), "{e}");
        assert!(started.elapsed() < Duration::from_secs(3), "{pattern}");
    }
    let ab = fstc_regex::byte_dfa("[ab]*", 100).unwrap();
    let nth = fstc_regex::byte_dfa("[ab]*a[ab]{20}", 100).unwrap_err();
    assert!(matches!(nth.kind(), RegexErrorKind::TooManyStates { .. }));
    // The reversal of `[ab]{20}a[ab]*` is the exponential `[ab]*a[ab]{20}`.
    let forward = fstc_regex::byte_dfa("[ab]{20}a[ab]*", 100).unwrap();
    let mut algebra = Algebra::new();
    algebra.state_limit(1 << 22).deadline(Some(Instant::now()));
    let e = algebra.reverse(&forward).unwrap_err();
    assert!(matches!(e.kind(), ByteDfaErrorKind::Deadline { .. }), "{e}");
    assert_eq!(e.operation(), Some("reversal"));
    let e = algebra.intersect(&ab, &forward).unwrap_err();
    assert!(matches!(e.kind(), ByteDfaErrorKind::Deadline { .. }), "{e}");
    // Without a deadline the same operations finish.
    algebra.deadline(None).state_limit(100);
    let both = algebra.intersect(&ab, &forward).unwrap();
    assert!(both.is_match("a".repeat(21).as_bytes()));
}

#[test]
fn deep_nesting_is_refused_by_the_parser() {
    for depth in [300, 100_000] {
        let pattern = format!("{}a{}", "(".repeat(depth), ")".repeat(depth));
        let e = on_small_stack(move || fstc_regex::byte_dfa(&pattern, 1000).unwrap_err());
        assert!(e.to_string().contains("nest"), "{e}");
    }
}

/// Pieces of hostile patterns: huge counts, wide classes, look-around, extensions.
fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(r"\w".to_string()),
        Just(r"[^a]".to_string()),
        Just(r"\p{L}".to_string()),
        Just("a".to_string()),
        Just("(?:".to_string()),
        Just("(".to_string()),
        Just(")".to_string()),
        Just("|".to_string()),
        Just("*".to_string()),
        Just("{0,65535}".to_string()),
        Just("{4294967295}".to_string()),
        Just("{99999999999999999999}".to_string()),
        Just(r"\b".to_string()),
        Just("(?=a)".to_string()),
        Just("(?<!b)".to_string()),
        Just("[".to_string()),
        Just(r"\".to_string()),
        (0u32..0x11_0000).prop_map(|c| char::from_u32(c).unwrap_or('x').to_string()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// Random hostile patterns under a small limit end in a DFA or an error.
    #[test]
    fn hostile_patterns_end_cleanly(
        pieces in prop::collection::vec(piece(), 0..24),
        limit in prop_oneof![0usize..10, Just(2_000usize)],
    ) {
        let pattern = pieces.concat();
        let outcome = on_small_stack(move || fstc_regex::byte_dfa(&pattern, limit).map(|_| ()));
        if let Err(e) = outcome {
            prop_assert!(!e.to_string().is_empty());
        }
    }
}

/// The compiler's deadline reaches into the composition with the vocabulary: the byte DFA
/// `[^"]{0,6000}` (48,001 states) composed with GPT-2 (88 ms in a release build under
/// load, 302 million token edges) stops one millisecond in, or at once when already past,
/// with the composition's own error; a memory limit far below its tables stops it too.
#[test]
fn the_deadline_and_memory_limit_reach_into_the_composition() {
    use fstc_core::compose::ComposeErrorKind;
    use fstc_core::vocab::VocabTrie;
    use fstc_regex::{BuildErrorKind, Config, RegexCompiler};
    use std::time::Duration;
    let vocab = fstc_detok::Vocabulary::from_file(testkit::vocabs::testdata("gpt2/encoder.json"))
        .expect("GPT-2 vocabulary");
    let trie = VocabTrie::new(&vocab);
    let dfa = fstc_regex::byte_dfa(r#"[^"]{0,6000}"#, 100_000).expect("byte DFA");
    let compose_kind = |config: Config| {
        let compiler = RegexCompiler::new().configure(config.token_edge_limit(usize::MAX));
        let e = compiler
            .compile_dfa_with_trie(&dfa, "the pattern", &trie)
            .unwrap_err();
        match e.kind() {
            BuildErrorKind::Compose { error, .. } => (error.kind(), e.to_string()),
            _ => panic!("not a composition error: {e}"),
        }
    };
    for budget in [Duration::ZERO, Duration::from_millis(1)] {
        let (kind, message) = compose_kind(Config::new().time_budget(budget));
        assert_eq!(kind, ComposeErrorKind::Deadline, "{message}");
        assert!(message.contains("time budget) while"), "{message}");
        assert!(
            message.contains("(time_budget, `--time-budget`)"),
            "{message}"
        );
    }
    let (kind, message) = compose_kind(Config::new().memory_budget(1 << 20));
    assert_eq!(kind, ComposeErrorKind::MemoryLimit, "{message}");
    assert!(
        message.contains("(memory_budget, `--memory-budget`)"),
        "{message}"
    );
    // The pattern's own byte DFA is built within the same deadline.
    let compiler = RegexCompiler::new().configure(Config::new().time_budget(Duration::ZERO));
    let e = compiler
        .compile_with_trie("[ab]*a[ab]{20}", &trie)
        .unwrap_err();
    assert!(
        matches!(e.kind(), BuildErrorKind::Regex(r) if r.kind() == &RegexErrorKind::Deadline),
        "{e}"
    );
}
