//! The byte automaton the composition (`compose`) consumes and `regex::ByteDfa` implements,
//! in a module of its own so that those two do not import each other.

/// A deterministic automaton over bytes, as the composition consumes it.
///
/// Missing transitions go to an implicit dead state. Implemented by
/// [`ByteDfa`](super::ByteDfa); tests may implement it by hand.
pub trait ByteAutomaton {
    /// Number of states; states are `0..num_states()`.
    fn num_states(&self) -> usize;
    /// The start state.
    fn start(&self) -> u32;
    /// Whether `state` accepts.
    fn is_accepting(&self, state: u32) -> bool;
    /// The state reached from `state` by `byte`, or `None` when the text can no longer match.
    fn next(&self, state: u32, byte: u8) -> Option<u32>;
    /// The class of each byte, if the automaton has them: bytes of one class must have the
    /// same transition from every state. Composition then walks a trie of class strings,
    /// far smaller than the vocabulary's, and treats tokens with one class string as one
    /// label. `None` (the default) means every byte is its own class.
    fn byte_classes(&self) -> Option<&[u8; 256]> {
        None
    }
    /// The transitions as a table `[state * c + class]` over [`byte_classes`]
    /// (`c` = number of classes; `u32::MAX` for none), if the automaton keeps one: read
    /// row by row instead of one [`next`] call per state and class. Default: `None`.
    ///
    /// [`byte_classes`]: ByteAutomaton::byte_classes
    /// [`next`]: ByteAutomaton::next
    fn class_table(&self) -> Option<&[u32]> {
        None
    }
    /// How many terminal labels the automaton has: edges that read one whole token from a
    /// precomputed set instead of bytes (Koo et al. §2.5.1). Terminal `k` becomes token
    /// automaton label `vocab_size + k`; a lower `k` has precedence. Default: none.
    fn num_terminals(&self) -> usize {
        0
    }
    /// The state reached from `state` by terminal `terminal` (`0..num_terminals()`), if any.
    /// Only followed at token boundaries, where a whole token is read.
    fn next_terminal(&self, _state: u32, _terminal: usize) -> Option<u32> {
        None
    }
}
