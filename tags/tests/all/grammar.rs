//! Structures with `grammar` pieces: one token PDA against the oracle (which checks the
//! bodies with the Earley recognizer), byte by byte, with tokens across every boundary,
//! and on real tokenizers; refusals and errors by path.

use fstc_core::any::AnyAutomaton;
use fstc_core::sample::SplitMix64;
use fstc_core::ByteVocabulary;
use fstc_detok::Vocabulary;
use fstc_tags::StructuralTag;
use proptest::prelude::*;
use serde_json::{json, Value};
use testkit::vocabs::{shared_vocab, testdata};

use crate::differential::{
    accepts, check_real_vocabulary, check_straddling, compiler, grammar_cases, parse, texts,
};
use crate::oracle;

/// Every byte a token of its own (id = byte), and EOS (256).
fn bytes_vocabulary() -> ByteVocabulary {
    let mut tokens: Vec<Option<Vec<u8>>> = (0u8..=255).map(|b| Some(vec![b])).collect();
    tokens.push(None);
    ByteVocabulary::new(tokens, vec![256])
}

fn byte_tokens(text: &str) -> Vec<u32> {
    text.bytes().map(u32::from).collect()
}

#[test]
fn a_structure_with_a_grammar_piece_is_one_token_pda() {
    for case in grammar_cases() {
        let compiled = compiler()
            .compile_any(&parse(&case), &bytes_vocabulary())
            .unwrap();
        let AnyAutomaton::Pda(pda) = &compiled.automaton else {
            panic!("{}: not a token PDA", case.name);
        };
        assert!(pda.num_stack_symbols() > 1, "{}: nothing pushes", case.name);
    }
}

#[test]
fn known_texts_byte_by_byte() {
    for case in grammar_cases() {
        let automaton = compiler()
            .compile_any(&parse(&case), &bytes_vocabulary())
            .unwrap()
            .automaton;
        for (texts, expected) in [(&case.good, true), (&case.bad, false)] {
            for text in texts {
                let what = format!("{}: {text:?}", case.name);
                assert_eq!(
                    oracle::accepts(&case.spec, text.as_bytes()),
                    expected,
                    "oracle, {what}"
                );
                assert_eq!(
                    accepts(&automaton, &byte_tokens(text)),
                    expected,
                    "PDA, {what}"
                );
            }
        }
    }
}

#[test]
fn generated_and_mutated_texts_byte_by_byte() {
    for case in grammar_cases() {
        let automaton = compiler()
            .compile_any(&parse(&case), &bytes_vocabulary())
            .unwrap()
            .automaton;
        let (mut members, mut others) = (0, 0);
        for text in texts(&case, 7, 300) {
            let expected = oracle::accepts(&case.spec, text.as_bytes());
            assert_eq!(
                accepts(&automaton, &byte_tokens(&text)),
                expected,
                "{}: {text:?}",
                case.name
            );
            members += usize::from(expected);
            others += usize::from(!expected);
        }
        assert!(
            members >= 40 && others >= 40,
            "{}: {members} members, {others} others",
            case.name
        );
    }
}

#[test]
fn tokens_across_boundaries_into_and_out_of_grammar_pieces() {
    for case in grammar_cases() {
        check_straddling(&case, 80);
    }
}

#[test]
fn gpt2_known_texts_and_walks_through_grammar_pieces() {
    let vocab = Vocabulary::from_file(testdata("gpt2/encoder.json")).unwrap();
    let finished = check_real_vocabulary(&vocab, "gpt2", grammar_cases());
    assert!(finished >= 10, "gpt2: only {finished} walks finished");
}

#[test]
fn llama3_and_qwen3_known_texts_and_walks_through_grammar_pieces() {
    for name in ["llama3/tokenizer.json", "qwen3/tokenizer.json"] {
        if let Some(vocab) = shared_vocab(name) {
            let finished = check_real_vocabulary(&vocab, name, grammar_cases());
            assert!(finished >= 10, "{name}: only {finished} walks finished");
        }
    }
}

#[test]
fn the_fsa_paths_refuse_a_grammar_piece_by_path() {
    let spec = json!({"type": "structural_tag", "format": {"type": "sequence", "elements": [
        {"type": "const_string", "value": "x="},
        {"type": "grammar", "grammar": "root ::= \"a\" root \"b\" | \"\""}]}});
    let tag = StructuralTag::from_value(&spec).unwrap();
    let e = compiler().byte_dfa(&tag).unwrap_err();
    assert_eq!(e.path(), "/format/elements/1", "{e}");
    assert!(e.message().contains("context-free"), "{e}");
    let e = compiler().compile(&tag, &bytes_vocabulary()).unwrap_err();
    assert_eq!(e.path(), "/format/elements/1", "{e}");
    let trie = std::sync::Arc::new(fstc_core::vocab::VocabTrie::new(&bytes_vocabulary()));
    let e = compiler().compile_lazy(&tag, trie).unwrap_err();
    assert_eq!(e.path(), "/format/elements/1", "{e}");
}

#[test]
fn grammar_errors_name_the_piece() {
    let piece = |grammar: &str, syntax: Option<&str>| {
        let mut g = json!({"type": "grammar", "grammar": grammar});
        if let Some(s) = syntax {
            g["syntax"] = json!(s);
        }
        json!({"type": "structural_tag", "format": {"type": "tag", "begin": "<g>",
               "content": g, "end": "</g>"}})
    };
    let cases = [
        (
            piece("root ::= (", None),
            "/format/content/grammar",
            "line 1",
        ),
        (
            piece("root ::= undefined", None),
            "/format/content/grammar",
            "undefined",
        ),
        (
            piece("start ::= \"a\"", None),
            "/format/content/grammar",
            "root",
        ),
        (
            piece("root ::= \"a\"", Some("yacc")),
            "/format/content/syntax",
            "yacc",
        ),
        (
            json!({"type": "grammar", "grammar": "root ::= \"a\"", "rules": []}),
            "/rules",
            "unknown field",
        ),
        (
            json!({"type": "sequence", "elements": [
                {"type": "any_text", "max_tokens": 3},
                {"type": "grammar", "grammar": "root ::= \"a\" root? \"b\""}]}),
            "/elements/0/max_tokens",
            "grammar",
        ),
    ];
    for (spec, path, words) in cases {
        let e = StructuralTag::from_value(&spec)
            .and_then(|tag| compiler().compile_any(&tag, &bytes_vocabulary()))
            .err()
            .unwrap_or_else(|| panic!("accepted: {spec}"));
        assert_eq!(e.path(), path, "{e}");
        assert!(e.to_string().contains(words), "{e}");
    }
}

#[test]
fn a_lark_piece_and_a_shared_piece() {
    // Lark (its regex terminal included), and one grammar used by two tags.
    let lark = "start: item+\nitem: WORD \" \"\nWORD: /[a-z]+/";
    let nested = "root ::= \"(\" root* \")\"";
    let spec = json!({"type": "triggered_tags", "triggers": ["<"], "tags": [
        {"begin": "<w>", "content": {"type": "grammar", "grammar": lark, "syntax": "lark"}, "end": "</w>"},
        {"begin": "<p>", "content": {"type": "grammar", "grammar": nested}, "end": "</p>"},
        {"begin": "<q>", "content": {"type": "grammar", "grammar": nested}, "end": "</q>"}]});
    let tag = StructuralTag::from_value(&spec).unwrap();
    let automaton = compiler()
        .compile_any(&tag, &bytes_vocabulary())
        .unwrap()
        .automaton;
    for (text, expected) in [
        ("say <w>ab cd </w> then <p>(()(()))</p><q>()</q>", true),
        ("<w>ab</w>", false),
        ("<w>Ab </w>", false),
        ("<p>(()</p>", false),
        ("<q>(()))</q>", false),
        ("a < b", false),
    ] {
        assert_eq!(
            accepts(&automaton, &byte_tokens(text)),
            expected,
            "{text:?}"
        );
    }
}

/// `v` with one random node (a string, number or object) replaced.
fn mutate(v: &mut Value, rng: &mut SplitMix64) {
    let replacements = [
        json!(null),
        json!("x"),
        json!(""),
        json!("root ::= root"),
        json!("root ::= \"(\" root"),
        json!({"type": "grammar", "grammar": "root ::= \"a\"*"}),
        json!({"type": "grammar"}),
        json!(7),
    ];
    crate::errors::mutate_with(v, rng, &replacements);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Mutated specs with grammar pieces compile or give an error whose path points into them.
    #[test]
    fn mutated_grammar_specs_give_errors_that_point_into_them(seed in any::<u64>(), which in 0usize..8) {
        let all = grammar_cases();
        let mut spec = all[which % all.len()].spec.clone();
        let mut rng = SplitMix64::new(seed);
        for _ in 0..1 + rng.below(2) {
            mutate(&mut spec, &mut rng);
        }
        let result = StructuralTag::from_value(&spec)
            .and_then(|tag| compiler().compile_any(&tag, &bytes_vocabulary()));
        if let Err(e) = result {
            prop_assert!(spec.pointer(e.path()).is_some(), "{} not in {}", e, spec);
            prop_assert!(!e.message().is_empty());
        }
    }
}

/// A piece without recursion is a byte DFA, as a `regex` is: the structure stays a token FSA
/// (its differential tests run with the regular specs, `tests/specs/grammar_arguments.json`),
/// lazily too, and token limits apply.
#[test]
fn a_regular_piece_keeps_the_token_fsa() {
    let piece = json!({"type": "grammar", "grammar": "root ::= [a-z]+ (\",\" [a-z]+)*"});
    let spec = json!({"type": "sequence", "elements": [
        {"type": "tag", "begin": "<l>", "end": "</l>", "content": piece, "max_tokens": 2}]});
    let tag = StructuralTag::from_value(&spec).unwrap();
    let vocab = bytes_vocabulary();
    let automaton = compiler().compile_any(&tag, &vocab).unwrap().automaton;
    assert!(matches!(automaton, AnyAutomaton::Fsa(_)));
    assert!(accepts(&automaton, &byte_tokens("<l>ab</l>")));
    assert!(
        !accepts(&automaton, &byte_tokens("<l>a,b</l>")),
        "3 tokens over 2"
    );
    let unlimited = json!({"type": "tag", "begin": "<l>", "end": "</l>", "content": piece});
    let tag = StructuralTag::from_value(&unlimited).unwrap();
    let trie = std::sync::Arc::new(fstc_core::vocab::VocabTrie::new(&vocab));
    let lazy = compiler().compile_lazy(&tag, trie).unwrap().automaton;
    let mut m = lazy.start_matcher();
    use fstc_core::matcher::Matcher;
    assert!(m.consume_tokens(&byte_tokens("<l>ab,c</l>")).is_ok() && m.is_accepting());
}

/// The token PDA's compile runs within the options' budgets as the token FSA's does: out
/// of time or memory, the error names the option and the phase it ran out in.
#[test]
fn the_token_pda_compile_ends_at_its_budgets_naming_the_phase() {
    use fstc_json::Config;
    let vocab = Vocabulary::from_file(testdata("gpt2/encoder.json")).unwrap();
    // No leaf automaton to build before the grammar compile: the budget runs out in it.
    let spec = json!({"type": "tag", "begin": "(", "end": ")", "content": {"type": "grammar",
        "grammar": "root ::= \"a\" root \"b\" | \"c\""}});
    let tag = StructuralTag::from_json(&spec.to_string()).unwrap();
    assert!(compiler().compile_any(&tag, &vocab).is_ok());
    let quick = Config::new().time_budget(std::time::Duration::ZERO);
    let e = (compiler().configure(quick).compile_any(&tag, &vocab)).unwrap_err();
    assert!(
        e.message()
            .contains("time budget of 0ns while building the token PDA (")
            && e.message().contains("`--time-budget`"),
        "{e}"
    );
    for case in grammar_cases() {
        let small = Config::new().memory_budget(1 << 16);
        let e = (compiler().configure(small))
            .compile_any(&parse(&case), &vocab)
            .unwrap_err();
        assert!(
            e.message()
                .contains("memory budget of 65536 bytes while building the token PDA (")
                && e.message().contains("`--memory-budget`"),
            "{}: {e}",
            case.name
        );
    }
}
