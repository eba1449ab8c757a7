//! A JSON grammar composed with GPT-2's real vocabulary (50k tokens). Skipped, with a
//! message, when the shared vocabularies are absent (`testkit::vocabs::shared_vocabs_dir`).

mod common;

use std::time::Instant;

use common::run_tokens;
use fst_core::sample::SplitMix64;
use fst_core::TokenVocabulary;
use pda::{compose, ComposeLimits, Grammar, Pda};
use testkit::vocabs::shared_vocab;

/// JSON values (no exponent or fraction), with optional spaces between tokens.
fn json_grammar() -> String {
    let mut chars: Vec<String> = (0x20u8..0x7f)
        .filter(|&b| b != b'"' && b != b'\\')
        .map(|b| format!("\"{}\"", b as char))
        .collect();
    chars.extend((0x80..=0xffu32).map(|b| format!("\"\\x{b:02X}\"")));
    format!(
        r#"
        V -> "[" W A | "{{" W O | "\"" C | "-" D N | D N | "true" | "false" | "null" ;
        A -> "]" | V W AM ;
        AM -> "]" | "," W V W AM ;
        O -> "}}" | "\"" C W ":" W V W OM ;
        OM -> "}}" | "," W "\"" C W ":" W V W OM ;
        C -> "\"" | X C ;
        X -> {} | "\\" E ;
        E -> "\"" | "\\" | "n" | "t" ;
        N -> "" | D N ;
        D -> "0" | "1" | "2" | "3" | "4" | "5" | "6" | "7" | "8" | "9" ;
        W -> "" | " " W ;
        "#,
        chars.join(" | ")
    )
}

#[test]
fn json_grammar_over_gpt2() {
    let Some(vocab) = shared_vocab("gpt2/encoder.json") else {
        return;
    };
    assert_eq!(vocab.eos_ids(), [50256]);
    let pda = Pda::from_grammar(&Grammar::parse(&json_grammar()).unwrap()).unwrap();
    let t0 = Instant::now();
    let tpda = compose(&pda, &vocab, &ComposeLimits::default()).unwrap();
    println!(
        "byte PDA: {} states, {} edges; token PDA: {} states, {} edges, composed in {:?}",
        pda.num_states(),
        pda.num_edges(),
        tpda.num_states(),
        tpda.num_edges(),
        t0.elapsed()
    );
    // Random walks over allowed tokens: every finished text is JSON the byte PDA accepts.
    let mut rng = SplitMix64::new(1);
    let eos = vocab.eos_ids()[0];
    let mut finished = 0;
    for _ in 0..200 {
        let (mut state, mut stack) = (tpda.start(), tpda.initial_stack());
        let mut text = Vec::new();
        let mut tokens = Vec::new();
        for _ in 0..40 {
            let allowed = tpda.allowed_tokens(state, &stack);
            assert!(!allowed.is_empty());
            // Prefer EOS now and then so that walks finish.
            let t = if allowed.contains(&eos) && rng.index(3) == 0 {
                eos
            } else {
                allowed[rng.index(allowed.len())]
            };
            state = tpda.step(state, &mut stack, t).unwrap();
            if t == eos {
                assert!(pda.accepts(&text), "{}", String::from_utf8_lossy(&text));
                assert!(run_tokens(&tpda, 0, &tokens));
                finished += 1;
                break;
            }
            tokens.push(t);
            text.extend_from_slice(vocab.token_bytes(t).unwrap());
        }
    }
    assert!(finished > 20, "{finished}");
    // A known document, tokenized greedily by longest match: accepted.
    let doc = br#"{"a": [1, -20, {"b\n": null}], "c": true}"#;
    let mut ids = Vec::new();
    let mut pos = 0;
    while pos < doc.len() {
        let id = (0..vocab.len() as u32)
            .filter(|&id| {
                vocab
                    .token_bytes(id)
                    .is_some_and(|t| doc[pos..].starts_with(t))
            })
            .max_by_key(|&id| vocab.token_bytes(id).unwrap().len())
            .unwrap();
        ids.push(id);
        pos += vocab.token_bytes(id).unwrap().len();
    }
    assert!(run_tokens(&tpda, 0, &ids));
    assert!(!run_tokens(&tpda, 0, &ids[..ids.len() - 1]));
}
