//! The time and memory budgets of a grammar compile (issue 27): grammars built to explode —
//! a long bounded repetition, thousands of ambiguous alternatives, a 30,000-character
//! literal, a small rule whose token PDA has millions of token edges — end in
//! `TimeBudget` or `MemoryBudget` errors that name the option and the rule being built
//! with its line and column, long before they would finish (or run out of memory).

use std::time::{Duration, Instant};

use fstc_core::vocab::VocabTrie;
use fstc_core::ByteVocabulary;
use fstc_pda::{Config, GrammarCompiler, PdaErrorKind, Syntax};

/// Every string of one to three letters `a`–`z` (18,278 tokens) and EOS: each state of
/// `[a-z]{0,n}` has thousands of token edges.
fn letters() -> VocabTrie {
    let mut words = Vec::new();
    for a in b'a'..=b'z' {
        words.push(vec![a]);
        for b in b'a'..=b'z' {
            words.push(vec![a, b]);
            for c in b'a'..=b'z' {
                words.push(vec![a, b, c]);
            }
        }
    }
    let strs: Vec<&str> = words
        .iter()
        .map(|w| std::str::from_utf8(w).unwrap())
        .collect();
    VocabTrie::new(&ByteVocabulary::from_strs(&strs))
}

/// `n` rules, each a word then optionally the whole grammar again, as alternatives of
/// `root` (line 2; rule `r{i}` on line `i + 3`): one byte of lookahead decides nothing, and
/// the byte PDA and its composition grow faster than the rules (5,000 took over a minute
/// and 1.8 GB in release before the budget).
fn ambiguous_rules(n: usize) -> String {
    let alts: Vec<String> = (0..n).map(|i| format!("r{i}")).collect();
    let mut text = format!(
        "# {n} ambiguous alternatives\nroot ::= {}\n",
        alts.join(" | ")
    );
    for i in 0..n {
        text.push_str(&format!("r{i} ::= \"w{i}\" root?\n"));
    }
    text
}

fn compile(text: &str, trie: &VocabTrie, config: Config) -> (fstc_pda::PdaError, Duration) {
    let started = Instant::now();
    let e = GrammarCompiler::new()
        .configure(config)
        .compile_with_trie(text, trie)
        .map(|_| ())
        .unwrap_err();
    (e, started.elapsed())
}

/// A line and column of rule `name` in the message, e.g. "rule `r12` (line 15, column 1)".
fn names_a_rule_at(message: &str) -> bool {
    message.contains("rule `") && message.contains("(line ") && message.contains(", column ")
}

#[test]
fn a_long_repetition_stops_at_the_time_budget_naming_its_rule() {
    let text = "# letters\nroot ::= [a-z]{0,1000} [a-z]{0,1000}\n";
    let budget = Duration::from_millis(200);
    let (e, took) = compile(text, &letters(), Config::new().time_budget(budget));
    let message = e.to_string();
    assert_eq!(e.kind(), PdaErrorKind::TimeBudget, "{message}");
    assert!(
        message.contains("rule `root` (line 2, column 1)"),
        "{message}"
    );
    assert!(message.contains("time budget of 200ms"), "{message}");
    assert!(
        message.contains("(time_budget, `--time-budget`)"),
        "{message}"
    );
    // Unbudgeted it walks the vocabulary from 2,000 states for 36 million token edges
    // (5.7 s in the test profile); the budget stops it within a poll.
    assert!(took < Duration::from_secs(20), "{took:?}");
}

#[test]
fn ambiguous_alternatives_stop_at_the_time_budget_naming_a_rule() {
    let text = ambiguous_rules(4000);
    let (e, took) = compile(
        &text,
        &letters(),
        Config::new().time_budget(Duration::from_millis(500)),
    );
    let message = e.to_string();
    assert_eq!(e.kind(), PdaErrorKind::TimeBudget, "{message}");
    assert!(names_a_rule_at(&message), "{message}");
    assert!(took < Duration::from_secs(30), "{took:?}");
}

#[test]
fn ambiguous_alternatives_stop_at_the_memory_budget_naming_a_rule() {
    let text = ambiguous_rules(4000);
    let config = Config::new()
        .memory_budget(20 << 20)
        .time_budget(Duration::from_secs(600));
    let (e, _) = compile(&text, &letters(), config);
    let message = e.to_string();
    assert_eq!(e.kind(), PdaErrorKind::MemoryBudget, "{message}");
    assert!(names_a_rule_at(&message), "{message}");
    assert!(
        message.contains("memory budget of 20971520 bytes"),
        "{message}"
    );
    assert!(
        message.contains("(memory_budget, `--memory-budget`)"),
        "{message}"
    );
}

/// The DFA of a 30,000-character literal is charged before anything is built from it.
#[test]
fn a_long_literal_stops_at_the_memory_budget_naming_its_rule() {
    let text = format!("root ::= \"{}\"\n", "ab".repeat(15_000));
    let (e, _) = compile(&text, &letters(), Config::new().memory_budget(100_000));
    let message = e.to_string();
    assert_eq!(e.kind(), PdaErrorKind::MemoryBudget, "{message}");
    assert!(
        message.contains("while building the DFA of rule `root` (line 1, column 1)"),
        "{message}"
    );
}

/// A 300-state rule whose token PDA has 5 million token edges: the walk's tables are
/// counted as they grow, and the error names the state being composed and its rule.
#[test]
fn the_vocabulary_walk_stops_at_the_memory_budget() {
    let text = "\nroot ::= [a-z]{0,300}\n";
    let config = Config::new()
        .memory_budget(16 << 20)
        .time_budget(Duration::from_secs(600));
    let (e, _) = compile(text, &letters(), config);
    let message = e.to_string();
    assert_eq!(e.kind(), PdaErrorKind::MemoryBudget, "{message}");
    assert!(message.contains("while composing `root: "), "{message}");
    assert!(
        message.contains("in rule `root` (line 2, column 1) with the vocabulary"),
        "{message}"
    );
}

/// Within its budgets the same grammar compiles, and the budgets change nothing in it.
#[test]
fn budgets_that_suffice_change_nothing() {
    let trie = letters();
    let text = "root ::= [a-z]{0,3} (\",\" root)?\n";
    let compile = |config: Config| {
        GrammarCompiler::new()
            .configure(config)
            .compile_with_trie(text, &trie)
            .unwrap()
            .automaton
            .to_bytes()
    };
    let roomy = Config::new()
        .time_budget(Duration::from_secs(600))
        .memory_budget(1 << 40);
    assert_eq!(compile(Config::new()), compile(roomy));
}

/// A rule of `items` items in each syntax, starting on line 2 (`root`, or Lark's `start`).
fn long_rule(syntax: Syntax, items: usize) -> String {
    let body = "\"a\" ".repeat(items);
    match syntax {
        Syntax::Lark => format!("// {items} items\nstart: {body}\n"),
        _ => format!("# {items} items\nroot ::= {body}\n"),
    }
}

fn compile_in(syntax: Syntax, text: &str, config: Config) -> fstc_pda::PdaError {
    compile(text, &letters(), config.syntax(syntax)).0
}

/// A text of a few megabytes holds far more once read: the rules are counted as they are
/// read, and the error names the rule being read.
#[test]
fn reading_stops_at_the_memory_budget_naming_the_rule_in_every_syntax() {
    for (syntax, rule) in [
        (Syntax::Gbnf, "rule `root` (line 2, column 1)"),
        (Syntax::Ebnf, "rule `root` (line 2, column 1)"),
        (Syntax::Lark, "rule `start` (line 2, column 1)"),
    ] {
        let text = long_rule(syntax, 100_000);
        let e = compile_in(syntax, &text, Config::new().memory_budget(1 << 20));
        let message = e.to_string();
        assert_eq!(e.kind(), PdaErrorKind::MemoryBudget, "{message}");
        assert!(
            message.contains(&format!("while reading {rule}")),
            "{message}"
        );
    }
}

/// The time budget is polled while the text is read, not only once it is: with no time at
/// all, the first poll (after a few thousand items) names the rule being read.
#[test]
fn reading_stops_at_the_time_budget_inside_the_text_in_every_syntax() {
    for (syntax, rule) in [
        (Syntax::Gbnf, "rule `root` (line 2, column 1)"),
        (Syntax::Ebnf, "rule `root` (line 2, column 1)"),
        (Syntax::Lark, "rule `start` (line 2, column 1)"),
    ] {
        let text = long_rule(syntax, 10_000);
        let e = compile_in(syntax, &text, Config::new().time_budget(Duration::ZERO));
        let message = e.to_string();
        assert_eq!(e.kind(), PdaErrorKind::TimeBudget, "{message}");
        assert!(
            message.contains(&format!("while reading {rule}")),
            "{message}"
        );
    }
}

/// A Lark regex terminal is built under the compile's deadline (the subset construction
/// checks it at each state), and its DFA is counted against the memory budget.
#[test]
fn lark_regex_terminals_are_built_within_the_budgets() {
    let slow = "start: T\nT: /[ab]*a[ab]{12}/\n";
    let e = compile_in(
        Syntax::Lark,
        slow,
        Config::new().time_budget(Duration::ZERO),
    );
    let message = e.to_string();
    assert_eq!(e.kind(), PdaErrorKind::TimeBudget, "{message}");
    assert!(
        message.contains("while reading rule `T` (line 2, column 1)"),
        "{message}"
    );
    // Each a DFA of 2,501 states over 63 byte classes (about 630 KB).
    let word: String = ('a'..='z').chain('A'..='Z').chain('0'..='9').collect();
    let long = word.repeat(41)[..2500].to_string();
    let big = format!("start: T0 | T1\nT0: /{long}/\nT1: /{long}/\n");
    let e = compile_in(Syntax::Lark, &big, Config::new().memory_budget(1 << 20));
    let message = e.to_string();
    assert_eq!(e.kind(), PdaErrorKind::MemoryBudget, "{message}");
    assert!(
        message.contains("while reading rule `T1` (line 3, column 1)"),
        "{message}"
    );
    let roomy = Config::new().syntax(Syntax::Lark).memory_budget(1 << 24);
    assert!(GrammarCompiler::new()
        .configure(roomy)
        .compile_with_trie(&big, &letters())
        .is_ok());
}

/// Rules built by a program (not read from text, so not counted while read) are charged
/// for the copy of their bodies the RTN rewrites before it is made: a grammar of 20,000
/// rules under a 1 MB budget ends in the budget's error naming that copy; a roomy budget
/// compiles it.
#[test]
fn the_rtn_copy_of_built_rules_counts_against_the_memory_budget() {
    use fstc_pda::gbnf::{Expr, RuleDef, Rules};
    let n = 20_000;
    let mut rules = vec![RuleDef {
        name: "root".into(),
        at: None,
        body: Expr::Alt((0..n).map(|i| Expr::Ref(format!("r{i}"), None)).collect()),
    }];
    rules.extend((0..n).map(|i| RuleDef {
        name: format!("r{i}"),
        at: None,
        body: Expr::Seq(vec![Expr::Bytes(b"ab".to_vec()); 4]),
    }));
    let rules = Rules {
        start: "root".into(),
        rules,
    };
    let trie = letters();
    let compile = |bytes: usize| {
        GrammarCompiler::new()
            .configure(Config::new().memory_budget(bytes))
            .compile_rules_with_trie(&rules, &trie)
            .map(|_| ())
    };
    let e = compile(1_000_000).unwrap_err();
    assert_eq!(e.kind(), PdaErrorKind::MemoryBudget, "{e}");
    assert!(
        e.to_string()
            .contains("while copying the grammar's rules to rewrite them"),
        "{e}"
    );
    assert!(compile(1 << 30).is_ok());
}
