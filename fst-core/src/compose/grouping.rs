//! Choosing how to group the tokens for one byte automaton, and finding a frontier's
//! group edges: read off the transition functions, or walked over the class trie.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Instant;

use rayon::prelude::*;

use super::class_trie::{ClassTrie, DenseClasses};
use super::error::{deadline_error, out_of_range, try_with_capacity, ComposeError};
use super::functions::{FunctionGroups, POLL_EVERY};
use super::groups::{TokenGroups, NONE};
use crate::bytes::ByteAutomaton;
use crate::deadline::PastDeadline;
use crate::vocab::level_trie::{first_unsplit_fold, LevelTrie};
use crate::vocab::VocabTrie;

/// How to group the tokens: by transition function when the DFA is small (tests force
/// it without a budget, over a folded trie where the classes allow or always over the
/// byte trie), or by class string. All give the same automaton; tests compare them (the
/// forced choices exist only in test builds).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum GroupBy {
    Auto,
    #[cfg(test)]
    Functions,
    #[cfg(test)]
    ByteFunctions,
    #[cfg(test)]
    ClassStrings,
}

/// How the tokens were grouped for one compile.
pub(super) enum Grouping {
    Functions(FunctionGroups),
    Trie(ClassTrie),
}

/// Live `(state, target)` pairs, summed over the distinct functions, past which grouping
/// by function gives up for the class trie: this many per DFA state, and at least
/// `MIN_FUNCTION_ENTRIES` (2 MB). The five regexes of the benchmarks (11 to 484 states)
/// stay far below. With sparse functions grouping by function wins up to ~1,500 states
/// on regexes (three date-times, 1,453 states: 2.8 vs 4.4 ms of composition on Llama 3)
/// and breaks even near 3,000 (`(\w+ ){2,8}\w+`, 2,853 states); on the large DFAs of
/// JSON Schemas, where most states are string or counter states that a token shifts
/// along, it wins by far: a 2,000-character `maxLength` (28,003 states) composes in
/// 0.7 s and 70 MB instead of 8 s and 950 MB by class trie, the benchmark's json-large
/// (2,538 states) in 42 instead of 286 ms. The budget bounds the memory (8 bytes a pair).
const FUNCTION_ENTRIES_PER_STATE: usize = 128;
const MIN_FUNCTION_ENTRIES: usize = 1 << 18;

/// Class-trie nodes (summed over a frontier's states) below which one thread walks.
const PARALLEL_WALK_NODES: usize = 1 << 16;
/// Largest (states x classes) transition table built for the walks (16 MB).
pub(super) const MAX_TABLE_ENTRIES: usize = 1 << 22;

/// What ends the walks early, shared by their threads: the token edges found against the
/// token edge limit, and the deadline.
pub(super) struct Stops {
    edges: AtomicUsize,
    edge_limit: usize,
    deadline: Option<Instant>,
    over_limit: AtomicBool,
    late: AtomicBool,
}

impl Stops {
    pub(super) fn new(edge_limit: usize, deadline: Option<Instant>) -> Stops {
        Stops {
            edges: AtomicUsize::new(0),
            edge_limit,
            deadline,
            over_limit: AtomicBool::new(false),
            late: AtomicBool::new(false),
        }
    }

    /// Counts `found` more token edges, noting when they pass the limit.
    fn count(&self, found: usize) {
        let total = self.edges.fetch_add(found, Ordering::Relaxed) + found;
        if total > self.edge_limit {
            self.over_limit.store(true, Ordering::Relaxed);
        }
    }

    /// Whether to stop walking: past the edge limit already, or past the deadline now.
    pub(super) fn stopped(&self) -> bool {
        if self.over_limit() || self.late() {
            return true;
        }
        let late = self.deadline.is_some_and(|d| Instant::now() >= d);
        if late {
            self.late.store(true, Ordering::Relaxed);
        }
        late
    }

    pub(super) fn over_limit(&self) -> bool {
        self.over_limit.load(Ordering::Relaxed)
    }

    /// Whether a walk saw the deadline pass.
    pub(super) fn late(&self) -> bool {
        self.late.load(Ordering::Relaxed)
    }
}

/// The automaton as a dense table over the classes of `dense` (`NONE` for no
/// transition), when it has at most `max_entries` entries (the composition passes
/// `MAX_TABLE_ENTRIES`): the walks then take one load per node.
pub(crate) fn transition_table<A>(
    dfa: &A,
    dense: &DenseClasses,
    max_entries: usize,
) -> Result<Option<Vec<u32>>, ComposeError>
where
    A: ByteAutomaton + ?Sized,
{
    let num_dfa_states = dfa.num_states();
    let k = dense.representative.len();
    if num_dfa_states.saturating_mul(k) > max_entries {
        return Ok(None);
    }
    if let Some(table) = class_table(dfa, dense) {
        return Ok(Some(table));
    }
    let mut table = try_with_capacity(num_dfa_states * k, "the transition table")?;
    for s in 0..num_dfa_states as u32 {
        for &b in &dense.representative {
            match dfa.next(s, b) {
                Some(t) if t as usize >= num_dfa_states => {
                    return Err(out_of_range("transition target", t, num_dfa_states))
                }
                Some(t) => table.push(t),
                None => table.push(NONE),
            }
        }
    }
    Ok(Some(table))
}

/// [`transition_table`] read from the automaton's own class table, when it has one of the
/// expected shape with targets in range (else `None`: the caller asks state by state).
fn class_table<A>(dfa: &A, dense: &DenseClasses) -> Option<Vec<u32>>
where
    A: ByteAutomaton + ?Sized,
{
    let (classes, src) = (dfa.byte_classes()?, dfa.class_table()?);
    let n = dfa.num_states();
    let width = classes.iter().map(|&c| c as usize + 1).max()?;
    if src.len() != n * width || src.iter().any(|&t| t != NONE && t as usize >= n) {
        return None;
    }
    let columns: Vec<usize> = dense
        .representative
        .iter()
        .map(|&b| classes[b as usize] as usize)
        .collect();
    let mut table = Vec::with_capacity(n * columns.len());
    for row in src.chunks_exact(width) {
        table.extend(columns.iter().map(|&c| row[c]));
    }
    Some(table)
}

impl Grouping {
    /// Groups the tokens of `trie` for a DFA of `num_dfa_states` states with classes
    /// `dense` and transition `table`: small DFAs by transition function (no walks);
    /// larger ones, or when the functions multiply past their budget or `memory_limit`
    /// bytes, by class string. An error past `deadline`.
    pub(super) fn new(
        trie: &VocabTrie,
        dense: DenseClasses,
        table: Option<&[u32]>,
        num_dfa_states: usize,
        group_by: GroupBy,
        (deadline, memory_limit): (Option<Instant>, usize),
    ) -> Result<Grouping, ComposeError> {
        let k = dense.representative.len();
        // (whether to try functions, their budget)
        let (try_functions, budget) = match group_by {
            GroupBy::Auto => (
                true,
                MIN_FUNCTION_ENTRIES.max(FUNCTION_ENTRIES_PER_STATE.saturating_mul(num_dfa_states)),
            ),
            #[cfg(test)]
            GroupBy::Functions | GroupBy::ByteFunctions => (true, usize::MAX),
            #[cfg(test)]
            GroupBy::ClassStrings => (false, 0),
        };
        let by_function = match table {
            Some(table) if try_functions => {
                // The first folded trie (far smaller) whose partition the pattern does not split.
                let folded = match group_by {
                    #[cfg(test)]
                    GroupBy::ByteFunctions => None,
                    _ => first_unsplit_fold(&dense.class_of_byte),
                };
                let (levels, class_of_symbol): (&LevelTrie, &[u8]) = match &folded {
                    Some((i, classes)) => (&trie.folded_levels[*i], classes),
                    None => (&trie.levels, &dense.class_of_byte),
                };
                // A live pair takes 8 bytes.
                let budget = budget.min(memory_limit / 8);
                let sizes = (k, num_dfa_states, budget);
                FunctionGroups::new(levels, class_of_symbol, table, sizes, deadline)
                    .map_err(|PastDeadline| deadline_error("grouping the tokens", 0))?
            }
            _ => None,
        };
        Ok(match by_function {
            Some(functions) => Grouping::Functions(functions),
            None => {
                // Classes no state has a transition on: tokens containing them never fit.
                // Known only from the table (without it, nothing is pruned up front).
                let mut dead = vec![table.is_some(); k];
                if let Some(table) = table {
                    for row in table.chunks(k) {
                        for (c, &t) in row.iter().enumerate() {
                            if t != NONE {
                                dead[c] = false;
                            }
                        }
                    }
                }
                Grouping::Trie(ClassTrie::new(trie, dense, &dead))
            }
        })
    }

    pub(super) fn groups(&self) -> &TokenGroups {
        match self {
            Grouping::Functions(functions) => &functions.groups,
            Grouping::Trie(classes) => &classes.groups,
        }
    }

    pub(super) fn into_groups(self) -> TokenGroups {
        match self {
            Grouping::Functions(functions) => functions.groups,
            Grouping::Trie(classes) => classes.groups,
        }
    }

    /// The `(group, target)` edges of every state of `frontier`, as lists of which each
    /// state owns the returned count in a row, counted against the token edge limit.
    /// Incomplete once `stops` says stop (the caller asks it first).
    pub(super) fn frontier_edges<A>(
        &self,
        dfa: &A,
        table: Option<&[u32]>,
        frontier: &[u32],
        stops: &Stops,
    ) -> (Vec<Vec<(u32, u32)>>, usize)
    where
        A: ByteAutomaton + Sync + ?Sized,
    {
        let classes = match self {
            Grouping::Functions(functions) => {
                let mut walked = Vec::with_capacity(frontier.len());
                for (i, &s) in frontier.iter().enumerate() {
                    if i % POLL_EVERY == 0 && stops.stopped() {
                        break;
                    }
                    let (list, found) = functions.edges(s);
                    stops.count(found);
                    walked.push(list);
                }
                return (walked, 1);
            }
            Grouping::Trie(classes) => classes,
        };
        let whole = [(1u32, classes.num_nodes() as u32)];
        // A small frontier is split by trie chunks so that every thread has work.
        let chunks: &[(u32, u32)] = if frontier.len() >= 4 * rayon::current_num_threads() {
            &whole
        } else {
            &classes.chunks
        };
        let items: Vec<(u32, (u32, u32))> = frontier
            .iter()
            .flat_map(|&s| chunks.iter().map(move |&c| (s, c)))
            .collect();
        // Threads pay off only when there are many class-trie nodes to walk.
        let parallel =
            items.len() > 1 && frontier.len() * classes.num_nodes() >= PARALLEL_WALK_NODES;
        let walked = match table {
            Some(table) => {
                let k = classes.num_classes();
                let step = |s: u32, c: u32| {
                    let t = table[s as usize * k + c as usize];
                    (t != NONE).then_some(t)
                };
                walk_items(classes, &step, &items, parallel, stops)
            }
            None => {
                let num_dfa_states = dfa.num_states();
                let step = |s: u32, c: u32| {
                    if (s as usize) < num_dfa_states {
                        dfa.next(s, classes.representative[c as usize])
                    } else {
                        None
                    }
                };
                walk_items(classes, &step, &items, parallel, stops)
            }
        };
        (walked, chunks.len())
    }
}

/// The group edges of every `(state, node range)` item, on threads when `parallel`.
/// Stops early (returning empty lists) once the token edges pass the limit or the
/// deadline passes (polled before each item: a walk of a class-trie range).
fn walk_items<F>(
    classes: &ClassTrie,
    step: &F,
    items: &[(u32, (u32, u32))],
    parallel: bool,
    stops: &Stops,
) -> Vec<Vec<(u32, u32)>>
where
    F: Fn(u32, u32) -> Option<u32> + Sync,
{
    let walk = |stack: &mut Vec<u32>, &(state, range): &(u32, (u32, u32))| {
        let mut out = Vec::new();
        if stops.stopped() {
            return out;
        }
        let found = classes.walk(step, state, range, stack, &mut out);
        stops.count(found);
        if stops.over_limit() {
            out = Vec::new();
        }
        out
    };
    let new_stack = || vec![0u32; classes.max_depth + 1];
    if parallel {
        items.par_iter().map_init(new_stack, walk).collect()
    } else {
        let mut stack = new_stack();
        items.iter().map(|item| walk(&mut stack, item)).collect()
    }
}
