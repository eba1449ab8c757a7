//! The lazy compile of each spec against the eager one (`testkit::lockstep`): along random
//! walks and on the known texts under the tokenizer's own and random tokenizations, masks,
//! acceptance, EOS, forced tokens, validation and rollback agree (GPT-2 from testdata).

use std::sync::Arc;

use fstc_core::matcher::Matcher;
use fstc_core::sample::SplitMix64;
use fstc_core::vocab::VocabTrie;
use fstc_core::walker::OwnedWalker;
use fstc_detok::Vocabulary;
use testkit::lockstep;
use testkit::tokenize::Segmenter;
use testkit::vocabs::testdata;

use crate::differential::{cases, compiler, parse};

#[test]
fn lazy_and_eager_agree_step_by_step() {
    let vocab = Vocabulary::from_file(testdata("gpt2/encoder.json")).unwrap();
    let trie = Arc::new(VocabTrie::new(&vocab));
    let segmenter = Segmenter::new(&vocab);
    let mut rng = SplitMix64::new(29);
    for (i, case) in cases().into_iter().enumerate() {
        let tag = parse(&case);
        let eager = Arc::new(compiler().compile_with_trie(&tag, &trie).unwrap().automaton);
        let lazy = compiler()
            .compile_lazy(&tag, trie.clone())
            .unwrap()
            .automaton;
        let fresh_eager = || Box::new(OwnedWalker::new(eager.clone())) as Box<dyn Matcher>;
        let fresh_lazy = || Box::new(lazy.start_matcher()) as Box<dyn Matcher>;
        lockstep::random_walks(&fresh_eager, &fresh_lazy, trie.eos_ids(), 3, 40, i as u64);
        let texts = case
            .good
            .iter()
            .map(|t| (t, true))
            .chain(case.bad.iter().map(|t| (t, false)));
        for (text, expected) in texts {
            let mut tokenizations = vec![vocab.tokenize(text).unwrap()];
            tokenizations.extend(segmenter.segment(text.as_bytes(), &mut rng));
            for tokens in tokenizations {
                let accepted = lockstep::same_outcome(fresh_eager(), fresh_lazy(), &tokens, 5);
                assert_eq!(accepted, expected, "{}: {text:?}", case.name);
            }
        }
    }
}
