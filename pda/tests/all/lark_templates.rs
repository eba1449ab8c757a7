//! Lark templates expanded within the limits a rule is read with (issue 27): an
//! expansion nested deeper than a rule may be written is refused on a 2 MiB stack, and
//! expansions are counted against the compile's memory and time budgets, naming the rule.

use std::time::Duration;

use fstc_core::ByteVocabulary;
use fstc_pda::{Config, GrammarCompiler, Pda, PdaErrorKind, Syntax};
use proptest::prelude::*;

use testkit::stack::on_small_stack;

/// `n` alternation groups around `inner`: each is an `Alt` of `Seq`s, two levels.
fn nested(n: usize, inner: &str) -> String {
    format!("{}{inner}{}", "(\"c\" | \"b\" ".repeat(n), ")".repeat(n))
}

/// A template whose body nests its parameter `n` groups deep, used with an argument
/// nested `n` groups deep: each reads within the 200-deep limit, the expansion does not
/// when `n` is 150.
fn deep_template(n: usize) -> String {
    format!(
        "start: t{{{}}}\nt{{x}}: {}\n",
        nested(n, "\"a\""),
        nested(n, "x")
    )
}

#[test]
fn an_expansion_nested_past_the_written_limit_is_refused() {
    let e = on_small_stack(|| Pda::from_text(&deep_template(150), Syntax::Lark).unwrap_err());
    let message = e.to_string();
    assert!(
        message.contains("rule `start` (line 1, column 1)")
            && message.contains("nested deeper than a rule may be written"),
        "{message}"
    );
    // Half as deep on each side expands within the limit, and means what it says.
    let pda = on_small_stack(|| Pda::from_text(&deep_template(90), Syntax::Lark).unwrap());
    let deepest = format!("{}a", "b".repeat(180));
    assert!(
        pda.accepts(deepest.as_bytes()),
        "the innermost \"a\" is reachable"
    );
    assert!(pda.accepts(b"c") && !pda.accepts(b"a"));
}

/// `d{x}: x x` nested 15 deep doubles 15 times: 2^15 copies of `"a"`.
fn doubling(n: usize) -> String {
    let mut arg = "\"a\"".to_string();
    for _ in 0..n {
        arg = format!("d{{{arg}}}");
    }
    format!("start: {arg}\nd{{x}}: x x\n")
}

fn compile(text: &str, config: Config) -> fstc_pda::PdaError {
    let tokens: Vec<Option<Vec<u8>>> = (0..=255u8).map(|b| Some(vec![b])).chain([None]).collect();
    let vocab = ByteVocabulary::new(tokens, vec![256]);
    GrammarCompiler::new()
        .configure(config.syntax(Syntax::Lark))
        .compile(text, &vocab)
        .map(|_| ())
        .unwrap_err()
}

#[test]
fn expansions_count_against_the_memory_and_time_budgets() {
    let e = compile(&doubling(15), Config::new().memory_budget(1_000_000));
    let message = e.to_string();
    assert_eq!(e.kind(), PdaErrorKind::MemoryBudget, "{message}");
    assert!(
        message.contains("while expanding the template uses of rule `start` (line 1, column 1)"),
        "{message}"
    );
    // Reading the short text polls the clock less often than expanding it does.
    let e = compile(&doubling(16), Config::new().time_budget(Duration::ZERO));
    let message = e.to_string();
    assert_eq!(e.kind(), PdaErrorKind::TimeBudget, "{message}");
    assert!(
        message.contains("while expanding the template uses of rule `start`"),
        "{message}"
    );
    assert!(
        message.contains("(time_budget, `--time-budget`)"),
        "{message}"
    );
}

/// Pieces of template definitions and uses, often malformed.
fn piece() -> impl Strategy<Value = &'static str> {
    prop_oneof![
        Just("start: "),
        Just("t{x}: "),
        Just("u{x, y}: "),
        Just("t{"),
        Just("u{"),
        Just("x"),
        Just("y"),
        Just("}"),
        Just(", "),
        Just("\"a\""),
        Just("(\"c\" | "),
        Just(")"),
        Just("*"),
        Just("\n"),
        Just("{2}"),
        Just("[x]"),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// Random template soup under small budgets ends in a PDA or an error on a 2 MiB
    /// stack; a budget's error names the option.
    #[test]
    fn random_templates_end_cleanly(
        pieces in prop::collection::vec(piece(), 0..40),
        memory in prop_oneof![0usize..200_000, Just(1usize << 30)],
    ) {
        let text = pieces.concat();
        let outcome = on_small_stack(move || {
            let config = Config::new()
                .time_budget(Duration::from_millis(500))
                .memory_budget(memory);
            let tokens: Vec<Option<Vec<u8>>> =
                (0..=255u8).map(|b| Some(vec![b])).chain([None]).collect();
            let vocab = ByteVocabulary::new(tokens, vec![256]);
            GrammarCompiler::new()
                .configure(config.syntax(Syntax::Lark))
                .compile(&text, &vocab)
                .map(|_| ())
                .map_err(|e| (e.kind(), e.to_string()))
        });
        if let Err((kind, message)) = outcome {
            let budget = matches!(kind, PdaErrorKind::MemoryBudget | PdaErrorKind::TimeBudget);
            prop_assert!(!budget || message.contains("_budget, `--"), "{}", message);
        }
    }
}
