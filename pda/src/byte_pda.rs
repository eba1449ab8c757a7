//! The byte-level pushdown automaton of a grammar (the paper's Figure 6).
//!
//! States are Earley-style dotted rules `A -> α • β` (plus one accepting state), and stack
//! symbols are return addresses: the dotted rule `A -> α • B β` a call of `B` came from, or
//! the initial symbol `[•]`. The construction, for a grammar that passed the
//! checks of `Pda::from_grammar` (no unknown or unfinishable nonterminal, no left recursion,
//! LL(1) over bytes):
//!
//! - Literals are byte chains: `A -> α • b β` reads `b` and goes to `A -> α b • β`.
//! - Calling `B` from `A -> α • B β` pushes the return address `A -> α • B β`. The call is
//!   merged with the first byte it reads: the edge reads `b`, pushes the return addresses of
//!   the whole chain of calls that the byte selects (one alternative per nonterminal, by the
//!   LL(1) condition; nullable nonterminals that `b` cannot start are skipped), and lands
//!   just after `b`. A call in tail position (`β` empty, or able to derive only the empty
//!   string) pushes nothing: `B` returns straight to `A`'s caller, which keeps
//!   right-recursive lists at constant stack depth.
//! - Finishing `A` (the dot at the end, or before a rest that can be empty) pops a return
//!   address `X -> γ • A δ` and goes to `X -> γ A • δ`; popping `[•]` finishes the start
//!   nonterminal and goes to the accepting state (pushing `[•]` back, so the accepted
//!   configuration is the accepting state over the initial stack).
//!
//! Every byte edge pushes only and every epsilon edge pops exactly one symbol. The automaton
//! is deterministic with one byte of lookahead: a byte edge for the next byte is taken when
//! there is one; otherwise the epsilon edge whose pop matches the top of the stack (at most
//! one). The LL(1) check guarantees the two never compete for the same byte.

use std::collections::{BTreeSet, HashMap, VecDeque};

use crate::analysis::{Cfg, Elem};
use crate::error::PdaError;
use crate::grammar::{fmt_literal, Grammar};

/// A stack symbol: the initial symbol or a return address (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StackSym(u32);

impl StackSym {
    /// The initial stack symbol `[•]`.
    pub const INITIAL: StackSym = StackSym(0);

    /// The symbol's number, `0` for the initial symbol; see `Pda::stack_symbol_name`.
    pub fn index(self) -> u32 {
        self.0
    }

    pub(crate) fn from_index(index: u32) -> StackSym {
        StackSym(index)
    }
}

/// An edge of the byte PDA.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edge {
    /// The state the edge leaves.
    pub source: u32,
    /// The byte read, or `None` for an epsilon edge.
    pub input: Option<u8>,
    /// Symbols popped, top of the stack first; they must be on top of the stack.
    pub pops: Vec<StackSym>,
    /// The state the edge enters.
    pub target: u32,
    /// Symbols pushed after the pops, in push order (the last one ends on top).
    pub pushes: Vec<StackSym>,
}

/// The byte-level PDA of a deterministic grammar.
#[derive(Clone, Debug)]
pub struct Pda {
    start: u32,
    accept: u32,
    /// CSR offsets into `edges`: state `s` has `edges[offsets[s]..offsets[s + 1]]`, epsilon
    /// edges first (sorted by pop), then byte edges sorted by byte.
    offsets: Vec<usize>,
    edges: Vec<Edge>,
    /// Per state: whether the dot is at the end of its rule (only epsilon edges leave it).
    complete: Vec<bool>,
    state_names: Vec<String>,
    stack_names: Vec<String>,
}

/// Bound on the stack depth in [`Pda::accepts`]; deeper texts are rejected.
pub const MAX_STACK_DEPTH: usize = 1 << 16;

/// Dotted rules of the flattened grammar, numbered rule by rule.
struct Items<'a> {
    cfg: &'a Cfg,
    base: Vec<u32>,
}

impl<'a> Items<'a> {
    fn new(cfg: &'a Cfg) -> Items<'a> {
        let mut base = Vec::with_capacity(cfg.rules.len() + 1);
        let mut next = 0u32;
        for r in &cfg.rules {
            base.push(next);
            next += r.elems.len() as u32 + 1;
        }
        base.push(next);
        Items { cfg, base }
    }

    fn id(&self, rule: usize, pos: usize) -> u32 {
        self.base[rule] + pos as u32
    }

    fn count(&self) -> u32 {
        self.base[self.cfg.rules.len()]
    }

    fn split(&self, item: u32) -> (usize, usize) {
        let rule = self.base.partition_point(|&b| b <= item) - 1;
        (rule, (item - self.base[rule]) as usize)
    }

    /// `A -> "a" • B "c"`: literals regrouped, the dot where it is.
    fn name(&self, item: u32) -> String {
        let (rule, pos) = self.split(item);
        let r = &self.cfg.rules[rule];
        let mut out = format!("{} ->", self.cfg.names[r.lhs as usize]);
        let mut lit: Vec<u8> = Vec::new();
        let flush = |lit: &mut Vec<u8>, out: &mut String| {
            if !lit.is_empty() {
                out.push(' ');
                out.push_str(&fmt_literal(lit));
                lit.clear();
            }
        };
        for (k, e) in r.elems.iter().enumerate() {
            if k == pos {
                flush(&mut lit, &mut out);
                out.push_str(" •");
            }
            match *e {
                Elem::Byte(b) => lit.push(b),
                Elem::Nt(m) => {
                    flush(&mut lit, &mut out);
                    out.push(' ');
                    out.push_str(&self.cfg.names[m as usize]);
                }
            }
        }
        flush(&mut lit, &mut out);
        if pos == r.elems.len() {
            out.push_str(" •");
        }
        out
    }
}

impl Pda {
    /// Builds the PDA of `grammar`, or says why the grammar cannot give a deterministic one
    /// (unknown or unfinishable nonterminal, left recursion, LL(1) conflict).
    pub fn from_grammar(grammar: &Grammar) -> Result<Pda, PdaError> {
        let cfg = Cfg::new(grammar)?;
        Ok(Pda::build(&cfg))
    }

    fn build(cfg: &Cfg) -> Pda {
        let items = Items::new(cfg);
        // Stack symbols: 0 is [•], then every non-tail call position.
        let mut stack_names = vec!["[•]".to_string()];
        let mut sym_of_item: HashMap<u32, StackSym> = HashMap::new();
        let mut item_of_sym: Vec<u32> = vec![u32::MAX];
        for (ri, r) in cfg.rules.iter().enumerate() {
            for (k, e) in r.elems.iter().enumerate() {
                if matches!(e, Elem::Nt(_)) && !cfg.is_tail_call(ri, k) {
                    let item = items.id(ri, k);
                    sym_of_item.insert(item, StackSym(item_of_sym.len() as u32));
                    item_of_sym.push(item);
                    stack_names.push(items.name(item));
                }
            }
        }
        // Return addresses of each nonterminal (tail calls inherit the caller's).
        let mut ret: Vec<BTreeSet<StackSym>> = vec![BTreeSet::new(); cfg.names.len()];
        ret[cfg.synthetic_start() as usize].insert(StackSym::INITIAL);
        let mut changed = true;
        while changed {
            changed = false;
            for (ri, r) in cfg.rules.iter().enumerate() {
                for (k, e) in r.elems.iter().enumerate() {
                    if let Elem::Nt(b) = *e {
                        let add: Vec<StackSym> = if cfg.is_tail_call(ri, k) {
                            ret[r.lhs as usize].iter().copied().collect()
                        } else {
                            vec![sym_of_item[&items.id(ri, k)]]
                        };
                        for s in add {
                            changed |= ret[b as usize].insert(s);
                        }
                    }
                }
            }
        }

        // Edges of every item, as (input, pops, target item or None for accept, pushes).
        type RawEdge = (Option<u8>, Vec<StackSym>, Option<u32>, Vec<StackSym>);
        let raw_edges = |item: u32| -> Vec<RawEdge> {
            let (rule, pos) = items.split(item);
            let elems = &cfg.rules[rule].elems;
            let mut out = Vec::new();
            if cfg.nullable_of(&elems[pos..]) {
                for &x in &ret[cfg.rules[rule].lhs as usize] {
                    if x == StackSym::INITIAL {
                        out.push((None, vec![x], None, vec![x]));
                    } else {
                        out.push((None, vec![x], Some(item_of_sym[x.0 as usize] + 1), vec![]));
                    }
                }
            }
            for b in 0..=255u8 {
                if let Some((pushes, target)) = descend(cfg, &items, &sym_of_item, rule, pos, b) {
                    out.push((Some(b), vec![], Some(target), pushes));
                }
            }
            out
        };

        // Breadth-first numbering of the items reachable from the start; accept is last.
        let start_item = items.id(0, 0);
        let mut number: HashMap<u32, u32> = HashMap::new();
        let mut order: Vec<u32> = vec![start_item];
        number.insert(start_item, 0);
        let mut queue = VecDeque::from([start_item]);
        let mut per_state: Vec<Vec<RawEdge>> = Vec::new();
        while let Some(item) = queue.pop_front() {
            let edges = raw_edges(item);
            for (_, _, target, _) in &edges {
                if let Some(t) = *target {
                    if let std::collections::hash_map::Entry::Vacant(v) = number.entry(t) {
                        v.insert(order.len() as u32);
                        order.push(t);
                        queue.push_back(t);
                    }
                }
            }
            per_state.push(edges);
        }
        debug_assert!(items.count() as usize >= order.len());
        let accept = order.len() as u32;
        let mut offsets = vec![0];
        let mut edges = Vec::new();
        let mut complete = Vec::new();
        let mut state_names = Vec::new();
        for (s, (item, raw)) in order.iter().zip(per_state).enumerate() {
            let (rule, pos) = items.split(*item);
            complete.push(pos == cfg.rules[rule].elems.len());
            state_names.push(items.name(*item));
            for (input, pops, target, pushes) in raw {
                edges.push(Edge {
                    source: s as u32,
                    input,
                    pops,
                    target: target.map_or(accept, |t| number[&t]),
                    pushes,
                });
            }
            offsets.push(edges.len());
        }
        complete.push(true);
        state_names.push("accept".to_string());
        offsets.push(edges.len());
        Pda {
            start: 0,
            accept,
            offsets,
            edges,
            complete,
            state_names,
            stack_names,
        }
    }

    /// Number of states, the accepting state included.
    pub fn num_states(&self) -> usize {
        self.complete.len()
    }

    /// Number of edges.
    pub fn num_edges(&self) -> usize {
        self.edges.len()
    }

    /// The start state.
    pub fn start(&self) -> u32 {
        self.start
    }

    /// The one accepting state. A text is accepted when the PDA ends there over `[•]`.
    pub fn accept_state(&self) -> u32 {
        self.accept
    }

    /// Whether `state` is the accepting state.
    pub fn is_final(&self, state: u32) -> bool {
        state == self.accept
    }

    /// The edges leaving `state`: epsilon edges first (by pop), then byte edges by byte.
    pub fn edges(&self, state: u32) -> &[Edge] {
        &self.edges[self.offsets[state as usize]..self.offsets[state as usize + 1]]
    }

    /// The dotted rule a state stands for (`accept` for the accepting state).
    pub fn state_name(&self, state: u32) -> &str {
        &self.state_names[state as usize]
    }

    /// Number of stack symbols, the initial one included.
    pub fn num_stack_symbols(&self) -> usize {
        self.stack_names.len()
    }

    /// The return address a stack symbol stands for (`[•]` for the initial symbol).
    pub fn stack_symbol_name(&self, sym: StackSym) -> &str {
        &self.stack_names[sym.0 as usize]
    }

    /// Whether only epsilon edges leave `state` (the dot is at the end of its rule).
    pub(crate) fn is_complete(&self, state: u32) -> bool {
        self.complete[state as usize]
    }

    /// The byte edge of `state` for `b`, if any.
    pub(crate) fn byte_edge(&self, state: u32, b: u8) -> Option<&Edge> {
        let edges = self.edges(state);
        let first_byte = edges.partition_point(|e| e.input.is_none());
        let bytes = &edges[first_byte..];
        bytes
            .binary_search_by_key(&b, |e| e.input.unwrap_or(0))
            .ok()
            .map(|i| &bytes[i])
    }

    /// The epsilon edges of `state`; each pops one symbol, and no two pop the same one.
    pub(crate) fn eps_edges(&self, state: u32) -> &[Edge] {
        let edges = self.edges(state);
        &edges[..edges.partition_point(|e| e.input.is_none())]
    }

    /// One step of the deterministic simulation: reads `look` (or finishes the text when
    /// `None`), taking epsilon edges while no byte edge applies. `false` when stuck.
    fn step(&self, state: &mut u32, stack: &mut Vec<StackSym>, look: Option<u8>) -> bool {
        loop {
            match look {
                Some(b) => {
                    if let Some(e) = self.byte_edge(*state, b) {
                        if stack.len() + e.pushes.len() > MAX_STACK_DEPTH {
                            return false;
                        }
                        stack.extend_from_slice(&e.pushes);
                        *state = e.target;
                        return true;
                    }
                }
                None => {
                    if *state == self.accept {
                        return stack.as_slice() == [StackSym::INITIAL];
                    }
                }
            }
            let Some(&top) = stack.last() else {
                return false;
            };
            let Some(e) = self.eps_edges(*state).iter().find(|e| e.pops[0] == top) else {
                return false;
            };
            stack.pop();
            stack.extend_from_slice(&e.pushes);
            *state = e.target;
        }
    }

    /// Whether the grammar derives `text`, by running the PDA deterministically. Texts that
    /// need a stack deeper than [`MAX_STACK_DEPTH`] are rejected.
    pub fn accepts(&self, text: &[u8]) -> bool {
        let mut state = self.start;
        let mut stack = vec![StackSym::INITIAL];
        text.iter()
            .all(|&b| self.step(&mut state, &mut stack, Some(b)))
            && self.step(&mut state, &mut stack, None)
    }

    /// Graphviz DOT: states labelled with their dotted rule, edges with the byte (or ε),
    /// then pops as `)X` and pushes as `(X`, as in the paper.
    pub fn to_dot(&self) -> String {
        use fst_core::dot::{escape_bytes, escape_str};
        let mut out = String::from("digraph pda {\n  rankdir=LR;\n  node [shape=circle];\n");
        for s in 0..self.num_states() as u32 {
            let shape = if s == self.accept {
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
        for e in &self.edges {
            let mut label = match e.input {
                Some(b) => escape_bytes(&[b]),
                None => "ε".to_string(),
            };
            for p in &e.pops {
                label.push_str(&format!("\\n){}", escape_str(self.stack_symbol_name(*p))));
            }
            for p in &e.pushes {
                label.push_str(&format!("\\n({}", escape_str(self.stack_symbol_name(*p))));
            }
            out.push_str(&format!(
                "  {} -> {} [label=\"{label}\"];\n",
                e.source, e.target
            ));
        }
        out.push_str("}\n");
        out
    }
}

/// How byte `b` is read from item `(rule, pos)` without returning from the rule: the return
/// addresses pushed on the way down and the item reached just after `b`.
fn descend(
    cfg: &Cfg,
    items: &Items<'_>,
    sym_of_item: &HashMap<u32, StackSym>,
    mut rule: usize,
    mut pos: usize,
    b: u8,
) -> Option<(Vec<StackSym>, u32)> {
    let mut pushes = Vec::new();
    // Terminates: without left recursion the chain of calls before a byte is acyclic.
    loop {
        let elems = &cfg.rules[rule].elems;
        match *elems.get(pos)? {
            Elem::Byte(c) => return (c == b).then(|| (pushes, items.id(rule, pos + 1))),
            Elem::Nt(n) => {
                if cfg.first[n as usize].contains(b) {
                    if !cfg.is_tail_call(rule, pos) {
                        pushes.push(sym_of_item[&items.id(rule, pos)]);
                    }
                    // The LL(1) check makes this alternative unique.
                    rule = cfg.choice(n, b)?;
                    pos = 0;
                } else if cfg.nullable[n as usize] {
                    pos += 1;
                } else {
                    return None;
                }
            }
        }
    }
}
