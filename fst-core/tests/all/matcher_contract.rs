//! The decoding-interface contract, written once against `fstc_core::matcher::Matcher` so
//! it runs on every implementation (the FSA walkers and the token PDA walkers): masks
//! of any width at least the vocabulary's, EOS exactly where accepting, nothing after EOS,
//! failed operations change nothing, rollback restores masks, validate is the prefix
//! consume accepts, forced tokens are the only choice.

use fstc_core::matcher::{MatchErrorKind, Matcher};
use fstc_core::sample::SplitMix64;
use testkit::masks::ones;

/// The mask of `m` at exactly the minimum width.
fn mask_of<M: Matcher>(m: &M) -> Vec<u32> {
    let mut mask = vec![0xa5a5_a5a5; m.mask_words()];
    m.fill_mask(&mut mask).unwrap();
    mask
}

fn bit(mask: &[u32], t: u32) -> bool {
    mask.get((t / 32) as usize)
        .is_some_and(|w| w & (1 << (t % 32)) != 0)
}

/// Mask widths: a narrower mask fails untouched, a wider one is the same mask padded
/// with zero words, and no bit past the vocabulary is set.
fn check_widths<M: Matcher>(m: &M) {
    let need = m.mask_words();
    let mask = mask_of(m);
    if need > 0 {
        let mut narrow = vec![0xdead_beef; need - 1];
        let e = m.fill_mask(&mut narrow).unwrap_err();
        assert_eq!(e.kind(), MatchErrorKind::MaskTooNarrow, "{e}");
        assert!(
            narrow.iter().all(|&w| w == 0xdead_beef),
            "narrow mask touched"
        );
    }
    let mut wide = vec![u32::MAX; need + 3];
    m.fill_mask(&mut wide).unwrap();
    assert_eq!(
        &wide[..need],
        &mask[..],
        "a wider mask starts with the mask"
    );
    assert!(
        wide[need..].iter().all(|&w| w == 0),
        "words past the vocabulary"
    );
    let vocab = m.vocab_size();
    assert!(
        ones(&mask).iter().all(|&t| t < vocab),
        "bits past vocab_size"
    );
}

/// Every token (and a few past the vocabulary): allowed by the mask exactly when
/// `is_allowed` and `consume` say so; a refused consume changes nothing; EOS ids are
/// allowed exactly where accepting.
fn check_tokens<M: Matcher + Clone>(m: &M, eos: &[u32]) {
    let mask = mask_of(m);
    let vocab = m.vocab_size();
    for t in (0..vocab).chain([vocab, vocab + 1, u32::MAX]) {
        let allowed = bit(&mask, t);
        assert_eq!(m.is_allowed(t), allowed, "is_allowed({t})");
        let mut c = m.clone();
        match c.consume(t) {
            Ok(()) => assert!(allowed, "consume({t}) accepted a token the mask refuses"),
            Err(e) => {
                assert!(
                    !allowed,
                    "consume({t}) refused a token the mask allows: {e}"
                );
                assert_eq!(c.num_consumed(), m.num_consumed());
                assert_eq!(mask_of(&c), mask, "a refused consume moved the matcher");
                if t >= vocab {
                    assert_eq!(e.kind(), MatchErrorKind::OutOfVocabulary, "{e}");
                }
            }
        }
    }
    let text = (0..vocab).any(|t| bit(&mask, t) && !eos.contains(&t));
    let any_eos = eos.iter().any(|&e| bit(&mask, e));
    assert_eq!(m.only_eos_allowed(), any_eos && !text, "only_eos_allowed");
    for &e in eos {
        assert_eq!(
            bit(&mask, e),
            m.is_accepting() && !m.is_finished(),
            "EOS {e}"
        );
    }
}

/// `validate_tokens` is the prefix `consume_tokens` accepts, and moves nothing;
/// `consume_tokens` is all or nothing.
fn check_validate<M: Matcher + Clone>(m: &M, seq: &[u32]) {
    let before = (m.num_consumed(), mask_of(m));
    let n = m.validate_tokens(seq);
    assert_eq!((m.num_consumed(), mask_of(m)), before, "validate moved");
    let mut c = m.clone();
    c.consume_tokens(&seq[..n]).unwrap();
    assert_eq!(c.num_consumed(), m.num_consumed() + n);
    if n < seq.len() {
        assert!(
            c.consume(seq[n]).is_err(),
            "validate stopped before an allowed token"
        );
        let mut all = m.clone();
        let e = all.consume_tokens(seq).unwrap_err();
        assert!(e.to_string().contains(&format!("tokens[{n}]")), "{e}");
        assert_eq!(
            (all.num_consumed(), mask_of(&all)),
            before,
            "partial consume"
        );
    }
}

/// Forced tokens are consumable, each the only token allowed where it is forced.
fn check_forced<M: Matcher + Clone>(m: &M) {
    let mut c = m.clone();
    for t in m.forced_tokens() {
        assert_eq!(
            ones(&mask_of(&c)),
            [t],
            "forced token {t} is not the only choice"
        );
        c.consume(t).unwrap();
    }
}

/// After EOS: finished, empty mask, every consume refused, nothing forced or valid;
/// rolling EOS back un-finishes.
fn check_finished<M: Matcher + Clone>(m: &M, before_eos: &[u32]) {
    assert!(m.is_finished() && m.is_accepting());
    assert!(mask_of(m).iter().all(|&w| w == 0), "mask after EOS");
    let mut c = m.clone();
    let e = c.consume(0).unwrap_err();
    assert_eq!(e.kind(), MatchErrorKind::Finished, "{e}");
    assert_eq!(m.validate_tokens(&[0, 1]), 0);
    assert!(m.forced_tokens().is_empty());
    c.rollback(1).unwrap();
    assert!(!c.is_finished());
    assert_eq!(mask_of(&c), before_eos, "rolling back EOS");
}

/// Random walks of a fresh matcher from `fresh`, checking the contract at every step.
/// `eos` are the EOS ids; `steps` bounds each walk.
pub fn check_contract<M: Matcher + Clone>(fresh: impl Fn() -> M, eos: &[u32], seed: u64) {
    let mut rng = SplitMix64::new(seed);
    let start_mask = mask_of(&fresh());
    for _ in 0..8 {
        let mut m = fresh();
        let mut masks = vec![mask_of(&m)];
        for _ in 0..24 {
            check_widths(&m);
            check_tokens(&m, eos);
            check_forced(&m);
            let allowed = ones(&mask_of(&m));
            let seq: Vec<u32> = (0..6)
                .map(|i| match allowed.get(rng.index(allowed.len().max(1))) {
                    Some(&t) if i < 3 => t,
                    _ => rng.below(u64::from(m.vocab_size()) + 2) as u32,
                })
                .collect();
            check_validate(&m, &seq);
            let e = m.clone().rollback(m.num_consumed() + 1).unwrap_err();
            assert_eq!(e.kind(), MatchErrorKind::RollbackTooFar, "{e}");
            let Some(&t) = allowed.get(rng.index(allowed.len().max(1))) else {
                break;
            };
            m.consume(t).unwrap();
            assert_eq!(m.num_consumed(), masks.len());
            // One step back and forth restores the mask.
            let mut back = m.clone();
            back.rollback(1).unwrap();
            assert_eq!(&mask_of(&back), masks.last().unwrap(), "rollback(1)");
            if m.is_finished() {
                assert!(eos.contains(&t));
                check_finished(&m, masks.last().unwrap());
                break;
            }
            masks.push(mask_of(&m));
        }
        // Rolling back any number of steps restores that step's mask.
        let k = rng.index(masks.len());
        let mut back = m.clone();
        back.rollback(m.num_consumed() - k).unwrap();
        assert_eq!(mask_of(&back), masks[k], "rollback to step {k}");
        m.reset();
        assert_eq!(m.num_consumed(), 0);
        assert!(!m.is_finished());
        assert_eq!(mask_of(&m), start_mask, "reset");
    }
}
