//! The byte NFA every front end builds and the one determinizer reads.
//!
//! States live in one vector; their byte ranges and epsilon targets live in two shared
//! arenas so a state is a small `Copy` value and a 100 000-state NFA costs a few MB.

use super::TerminalKind;

/// One NFA state. Offsets index `Nfa::ranges` / `Nfa::targets`.
#[derive(Clone, Copy, Debug)]
pub enum State {
    /// Byte transitions `(lo, hi, target)`; may be several (a class trie node).
    Bytes { off: u32, len: u32 },
    /// Epsilon transitions to each target (alternation, repetition, fail when empty).
    Split { off: u32, len: u32 },
    /// Epsilon transition that holds only before the first byte (`^`, `\A`).
    Start(u32),
    /// Epsilon transition that holds only after the last byte (`$`, `\z`).
    End(u32),
    /// Epsilon transition that holds where the condition `Nfa::looks[id]` does (a word
    /// boundary, a line anchor, a look-around); resolved by the front end that made it.
    Look { id: u32, next: u32 },
    /// Reads extra alphabet symbol `terminals[symbol]` (a wildcard terminal of the regex
    /// front end, a rule call of the grammar one) and goes to `next`.
    Terminal { symbol: u32, next: u32 },
    /// The whole pattern matched here.
    Match,
}

/// A byte NFA with a single start state and a single `Match` state.
///
/// A plain data type: front ends fill it (the regex crate from a HIR) and
/// [`determinize`](super::dfa::determinize) reads it. `L` is what a `Look` state's id
/// indexes: conditions only the front end that made them can resolve (the regex front
/// end's look-around); NFAs without them use `()`. `S` names the extra alphabet symbols
/// read by `Terminal` states: wildcard terminals, or whatever else a front end reads
/// besides bytes (the grammar front end's rule calls).
#[derive(Debug)]
pub struct Nfa<L = (), S = TerminalKind> {
    pub states: Vec<State>,
    pub ranges: Vec<(u8, u8, u32)>,
    pub targets: Vec<u32>,
    pub start: u32,
    /// The extra alphabet symbols after the bytes, in column order (for wildcard
    /// terminals, precedence order); `State::Terminal { symbol }` reads `terminals[symbol]`.
    pub terminals: Vec<S>,
    /// The conditions of `Look` states; empty for most patterns.
    pub looks: Vec<L>,
}

impl<L, S> Nfa<L, S> {
    /// The byte transitions of state `s` (empty unless it is a `Bytes` state).
    pub fn byte_ranges(&self, s: u32) -> &[(u8, u8, u32)] {
        match self.states[s as usize] {
            State::Bytes { off, len } => &self.ranges[off as usize..(off + len) as usize],
            _ => &[],
        }
    }

    /// Whether a `Start` or `End` state (`^`, `$`, `\A`, `\z`) is present.
    pub fn has_anchors(&self) -> bool {
        self.states
            .iter()
            .any(|s| matches!(s, State::Start(_) | State::End(_)))
    }

    /// The epsilon targets of a `Split` state.
    pub fn split_targets(&self, off: u32, len: u32) -> &[u32] {
        &self.targets[off as usize..(off + len) as usize]
    }
}
