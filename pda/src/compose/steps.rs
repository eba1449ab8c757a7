//! The byte PDA as lookup tables, and one byte of a token's run over it with a symbolic
//! stack: the inner loop of the composition walk. A run tracks only the token's own
//! pushes; a return below them ends the run and hands the walk the states it may return
//! to, each continued as a run of its own (`walk`).
//!
//! Stack symbols here are the token PDA's: the byte PDA's return address `i` is symbol
//! `i - 1`, and its initial symbol `[•]` is not a symbol at all (popping it ends the text,
//! which only EOS may do).

use fstc_core::fast_hash::FastMap;

use crate::byte_pda::{Pda, StackSym};

/// No byte edge.
const DEAD: u32 = u32::MAX;

/// The byte PDA as tables for the walk.
pub(super) struct Steps<'p> {
    pda: &'p Pda,
    /// Per `state * 256 + byte`: the byte edge's target (`DEAD` for none) and the index in
    /// `pushes` of what it pushes.
    byte: Vec<(u32, u32)>,
    /// Per state: its returns `(symbol, target)`, by symbol.
    returns: Vec<Vec<(u32, u32)>>,
    /// Per state: whether the text may end there (it returns from the start rule).
    ends: Vec<bool>,
    /// Per state: whether only returns leave it.
    complete: Vec<bool>,
    pushes: Vec<Vec<u32>>,
    /// Nondeterministic PDAs only: per `state * 256 + byte`, the byte edges after the
    /// first, and whether the state's rule may return before the byte.
    more: Option<NondetSteps>,
}

/// What a nondeterministic byte PDA adds to the tables.
struct NondetSteps {
    edges: FastMap<usize, Vec<(u32, u32)>>,
    /// Per `state * 256 + byte`: whether `edges` has an entry, so that the walk's inner
    /// loop looks the map up only where there is one.
    has_edges: Vec<bool>,
    returns_before: Vec<bool>,
}

/// One possible run of the byte PDA over the bytes of a token read so far, since the
/// token's start or its last return below its own pushes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) struct Run {
    pub state: u32,
    /// The symbols the token pushed that are still on the stack: a node of [`Stacks`].
    pub own: u32,
}

/// The stacks of a token's own pushes as a tree, each node a symbol on its parent's stack
/// (node 0 the empty stack, the root), so that a run is two numbers: a byte read copies
/// them instead of a vector, and equal stacks are one node.
pub(super) struct Stacks {
    /// Per node: its parent and top symbol (unused for the root).
    nodes: Vec<(u32, u32)>,
    children: FastMap<(u32, u32), u32>,
}

impl Stacks {
    pub fn new() -> Stacks {
        Stacks {
            nodes: vec![(0, 0)],
            children: FastMap::default(),
        }
    }

    /// Number of nodes made so far.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    fn push(&mut self, at: u32, symbol: u32) -> u32 {
        let next = self.nodes.len() as u32;
        let node = *self.children.entry((at, symbol)).or_insert(next);
        if node == next {
            self.nodes.push((at, symbol));
        }
        node
    }

    pub fn top(&self, at: u32) -> Option<u32> {
        (at != 0).then(|| self.nodes[at as usize].1)
    }

    pub fn pop(&self, at: u32) -> u32 {
        self.nodes[at as usize].0
    }

    /// The stack `top`'s symbols pushed over the stack `base`.
    pub fn append(&mut self, mut base: u32, top: u32) -> u32 {
        for s in self.symbols(top) {
            base = self.push(base, s);
        }
        base
    }

    /// The symbols of the stack `at`, in push order.
    pub fn symbols(&self, mut at: u32) -> Vec<u32> {
        let mut out = Vec::new();
        while at != 0 {
            out.push(self.nodes[at as usize].1);
            at = self.nodes[at as usize].0;
        }
        out.reverse();
        out
    }
}

/// The token PDA's symbol of a byte-PDA symbol; `None` for `[•]`.
fn symbol(s: StackSym) -> Option<u32> {
    s.index().checked_sub(1)
}

impl<'p> Steps<'p> {
    /// The bytes [`Steps::new`] allocates for `pda`'s tables (its edges' pushes aside),
    /// for the memory budget before they are.
    pub fn bytes(pda: &Pda) -> usize {
        let n = pda.num_states();
        let per_state = 256 * (std::mem::size_of::<(u32, u32)>() + 2) + 2 * 24 + 2;
        n.saturating_mul(per_state)
    }

    pub fn new(pda: &'p Pda) -> Steps<'p> {
        let n = pda.num_states();
        let mut steps = Steps {
            pda,
            byte: vec![(DEAD, 0); n * 256],
            returns: vec![Vec::new(); n],
            ends: vec![false; n],
            complete: vec![false; n],
            pushes: vec![Vec::new()],
            more: None,
        };
        let mut more = NondetSteps {
            edges: FastMap::default(),
            has_edges: vec![false; n * 256],
            returns_before: vec![false; n * 256],
        };
        for q in 0..n as u32 {
            steps.complete[q as usize] = pda.is_complete(q);
            for e in pda.edges(q) {
                match e.input {
                    Some(b) => {
                        let push = if e.pushes.is_empty() {
                            0
                        } else {
                            steps
                                .pushes
                                .push(e.pushes.iter().filter_map(|&s| symbol(s)).collect());
                            steps.pushes.len() as u32 - 1
                        };
                        let at = q as usize * 256 + b as usize;
                        if steps.byte[at].0 == DEAD {
                            steps.byte[at] = (e.target, push);
                        } else {
                            more.edges.entry(at).or_default().push((e.target, push));
                            more.has_edges[at] = true;
                        }
                    }
                    None => match symbol(e.pops[0]) {
                        Some(s) => steps.returns[q as usize].push((s, e.target)),
                        None => steps.ends[q as usize] = true,
                    },
                }
            }
            steps.returns[q as usize].sort_unstable();
            for b in 0..=255u8 {
                more.returns_before[q as usize * 256 + b as usize] = pda.returns_before(q, b);
            }
        }
        if !pda.is_deterministic() {
            steps.more = Some(more);
        }
        steps
    }

    /// Whether the byte PDA is nondeterministic (runs then branch on every way).
    pub fn is_nondeterministic(&self) -> bool {
        self.more.is_some()
    }

    /// The return of `state` popping `sym`, if it has one.
    fn ret(&self, state: u32, sym: u32) -> Option<u32> {
        let r = &self.returns[state as usize];
        r.binary_search_by_key(&sym, |&(s, _)| s)
            .ok()
            .map(|i| r[i].1)
    }

    /// Advances `run` over byte `b`; the surviving runs go to `out`, and where a run must
    /// return below the token's own pushes, each `(symbol, state)` it may pop to goes to
    /// `below` (the returns of its state: the return addresses of its rule's callers), for
    /// the caller to continue as a new run before `b`.
    pub fn advance(
        &self,
        stacks: &mut Stacks,
        mut run: Run,
        b: u8,
        (out, below): (&mut Vec<Run>, &mut Vec<(u32, u32)>),
    ) {
        let more = self.more.as_ref();
        loop {
            let at = run.state as usize * 256 + b as usize;
            match more {
                Some(more) => self.read_every_way(stacks, more, run, at, out),
                None if self.byte[at].0 != DEAD => {
                    return self.read_edge(stacks, run, self.byte[at], out)
                }
                None => {}
            }
            // A nondeterministic PDA also returns where its rule may return before `b`.
            if more.is_some_and(|m| !m.returns_before[at]) {
                return;
            }
            let Some(top) = stacks.top(run.own) else {
                below.extend_from_slice(&self.returns[run.state as usize]);
                return;
            };
            let Some(next) = self.ret(run.state, top) else {
                return;
            };
            run.own = stacks.pop(run.own);
            run.state = next;
        }
    }

    /// Follows every byte edge of table entry `at` (`run.state` and the byte) from `run`.
    fn read_every_way(
        &self,
        stacks: &mut Stacks,
        more: &NondetSteps,
        run: Run,
        at: usize,
        out: &mut Vec<Run>,
    ) {
        if self.byte[at].0 != DEAD {
            self.read_edge(stacks, run, self.byte[at], out);
            if more.has_edges[at] {
                for &edge in more.edges.get(&at).into_iter().flatten() {
                    self.read_edge(stacks, run, edge, out);
                }
            }
        }
    }

    /// Follows the byte edge `(target, push)` from `run.state` and pushes the run to `out`
    /// after its forced returns, unless one finds no return for its top.
    fn read_edge(
        &self,
        stacks: &mut Stacks,
        mut run: Run,
        (target, push): (u32, u32),
        out: &mut Vec<Run>,
    ) {
        for &s in &self.pushes[push as usize] {
            run.own = stacks.push(run.own, s);
        }
        run.state = target;
        out.extend(self.forced_returns(stacks, run));
    }

    /// `run` after the returns from finished rules into the token's own pushes, which are
    /// forced (doing them at once makes edges push less and fewer states boundaries);
    /// `None` where a finished rule has no return for the top symbol.
    pub fn forced_returns(&self, stacks: &Stacks, mut run: Run) -> Option<Run> {
        while self.complete[run.state as usize] {
            let Some(top) = stacks.top(run.own) else {
                break;
            };
            run.state = self.ret(run.state, top)?;
            run.own = stacks.pop(run.own);
        }
        Some(run)
    }

    /// The returns `(symbol, target)` of `state`, by symbol.
    pub fn returns(&self, state: u32) -> &[(u32, u32)] {
        &self.returns[state as usize]
    }

    /// Whether the text may end at `state` (it returns from the start rule).
    pub fn ends(&self, state: u32) -> bool {
        self.ends[state as usize]
    }

    /// The dotted rule of `state`, for messages.
    pub fn name(&self, state: u32) -> &str {
        self.pda.state_name(state)
    }

    /// The dotted rule of `state` and its rule with where it is defined, for messages.
    pub fn place(&self, state: u32) -> String {
        format!("`{}` in {}", self.name(state), self.pda.state_rule(state))
    }
}
