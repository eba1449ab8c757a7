//! Wildcard terminals: the extra alphabet symbols of byte automata (Koo et al. §2.5.1).

/// A wildcard terminal: an automaton edge that reads one whole token from a set fixed
/// when the token automaton is built, instead of bytes (Koo et al. §2.5.1).
///
/// The derived order is the precedence order. When a sampled token could follow several
/// edges of one state, a normal token edge always wins; otherwise the first terminal in
/// this order (`Image`, then `ParagraphToken`, then `TextToken`) does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TerminalKind {
    /// `(?P<IMAGE>)`: any token of the image-token set configured when compiling.
    Image,
    /// `(?P<PARAGRAPH_TOKEN>)`: any text token whose bytes contain no `\n`.
    ParagraphToken,
    /// `(?P<TEXT_TOKEN>)`: any single text token.
    TextToken,
    /// `(?P<CALL>N)`: the language of machine `N` of a [`CallNetwork`](crate::bytes::CallNetwork),
    /// read as a call that returns here. Not a wildcard: only call networks read it, and
    /// composing a DFA with a call edge directly is refused.
    Call(u32),
}

impl TerminalKind {
    /// Every terminal, in precedence order.
    pub const ALL: [TerminalKind; 3] = [
        TerminalKind::Image,
        TerminalKind::ParagraphToken,
        TerminalKind::TextToken,
    ];

    /// The extension name that writes this terminal (`"PARAGRAPH_TOKEN"`).
    pub fn name(self) -> &'static str {
        match self {
            TerminalKind::Image => "IMAGE",
            TerminalKind::ParagraphToken => "PARAGRAPH_TOKEN",
            TerminalKind::TextToken => "TEXT_TOKEN",
            TerminalKind::Call(_) => "CALL",
        }
    }

    /// The machine a call terminal calls.
    pub fn callee(self) -> Option<u32> {
        match self {
            TerminalKind::Call(machine) => Some(machine),
            _ => None,
        }
    }

    /// The wildcard terminal an extension name stands for, if it is one.
    pub fn from_name(name: &str) -> Option<TerminalKind> {
        TerminalKind::ALL.into_iter().find(|t| t.name() == name)
    }
}
