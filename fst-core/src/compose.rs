//! Composition of a byte automaton with a vocabulary: the fast path.

/// A deterministic automaton over bytes, as the composition consumes it.
///
/// Missing transitions go to an implicit dead state. Implemented by
/// `crate::regex::ByteDfa`; tests may implement it by hand.
pub trait ByteAutomaton {
    /// Number of states; states are `0..num_states()`.
    fn num_states(&self) -> usize;
    /// The start state.
    fn start(&self) -> u32;
    /// Whether `state` accepts.
    fn is_accepting(&self, state: u32) -> bool;
    /// The state reached from `state` by `byte`, or `None` when the text can no longer match.
    fn next(&self, state: u32, byte: u8) -> Option<u32>;
}
