//! The class trie: the vocabulary trie folded by one byte automaton's byte classes,
//! walked from every state when tokens are grouped by class string.

use super::labels::{Labels, NONE};
use crate::vocab::trie::make_chunks;
use crate::vocab::VocabTrie;

/// The vocabulary seen through one byte automaton's byte classes.
///
/// Two tokens whose bytes have the same class sequence drive the automaton identically
/// from every state, so they form one *group* and become one label until the very end.
/// A 128k-token vocabulary has a trie of ~400k nodes but, for a typical pattern with a
/// few dozen classes, a class trie of a few thousand nodes and a few thousand groups:
/// the walks and the minimization shrink by that factor. Groups are numbered by their
/// smallest token, so ordering edges by group orders them as their first tokens; that
/// keeps breadth-first numberings identical to the token-level ones.
pub(super) struct ClassTrie {
    /// The nodes in preorder, like `VocabTrie`'s, packed for locality.
    nodes: Vec<ClassNode>,
    /// One byte of each (dense) class, to drive the automaton with.
    pub(super) representative: Vec<u8>,
    pub(super) max_depth: usize,
    pub(super) chunks: Vec<(u32, u32)>,
    pub(super) groups: Labels,
}

/// A class-trie node.
#[derive(Clone, Copy, Debug)]
struct ClassNode {
    depth: u32,
    /// The dense class on the edge into the node (unused for the root).
    class: u32,
    /// One past the last node of the subtree.
    end: u32,
    /// The group of the tokens spelling the node, or `NONE`.
    group: u32,
}

/// An open-addressing map from (class-trie parent, class) to class-trie node: the one
/// hash-consing table of `ClassTrie::new`, without per-entry allocation.
struct ChildTable {
    keys: Vec<u64>,
    values: Vec<u32>,
    len: usize,
}

impl ChildTable {
    const EMPTY: u64 = u64::MAX;

    fn with_capacity(n: usize) -> ChildTable {
        let size = (2 * n).next_power_of_two().max(64);
        ChildTable {
            keys: vec![ChildTable::EMPTY; size],
            values: vec![0; size],
            len: 0,
        }
    }

    fn slot(&self, key: u64) -> usize {
        // Fibonacci hashing: the multiply mixes the parent into the top bits.
        let bits = self.keys.len().trailing_zeros();
        let mut i = (key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - bits)) as usize;
        let mask = self.keys.len() - 1;
        while self.keys[i] != ChildTable::EMPTY && self.keys[i] != key {
            i = (i + 1) & mask;
        }
        i
    }

    /// The node for `key`, inserting `fresh` when absent; returns (node, inserted).
    fn get_or_insert(&mut self, key: u64, fresh: u32) -> (u32, bool) {
        let i = self.slot(key);
        if self.keys[i] == key {
            return (self.values[i], false);
        }
        self.keys[i] = key;
        self.values[i] = fresh;
        self.len += 1;
        if 2 * self.len > self.keys.len() {
            self.grow();
        }
        (fresh, true)
    }

    fn grow(&mut self) {
        let keys = std::mem::take(&mut self.keys);
        let values = std::mem::take(&mut self.values);
        self.keys = vec![ChildTable::EMPTY; 2 * keys.len()];
        self.values = vec![0; 2 * keys.len()];
        for (key, value) in keys.into_iter().zip(values) {
            if key != ChildTable::EMPTY {
                let i = self.slot(key);
                self.keys[i] = key;
                self.values[i] = value;
            }
        }
    }
}

/// A DFA's byte classes renumbered densely in order of first byte, with one
/// representative byte per class to drive the DFA with.
pub(crate) struct DenseClasses {
    pub(crate) class_of_byte: [u8; 256],
    pub(crate) representative: Vec<u8>,
}

impl DenseClasses {
    pub(crate) fn new(classes: &[u8; 256]) -> DenseClasses {
        let mut representative: Vec<u8> = Vec::new();
        let mut dense: [Option<u8>; 256] = [None; 256];
        let mut class_of_byte = [0u8; 256];
        for b in 0..=255u8 {
            let c = classes[b as usize] as usize;
            // At most 256 classes, so the dense id fits a byte.
            let id = *dense[c].get_or_insert_with(|| {
                representative.push(b);
                (representative.len() - 1) as u8
            });
            class_of_byte[b as usize] = id;
        }
        DenseClasses {
            class_of_byte,
            representative,
        }
    }
}

impl ClassTrie {
    /// Maps `trie` onto class strings under `dense` (one pass over the live part of the
    /// vocabulary trie, one over the token ids, one over the class trie). Subtrees
    /// entered by a class in `dead` (no state has a transition on it) are skipped: their
    /// tokens can never be an edge and join no group.
    pub(super) fn new(trie: &VocabTrie, dense: DenseClasses, dead: &[bool]) -> ClassTrie {
        let DenseClasses {
            class_of_byte,
            representative,
        } = dense;
        let (parent, class, mut group_of_token) = hash_cons(trie, &class_of_byte, dead);
        let num_cnodes = parent.len();

        // Groups numbered by first token.
        let mut group_of_cnode = vec![NONE; num_cnodes];
        let mut num_groups = 0u32;
        for slot in group_of_token.iter_mut().filter(|g| **g != NONE) {
            let g = &mut group_of_cnode[*slot as usize];
            if *g == NONE {
                *g = num_groups;
                num_groups += 1;
            }
            *slot = *g;
        }
        let groups = Labels::new(group_of_token, num_groups as usize);

        // Lay the class trie out in preorder, like `VocabTrie`.
        let mut child_start = vec![0u32; num_cnodes + 1];
        for &p in &parent[1..] {
            child_start[p as usize + 1] += 1;
        }
        for i in 0..num_cnodes {
            child_start[i + 1] += child_start[i];
        }
        let mut fill = child_start.clone();
        let mut children = vec![0u32; num_cnodes.saturating_sub(1)];
        for (cnode, &p) in parent.iter().enumerate().skip(1) {
            children[fill[p as usize] as usize] = cnode as u32;
            fill[p as usize] += 1;
        }
        let mut out = ClassTrie {
            nodes: Vec::with_capacity(num_cnodes),
            representative,
            max_depth: trie.max_depth,
            chunks: Vec::new(),
            groups,
        };
        // Stack of (class node, its preorder position, depth, next child index).
        let mut stack: Vec<(u32, u32, u32, u32)> = vec![(0, 0, 0, child_start[0])];
        out.nodes.push(ClassNode {
            depth: 0,
            class: 0,
            end: 0,
            group: NONE,
        });
        while let Some(top) = stack.last_mut() {
            let (cnode, position, depth, next) = *top;
            if next == child_start[cnode as usize + 1] {
                out.nodes[position as usize].end = out.nodes.len() as u32;
                stack.pop();
                continue;
            }
            top.3 += 1;
            let child = children[next as usize];
            let position = out.nodes.len() as u32;
            out.nodes.push(ClassNode {
                depth: depth + 1,
                class: u32::from(class[child as usize]),
                end: 0,
                group: group_of_cnode[child as usize],
            });
            stack.push((child, position, depth + 1, child_start[child as usize]));
        }
        out.chunks = make_chunks(out.nodes.len(), |i| out.nodes[i].end);
        out
    }

    pub(super) fn num_nodes(&self) -> usize {
        self.nodes.len()
    }

    pub(super) fn num_classes(&self) -> usize {
        self.representative.len()
    }

    /// Appends to `out` the edges `(group, target)` of the DFA state `state` found in the
    /// node range `lo..hi` (whole subtrees of root children) and returns how many token
    /// edges they stand for. `step(state, class)` is the automaton's transition on a
    /// dense class. `stack` has room for `max_depth + 1` states.
    pub(super) fn walk(
        &self,
        step: &impl Fn(u32, u32) -> Option<u32>,
        state: u32,
        (lo, hi): (u32, u32),
        stack: &mut [u32],
        out: &mut Vec<(u32, u32)>,
    ) -> usize {
        stack[0] = state;
        let mut node = lo as usize;
        let hi = hi as usize;
        let mut token_edges = 0;
        while node < hi {
            let ClassNode {
                depth,
                class,
                end,
                group,
            } = self.nodes[node];
            let depth = depth as usize;
            match step(stack[depth - 1], class) {
                None => node = end as usize,
                Some(target) => {
                    stack[depth] = target;
                    if group != NONE {
                        out.push((group, target));
                        token_edges += self.groups.size(group);
                    }
                    node += 1;
                }
            }
        }
        token_edges
    }
}

/// Hash-conses every live vocabulary node to (class parent, class): each class node's
/// parent and class (class nodes numbered in creation order, so a parent's number is
/// below its children's), and the class node each token spells (`NONE` without one).
fn hash_cons(
    trie: &VocabTrie,
    class_of_byte: &[u8; 256],
    dead: &[bool],
) -> (Vec<u32>, Vec<u8>, Vec<u32>) {
    let nodes = trie.num_nodes();
    let mut parent: Vec<u32> = vec![NONE];
    let mut class: Vec<u8> = vec![0];
    // Sized for a typical class trie (an eighth of the vocabulary trie), so that it
    // rarely grows.
    let mut table = ChildTable::with_capacity(nodes / 8);
    let mut group_of_token = vec![NONE; trie.vocab_size];
    let mut path = vec![0u32; trie.max_depth + 1];
    let mut node = 1;
    while node < nodes {
        let depth = trie.depth[node] as usize;
        let p = path[depth - 1];
        let c = class_of_byte[trie.byte[node] as usize];
        if dead[c as usize] {
            node = trie.end[node] as usize;
            continue;
        }
        let key = u64::from(p) << 8 | u64::from(c);
        let (cnode, inserted) = table.get_or_insert(key, parent.len() as u32);
        if inserted {
            parent.push(p);
            class.push(c);
        }
        path[depth] = cnode;
        let tokens = trie.token_start[node] as usize..trie.token_start[node + 1] as usize;
        for &t in &trie.token_ids[tokens] {
            group_of_token[t as usize] = cnode;
        }
        node += 1;
    }
    (parent, class, group_of_token)
}
