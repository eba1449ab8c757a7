//! Dead ends out of a token PDA: every edge a walker may take leads to a configuration
//! from which the text can still finish.
//!
//! Whether `(m, stack)` can finish depends on the whole stack, but only through one set
//! per stack: `Live(σ)`, the nodes `m` from which `(m, σ)` finishes. `Live([])` is the
//! nodes that reach an accepting node by a *same-level* run (one that pops only what it
//! pushed), and `Live(σ·s) = f_s(Live(σ))` with `f_s(X)` the nodes with a same-level run to
//! a node whose pop of `s` lands in `X` (the stack languages are regular: pre* of the
//! accepting configurations). So each stack symbol is annotated with the set of the stack
//! under it, `(s, X)`, and each node with the set of its own stack, `(m, Live(σ))`; a node
//! keeps the edges whose target is live over the stack they make, and the pops that land
//! in a live node. The sets are subsets of the product's nodes, interned; the same-level
//! runs are one bit matrix (`n²` bits), saturated once.

use super::pda_explore::{memory_error, Annotated, Construction, Explorer};
use super::pda_product::PdaGraph;
use super::rows::{reverse_row_fixpoint, RowTable};
use super::{Clock, OpsError, OpsErrorKind};
use crate::automaton::StateId;
use crate::fast_hash::FastMap;

/// Most bits of the same-level matrix (`n²` for `n` product nodes): 512 MiB.
const MATRIX_BITS_LIMIT: u64 = 1 << 32;

/// Most word operations of the same-level passes (about a minute), so a product whose
/// same-level runs are too many fails instead of running on.
const SATURATION_WORK_LIMIT: u64 = 1 << 36;

/// Rows of bits, one row per node.
struct Bits {
    words: usize,
    data: Vec<u64>,
}

impl Bits {
    fn new(rows: usize, cols: usize) -> Bits {
        let words = cols.div_ceil(64);
        Bits {
            words,
            data: vec![0; rows * words],
        }
    }

    /// Sets bit `c` of row `r`; whether it was clear.
    fn insert(&mut self, r: usize, c: usize) -> bool {
        let w = &mut self.data[r * self.words + c / 64];
        let bit = 1u64 << (c % 64);
        let fresh = *w & bit == 0;
        *w |= bit;
        fresh
    }
}

impl RowTable for Bits {
    type Entry = u64;

    fn row(&self, r: usize) -> &[u64] {
        &self.data[r * self.words..(r + 1) * self.words]
    }

    fn row_mut(&mut self, r: usize) -> &mut [u64] {
        &mut self.data[r * self.words..(r + 1) * self.words]
    }
}

fn contains(set: &[u64], i: usize) -> bool {
    set[i / 64] & (1 << (i % 64)) != 0
}

fn meets(a: &[u64], b: &[u64]) -> bool {
    a.iter().zip(b).any(|(x, y)| x & y != 0)
}

fn ones(set: &[u64]) -> impl Iterator<Item = usize> + '_ {
    set.iter().enumerate().flat_map(|(w, &bits)| {
        let mut rest = bits;
        std::iter::from_fn(move || {
            let b = rest.trailing_zeros() as usize;
            (rest != 0).then(|| {
                rest &= rest - 1;
                w * 64 + b
            })
        })
    })
}

fn too_large(n: usize, what: &str) -> OpsError {
    OpsError::new(
        "intersection",
        OpsErrorKind::TooManyStates { limit: n },
        format!(
            "the intersection of a token PDA and a token FSA has {n} product nodes, too many \
             for the analysis that removes dead ends ({what}); intersect with a smaller \
             automaton or bound the grammar"
        ),
    )
}

/// `same[m]`: the nodes a same-level run from `m` reaches (`m` included), the least
/// sets with `same[m] ⊇ same[z]` for each same-level successor `z` of `m`: the target of
/// an edge that pushes nothing, or, for an edge to `t` pushing `w`, a node where popping
/// `w`'s symbols top first, each from a node of the same set of the node before, ends.
/// Rows of bits, recomputed in reverse discovery order (tokens tend to lead to later
/// nodes) until none changes: each pass is word operations over rows, so the work is
/// about `passes × edges × n / 64`.
fn same_level(
    g: &PdaGraph,
    seqs: &[Vec<u32>],
    memory_limit: usize,
    clock: Clock,
) -> Result<Bits, OpsError> {
    let n = g.len();
    let bits = (n as u64) * (n as u64);
    if bits > MATRIX_BITS_LIMIT {
        return Err(too_large(n, "its same-level matrix"));
    }
    if bits / 8 > memory_limit as u64 {
        return Err(memory_error(
            bits / 8,
            memory_limit,
            "its same-level matrix",
        ));
    }
    let mut same = Bits::new(n, n);
    for m in 0..n {
        same.insert(m, m);
    }
    let words = same.words;
    let (mut from, mut landed) = (vec![0u64; words], vec![0u64; words]);
    let mut work = 0u64;
    // A row costs a pass over rows of n bits per symbol pushed: poll often.
    reverse_row_fixpoint(&mut same, n, 64, clock, |same, m, row| {
        for &(_, t, p) in &g.edges[m] {
            landed.fill(0);
            landed[t as usize / 64] |= 1 << (t % 64);
            for &symbol in seqs[p as usize].iter().rev() {
                union_of_rows(same, &landed, &mut from);
                landed.fill(0);
                for y in ones(&from) {
                    if let Some(z) = g.pop(y as StateId, symbol) {
                        landed[z as usize / 64] |= 1 << (z % 64);
                    }
                }
                work += (n + words) as u64;
            }
            union_of_rows(same, &landed, &mut from);
            row.iter_mut().zip(&from).for_each(|(r, f)| *r |= f);
            work += words as u64;
        }
        if work > SATURATION_WORK_LIMIT {
            return Err(too_large(
                n,
                "its same-level runs took more than 2^36 steps",
            ));
        }
        Ok(())
    })?;
    Ok(same)
}

/// `out` = the union of the rows of `same` whose index is in `set`.
fn union_of_rows(same: &Bits, set: &[u64], out: &mut [u64]) {
    out.fill(0);
    for r in ones(set) {
        out.iter_mut().zip(same.row(r)).for_each(|(o, w)| *o |= w);
    }
}

/// The construction's own state: the same-level matrix and the interned sets.
struct Annotator<'a> {
    g: &'a PdaGraph,
    seqs: &'a [Vec<u32>],
    same: Bits,
    sets: Vec<Vec<u64>>,
    set_ids: FastMap<Vec<u64>, u32>,
    f_memo: FastMap<(u32, u32), u32>,
    /// Bytes of the matrix and the interned sets, against `memory_limit`.
    held: u64,
    memory_limit: usize,
    /// Polled in each new live-set computation (two passes over the matrix).
    clock: Clock,
}

/// The product with its dead ends removed; `None` when the start cannot finish (the
/// intersection is empty).
pub(crate) fn annotate(
    g: &PdaGraph,
    seqs: &[Vec<u32>],
    (state_limit, memory_limit): (usize, usize),
    clock: Clock,
) -> Result<Option<Annotated>, OpsError> {
    let same = same_level(g, seqs, memory_limit, clock)?;
    let mut a = Annotator {
        g,
        seqs,
        held: same.data.len() as u64 * 8,
        same,
        sets: Vec::new(),
        set_ids: FastMap::default(),
        f_memo: FastMap::default(),
        memory_limit,
        clock,
    };
    let accepting: Vec<u64> = a.set_of(|m| g.accepting[m]);
    let empty = a.set_of(|m| meets(a.same.row(m), &accepting));
    if !contains(&empty, 0) {
        return Ok(None);
    }
    let empty = a.intern(empty)?;
    let what = "the intersection of a token PDA and a token FSA, split by what can still finish,";
    let x = Explorer::new(&g.accepting, what, state_limit, clock);
    x.run(&mut a, (0, empty)).map(Some)
}

impl Annotator<'_> {
    fn set_of(&self, member: impl Fn(usize) -> bool) -> Vec<u64> {
        let n = self.g.len();
        let mut set = vec![0u64; n.div_ceil(64)];
        for m in (0..n).filter(|&m| member(m)) {
            set[m / 64] |= 1 << (m % 64);
        }
        set
    }

    /// The id of `set`; each new set counts against the memory limit.
    fn intern(&mut self, set: Vec<u64>) -> Result<u32, OpsError> {
        if let Some(&id) = self.set_ids.get(&set) {
            return Ok(id);
        }
        self.held += 16 * set.len() as u64;
        if self.held > self.memory_limit as u64 {
            let what = "its same-level matrix and sets of live nodes";
            return Err(memory_error(self.held, self.memory_limit, what));
        }
        let id = self.sets.len() as u32;
        self.sets.push(set.clone());
        self.set_ids.insert(set, id);
        Ok(id)
    }

    /// `f_s(X)`: the nodes with a same-level run to a node whose pop of `s` lands in `X`.
    fn above(&mut self, s: u32, x: u32) -> Result<u32, OpsError> {
        if let Some(&id) = self.f_memo.get(&(s, x)) {
            return Ok(id);
        }
        // Two passes over the nodes and their rows of the matrix.
        self.clock.check()?;
        let under = &self.sets[x as usize];
        let popping = self
            .set_of(|m| (self.g.pop(m as StateId, s)).is_some_and(|z| contains(under, z as usize)));
        let set = self.set_of(|m| meets(self.same.row(m), &popping));
        let id = self.intern(set)?;
        self.f_memo.insert((s, x), id);
        Ok(id)
    }
}

/// A node `(product node, set of its stack)` keeps the edges whose target is live over
/// the stack they make, and the pops that land in a live node.
impl Construction for Annotator<'_> {
    type Node = (StateId, u32);

    fn explore(
        &mut self,
        x: &mut Explorer<'_, Self::Node>,
        (m, live): Self::Node,
    ) -> Result<(), OpsError> {
        let (g, seqs) = (self.g, self.seqs);
        let mut pushed = Vec::new();
        for &(class, t, p) in &g.edges[m as usize] {
            let mut set = live;
            pushed.clear();
            for &s in &seqs[p as usize] {
                let top = self.above(s, set)?;
                pushed.push(x.symbol(s, set, top));
                set = top;
            }
            if contains(&self.sets[set as usize], t as usize) {
                x.edge(class, &pushed, (t, set))?;
            }
        }
        Ok(())
    }

    fn pop(
        &mut self,
        (m, _): Self::Node,
        (s, under): (u32, u32),
    ) -> Result<Option<Self::Node>, OpsError> {
        let live = |z: StateId| contains(&self.sets[under as usize], z as usize);
        Ok(self.g.pop(m, s).filter(|&z| live(z)).map(|z| (z, under)))
    }
}
