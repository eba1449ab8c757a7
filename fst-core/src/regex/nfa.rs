//! Thompson-style byte NFA built from a regex-syntax HIR.
//!
//! States live in one vector; their byte ranges and epsilon targets live in two shared
//! arenas so a state is a small `Copy` value and a 100 000-state NFA costs a few MB.
//! Unicode classes become UTF-8 byte sequences (`Utf8Sequences`), merged into a small
//! trie with shared suffixes, so that `\w` is a few hundred states rather than thousands
//! and the subset construction sees few NFA states per DFA state.

use std::collections::HashMap;
use std::rc::Rc;

use regex_syntax::hir::{Class, Hir, HirKind, Look};
use regex_syntax::utf8::Utf8Sequences;

use super::{RegexError, RegexErrorKind};

/// One NFA state. Offsets index `Nfa::ranges` / `Nfa::targets`.
#[derive(Clone, Copy, Debug)]
pub(crate) enum State {
    /// Byte transitions `(lo, hi, target)`; may be several (a class trie node).
    Bytes { off: u32, len: u32 },
    /// Epsilon transitions to each target (alternation, repetition, fail when empty).
    Split { off: u32, len: u32 },
    /// Epsilon transition that holds only before the first byte (`^`, `\A`).
    Start(u32),
    /// Epsilon transition that holds only after the last byte (`$`, `\z`).
    End(u32),
    /// The whole pattern matched here.
    Match,
}

/// A byte NFA with a single start state and a single `Match` state.
#[derive(Debug)]
pub(crate) struct Nfa {
    pub(crate) states: Vec<State>,
    pub(crate) ranges: Vec<(u8, u8, u32)>,
    pub(crate) targets: Vec<u32>,
    pub(crate) start: u32,
}

impl Nfa {
    /// The byte transitions of state `s` (empty unless it is a `Bytes` state).
    pub(crate) fn byte_ranges(&self, s: u32) -> &[(u8, u8, u32)] {
        match self.states[s as usize] {
            State::Bytes { off, len } => &self.ranges[off as usize..(off + len) as usize],
            _ => &[],
        }
    }

    /// The epsilon targets of a `Split` state.
    pub(crate) fn split_targets(&self, off: u32, len: u32) -> &[u32] {
        &self.targets[off as usize..(off + len) as usize]
    }
}

/// Where an edge of a class graph goes: another node of the graph, or out of the class.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Dest {
    Node(u32),
    Out,
}

/// A compiled character class: a deterministic byte DAG whose exits all go to `Out`.
/// Nodes are listed children-first; `entry` is the root.
#[derive(Debug)]
struct ClassGraph {
    nodes: Vec<Vec<(u8, u8, Dest)>>,
    entry: u32,
}

/// Builds an NFA from a HIR, refusing to grow past `limit` states.
pub(crate) struct Compiler {
    nfa: Nfa,
    limit: usize,
    /// Class graphs by HIR node address: a class repeated by `{n}` is compiled once.
    classes: HashMap<usize, Rc<ClassGraph>>,
}

impl Compiler {
    pub(crate) fn new(limit: usize) -> Compiler {
        Compiler {
            nfa: Nfa {
                states: Vec::new(),
                ranges: Vec::new(),
                targets: Vec::new(),
                start: 0,
            },
            limit,
            classes: HashMap::new(),
        }
    }

    /// An upper bound on the number of NFA states `compile` will create for `hir`
    /// (saturating), computed without building anything so that `a{100000}{100}` is
    /// refused at once.
    pub(crate) fn estimate(&mut self, hir: &Hir) -> u64 {
        match hir.kind() {
            HirKind::Empty => 0,
            HirKind::Literal(lit) => lit.0.len() as u64,
            HirKind::Class(class) => self.class_graph(hir, class).nodes.len() as u64,
            HirKind::Look(_) => 1,
            HirKind::Repetition(rep) => {
                let sub = self.estimate(&rep.sub);
                // `min` copies then either a loop body or `max - min` optional copies.
                let copies = match rep.max {
                    None => u64::from(rep.min) + 1,
                    Some(max) => u64::from(max),
                };
                sub.saturating_add(1)
                    .saturating_mul(copies)
                    .saturating_add(1)
            }
            HirKind::Capture(cap) => self.estimate(&cap.sub),
            HirKind::Concat(subs) => subs
                .iter()
                .fold(0u64, |acc, h| acc.saturating_add(self.estimate(h))),
            HirKind::Alternation(subs) => subs
                .iter()
                .fold(1u64, |acc, h| acc.saturating_add(self.estimate(h))),
        }
    }

    /// Compiles `hir` followed by a `Match` state.
    pub(crate) fn compile(mut self, hir: &Hir) -> Result<Nfa, RegexError> {
        let matched = self.push(State::Match)?;
        let start = self.compile_into(hir, matched)?;
        self.nfa.start = start;
        Ok(self.nfa)
    }

    fn push(&mut self, state: State) -> Result<u32, RegexError> {
        if self.nfa.states.len() >= self.limit {
            return Err(RegexError::too_many_nfa_states(self.limit));
        }
        self.nfa.states.push(state);
        Ok((self.nfa.states.len() - 1) as u32)
    }

    fn push_split(&mut self, targets: &[u32]) -> Result<u32, RegexError> {
        let off = self.nfa.targets.len() as u32;
        self.nfa.targets.extend_from_slice(targets);
        self.push(State::Split {
            off,
            len: targets.len() as u32,
        })
    }

    fn push_bytes(&mut self, ranges: &[(u8, u8, u32)]) -> Result<u32, RegexError> {
        let off = self.nfa.ranges.len() as u32;
        self.nfa.ranges.extend_from_slice(ranges);
        self.push(State::Bytes {
            off,
            len: ranges.len() as u32,
        })
    }

    /// Compiles `hir` in continuation style: returns the entry state of a fragment whose
    /// every way out leads to `next`. Building back to front needs no patching except
    /// for loops.
    fn compile_into(&mut self, hir: &Hir, next: u32) -> Result<u32, RegexError> {
        match hir.kind() {
            HirKind::Empty => Ok(next),
            HirKind::Literal(lit) => {
                let mut cur = next;
                for &b in lit.0.iter().rev() {
                    cur = self.push_bytes(&[(b, b, cur)])?;
                }
                Ok(cur)
            }
            HirKind::Class(class) => {
                let graph = self.class_graph(hir, class);
                self.instantiate(&graph, next)
            }
            HirKind::Look(look) => match look {
                Look::Start => self.push(State::Start(next)),
                Look::End => self.push(State::End(next)),
                other => Err(RegexError::new(
                    RegexErrorKind::Unsupported {
                        construct: "look-around",
                    },
                    None,
                    format!(
                        "the assertion {other:?} is not supported: fstc honours only ^, $, \\A and \\z, \
                         which hold at the text's ends"
                    ),
                )),
            },
            HirKind::Repetition(rep) => {
                let mut cur = next;
                match rep.max {
                    None => {
                        // Loop state: either one more round of `sub` or leave.
                        let lp = self.push_split(&[])?;
                        let body = self.compile_into(&rep.sub, lp)?;
                        let off = self.nfa.targets.len() as u32;
                        self.nfa.targets.extend_from_slice(&[body, next]);
                        self.nfa.states[lp as usize] = State::Split { off, len: 2 };
                        cur = lp;
                    }
                    Some(max) => {
                        for _ in rep.min..max {
                            let body = self.compile_into(&rep.sub, cur)?;
                            cur = self.push_split(&[body, next])?;
                        }
                    }
                }
                for _ in 0..rep.min {
                    cur = self.compile_into(&rep.sub, cur)?;
                }
                Ok(cur)
            }
            HirKind::Capture(cap) => self.compile_into(&cap.sub, next),
            HirKind::Concat(subs) => {
                let mut cur = next;
                for sub in subs.iter().rev() {
                    cur = self.compile_into(sub, cur)?;
                }
                Ok(cur)
            }
            HirKind::Alternation(subs) => {
                let mut entries = Vec::with_capacity(subs.len());
                for sub in subs {
                    entries.push(self.compile_into(sub, next)?);
                }
                self.push_split(&entries)
            }
        }
    }

    /// Copies a class graph into the NFA with its exits wired to `next`.
    fn instantiate(&mut self, graph: &ClassGraph, next: u32) -> Result<u32, RegexError> {
        let base = self.nfa.states.len() as u32;
        let mut buf = Vec::new();
        for node in &graph.nodes {
            buf.clear();
            buf.extend(node.iter().map(|&(lo, hi, d)| {
                let t = match d {
                    Dest::Node(i) => base + i,
                    Dest::Out => next,
                };
                (lo, hi, t)
            }));
            self.push_bytes(&buf)?;
        }
        Ok(base + graph.entry)
    }

    fn class_graph(&mut self, hir: &Hir, class: &Class) -> Rc<ClassGraph> {
        let key = hir as *const Hir as usize;
        if let Some(g) = self.classes.get(&key) {
            return Rc::clone(g);
        }
        let g = Rc::new(build_class_graph(class));
        self.classes.insert(key, Rc::clone(&g));
        g
    }
}

/// Turns a class into a byte DAG: a trie of its UTF-8 sequences (which come sorted and
/// prefix-free, so shared prefixes are always the last edge of a node), then suffix
/// sharing bottom-up so equal continuations (`[80-BF]` tails) exist once.
fn build_class_graph(class: &Class) -> ClassGraph {
    // Trie: edges (lo, hi, child), child == usize::MAX for the end of a sequence.
    const LEAF: usize = usize::MAX;
    let mut trie: Vec<Vec<(u8, u8, usize)>> = vec![Vec::new()];
    let mut insert = |seq: &[(u8, u8)]| {
        let mut node = 0;
        for (i, &(lo, hi)) in seq.iter().enumerate() {
            let last = i + 1 == seq.len();
            match trie[node].last() {
                Some(&(l, h, child)) if l == lo && h == hi && child != LEAF && !last => {
                    node = child;
                }
                _ => {
                    if last {
                        trie[node].push((lo, hi, LEAF));
                    } else {
                        let child = trie.len();
                        trie.push(Vec::new());
                        trie[node].push((lo, hi, child));
                        node = child;
                    }
                }
            }
        }
    };
    match class {
        Class::Bytes(c) => {
            for r in c.ranges() {
                insert(&[(r.start(), r.end())]);
            }
        }
        Class::Unicode(c) => {
            let mut seq = Vec::with_capacity(4);
            for r in c.ranges() {
                for s in Utf8Sequences::new(r.start(), r.end()) {
                    seq.clear();
                    seq.extend(s.as_slice().iter().map(|u| (u.start, u.end)));
                    insert(&seq);
                }
            }
        }
    }
    let mut graph = ClassGraph {
        nodes: Vec::new(),
        entry: 0,
    };
    let mut memo: HashMap<Vec<(u8, u8, Dest)>, u32> = HashMap::new();
    graph.entry = share_suffixes(&trie, 0, &mut graph.nodes, &mut memo);
    graph
}

/// Post-order: a node's edges, with children already replaced by their shared ids, are
/// looked up so that identical sub-tries become one node. Depth is at most 4.
fn share_suffixes(
    trie: &[Vec<(u8, u8, usize)>],
    node: usize,
    out: &mut Vec<Vec<(u8, u8, Dest)>>,
    memo: &mut HashMap<Vec<(u8, u8, Dest)>, u32>,
) -> u32 {
    let edges: Vec<(u8, u8, Dest)> = trie[node]
        .iter()
        .map(|&(lo, hi, child)| {
            let d = if child == usize::MAX {
                Dest::Out
            } else {
                Dest::Node(share_suffixes(trie, child, out, memo))
            };
            (lo, hi, d)
        })
        .collect();
    if let Some(&id) = memo.get(&edges) {
        return id;
    }
    let id = out.len() as u32;
    out.push(edges.clone());
    memo.insert(edges, id);
    id
}

#[cfg(test)]
mod tests {
    use super::*;
    use regex_syntax::hir::{ClassUnicode, ClassUnicodeRange};

    fn graph(ranges: &[(char, char)]) -> ClassGraph {
        let class = ClassUnicode::new(ranges.iter().map(|&(a, b)| ClassUnicodeRange::new(a, b)));
        build_class_graph(&Class::Unicode(class))
    }

    #[test]
    fn class_graphs_share_prefixes_and_suffixes() {
        // All of Unicode: 1-4 byte sequences with shared continuation tails.
        let any = graph(&[('\0', char::MAX)]);
        assert!(any.nodes.len() <= 8, "{} nodes", any.nodes.len());
        // Every node is deterministic: its ranges do not overlap.
        for node in &any.nodes {
            let mut r: Vec<(u8, u8)> = node.iter().map(|&(l, h, _)| (l, h)).collect();
            r.sort();
            assert!(r.windows(2).all(|w| w[0].1 < w[1].0));
        }
        // é and è share their lead byte C3: one root edge, one shared continuation node.
        let g = graph(&[('è', 'é')]);
        assert_eq!(g.nodes.len(), 2);
        assert_eq!(g.nodes[g.entry as usize], vec![(0xC3, 0xC3, Dest::Node(0))]);
    }

    #[test]
    fn estimate_bounds_the_built_size() {
        for pattern in [r"\w{3}", "(ab|cd){2,5}", "x*y+z?", r"(\p{Greek}|[0-9]{2})*"] {
            let hir = regex_syntax::parse(pattern).unwrap();
            let mut c = Compiler::new(1 << 20);
            let est = c.estimate(&hir);
            let nfa = c.compile(&hir).unwrap();
            assert!(
                nfa.states.len() as u64 <= est + 1,
                "{pattern}: {} > {est}",
                nfa.states.len()
            );
        }
    }
}
