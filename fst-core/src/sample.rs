//! Seeded random walks through token automata.
//!
//! `fstc sample` shows what a constraint admits, and the tests use random walks to
//! compare automata built different ways. Both need reproducible randomness without a
//! dependency, hence a small SplitMix64 generator.

use crate::automaton::TokenAutomaton;

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
/// edges plus one "stop" choice (EOS) when the state accepts. Stops, incomplete, after
/// `max_tokens` tokens.
pub fn random_walk<W: AsRef<[u32]>>(
    automaton: &TokenAutomaton<W>,
    rng: &mut SplitMix64,
    max_tokens: usize,
) -> RandomWalk {
    let mut tokens = Vec::new();
    let mut state = automaton.start();
    while tokens.len() < max_tokens {
        let (labels, targets) = automaton.edges(state);
        let choices = labels.len() as u64 + u64::from(automaton.is_accepting(state));
        if choices == 0 {
            break;
        }
        let pick = rng.below(choices) as usize;
        match (labels.get(pick), targets.get(pick)) {
            (Some(&token), Some(&target)) => {
                tokens.push(token);
                state = target;
            }
            _ => {
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
