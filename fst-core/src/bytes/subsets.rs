//! What every subset construction shares: its states interned by key, expanded in order
//! into a table, within the state limit, the state-set budget, the table ceiling and the
//! deadline. [`determinize`](super::determinize) (plain NFAs, and through them the
//! algebra's operations) and the regex front end's look-around construction differ only in
//! what a state holds and how its successors are found; the limits are kept here, once.

use std::borrow::Borrow;
use std::hash::Hash;
use std::time::Instant;

use crate::fast_hash::FastMap;

use super::{ByteDfaError, DEAD};

/// Most transitions (states × columns) a subset construction's table holds, whatever
/// the state limit: 128 MiB, over the 100,000 default-limit states of 256 byte classes.
pub const MAX_TABLE_ENTRIES: usize = 1 << 25;
/// Most NFA-state entries its state sets hold in total, whatever the budget given:
/// 256 MiB (each is stored twice).
pub const MAX_SET_ENTRIES: usize = 1 << 25;

/// A DFA straight out of the subset construction (or out of minimization): start state 0,
/// row-major `table[state * width() + column]`, `DEAD` for no transition. Columns are the
/// byte classes, then one per terminal (the NFA's terminals, in order): to the subset
/// construction and minimization a terminal is just another alphabet symbol.
#[derive(Debug)]
pub struct TableDfa {
    pub classes: [u8; 256],
    pub num_classes: usize,
    pub num_terminals: usize,
    pub table: Vec<u32>,
    pub accepting: Vec<bool>,
}

impl TableDfa {
    /// Columns per row: byte classes plus terminals.
    pub fn width(&self) -> usize {
        self.num_classes + self.num_terminals
    }
}

/// What one subset construction may spend.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Most DFA states, counted as they are created.
    pub states: usize,
    /// Most key words kept for the states in total (at most [`MAX_SET_ENTRIES`]).
    pub set_budget: usize,
    /// When to give up, polled before each state is expanded (a server's time budget:
    /// a construction within its size limits can still take seconds).
    pub deadline: Option<Instant>,
    /// Most bytes the table and the state sets may take together (a compile's memory
    /// budget; the fixed ceilings above hold whatever it is).
    pub memory: usize,
}

impl Limits {
    /// A state limit and a set budget, no deadline.
    pub fn new(states: usize, set_budget: usize) -> Limits {
        Limits {
            states,
            set_budget,
            deadline: None,
            memory: usize::MAX,
        }
    }

    /// The same limits within `bytes` of table and state sets.
    pub fn within(self, bytes: usize) -> Limits {
        Limits {
            memory: bytes,
            ..self
        }
    }

    /// The same limits with `deadline`.
    pub fn until(self, deadline: Option<Instant>) -> Limits {
        Limits { deadline, ..self }
    }

    /// An error once the deadline has passed.
    pub fn check_deadline(&self, states: usize) -> Result<(), ByteDfaError> {
        match self.deadline {
            Some(d) if Instant::now() >= d => Err(ByteDfaError::past_deadline(states)),
            _ => Ok(()),
        }
    }
}

/// What identifies a state: words (a set of NFA states, threads), or one `u64` (a pair of
/// states, hashed as one word rather than as a slice).
pub trait StateKey: Hash + Eq {
    /// The key as the map keeps it.
    type Owned: Hash + Eq + Borrow<Self>;
    /// A copy to keep.
    fn owned(&self) -> Self::Owned;
}

impl StateKey for [u32] {
    type Owned = Box<[u32]>;
    fn owned(&self) -> Box<[u32]> {
        self.into()
    }
}

impl StateKey for u64 {
    type Owned = u64;
    fn owned(&self) -> u64 {
        *self
    }
}

/// A subset construction's states: `P` is what a state keeps until it is expanded (its
/// set of NFA states, or threads); `K` identifies a state.
pub struct Subsets<P, K: StateKey + ?Sized = [u32]> {
    ids: FastMap<K::Owned, u32>,
    pending: Vec<P>,
    accepting: Vec<bool>,
    table: Vec<u32>,
    /// Key words counted against the set budget.
    stored: usize,
    limits: Limits,
    /// The next state to expand; rows `0..next` are in the table.
    next: usize,
}

impl<P: Default, K: StateKey + ?Sized> Subsets<P, K> {
    /// No states yet.
    pub fn new(limits: Limits) -> Subsets<P, K> {
        Subsets {
            ids: FastMap::default(),
            pending: Vec::new(),
            accepting: Vec::new(),
            table: Vec::new(),
            stored: 0,
            limits: Limits {
                set_budget: limits.set_budget.min(MAX_SET_ENTRIES),
                ..limits
            },
            next: 0,
        }
    }

    /// The id of the state `key` (accepting when `acc`): the existing one, or a new one
    /// holding `state()`, counted as `weight` words against the set budget.
    pub fn intern(
        &mut self,
        key: &K,
        weight: usize,
        acc: bool,
        state: impl FnOnce() -> P,
    ) -> Result<u32, ByteDfaError> {
        if let Some(&id) = self.ids.get(key) {
            return Ok(id);
        }
        let limit = self.limits.states;
        if self.pending.len() >= limit {
            return Err(ByteDfaError::too_many_states(limit));
        }
        self.stored += weight;
        if self.stored > self.limits.set_budget {
            return Err(ByteDfaError::state_sets_too_large(
                limit,
                self.limits.set_budget,
            ));
        }
        self.check_memory()?;
        let id = self.pending.len() as u32;
        self.ids.insert(key.owned(), id);
        self.pending.push(state());
        self.accepting.push(acc);
        Ok(id)
    }

    /// The next state to expand, taken out of the pending list, with a row of `width`
    /// dead entries added to the table for it; `None` when every state is expanded.
    pub fn next_row(&mut self, width: usize) -> Result<Option<P>, ByteDfaError> {
        if self.next == self.pending.len() {
            return Ok(None);
        }
        self.limits.check_deadline(self.pending.len())?;
        let len = self.table.len();
        if len + width > MAX_TABLE_ENTRIES {
            let limit = self.limits.states;
            return Err(ByteDfaError::table_too_large(
                limit,
                self.pending.len(),
                width,
            ));
        }
        self.table.resize(len + width, DEAD);
        self.check_memory()?;
        self.next += 1;
        Ok(Some(std::mem::take(&mut self.pending[self.next - 1])))
    }

    /// An error once the table and the state sets (each set entry kept twice: in the map's
    /// key and in the pending state) pass the memory limit.
    fn check_memory(&self) -> Result<(), ByteDfaError> {
        let held =
            (self.table.len().saturating_mul(4)).saturating_add(self.stored.saturating_mul(8));
        if held > self.limits.memory {
            return Err(ByteDfaError::past_memory(
                self.limits.memory,
                self.pending.len(),
            ));
        }
        Ok(())
    }

    /// Sets column `c` of the row [`Subsets::next_row`] added last to `target`.
    pub fn set(&mut self, width: usize, c: usize, target: u32) {
        let row = (self.next - 1) * width;
        self.table[row + c] = target;
    }

    /// The table DFA over `classes` (`num_classes` of them) and `num_terminals` terminal
    /// columns, once every state is expanded.
    pub fn finish(self, classes: [u8; 256], num_classes: usize, num_terminals: usize) -> TableDfa {
        debug_assert_eq!(self.next, self.pending.len());
        TableDfa {
            classes,
            num_classes,
            num_terminals,
            table: self.table,
            accepting: self.accepting,
        }
    }
}
