//! Walking a token automaton at decode time: masks, consuming tokens, rolling back.
//!
//! A [`Walker`] is the per-sequence cursor a decoder keeps next to its KV cache. It is
//! cheap (a state and a history of states) and borrows the automaton, so one loaded
//! automaton serves any number of concurrent sequences. The API follows what speculative
//! decoding and fast-forwarding need: check draft tokens without moving
//! ([`Walker::validate_tokens`]), undo rejected ones ([`Walker::rollback`]), and find
//! tokens the constraint forces so they can be appended without a forward pass
//! ([`Walker::forced_tokens`]). Both walkers implement [`Matcher`](crate::matcher::Matcher), the decoding interface
//! token PDAs will share.

use std::ops::Deref;
use std::sync::Arc;

use crate::automaton::{StateId, TokenAutomaton};
use crate::matcher::{MatchError, Step, Trail};

/// A position in a token automaton, with the history needed to roll back; `A` holds the
/// automaton: a reference ([`Walker`]) or an `Arc` ([`OwnedWalker`]).
#[derive(Clone, Debug)]
pub struct WalkerOf<A> {
    automaton: A,
    /// The state, the history and whether EOS ended the walk.
    trail: Trail,
}

crate::matcher::walker_holders!(WalkerOf, TokenAutomaton, Walker, OwnedWalker);

impl<'a, W: AsRef<[u32]>> Walker<'a, W> {
    /// The automaton being walked.
    pub fn automaton(&self) -> &'a TokenAutomaton<W> {
        self.automaton
    }
}

impl<W: AsRef<[u32]>> OwnedWalker<W> {
    /// The automaton being walked.
    pub fn automaton(&self) -> &Arc<TokenAutomaton<W>> {
        &self.automaton
    }
}

impl<W, A> WalkerOf<A>
where
    W: AsRef<[u32]>,
    A: Deref<Target = TokenAutomaton<W>>,
{
    fn at_start(automaton: A) -> WalkerOf<A> {
        let trail = Trail::new(automaton.start());
        WalkerOf { automaton, trail }
    }

    /// Back to the start state with nothing consumed.
    pub fn reset(&mut self) {
        self.trail.reset(self.automaton.start());
    }

    /// The current state (after EOS, the accepting state EOS was consumed in).
    pub fn state(&self) -> StateId {
        self.trail.state
    }

    /// Number of tokens consumed since the start, EOS included.
    pub fn num_consumed(&self) -> usize {
        self.trail.history.len()
    }

    /// Whether the current state accepts, i.e. EOS may be consumed (or was).
    pub fn is_accepting(&self) -> bool {
        self.automaton.is_accepting(self.trail.state)
    }

    /// Whether EOS has been consumed: nothing more is allowed.
    pub fn is_finished(&self) -> bool {
        self.trail.finished()
    }

    /// Whether EOS is the only choice: the state accepts and has no token or terminal
    /// edges. A decoder can then stop without sampling.
    pub fn only_eos_allowed(&self) -> bool {
        !self.trail.finished()
            && self.is_accepting()
            && self
                .automaton
                .class_edges(self.trail.state)
                .next()
                .is_none()
            && !self.automaton.has_terminal_edges(self.trail.state)
    }

    /// Writes the allowed tokens into `mask`: bit `i % 32` of word `i / 32` is set exactly
    /// when token `i` may come next. Every word of the mask is written; EOS ids are set
    /// exactly in accepting states; bits past the vocabulary stay 0; after EOS nothing is
    /// set. A state with a dense mask costs one copy of `ceil(vocab_size / 32)` words,
    /// any other state a loop over its (few) edges; each terminal edge ORs in its
    /// terminal's mask (a copy, for the first).
    ///
    /// Fails, leaving `mask` untouched, if it has fewer than `vocab_size` bits.
    pub fn fill_mask(&self, mask: &mut [u32]) -> Result<(), MatchError> {
        let need = crate::matcher::mask_width(mask, self.automaton.vocab_size())?;
        if self.trail.finished() {
            mask.fill(0);
            return Ok(());
        }
        // States with many edges carry their mask, EOS bits included: one copy, then zero
        // the rest of a wider mask. `dense` has exactly `need` words.
        let a: &TokenAutomaton<W> = &self.automaton;
        let mut terminals = a
            .terminal_edges(self.trail.state)
            .filter_map(|(k, _)| a.terminal_mask(k));
        if let Some(dense) = a.dense_mask(self.trail.state) {
            let (head, tail) = mask.split_at_mut(need);
            head.copy_from_slice(dense);
            tail.fill(0);
            for t in terminals {
                or_into(head, t);
            }
            return Ok(());
        }
        match terminals.next() {
            Some(first) => {
                let (head, tail) = mask.split_at_mut(need);
                head.copy_from_slice(first);
                tail.fill(0);
                for t in terminals {
                    or_into(head, t);
                }
            }
            None => mask.fill(0),
        }
        // Class by class, a precomputed mask word at a time (each word once per class, so
        // no store waits on the previous one); classes are disjoint, so ORing loses nothing.
        a.or_class_mask_words(self.trail.state, mask);
        self.set_eos_bits(mask);
        Ok(())
    }

    fn set_eos_bits(&self, mask: &mut [u32]) {
        if self.is_accepting() {
            for &e in self.automaton.eos_ids() {
                if let Some(slot) = mask.get_mut((e >> 5) as usize) {
                    *slot |= 1 << (e & 31);
                }
            }
        }
    }

    /// Whether `token` may come next.
    pub fn is_allowed(&self, token: u32) -> bool {
        if self.trail.finished() {
            return false;
        }
        // A dense mask is checked against the edges on load: one bit test instead of a
        // binary search over ~100k edges.
        if let Some(dense) = self.automaton.dense_mask(self.trail.state) {
            let set = dense
                .get((token / 32) as usize)
                .is_some_and(|w| w & (1 << (token % 32)) != 0);
            if set || !self.automaton.has_terminal_edges(self.trail.state) {
                return set;
            }
        }
        step(&self.automaton, self.trail.state, token).is_some()
    }

    /// Consumes one token. EOS in an accepting state finishes the walk. A token that is
    /// not allowed is an error naming it and the state, and changes nothing.
    pub fn consume(&mut self, token: u32) -> Result<(), MatchError> {
        let state = self.trail.state;
        (self.trail.history).check_open(token, || format!(" in state {state}"))?;
        match step(&self.automaton, self.trail.state, token) {
            Some(to) => {
                self.trail.take(to);
                Ok(())
            }
            None => Err(self.not_allowed(token)),
        }
    }

    fn not_allowed(&self, token: u32) -> MatchError {
        let a: &TokenAutomaton<W> = &self.automaton;
        let s = self.trail.state;
        let eos = if a.is_accepting(s) {
            a.eos_ids().len()
        } else {
            0
        };
        crate::matcher::refusal(
            token,
            a.vocab_size(),
            a.is_eos(token),
            &format!("in state {s}"),
            "the state does not accept",
            Some(a.num_token_edges(s) + eos),
        )
    }

    /// Consumes all of `tokens` or, if one is not allowed, none of them; the error names
    /// the position of the first token not allowed.
    pub fn consume_tokens(&mut self, tokens: &[u32]) -> Result<(), MatchError> {
        crate::matcher::consume_all(self, tokens)
    }

    /// How many leading tokens of `tokens` would be accepted from here, without moving.
    pub fn validate_tokens(&self, tokens: &[u32]) -> usize {
        self.trail
            .validate(tokens, |state, t| step(&self.automaton, state, t))
    }

    /// Undoes the last `n` consumed tokens (EOS included). Fails, changing nothing, if
    /// fewer than `n` were consumed.
    pub fn rollback(&mut self, n: usize) -> Result<(), MatchError> {
        self.trail.rollback(n)
    }

    /// The tokens the constraint forces from here: while the state does not accept and
    /// has exactly one edge, a token edge, that edge's token. A decoder may append them without
    /// sampling. Bounded by the number of states, so a forced cycle stays finite.
    pub fn forced_tokens(&self) -> Vec<u32> {
        let mut out = Vec::new();
        if self.trail.finished() {
            return out;
        }
        let a: &TokenAutomaton<W> = &self.automaton;
        let mut state = self.trail.state;
        for _ in 0..a.num_states() {
            if a.is_accepting(state) || a.has_terminal_edges(state) {
                break;
            }
            match a.single_token_edge(state) {
                Some((token, target)) => {
                    out.push(token);
                    state = target;
                }
                None => break,
            }
        }
        out
    }
}

// The decoding interface, by the inherent methods above.
crate::matcher::matcher_by_inherent_methods!(WalkerOf, TokenAutomaton, automaton);

/// `dst |= src`, word by word.
fn or_into(dst: &mut [u32], src: &[u32]) {
    for (d, s) in dst.iter_mut().zip(src) {
        *d |= s;
    }
}

fn step<W: AsRef<[u32]>>(a: &TokenAutomaton<W>, state: StateId, token: u32) -> Option<Step> {
    if let Some(next) = a.next_state(state, token) {
        return Some(Step::To(next));
    }
    (a.is_accepting(state) && a.is_eos(token)).then_some(Step::Eos)
}
