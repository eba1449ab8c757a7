//! Seeded random walks through token automata.
//!
//! `fstc sample` shows what a constraint admits, and the tests use random walks to
//! compare automata built different ways. Both need reproducible randomness without a
//! dependency, hence a small SplitMix64 generator.

use crate::automaton::TokenAutomaton;
use crate::matcher::Matcher;

/// The SplitMix64 generator: tiny, fast, and the same sequence on every platform for a
/// given seed. Not for cryptography.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator whose sequence is fixed by `seed`.
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64 { state: seed }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A uniform number in `0..n` (without modulo bias); 0 when `n` is 0.
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            return 0;
        }
        // Lemire's multiply-and-reject.
        let threshold = n.wrapping_neg() % n;
        loop {
            let m = u128::from(self.next_u64()) * u128::from(n);
            if (m as u64) >= threshold {
                return (m >> 64) as u64;
            }
        }
    }

    /// Uniform in `0..n` as a `usize`, for indices and sizes (0 when `n` is 0).
    pub fn index(&mut self, n: usize) -> usize {
        self.below(n as u64) as usize
    }
}

/// The outcome of [`random_walk`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RandomWalk {
    /// The tokens chosen, EOS not included.
    pub tokens: Vec<u32>,
    /// Whether the walk ended by choosing EOS in an accepting state (rather than hitting
    /// `max_tokens` or a state with no way out).
    pub complete: bool,
}

/// Walks from the start state choosing, at each step, uniformly among the state's token
/// edges, its terminal edges and one "stop" choice (EOS) when the state accepts; a
/// terminal edge then gives a random token of its mask that takes it. Stops, incomplete,
/// after `max_tokens` tokens.
pub fn random_walk<W: AsRef<[u32]>>(
    automaton: &TokenAutomaton<W>,
    rng: &mut SplitMix64,
    max_tokens: usize,
) -> RandomWalk {
    let mut tokens = Vec::new();
    let mut state = automaton.start();
    while tokens.len() < max_tokens {
        let num_tokens = automaton.num_token_edges(state);
        let terminals: Vec<(u32, u32)> = automaton.terminal_edges(state).collect();
        let choices =
            num_tokens as u64 + terminals.len() as u64 + u64::from(automaton.is_accepting(state));
        if choices == 0 {
            break;
        }
        let pick = rng.below(choices) as usize;
        let step = if pick < num_tokens {
            nth_token_edge(automaton, state, pick)
        } else {
            terminals.get(pick - num_tokens).and_then(|&(k, target)| {
                Some((terminal_token(automaton, state, k, target, rng)?, target))
            })
        };
        match step {
            Some((token, target)) => {
                tokens.push(token);
                state = target;
            }
            None if pick < num_tokens + terminals.len() => break,
            None => {
                return RandomWalk {
                    tokens,
                    complete: true,
                }
            }
        }
    }
    RandomWalk {
        tokens,
        complete: false,
    }
}

/// Walks any [`Matcher`] from where it is, choosing at each step uniformly among the
/// allowed text tokens and one "stop" choice (EOS) when EOS is allowed: how `fstc sample`
/// walks a token PDA, whose allowed set depends on the stack. Stops, incomplete, after
/// `max_tokens` tokens or where nothing is allowed. Allocates one mask.
pub fn random_matcher_walk(
    matcher: &mut dyn Matcher,
    eos_ids: &[u32],
    rng: &mut SplitMix64,
    max_tokens: usize,
) -> RandomWalk {
    let mut tokens = Vec::new();
    let mut mask = vec![0u32; matcher.mask_words()];
    while tokens.len() < max_tokens && matcher.fill_mask(&mut mask).is_ok() {
        let is_set = |t: u32| mask[(t / 32) as usize] & (1 << (t % 32)) != 0;
        let eos = eos_ids.iter().any(|&e| is_set(e));
        let text: Vec<u32> = (0..matcher.vocab_size())
            .filter(|&t| is_set(t) && !eos_ids.contains(&t))
            .collect();
        let pick = rng.index(text.len() + usize::from(eos));
        match text.get(pick) {
            Some(&t) if matcher.consume(t).is_ok() => tokens.push(t),
            Some(_) => break,
            None if eos => {
                return RandomWalk {
                    tokens,
                    complete: true,
                }
            }
            None => break,
        }
    }
    RandomWalk {
        tokens,
        complete: false,
    }
}

/// The `n`-th token edge of `state` in token order. A state with a dense mask finds it
/// in the mask (skipping EOS bits) instead of sorting its ~|V| tokens.
fn nth_token_edge<W: AsRef<[u32]>>(
    automaton: &TokenAutomaton<W>,
    state: u32,
    n: usize,
) -> Option<(u32, u32)> {
    let Some(mask) = automaton.dense_mask(state) else {
        return automaton.token_edges(state).get(n).copied();
    };
    let accepting = automaton.is_accepting(state);
    let mut left = n;
    for (i, &word) in mask.iter().enumerate() {
        let mut bits = word;
        if accepting {
            for &e in automaton.eos_ids() {
                if (e / 32) as usize == i {
                    bits &= !(1 << (e % 32));
                }
            }
        }
        let ones = bits.count_ones() as usize;
        if left >= ones {
            left -= ones;
            continue;
        }
        for _ in 0..left {
            bits &= bits - 1;
        }
        let token = i as u32 * 32 + bits.trailing_zeros();
        return Some((token, automaton.next_state(state, token)?));
    }
    None
}

/// A random token that `state` sends through terminal `k` to `target`: a uniform pick
/// among the mask's tokens, retried when a token edge or an earlier terminal takes it,
/// then the smallest such token.
fn terminal_token<W: AsRef<[u32]>>(
    automaton: &TokenAutomaton<W>,
    state: u32,
    k: u32,
    target: u32,
    rng: &mut SplitMix64,
) -> Option<u32> {
    let mask = automaton.terminal_mask(k)?;
    let count: u64 = mask.iter().map(|w| u64::from(w.count_ones())).sum();
    for _ in 0..64 {
        if count == 0 {
            break;
        }
        let mut nth = rng.below(count);
        for (i, &w) in mask.iter().enumerate() {
            let ones = u64::from(w.count_ones());
            if nth >= ones {
                nth -= ones;
                continue;
            }
            let mut bits = w;
            for _ in 0..nth {
                bits &= bits - 1;
            }
            let token = i as u32 * 32 + bits.trailing_zeros();
            if automaton.next_state(state, token) == Some(target)
                && !automaton.has_token_edge(state, token)
            {
                return Some(token);
            }
            break;
        }
    }
    automaton.terminal_witness(state, k)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix_matches_reference_values() {
        // First outputs for seed 1234567 from the reference implementation by Vigna.
        let mut r = SplitMix64::new(1_234_567);
        assert_eq!(r.next_u64(), 6_457_827_717_110_365_317);
        assert_eq!(r.next_u64(), 3_203_168_211_198_807_973);
        assert_eq!(r.next_u64(), 9_817_491_932_198_370_423);
    }

    #[test]
    fn below_stays_in_range_and_covers_it() {
        let mut r = SplitMix64::new(7);
        let mut seen = [0u32; 5];
        for _ in 0..1000 {
            let x = r.below(5);
            assert!(x < 5);
            seen[x as usize] += 1;
        }
        assert!(seen.iter().all(|&c| c > 150), "{seen:?}");
        assert_eq!(r.below(0), 0);
        assert_eq!(r.below(1), 0);
    }
}
