//! The composition walk. A token's run from a boundary state reads the token's bytes with
//! a symbolic stack of its own pushes (`steps`); where it must return below them, the
//! symbol popped is for the token PDA to check, and the token goes on from the state
//! returned to, before the same byte: a *point* `(trie node, byte state)`. A point's
//! exploration, one preorder pass over its trie node's subtree (one run list per depth,
//! dead subtrees skipped), gives the tokens its runs end (edges to the boundary state
//! reached, with the token's own pushes left) and, per symbol, the points a return below
//! leads to. It depends on nothing else, so each point is explored once, from whichever
//! boundary state it is reached.
//!
//! Token PDA nodes are sets of points, made by a subset construction over the symbols
//! popped: a boundary state's node holds its start point and its end point (where the
//! text may end, which returns before no byte), and the node a symbol's pop edge leads to
//! holds every point its members lead to by that symbol. A node stands for every pop
//! sequence that leaves exactly its points, so a token that returns through an unbounded
//! nest of calls (a dangling `else`, one byte closing every clause still open) makes a
//! cycle of finitely many pop edges, which the decoder's pop chain follows as deep as
//! the stack goes. Only nodes from which a token or the end of the text is reached are
//! kept; equivalent nodes are merged later (`classes`).

use std::collections::VecDeque;

use fstc_core::fast_hash::FastMap;
use fstc_core::vocab::VocabTrie;

use super::explore::Explorer;
use super::steps::Steps;
use crate::budget::Budget;
use crate::config::Config;
use crate::error::{PdaError, PdaErrorKind};

/// Not a node yet.
const NONE: u32 = u32::MAX;

/// The trie node of an end point: the end of the text.
const END: u32 = u32::MAX;

/// The token PDA before token classes: edges per token.
#[derive(Default)]
pub(super) struct Graph {
    pub accepting: Vec<bool>,
    /// Per node: `(symbol, node)`, by symbol.
    pub pops: Vec<Vec<(u32, u32)>>,
    /// Per node: `(token, (target node, push sequence))`; in a deterministic PDA at most
    /// one per token.
    pub edges: Vec<Vec<(u32, (u32, u32))>>,
    pub push_seqs: Vec<Vec<u32>>,
}

impl Graph {
    /// The bytes it holds, for the memory budget.
    pub fn bytes(&self) -> usize {
        let lists = self.edges.len() * 3 * std::mem::size_of::<Vec<u32>>();
        let edges: usize = self.edges.iter().map(Vec::len).sum();
        let pops: usize = self.pops.iter().map(Vec::len).sum();
        let pushes: usize = self.push_seqs.iter().map(Vec::len).sum();
        lists + edges * 12 + pops * 8 + pushes * 4
    }
}

/// What a point gives: its tokens' edges, where its returns below lead, and (an end point)
/// whether the text may end there.
#[derive(Default)]
struct Point {
    edges: Vec<(u32, (u32, u32))>,
    /// `(symbol, point)`, sorted.
    pops: Vec<(u32, u32)>,
    accepting: bool,
}

/// The walk's state: points, the subset construction over them and the push sequences.
struct Walk<'w, 'p> {
    steps: &'w Steps<'p>,
    config: &'w Config,
    budget: &'w Budget,
    explorer: Explorer<'w, 'p>,
    /// Per node of `stacks`: its push sequence, once an edge pushes it.
    push_of_stack: Vec<u32>,
    point_index: FastMap<(u32, u32), u32>,
    /// Per point: its `(trie node or END, byte state)` and, once explored, what it gives.
    point_keys: Vec<(u32, u32)>,
    points: Vec<Option<Point>>,
    node_index: FastMap<Vec<u32>, u32>,
    /// Per node: its points, sorted.
    members: Vec<Vec<u32>>,
    accepting: Vec<bool>,
    pops: Vec<Vec<(u32, u32)>>,
    /// Per byte-PDA state: its node, once reached at a token boundary.
    node_of_state: Vec<u32>,
    queue: VecDeque<u32>,
    push_seqs: Vec<Vec<u32>>,
    num_edges: usize,
    /// Points in the nodes' member lists and symbols in the push sequences, in total.
    member_words: usize,
}

/// Walks the trie from every boundary state, starting with `start`; node 0 is `start`'s.
pub(super) fn walk(
    steps: &Steps<'_>,
    trie: &VocabTrie,
    start: u32,
    num_states: usize,
    (config, budget): (&Config, &Budget),
) -> Result<Graph, PdaError> {
    let mut w = Walk {
        steps,
        config,
        budget,
        explorer: Explorer::new(steps, trie, budget),
        push_of_stack: Vec::new(),
        point_index: FastMap::default(),
        point_keys: Vec::new(),
        points: Vec::new(),
        node_index: FastMap::default(),
        members: Vec::new(),
        accepting: Vec::new(),
        pops: Vec::new(),
        node_of_state: vec![NONE; num_states],
        queue: VecDeque::new(),
        push_seqs: vec![Vec::new()],
        num_edges: 0,
        member_words: 0,
    };
    w.boundary(start)?;
    while let Some(node) = w.queue.pop_front() {
        w.expand(node)?;
    }
    let live = w.live();
    w.check_pop_depth(&live)?;
    Ok(w.into_graph(&live))
}

impl Walk<'_, '_> {
    /// The bytes the walk holds so far, for the memory budget (an estimate: its vectors'
    /// and maps' entries).
    fn bytes(&self) -> usize {
        let points = self.point_keys.len() * (8 + 16 + std::mem::size_of::<Option<Point>>());
        let nodes = self.accepting.len() * (1 + 3 * std::mem::size_of::<Vec<u32>>() + 8);
        points + nodes + self.num_edges * 12 + self.member_words * 8
    }

    /// Polls the budgets after `steps` steps of composing from byte state `state`.
    fn poll(&self, steps: usize, state: u32) -> Result<(), PdaError> {
        let place = || format!("composing {} with the vocabulary", self.steps.place(state));
        let bytes = || self.bytes() + self.explorer.held();
        self.budget.poll(steps, bytes, place)
    }

    /// The point of `key`, numbered when new.
    fn point(&mut self, key: (u32, u32)) -> u32 {
        if let Some(&p) = self.point_index.get(&key) {
            return p;
        }
        let p = self.point_keys.len() as u32;
        self.point_keys.push(key);
        self.points.push(None);
        self.point_index.insert(key, p);
        p
    }

    /// The node of the set of points `members` (sorted), made and queued when new.
    fn node(&mut self, members: Vec<u32>) -> Result<u32, PdaError> {
        if let Some(&n) = self.node_index.get(&members) {
            return Ok(n);
        }
        if self.accepting.len() >= self.config.get_node_limit() {
            let state = self.point_keys[members[0] as usize].1;
            return Err(PdaError::new(
                PdaErrorKind::TokenPdaLimit,
                format!(
                    "the token PDA needs more than {} nodes (limit `node_limit`, reached while composing `{}`); raise it or simplify the grammar",
                    self.config.get_node_limit(),
                    self.steps.name(state)
                ),
            ));
        }
        let n = self.accepting.len() as u32;
        self.accepting.push(false);
        self.pops.push(Vec::new());
        self.member_words += members.len();
        self.members.push(members.clone());
        self.node_index.insert(members, n);
        self.queue.push_back(n);
        Ok(n)
    }

    /// The node of a byte state at a token boundary: its start and end points.
    fn boundary(&mut self, state: u32) -> Result<u32, PdaError> {
        let node = self.node_of_state[state as usize];
        if node != NONE {
            return Ok(node);
        }
        let mut members = vec![self.point((0, state)), self.point((END, state))];
        members.sort_unstable();
        let node = self.node(members)?;
        self.node_of_state[state as usize] = node;
        Ok(node)
    }

    /// The push sequence of the stack `own` (of `stacks`), numbered by first use.
    fn push_seq(&mut self, own: u32) -> u32 {
        if own == 0 {
            return 0;
        }
        let stacks = &self.explorer.stacks;
        if self.push_of_stack.len() < stacks.len() {
            self.push_of_stack.resize(stacks.len(), NONE);
        }
        if self.push_of_stack[own as usize] == NONE {
            self.push_seqs.push(stacks.symbols(own));
            self.member_words += self.push_seqs.last().map_or(0, Vec::len);
            self.push_of_stack[own as usize] = self.push_seqs.len() as u32 - 1;
        }
        self.push_of_stack[own as usize]
    }

    /// A node's acceptance and pop edges, from its points (explored first).
    fn expand(&mut self, node: u32) -> Result<(), PdaError> {
        let members = self.members[node as usize].clone();
        self.poll(members.len(), self.point_keys[members[0] as usize].1)?;
        let mut moves: Vec<(u32, u32)> = Vec::new();
        for &m in &members {
            if self.points[m as usize].is_none() {
                let point = self.explore(self.point_keys[m as usize])?;
                self.points[m as usize] = Some(point);
            }
            let point = self.points[m as usize].as_ref().expect("explored");
            self.accepting[node as usize] |= point.accepting;
            moves.extend_from_slice(&point.pops);
        }
        moves.sort_unstable();
        moves.dedup();
        for run in moves.chunk_by(|a, b| a.0 == b.0) {
            let next = self.node(run.iter().map(|m| m.1).collect())?;
            self.pops[node as usize].push((run[0].0, next));
        }
        Ok(())
    }

    /// What the point `(at, state)` gives.
    fn explore(&mut self, (at, state): (u32, u32)) -> Result<Point, PdaError> {
        if at == END {
            let steps = self.steps;
            let mut pops: Vec<(u32, u32)> = (steps.returns(state).iter())
                .map(|&(s, next)| (s, self.point((END, next))))
                .collect();
            pops.sort_unstable();
            return Ok(Point {
                edges: Vec::new(),
                pops,
                accepting: steps.ends(state),
            });
        }
        self.explorer.outside = self.bytes();
        let found = self.explorer.explore(at, state)?;
        let mut targets = Vec::with_capacity(found.results.len());
        for run in &found.results {
            targets.push((self.boundary(run.state)?, self.push_seq(run.own)));
        }
        self.num_edges += found.edges.len();
        self.check_edge_limit(state)?;
        let mut pops: Vec<(u32, u32)> = (found.below.iter())
            .map(|&(s, node, next)| (s, self.point((node, next))))
            .collect();
        pops.sort_unstable();
        pops.dedup();
        Ok(Point {
            edges: (found.edges.iter())
                .map(|&(t, r)| (t, targets[r as usize]))
                .collect(),
            pops,
            accepting: false,
        })
    }

    /// Refuses more than `token_edge_limit` token edges (reached while composing `state`).
    fn check_edge_limit(&self, state: u32) -> Result<(), PdaError> {
        if self.num_edges <= self.config.get_token_edge_limit() {
            return Ok(());
        }
        Err(PdaError::new(
            PdaErrorKind::TokenPdaLimit,
            format!(
                "the token PDA needs more than {} token edges before grouping (limit `token_edge_limit`, reached while composing `{}`); raise it or simplify the grammar",
                self.config.get_token_edge_limit(),
                self.steps.name(state)
            ),
        ))
    }

    /// Per node, whether a token edge or the end of the text is reached from it by pops.
    fn live(&self) -> Vec<bool> {
        let n = self.accepting.len();
        let mut live: Vec<bool> = (0..n)
            .map(|node| {
                self.accepting[node]
                    || self.members[node].iter().any(|&m| {
                        let point = self.points[m as usize].as_ref();
                        point.is_some_and(|p| !p.edges.is_empty())
                    })
            })
            .collect();
        let mut into: Vec<Vec<u32>> = vec![Vec::new(); n];
        for (node, pops) in self.pops.iter().enumerate() {
            for &(_, next) in pops {
                into[next as usize].push(node as u32);
            }
        }
        let mut work: Vec<u32> = (0..n as u32).filter(|&x| live[x as usize]).collect();
        while let Some(x) = work.pop() {
            for &from in &into[x as usize] {
                if !live[from as usize] {
                    live[from as usize] = true;
                    work.push(from);
                }
            }
        }
        live
    }

    /// Refuses live nodes that only pops of more than `pop_limit` symbols reach.
    fn check_pop_depth(&self, live: &[bool]) -> Result<(), PdaError> {
        let limit = self.config.get_pop_limit();
        let mut depth = vec![usize::MAX; self.accepting.len()];
        let mut work: VecDeque<u32> = VecDeque::new();
        for &node in self.node_of_state.iter().filter(|&&n| n != NONE) {
            depth[node as usize] = 0;
            work.push_back(node);
        }
        while let Some(node) = work.pop_front() {
            let d = depth[node as usize] + 1;
            for &(_, next) in &self.pops[node as usize] {
                if live[next as usize] && depth[next as usize] == usize::MAX {
                    if d > limit {
                        let state = self.point_keys[self.members[next as usize][0] as usize].1;
                        return Err(PdaError::new(
                            PdaErrorKind::TokenPdaLimit,
                            format!(
                                "a token pops {d} stack symbols at `{}`, more than the limit `pop_limit` ({limit}); raise it or simplify the grammar",
                                self.steps.name(state),
                            ),
                        ));
                    }
                    depth[next as usize] = d;
                    work.push_back(next);
                }
            }
        }
        Ok(())
    }

    /// The graph: each node's edges are its points' (moved from a point in no other node),
    /// pop edges only into live nodes.
    fn into_graph(mut self, live: &[bool]) -> Graph {
        let mut uses = vec![0u32; self.points.len()];
        for members in &self.members {
            for &m in members {
                uses[m as usize] += 1;
            }
        }
        let mut edges = Vec::with_capacity(self.members.len());
        for members in &self.members {
            let mut list = Vec::new();
            let mut sources = 0;
            for &m in members {
                let Some(point) = self.points[m as usize].as_mut() else {
                    continue;
                };
                uses[m as usize] -= 1;
                sources += usize::from(!point.edges.is_empty());
                if uses[m as usize] == 0 && list.is_empty() {
                    list = std::mem::take(&mut point.edges);
                } else {
                    list.extend_from_slice(&point.edges);
                }
            }
            if sources > 1 {
                // Several points may end a token alike.
                list.sort_unstable();
                list.dedup();
            }
            edges.push(list);
        }
        for pops in &mut self.pops {
            pops.retain(|&(_, next)| live[next as usize]);
        }
        Graph {
            accepting: self.accepting,
            pops: self.pops,
            edges,
            push_seqs: self.push_seqs,
        }
    }
}
