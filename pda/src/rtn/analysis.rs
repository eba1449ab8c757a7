//! The checks on an RTN, the sets its PDA is built from, and whether that PDA is
//! deterministic.
//!
//! Per DFA state: whether the rule can end there without reading a byte (`nullable`: final,
//! or calls to rules that may be empty before a final state), and the bytes that can come
//! next without returning (`first`). Per rule: the bytes (and the end) that can follow it
//! (`follow`). Every rule must be able to finish, and no rule may call itself before
//! reading a byte. A byte has *routes* out of every state — read it, call a rule it
//! starts, skip a rule that may be empty, or return; where some byte has several, the PDA
//! keeps them all (nondeterministic), and [`Analysis::conflict_report`] lists every such
//! conflict, each with an input that leads there.

use super::dfa::CALL;
use super::witness::Witness;
use super::Rtn;
use crate::budget::Budget;
use crate::error::{PdaError, PdaErrorKind};
use crate::grammar::fmt_literal;

/// A set of bytes plus the end of the text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct LookSet {
    bytes: [u64; 4],
    end: bool,
}

impl LookSet {
    pub fn contains(&self, b: u8) -> bool {
        self.bytes[usize::from(b >> 6)] >> (b & 63) & 1 == 1
    }

    fn insert(&mut self, b: u8) -> bool {
        let old = *self;
        self.bytes[usize::from(b >> 6)] |= 1 << (b & 63);
        *self != old
    }

    fn union(&mut self, other: &LookSet) -> bool {
        let old = *self;
        for (w, o) in self.bytes.iter_mut().zip(other.bytes) {
            *w |= o;
        }
        self.end |= other.end;
        *self != old
    }
}

/// How a byte leaves a state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Route {
    /// Read it, going to this state.
    Byte(u32),
    /// Call the rule (it starts with the byte); return to the state.
    Call(u32, u32),
    /// The rule may be empty: go past it to the state, which reads the byte.
    Skip(u32, u32),
    /// End the current rule; the byte follows it.
    Return,
}

/// The sets of a checked RTN.
pub(crate) struct Analysis {
    pub nullable: Vec<Vec<bool>>,
    pub first: Vec<Vec<LookSet>>,
    pub follow: Vec<LookSet>,
}

/// Calls of a DFA row: `(rule, return state)`.
fn calls(row: &[(u32, u32)]) -> impl Iterator<Item = (usize, u32)> + '_ {
    row.iter()
        .filter(|(l, _)| *l >= CALL)
        .map(|&(l, t)| ((l - CALL) as usize, t))
}

/// Every DFA state of every rule as one index, and which states read each one's sets: a
/// state reads its targets and the start of the rules it calls.
struct States {
    /// Index of each rule's state 0.
    offsets: Vec<usize>,
    readers: Vec<Vec<u32>>,
}

impl States {
    fn new(rtn: &Rtn) -> States {
        let mut offsets = vec![0];
        for d in &rtn.dfas {
            offsets.push(offsets.last().copied().unwrap_or(0) + d.len());
        }
        let mut readers = vec![Vec::new(); offsets[rtn.dfas.len()]];
        for (k, d) in rtn.dfas.iter().enumerate() {
            for (q, row) in d.trans.iter().enumerate() {
                let x = (offsets[k] + q) as u32;
                for &(l, t) in row {
                    readers[offsets[k] + t as usize].push(x);
                    if l >= CALL {
                        readers[offsets[(l - CALL) as usize]].push(x);
                    }
                }
            }
        }
        States { offsets, readers }
    }

    /// The rule and state of index `x`.
    fn at(&self, x: usize) -> (usize, usize) {
        let k = self.offsets.partition_point(|&o| o <= x) - 1;
        (k, x - self.offsets[k])
    }

    /// What the analysis of index `x` is doing, for a budget's message.
    fn place(&self, rtn: &Rtn, x: usize) -> String {
        analysing(rtn, self.at(x).0)
    }
}

/// What the analysis of rule `k` is doing, for a budget's message.
fn analysing(rtn: &Rtn, k: usize) -> String {
    format!("analysing {}", rtn.rule_name(k))
}

/// Recomputes nodes until nothing changes, from a worklist: `eval(x)` recomputes node `x`
/// and says whether it changed, and then the nodes in `readers[x]` are recomputed. Work is
/// proportional to the edges times how often a value can grow, not to the number of
/// passes a fixed order needs (one per state of a long literal or rule of a long chain).
/// Within `budget`, `place(x)` naming node `x` for its message.
fn fixpoint(
    readers: &[Vec<u32>],
    (budget, place): (&Budget, &dyn Fn(usize) -> String),
    mut eval: impl FnMut(usize) -> bool,
) -> Result<(), PdaError> {
    let n = readers.len();
    let mut queued = vec![true; n];
    let mut work: Vec<u32> = (0..n as u32).collect();
    while let Some(x) = work.pop() {
        queued[x as usize] = false;
        budget.tick(|| place(x as usize))?;
        if eval(x as usize) {
            for &y in &readers[x as usize] {
                if !std::mem::replace(&mut queued[y as usize], true) {
                    work.push(y);
                }
            }
        }
    }
    Ok(())
}

fn fmt_look(b: u8) -> String {
    match b {
        b'`' => "byte '`'".to_string(),
        0x21..=0x7e => format!("byte `{}`", b as char),
        _ => format!("byte 0x{b:02X}"),
    }
}

impl Analysis {
    /// Runs every check on `rtn`, within `budget`.
    pub fn new(rtn: &Rtn, budget: &Budget) -> Result<Analysis, PdaError> {
        let per_state = |v| {
            rtn.dfas
                .iter()
                .map(|d| vec![v; d.len()])
                .collect::<Vec<_>>()
        };
        let mut a = Analysis {
            nullable: per_state(false),
            first: rtn
                .dfas
                .iter()
                .map(|d| vec![LookSet::default(); d.len()])
                .collect(),
            follow: vec![LookSet::default(); rtn.dfas.len()],
        };
        check_productive(rtn, budget)?;
        a.compute_nullable(rtn, budget)?;
        a.check_left_recursion(rtn)?;
        a.compute_first(rtn, budget)?;
        a.compute_follow(rtn, budget)?;
        Ok(a)
    }

    fn compute_nullable(&mut self, rtn: &Rtn, budget: &Budget) -> Result<(), PdaError> {
        let states = States::new(rtn);
        let nullable = &mut self.nullable;
        let place = |x| states.place(rtn, x);
        fixpoint(&states.readers, (budget, &place), |x| {
            let (k, q) = states.at(x);
            let d = &rtn.dfas[k];
            let v = d.finals[q]
                || calls(&d.trans[q]).any(|(m, r)| nullable[m][0] && nullable[k][r as usize]);
            let changed = v && !nullable[k][q];
            nullable[k][q] |= v;
            changed
        })
    }

    fn compute_first(&mut self, rtn: &Rtn, budget: &Budget) -> Result<(), PdaError> {
        let states = States::new(rtn);
        let (first, nullable) = (&mut self.first, &self.nullable);
        let place = |x| states.place(rtn, x);
        fixpoint(&states.readers, (budget, &place), |x| {
            let (k, q) = states.at(x);
            let mut set = first[k][q];
            for &(l, r) in &rtn.dfas[k].trans[q] {
                if l < CALL {
                    set.insert(l as u8);
                } else {
                    let m = (l - CALL) as usize;
                    set.union(&first[m][0]);
                    if nullable[m][0] {
                        set.union(&first[k][r as usize]);
                    }
                }
            }
            first[k][q].union(&set)
        })
    }

    fn compute_follow(&mut self, rtn: &Rtn, budget: &Budget) -> Result<(), PdaError> {
        self.follow[0].end = true;
        // Per rule, where it is called: (caller, return state); a rule's follow set is read
        // by the rules it calls.
        let n = rtn.dfas.len();
        let mut sites: Vec<Vec<(usize, u32)>> = vec![Vec::new(); n];
        let mut readers: Vec<Vec<u32>> = vec![Vec::new(); n];
        for (k, d) in rtn.dfas.iter().enumerate() {
            for row in &d.trans {
                for (m, r) in calls(row) {
                    sites[m].push((k, r));
                    readers[k].push(m as u32);
                }
            }
        }
        let (follow, first, nullable) = (&mut self.follow, &self.first, &self.nullable);
        let place = |m| analysing(rtn, m);
        fixpoint(&readers, (budget, &place), |m| {
            let mut set = follow[m];
            for &(k, r) in &sites[m] {
                set.union(&first[k][r as usize]);
                if nullable[k][r as usize] {
                    set.union(&follow[k]);
                }
            }
            follow[m].union(&set)
        })
    }

    /// The routes of byte `b` out of state `q` of rule `k` (at most one in a deterministic
    /// grammar).
    pub fn routes(&self, rtn: &Rtn, k: usize, q: usize, b: u8) -> Vec<Route> {
        let row = &rtn.dfas[k].trans[q];
        let mut out = Vec::new();
        if let Ok(i) = row.binary_search_by_key(&u32::from(b), |&(l, _)| l) {
            out.push(Route::Byte(row[i].1));
        }
        for (m, r) in calls(row) {
            if self.first[m][0].contains(b) {
                out.push(Route::Call(m as u32, r));
            }
            if self.nullable[m][0] && self.first[k][r as usize].contains(b) {
                out.push(Route::Skip(m as u32, r));
            }
        }
        if self.nullable[k][q] && self.follow[k].contains(b) {
            out.push(Route::Return);
        }
        out
    }

    /// Rule `k` calls rule `m` before reading a byte (possibly after rules that may be empty).
    fn left_calls(&self, rtn: &Rtn, k: usize) -> Vec<usize> {
        let d = &rtn.dfas[k];
        let (mut seen, mut work, mut out) = (vec![false; d.len()], vec![0u32], Vec::new());
        while let Some(q) = work.pop() {
            if std::mem::replace(&mut seen[q as usize], true) {
                continue;
            }
            for (m, r) in calls(&d.trans[q as usize]) {
                out.push(m);
                if self.nullable[m][0] {
                    work.push(r);
                }
            }
        }
        out
    }

    fn check_left_recursion(&self, rtn: &Rtn) -> Result<(), PdaError> {
        let n = rtn.dfas.len();
        let edges: Vec<Vec<usize>> = (0..n).map(|k| self.left_calls(rtn, k)).collect();
        // Depth-first with the current path; a back edge is a cycle.
        let mut state = vec![0u8; n];
        for root in 0..n {
            let mut path: Vec<(usize, usize)> = vec![(root, 0)];
            if state[root] != 0 {
                continue;
            }
            state[root] = 1;
            while let Some(&mut (k, ref mut i)) = path.last_mut() {
                let Some(&m) = edges[k].get(*i) else {
                    state[k] = 2;
                    path.pop();
                    continue;
                };
                *i += 1;
                if state[m] == 1 {
                    let from = path.iter().position(|&(x, _)| x == m).unwrap_or(0);
                    let mut cycle: Vec<&str> = path[from..]
                        .iter()
                        .map(|&(x, _)| rtn.names[x].as_str())
                        .collect();
                    cycle.push(&rtn.names[m]);
                    return Err(PdaError::new(
                        PdaErrorKind::LeftRecursion,
                        format!(
                            "{} is left-recursive: it calls itself before reading a byte through {}; only direct left recursion (`a ::= a x | y`) is rewritten, so make the recursion direct or start it with a literal",
                            rtn.rule_name(m),
                            cycle.join(" → ")
                        ),
                    ));
                }
                if state[m] == 0 {
                    state[m] = 1;
                    path.push((m, 0));
                }
            }
        }
        Ok(())
    }

    /// `None` when one byte of lookahead decides every move; otherwise a message listing
    /// every conflict (rule, an input that leads there, the bytes and their routes).
    pub fn conflict_report(&self, rtn: &Rtn, budget: &Budget) -> Result<Option<String>, PdaError> {
        let mut found: Vec<(usize, usize, ByteGroups)> = Vec::new();
        for (k, d) in rtn.dfas.iter().enumerate() {
            for q in 0..d.len() {
                budget.tick(|| analysing(rtn, k))?;
                let mut groups: ByteGroups = Vec::new();
                for b in 0..=255u8 {
                    let routes = self.routes(rtn, k, q, b);
                    if routes.len() < 2 {
                        continue;
                    }
                    let what: Vec<String> = routes.iter().map(|r| describe(rtn, k, *r)).collect();
                    let what = what.join(", or ");
                    match groups.iter_mut().find(|(w, _)| *w == what) {
                        Some((_, bytes)) => bytes.push(b),
                        None => groups.push((what, vec![b])),
                    }
                }
                if !groups.is_empty() {
                    found.push((k, q, groups));
                }
            }
        }
        if found.is_empty() {
            return Ok(None);
        }
        // Example inputs are only worth computing for a message.
        let texts = Witness::with_inputs(rtn, budget)?;
        let mut lines = Vec::new();
        for (k, q, groups) in found {
            for (what, bytes) in groups {
                let shown: Vec<String> = bytes.iter().take(4).map(|&b| fmt_look(b)).collect();
                let more = if bytes.len() > 4 {
                    format!(" (and {} more bytes)", bytes.len() - 4)
                } else {
                    String::new()
                };
                budget.tick(|| analysing(rtn, k))?;
                lines.push(format!(
                    "  {} at `{}`, after the input {}: {}{more} could {what}",
                    rtn.rule_name(k),
                    texts.state_name(rtn, k, q),
                    fmt_literal(&texts.input(k, q)),
                    shown.join(", "),
                ));
            }
        }
        Ok(Some(format!(
            "the grammar is not deterministic with one byte of lookahead ({} conflict{}):\n{}",
            lines.len(),
            if lines.len() == 1 { "" } else { "s" },
            lines.join("\n")
        )))
    }

    /// Whether the PDA may return from state `q` of rule `k` when `b` comes next.
    pub fn returns_before(&self, k: usize, q: usize, b: u8) -> bool {
        self.nullable[k][q] && self.follow[k].contains(b)
    }
}

/// The bytes of one state in conflict, grouped by what they could do.
type ByteGroups = Vec<(String, Vec<u8>)>;

fn describe(rtn: &Rtn, k: usize, r: Route) -> String {
    match r {
        Route::Byte(_) => "be read directly".to_string(),
        Route::Call(m, _) => format!("start a call of `{}`", rtn.names[m as usize]),
        Route::Skip(m, _) => format!("follow an empty `{}`", rtn.names[m as usize]),
        Route::Return => format!("follow the end of `{}`", rtn.names[k]),
    }
}

/// Every rule must be able to finish: a path to a final state whose calls can all finish.
fn check_productive(rtn: &Rtn, budget: &Budget) -> Result<(), PdaError> {
    let mut done: Vec<Vec<bool>> = rtn.dfas.iter().map(|d| d.finals.clone()).collect();
    let states = States::new(rtn);
    let place = |x| states.place(rtn, x);
    fixpoint(&states.readers, (budget, &place), |x| {
        let (k, q) = states.at(x);
        let v = rtn.dfas[k].trans[q]
            .iter()
            .any(|&(l, t)| done[k][t as usize] && (l < CALL || done[(l - CALL) as usize][0]));
        let changed = v && !done[k][q];
        done[k][q] |= v;
        changed
    })?;
    let stuck: Vec<String> = (0..rtn.dfas.len())
        .filter(|&k| !done[k][0])
        .map(|k| rtn.rule_name(k))
        .collect();
    if stuck.is_empty() {
        return Ok(());
    }
    Err(PdaError::new(
        PdaErrorKind::NonProductive,
        format!(
            "{} can never finish: every way through {} calls a rule that cannot finish (or matches nothing)",
            stuck.join(", "),
            if stuck.len() == 1 { "it" } else { "them" }
        ),
    ))
}
