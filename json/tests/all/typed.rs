//! The typed-constraint example (`examples/typed/`) as a test: a Rust type's derived
//! schema compiles, random walks of its token automaton parse back into the type with
//! serde, values the type serializes are accepted, and texts serde rejects are refused.

#[path = "../../examples/typed/weather.rs"]
mod example;

use example::{compile_type, sample_text, Alert, Conditions, WeatherReport, Wind};
use fstc_core::walker::Walker;
use fstc_detok::Vocabulary;
use testkit::vocabs::{shared_vocab, testdata_dir};

fn accepts_text(
    automaton: &fstc_core::automaton::TokenAutomaton,
    vocab: &Vocabulary,
    text: &str,
) -> bool {
    let tokens = vocab.tokenize(text).expect("the tokenizer spells it");
    let mut walker = Walker::new(automaton);
    walker.consume_tokens(&tokens).is_ok() && walker.is_accepting()
}

fn check(vocab: &Vocabulary, walks: u64) {
    let (schema, automaton) = compile_type::<WeatherReport>(vocab);
    for seed in 0..walks {
        let text = sample_text(&automaton, vocab, seed);
        if let Err(e) = serde_json::from_str::<WeatherReport>(&text) {
            panic!("walk {seed} gave {text:?}, which serde rejects: {e}\nschema: {schema}");
        }
    }
    let report = WeatherReport {
        city: "Zürich".into(),
        temperature_c: -7,
        conditions: Conditions::Snow,
        wind: Some(Wind {
            speed_kmh: 35,
            direction: "NNE".into(),
        }),
        alerts: vec![Alert {
            level: 2,
            message: "ice on \"roads\"".into(),
        }],
    };
    for text in [
        serde_json::to_string(&report).unwrap(),
        serde_json::to_string(&WeatherReport {
            wind: None,
            alerts: vec![],
            ..report
        })
        .unwrap(),
    ] {
        assert!(accepts_text(&automaton, vocab, &text), "{text} is refused");
    }
    // Each breaks the type: serde refuses them, and so must the automaton.
    for bad in [
        r#"{"city":"Oslo","temperature_c":3,"conditions":"fog","wind":null,"alerts":[]}"#,
        r#"{"city":"Oslo","temperature_c":61,"conditions":"rain","wind":null,"alerts":[]}"#,
        r#"{"city":"","temperature_c":3,"conditions":"rain","wind":null,"alerts":[]}"#,
        r#"{"city":"Oslo","temperature_c":3,"conditions":"rain","alerts":[],"extra":1}"#,
        r#"{"city":"Oslo","temperature_c":3,"conditions":"rain","wind":{"speed_kmh":-1,"direction":"N"},"alerts":[]}"#,
        r#"{"temperature_c":3,"conditions":"rain","wind":null,"alerts":[]}"#,
    ] {
        assert!(!accepts_text(&automaton, vocab, bad), "{bad} is accepted");
    }
}

#[test]
fn walks_of_a_derived_schema_parse_back_into_the_type_on_gpt2() {
    let vocab = Vocabulary::from_file(testdata_dir().join("gpt2/encoder.json")).unwrap();
    check(&vocab, 40);
}

#[test]
fn walks_of_a_derived_schema_parse_back_into_the_type_on_llama3_and_qwen3() {
    for rel in ["llama3/tokenizer.json", "qwen3/tokenizer.json"] {
        if let Some(vocab) = shared_vocab(rel) {
            check(&vocab, 20);
        }
    }
}
