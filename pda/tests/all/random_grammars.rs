//! Random small grammars: every one the checks accept must give a PDA that agrees with an
//! independent general context-free recognizer, and a token PDA that agrees with the PDA.
//! The ones they reject must be rejected with an error, never a panic or a hang.

use std::collections::HashMap;

use crate::earley::Earley;
use fstc_pda::gbnf::Rules;

use crate::common::{random_tokenization, run_tokens, Compiled};
use crate::unbounded_returns::pops_cycle;
use fstc_core::sample::SplitMix64;
use fstc_core::vocab::VocabTrie;
use fstc_core::{ByteVocabulary, TokenVocabulary};
use fstc_pda::{Grammar, GrammarCompiler, Pda, PdaErrorKind, Symbol};

pub(crate) fn random_grammar(rng: &mut SplitMix64) -> Grammar {
    let names = ["S", "A", "B", "C"];
    let n = 1 + rng.index(4);
    let mut g = Grammar::new("S");
    for name in &names[..n] {
        for _ in 0..1 + rng.index(3) {
            let rhs: Vec<Symbol> = (0..rng.index(4))
                .map(|_| {
                    if rng.index(2) == 0 {
                        Symbol::nt(names[rng.index(n)])
                    } else {
                        let len = rng.index(3);
                        Symbol::Lit((0..len).map(|_| b"abc"[rng.index(3)]).collect())
                    }
                })
                .collect();
            g.add_rule(name, &rhs);
        }
    }
    g
}

#[test]
fn accepted_random_grammars_agree_with_a_general_recognizer() {
    let mut rng = SplitMix64::new(2024);
    let vocab = ByteVocabulary::from_strs(&["a", "b", "c", "ab", "bc", "ca", "abc", "aa", "cc"]);
    let mut texts: Vec<Vec<u8>> = vec![Vec::new()];
    let mut frontier = texts.clone();
    for _ in 0..6 {
        frontier = frontier
            .iter()
            .flat_map(|t| b"abc".iter().map(move |&b| [t.as_slice(), &[b]].concat()))
            .collect();
        texts.extend(frontier.iter().cloned());
    }
    let mut accepted_grammars = 0;
    let mut nondeterministic = 0;
    let mut nontrivial = 0;
    // Grammars whose tokens may return through unboundedly many calls among them.
    let mut cyclic = 0;
    let mut kinds: HashMap<PdaErrorKind, usize> = HashMap::new();
    for _ in 0..3000 {
        let g = random_grammar(&mut rng);
        let pda = match Pda::from_grammar(&g) {
            Ok(pda) => pda,
            Err(e) => {
                *kinds.entry(e.kind()).or_default() += 1;
                continue;
            }
        };
        let parts = match GrammarCompiler::new().compose(&pda, &VocabTrie::new(&vocab)) {
            Ok(parts) => parts.automaton,
            Err(e) => {
                *kinds.entry(e.kind()).or_default() += 1;
                continue;
            }
        };
        accepted_grammars += 1;
        nondeterministic += usize::from(!pda.is_deterministic());
        cyclic += usize::from(pops_cycle(&parts));
        let tpda = Compiled::new(parts);
        // The oracle: the tests' Earley recognizer (general: left recursion and ambiguity
        // included; it shares no code with the compiler).
        let earley = Earley::new(&Rules::from_grammar(&g));
        let mut members = 0;
        for text in &texts {
            let expected = earley.accepts(text);
            members += usize::from(expected);
            assert_eq!(
                pda.accepts(text),
                expected,
                "{:?}\n{g}",
                String::from_utf8_lossy(text)
            );
            // One random tokenization per text.
            let ids = random_tokenization(&vocab, text, &mut rng);
            assert_eq!(
                run_tokens(&tpda, vocab.len() as u32, &ids),
                expected,
                "{:?} as {ids:?}\n{g}",
                String::from_utf8_lossy(text)
            );
        }
        // Grammars whose language over these texts is neither empty nor a single text.
        nontrivial += usize::from(members >= 2);
    }
    println!("accepted {accepted_grammars} grammars ({nontrivial} with several members, {nondeterministic} nondeterministic, {cyclic} with a cycle of pop edges); rejected: {kinds:?}");
    assert!(
        cyclic >= 50,
        "only {cyclic} grammars with a cycle of pop edges"
    );
    assert!(
        nondeterministic >= 100,
        "only {nondeterministic} nondeterministic grammars"
    );
    assert!(
        accepted_grammars >= 150,
        "only {accepted_grammars} grammars accepted"
    );
    assert!(
        nontrivial >= 100,
        "only {nontrivial} grammars with several members"
    );
    for kind in [PdaErrorKind::LeftRecursion, PdaErrorKind::NonProductive] {
        assert!(kinds.get(&kind).copied().unwrap_or(0) > 20, "{kinds:?}");
    }
}
