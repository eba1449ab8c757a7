//! A token PDA bounded to at most `N` tokens, without dead ends, in about `N` × its
//! nodes (the general product with a counter makes about `N²` ×: a node there knows
//! both the tokens used and what its stack needs to close).
//!
//! Let `V_σ(m)` be the fewest tokens that finish from `(m, σ)`. A configuration with `r`
//! tokens left can finish iff `V_σ(m) ≤ r`, and `V_{σ·s} = A_s ⊗ V_σ` (min-plus, `A_s(m, z)`
//! the cheapest same-level run from `m` to a node whose pop of `s` lands on `z`). Write
//! `V_σ = U_σ + o_σ` with `min U_σ = 0`: a stack symbol carries `(s, U)` of the stack
//! under it (from which `U` and the offset step `δ` of the stack with it on top follow),
//! and a node carries `(m, U_σ, e)` with the *slack* `e = r - o_σ`. A token lowers `e` by
//! one, a push of `s` by `δ` more, a pop raises it by `δ`; the edge is kept iff its target
//! can finish, `U(t) ≤ e`. Stacks that differ only by their offset (a bracket nested one
//! deeper) share a `U`, so nodes with equal slack merge. Costs past `N` are all one
//! (`INF`): a configuration needing them cannot finish anyway.

use std::collections::VecDeque;

use super::pda_live::Annotated;
use super::{Clock, OpsError, OpsErrorKind};
use crate::automaton::StateId;
use crate::fast_hash::FastMap;
use crate::parts::{PdaEdge, PdaParts};

/// A cost past the bound.
const INF: u16 = u16::MAX;

/// Largest bound the construction takes (costs are `u16`, sums of two below `INF`).
pub(crate) const MAX_BOUND: usize = (INF as usize - 1) / 2;

/// Most cost updates of the same-level passes, so a grammar whose same-level costs
/// converge too slowly fails instead of running on.
const WORK_LIMIT: u64 = 1 << 36;

/// The fewest tokens of a same-level run (one that pops only what it pushed) from each
/// node to each *column* node (a node that pops or accepts), capped: `INF` past `bound`.
struct Costs {
    cols: usize,
    col_of: Vec<u32>,
    data: Vec<u16>,
}

impl Costs {
    fn row(&self, m: usize) -> &[u16] {
        &self.data[m * self.cols..(m + 1) * self.cols]
    }
}

/// What the construction needs of the PDA: its pops by symbol, deduplicated edges.
struct Shape<'a> {
    p: &'a PdaParts,
    /// Per symbol: `(column of the popping node, where the pop lands)`.
    popping: Vec<Vec<(u32, StateId)>>,
    /// Per node: the distinct `(target, push)` of its edges.
    moves: Vec<Vec<(StateId, u32)>>,
    bound: u16,
}

impl Shape<'_> {
    fn pop(&self, node: StateId, symbol: u32) -> Option<StateId> {
        let list = &self.p.pops[node as usize];
        let i = list.binary_search_by_key(&symbol, |&(s, _)| s).ok()?;
        Some(list[i].1)
    }

    /// `a + b`, `INF` past the bound.
    fn add(&self, a: u16, b: u16) -> u16 {
        let sum = a as u32 + b as u32;
        if a == INF || b == INF || sum > self.bound as u32 {
            INF
        } else {
            sum as u16
        }
    }
}

fn shape(p: &PdaParts, bound: u16) -> (Shape<'_>, Vec<u32>, usize) {
    let mut cols = 0;
    let col_of: Vec<u32> = (p.accepting.iter().zip(&p.pops))
        .map(|(&accepting, pops)| {
            if !accepting && pops.is_empty() {
                return u32::MAX;
            }
            cols += 1;
            cols as u32 - 1
        })
        .collect();
    let mut popping = vec![Vec::new(); p.num_stack_symbols as usize];
    for (m, list) in p.pops.iter().enumerate() {
        for &(s, z) in list {
            popping[s as usize].push((col_of[m], z));
        }
    }
    let moves = (p.edges.iter())
        .map(|list| {
            let mut v: Vec<(StateId, u32)> = list.iter().map(|e| (e.target, e.push)).collect();
            v.sort_unstable();
            v.dedup();
            v
        })
        .collect();
    let shape = Shape {
        p,
        popping,
        moves,
        bound,
    };
    (shape, col_of, cols)
}

fn too_large(n: usize, what: String) -> OpsError {
    OpsError::new(
        "intersection",
        OpsErrorKind::TooManyStates { limit: n },
        format!("bounding a token PDA by a number of tokens: {what}"),
    )
}

/// The same-level costs, by passes over the nodes in reverse order until none changes.
/// `memory_limit` caps the matrix's bytes.
fn costs(
    sh: &Shape,
    col_of: Vec<u32>,
    cols: usize,
    memory_limit: usize,
    clock: Clock,
) -> Result<Costs, OpsError> {
    let n = col_of.len();
    let bytes = (n as u64) * (cols as u64) * 2;
    if bytes > memory_limit as u64 {
        return Err(memory_error(
            bytes,
            memory_limit,
            "its table of same-level costs",
        ));
    }
    let mut c = Costs {
        cols,
        col_of,
        data: vec![INF; n * cols],
    };
    for m in 0..n {
        if c.col_of[m] != u32::MAX {
            c.data[m * cols + c.col_of[m] as usize] = 0;
        }
    }
    let mut row = vec![INF; cols];
    let mut work = 0u64;
    loop {
        let mut changed = false;
        for m in (0..n).rev() {
            if m % 256 == 0 {
                clock.check()?;
            }
            row.copy_from_slice(c.row(m));
            for &(t, push) in &sh.moves[m] {
                for (x, cost) in after_pops(sh, &c, t, &sh.p.push_seqs[push as usize], &mut work) {
                    let step = sh.add(1, cost);
                    for (r, &v) in row.iter_mut().zip(c.row(x as usize)) {
                        *r = (*r).min(sh.add(step, v));
                    }
                    work += cols as u64;
                }
            }
            if row != c.row(m) {
                c.data[m * cols..(m + 1) * cols].copy_from_slice(&row);
                changed = true;
            }
            if work > WORK_LIMIT {
                return Err(too_large(
                    n,
                    format!("its same-level costs took more than 2^36 steps over {n} nodes"),
                ));
            }
        }
        if !changed {
            return Ok(c);
        }
    }
}

/// Where same-level runs from `t` that then pop `seq` (top first) land, with their
/// cheapest costs.
fn after_pops(
    sh: &Shape,
    c: &Costs,
    t: StateId,
    seq: &[u32],
    work: &mut u64,
) -> Vec<(StateId, u16)> {
    let mut reach = vec![(t, 0u16)];
    for &s in seq.iter().rev() {
        let mut next: FastMap<StateId, u16> = FastMap::default();
        for &(x, cx) in &reach {
            let row = c.row(x as usize);
            for &(col, z) in &sh.popping[s as usize] {
                let cost = sh.add(cx, row[col as usize]);
                if cost != INF {
                    let slot = next.entry(z).or_insert(INF);
                    *slot = (*slot).min(cost);
                }
            }
            *work += sh.popping[s as usize].len() as u64;
        }
        reach = next.into_iter().collect();
        reach.sort_unstable();
    }
    reach
}

pub(crate) fn memory_error(bytes: u64, limit: usize, what: &str) -> OpsError {
    OpsError::new(
        "intersection",
        OpsErrorKind::Memory { limit },
        format!(
            "the intersection of a token PDA and a token FSA needs {bytes} bytes for {what}, \
             past its memory limit of {limit} bytes"
        ),
    )
}

/// The bounded PDA's construction state.
struct Bounder<'a> {
    sh: &'a Shape<'a>,
    costs: Costs,
    /// Normalized finishing costs `U` of stacks, interned.
    us: Vec<Vec<u16>>,
    u_ids: FastMap<Vec<u16>, u32>,
    /// `(s, U under)` → `(U with s on top, δ)`, `None` when nothing finishes over it.
    push_memo: FastMap<(u32, u32), Option<(u32, u16)>>,
    /// Nodes `(PDA node, U of its stack, slack)`.
    nodes: Vec<(StateId, u32, u16)>,
    node_ids: FastMap<(StateId, u32, u16), StateId>,
    /// Symbols `(s, U under)`.
    symbols: Vec<(u32, u32)>,
    symbol_ids: FastMap<(u32, u32), u32>,
    by_top: FastMap<u32, Vec<u32>>,
    by_u: FastMap<u32, Vec<StateId>>,
    pending: Vec<(StateId, u32)>,
    seq_ids: FastMap<Vec<u32>, u32>,
    out: Annotated,
    queue: VecDeque<StateId>,
    state_limit: usize,
    /// Bytes of the cost table and the interned `U`s, against `memory_limit`.
    held: u64,
    memory_limit: usize,
    clock: Clock,
}

/// `p` restricted to sequences of at most `bound` tokens, without dead ends; `None` when
/// nothing finishes within the bound. `memory_limit` caps the cost table's bytes.
pub(crate) fn bound(
    p: &PdaParts,
    bound: usize,
    (state_limit, memory_limit): (usize, usize),
    clock: Clock,
) -> Result<Option<Annotated>, OpsError> {
    debug_assert!(bound <= MAX_BOUND);
    let (sh, col_of, cols) = shape(p, bound as u16);
    let costs = costs(&sh, col_of, cols, memory_limit, clock)?;
    let mut b = Bounder {
        sh: &sh,
        costs,
        us: Vec::new(),
        u_ids: FastMap::default(),
        push_memo: FastMap::default(),
        nodes: Vec::new(),
        node_ids: FastMap::default(),
        symbols: Vec::new(),
        symbol_ids: FastMap::default(),
        by_top: FastMap::default(),
        by_u: FastMap::default(),
        pending: Vec::new(),
        seq_ids: FastMap::default(),
        out: Annotated {
            accepting: Vec::new(),
            edges: Vec::new(),
            pops: Vec::new(),
            push_seqs: vec![Vec::new()],
            num_stack_symbols: 0,
        },
        queue: VecDeque::new(),
        state_limit,
        held: 0,
        memory_limit,
        clock,
    };
    b.held = b.costs.data.len() as u64 * 2;
    b.seq_ids.insert(Vec::new(), 0);
    let accepting: Vec<usize> = (0..p.accepting.len())
        .filter(|&y| p.accepting[y])
        .map(|y| b.costs.col_of[y] as usize)
        .collect();
    let finish: Vec<u16> = (0..p.accepting.len())
        .map(|m| {
            let row = b.costs.row(m);
            accepting.iter().map(|&c| row[c]).min().unwrap_or(INF)
        })
        .collect();
    let Some((u0, o0)) = b.normalize(finish)? else {
        return Ok(None);
    };
    let e0 = bound as u16 - o0.min(bound as u16);
    if o0 as usize > bound || b.us[u0 as usize][p.start as usize] > e0 {
        return Ok(None);
    }
    b.node((p.start, u0, e0))?;
    b.run()?;
    b.out.num_stack_symbols = b.symbols.len() as u32;
    Ok(Some(b.out))
}

impl Bounder<'_> {
    /// `(U, o)` with `v = U + o`, `min U = 0`, interned; `None` when all of `v` is `INF`.
    /// Each new `U` counts against the memory limit.
    fn normalize(&mut self, mut v: Vec<u16>) -> Result<Option<(u32, u16)>, OpsError> {
        let o = v.iter().copied().min().unwrap_or(INF);
        if o == INF {
            return Ok(None);
        }
        for x in &mut v {
            if *x != INF {
                *x -= o;
            }
        }
        let next = self.us.len() as u32;
        let id = *self.u_ids.entry(v.clone()).or_insert(next);
        if id == next {
            self.held += 4 * v.len() as u64;
            if self.held > self.memory_limit as u64 {
                let what = "its table of same-level costs and finishing costs of stacks";
                return Err(memory_error(self.held, self.memory_limit, what));
            }
            self.us.push(v);
        }
        Ok(Some((id, o)))
    }

    /// `U` and `δ` of the stack `σ·s` where `σ` has `U = under`.
    fn push(&mut self, s: u32, under: u32) -> Result<Option<(u32, u16)>, OpsError> {
        if let Some(&r) = self.push_memo.get(&(s, under)) {
            return Ok(r);
        }
        let (sh, n) = (self.sh, self.sh.p.accepting.len());
        let popping = &sh.popping[s as usize];
        let u = &self.us[under as usize];
        let v: Vec<u16> = (0..n)
            .map(|m| {
                let row = self.costs.row(m);
                (popping.iter())
                    .map(|&(col, z)| sh.add(row[col as usize], u[z as usize]))
                    .min()
                    .unwrap_or(INF)
            })
            .collect();
        let r = self.normalize(v)?;
        self.push_memo.insert((s, under), r);
        Ok(r)
    }

    fn node(&mut self, key: (StateId, u32, u16)) -> Result<StateId, OpsError> {
        if let Some(&id) = self.node_ids.get(&key) {
            return Ok(id);
        }
        if self.nodes.len() >= self.state_limit {
            return Err(OpsError::new(
                "intersection",
                OpsErrorKind::TooManyStates {
                    limit: self.state_limit,
                },
                format!(
                    "a token PDA bounded by a number of tokens has more than {} nodes; raise \
                     the state limit",
                    self.state_limit
                ),
            ));
        }
        let id = self.nodes.len() as StateId;
        self.nodes.push(key);
        self.node_ids.insert(key, id);
        self.out.accepting.push(self.sh.p.accepting[key.0 as usize]);
        self.out.edges.push(Vec::new());
        self.out.pops.push(Vec::new());
        self.queue.push_back(id);
        let tops = self.by_top.get(&key.1).map_or(&[][..], |l| l.as_slice());
        self.pending.extend(tops.iter().map(|&sym| (id, sym)));
        self.by_u.entry(key.1).or_default().push(id);
        Ok(id)
    }

    fn symbol(&mut self, s: u32, under: u32, top: u32) -> u32 {
        let next = self.symbols.len() as u32;
        let id = *self.symbol_ids.entry((s, under)).or_insert(next);
        if id == next {
            self.symbols.push((s, under));
            self.by_top.entry(top).or_default().push(id);
            let nodes = self.by_u.get(&top).map_or(&[][..], |l| l.as_slice());
            self.pending.extend(nodes.iter().map(|&n| (n, id)));
        }
        id
    }

    /// Explores nodes, and adds each node's pop of each symbol that may be on top of its
    /// stack (each pair once, when the later of the two is made).
    fn run(&mut self) -> Result<(), OpsError> {
        loop {
            if let Some(id) = self.queue.pop_front() {
                self.clock.check()?;
                self.explore(id)?;
            } else if let Some((id, sym)) = self.pending.pop() {
                let (m, _, e) = self.nodes[id as usize];
                let (s, under) = self.symbols[sym as usize];
                let Some(z) = self.sh.pop(m, s) else { continue };
                let (_, delta) =
                    (self.push(s, under)?).expect("a symbol is made only over a live stack");
                let e2 = e as u32 + delta as u32;
                if e2 <= self.sh.bound as u32 && self.us[under as usize][z as usize] as u32 <= e2 {
                    let target = self.node((z, under, e2 as u16))?;
                    self.out.pops[id as usize].push((sym, target));
                }
            } else {
                break;
            }
        }
        for list in &mut self.out.pops {
            list.sort_unstable();
        }
        Ok(())
    }

    /// Node `id`'s edges whose target can finish within the slack left.
    fn explore(&mut self, id: StateId) -> Result<(), OpsError> {
        let p = self.sh.p;
        let (m, u, e) = self.nodes[id as usize];
        let mut edges = Vec::new();
        for edge in &p.edges[m as usize] {
            let seq = &p.push_seqs[edge.push as usize];
            let (mut cur, mut slack) = (u, e as i64 - 1);
            let mut stack = Vec::with_capacity(seq.len());
            for &s in seq {
                let Some((top, delta)) = self.push(s, cur)? else {
                    slack = -1;
                    break;
                };
                stack.push((s, cur, top));
                cur = top;
                slack -= delta as i64;
            }
            if slack < 0 || self.us[cur as usize][edge.target as usize] as i64 > slack {
                continue;
            }
            let pushed: Vec<u32> = (stack.into_iter())
                .map(|(s, under, top)| self.symbol(s, under, top))
                .collect();
            let next = self.out.push_seqs.len() as u32;
            let push = *self.seq_ids.entry(pushed.clone()).or_insert(next);
            if push == next {
                self.out.push_seqs.push(pushed);
            }
            let target = self.node((edge.target, cur, slack as u16))?;
            edges.push(PdaEdge {
                class: edge.class,
                target,
                push,
            });
        }
        edges.sort_unstable();
        self.out.edges[id as usize] = edges;
        Ok(())
    }
}
