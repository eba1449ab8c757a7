//! A compile's time and memory budgets, checked while it runs (issue: a schema that
//! takes seconds or gigabytes must end in an error, not stall or kill a server).

use std::cell::{Cell, RefCell};
use std::time::{Duration, Instant};

use fstc_core::bytes::{ByteDfa, ByteDfaError, ByteDfaErrorKind};
use fstc_core::compose::ComposeErrorKind;
use fstc_regex::{BuildError, BuildErrorKind, RegexError, RegexErrorKind};

use crate::error::{show_pointer, JsonSchemaError};

/// Bytes counted for each byte of a regex regex-syntax parses (above the 93–120 measured).
const PARSE_BYTES_PER_BYTE: usize = 128;

/// The budgets of one compile and what it has spent.
#[derive(Clone, Debug)]
pub(crate) struct Budget {
    started: Instant,
    time: Duration,
    memory: usize,
    /// Bytes of the automata built so far.
    used: Cell<usize>,
    /// The pointers of the sub-schemas being translated, innermost last.
    at: RefCell<Vec<String>>,
}

impl Budget {
    pub(crate) fn new(time: Duration, memory: usize) -> Budget {
        Budget {
            started: Instant::now(),
            time,
            memory,
            used: Cell::new(0),
            at: RefCell::new(Vec::new()),
        }
    }

    /// Enters the sub-schema at `pointer`, if the budgets allow.
    pub(crate) fn enter(&self, pointer: &str) -> Result<(), JsonSchemaError> {
        self.at.borrow_mut().push(pointer.to_string());
        self.check_memory()?;
        self.check_time()
    }

    /// Leaves the innermost sub-schema.
    pub(crate) fn leave(&self) {
        self.at.borrow_mut().pop();
    }

    /// An error unless the time budget is left.
    pub(crate) fn check_time(&self) -> Result<(), JsonSchemaError> {
        if self.started.elapsed() <= self.time {
            return Ok(());
        }
        Err(self.out_of_time())
    }

    /// When the time budget runs out, for the subset constructions to poll inside one
    /// build (`None` past what an `Instant` holds).
    pub(crate) fn deadline(&self) -> Option<Instant> {
        self.started.checked_add(self.time)
    }

    /// The error of a compile past its time budget.
    pub(crate) fn out_of_time(&self) -> JsonSchemaError {
        self.exceeded(
            &format!("the compile passed its time budget of {:?}", self.time),
            "time_budget, `--time-budget`",
        )
    }

    /// Counts `dfa` against the memory budget (and checks the time budget).
    pub(crate) fn charge(&self, dfa: &ByteDfa) -> Result<(), JsonSchemaError> {
        let bytes = dfa.transitions().len() * 4
            + dfa.num_states() * (1 + 4 * dfa.terminals().len())
            + std::mem::size_of::<ByteDfa>();
        self.hold(bytes);
        self.check_memory()?;
        self.check_time()
    }

    /// Counts `bytes` the compile keeps (the texts of machines and of remembered
    /// translations) against the memory budget, checked when the next sub-schema is
    /// entered or the next automaton is charged.
    pub(crate) fn hold(&self, bytes: usize) {
        self.used.set(self.used.get().saturating_add(bytes));
    }

    /// Counts `bytes` held for the schema's regex with every call inlined (`len` bytes
    /// long), checked at once: an error naming its length when that passes the memory
    /// budget.
    pub(crate) fn hold_flat(&self, len: usize, bytes: usize) -> Result<(), JsonSchemaError> {
        self.hold(bytes);
        if self.used.get() <= self.memory {
            return Ok(());
        }
        Err(JsonSchemaError::other(format!(
            "the compile passed its memory budget of {} bytes writing the schema's regex \
             with every sub-schema in place: it is {len} bytes long (a sub-schema used in \
             several places is copied at each); raise it (memory_budget, \
             `--memory-budget`), compile lazily (sub-schemas stay calls) or simplify the \
             schema",
            self.memory
        )))
    }

    /// Checks that parsing a regex of `len` bytes fits what is left of the memory budget:
    /// regex-syntax's syntax tree and HIR are transient but large (93 to 120 bytes a byte
    /// of pattern at their peak, measured on flat schema regexes of 400–480 KB), and
    /// their parse cannot be stopped once begun.
    pub(crate) fn check_parse(&self, len: usize) -> Result<(), JsonSchemaError> {
        let needed = len.saturating_mul(PARSE_BYTES_PER_BYTE);
        if self.used.get().saturating_add(needed) <= self.memory {
            return Ok(());
        }
        Err(JsonSchemaError::other(format!(
            "the compile would pass its memory budget of {} bytes reading the schema's regex \
             with every sub-schema in place: it is {len} bytes long, and reading it takes \
             about {PARSE_BYTES_PER_BYTE} bytes a byte; raise it (memory_budget, \
             `--memory-budget`), compile lazily (sub-schemas stay calls) or simplify the \
             schema",
            self.memory
        )))
    }

    fn check_memory(&self) -> Result<(), JsonSchemaError> {
        if self.used.get() > self.memory {
            return Err(self.exceeded(
                &format!(
                    "the compile passed its memory budget of {} bytes of automata and texts",
                    self.memory
                ),
                "memory_budget, `--memory-budget`",
            ));
        }
        Ok(())
    }

    /// The error of a build that failed: the time budget's own when it stopped at the
    /// deadline, else `what` could not be built, and why.
    pub(crate) fn build_failed(&self, what: &str, e: impl Stopped) -> JsonSchemaError {
        if e.at_deadline() {
            return self.out_of_time();
        }
        let short: String = e.to_string().chars().take(300).collect();
        JsonSchemaError::other(format!("{what} could not be built: {short}"))
    }

    /// `config` bounded by what is left of the budgets: the deadline, and the memory
    /// budget less the automata built so far as the composition's memory limit.
    pub(crate) fn bound(&self, config: fstc_regex::Config) -> fstc_regex::Config {
        config
            .time_budget(fstc_regex::time_left(self.deadline()))
            .memory_budget(self.memory.saturating_sub(self.used.get()))
    }

    /// The budget's error for a composition with the vocabulary that stopped at the
    /// deadline or the memory limit of [`bound`](Self::bound) (`None` for other errors).
    pub(crate) fn composition_failed(&self, e: &BuildError) -> Option<JsonSchemaError> {
        let BuildErrorKind::Compose { error, .. } = e.kind() else {
            return None;
        };
        let (budget, option) = match error.kind() {
            ComposeErrorKind::Deadline => (
                format!("time budget of {:?}", self.time),
                "time_budget, `--time-budget`",
            ),
            ComposeErrorKind::MemoryLimit => (
                format!("memory budget of {} bytes", self.memory),
                "memory_budget, `--memory-budget`",
            ),
            _ => return None,
        };
        Some(JsonSchemaError::other(format!(
            "the compile passed its {budget}: {error}; raise it ({option}) or simplify the \
             schema"
        )))
    }

    fn exceeded(&self, what: &str, option: &str) -> JsonSchemaError {
        let message = match self.at.borrow().last() {
            Some(p) => format!(
                "{what} while building the sub-schema at {}; raise it ({option}) or simplify \
                 that sub-schema",
                show_pointer(p)
            ),
            // Past the translation: the automaton of the whole schema.
            None => format!(
                "{what} while building the schema's automaton; raise it ({option}) or \
                 simplify the schema"
            ),
        };
        JsonSchemaError::other(message)
    }
}

/// An automaton build's error that may say it stopped at the deadline.
pub(crate) trait Stopped: std::fmt::Display {
    fn at_deadline(&self) -> bool;
}

impl Stopped for RegexError {
    fn at_deadline(&self) -> bool {
        *self.kind() == RegexErrorKind::Deadline
    }
}

impl Stopped for ByteDfaError {
    fn at_deadline(&self) -> bool {
        matches!(self.kind(), ByteDfaErrorKind::Deadline { .. })
    }
}
