//! The lazy automaton's [`Matcher`]: the eager walker's semantics over DFA states whose
//! tokens are computed on first use.

use super::LazyAutomaton;
use crate::matcher::{mask_width, MatchError, Matcher, Step, Trail};

/// A position in a [`LazyAutomaton`] with the history needed to roll back. Cheap to
/// clone (a fork shares the automaton and its cache), `Send + Sync`, so a
/// [`DynMatcher`](crate::matcher::DynMatcher).
#[derive(Clone, Debug)]
pub struct LazyMatcher {
    automaton: LazyAutomaton,
    /// The DFA state, the history and whether EOS ended the walk.
    trail: Trail,
}

impl LazyMatcher {
    pub(super) fn new(automaton: LazyAutomaton) -> LazyMatcher {
        LazyMatcher {
            trail: Trail::new(automaton.start()),
            automaton,
        }
    }

    /// The automaton (and cache) being walked.
    pub fn automaton(&self) -> &LazyAutomaton {
        &self.automaton
    }

    /// The current byte-DFA state.
    pub fn state(&self) -> u32 {
        self.trail.state
    }

    /// Where `token` leads from `state`; an error when composing `state` passes the work
    /// limit.
    fn step(&self, state: u32, token: u32) -> Result<Option<Step>, MatchError> {
        if token >= self.automaton.vocab_size() {
            return Ok(None);
        }
        if let Some(next) = self.automaton.next_state(state, token)? {
            return Ok(Some(Step::To(next)));
        }
        let eos = self.automaton.is_accepting(state) && self.automaton.is_eos(token);
        Ok(eos.then_some(Step::Eos))
    }

    fn not_allowed(&self, token: u32) -> MatchError {
        let a = &self.automaton;
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
            &format!("in DFA state {s}"),
            "the state does not accept",
            a.info(s).ok().map(|i| i.count() + eos),
        )
    }
}

impl Matcher for LazyMatcher {
    fn vocab_size(&self) -> u32 {
        self.automaton.vocab_size()
    }

    fn reset(&mut self) {
        self.trail.reset(self.automaton.start());
    }

    /// The state's cached edges (computed now on the first visit), then its EOS ids if it
    /// accepts; zero words past the vocabulary.
    fn fill_mask(&self, mask: &mut [u32]) -> Result<(), MatchError> {
        let need = mask_width(mask, self.automaton.vocab_size())?;
        if self.trail.finished() {
            mask.fill(0);
            return Ok(());
        }
        let info = self.automaton.info(self.trail.state)?;
        let (head, tail) = mask.split_at_mut(need);
        info.write(head);
        tail.fill(0);
        if self.automaton.is_accepting(self.trail.state) {
            for &e in self.automaton.eos_ids() {
                head[(e / 32) as usize] |= 1 << (e % 32);
            }
        }
        Ok(())
    }

    fn is_allowed(&self, token: u32) -> bool {
        if self.trail.finished() || token >= self.automaton.vocab_size() {
            return false;
        }
        let info = self.automaton.info(self.trail.state);
        info.is_ok_and(|i| i.contains(token))
            || (self.automaton.is_accepting(self.trail.state) && self.automaton.is_eos(token))
    }

    fn consume(&mut self, token: u32) -> Result<(), MatchError> {
        let state = self.trail.state;
        (self.trail.history).check_open(token, || format!(" in DFA state {state}"))?;
        match self.step(self.trail.state, token)? {
            Some(to) => {
                self.trail.take(to);
                Ok(())
            }
            None => Err(self.not_allowed(token)),
        }
    }

    fn consume_tokens(&mut self, tokens: &[u32]) -> Result<(), MatchError> {
        crate::matcher::consume_all(self, tokens)
    }

    fn rollback(&mut self, n: usize) -> Result<(), MatchError> {
        self.trail.rollback(n)
    }

    fn validate_tokens(&self, tokens: &[u32]) -> usize {
        self.trail
            .validate(tokens, |state, t| self.step(state, t).ok().flatten())
    }

    /// While the state does not accept and has exactly one token edge, that token; as
    /// the eager walker, bounded by the number of states (read again at each step: over
    /// a call network, following the chain builds states).
    fn forced_tokens(&self) -> Vec<u32> {
        let mut out = Vec::new();
        if self.trail.finished() {
            return out;
        }
        let a = &self.automaton;
        let mut state = self.trail.state;
        while out.len() < a.num_dfa_states() {
            if a.is_accepting(state) {
                break;
            }
            let Some(token) = a.info(state).ok().and_then(|i| i.single()) else {
                break;
            };
            match a.next_state(state, token).ok().flatten() {
                Some(next) => {
                    out.push(token);
                    state = next;
                }
                None => break,
            }
        }
        out
    }

    /// Reads the state's cached edge count (composing the state if it is cold).
    fn only_eos_allowed(&self) -> bool {
        !self.trail.finished()
            && self.is_accepting()
            && self
                .automaton
                .info(self.trail.state)
                .is_ok_and(|i| i.count() == 0)
    }

    fn is_accepting(&self) -> bool {
        self.automaton.is_accepting(self.trail.state)
    }

    fn is_finished(&self) -> bool {
        self.trail.finished()
    }

    fn num_consumed(&self) -> usize {
        self.trail.history.len()
    }
}
