//! Byte automata: the one NFA type, the one determinizer, the canonical minimized
//! [`ByteDfa`] and the algebra over it (Koo et al.'s character automata A_R).
//!
//! Front ends build an [`Nfa`] (the regex crate from a pattern, the grammar crate from a
//! rule body); [`determinize`] runs the subset construction over byte classes (wildcard
//! terminals are extra alphabet symbols), and [`ByteDfa::minimal`] minimizes it and
//! numbers its states breadth-first, so equal languages give equal DFAs. [`Algebra`]
//! combines finished DFAs. The composition with a vocabulary reads any
//! [`ByteAutomaton`].

mod algebra;
mod automaton;
mod calls;
mod dfa;
mod error;
mod nfa;
mod subsets;
mod terminal;

pub use algebra::{Algebra, Universe};
pub use automaton::ByteAutomaton;
pub use calls::{CallNetwork, CallNetworkError, NetworkBuilder};
pub use dfa::{
    classes_from_boundaries, determinize, determinize_within, merge_classes, minimize,
    nfa_boundaries,
};
pub use error::{ByteDfaError, ByteDfaErrorKind};
pub use nfa::{Nfa, State};
pub use subsets::{Limits, StateKey, Subsets, TableDfa, MAX_SET_ENTRIES, MAX_TABLE_ENTRIES};
pub use terminal::TerminalKind;

use rustfst::fst_impls::VectorFst;
use rustfst::fst_traits::MutableFst;
use rustfst::semirings::{Semiring, TropicalWeight};
use rustfst::Tr;

use std::time::Instant;

use crate::deadline::{without_deadline, PastDeadline};
use crate::dot::escape_bytes;
use crate::labels::byte_label;

/// The transition-table entry for "no transition": the text can no longer match.
pub const DEAD: u32 = u32::MAX;

/// Default cap on byte-DFA states (counted before minimization, as they are created).
///
/// Realistic constraint patterns need tens to hundreds of states (with Unicode `\d` and
/// `\w`: an ISO-8601 timestamp ~480, an IPv4 address ~220, an identifier `[^\W\d]\w*`
/// ~380), while the composition with a 128k-token vocabulary costs time per DFA state and
/// the table costs up to 1 KiB per state. 10 000 leaves room for patterns twenty times
/// larger and stops blow-ups (`(a|b)*a(a|b){n}` needs 2^(n+1) states, `\w{100}` tens of
/// thousands) within tens of milliseconds and ~10 MB.
pub const DEFAULT_DFA_STATE_LIMIT: usize = 10_000;

/// UTF-8 decoder states: 0 at a character boundary, 1-3 that many continuation bytes
/// (80-BF) to go, 4-7 the restricted second byte after E0, ED, F0, F4.
pub fn utf8_next(state: u8, b: u8) -> Option<u8> {
    match (state, b) {
        (0, 0x00..=0x7F) => Some(0),
        (0, 0xC2..=0xDF) => Some(1),
        (0, 0xE0) => Some(4),
        (0, 0xE1..=0xEC | 0xEE..=0xEF) => Some(2),
        (0, 0xED) => Some(5),
        (0, 0xF0) => Some(6),
        (0, 0xF1..=0xF3) => Some(3),
        (0, 0xF4) => Some(7),
        (1..=3, 0x80..=0xBF) => Some(state - 1),
        (4, 0xA0..=0xBF) | (5, 0x80..=0x9F) => Some(1),
        (6, 0x90..=0xBF) | (7, 0x80..=0x8F) => Some(2),
        _ => None,
    }
}

/// A deterministic, minimized byte automaton without a dead state: a missing transition
/// means no continuation can match. The start state is 0; states are numbered
/// breadth-first from it (classes in order, then terminals), so equal languages give
/// equal DFAs.
///
/// Besides bytes, a DFA compiled from a pattern with wildcard extensions has terminal
/// edges ([`ByteDfa::terminals`], [`ByteDfa::next_terminal`]), each reading one whole
/// token of a set chosen when composing with a vocabulary.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ByteDfa {
    classes: [u8; 256],
    num_classes: usize,
    table: Vec<u32>,
    accepting: Vec<bool>,
    /// The terminals with at least one edge, in precedence order.
    terminals: Vec<TerminalKind>,
    /// `[state * terminals.len() + k]` → target of terminal `k`, or [`DEAD`].
    terminal_table: Vec<u32>,
}

impl ByteDfa {
    /// Splits a table DFA (columns: byte classes, then `kinds`) into byte and terminal
    /// tables, dropping terminal columns without edges.
    fn from_table(dfa: TableDfa, kinds: &[TerminalKind]) -> ByteDfa {
        let (k, w) = (dfa.num_classes, dfa.width());
        let n = dfa.accepting.len();
        let used: Vec<usize> = (k..w)
            .filter(|&c| (0..n).any(|s| dfa.table[s * w + c] != DEAD))
            .collect();
        let mut table = Vec::with_capacity(n * k);
        let mut terminal_table = Vec::with_capacity(n * used.len());
        for row in dfa.table.chunks(w) {
            table.extend_from_slice(&row[..k]);
            terminal_table.extend(used.iter().map(|&c| row[c]));
        }
        ByteDfa {
            classes: dfa.classes,
            num_classes: k,
            table,
            accepting: dfa.accepting,
            terminals: used.iter().map(|&c| kinds[c - k]).collect(),
            terminal_table,
        }
    }

    /// Minimizes a table DFA (classes merged before and after) into a `ByteDfa`: the
    /// one way every byte DFA is finished, so equal languages give equal DFAs.
    pub fn minimal(raw: TableDfa, kinds: &[TerminalKind]) -> ByteDfa {
        without_deadline(ByteDfa::minimal_before(raw, kinds, None))
    }

    /// [`ByteDfa::minimal`], giving up once `deadline` passes with an error of kind
    /// [`ByteDfaErrorKind::Deadline`]: minimizing a table of millions of states takes
    /// seconds after the subset construction that polled the same deadline.
    pub fn minimal_until(
        raw: TableDfa,
        kinds: &[TerminalKind],
        deadline: Option<Instant>,
    ) -> Result<ByteDfa, ByteDfaError> {
        let states = raw.accepting.len();
        ByteDfa::minimal_before(raw, kinds, deadline)
            .map_err(|PastDeadline| ByteDfaError::past_deadline(states))
    }

    fn minimal_before(
        raw: TableDfa,
        kinds: &[TerminalKind],
        deadline: Option<Instant>,
    ) -> Result<ByteDfa, PastDeadline> {
        let min = dfa::minimize_until(&dfa::merge_classes(raw), deadline)?;
        Ok(ByteDfa::from_table(dfa::merge_classes(min), kinds))
    }

    /// The class of each byte; bytes of one class have the same transitions everywhere.
    pub fn byte_classes(&self) -> &[u8; 256] {
        &self.classes
    }

    /// Number of byte classes (columns of [`ByteDfa::transitions`]).
    pub fn num_classes(&self) -> usize {
        self.num_classes
    }

    /// The table `[state * num_classes + class]` → target state, or [`DEAD`].
    pub fn transitions(&self) -> &[u32] {
        &self.table
    }

    /// Number of states (at least 1: the start state).
    pub fn num_states(&self) -> usize {
        self.accepting.len()
    }

    /// Number of byte-labelled transitions, i.e. arcs of [`ByteDfa::to_fst`] (a class of
    /// ten bytes counts ten).
    pub fn num_transitions(&self) -> usize {
        let mut width = vec![0usize; self.num_classes];
        for &c in &self.classes {
            width[c as usize] += 1;
        }
        self.table
            .iter()
            .enumerate()
            .filter(|(_, &t)| t != DEAD)
            .map(|(i, _)| width[i % self.num_classes])
            .sum()
    }

    /// The start state (always 0).
    pub fn start(&self) -> u32 {
        0
    }

    /// Whether `state` accepts (`false` for out-of-range states).
    pub fn is_accepting(&self, state: u32) -> bool {
        self.accepting.get(state as usize).copied().unwrap_or(false)
    }

    /// The state reached from `state` by `byte`, or `None` when nothing can match anymore.
    pub fn next(&self, state: u32, byte: u8) -> Option<u32> {
        let i = state as usize * self.num_classes + self.classes[byte as usize] as usize;
        match self.table.get(i) {
            Some(&t) if t != DEAD => Some(t),
            _ => None,
        }
    }

    /// The terminals on this DFA's edges, distinct and in precedence order; terminal `k`
    /// of [`ByteDfa::next_terminal`] (and of `ByteAutomaton`) is `terminals()[k]`. Empty
    /// for patterns without wildcard extensions.
    pub fn terminals(&self) -> &[TerminalKind] {
        &self.terminals
    }

    /// The state reached from `state` by terminal `k` (an index into
    /// [`ByteDfa::terminals`]), or `None`.
    pub fn next_terminal(&self, state: u32, k: usize) -> Option<u32> {
        let t = self.terminals.len();
        if k >= t {
            return None;
        }
        match self.terminal_table.get(state as usize * t + k) {
            Some(&s) if s != DEAD => Some(s),
            _ => None,
        }
    }

    /// Whether the whole of `text` matches the pattern, reading bytes only: a pattern with
    /// terminals matches here only the texts that need no terminal edge (a terminal reads
    /// a token, which only exists once the DFA is composed with a vocabulary).
    pub fn is_match(&self, text: &[u8]) -> bool {
        let mut s = self.start();
        for &b in text {
            match self.next(s, b) {
                Some(t) => s = t,
                None => return false,
            }
        }
        self.is_accepting(s)
    }

    /// The DFA as a rustfst acceptor: one arc per byte (label per [`crate::labels`]),
    /// weights one, states numbered as here. Terminal edges have no byte label and are
    /// left out.
    pub fn to_fst(&self) -> VectorFst<TropicalWeight> {
        let mut fst = VectorFst::new();
        fst.add_states(self.num_states());
        // Every state index below exists, so these calls cannot fail.
        fst.set_start(0).expect("state 0 exists");
        for s in 0..self.num_states() as u32 {
            if self.is_accepting(s) {
                fst.set_final(s, TropicalWeight::one())
                    .expect("state exists");
            }
            for b in 0..=255u8 {
                if let Some(t) = self.next(s, b) {
                    let l = byte_label(b);
                    fst.add_tr(s, Tr::new(l, l, TropicalWeight::one(), t))
                        .expect("state exists");
                }
            }
        }
        fst
    }

    /// Graphviz DOT; edges to one target are merged into one label of byte ranges
    /// (`[0-9]`, `a`, `\xC3`), listed by their lowest byte; then terminal edges, dashed
    /// and labelled by name (`<PARAGRAPH_TOKEN>`). Deterministic.
    pub fn to_dot(&self) -> String {
        let mut out = String::from(
            "digraph byte_dfa {\n  rankdir=LR;\n  node [shape=circle];\n  \
             start [shape=point, label=\"\"];\n  start -> 0;\n",
        );
        for s in 0..self.num_states() as u32 {
            if self.is_accepting(s) {
                out.push_str(&format!("  {s} [shape=doublecircle];\n"));
            } else {
                out.push_str(&format!("  {s};\n"));
            }
        }
        for s in 0..self.num_states() as u32 {
            // (target, bytes) in order of first byte.
            let mut groups: Vec<(u32, Vec<u8>)> = Vec::new();
            for b in 0..=255u8 {
                if let Some(t) = self.next(s, b) {
                    match groups.iter_mut().find(|(g, _)| *g == t) {
                        Some((_, bytes)) => bytes.push(b),
                        None => groups.push((t, vec![b])),
                    }
                }
            }
            for (t, bytes) in groups {
                out.push_str(&format!(
                    "  {s} -> {t} [label=\"{}\"];\n",
                    ranges_label(&bytes)
                ));
            }
            for (k, kind) in self.terminals.iter().enumerate() {
                if let Some(t) = self.next_terminal(s, k) {
                    out.push_str(&format!(
                        "  {s} -> {t} [label=\"<{}>\", style=dashed];\n",
                        kind.name()
                    ));
                }
            }
        }
        out.push_str("}\n");
        out
    }
}

/// A sorted byte set as a DOT label: one byte bare, otherwise a bracketed class.
fn ranges_label(bytes: &[u8]) -> String {
    if bytes.len() == 1 {
        return escape_bytes(bytes);
    }
    let esc = |b: u8| -> String {
        match b {
            // Class metacharacters get a backslash (itself escaped for DOT).
            b'-' | b'[' | b']' | b'^' => format!("\\\\{}", b as char),
            _ => escape_bytes(&[b]),
        }
    };
    let mut out = String::from("[");
    let mut i = 0;
    while i < bytes.len() {
        let lo = bytes[i];
        let mut j = i;
        while j + 1 < bytes.len() && bytes[j + 1] == bytes[j] + 1 {
            j += 1;
        }
        let hi = bytes[j];
        out.push_str(&esc(lo));
        if hi > lo {
            if hi > lo + 1 {
                out.push('-');
            }
            out.push_str(&esc(hi));
        }
        i = j + 1;
    }
    out.push(']');
    out
}

impl ByteAutomaton for ByteDfa {
    fn num_states(&self) -> usize {
        ByteDfa::num_states(self)
    }
    fn start(&self) -> u32 {
        ByteDfa::start(self)
    }
    fn is_accepting(&self, state: u32) -> bool {
        ByteDfa::is_accepting(self, state)
    }
    fn next(&self, state: u32, byte: u8) -> Option<u32> {
        ByteDfa::next(self, state, byte)
    }
    fn byte_classes(&self) -> Option<&[u8; 256]> {
        Some(ByteDfa::byte_classes(self))
    }
    fn class_table(&self) -> Option<&[u32]> {
        Some(&self.table)
    }
    fn num_terminals(&self) -> usize {
        self.terminals.len()
    }
    fn next_terminal(&self, state: u32, terminal: usize) -> Option<u32> {
        ByteDfa::next_terminal(self, state, terminal)
    }
}

impl ByteDfa {
    /// Every valid UTF-8 text: the UTF-8 decoder's states ([`utf8_next`]), minimized.
    fn utf8_texts() -> ByteDfa {
        let states = 8usize;
        let mut table = vec![DEAD; states * 256];
        for s in 0..states {
            for b in 0..=255u8 {
                if let Some(t) = utf8_next(s as u8, b) {
                    table[s * 256 + b as usize] = u32::from(t);
                }
            }
        }
        let mut classes = [0u8; 256];
        for (b, c) in classes.iter_mut().enumerate() {
            *c = b as u8;
        }
        let mut accepting = vec![false; states];
        accepting[0] = true;
        let raw = TableDfa {
            classes,
            num_classes: 256,
            num_terminals: 0,
            table,
            accepting,
        };
        ByteDfa::minimal(raw, &[])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Minimizing polls the deadline: one already past is the deadline's error naming the
    /// states made; without one the result is [`ByteDfa::minimal`]'s.
    #[test]
    fn minimal_until_stops_at_the_deadline() {
        // `a{0,2}` with one byte class.
        let raw = || TableDfa {
            classes: [0; 256],
            num_classes: 1,
            num_terminals: 0,
            table: vec![1, 2, DEAD],
            accepting: vec![true; 3],
        };
        let states = 3;
        let past = Some(Instant::now());
        let e = ByteDfa::minimal_until(raw(), &[], past).unwrap_err();
        assert_eq!(e.kind(), &ByteDfaErrorKind::Deadline { states });
        assert!(e.to_string().contains("deadline"), "{e}");
        let later = Instant::now().checked_add(std::time::Duration::from_secs(60));
        let done = ByteDfa::minimal_until(raw(), &[], later).unwrap();
        assert_eq!(done, ByteDfa::minimal(raw(), &[]));
    }

    #[test]
    fn range_labels_are_readable_classes() {
        assert_eq!(ranges_label(b"a"), "a");
        assert_eq!(ranges_label(b"0123456789"), "[0-9]");
        assert_eq!(ranges_label(b"ab"), "[ab]");
        assert_eq!(ranges_label(b"-09"), "[\\\\-09]");
        assert_eq!(ranges_label(&[0xC3]), "\\\\xC3");
        assert_eq!(
            ranges_label(&[0x80, 0x81, 0x82, 0xBF]),
            "[\\\\x80-\\\\x82\\\\xBF]"
        );
    }

    #[test]
    fn utf8_universe_is_exactly_the_valid_texts() {
        let u = ByteDfa::universe(Universe::Utf8);
        for text in ["", "a", "é", "中文", "\u{10FFFF}", "\u{1F600}x"] {
            assert!(u.is_match(text.as_bytes()), "{text:?}");
        }
        for bad in [
            &b"\xC0\x80"[..],
            b"\xED\xA0\x80",
            b"\xF4\x90\x80\x80",
            b"\xE4\xB8",
            b"\xFF",
        ] {
            assert!(!u.is_match(bad), "{bad:?}");
        }
    }
}
