//! The time and memory budgets of one eager compile: the JSON options' `time_budget` and
//! `memory_budget`, over the whole structural tag. The deadline is polled before each
//! leaf automaton is built and inside the builds (subset constructions, the composition
//! with the vocabulary, the joining of pieces); the memory budget bounds the
//! composition's tables. Past either, the error names the option.

use std::time::{Duration, Instant};

use fstc_core::compose::{ComposeError, ComposeErrorKind};
use fstc_json::Config;
use fstc_pda::{PdaError, PdaErrorKind};

use crate::error::TagsError;

/// The budgets of one compile.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Budget {
    time: Duration,
    memory: usize,
    deadline: Option<Instant>,
}

impl Budget {
    /// The budgets of `config`, the time counted from now.
    pub(crate) fn start(config: &Config) -> Budget {
        let time = config.get_time_budget();
        Budget {
            time,
            memory: config.get_memory_budget(),
            deadline: Instant::now().checked_add(time),
        }
    }

    pub(crate) fn deadline(&self) -> Option<Instant> {
        self.deadline
    }

    /// What is left of the time budget (all of it when it has no deadline).
    pub(crate) fn time_left(&self) -> Duration {
        match self.deadline {
            Some(d) => d.saturating_duration_since(Instant::now()),
            None => self.time,
        }
    }

    /// The composition's memory limit.
    pub(crate) fn memory(&self) -> usize {
        self.memory
    }

    /// An error at `path` once the deadline has passed, saying what was being built.
    pub(crate) fn check_time(&self, path: &str, what: &str) -> Result<(), TagsError> {
        match self.deadline {
            Some(d) if Instant::now() >= d => Err(self.out_of_time(path, what)),
            _ => Ok(()),
        }
    }

    /// The error of a compile past its time budget while building `what`.
    pub(crate) fn out_of_time(&self, path: &str, what: &str) -> TagsError {
        TagsError::at(
            path,
            format!(
                "the compile passed its time budget of {:?} while {what}; raise it \
                 (time_budget, `--time-budget`) or simplify the structural tag",
                self.time
            ),
        )
    }

    /// The error of a compile past its memory budget while building `what`.
    pub(crate) fn out_of_memory(&self, what: &str) -> TagsError {
        TagsError::at(
            "",
            format!(
                "the compile passed its memory budget of {} bytes while {what}; raise it \
                 (memory_budget, `--memory-budget`) or simplify the structural tag",
                self.memory
            ),
        )
    }

    /// The error of the token PDA's grammar compile (given what was left of the budgets):
    /// the budgets' own, naming its phase, when it ran out of either.
    pub(crate) fn grammar_failed(&self, e: &PdaError) -> TagsError {
        let phase = |p: Option<&str>| match p {
            Some(p) => format!("building the token PDA ({p})"),
            None => "building the token PDA".to_string(),
        };
        match e.kind() {
            PdaErrorKind::TimeBudget => self.out_of_time("", &phase(e.phase())),
            PdaErrorKind::MemoryBudget => self.out_of_memory(&phase(e.phase())),
            _ => {
                let short: String = e.to_string().chars().take(600).collect();
                TagsError::at("", format!("the token PDA could not be built: {short}"))
            }
        }
    }

    /// The error of a composition with the vocabulary: the budgets' own when it stopped
    /// at the deadline or the memory limit.
    pub(crate) fn composition_failed(&self, e: &ComposeError) -> TagsError {
        let what = format!("composing it with the vocabulary ({e})");
        match e.kind() {
            ComposeErrorKind::Deadline => self.out_of_time("", &what),
            ComposeErrorKind::MemoryLimit => self.out_of_memory(&what),
            _ => TagsError::at("", format!("the automaton could not be built: {e}")),
        }
    }
}
