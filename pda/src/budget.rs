//! A grammar compile's time and memory budgets (`Config::time_budget`, `memory_budget`),
//! checked while it runs: a server compiling a grammar per request must get an error, not
//! a compile that stalls or takes the process's memory.

use std::cell::Cell;
use std::time::{Duration, Instant};

use crate::error::{PdaError, PdaErrorKind};

/// Cheap steps of a hot loop between two reads of the clock.
pub(crate) const STEPS_PER_POLL: u32 = 4096;

/// The budgets of one compile and the bytes charged so far.
#[derive(Debug)]
pub(crate) struct Budget {
    time: Duration,
    deadline: Option<Instant>,
    memory: usize,
    used: Cell<usize>,
    /// Steps since the clock was last read, for [`Budget::tick`].
    steps: Cell<u32>,
}

impl Budget {
    /// `time` and `memory` bytes, starting now (a compile's: [`crate::Config`]'s `budget`).
    pub(crate) fn new(time: Duration, memory: usize) -> Budget {
        Budget {
            time,
            deadline: Instant::now().checked_add(time),
            memory,
            used: Cell::new(0),
            steps: Cell::new(0),
        }
    }

    /// No budget at all (the byte PDA of `Pda::from_gbnf` and the like).
    pub(crate) fn unlimited() -> Budget {
        Budget {
            time: Duration::MAX,
            deadline: None,
            memory: usize::MAX,
            used: Cell::new(0),
            steps: Cell::new(0),
        }
    }

    /// When the time budget runs out (`None`: never), for fstc-core's constructions.
    pub(crate) fn deadline(&self) -> Option<Instant> {
        self.deadline
    }

    /// The error of a compile past its time budget, unless time is left; `place` says what
    /// was being built (a rule and where it is), for the message.
    pub(crate) fn check_time(&self, place: impl FnOnce() -> String) -> Result<(), PdaError> {
        match self.deadline {
            Some(d) if Instant::now() >= d => Err(self.out_of_time(&place())),
            _ => Ok(()),
        }
    }

    /// [`Budget::check_time`] every [`STEPS_PER_POLL`] calls: for inner loops, where one
    /// read of the clock per step would cost more than the step.
    pub(crate) fn tick(&self, place: impl FnOnce() -> String) -> Result<(), PdaError> {
        self.poll(1, || 0, place)
    }

    /// [`Budget::tick`] for `steps` steps at once, also checking the memory budget with
    /// `growing()` bytes held on top of what is charged (see [`Budget::check_memory`]).
    #[inline]
    pub(crate) fn poll(
        &self,
        steps: usize,
        growing: impl FnOnce() -> usize,
        place: impl FnOnce() -> String,
    ) -> Result<(), PdaError> {
        let steps = (self.steps.get() as usize).saturating_add(steps);
        if steps < STEPS_PER_POLL as usize {
            self.steps.set(steps as u32);
            return Ok(());
        }
        self.steps.set(0);
        match self.deadline {
            Some(d) if Instant::now() >= d => Err(self.out_of_time(&place())),
            _ => self.check_memory(growing(), place),
        }
    }

    /// The error of a compile past its time budget while building `place`.
    pub(crate) fn out_of_time(&self, place: &str) -> PdaError {
        PdaError::of_budget(
            PdaErrorKind::TimeBudget,
            format!(
                "the grammar compile passed its time budget of {:?} while {place}; raise it \
                 (time_budget, `--time-budget`) or simplify the grammar",
                self.time
            ),
            place,
        )
    }

    /// Counts `bytes` more held by the compile against the memory budget; an error naming
    /// `place` when that passes it. Charged before the allocation where the size is known.
    pub(crate) fn charge(
        &self,
        bytes: usize,
        place: impl FnOnce() -> String,
    ) -> Result<(), PdaError> {
        self.used.set(self.used.get().saturating_add(bytes));
        self.check_memory(0, place)
    }

    /// An error when `growing` bytes held on top of what is charged pass the memory budget
    /// (tables that grow as they are built, checked at each poll, charged once done).
    pub(crate) fn check_memory(
        &self,
        growing: usize,
        place: impl FnOnce() -> String,
    ) -> Result<(), PdaError> {
        let held = self.used.get().saturating_add(growing);
        if held <= self.memory {
            return Ok(());
        }
        Err(self.out_of_memory(&format!("{held} bytes of automata and tables"), &place()))
    }

    /// The error of a compile past its memory budget while building `place`, where `held`
    /// says what it would hold.
    pub(crate) fn out_of_memory(&self, held: &str, place: &str) -> PdaError {
        PdaError::of_budget(
            PdaErrorKind::MemoryBudget,
            format!(
                "the grammar compile passed its memory budget of {} bytes ({held}) while \
                 {place}; raise it (memory_budget, `--memory-budget`) or \
                 simplify the grammar",
                self.memory
            ),
            place,
        )
    }

    /// The bytes charged so far.
    pub(crate) fn used(&self) -> usize {
        self.used.get()
    }

    /// What is left of the memory budget.
    pub(crate) fn memory_left(&self) -> usize {
        self.memory.saturating_sub(self.used.get())
    }
}
