//! The graph-structured stack of the GLR walker: vertices (a symbol and the vertices below
//! it) only appended, each distinct one made once.
//!
//! A vertex is identified by its symbol and its sorted parents, so two configurations that
//! push the same symbol on the same stacks share one vertex, and a pop chain visits each
//! stack once: without this, a step's equal pushes made equal vertices whose chains were
//! walked once per copy, and copies of copies multiplied the chain points of deep stacks.

use crate::fast_hash::FastMap;

/// The bottom of the stack, as a vertex index.
pub(super) const BOTTOM: u32 = u32::MAX;

/// A stack vertex: its symbol, the depth of its shallowest stack and its parents (a range
/// of the parent arena).
#[derive(Clone, Copy, Debug)]
pub(super) struct Vertex {
    pub symbol: u32,
    pub depth: u32,
    parents: (u32, u32),
}

/// Vertices and their parent lists, only appended, with each vertex's index: by
/// `(symbol, parent)` for one parent (pushes, the common case, without a key to build),
/// by `[symbol, parents...]` for several.
#[derive(Clone, Debug, Default)]
pub(super) struct Gss {
    vertices: Vec<Vertex>,
    parents: Vec<u32>,
    one: FastMap<(u32, u32), u32>,
    many: FastMap<Box<[u32]>, u32>,
}

impl Gss {
    /// The lengths of the vertex and parent arenas, which [`Gss::truncate`] restores.
    pub fn lengths(&self) -> (usize, usize) {
        (self.vertices.len(), self.parents.len())
    }

    /// Drops the vertices and parents past `lengths` (a rollback).
    pub fn truncate(&mut self, (vertices, parents): (usize, usize)) {
        if vertices < self.vertices.len() {
            for v in vertices..self.vertices.len() {
                let x = self.vertices[v];
                let (start, len) = (x.parents.0 as usize, x.parents.1 as usize);
                match &self.parents[start..start + len] {
                    &[p] => self.one.remove(&(x.symbol, p)),
                    parents => {
                        let key: Vec<u32> = std::iter::once(x.symbol)
                            .chain(parents.iter().copied())
                            .collect();
                        self.many.remove(key.as_slice())
                    }
                };
            }
        }
        self.vertices.truncate(vertices);
        self.parents.truncate(parents);
    }

    /// Appends the vertices a [`View`] made over this stack.
    pub fn commit(&mut self, extra: Gss) {
        self.vertices.extend(extra.vertices);
        self.parents.extend(extra.parents);
        self.one.extend(extra.one);
        self.many.extend(extra.many);
    }
}

/// A [`Gss`] seen through an overlay: vertices made by a step go past the stack's own,
/// which stay untouched until the step is committed.
pub(super) struct View<'a> {
    base: &'a Gss,
    extra: Gss,
    key: Vec<u32>,
}

impl<'a> View<'a> {
    pub fn new(base: &'a Gss) -> View<'a> {
        View {
            base,
            extra: Gss::default(),
            key: Vec::new(),
        }
    }

    /// The vertices made through this view, for [`Gss::commit`].
    pub fn into_extra(self) -> Gss {
        self.extra
    }

    pub fn vertex(&self, v: u32) -> Vertex {
        let v = v as usize;
        match self.base.vertices.get(v) {
            Some(&x) => x,
            None => self.extra.vertices[v - self.base.vertices.len()],
        }
    }

    /// The depth of the shallowest stack with top `v` (0 for the bottom).
    pub fn depth(&self, v: u32) -> u32 {
        if v == BOTTOM {
            0
        } else {
            self.vertex(v).depth
        }
    }

    pub fn parents(&self, v: u32) -> &[u32] {
        let (start, len) = self.vertex(v).parents;
        let (start, len) = (start as usize, len as usize);
        let base = self.base.parents.len();
        if start < base {
            &self.base.parents[start..start + len]
        } else {
            &self.extra.parents[start - base..start - base + len]
        }
    }

    /// The vertex `symbol` over `parents` (sorted, distinct, not empty): the existing one,
    /// or a new one.
    pub fn push(&mut self, symbol: u32, parents: &[u32]) -> u32 {
        let found = match parents {
            &[p] => {
                let key = (symbol, p);
                self.base.one.get(&key).or_else(|| self.extra.one.get(&key))
            }
            _ => {
                self.key.clear();
                self.key.push(symbol);
                self.key.extend_from_slice(parents);
                let key = self.key.as_slice();
                self.base.many.get(key).or_else(|| self.extra.many.get(key))
            }
        };
        if let Some(&v) = found {
            return v;
        }
        let depth = 1 + parents.iter().map(|&p| self.depth(p)).min().unwrap_or(0);
        let start = (self.base.parents.len() + self.extra.parents.len()) as u32;
        self.extra.parents.extend_from_slice(parents);
        self.extra.vertices.push(Vertex {
            symbol,
            depth,
            parents: (start, parents.len() as u32),
        });
        let v = (self.base.vertices.len() + self.extra.vertices.len() - 1) as u32;
        match parents {
            &[p] => self.extra.one.insert((symbol, p), v),
            _ => self.extra.many.insert(self.key.as_slice().into(), v),
        };
        v
    }
}
