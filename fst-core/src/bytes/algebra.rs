//! Boolean and rational operations on byte DFAs: intersection, union, difference,
//! complement, concatenation, closure, reversal, emptiness and a shortest witness.
//!
//! JSON Schema's `allOf`, `not`, `if`/`then`/`else` and `contains`, and look-around in
//! patterns, are these operations on the languages of [`ByteDfa`]s. Every result is
//! minimized and numbered canonically (as every [`ByteDfa`] is), so equal
//! languages give equal DFAs. Each operation counts the states it creates, before
//! minimization, and fails with [`ByteDfaErrorKind::TooManyStates`](super::ByteDfaErrorKind::TooManyStates) past
//! [`Algebra::state_limit`] instead of exploding: a product can have `|A| × |B|`
//! states, a determinized concatenation or reversal exponentially many.
//!
//! Operands must be plain byte DFAs: a DFA with wildcard terminals
//! ([`ByteDfa::terminals`]) is refused with [`ByteDfaErrorKind::TerminalOperand`](super::ByteDfaErrorKind::TerminalOperand), since a
//! terminal reads a whole token whose bytes are not known until composition.
//!
//! The complement is relative to a [`Universe`]: all valid UTF-8 texts (what a
//! text-producing constraint, and JSON, needs) or all byte strings.

use std::time::Instant;

use crate::fast_hash::FastMap;

use super::dfa::determinize_within;
use super::nfa::{Nfa, State};
use super::subsets::{Limits, Subsets};
use super::subsets::{TableDfa, MAX_SET_ENTRIES};
use super::{ByteDfa, ByteDfaError, ByteDfaErrorKind, DEAD, DEFAULT_DFA_STATE_LIMIT};

/// The set of texts a complement is taken in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Universe {
    /// Every valid UTF-8 text (the language of `(?s:.)*`). The complement of a pattern's
    /// DFA in it is again a set of texts, as a JSON string's `not` needs.
    Utf8,
    /// Every byte string, including invalid UTF-8.
    Bytes,
}

impl ByteDfa {
    /// The DFA of every text of `universe` (one state for [`Universe::Bytes`], the
    /// UTF-8 decoder's states for [`Universe::Utf8`]).
    pub fn universe(universe: Universe) -> ByteDfa {
        match universe {
            Universe::Bytes => ByteDfa {
                classes: [0; 256],
                num_classes: 1,
                table: vec![0],
                accepting: vec![true],
                terminals: Vec::new(),
                terminal_table: Vec::new(),
            },
            Universe::Utf8 => ByteDfa::utf8_texts(),
        }
    }

    /// The DFA of the empty language (no text matches, not even the empty one).
    pub fn empty_language() -> ByteDfa {
        ByteDfa {
            classes: [0; 256],
            num_classes: 1,
            table: vec![DEAD],
            accepting: vec![false],
            terminals: Vec::new(),
            terminal_table: Vec::new(),
        }
    }

    /// Whether no byte text matches (terminal edges are not followed).
    pub fn is_empty(&self) -> bool {
        self.shortest_match().is_none()
    }

    /// A shortest byte text that matches, the least in byte order among the shortest;
    /// `None` when none does. Terminal edges are not followed.
    pub fn shortest_match(&self) -> Option<Vec<u8>> {
        let k = self.num_classes;
        // The least byte of each class, which is how a class is spelled in the witness.
        let mut least = vec![0u8; k];
        for b in (0..=255u8).rev() {
            least[self.classes[b as usize] as usize] = b;
        }
        // Breadth-first, classes in byte order: the first accepting state reached has
        // the least shortest text.
        let mut parent: Vec<Option<(u32, u8)>> = vec![None; self.num_states()];
        let mut seen = vec![false; self.num_states()];
        let mut queue = std::collections::VecDeque::from([0u32]);
        seen[0] = true;
        let mut order: Vec<usize> = (0..k).collect();
        order.sort_by_key(|&c| least[c]);
        while let Some(s) = queue.pop_front() {
            if self.accepting[s as usize] {
                let mut text = Vec::new();
                let mut at = s;
                while let Some((p, b)) = parent[at as usize] {
                    text.push(b);
                    at = p;
                }
                text.reverse();
                return Some(text);
            }
            for &c in &order {
                let t = self.table[s as usize * k + c];
                if t != DEAD && !seen[t as usize] {
                    seen[t as usize] = true;
                    parent[t as usize] = Some((s, least[c]));
                    queue.push_back(t);
                }
            }
        }
        None
    }
}

/// Runs the operations with a state limit; `Algebra::new()` uses
/// [`DEFAULT_DFA_STATE_LIMIT`].
#[derive(Clone, Debug)]
pub struct Algebra {
    state_limit: usize,
    deadline: Option<Instant>,
}

impl Default for Algebra {
    fn default() -> Self {
        Algebra::new()
    }
}

/// How a product state's acceptance follows from its two components'.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Op {
    And,
    Or,
    AndNot,
}

impl Algebra {
    /// Operations with the default state limit.
    pub fn new() -> Algebra {
        Algebra {
            state_limit: DEFAULT_DFA_STATE_LIMIT,
            deadline: None,
        }
    }

    /// Gives up past `deadline` (polled as states are made): an error of kind
    /// [`ByteDfaErrorKind::Deadline`](super::ByteDfaErrorKind::Deadline).
    pub fn deadline(&mut self, deadline: Option<Instant>) -> &mut Algebra {
        self.deadline = deadline;
        self
    }

    /// The limits of one operation's construction (the set budget at its ceiling).
    fn limits(&self) -> Limits {
        Limits::new(self.state_limit, MAX_SET_ENTRIES).until(self.deadline)
    }

    /// Minimizes and numbers a terminal-free table DFA canonically, by the deadline.
    fn finish(&self, dfa: TableDfa) -> Result<ByteDfa, ByteDfaError> {
        ByteDfa::minimal_until(dfa, &[], self.deadline)
    }

    /// Caps the states an operation may create (before minimization). 0 counts as 1.
    pub fn state_limit(&mut self, limit: usize) -> &mut Algebra {
        self.state_limit = limit.clamp(1, (u32::MAX / 2) as usize);
        self
    }

    /// Texts matched by both `a` and `b`.
    pub fn intersect(&self, a: &ByteDfa, b: &ByteDfa) -> Result<ByteDfa, ByteDfaError> {
        self.product("intersection", a, b, Op::And)
    }

    /// Texts matched by `a` or `b`.
    pub fn union(&self, a: &ByteDfa, b: &ByteDfa) -> Result<ByteDfa, ByteDfaError> {
        self.product("union", a, b, Op::Or)
    }

    /// Texts matched by `a` and not by `b`.
    pub fn difference(&self, a: &ByteDfa, b: &ByteDfa) -> Result<ByteDfa, ByteDfaError> {
        self.product("difference", a, b, Op::AndNot)
    }

    /// Texts of `universe` that `a` does not match.
    pub fn complement(&self, a: &ByteDfa, universe: Universe) -> Result<ByteDfa, ByteDfaError> {
        self.product("complement", &ByteDfa::universe(universe), a, Op::AndNot)
    }

    /// Texts `xy` with `x` matched by `a` and `y` by `b`.
    pub fn concat(&self, a: &ByteDfa, b: &ByteDfa) -> Result<ByteDfa, ByteDfaError> {
        refuse_terminals("concatenation", a)?;
        refuse_terminals("concatenation", b)?;
        let joint = Joint::new(a, b);
        let na = a.num_states();
        let mut nfa = SetNfa::new(joint.classes, na + b.num_states());
        for (c, &(ca, cb)) in joint.pairs.iter().enumerate() {
            for s in 0..na {
                nfa.edge(s, c, a.table[s * a.num_classes + ca as usize]);
            }
            for s in 0..b.num_states() {
                let t = b.table[s * b.num_classes + cb as usize];
                nfa.edge(na + s, c, if t == DEAD { DEAD } else { na as u32 + t });
            }
        }
        for s in 0..na {
            if a.accepting[s] {
                nfa.epsilon[s].push(na as u32);
            }
        }
        nfa.accepting[na..].copy_from_slice(&b.accepting);
        nfa.determinize("concatenation", &[0], self.limits())
    }

    /// The closure (Kleene star): texts `x1 x2 … xn`, `n ≥ 0`, each `xi` matched by `a`;
    /// the empty text always matches.
    pub fn star(&self, a: &ByteDfa) -> Result<ByteDfa, ByteDfaError> {
        refuse_terminals("closure", a)?;
        // State 0 is a new accepting start; `a`'s states follow, shifted by one, and each
        // accepting one may start over.
        let n = a.num_states();
        let mut nfa = SetNfa::new(a.classes, n + 1);
        for s in 0..n {
            for c in 0..a.num_classes {
                let t = a.table[s * a.num_classes + c];
                nfa.edge(s + 1, c, if t == DEAD { DEAD } else { t + 1 });
            }
            if a.accepting[s] {
                nfa.epsilon[s + 1].push(0);
            }
        }
        nfa.epsilon[0].push(1);
        nfa.accepting[0] = true;
        nfa.determinize("closure", &[0], self.limits())
    }

    /// The mirror language: `x` reversed for every text `x` of `a` (byte by byte, so the
    /// reversal of a UTF-8 text is in general not UTF-8; reverse again to get texts).
    pub fn reverse(&self, a: &ByteDfa) -> Result<ByteDfa, ByteDfaError> {
        refuse_terminals("reversal", a)?;
        let n = a.num_states();
        let mut nfa = SetNfa::new(a.classes, n);
        for s in 0..n {
            for c in 0..a.num_classes {
                let t = a.table[s * a.num_classes + c];
                if t != DEAD {
                    nfa.edge(t as usize, c, s as u32);
                }
            }
        }
        nfa.accepting[0] = true;
        let starts: Vec<u32> = (0..n as u32).filter(|&s| a.accepting[s as usize]).collect();
        nfa.determinize("reversal", &starts, self.limits())
    }

    /// The minimized DFA of an automaton given by its edges `(from, lo, hi, to)` (bytes
    /// `lo..=hi`; several edges may share a byte: it is determinized) over states
    /// `0..accepting.len()`, starting at 0: for automata that no short regex writes, such
    /// as remainders of decimal numerals.
    pub fn from_edges(
        &self,
        edges: &[(u32, u8, u8, u32)],
        accepting: &[bool],
    ) -> Result<ByteDfa, ByteDfaError> {
        let n = accepting.len().max(1);
        let mut identity = [0u8; 256];
        for (b, slot) in identity.iter_mut().enumerate() {
            *slot = b as u8;
        }
        let mut nfa = SetNfa::new(identity, n);
        for &(from, lo, hi, to) in edges {
            if from as usize >= n || to as usize >= n {
                return Err(ByteDfaError::new(
                    "construction",
                    ByteDfaErrorKind::InvalidEdge,
                    format!("an edge {from} -> {to} names a state not below {n}"),
                ));
            }
            for b in lo..=hi {
                nfa.edge(from as usize, b as usize, to);
            }
        }
        nfa.accepting[..accepting.len()].copy_from_slice(accepting);
        nfa.determinize("construction", &[0], self.limits())
    }

    /// The image of `a`'s texts under a code-point encoding: every valid UTF-8 text of
    /// `a` with each code point replaced by one of its encodings (bytes outside valid
    /// UTF-8 are dropped). `code(ranges)` gives the encodings of the code points of
    /// `ranges` as alternatives, each a sequence of byte sets (inclusive byte ranges);
    /// any alternative must spell an encoding of some code point of `ranges`. JSON
    /// string escaping is one where a code point has several spellings (`é`, `\u00e9`,
    /// `\u00E9`), which a byte substitution cannot say.
    ///
    /// For each state, the UTF-8 structure is walked once (memoized per state and
    /// position) to find the code-point ranges with a common target; each target's
    /// ranges get one NFA path per alternative, then the NFA is determinized.
    pub fn substitute_chars(
        &self,
        a: &ByteDfa,
        code: impl Fn(&[(char, char)]) -> Vec<Vec<Vec<(u8, u8)>>>,
    ) -> Result<ByteDfa, ByteDfaError> {
        refuse_terminals("substitution", a)?;
        let n = a.num_states();
        let mut identity = [0u8; 256];
        for (b, slot) in identity.iter_mut().enumerate() {
            *slot = b as u8;
        }
        let mut nfa = SetNfa::new(identity, n);
        let mut moves = CharMoves::new(a);
        for s in 0..n as u32 {
            let mut by_target: std::collections::BTreeMap<u32, Vec<(char, char)>> =
                Default::default();
            for (lo, hi, t) in moves.from(s) {
                let (lo, hi) = (char::from_u32(lo), char::from_u32(hi));
                let range = (lo.expect("a scalar"), hi.expect("a scalar"));
                by_target.entry(t).or_default().push(range);
            }
            for (t, ranges) in by_target {
                // Chains share their prefixes: (state, byte set) -> the state after it.
                let mut shared: FastMap<(u32, Vec<(u8, u8)>), u32> = FastMap::default();
                for sequence in code(&ranges) {
                    let Some((last, init)) = sequence.split_last() else {
                        nfa.epsilon[s as usize].push(t);
                        continue;
                    };
                    let mut from = s;
                    for set in init {
                        from = match shared.get(&(from, set.clone())) {
                            Some(&next) => next,
                            None => {
                                let next = nfa.push_state();
                                nfa.edges_on(from, set, next);
                                shared.insert((from, set.clone()), next);
                                next
                            }
                        };
                    }
                    nfa.edges_on(from, last, t);
                }
            }
        }
        nfa.accepting[..n].copy_from_slice(&a.accepting);
        nfa.determinize("substitution", &[0], self.limits())
    }

    /// The product automaton of `a` and `b` over their joint byte classes; a missing
    /// transition counts as a dead component.
    fn product(
        &self,
        name: &'static str,
        a: &ByteDfa,
        b: &ByteDfa,
        op: Op,
    ) -> Result<ByteDfa, ByteDfaError> {
        refuse_terminals(name, a)?;
        refuse_terminals(name, b)?;
        let joint = Joint::new(a, b);
        let k = joint.pairs.len();
        let step = |d: &ByteDfa, s: u32, c: u8| {
            if s == DEAD {
                DEAD
            } else {
                d.table[s as usize * d.num_classes + c as usize]
            }
        };
        let accepts = |d: &ByteDfa, s: u32| s != DEAD && d.accepting[s as usize];
        let accepting = |(sa, sb): (u32, u32)| match op {
            Op::And => accepts(a, sa) && accepts(b, sb),
            Op::Or => accepts(a, sa) || accepts(b, sb),
            Op::AndNot => accepts(a, sa) && !accepts(b, sb),
        };
        let fail = |e| in_operation(name, self.state_limit, e);
        let key = |(x, y): (u32, u32)| u64::from(x) << 32 | u64::from(y);
        let mut pairs: Subsets<(u32, u32), u64> = Subsets::new(self.limits());
        pairs
            .intern(&0, 2, accepting((0, 0)), || (0, 0))
            .map_err(fail)?;
        while let Some((sa, sb)) = pairs.next_row(k).map_err(fail)? {
            for (c, &(ca, cb)) in joint.pairs.iter().enumerate() {
                let t = (step(a, sa, ca), step(b, sb, cb));
                let dead = match op {
                    Op::And => t.0 == DEAD || t.1 == DEAD,
                    Op::Or => t.0 == DEAD && t.1 == DEAD,
                    Op::AndNot => t.0 == DEAD,
                };
                if !dead {
                    let id = pairs.intern(&key(t), 2, accepting(t), || t);
                    pairs.set(k, c, id.map_err(fail)?);
                }
            }
        }
        self.finish(pairs.finish(joint.classes, k, 0))
            .map_err(|e| in_operation(name, self.state_limit, e))
    }
}

fn refuse_terminals(operation: &'static str, d: &ByteDfa) -> Result<(), ByteDfaError> {
    match d.terminals.first() {
        None => Ok(()),
        Some(t) => Err(ByteDfaError::new(
            operation,
            ByteDfaErrorKind::TerminalOperand { operation },
            format!(
                "the {operation} of byte DFAs cannot take a DFA with wildcard terminals \
                 (`<{}>` reads a whole token whose bytes are unknown before composition); \
                 apply the operation to the parts without wildcards",
                t.name()
            ),
        )),
    }
}

/// A construction's error as the error of the operation `operation`: past the state
/// limit, advice on raising it; anything else (a ceiling, the deadline) as it was.
fn in_operation(operation: &'static str, limit: usize, e: ByteDfaError) -> ByteDfaError {
    match e.kind() {
        ByteDfaErrorKind::TooManyStates { .. } if !e.is_ceiling() && e.set_budget().is_none() => {
            too_large(operation, limit)
        }
        _ => e.in_operation(operation),
    }
}

fn too_large(operation: &'static str, limit: usize) -> ByteDfaError {
    ByteDfaError::new(
        operation,
        ByteDfaErrorKind::TooManyStates { limit },
        format!(
            "the {operation} of byte DFAs needs more than {limit} states (the state limit); \
             raise it (Algebra::state_limit, RegexBuilder::state_limit or the compiler's DFA \
             state limit) or simplify the operands"
        ),
    )
}

/// The coarsest byte classes refining both operands' classes: `pairs[c]` is the class
/// of joint class `c` in each operand.
struct Joint {
    classes: [u8; 256],
    pairs: Vec<(u8, u8)>,
}

impl Joint {
    fn new(a: &ByteDfa, b: &ByteDfa) -> Joint {
        let mut ids: FastMap<(u8, u8), u8> = FastMap::default();
        let mut pairs = Vec::new();
        let mut classes = [0u8; 256];
        for (byte, slot) in classes.iter_mut().enumerate() {
            let pair = (a.classes[byte], b.classes[byte]);
            // At most 256 bytes, so at most 256 joint classes: ids fit a u8.
            *slot = *ids.entry(pair).or_insert_with(|| {
                pairs.push(pair);
                (pairs.len() - 1) as u8
            });
        }
        Joint { classes, pairs }
    }
}

/// A byte NFA with epsilon moves over byte classes, as the algebra's operations
/// build it (edges per class), handed to the one subset construction.
struct SetNfa {
    classes: [u8; 256],
    edges: Vec<Vec<(u8, u32)>>,
    epsilon: Vec<Vec<u32>>,
    accepting: Vec<bool>,
}

impl SetNfa {
    fn new(classes: [u8; 256], states: usize) -> SetNfa {
        SetNfa {
            classes,
            edges: vec![Vec::new(); states],
            epsilon: vec![Vec::new(); states],
            accepting: vec![false; states],
        }
    }

    /// A new state without edges.
    fn push_state(&mut self) -> u32 {
        self.edges.push(Vec::new());
        self.epsilon.push(Vec::new());
        self.accepting.push(false);
        (self.edges.len() - 1) as u32
    }

    fn edge(&mut self, from: usize, class: usize, to: u32) {
        if to != DEAD {
            self.edges[from].push((class as u8, to));
        }
    }

    /// Edges on every byte of `set` (inclusive ranges).
    fn edges_on(&mut self, from: u32, set: &[(u8, u8)], to: u32) {
        for &(lo, hi) in set {
            for b in lo..=hi {
                self.edge(from as usize, b as usize, to);
            }
        }
    }

    /// The minimized DFA, by the one subset construction
    /// ([`determinize_within`]) of the NFA [`SetNfa::to_nfa`] writes.
    fn determinize(
        &self,
        name: &'static str,
        starts: &[u32],
        limits: Limits,
    ) -> Result<ByteDfa, ByteDfaError> {
        let raw = determinize_within(&self.to_nfa(starts), limits)
            .map_err(|e| in_operation(name, limits.states, e))?;
        // The NFA read class ids as bytes: each byte takes its class's column.
        let mut classes = [0u8; 256];
        for (slot, &c) in classes.iter_mut().zip(&self.classes) {
            *slot = raw.classes[c as usize];
        }
        ByteDfa::minimal_until(TableDfa { classes, ..raw }, &[], limits.deadline)
            .map_err(|e| in_operation(name, limits.states, e))
    }

    /// This automaton as a byte NFA over class ids (class `c` read as byte `c`): state `s`
    /// is a split to its byte state `n + s`, its epsilon targets and, when accepting,
    /// `Match` (`2n`); other than one start state get a split of their own (`2n + 1`).
    fn to_nfa(&self, starts: &[u32]) -> Nfa {
        let n = self.edges.len() as u32;
        let mut nfa = Nfa {
            states: Vec::with_capacity(2 * n as usize + 2),
            ranges: Vec::new(),
            targets: Vec::new(),
            start: starts.first().copied().unwrap_or_default(),
            terminals: Vec::new(),
            looks: Vec::new(),
        };
        let split = |nfa: &mut Nfa, targets: &mut dyn Iterator<Item = u32>| {
            let off = nfa.targets.len() as u32;
            nfa.targets.extend(targets);
            let len = nfa.targets.len() as u32 - off;
            State::Split { off, len }
        };
        for s in 0..n {
            let reads = (!self.edges[s as usize].is_empty()).then_some(n + s);
            let matches = self.accepting[s as usize].then_some(2 * n);
            let eps = self.epsilon[s as usize].iter().copied();
            let state = split(&mut nfa, &mut reads.into_iter().chain(eps).chain(matches));
            nfa.states.push(state);
        }
        let mut edges = Vec::new();
        for s in 0..n as usize {
            edges.clear();
            edges.extend(self.edges[s].iter().map(|&(c, t)| (t, c)));
            edges.sort_unstable();
            edges.dedup();
            let off = nfa.ranges.len() as u32;
            for &(t, c) in &edges {
                let own = &mut nfa.ranges[off as usize..];
                match own.last_mut() {
                    Some((_, hi, to)) if *to == t && u16::from(*hi) + 1 == u16::from(c) => *hi = c,
                    _ => nfa.ranges.push((c, c, t)),
                }
            }
            let len = nfa.ranges.len() as u32 - off;
            nfa.states.push(State::Bytes { off, len });
        }
        nfa.states.push(State::Match);
        if starts.len() != 1 {
            nfa.start = 2 * n + 1;
            let state = split(&mut nfa, &mut starts.iter().copied());
            nfa.states.push(state);
        }
        nfa
    }
}

/// Code-point ranges `(lo, hi, target)`, shared between the memo and its users.
type Moves = std::rc::Rc<Vec<(u32, u32, u32)>>;

/// The code points a DFA reads from each state, walked over the UTF-8 byte structure:
/// `walk(seq, state, pos)` lists the values of the bytes `pos..` of sequence `seq` (their
/// payload bits) as ranges with a common target, memoized, so that a state reading a wide
/// class costs a few runs of bytes rather than a million code points.
struct CharMoves<'a> {
    dfa: &'a ByteDfa,
    sequences: Vec<Vec<(u8, u8)>>,
    memo: FastMap<(usize, u32, usize), Moves>,
}

impl<'a> CharMoves<'a> {
    fn new(dfa: &'a ByteDfa) -> CharMoves<'a> {
        let sequences = regex_syntax::utf8::Utf8Sequences::new('\0', char::MAX)
            .map(|seq| seq.as_slice().iter().map(|r| (r.start, r.end)).collect())
            .collect();
        CharMoves {
            dfa,
            sequences,
            memo: FastMap::default(),
        }
    }

    /// The code points read from `state`: sorted ranges `(lo, hi, target)`, adjacent
    /// ranges with one target merged.
    fn from(&mut self, state: u32) -> Vec<(u32, u32, u32)> {
        let mut out = Vec::new();
        // Sequences come in code-point order; the value of a whole sequence (its lead
        // byte's payload bits, then each continuation's) is the code point.
        for seq in 0..self.sequences.len() {
            for &(lo, hi, t) in self.walk(seq, state, 0).iter() {
                push_merged(&mut out, lo, hi, t);
            }
        }
        out
    }

    fn walk(&mut self, seq: usize, state: u32, pos: usize) -> Moves {
        if let Some(done) = self.memo.get(&(seq, state, pos)) {
            return done.clone();
        }
        let len = self.sequences[seq].len();
        let (lo, hi) = self.sequences[seq][pos];
        let payload = |b: u8| -> u32 {
            let mask = match (pos, len) {
                (0, 1) => 0x7f,
                (0, 2) => 0x1f,
                (0, 3) => 0x0f,
                (0, _) => 0x07,
                _ => 0x3f,
            };
            u32::from(b & mask)
        };
        let shift = 6 * (len - 1 - pos) as u32;
        let mut out = Vec::new();
        for b in lo..=hi {
            let Some(t) = self.dfa.next(state, b) else {
                continue;
            };
            let base = payload(b) << shift;
            if pos + 1 == len {
                push_merged(&mut out, base, base, t);
                continue;
            }
            let rest = self.walk(seq, t, pos + 1);
            for &(l, h, target) in rest.iter() {
                push_merged(&mut out, base | l, base | h, target);
            }
        }
        let out = std::rc::Rc::new(out);
        self.memo.insert((seq, state, pos), out.clone());
        out
    }
}

/// Appends `lo..=hi -> t` to sorted ranges, merging with the last when adjacent.
fn push_merged(out: &mut Vec<(u32, u32, u32)>, lo: u32, hi: u32, t: u32) {
    if let Some(last) = out.last_mut() {
        if last.2 == t && last.1 + 1 == lo {
            last.1 = hi;
            return;
        }
    }
    out.push((lo, hi, t));
}
