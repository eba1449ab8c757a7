//! The bound on one cold state's composition over a call network. A flat state holds
//! every stack a text may be in; where calls nest ambiguously (recursive alternatives
//! that all start alike) the stacks multiply with the depth, and one state's first mask
//! would close and step exponentially many: seconds and gigabytes inside a mask call
//! (a recursion depth of 12 took 3.3 s and 700 MB for one mask). A server needs the call
//! to end, with an error it can tell from a refusal, so the work of one composition
//! (stacks closed and stepped) is counted and bounded. A count, not a clock: the same
//! calls fail or succeed on every machine and under any load. What a composition past the
//! bound completed (transitions, flat states, the tokens of a state's single stacks) is
//! kept, as it is exact, so asking again goes on from there; a single closure past the
//! bound fails every time.

use crate::matcher::{MatchError, MatchErrorKind};

/// Default bound on one composition: 2^23 stacks closed or stepped, about 1.5 s where
/// stacks multiply (a million took 0.2 s in release on GPT-2's vocabulary), far above
/// what a state of the JSON Schema corpus needs.
pub const DEFAULT_STATE_WORK_LIMIT: u64 = 1 << 23;

/// The work done by the composition under way, against its bound.
#[derive(Debug)]
pub(super) struct Work {
    limit: u64,
    done: u64,
}

impl Work {
    pub(super) fn new() -> Work {
        Work {
            limit: DEFAULT_STATE_WORK_LIMIT,
            done: 0,
        }
    }

    pub(super) fn set_limit(&mut self, limit: u64) {
        self.limit = limit;
    }

    /// A new composition starts: nothing done yet.
    pub(super) fn start(&mut self) {
        self.done = 0;
    }

    /// Counts `steps` more; whether the composition is still within its bound.
    pub(super) fn charge(&mut self, steps: usize) -> bool {
        self.done = self.done.saturating_add(steps as u64);
        self.done <= self.limit
    }

    /// Whether the composition passed its bound (it then stops where it is).
    pub(super) fn exhausted(&self) -> bool {
        self.done > self.limit
    }

    /// The error of a composition of `state` past the bound.
    pub(super) fn error(&self, state: u32) -> MatchError {
        MatchError::new(
            MatchErrorKind::ComposeLimit,
            format!(
                "composing the tokens of lazy DFA state {state} took more than {} steps (the \
                 lazy automaton's state work limit): the constraint's calls nest ambiguously \
                 there; compile it eagerly, with a smaller recursion depth, or raise the limit \
                 (the state_work_limit option; LazyAutomaton::set_state_work_limit in Rust)",
                self.limit
            ),
        )
    }
}
