//! The regex compiler's time and memory budgets (issue 27): a pattern whose byte DFA
//! takes minutes or gigabytes under a limit the user raised ends in the budget's error,
//! naming the option, within the budget; the budgets' names and defaults are JSON
//! Schemas' and grammars'.

use std::time::{Duration, Instant};

use fstc_core::ByteVocabulary;
use fstc_regex::{BuildErrorKind, Config, Dialect, RegexCompiler, RegexErrorKind};
use proptest::prelude::*;

/// Every byte a token, and EOS.
fn bytes_vocab() -> ByteVocabulary {
    let tokens = (0..=255u8).map(|b| Some(vec![b])).chain([None]).collect();
    ByteVocabulary::new(tokens, vec![256])
}

/// The regex kind of a failed compile, if the pattern's byte DFA failed.
fn regex_kind(e: &fstc_regex::BuildError) -> Option<&RegexErrorKind> {
    match e.kind() {
        BuildErrorKind::Regex(r) => Some(r.kind()),
        _ => None,
    }
}

#[test]
fn the_budgets_default_to_those_of_json_schemas_and_grammars() {
    let config = Config::new();
    assert_eq!(config.get_time_budget(), Duration::from_secs(10));
    assert_eq!(config.get_memory_budget(), 1 << 30);
}

/// The pattern of issue 27 that ran past 150 s under `--dfa-state-limit 10000000` ends
/// in the time budget's error one budget in.
#[test]
fn a_raised_state_limit_ends_at_the_time_budget() {
    let compiler = RegexCompiler::new().configure(
        Config::new()
            .dialect(Dialect::EcmaScript)
            .dfa_state_limit(10_000_000)
            .time_budget(Duration::from_millis(500)),
    );
    let started = Instant::now();
    let e = compiler
        .compile(r"((?:([\s\S])?\b\p{L}){10,11})*", &bytes_vocab())
        .unwrap_err();
    assert_eq!(regex_kind(&e), Some(&RegexErrorKind::Deadline), "{e}");
    let message = e.to_string();
    assert!(
        message.contains("(time_budget, `--time-budget`)"),
        "{message}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
}

/// The byte DFA's construction counts its table and state sets against the memory budget
/// (2^19 states of `[ab]*a[ab]{18}` pass 1 MB long before the state limit), lazily too.
#[test]
fn the_memory_budget_bounds_the_byte_dfa() {
    let config = Config::new()
        .dfa_state_limit(1 << 21)
        .memory_budget(1_000_000);
    let compiler = RegexCompiler::new().configure(config);
    let e = compiler
        .compile("[ab]*a[ab]{18}", &bytes_vocab())
        .unwrap_err();
    assert_eq!(
        regex_kind(&e),
        Some(&RegexErrorKind::Memory { budget: 1_000_000 }),
        "{e}"
    );
    let message = e.to_string();
    assert!(
        message.contains("memory budget of 1000000 bytes"),
        "{message}"
    );
    assert!(
        message.contains("(memory_budget, `--memory-budget`)"),
        "{message}"
    );
    let trie = std::sync::Arc::new(fstc_core::vocab::VocabTrie::new(&bytes_vocab()));
    let lazy = compiler.compile_lazy("[ab]*a[ab]{18}", trie).unwrap_err();
    assert!(
        matches!(regex_kind(&lazy), Some(RegexErrorKind::Memory { .. })),
        "{lazy}"
    );
    // Within a budget that holds it, the same pattern compiles.
    let roomy = RegexCompiler::new().configure(Config::new().dfa_state_limit(1 << 21));
    assert!(roomy.compile("[ab]*a[ab]{10}", &bytes_vocab()).is_ok());
}

#[test]
fn the_budgets_are_options_by_name() {
    use fstc_core::options::OptionValue;
    let config = Config::new()
        .with_options(&[
            ("time_budget", OptionValue::Float(0.25)),
            ("memory_budget", OptionValue::Int(4096)),
        ])
        .unwrap();
    assert_eq!(config.get_time_budget(), Duration::from_millis(250));
    assert_eq!(config.get_memory_budget(), 4096);
    let e = Config::new()
        .with_options(&[("time_budget", OptionValue::Float(-1.0))])
        .unwrap_err();
    assert!(e.to_string().contains("time_budget"), "{e}");
    for old in ["deadline", "memory_limit"] {
        let e = Config::new()
            .with_options(&[(old, OptionValue::Int(1))])
            .unwrap_err();
        assert!(e.to_string().contains("time_budget"), "{old}: {e}");
    }
}

/// Pieces of patterns whose DFAs blow up, and of malformed ones.
fn piece() -> impl Strategy<Value = &'static str> {
    prop_oneof![
        Just(r"[ab]*a"),
        Just(r"[ab]"),
        Just(r"{0,30}"),
        Just(r"{18}"),
        Just(r"\b"),
        Just(r"\p{L}"),
        Just(r"[\s\S]?"),
        Just("(?:"),
        Just("("),
        Just(")"),
        Just("|"),
        Just("*"),
        Just("{4294967295}"),
        Just("(?=a)"),
        Just("["),
        Just("\\"),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Random (often malformed) patterns under a raised state limit and small random
    /// budgets end in an automaton or an error, a budget's naming its option, and never
    /// much past the time budget.
    #[test]
    fn random_patterns_end_within_their_budgets(
        pieces in prop::collection::vec(piece(), 0..12),
        ecma in any::<bool>(),
        millis in 0u64..200,
        memory in prop_oneof![0usize..100_000, Just(4_000_000usize)],
    ) {
        let pattern = pieces.concat();
        let dialect = if ecma { Dialect::EcmaScript } else { Dialect::Regex };
        let compiler = RegexCompiler::new().configure(
            Config::new()
                .dialect(dialect)
                .dfa_state_limit(10_000_000)
                .time_budget(Duration::from_millis(millis))
                .memory_budget(memory),
        );
        let started = Instant::now();
        let outcome = compiler.compile(&pattern, &bytes_vocab());
        // Minimization and the last state's expansion run after the last poll.
        prop_assert!(started.elapsed() < Duration::from_millis(millis) + Duration::from_secs(3));
        if let Err(e) = outcome {
            let message = e.to_string();
            let budget = matches!(
                regex_kind(&e),
                Some(RegexErrorKind::Deadline | RegexErrorKind::Memory { .. })
            );
            prop_assert!(!budget || message.contains("_budget, `--"), "{}", message);
        }
    }
}
