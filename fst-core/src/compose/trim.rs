//! Trimming: the states discovered at token boundaries that can still reach acceptance.

use super::error::ComposeError;
use crate::automaton::StateId;
use crate::minimize::{coreachable, restrict};

/// Accepting flags and edge lists of a trimmed automaton.
pub(super) type Trimmed = (Vec<bool>, Vec<Vec<(u32, StateId)>>);

/// Keeps the states (all reachable from state 0) that can reach an accepting state,
/// renumbered in their old order (`restrict` from state 0); fails when state 0 cannot.
pub(super) fn trim(
    accepting: Vec<bool>,
    edges: Vec<Vec<(u32, StateId)>>,
) -> Result<Trimmed, ComposeError> {
    let live = coreachable(accepting.clone(), &edges, |_| true);
    if !live[0] {
        return Err(ComposeError::empty_language());
    }
    Ok(restrict(&live, 0, accepting, edges))
}
