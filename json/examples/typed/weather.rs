//! The typed example's type and helpers, shared with its test (`json/tests/all/typed.rs`).

use fstc_core::automaton::TokenAutomaton;
use fstc_core::sample::{random_walk, SplitMix64};
use fstc_core::TokenVocabulary;
use fstc_detok::Vocabulary;
use fstc_json::{JsonSchemaCompiler, Whitespace};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What a weather tool returns. The bounds make the language finite (every string, list
/// and number bounded), so every random walk ends; without them the constraint is still
/// exact, walks just may run long.
#[derive(Debug, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct WeatherReport {
    /// City name.
    #[schemars(length(min = 1, max = 12))]
    pub city: String,
    /// Degrees Celsius.
    #[schemars(range(min = -60, max = 60))]
    pub temperature_c: i32,
    pub conditions: Conditions,
    /// Wind, when measured.
    pub wind: Option<Wind>,
    /// Active alerts.
    #[schemars(length(max = 2))]
    pub alerts: Vec<Alert>,
}

#[derive(Debug, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(rename_all = "snake_case")]
pub enum Conditions {
    Sunny,
    Cloudy,
    Rain,
    Snow,
}

#[derive(Debug, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Wind {
    #[schemars(range(max = 250))]
    pub speed_kmh: u16,
    #[schemars(length(min = 1, max = 3))]
    pub direction: String,
}

#[derive(Debug, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Alert {
    #[schemars(range(min = 1, max = 4))]
    pub level: u8,
    #[schemars(length(max = 16))]
    pub message: String,
}

/// The token automaton of `T`'s derived schema (flexible whitespace, the default).
pub fn compile_type<T: JsonSchema>(vocab: &Vocabulary) -> (String, TokenAutomaton) {
    let schema = serde_json::to_string_pretty(&schemars::schema_for!(T)).expect("a JSON value");
    let compiled = JsonSchemaCompiler::new()
        .whitespace(Whitespace::Flexible { max: 2 })
        .compile(&schema, vocab)
        .unwrap_or_else(|e| panic!("the derived schema does not compile: {e}\n{schema}"));
    assert!(compiled.warnings.is_empty(), "nothing may be left out");
    (schema, compiled.automaton)
}

/// A random walk of `automaton` from `seed`, decoded: the text a sampler could produce.
pub fn sample_text(automaton: &TokenAutomaton, vocab: &Vocabulary, seed: u64) -> String {
    let walk = random_walk(automaton, &mut SplitMix64::new(seed), 10_000);
    assert!(walk.complete, "a walk of a finite language ends with EOS");
    let bytes: Vec<u8> = walk
        .tokens
        .iter()
        .flat_map(|&t| vocab.token_bytes(t).expect("a text token").to_vec())
        .collect();
    String::from_utf8(bytes).expect("the automaton admits UTF-8 only")
}
