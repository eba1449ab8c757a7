//! The token automaton: a deterministic automaton over token ids.

/// A state number.
pub type StateId = u32;

/// The pieces of a token automaton, as a compiler produces them.
///
/// `TokenAutomaton::from_parts` checks them and lays them out in the word array that is
/// also the file format.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AutomatonParts {
    /// Number of token ids of the vocabulary (the minimum mask width).
    pub vocab_size: u32,
    /// `fingerprint` of the vocabulary the automaton was compiled for.
    pub vocab_fingerprint: u64,
    /// Ids that end generation; allowed exactly in accepting states.
    pub eos_ids: Vec<u32>,
    /// The start state.
    pub start: StateId,
    /// One flag per state.
    pub accepting: Vec<bool>,
    /// One list per state of `(token id, target state)`, at most one edge per token.
    pub edges: Vec<Vec<(u32, StateId)>>,
}
