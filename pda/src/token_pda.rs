//! Composition of a byte PDA with a vocabulary into a token PDA (the paper's Figure 7), and
//! the decode-time operations on it.
//!
//! For every byte-PDA state reachable at a token boundary, a depth-first walk over a byte
//! trie of the vocabulary runs the deterministic PDA over each token's bytes with a
//! *symbolic* stack: symbols the token pushes are tracked exactly; when the PDA needs to pop
//! below them, the walk branches over the return addresses that could be there and records
//! them as the edge's pops (the top-of-stack the token requires). A token edge is thus
//! `(source, token, pops, target, pushes)` and may pop and push several symbols: tokens cross
//! terminal and nonterminal boundaries. Tokens sharing a prefix share the walk. Finally,
//! states with the same future (same edges into equivalent states, same end stacks) are
//! merged.
//!
//! The end of the text is handled the same way: from each boundary state, the pops that lead
//! to the accepting state (down to and including `[•]`) are recorded; EOS tokens are allowed
//! exactly on those stacks and step to the accepting state over `[•]`.
//!
//! Returns the token must make without reading a byte are part of its edge, so the token PDA
//! has no epsilon edges. Their number is bounded: tail calls push nothing, and a return chain
//! that could repeat (a recursive call followed by a rest that can be empty but need not be)
//! is a conflict that `Pda::from_grammar` already rejected. The walk still checks for
//! such a repeat and fails with `UnboundedPops` rather than looping.

use std::collections::{HashMap, VecDeque};

use fst_core::dot::{escape_bytes, escape_str};
use fst_core::{fingerprint, TokenVocabulary};

use crate::byte_pda::{Pda, StackSym};
use crate::error::{PdaError, PdaErrorKind};

/// Limits on the size of a token PDA.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ComposeLimits {
    /// Maximum number of token edges (EOS edges not counted), checked while composing,
    /// before equivalent states are merged.
    pub max_token_edges: usize,
}

impl Default for ComposeLimits {
    /// 10 million edges: room for a large grammar over a 150k-token vocabulary, while
    /// stopping an exploding composition before it takes gigabytes.
    fn default() -> ComposeLimits {
        ComposeLimits {
            max_token_edges: 10_000_000,
        }
    }
}

/// A token edge: reading `token` in `source` needs `pops` on top of the stack (top first),
/// replaces them with `pushes` (push order, last on top) and goes to `target`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TokenEdge {
    /// The state the edge leaves.
    pub source: u32,
    /// The token id read.
    pub token: u32,
    /// Symbols that must be on top of the stack, top first; they are popped.
    pub pops: Vec<StackSym>,
    /// The state the edge enters.
    pub target: u32,
    /// Symbols pushed after the pops, in push order (the last one ends on top).
    pub pushes: Vec<StackSym>,
}

/// A deterministic PDA over token ids.
///
/// A decoder keeps a state and a stack (starting at [`TokenPda::start`] and
/// [`TokenPda::initial_stack`]), masks logits with [`TokenPda::fill_mask`] (or
/// [`TokenPda::allowed_tokens`]) and advances with [`TokenPda::step`]. These decode-time
/// functions treat an unknown state as allowing nothing; the inspection accessors (`edges`,
/// `ends`, `state_name`) panic on it, as slice indexing does.
#[derive(Clone, Debug)]
pub struct TokenPda {
    start: u32,
    accept: u32,
    /// CSR offsets into `edges`, which are sorted by (token, pops) within a state.
    offsets: Vec<usize>,
    edges: Vec<TokenEdge>,
    /// Per state: the pops (top first, ending with `[•]`) on which the text may end here.
    ends: Vec<Vec<Vec<StackSym>>>,
    eos_ids: Vec<u32>,
    vocab_size: u32,
    vocab_fingerprint: u64,
    state_names: Vec<String>,
    stack_names: Vec<String>,
}

/// One possible run of the byte PDA over the bytes of a token read so far.
#[derive(Clone, Debug)]
struct Branch {
    state: u32,
    /// Symbols pushed by the token and still on the stack (push order).
    own: Vec<StackSym>,
    /// Symbols popped from below the token's own pushes (pop order).
    pops: Vec<StackSym>,
}

#[derive(Default)]
struct TrieNode {
    children: Vec<(u8, usize)>,
    tokens: Vec<u32>,
}

fn build_trie<V: TokenVocabulary + ?Sized>(vocab: &V) -> Vec<TrieNode> {
    let mut nodes = vec![TrieNode::default()];
    for id in 0..vocab.len() as u32 {
        // Empty tokens would be epsilon moves; they are never allowed.
        let Some(bytes) = vocab.token_bytes(id).filter(|b| !b.is_empty()) else {
            continue;
        };
        let mut node = 0;
        for &b in bytes {
            node = match nodes[node].children.iter().find(|(c, _)| *c == b) {
                Some(&(_, next)) => next,
                None => {
                    nodes.push(TrieNode::default());
                    let next = nodes.len() - 1;
                    nodes[node].children.push((b, next));
                    next
                }
            };
        }
        nodes[node].tokens.push(id);
    }
    for n in &mut nodes {
        n.children.sort_unstable();
    }
    nodes
}

fn unbounded(pda: &Pda, state: u32, look: Option<u8>) -> PdaError {
    let what = match look {
        Some(b) => format!("byte `{}`", escape_bytes(&[b])),
        None => "the end of the text".to_string(),
    };
    PdaError::new(
        PdaErrorKind::UnboundedPops,
        format!(
            "at `{}`, {what} makes the PDA return through the same rules an unbounded number of times, so one token would pop unboundedly many stack symbols; this comes from a recursive call followed by a rest that can be empty: make the recursive call the last symbol of its rule or follow it by a literal",
            pda.state_name(state)
        ),
    )
}

/// Advances `br` over byte `b`; the surviving runs go to `out`. Runs that pop from below
/// the token's pushes branch over the possible symbols; each carries the states where it did
/// so for this byte, and a repeat means unbounded pops.
fn advance(pda: &Pda, br: Branch, b: u8, out: &mut Vec<Branch>) -> Result<(), PdaError> {
    let mut work: Vec<(Branch, Vec<u32>)> = vec![(br, Vec::new())];
    'runs: while let Some((mut br, mut seen)) = work.pop() {
        loop {
            if let Some(e) = pda.byte_edge(br.state, b) {
                br.own.extend_from_slice(&e.pushes);
                br.state = e.target;
                // Returns from a finished rule into the token's own pushes are forced: do
                // them now so that edges push less and fewer states are boundary states.
                while pda.is_complete(br.state) {
                    let Some(&top) = br.own.last() else { break };
                    let Some(e) = pda.eps_edges(br.state).iter().find(|e| e.pops[0] == top) else {
                        continue 'runs;
                    };
                    br.own.pop();
                    br.state = e.target;
                }
                out.push(br);
                continue 'runs;
            }
            if let Some(&top) = br.own.last() {
                let Some(e) = pda.eps_edges(br.state).iter().find(|e| e.pops[0] == top) else {
                    continue 'runs;
                };
                br.own.pop();
                br.state = e.target;
                continue;
            }
            // The PDA must pop a symbol the token did not push: branch over what it could be.
            if seen.contains(&br.state) {
                return Err(unbounded(pda, br.state, Some(b)));
            }
            seen.push(br.state);
            for e in pda.eps_edges(br.state) {
                // Popping `[•]` reaches the accepting state, where no byte can be read.
                if e.pops[0] != StackSym::INITIAL {
                    let mut next = br.clone();
                    next.pops.push(e.pops[0]);
                    next.state = e.target;
                    work.push((next, seen.clone()));
                }
            }
            continue 'runs;
        }
    }
    Ok(())
}

/// The pops (top first, ending with `[•]`) that finish the text from `state`.
fn finish(pda: &Pda, state: u32) -> Result<Vec<Vec<StackSym>>, PdaError> {
    let mut out = Vec::new();
    let mut work: Vec<(u32, Vec<StackSym>, Vec<u32>)> = vec![(state, Vec::new(), Vec::new())];
    while let Some((state, pops, mut seen)) = work.pop() {
        if seen.contains(&state) {
            return Err(unbounded(pda, state, None));
        }
        seen.push(state);
        for e in pda.eps_edges(state) {
            let mut pops = pops.clone();
            pops.push(e.pops[0]);
            if e.pops[0] == StackSym::INITIAL {
                out.push(pops);
            } else {
                work.push((e.target, pops, seen.clone()));
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Composes `pda` with `vocab` into a token PDA (see the module documentation).
///
/// Fails with `TokenEdgeLimit` when the result would exceed `limits`, and with
/// `UnboundedPops` when a token would need unboundedly many pops.
pub fn compose<V: TokenVocabulary + ?Sized>(
    pda: &Pda,
    vocab: &V,
    limits: &ComposeLimits,
) -> Result<TokenPda, PdaError> {
    let trie = build_trie(vocab);
    let mut number: HashMap<u32, u32> = HashMap::from([(pda.start(), 0)]);
    let mut order: Vec<u32> = vec![pda.start()];
    let mut queue = VecDeque::from([pda.start()]);
    // Edges with byte-PDA targets, renumbered once all states are known.
    let mut per_state: Vec<Vec<TokenEdge>> = Vec::new();
    let mut ends: Vec<Vec<Vec<StackSym>>> = Vec::new();
    let mut total = 0usize;
    while let Some(q) = queue.pop_front() {
        let source = per_state.len() as u32;
        let mut edges = Vec::new();
        // Depth-first over the trie; each frame holds the runs alive after its bytes.
        let mut frames: Vec<(usize, Vec<Branch>)> = vec![(
            0,
            vec![Branch {
                state: q,
                own: Vec::new(),
                pops: Vec::new(),
            }],
        )];
        while let Some((node, branches)) = frames.pop() {
            for &(b, child) in &trie[node].children {
                let mut next = Vec::new();
                for br in &branches {
                    advance(pda, br.clone(), b, &mut next)?;
                }
                if next.is_empty() {
                    continue;
                }
                for &token in &trie[child].tokens {
                    for br in &next {
                        total += 1;
                        if total > limits.max_token_edges {
                            return Err(PdaError::new(
                                PdaErrorKind::TokenEdgeLimit,
                                format!(
                                    "the token PDA needs more than {} token edges (reached while composing state `{}`); raise ComposeLimits::max_token_edges or simplify the grammar",
                                    limits.max_token_edges,
                                    pda.state_name(q)
                                ),
                            ));
                        }
                        if let std::collections::hash_map::Entry::Vacant(v) = number.entry(br.state)
                        {
                            v.insert(order.len() as u32);
                            order.push(br.state);
                            queue.push_back(br.state);
                        }
                        edges.push(TokenEdge {
                            source,
                            token,
                            pops: br.pops.clone(),
                            target: br.state,
                            pushes: br.own.clone(),
                        });
                    }
                }
                if !trie[child].children.is_empty() {
                    frames.push((child, next));
                }
            }
        }
        ends.push(finish(pda, q)?);
        per_state.push(edges);
    }
    let accept = order.len() as u32;
    let mut offsets = vec![0];
    let mut edges = Vec::with_capacity(total);
    for mut list in per_state {
        for e in &mut list {
            e.target = number[&e.target];
        }
        list.sort_by(|a, b| (a.token, &a.pops).cmp(&(b.token, &b.pops)));
        edges.extend(list);
        offsets.push(edges.len());
    }
    offsets.push(edges.len());
    ends.push(Vec::new());
    let mut state_names: Vec<String> = order
        .iter()
        .map(|&s| pda.state_name(s).to_string())
        .collect();
    state_names.push(pda.state_name(pda.accept_state()).to_string());
    let stack_names = (0..pda.num_stack_symbols() as u32)
        .map(|i| pda.stack_symbol_name(StackSym::from_index(i)).to_string())
        .collect();
    let mut eos_ids = vocab.eos_ids().to_vec();
    eos_ids.sort_unstable();
    eos_ids.dedup();
    Ok(minimize(TokenPda {
        start: 0,
        accept,
        offsets,
        edges,
        ends,
        eos_ids,
        vocab_size: vocab.len() as u32,
        vocab_fingerprint: fingerprint(vocab),
        state_names,
        stack_names,
    }))
}

/// Numbers keys by first appearance: equal keys get equal numbers. Returns the numbers and
/// how many distinct keys there were.
fn number<K: std::hash::Hash + Eq>(keys: Vec<K>) -> (Vec<u32>, usize) {
    let mut ids: HashMap<K, u32> = HashMap::new();
    let class = keys
        .into_iter()
        .map(|k| {
            let next = ids.len() as u32;
            *ids.entry(k).or_insert(next)
        })
        .collect();
    (class, ids.len())
}

/// Merges states that behave the same: same finality, same end stacks, and edges with the
/// same tokens, pops and pushes into equivalent states (Moore-style partition refinement).
/// Distinct dotted rules often lead to the same future, e.g. `T -> "b" •` and
/// `T -> S "b" •` in Figure 7.
fn minimize(t: TokenPda) -> TokenPda {
    let n = t.num_states();
    let (mut class, mut count) = number(
        (0..n as u32)
            .map(|s| (t.is_final(s), t.ends(s).to_vec()))
            .collect(),
    );
    loop {
        let keys: Vec<_> = (0..n as u32)
            .map(|s| {
                let edges: Vec<_> = t
                    .edges(s)
                    .iter()
                    .map(|e| (e.token, &e.pops, &e.pushes, class[e.target as usize]))
                    .collect();
                (class[s as usize], edges)
            })
            .collect();
        let (next, next_count) = number(keys);
        class = next;
        if next_count == count {
            break;
        }
        count = next_count;
    }
    if count == n {
        return t;
    }
    // Classes are numbered by first member, so the start (state 0) stays 0.
    let mut members: Vec<Vec<u32>> = vec![Vec::new(); count];
    for s in 0..n as u32 {
        members[class[s as usize] as usize].push(s);
    }
    let mut offsets = vec![0];
    let mut edges = Vec::new();
    let mut ends = Vec::new();
    let mut state_names = Vec::new();
    for (c, group) in members.iter().enumerate() {
        let rep = group[0];
        for e in t.edges(rep) {
            edges.push(TokenEdge {
                source: c as u32,
                token: e.token,
                pops: e.pops.clone(),
                target: class[e.target as usize],
                pushes: e.pushes.clone(),
            });
        }
        offsets.push(edges.len());
        ends.push(t.ends(rep).to_vec());
        let names: Vec<&str> = group.iter().map(|&s| t.state_name(s)).collect();
        state_names.push(names.join(" | "));
    }
    TokenPda {
        start: class[t.start as usize],
        accept: class[t.accept as usize],
        offsets,
        edges,
        ends,
        state_names,
        ..t
    }
}

/// Whether `pops` (top first) are on top of `stack` (top last).
fn pops_match(pops: &[StackSym], stack: &[StackSym]) -> bool {
    pops.len() <= stack.len() && pops.iter().zip(stack.iter().rev()).all(|(p, s)| p == s)
}

impl TokenPda {
    /// The start state.
    pub fn start(&self) -> u32 {
        self.start
    }

    /// The stack at the start: just the initial symbol `[•]`.
    pub fn initial_stack(&self) -> Vec<StackSym> {
        vec![StackSym::INITIAL]
    }

    /// Number of states, the accepting state included.
    pub fn num_states(&self) -> usize {
        self.ends.len()
    }

    /// Number of token edges (EOS not counted).
    pub fn num_edges(&self) -> usize {
        self.edges.len()
    }

    /// Whether `state` is the accepting state (entered by EOS).
    pub fn is_final(&self, state: u32) -> bool {
        state == self.accept
    }

    /// The token edges leaving `state`, sorted by token then pops.
    pub fn edges(&self, state: u32) -> &[TokenEdge] {
        &self.edges[self.offsets[state as usize]..self.offsets[state as usize + 1]]
    }

    /// The pop sequences (top first, ending with `[•]`) on which the text may end in
    /// `state`: the whole stack must be exactly one of them.
    pub fn ends(&self, state: u32) -> &[Vec<StackSym>] {
        &self.ends[state as usize]
    }

    /// The EOS ids of the vocabulary, sorted.
    pub fn eos_ids(&self) -> &[u32] {
        &self.eos_ids
    }

    /// Number of token ids of the vocabulary.
    pub fn vocab_size(&self) -> u32 {
        self.vocab_size
    }

    /// `fst_core::fingerprint` of the vocabulary it was composed with.
    pub fn vocab_fingerprint(&self) -> u64 {
        self.vocab_fingerprint
    }

    /// The byte-PDA dotted rule a state stands for.
    pub fn state_name(&self, state: u32) -> &str {
        &self.state_names[state as usize]
    }

    /// The return address a stack symbol stands for.
    pub fn stack_symbol_name(&self, sym: StackSym) -> &str {
        &self.stack_names[sym.index() as usize]
    }

    /// Whether the text read so far is complete: EOS may follow.
    pub fn can_end(&self, state: u32, stack: &[StackSym]) -> bool {
        self.ends.get(state as usize).is_some_and(|ends| {
            ends.iter()
                .any(|pops| pops.len() == stack.len() && pops_match(pops, stack))
        })
    }

    /// Whether generation is over: the accepting state over the initial stack.
    pub fn is_accepting(&self, state: u32, stack: &[StackSym]) -> bool {
        state == self.accept && stack == [StackSym::INITIAL]
    }

    /// Reads `token`: checks its pops against `stack`, applies them and its pushes, and
    /// returns the new state; `None` (stack untouched) when the token is not allowed. EOS
    /// ids step to the accepting state when [`TokenPda::can_end`] holds.
    pub fn step(&self, state: u32, stack: &mut Vec<StackSym>, token: u32) -> Option<u32> {
        if state as usize >= self.num_states() {
            return None;
        }
        if self.eos_ids.binary_search(&token).is_ok() {
            if self.can_end(state, stack) {
                stack.clear();
                stack.push(StackSym::INITIAL);
                return Some(self.accept);
            }
            return None;
        }
        let edges = self.edges(state);
        let from = edges.partition_point(|e| e.token < token);
        let e = edges[from..]
            .iter()
            .take_while(|e| e.token == token)
            .find(|e| pops_match(&e.pops, stack))?;
        stack.truncate(stack.len() - e.pops.len());
        stack.extend_from_slice(&e.pushes);
        Some(e.target)
    }

    /// The tokens [`TokenPda::step`] accepts in this configuration, sorted (EOS ids included
    /// when the text may end here).
    pub fn allowed_tokens(&self, state: u32, stack: &[StackSym]) -> Vec<u32> {
        if state as usize >= self.num_states() {
            return Vec::new();
        }
        let mut out: Vec<u32> = Vec::new();
        for e in self.edges(state) {
            if out.last() != Some(&e.token) && pops_match(&e.pops, stack) {
                out.push(e.token);
            }
        }
        if self.can_end(state, stack) {
            out.extend_from_slice(&self.eos_ids);
            out.sort_unstable();
            out.dedup();
        }
        out
    }

    /// Writes the allowed tokens as a mask: bit `t % 32` of word `t / 32` is set exactly for
    /// the tokens [`TokenPda::allowed_tokens`] lists (the workspace's mask layout). Returns
    /// `false` and leaves `mask` alone when it has fewer than `vocab_size().div_ceil(32)`
    /// words.
    pub fn fill_mask(&self, state: u32, stack: &[StackSym], mask: &mut [u32]) -> bool {
        if mask.len() < (self.vocab_size as usize).div_ceil(32) {
            return false;
        }
        mask.fill(0);
        let mut set = |t: u32| {
            if let Some(word) = mask.get_mut(t as usize / 32) {
                *word |= 1 << (t % 32);
            }
        };
        if (state as usize) < self.num_states() {
            for e in self.edges(state) {
                if pops_match(&e.pops, stack) {
                    set(e.token);
                }
            }
            if self.can_end(state, stack) {
                self.eos_ids.iter().for_each(|&t| set(t));
            }
        }
        true
    }

    /// Graphviz DOT: each edge shows the token's text, then its pops as `)X` and its pushes
    /// as `(X`, as in the paper; EOS edges go to the accepting state.
    pub fn to_dot<V: TokenVocabulary + ?Sized>(&self, vocab: &V) -> String {
        let sym = |s: &StackSym| escape_str(self.stack_symbol_name(*s));
        let mut out = String::from("digraph token_pda {\n  rankdir=LR;\n");
        for s in 0..self.num_states() as u32 {
            let shape = if self.is_final(s) {
                "doublecircle"
            } else {
                "circle"
            };
            out.push_str(&format!(
                "  {s} [shape={shape}, label=\"{s}\\n{}\"];\n",
                escape_str(self.state_name(s))
            ));
        }
        out.push_str(&format!(
            "  init [shape=point];\n  init -> {};\n",
            self.start
        ));
        let stack_ops = |pops: &[StackSym], pushes: &[StackSym]| {
            let mut label = String::new();
            for p in pops {
                label.push_str(&format!("\\n){}", sym(p)));
            }
            for p in pushes {
                label.push_str(&format!("\\n({}", sym(p)));
            }
            label
        };
        for s in 0..self.num_states() as u32 {
            for e in self.edges(s) {
                let text = escape_bytes(vocab.token_bytes(e.token).unwrap_or_default());
                out.push_str(&format!(
                    "  {} -> {} [label=\"{text}{}\"];\n",
                    e.source,
                    e.target,
                    stack_ops(&e.pops, &e.pushes)
                ));
            }
            for pops in self.ends(s) {
                out.push_str(&format!(
                    "  {s} -> {} [label=\"EOS{}\"];\n",
                    self.accept,
                    stack_ops(pops, &[StackSym::INITIAL])
                ));
            }
        }
        out.push_str("}\n");
        out
    }
}
