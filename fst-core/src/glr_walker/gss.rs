//! The graph-structured stack of the GLR walker: vertices (a symbol and the vertices below
//! it) only appended, each distinct one made once.
//!
//! A vertex is identified by its symbol and its sorted parents, so two configurations that
//! push the same symbol on the same stacks share one vertex, and a pop chain visits each
//! stack once: without this, a step's equal pushes made equal vertices whose chains were
//! walked once per copy, and copies of copies multiplied the chain points of deep stacks.
//!
//! Vertices are found by a 64-bit hash of symbol and parents: the index holds the newest
//! vertex of each hash and each vertex links to the next older one of its hash, so a
//! look-up builds no key, a new vertex allocates nothing but arena slots, and a truncation
//! (which drops the newest vertices first) unlinks each from the head of its hash.

use std::hash::Hasher;

use crate::fast_hash::{FastHasher, FastMap};

/// The bottom of the stack, as a vertex index.
pub(super) const BOTTOM: u32 = u32::MAX;

/// No older vertex of the same hash.
const NONE: u32 = u32::MAX;

/// A stack vertex: its symbol, the depth of its shallowest stack, its parents (a range of
/// the parent arena) and the next older vertex of its hash.
#[derive(Clone, Copy, Debug)]
pub(super) struct Vertex {
    pub symbol: u32,
    pub depth: u32,
    parents: (u32, u32),
    older: u32,
}

/// Vertices and their parent lists, only appended, with the newest vertex of each hash.
/// An overlay's vertices and parents are numbered after its base's (`first`).
#[derive(Clone, Debug, Default)]
pub(super) struct Gss {
    first: (u32, u32),
    vertices: Vec<Vertex>,
    parents: Vec<u32>,
    newest: FastMap<u64, u32>,
}

/// The hash identifying vertex `symbol` over `parents`.
fn key(symbol: u32, parents: &[u32]) -> u64 {
    let mut h = FastHasher::default();
    h.write_u32(symbol);
    for &p in parents {
        h.write_u32(p);
    }
    h.finish()
}

impl Gss {
    /// An empty overlay numbered after `base`.
    fn over(base: &Gss) -> Gss {
        Gss {
            first: (
                base.first.0 + base.vertices.len() as u32,
                base.first.1 + base.parents.len() as u32,
            ),
            ..Gss::default()
        }
    }

    /// The lengths of the vertex and parent arenas, which [`Gss::truncate`] restores.
    pub fn lengths(&self) -> (usize, usize) {
        (self.vertices.len(), self.parents.len())
    }

    /// Drops every vertex, keeping the arenas' and the index's capacity.
    pub fn clear(&mut self) {
        self.vertices.clear();
        self.parents.clear();
        self.newest.clear();
    }

    /// Drops the vertices and parents past `lengths` (a rollback or a refused step).
    pub fn truncate(&mut self, (vertices, parents): (usize, usize)) {
        while self.vertices.len() > vertices {
            let Some(x) = self.vertices.pop() else { break };
            let k = key(x.symbol, self.parents_of(&x));
            match x.older {
                NONE => self.newest.remove(&k),
                older => self.newest.insert(k, older),
            };
        }
        self.parents.truncate(parents);
    }

    fn get(&self, v: u32) -> Option<&Vertex> {
        self.vertices.get(v.wrapping_sub(self.first.0) as usize)
    }

    fn parents_of(&self, x: &Vertex) -> &[u32] {
        let start = (x.parents.0 - self.first.1) as usize;
        &self.parents[start..start + x.parents.1 as usize]
    }

    /// The vertex `symbol` over `parents` (of hash `k`) stored here, if any.
    fn find(&self, k: u64, symbol: u32, parents: &[u32]) -> Option<u32> {
        let mut v = *self.newest.get(&k)?;
        while let Some(x) = self.get(v) {
            if x.symbol == symbol && self.parents_of(x) == parents {
                return Some(v);
            }
            v = x.older;
        }
        None
    }

    fn add(&mut self, k: u64, symbol: u32, depth: u32, parents: &[u32]) -> u32 {
        let v = self.first.0 + self.vertices.len() as u32;
        let start = self.first.1 + self.parents.len() as u32;
        self.parents.extend_from_slice(parents);
        let older = self.newest.insert(k, v).unwrap_or(NONE);
        self.vertices.push(Vertex {
            symbol,
            depth,
            parents: (start, parents.len() as u32),
            older,
        });
        v
    }
}

/// A [`Gss`] that a step reads and adds to: the walker's own (a consumed token's step adds
/// to it directly, truncated if the token is refused), or an overlay over one left
/// untouched (validating and forcing look ahead without moving).
pub(super) struct View<'a> {
    base: Option<&'a Gss>,
    own: Gss,
}

impl<'a> View<'a> {
    /// An overlay over `base`.
    pub fn new(base: &'a Gss) -> View<'a> {
        View {
            base: Some(base),
            own: Gss::over(base),
        }
    }

    /// `gss` itself, added to directly.
    pub fn owning(gss: Gss) -> View<'static> {
        View {
            base: None,
            own: gss,
        }
    }

    /// The stack added to ([`View::owning`]) or the overlay's vertices.
    pub fn into_gss(self) -> Gss {
        self.own
    }

    /// The store holding `v` (a vertex, not the bottom) and its vertex.
    fn at(&self, v: u32) -> (&Gss, &Vertex) {
        let store = match self.base {
            Some(base) if v < self.own.first.0 => base,
            _ => &self.own,
        };
        (store, &store.vertices[(v - store.first.0) as usize])
    }

    pub fn vertex(&self, v: u32) -> Vertex {
        *self.at(v).1
    }

    /// The depth of the shallowest stack with top `v` (0 for the bottom).
    pub fn depth(&self, v: u32) -> u32 {
        if v == BOTTOM {
            0
        } else {
            self.at(v).1.depth
        }
    }

    pub fn parents(&self, v: u32) -> &[u32] {
        let (store, x) = self.at(v);
        store.parents_of(x)
    }

    /// The vertex `symbol` over `parents` (sorted, distinct, not empty): the existing one,
    /// or a new one.
    pub fn push(&mut self, symbol: u32, parents: &[u32]) -> u32 {
        let k = key(symbol, parents);
        let found = self.base.and_then(|b| b.find(k, symbol, parents));
        if let Some(v) = found.or_else(|| self.own.find(k, symbol, parents)) {
            return v;
        }
        let depth = 1 + parents.iter().map(|&p| self.depth(p)).min().unwrap_or(0);
        self.own.add(k, symbol, depth, parents)
    }
}
