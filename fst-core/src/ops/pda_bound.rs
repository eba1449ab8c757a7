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

use super::pda_explore::{memory_error, Annotated, Construction, Explorer};
use super::rows::{reverse_row_fixpoint, RowTable};
use super::{Clock, OpsError, OpsErrorKind};
use crate::automaton::StateId;
use crate::fast_hash::FastMap;
use crate::parts::PdaParts;

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

impl RowTable for Costs {
    type Entry = u16;

    fn row(&self, m: usize) -> &[u16] {
        &self.data[m * self.cols..(m + 1) * self.cols]
    }

    fn row_mut(&mut self, m: usize) -> &mut [u16] {
        &mut self.data[m * self.cols..(m + 1) * self.cols]
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
    let mut work = 0u64;
    reverse_row_fixpoint(&mut c, n, 256, clock, |c, m, row| {
        for &(t, push) in &sh.moves[m] {
            for (x, cost) in after_pops(sh, c, t, &sh.p.push_seqs[push as usize], &mut work) {
                let step = sh.add(1, cost);
                for (r, &v) in row.iter_mut().zip(c.row(x as usize)) {
                    *r = (*r).min(sh.add(step, v));
                }
                work += cols as u64;
            }
        }
        if work > WORK_LIMIT {
            return Err(too_large(
                n,
                format!("its same-level costs took more than 2^36 steps over {n} nodes"),
            ));
        }
        Ok(())
    })?;
    Ok(c)
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

/// The bounded PDA's construction state: the cost table and the interned `U`s.
struct Bounder<'a> {
    sh: &'a Shape<'a>,
    costs: Costs,
    /// Normalized finishing costs `U` of stacks, interned.
    us: Vec<Vec<u16>>,
    u_ids: FastMap<Vec<u16>, u32>,
    /// `(s, U under)` → `(U with s on top, δ)`, `None` when nothing finishes over it.
    push_memo: FastMap<(u32, u32), Option<(u32, u16)>>,
    /// Bytes of the cost table and the interned `U`s, against `memory_limit`.
    held: u64,
    memory_limit: usize,
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
        held: costs.data.len() as u64 * 2,
        costs,
        us: Vec::new(),
        u_ids: FastMap::default(),
        push_memo: FastMap::default(),
        memory_limit,
    };
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
    let what = "a token PDA bounded by a number of tokens";
    let x = Explorer::new(&p.accepting, what, state_limit, clock);
    x.run(&mut b, (p.start, u0, e0)).map(Some)
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
}

/// A node `(PDA node, U of its stack, slack)` keeps the edges whose target can finish
/// within the slack left, and the pops whose landing node can.
impl Construction for Bounder<'_> {
    type Node = (StateId, u32, u16);

    fn explore(
        &mut self,
        x: &mut Explorer<'_, Self::Node>,
        (m, u, e): Self::Node,
    ) -> Result<(), OpsError> {
        let p = self.sh.p;
        let (mut stack, mut pushed) = (Vec::new(), Vec::new());
        for edge in &p.edges[m as usize] {
            let seq = &p.push_seqs[edge.push as usize];
            let (mut cur, mut slack) = (u, e as i64 - 1);
            stack.clear();
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
            pushed.clear();
            pushed.extend(stack.iter().map(|&(s, under, top)| x.symbol(s, under, top)));
            x.edge(edge.class, &pushed, (edge.target, cur, slack as u16))?;
        }
        Ok(())
    }

    fn pop(
        &mut self,
        (m, _, e): Self::Node,
        (s, under): (u32, u32),
    ) -> Result<Option<Self::Node>, OpsError> {
        let Some(z) = self.sh.pop(m, s) else {
            return Ok(None);
        };
        let (_, delta) = (self.push(s, under)?).expect("a symbol is made only over a live stack");
        let e2 = e as u32 + delta as u32;
        let kept = e2 <= self.sh.bound as u32 && self.us[under as usize][z as usize] as u32 <= e2;
        Ok(kept.then_some((z, under, e2 as u16)))
    }
}
