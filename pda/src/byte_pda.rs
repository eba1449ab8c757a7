//! The byte-level pushdown automaton of a grammar (the paper's Figure 6).
//!
//! Built by `Pda::from_gbnf` / `from_rules` (in `crate::rtn`). States are the states of the
//! rules' DFAs (see `crate::rtn`: each kept rule's body, with
//! non-recursive rules inlined, is a minimized DFA over bytes and calls), named after the
//! fewest literals and calls that reach them (`S: "a" S •`), plus one accepting state.
//! Stack symbols are return addresses: the DFA state a call returns to, or the initial
//! symbol `[•]`.
//!
//! - A byte edge reads one byte and pushes the return addresses of the chain of calls that
//!   byte selects (each call is merged with the first byte it reads; a rule that may be
//!   empty and cannot start with the byte is skipped). A call whose return state is final
//!   with nothing after it (a tail call) pushes nothing: the rule returns straight to its
//!   caller's caller, so right-recursive lists keep a constant stack depth.
//! - Where a rule may end, one epsilon edge per possible return address pops it and enters
//!   the state it names; popping `[•]` finishes the start rule and goes to the accepting
//!   state (pushing `[•]` back, so the accepted configuration is the accepting state over
//!   the initial stack).
//!
//! Every byte edge pushes only and every epsilon edge pops exactly one symbol. Most grammars
//! give an automaton that is deterministic with one byte of lookahead: a byte edge for the
//! next byte is taken when there is one; otherwise the epsilon edge whose pop matches the
//! top of the stack (at most one). Where the grammar's conflicts do not allow that
//! ([`Pda::conflicts`] lists them), a state may have several edges for a byte and may both
//! read a byte and return before it: every way is kept, and the token PDA composed from it
//! is walked with a set of configurations.

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

/// The byte-level PDA of a grammar.
#[derive(Clone, Debug)]
pub struct Pda {
    pub(crate) start: u32,
    pub(crate) accept: u32,
    /// CSR offsets into `edges`: state `s` has `edges[offsets[s]..offsets[s + 1]]`, epsilon
    /// edges first (sorted by pop), then byte edges sorted by byte.
    pub(crate) offsets: Vec<usize>,
    pub(crate) edges: Vec<Edge>,
    /// Per state: whether only epsilon edges leave it (its rule can only return).
    pub(crate) complete: Vec<bool>,
    pub(crate) state_names: Vec<String>,
    /// Per state: its kept rule, an index of `rule_names` (the start rule for `accept`).
    pub(crate) state_rules: Vec<u32>,
    /// Per kept rule: its name and where it is defined (``rule `x` (line 2, column 1)``).
    pub(crate) rule_names: Vec<String>,
    pub(crate) stack_names: Vec<String>,
    /// The conflicts one byte of lookahead does not decide; `None` when deterministic.
    pub(crate) conflicts: Option<String>,
    /// Per state, the bytes before which its rule may return (a bitset).
    pub(crate) return_bytes: Vec<[u64; 4]>,
}

/// Bound on the stack depth in [`Pda::accepts`]; deeper texts are rejected.
pub const MAX_STACK_DEPTH: usize = 1 << 16;

impl Pda {
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

    /// Whether one byte of lookahead decides every move (see [`Pda::conflicts`]).
    pub fn is_deterministic(&self) -> bool {
        self.conflicts.is_none()
    }

    /// The conflicts that make the PDA nondeterministic, each with its rule, an input that
    /// leads there, the bytes and what they could do; `None` for a deterministic PDA.
    pub fn conflicts(&self) -> Option<&str> {
        self.conflicts.as_deref()
    }

    /// Whether the rule of `state` may return when byte `b` comes next.
    pub(crate) fn returns_before(&self, state: u32, b: u8) -> bool {
        self.return_bytes[state as usize][usize::from(b >> 6)] >> (b & 63) & 1 == 1
    }

    /// The edges leaving `state`: epsilon edges first (by pop), then byte edges by byte.
    pub fn edges(&self, state: u32) -> &[Edge] {
        &self.edges[self.offsets[state as usize]..self.offsets[state as usize + 1]]
    }

    /// The dotted rule a state stands for (`accept` for the accepting state).
    pub fn state_name(&self, state: u32) -> &str {
        &self.state_names[state as usize]
    }

    /// The rule `state` belongs to and where it is defined, for messages.
    pub(crate) fn state_rule(&self, state: u32) -> &str {
        &self.rule_names[self.state_rules[state as usize] as usize]
    }

    /// Number of stack symbols, the initial one included.
    pub fn num_stack_symbols(&self) -> usize {
        self.stack_names.len()
    }

    /// The return address a stack symbol stands for (`[•]` for the initial symbol).
    pub fn stack_symbol_name(&self, sym: StackSym) -> &str {
        &self.stack_names[sym.0 as usize]
    }

    /// Whether only epsilon edges leave `state` (its rule can only return).
    pub(crate) fn is_complete(&self, state: u32) -> bool {
        self.complete[state as usize]
    }

    /// The byte edges of `state` for `b`: at most one in a deterministic PDA.
    pub(crate) fn byte_edges(&self, state: u32, b: u8) -> &[Edge] {
        let edges = self.edges(state);
        let bytes = &edges[edges.partition_point(|e| e.input.is_none())..];
        let lo = bytes.partition_point(|e| e.input < Some(b));
        let hi = bytes.partition_point(|e| e.input <= Some(b));
        &bytes[lo..hi]
    }

    /// The byte edge of `state` for `b`, if any (the first).
    fn byte_edge(&self, state: u32, b: u8) -> Option<&Edge> {
        self.byte_edges(state, b).first()
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

    /// Whether the grammar derives `text`, by running the PDA (deterministically, or with
    /// every configuration when it is not). Texts that need a stack deeper than
    /// [`MAX_STACK_DEPTH`] are rejected.
    pub fn accepts(&self, text: &[u8]) -> bool {
        if !self.is_deterministic() {
            return self.accepts_nondeterministic(text);
        }
        let mut state = self.start;
        let mut stack = vec![StackSym::INITIAL];
        text.iter()
            .all(|&b| self.step(&mut state, &mut stack, Some(b)))
            && self.step(&mut state, &mut stack, None)
    }

    /// [`Pda::accepts`] with a set of configurations: each byte read by every byte edge of
    /// every configuration reached by popping (only where the rule may return before it).
    fn accepts_nondeterministic(&self, text: &[u8]) -> bool {
        use std::collections::BTreeSet;
        let mut configs: BTreeSet<(u32, Vec<StackSym>)> =
            BTreeSet::from([(self.start, vec![StackSym::INITIAL])]);
        for look in text.iter().map(|&b| Some(b)).chain([None]) {
            // The configurations reached by returns, then every byte edge of each.
            let mut closed = BTreeSet::new();
            let mut work: Vec<(u32, Vec<StackSym>)> = configs.into_iter().collect();
            while let Some((q, stack)) = work.pop() {
                let may_return = look.map_or(true, |b| self.returns_before(q, b));
                if let (true, Some(&top)) = (may_return, stack.last()) {
                    for e in self.eps_edges(q).iter().filter(|e| e.pops[0] == top) {
                        let mut s = stack.clone();
                        s.pop();
                        s.extend_from_slice(&e.pushes);
                        work.push((e.target, s));
                    }
                }
                closed.insert((q, stack));
            }
            let Some(b) = look else {
                return closed.contains(&(self.accept, vec![StackSym::INITIAL]));
            };
            configs = BTreeSet::new();
            for (q, stack) in closed {
                for e in self.byte_edges(q, b) {
                    if stack.len() + e.pushes.len() <= MAX_STACK_DEPTH {
                        let mut s = stack.clone();
                        s.extend_from_slice(&e.pushes);
                        configs.insert((e.target, s));
                    }
                }
            }
        }
        false
    }

    /// Graphviz DOT: states labelled with their dotted rule, edges with the byte (or ε),
    /// then pops as `)X` and pushes as `(X`, as in the paper.
    pub fn to_dot(&self) -> String {
        use fstc_core::dot::{escape_bytes, escape_str};
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
