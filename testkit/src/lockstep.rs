//! Two matchers of one constraint driven in lockstep (the lazy one against the eager
//! walker): at every step the masks, acceptance, EOS, forced tokens, `validate_tokens`,
//! refusals and rollbacks must agree.

use fstc_core::matcher::Matcher;
use fstc_core::sample::SplitMix64;

use crate::masks::{mask_of, ones};

/// Everything observable at the current position agrees (`what` names the walk and step
/// in the failure): masks, acceptance, finish, forced tokens, and for a few probe
/// sequences (allowed tokens, then random ids) `validate_tokens` and single-token
/// `consume` results.
fn agree(a: &dyn Matcher, b: &dyn Matcher, rng: &mut SplitMix64, what: &str) {
    let mask = mask_of(a);
    let other = mask_of(b);
    if mask != other {
        let (x, y) = (ones(&mask), ones(&other));
        // Up to five tokens of `p` that `q` lacks.
        let only = |p: &[u32], q: &[u32]| -> Vec<u32> {
            p.iter()
                .filter(|t| !q.contains(t))
                .take(5)
                .copied()
                .collect()
        };
        let (only_a, only_b) = (only(&x, &y), only(&y, &x));
        panic!("{what}: masks differ: only first {only_a:?}, only second {only_b:?}");
    }
    assert_eq!(a.is_accepting(), b.is_accepting(), "{what}: is_accepting");
    assert_eq!(a.is_finished(), b.is_finished(), "{what}: is_finished");
    assert_eq!(a.num_consumed(), b.num_consumed(), "{what}: num_consumed");
    assert_eq!(
        a.forced_tokens(),
        b.forced_tokens(),
        "{what}: forced_tokens"
    );
    assert_eq!(
        a.only_eos_allowed(),
        b.only_eos_allowed(),
        "{what}: only_eos_allowed"
    );
    let allowed = ones(&mask);
    let vocab = u64::from(a.vocab_size());
    for _ in 0..4 {
        let probe: Vec<u32> = (0..4)
            .map(|i| match allowed.get(rng.index(allowed.len().max(1))) {
                Some(&t) if i < 2 => t,
                _ => rng.below(vocab + 2) as u32,
            })
            .collect();
        assert_eq!(
            a.validate_tokens(&probe),
            b.validate_tokens(&probe),
            "{what}: validate_tokens({probe:?})"
        );
        let t = probe[3];
        assert_eq!(a.is_allowed(t), b.is_allowed(t), "{what}: is_allowed({t})");
    }
}

/// Random walks of at most `max_steps` tokens through `a` and `b` (two matchers of one
/// constraint, fresh from `fresh_a` / `fresh_b`): each step picks an allowed token of
/// `a`'s mask (EOS with probability 1/4 where allowed), consumes it in both, and checks
/// that everything observable agrees; at the end a random rollback must agree too.
/// Returns the number of steps compared.
pub fn random_walks(
    fresh_a: &dyn Fn() -> Box<dyn Matcher>,
    fresh_b: &dyn Fn() -> Box<dyn Matcher>,
    eos: &[u32],
    walks: usize,
    max_steps: usize,
    seed: u64,
) -> usize {
    let mut rng = SplitMix64::new(seed);
    let mut steps = 0;
    for w in 0..walks {
        let (mut a, mut b) = (fresh_a(), fresh_b());
        for step in 0..max_steps {
            let what = format!("walk {w} step {step}");
            agree(&*a, &*b, &mut rng, &what);
            steps += 1;
            if a.is_finished() {
                break;
            }
            let allowed = ones(&mask_of(&*a));
            let eos_ok: Vec<u32> = allowed
                .iter()
                .filter(|t| eos.contains(t))
                .copied()
                .collect();
            let t = if !eos_ok.is_empty() && (rng.below(4) == 0 || eos_ok.len() == allowed.len()) {
                eos_ok[0]
            } else {
                let text: Vec<u32> = allowed
                    .iter()
                    .filter(|t| !eos.contains(t))
                    .copied()
                    .collect();
                if text.is_empty() {
                    break;
                }
                text[rng.index(text.len())]
            };
            a.consume(t).expect("a token of the mask");
            b.consume(t)
                .unwrap_or_else(|e| panic!("{what}: second refused {t}: {e}"));
        }
        let back = rng.index(a.num_consumed() + 1);
        a.rollback(back).unwrap();
        b.rollback(back).unwrap();
        agree(
            &*a,
            &*b,
            &mut rng,
            &format!("walk {w} after rollback({back})"),
        );
    }
    steps
}

/// Feeds `tokens` (e.g. a tokenization of a valid text) to fresh matchers from both and
/// checks they agree at every step and on the outcome; returns whether they accepted
/// all tokens and ended accepting.
pub fn same_outcome(
    mut a: Box<dyn Matcher>,
    mut b: Box<dyn Matcher>,
    tokens: &[u32],
    seed: u64,
) -> bool {
    let mut rng = SplitMix64::new(seed);
    for (i, &t) in tokens.iter().enumerate() {
        agree(&*a, &*b, &mut rng, &format!("token {i}"));
        let (x, y) = (a.consume(t), b.consume(t));
        assert_eq!(x.is_ok(), y.is_ok(), "token {i} ({t}): {x:?} vs {y:?}");
        if let (Err(x), Err(y)) = (&x, &y) {
            assert_eq!(x.kind(), y.kind(), "token {i} ({t})");
            return false;
        }
    }
    agree(&*a, &*b, &mut rng, "end");
    a.is_accepting()
}
