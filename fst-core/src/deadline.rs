//! A construction's deadline (a compile's time budget), polled by its loops: reading the
//! clock costs more than a cheap step, so a loop reads it once every so many steps.

use std::time::Instant;

/// A construction that stopped at its deadline (a compile's time budget).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PastDeadline;

/// Cheap steps between two reads of the clock.
const STEPS_PER_READ: u32 = 1024;

/// A deadline and the steps taken since the clock was last read.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Poll {
    deadline: Option<Instant>,
    steps: u32,
}

impl Poll {
    /// A poller whose first [`Poll::step`] reads the clock.
    pub(crate) fn new(deadline: Option<Instant>) -> Poll {
        Poll {
            deadline,
            steps: STEPS_PER_READ - 1,
        }
    }

    /// [`PastDeadline`] once the deadline has passed (reads the clock).
    pub(crate) fn check(&self) -> Result<(), PastDeadline> {
        match self.deadline {
            Some(d) if Instant::now() >= d => Err(PastDeadline),
            _ => Ok(()),
        }
    }

    /// [`Poll::check`] once every [`STEPS_PER_READ`] calls: for a step of a loop.
    #[inline]
    pub(crate) fn step(&mut self) -> Result<(), PastDeadline> {
        if self.deadline.is_none() {
            return Ok(());
        }
        self.steps += 1;
        if self.steps < STEPS_PER_READ {
            return Ok(());
        }
        self.steps = 0;
        self.check()
    }
}

/// The result of a construction given no deadline, which therefore cannot pass it.
pub(crate) fn without_deadline<T>(result: Result<T, PastDeadline>) -> T {
    result.unwrap_or_else(|PastDeadline| unreachable!("a construction without a deadline"))
}
