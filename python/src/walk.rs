//! The one adapter between the bindings and fst-core's decode-time walker: an owned
//! cursor (a `Walker` together with the shared automaton it borrows), so a Python object
//! can hold it. Switching to another decoding interface changes only this file.

use std::sync::Arc;

use fst_core::automaton::TokenAutomaton;
use fst_core::walker::{WalkError, Walker};
use self_cell::self_cell;

type BorrowedWalker<'a> = Walker<'a, Vec<u32>>;

self_cell!(
    struct OwnedWalker {
        owner: Arc<TokenAutomaton>,
        #[covariant]
        dependent: BorrowedWalker,
    }
);

/// A walker that owns (a share of) its automaton.
pub(crate) struct Cursor(OwnedWalker);

impl Cursor {
    /// A cursor at the automaton's start state.
    pub(crate) fn new(automaton: Arc<TokenAutomaton>) -> Cursor {
        Cursor(OwnedWalker::new(automaton, |a| Walker::new(a)))
    }

    fn walker(&self) -> &BorrowedWalker<'_> {
        self.0.borrow_dependent()
    }

    pub(crate) fn automaton(&self) -> &Arc<TokenAutomaton> {
        self.0.borrow_owner()
    }

    /// See `Walker::fill_mask`.
    pub(crate) fn fill_mask(&self, mask: &mut [u32]) -> Result<(), WalkError> {
        self.walker().fill_mask(mask)
    }

    /// All of `tokens` or none; see `Walker::consume_tokens`.
    pub(crate) fn consume_tokens(&mut self, tokens: &[u32]) -> Result<(), WalkError> {
        self.0.with_dependent_mut(|_, w| w.consume_tokens(tokens))
    }

    /// See `Walker::validate_tokens`.
    pub(crate) fn validate_tokens(&self, tokens: &[u32]) -> usize {
        self.walker().validate_tokens(tokens)
    }

    /// See `Walker::rollback`.
    pub(crate) fn rollback(&mut self, n: usize) -> Result<(), WalkError> {
        self.0.with_dependent_mut(|_, w| w.rollback(n))
    }

    pub(crate) fn reset(&mut self) {
        self.0.with_dependent_mut(|_, w| w.reset())
    }

    pub(crate) fn is_finished(&self) -> bool {
        self.walker().is_finished()
    }

    pub(crate) fn is_accepting(&self) -> bool {
        self.walker().is_accepting()
    }

    pub(crate) fn only_eos_allowed(&self) -> bool {
        self.walker().only_eos_allowed()
    }

    pub(crate) fn num_consumed(&self) -> usize {
        self.walker().num_consumed()
    }

    pub(crate) fn state(&self) -> u32 {
        self.walker().state()
    }

    pub(crate) fn forced_tokens(&self) -> Vec<u32> {
        self.walker().forced_tokens()
    }
}
