//! Joint token classes of several token automata: the coarsest partition of the tokens
//! that every operand's class partition and terminal masks refine, so a product steps by
//! class, never by token.
//!
//! A token's move in an automaton depends only on its class (or having none) and on the
//! terminal masks holding it, so tokens agreeing on those for every operand move alike
//! in every product state. The partition is [`Columns`] over one row per operand's
//! classes and one per terminal mask: a token's column is exactly that record.

use crate::automaton::{StateId, TokenAutomaton, NO_CLASS};
use crate::parts::columns::Columns;

/// No state: the operand has no move (or is past one it had not).
pub(crate) const DEAD: StateId = StateId::MAX;

/// The joint classes of some operands, numbered by smallest token.
pub(crate) struct JointClasses {
    /// The joint class of each token id, [`NO_CLASS`] for tokens no operand reads.
    pub(crate) class_of: Vec<u32>,
    /// The smallest token of each joint class: it moves as every token of its class.
    pub(crate) first: Vec<u32>,
}

impl JointClasses {
    /// The joint classes of `a` and `b` (over one vocabulary).
    pub(crate) fn of<A: AsRef<[u32]>, B: AsRef<[u32]>>(
        a: &TokenAutomaton<A>,
        b: &TokenAutomaton<B>,
    ) -> JointClasses {
        let mut rows: Vec<Vec<(u32, u32)>> = Vec::new();
        push_rows(a, &mut rows);
        push_rows(b, &mut rows);
        JointClasses::group(a.vocab_size(), &rows)
    }

    /// The joint classes of a token PDA's class map (`class_of_token`, [`NO_CLASS`] for
    /// none) and the token FSA `b`.
    pub(crate) fn of_class_map<B: AsRef<[u32]>>(
        class_of_token: &[u32],
        b: &TokenAutomaton<B>,
    ) -> JointClasses {
        let pda_row = (class_of_token.iter().enumerate())
            .filter(|&(_, &c)| c != NO_CLASS)
            .map(|(t, &c)| (t as u32, c))
            .collect();
        let mut rows = vec![pda_row];
        push_rows(b, &mut rows);
        JointClasses::group(b.vocab_size(), &rows)
    }

    /// The classes of one automaton with its terminal masks split off (what projection
    /// needs: every joint class moves by one edge).
    pub(crate) fn single<W: AsRef<[u32]>>(a: &TokenAutomaton<W>) -> JointClasses {
        let mut rows = Vec::new();
        push_rows(a, &mut rows);
        JointClasses::group(a.vocab_size(), &rows)
    }

    fn group(vocab_size: u32, rows: &[Vec<(u32, u32)>]) -> JointClasses {
        let columns = Columns::group(vocab_size as usize, rows);
        JointClasses {
            class_of: columns.class_of,
            first: columns.first,
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.first.len()
    }

    /// The tokens of each joint class, ascending: `(start, tokens)` with class `c`'s
    /// tokens at `tokens[start[c]..start[c + 1]]`.
    pub(crate) fn tokens(&self) -> (Vec<u32>, Vec<u32>) {
        let mut start = vec![0u32; self.len() + 1];
        for &c in self.class_of.iter().filter(|&&c| c != NO_CLASS) {
            start[c as usize + 1] += 1;
        }
        for c in 0..self.len() {
            start[c + 1] += start[c];
        }
        let mut fill = start.clone();
        let mut tokens = vec![0u32; start[self.len()] as usize];
        for (t, &c) in self.class_of.iter().enumerate() {
            if c != NO_CLASS {
                tokens[fill[c as usize] as usize] = t as u32;
                fill[c as usize] += 1;
            }
        }
        (start, tokens)
    }
}

/// One row per class assignment and per terminal mask of `a`: a token's column over
/// them is its class and the terminals holding it.
fn push_rows<W: AsRef<[u32]>>(a: &TokenAutomaton<W>, rows: &mut Vec<Vec<(u32, u32)>>) {
    let classes = (0..a.num_classes())
        .flat_map(|c| a.class_tokens(c).map(move |t| (t, c)))
        .collect();
    rows.push(classes);
    for k in 0..a.num_terminals() {
        let mask = a.terminal_mask(k).unwrap_or_default();
        rows.push(mask_tokens(mask).map(|t| (t, 0)).collect());
    }
}

/// The tokens set in a mask, ascending.
pub(crate) fn mask_tokens(mask: &[u32]) -> impl Iterator<Item = u32> + '_ {
    mask.iter().enumerate().flat_map(|(w, &bits)| {
        (0..32u32)
            .filter(move |b| bits & (1 << b) != 0)
            .map(move |b| w as u32 * 32 + b)
    })
}

/// One operand seen through the joint classes: which joint classes may move from a
/// state, and where each goes.
pub(crate) struct Operand<'a, W: AsRef<[u32]>> {
    automaton: &'a TokenAutomaton<W>,
    first: &'a [u32],
    /// The joint classes inside each of the operand's classes.
    of_class: Vec<Vec<u32>>,
    /// The joint classes inside each of its terminal masks.
    of_terminal: Vec<Vec<u32>>,
}

impl<'a, W: AsRef<[u32]>> Operand<'a, W> {
    pub(crate) fn new(automaton: &'a TokenAutomaton<W>, joint: &'a JointClasses) -> Self {
        let collect = |tokens: &mut dyn Iterator<Item = u32>| {
            let mut found: Vec<u32> = tokens.map(|t| joint.class_of[t as usize]).collect();
            found.sort_unstable();
            found.dedup();
            found.retain(|&c| c != NO_CLASS);
            found
        };
        let of_class = (0..automaton.num_classes())
            .map(|c| collect(&mut automaton.class_tokens(c)))
            .collect();
        let of_terminal = (0..automaton.num_terminals())
            .map(|k| {
                collect(&mut mask_tokens(
                    automaton.terminal_mask(k).unwrap_or_default(),
                ))
            })
            .collect();
        Operand {
            automaton,
            first: &joint.first,
            of_class,
            of_terminal,
        }
    }

    /// Appends the joint classes that may have a move from `state` (with repeats).
    pub(crate) fn candidates(&self, state: StateId, out: &mut Vec<u32>) {
        if state == DEAD {
            return;
        }
        for (c, _) in self.automaton.class_edges(state) {
            out.extend_from_slice(&self.of_class[c as usize]);
        }
        for (k, _) in self.automaton.terminal_edges(state) {
            out.extend_from_slice(&self.of_terminal[k as usize]);
        }
    }

    /// Where joint class `class` goes from `state`, or [`DEAD`].
    pub(crate) fn step(&self, state: StateId, class: u32) -> StateId {
        if state == DEAD {
            return DEAD;
        }
        let token = self.first[class as usize];
        self.automaton.next_state(state, token).unwrap_or(DEAD)
    }

    pub(crate) fn is_accepting(&self, state: StateId) -> bool {
        state != DEAD && self.automaton.is_accepting(state)
    }

    pub(crate) fn start(&self) -> StateId {
        self.automaton.start()
    }
}
