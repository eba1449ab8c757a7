//! The eager compile in pieces (each tool body composed on its own, joined at token level)
//! against the one DFA of the whole text: equal languages give identical files, so the
//! pieces must give byte for byte the automaton the one DFA gives, on vocabularies whose
//! tokens cross every boundary (into a tag, out of it, through a whole tag) and on real
//! tokenizers. The oracle tests (`differential.rs`, `lazy.rs`) run through the pieces too.

use fstc_core::sample::SplitMix64;
use fstc_core::{ByteVocabulary, TokenVocabulary};
use fstc_detok::Vocabulary;
use fstc_tags::{Composition, StructuralTag};
use serde_json::{json, Value};
use testkit::vocabs::{shared_vocab, testdata};

use crate::differential::{
    accepts, cases, compiler, parse, split, straddling_vocabulary, texts, Case,
};
use crate::oracle;

/// Compiles `tag` both ways for `vocab`; whether the pieces were taken. Asserts the files
/// are identical.
fn same_both_ways<V: TokenVocabulary + ?Sized>(
    tag: &StructuralTag,
    vocab: &V,
    label: &str,
) -> bool {
    let whole = compiler()
        .composition(Composition::Whole)
        .compile(tag, vocab)
        .unwrap();
    // Each piece a batch of its own (2 entries: one state of one class), then the default.
    let pieces = || compiler().composition(Composition::Pieces);
    let single = pieces().batch_entries(2).compile(tag, vocab).unwrap();
    assert!(
        single.automaton.to_bytes() == whole.automaton.to_bytes(),
        "{label}: the automaton of one piece a batch differs from the one DFA's"
    );
    let auto = compiler().compile(tag, vocab).unwrap();
    assert!(
        auto.automaton.to_bytes() == whole.automaton.to_bytes(),
        "{label}: auto"
    );
    let pieces = pieces().compile(tag, vocab).unwrap();
    assert!(
        pieces.automaton.to_bytes() == whole.automaton.to_bytes(),
        "{label}: the pieces' automaton differs from the one DFA's ({} vs {} states)",
        pieces.automaton.num_states(),
        whole.automaton.num_states()
    );
    pieces.stats.count("pieces").is_some()
}

/// Small tools whose tags are short, so that tokens of a few bytes run through whole
/// tags: two share a body, one `begin` has two contents, the ends differ.
fn short_tags() -> Case {
    let spec = json!({"type": "structural_tag", "format": {"type": "triggered_tags",
    "triggers": ["<", "["],
    "tags": [
        {"begin": "<a", "content": {"type": "json_schema", "json_schema": {"type": "integer"}}, "end": ">"},
        {"begin": "<b", "content": {"type": "regex", "pattern": "[xy]*"}, "end": [">", "/>"]},
        {"begin": "<c", "content": {"type": "json_schema", "json_schema": {"type": "integer"}}, "end": ">"},
        {"begin": "[", "content": {"type": "json_schema", "json_schema": {"enum": ["p", "q"]}}, "end": "]"},
        {"begin": "[", "content": {"type": "const_string", "value": "r"}, "end": "]"}
    ]}});
    let good = [
        "",
        "text",
        "<a1>",
        "x<a12><by/>y",
        "<c3>[\"p\"]z[r]",
        "<bxy><a0><c7>",
        "no tags here, only text",
        "[\"q\"]",
    ];
    let bad = [
        "<", "<d>", "<a>", "<a1", "[s]", "x<", "<bz>", "[\"p\"", "<a1>>",
    ];
    Case {
        name: "short tags".into(),
        spec,
        good: good.iter().map(|s| s.to_string()).collect(),
        bad: bad.iter().map(|s| s.to_string()).collect(),
    }
}

#[test]
fn pieces_give_the_one_dfas_automaton_on_straddling_tokens() {
    let mut all = cases();
    all.push(short_tags());
    for case in &all {
        let mut rng = SplitMix64::new(29);
        let vocab = straddling_vocabulary(case, &mut rng);
        let taken = same_both_ways(&parse(case), &vocab, &case.name);
        // Every spec with a tag list takes the pieces, wherever the list stands (at the
        // root, in a sequence, an `or`, an `optional`, a `star`, a tag's content).
        let text = case.spec.to_string();
        let lists = text.contains("triggered_tags") || text.contains("tags_with_separator");
        assert_eq!(
            taken,
            lists || case.spec.get("structures").is_some(),
            "{}",
            case.name
        );
    }
}

#[test]
fn pieces_agree_with_the_oracle_on_tokens_through_whole_tags() {
    let case = short_tags();
    let tag = parse(&case);
    for seed in 0..4 {
        let mut rng = SplitMix64::new(seed);
        let vocab = straddling_vocabulary(&case, &mut rng);
        let ids: std::collections::HashMap<Vec<u8>, u32> = (0..vocab.len() as u32)
            .filter_map(|id| vocab.token_bytes(id).map(|b| (b.to_vec(), id)))
            .collect();
        let compiled = (compiler().composition(Composition::Pieces))
            .compile(&tag, &vocab)
            .unwrap();
        assert!(compiled.stats.count("pieces").is_some());
        let compiled = compiled.map(fstc_core::any::AnyAutomaton::Fsa);
        let mut through = 0;
        for text in texts(&case, seed, 150) {
            let expected = oracle::accepts(&case.spec, text.as_bytes());
            for _ in 0..3 {
                let tokens = split(text.as_bytes(), &ids, &mut rng);
                through += tokens.iter().filter(|&&t| spans_a_tag(&vocab, t)).count();
                assert_eq!(
                    accepts(&compiled.automaton, &tokens),
                    expected,
                    "{text:?} as {tokens:?}"
                );
            }
        }
        assert!(through > 20, "only {through} tokens spanned a whole tag");
    }
}

/// Whether token `t` holds a whole short tag's closing and a next opening (`>` then `<`
/// or `[`, or `]` then `<` or `[`): it leaves one body and enters another piece.
fn spans_a_tag(vocab: &ByteVocabulary, t: u32) -> bool {
    let bytes = vocab.token_bytes(t).unwrap_or(&[]);
    let close = bytes.iter().position(|&b| b == b'>' || b == b']');
    close.is_some_and(|i| bytes[i..].iter().any(|&b| b == b'<' || b == b'['))
}

/// `n` tools in the format of Qwen's chat template, with small realistic schemas, two
/// pairs of them with equal argument schemas.
pub fn qwen_tools(n: usize) -> Value {
    let tags: Vec<Value> = (0..n)
        .map(|i| {
            let schema = match i % 3 {
                0 => json!({"type": "object", "properties": {"city": {"type": "string"},
                    "unit": {"enum": ["celsius", "fahrenheit"]}}, "required": ["city"],
                    "additionalProperties": false}),
                1 => json!({"type": "object", "properties": {"query": {"type": "string"},
                    "limit": {"type": "integer", "minimum": 1, "maximum": 20 + i}},
                    "required": ["query"], "additionalProperties": false}),
                _ => json!({"type": "object", "properties": {"id": {"type": "integer"}},
                    "required": ["id"], "additionalProperties": false}),
            };
            json!({"begin": format!("<tool_call>\n{{\"name\": \"tool_{i}\", \"arguments\": "),
                   "content": {"type": "json_schema", "json_schema": schema},
                   "end": "}\n</tool_call>"})
        })
        .collect();
    json!({"type": "structural_tag", "format": {"type": "triggered_tags",
           "triggers": ["<tool_call>"], "tags": tags}})
}

#[test]
fn pieces_give_the_one_dfas_automaton_on_real_tokenizers() {
    let gpt2 = Vocabulary::from_file(testdata("gpt2/encoder.json")).unwrap();
    let mut vocabs = vec![("gpt2", gpt2)];
    for name in ["llama3/tokenizer.json", "qwen3/tokenizer.json"] {
        if let Some(v) = shared_vocab(name) {
            vocabs.push((name, v));
        }
    }
    let tools = StructuralTag::from_json(&qwen_tools(6).to_string()).unwrap();
    for (name, vocab) in &vocabs {
        assert!(same_both_ways(&tools, vocab, name));
        for case in cases() {
            same_both_ways(&parse(&case), vocab, &format!("{name} {}", case.name));
        }
    }
}

#[test]
fn what_the_pieces_do_not_fit_is_one_dfa() {
    // A `begin` that is a prefix of another: the state after it is both an exit and not.
    let spec = json!({"type": "triggered_tags", "triggers": ["<f"], "tags": [
        {"begin": "<f", "content": {"type": "const_string", "value": "1"}, "end": ">"},
        {"begin": "<fg", "content": {"type": "const_string", "value": "2"}, "end": ">"}]});
    let tag = StructuralTag::from_json(&spec.to_string()).unwrap();
    let vocab = ByteVocabulary::new((0u8..=255).map(|b| Some(vec![b])).collect(), vec![]);
    assert!(!same_both_ways(&tag, &vocab, "prefix begins"));
    // An end string a body may go on after.
    let spec = json!({"type": "triggered_tags", "triggers": ["<"], "tags": [
        {"begin": "<a>", "content": {"type": "regex", "pattern": "x(>y)?"}, "end": ">"}]});
    let tag = StructuralTag::from_json(&spec.to_string()).unwrap();
    assert!(!same_both_ways(&tag, &vocab, "open end"));
    // Free text that may hold a later list's `begin`: the state after it is in the text
    // and in the list at once.
    let b =
        json!({"begin": "<b>", "content": {"type": "const_string", "value": "x"}, "end": "</b>"});
    let spec = json!({"type": "sequence", "elements": [
        {"type": "triggered_tags", "triggers": ["@"], "tags": [
            {"begin": "@a", "content": {"type": "const_string", "value": "1"}, "end": ";"}]},
        {"type": "tags_with_separator", "separator": ",", "tags": [b]}]});
    let tag = StructuralTag::from_json(&spec.to_string()).unwrap();
    assert!(!same_both_ways(&tag, &vocab, "text holding a begin"));
    // A list read twice in a row: its hole returns to two states.
    let spec = json!({"type": "repeat", "min": 2, "max": 2, "content": {
        "type": "tags_with_separator", "separator": ",", "at_least_one": true,
        "stop_after_first": true, "tags": [b]}});
    let tag = StructuralTag::from_json(&spec.to_string()).unwrap();
    assert!(!same_both_ways(&tag, &vocab, "two returns"));
}

/// A body that two lists share returns to a different place after each: it is a piece
/// once per place, and the joined automaton is still the one DFA's.
#[test]
fn a_body_two_lists_share_is_a_piece_for_each_return() {
    let call = |begin: &str| {
        json!({"begin": begin, "content": {"type": "json_schema", "json_schema":
            {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"],
             "additionalProperties": false}}, "end": "</f>"})
    };
    let spec = json!({"type": "structural_tag", "format": {"type": "sequence", "elements": [
        {"type": "tag", "begin": "<plan>", "content": {"type": "tags_with_separator",
            "separator": "\n", "tags": [call("<f=a>"), call("<f=b>")]}, "end": "</plan>"},
        {"type": "triggered_tags", "triggers": ["<f="], "tags": [call("<f=a>"), call("<f=b>")]}]}});
    let tag = StructuralTag::from_json(&spec.to_string()).unwrap();
    let vocab = Vocabulary::from_file(testdata("gpt2/encoder.json")).unwrap();
    assert!(same_both_ways(&tag, &vocab, "shared body"));
    let pieces = (compiler().composition(Composition::Pieces))
        .compile(&tag, &vocab)
        .unwrap();
    // The dispatch, and the one body at its two returns.
    assert_eq!(pieces.stats.count("pieces"), Some(3));
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

    /// Mutated specs (of tests/specs and the short tags) compile in pieces to the one DFA's
    /// automaton, or give an error whose path points into the spec; never a panic.
    #[test]
    fn mutated_specs_give_the_same_automaton_in_pieces(seed in proptest::prelude::any::<u64>(), which in 0usize..64) {
        let mut all = cases();
        all.push(short_tags());
        // The specs whose root is `triggered_tags`, which the pieces are for.
        let triggered: Vec<&Case> = all.iter().filter(|c| c.spec.to_string().contains("triggered_tags") || c.spec.get("structures").is_some()).collect();
        let case = triggered[which % triggered.len()];
        let mut spec = case.spec.clone();
        let mut rng = SplitMix64::new(seed);
        let replacements = [
            json!("x"), json!("<a"), json!("</f>"), json!("}"), json!("a>"), json!(">"), json!(""),
            json!([">", "/>"]), json!({"type": "any_text"}), json!({"type": "const_string", "value": "<a"}),
            json!({"type": "regex", "pattern": "[<>]?x"}), json!({"type": "json_schema", "json_schema": {"type": "integer"}}),
        ];
        // Inside the tags (or the legacy structures), so that the root stays a dispatch.
        for _ in 0..1 + rng.below(3) {
            let tags = ["/format/tags", "/structures", "/tags"].iter().find_map(|p| spec.pointer(p).map(|_| *p));
            match tags {
                Some(p) => crate::errors::mutate_with(spec.pointer_mut(p).unwrap(), &mut rng, &replacements),
                None => crate::errors::mutate_with(&mut spec, &mut rng, &replacements),
            }
        }
        let Ok(tag) = StructuralTag::from_json(&spec.to_string()) else {
            return Ok(());
        };
        let vocab = straddling_vocabulary(case, &mut rng);
        let whole = compiler().composition(Composition::Whole).compile(&tag, &vocab);
        let pieces = compiler().composition(Composition::Pieces).batch_entries(64).compile(&tag, &vocab);
        match (&whole, &pieces) {
            (Ok(w), Ok(p)) => proptest::prop_assert!(
                w.automaton.to_bytes() == p.automaton.to_bytes(), "{}", spec),
            (Ok(_), Err(e)) => proptest::prop_assert!(false, "only the one DFA compiles {}: {}", spec, e),
            (Err(e), _) => proptest::prop_assert!(spec.pointer(e.path()).is_some(), "{} not in {}", e, spec),
        }
    }
}

/// The join of the pieces is held to the token edge limit as one composition is: at the
/// joined automaton's token edges it compiles, one below the error names the join and the
/// limit. Each tool's bounded string makes its body large, so every piece (one a batch)
/// has fewer token edges than the whole.
#[test]
fn the_join_keeps_the_token_edge_limit() {
    use fstc_json::Config;
    let vocab = Vocabulary::from_file(testdata("gpt2/encoder.json")).unwrap();
    let tags: Vec<Value> = (0..6)
        .map(|i| {
            json!({"begin": format!("<f={i}>"), "end": "</f>", "content": {"type": "json_schema",
                "json_schema": {"type": "object", "properties": {"q": {"type": "string",
                "maxLength": 12 + i}}, "required": ["q"], "additionalProperties": false}}})
        })
        .collect();
    let spec = json!({"type": "triggered_tags", "triggers": ["<f="], "tags": tags});
    let tools = StructuralTag::from_json(&spec.to_string()).unwrap();
    let pieces = |limit: Option<usize>| {
        let mut config = Config::new();
        if let Some(limit) = limit {
            config = config.token_edge_limit(limit);
        }
        let compiler = compiler()
            .configure(config)
            .composition(Composition::Pieces);
        compiler.batch_entries(2).compile(&tools, &vocab)
    };
    let joined = pieces(None)
        .unwrap()
        .stats
        .count("joined token edges")
        .unwrap();
    if let Err(e) = pieces(Some(joined)) {
        panic!("at {joined}: {e}");
    }
    let e = pieces(Some(joined - 1)).unwrap_err();
    assert!(
        e.message().contains("joining the pieces")
            && e.message()
                .contains(&format!("more than {} token edges", joined - 1))
            && e.message().contains("`token_edge_limit`"),
        "{e}"
    );
}
