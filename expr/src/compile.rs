//! Compiling an expression: each node becomes a byte DFA or a token automaton.
//!
//! Leaves that describe texts become byte DFAs; `max_tokens` and `automaton` are token
//! automata. Concatenation, closure and repetition run on byte DFAs only (a token may
//! span the boundary, so they do not commute with tokenization). The boolean operations
//! are exact at either level (a compiled automaton accepts every tokenization of its
//! texts): on byte DFAs when every operand is one (one composition at the end, the
//! default) or, with [`Level::Tokens`], on token automata, composing each operand first.
//! An operand that is a token automaton puts its operation on tokens.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use fstc_core::any::AnyAutomaton;
use fstc_core::automaton::{ClassParts, TokenAutomaton, NO_CLASS};
use fstc_core::bytes::{Algebra, ByteDfa, Universe};
use fstc_core::compiled::{CompileStats, Compiled, Warning};
use fstc_core::ops::openfst::byte_dfa_from_openfst_before;
use fstc_core::ops::{text_tokens_of_trie, token_bound, OpsError, OpsErrorKind, TokenAlgebra};
use fstc_core::token_pda::TokenPda;
use fstc_core::vocab::VocabTrie;
use fstc_core::TokenVocabulary;
use fstc_json::{Config, Escapes, JsonSchemaCompiler, Whitespace};
use fstc_regex::{RegexBuilder, RegexCompiler};

use crate::error::ExprError;
use crate::tree::{child_pointer, Expr, Loc, Node, MAX_DEPTH};
use crate::tree::{Options, Scalar};

/// Where the boolean operations on byte languages run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Level {
    /// On byte DFAs, composed with the vocabulary once (the default: one composition
    /// instead of one per operand).
    #[default]
    Bytes,
    /// On token automata: each operand composed, then the token product. Same result.
    Tokens,
}

/// Compiles expressions for a vocabulary. The JSON Schema options (and the byte-DFA state
/// limit and token-edge limit, which bound every byte operation and every composition)
/// come from fstc-json's [`Config`]; so do the time and memory budgets, which bound the
/// whole expression (every construction polls the deadline, every node's automaton counts
/// against the memory) and leave each schema what is left of them; `state_limit` bounds
/// each token operation.
#[derive(Clone, Debug)]
pub struct ExprCompiler {
    json: JsonSchemaCompiler,
    state_limit: usize,
    level: Level,
    base_dir: Option<PathBuf>,
}

impl Default for ExprCompiler {
    fn default() -> Self {
        ExprCompiler::new()
    }
}

impl ExprCompiler {
    /// A compiler with the default options.
    pub fn new() -> ExprCompiler {
        ExprCompiler {
            json: JsonSchemaCompiler::new(),
            state_limit: fstc_core::ops::DEFAULT_STATE_LIMIT,
            level: Level::Bytes,
            base_dir: None,
        }
    }

    /// The JSON Schema options and the byte-DFA and token-edge limits.
    pub fn configure(mut self, config: Config) -> ExprCompiler {
        self.json = self.json.configure(config);
        self
    }

    /// Caps the states a token operation may create (before minimization).
    pub fn state_limit(mut self, limit: usize) -> ExprCompiler {
        self.state_limit = limit;
        self
    }

    /// Where the boolean operations on byte languages run.
    pub fn boolean_level(mut self, level: Level) -> ExprCompiler {
        self.level = level;
        self
    }

    /// The folder relative file names (`json`, `fst`, `automaton`) are read from; the
    /// working directory when not set.
    pub fn base_dir(mut self, dir: impl Into<PathBuf>) -> ExprCompiler {
        self.base_dir = Some(dir.into());
        self
    }

    /// Compiles `expr` for `vocab`, building the vocabulary trie first.
    pub fn compile<V>(&self, expr: &Expr, vocab: &V) -> Result<Compiled<TokenAutomaton>, ExprError>
    where
        V: TokenVocabulary + ?Sized,
    {
        Compiled::over_vocab_trie(vocab, |trie| self.compile_with_trie(expr, trie))
    }

    /// Compiles `expr` reusing a vocabulary trie built once. An expression that accepts
    /// no token sequence is an error, and so is one with a grammar (a token PDA: see
    /// [`ExprCompiler::compile_any_with_trie`]).
    pub fn compile_with_trie(
        &self,
        expr: &Expr,
        trie: &VocabTrie,
    ) -> Result<Compiled<TokenAutomaton>, ExprError> {
        self.compile_any_with_trie(expr, trie)?
            .try_map(|automaton| match automaton {
                AnyAutomaton::Fsa(automaton) => Ok(automaton),
                AnyAutomaton::Pda(_) => Err(at(expr, "").error(
                    "the expression is a token PDA (it has a grammar); compile it with compile_any",
                )),
            })
    }

    /// Compiles `expr` (building the vocabulary trie first) to a token FSA, or to a token
    /// PDA when it has a grammar.
    pub fn compile_any<V>(
        &self,
        expr: &Expr,
        vocab: &V,
    ) -> Result<Compiled<AnyAutomaton>, ExprError>
    where
        V: TokenVocabulary + ?Sized,
    {
        Compiled::over_vocab_trie(vocab, |trie| self.compile_any_with_trie(expr, trie))
    }

    /// [`ExprCompiler::compile_any`] reusing a vocabulary trie built once. An expression
    /// that accepts no token sequence is an error.
    pub fn compile_any_with_trie(
        &self,
        expr: &Expr,
        trie: &VocabTrie,
    ) -> Result<Compiled<AnyAutomaton>, ExprError> {
        let mut run = Run::new(self, Some(trie));
        let value = run.eval(expr, "", false, 0)?;
        let root = at(expr, "");
        let automaton = match value {
            Value::Pda(p) => {
                run.stats.set_count("nodes", p.num_nodes() as usize);
                run.stats
                    .set_count("stack symbols", p.num_stack_symbols() as usize);
                run.stats.set_count("bytes", p.as_words().len() * 4);
                AnyAutomaton::Pda(p)
            }
            v => {
                let a = run.tokens(v, &root)?;
                run.stats.count_automaton(&a);
                AnyAutomaton::Fsa(a)
            }
        };
        let accepting = match &automaton {
            AnyAutomaton::Fsa(a) => a.num_accepting(),
            AnyAutomaton::Pda(p) => p.num_accepting(),
        };
        if accepting == 0 {
            return Err(root.error("the expression accepts no token sequence"));
        }
        Ok(Compiled {
            automaton,
            stats: run.stats,
            warnings: run.warnings,
        })
    }

    /// The minimal byte DFA of the texts `expr` admits, for an expression without
    /// token-level parts (`max_tokens`, `automaton`).
    pub fn byte_dfa(&self, expr: &Expr) -> Result<ByteDfa, ExprError> {
        let mut run = Run::new(self, None);
        match run.eval(expr, "", true, 0)? {
            Value::Bytes(dfa) => Ok(dfa),
            Value::Tokens(_) | Value::Pda(_) => unreachable!("token leaves need a vocabulary"),
        }
    }

    fn dfa_limit(&self) -> usize {
        self.json.get_config().get_dfa_state_limit()
    }

    fn path(&self, name: &str) -> PathBuf {
        match &self.base_dir {
            Some(dir) => dir.join(name),
            None => PathBuf::from(name),
        }
    }
}

/// A node's value: a byte language, a regular token language, or the token PDA of a
/// grammar (intersected with token FSAs at most).
enum Value {
    Bytes(ByteDfa),
    Tokens(TokenAutomaton),
    Pda(TokenPda),
}

/// Where a node is, for errors: where it was read, else its pointer in the JSON form.
fn at(e: &Expr, pointer: &str) -> Loc {
    e.loc
        .clone()
        .unwrap_or_else(|| Loc::Pointer(pointer.to_string()))
}

/// One compile: the limits, the trie (none for `byte_dfa`), what was measured.
struct Run<'a> {
    compiler: &'a ExprCompiler,
    trie: Option<&'a VocabTrie>,
    bytes: Algebra,
    stats: CompileStats,
    warnings: Vec<Warning>,
    budget: Budget,
}

/// The time and memory budgets of one compile (fstc-json's `Config`, as for a schema):
/// the deadline reaches every subset construction, byte operation and token operation,
/// and every node's automaton counts against the memory budget.
struct Budget {
    started: Instant,
    time: Duration,
    memory: usize,
    used: usize,
}

impl Budget {
    fn deadline(&self) -> Option<Instant> {
        self.started.checked_add(self.time)
    }

    /// What is left of the time budget (zero once it has run out).
    fn remaining(&self) -> Duration {
        self.time.saturating_sub(self.started.elapsed())
    }

    fn check_time(&self, loc: &Loc) -> Result<(), ExprError> {
        if self.started.elapsed() <= self.time {
            return Ok(());
        }
        Err(loc.error(format!(
            "the compile passed its time budget of {:?} here (time_budget, `--time-budget`)",
            self.time
        )))
    }

    /// Counts `bytes` of automata made at `loc` against the memory budget.
    fn charge(&mut self, bytes: usize, loc: &Loc) -> Result<(), ExprError> {
        self.used = self.used.saturating_add(bytes);
        if self.used <= self.memory {
            return Ok(());
        }
        Err(loc.error(format!(
            "the compile passed its memory budget of {} bytes of automata here \
             (memory_budget, `--memory-budget`)",
            self.memory
        )))
    }
}

/// The bytes a value's automaton holds (a byte DFA by its table, as fstc-json counts it).
fn value_bytes(v: &Value) -> usize {
    match v {
        Value::Bytes(dfa) => {
            dfa.transitions().len() * 4
                + dfa.num_states() * (1 + 4 * dfa.terminals().len())
                + std::mem::size_of::<ByteDfa>()
        }
        Value::Tokens(a) => a.memory_bytes(),
        Value::Pda(p) => p.memory_bytes(),
    }
}

#[derive(Clone, Copy)]
enum BoolOp {
    And,
    Or,
    AndNot,
}

impl<'a> Run<'a> {
    fn new(compiler: &'a ExprCompiler, trie: Option<&'a VocabTrie>) -> Run<'a> {
        let json = compiler.json.get_config();
        let budget = Budget {
            started: Instant::now(),
            time: json.get_time_budget(),
            memory: json.get_memory_budget(),
            used: 0,
        };
        let mut bytes = Algebra::new();
        bytes.state_limit(compiler.dfa_limit());
        bytes.deadline(budget.deadline());
        Run {
            compiler,
            trie,
            bytes,
            stats: CompileStats::new(),
            warnings: Vec::new(),
            budget,
        }
    }

    /// The token operations, with the state limit, the deadline and what is left of the
    /// memory budget (for their working tables).
    fn algebra(&self) -> TokenAlgebra {
        TokenAlgebra::new()
            .state_limit(self.compiler.state_limit)
            .deadline(self.budget.deadline())
            .memory_limit(self.budget.memory.saturating_sub(self.budget.used))
    }

    /// The value of `e`, within the budgets.
    fn eval(
        &mut self,
        e: &Expr,
        pointer: &str,
        need_bytes: bool,
        depth: usize,
    ) -> Result<Value, ExprError> {
        let loc = at(e, pointer);
        self.budget.check_time(&loc)?;
        let value = self.eval_node(e, pointer, need_bytes, depth)?;
        self.budget.check_time(&loc)?;
        self.budget.charge(value_bytes(&value), &loc)?;
        Ok(value)
    }

    /// The value of `e` (at `pointer` in the JSON form); `need_bytes` when the parent
    /// reads texts, so boolean operations stay on bytes.
    fn eval_node(
        &mut self,
        e: &Expr,
        pointer: &str,
        need_bytes: bool,
        depth: usize,
    ) -> Result<Value, ExprError> {
        let loc = at(e, pointer);
        if depth >= MAX_DEPTH {
            return Err(loc.error(format!("calls nested deeper than {MAX_DEPTH}")));
        }
        let (name, args) = e.node.spell();
        let child = |i: usize| child_pointer(pointer, name, i, args.len());
        match &e.node {
            Node::Intersect(items) | Node::Union(items) => {
                let op = if matches!(e.node, Node::Intersect(_)) {
                    BoolOp::And
                } else {
                    BoolOp::Or
                };
                let mut values = Vec::new();
                for (i, item) in items.iter().enumerate() {
                    let value = self.eval(item, &child(i), need_bytes, depth + 1)?;
                    values.push((value, at(item, &child(i))));
                }
                self.boolean(op, values, need_bytes, &loc)
            }
            Node::Difference(a, b) => {
                let va = self.eval(a, &child(0), need_bytes, depth + 1)?;
                let vb = self.eval(b, &child(1), need_bytes, depth + 1)?;
                let values = vec![(va, at(a, &child(0))), (vb, at(b, &child(1)))];
                self.boolean(BoolOp::AndNot, values, need_bytes, &loc)
            }
            Node::Complement(a) => {
                let va = self.eval(a, &child(0), need_bytes, depth + 1)?;
                self.complement(va, need_bytes, &loc)
            }
            Node::Concat(items) => {
                let mut parts = Vec::new();
                for (i, item) in items.iter().enumerate() {
                    parts.push(self.text_operand(item, &child(i), name, depth)?);
                }
                self.rational(&loc, |alg| {
                    let mut acc = parts[0].clone();
                    for p in &parts[1..] {
                        acc = alg.concat(&acc, p)?;
                    }
                    Ok(acc)
                })
            }
            Node::Star(a) => {
                let a = self.text_operand(a, &child(0), name, depth)?;
                self.rational(&loc, |alg| alg.star(&a))
            }
            Node::Repeat(a, min, max) => {
                let a = self.text_operand(a, &child(0), name, depth)?;
                self.rational(&loc, |alg| repeat(alg, &a, *min, *max))
            }
            _ => self.leaf(&e.node, &loc),
        }
    }

    /// An operand of a rational operation, which must be a byte language.
    fn text_operand(
        &mut self,
        e: &Expr,
        pointer: &str,
        parent: &str,
        depth: usize,
    ) -> Result<ByteDfa, ExprError> {
        match self.eval(e, pointer, true, depth + 1)? {
            Value::Bytes(dfa) => Ok(dfa),
            Value::Pda(_) => Err(at(e, pointer).error(format!(
                "`{parent}` joins texts, and this operand is a grammar (a token PDA): write the \
                 {parent} inside the grammar instead"
            ))),
            Value::Tokens(_) => Err(at(e, pointer).error(format!(
                "`{parent}` joins texts, and this operand is a token-level constraint: a token \
                 may span the boundary, so `{parent}` takes byte languages only (regex, text, \
                 json, json_schema, fst and operations on them); apply `max_tokens` or \
                 `automaton` outside it"
            ))),
        }
    }

    fn rational(
        &mut self,
        loc: &Loc,
        f: impl FnOnce(&Algebra) -> Result<ByteDfa, fstc_core::bytes::ByteDfaError>,
    ) -> Result<Value, ExprError> {
        let alg = self.bytes.clone();
        let dfa = self
            .stats
            .time("byte operations", || f(&alg))
            .map_err(|e| loc.error(e.to_string()))?;
        Ok(Value::Bytes(dfa))
    }

    fn boolean(
        &mut self,
        op: BoolOp,
        values: Vec<(Value, Loc)>,
        need_bytes: bool,
        loc: &Loc,
    ) -> Result<Value, ExprError> {
        if values.iter().any(|(v, _)| matches!(v, Value::Pda(_))) {
            return self.with_grammar(op, values, loc);
        }
        let all_bytes = values.iter().all(|(v, _)| matches!(v, Value::Bytes(_)));
        let on_bytes = self.trie.is_none() || need_bytes || self.compiler.level == Level::Bytes;
        if all_bytes && on_bytes {
            let dfas: Vec<ByteDfa> = values
                .into_iter()
                .map(|(v, _)| match v {
                    Value::Bytes(d) => d,
                    Value::Tokens(_) | Value::Pda(_) => unreachable!("all bytes"),
                })
                .collect();
            return self.rational(loc, |alg| {
                let mut acc = dfas[0].clone();
                for d in &dfas[1..] {
                    acc = match op {
                        BoolOp::And => alg.intersect(&acc, d)?,
                        BoolOp::Or => alg.union(&acc, d)?,
                        BoolOp::AndNot => alg.difference(&acc, d)?,
                    };
                }
                Ok(acc)
            });
        }
        let mut automata = Vec::new();
        for (v, l) in values {
            automata.push(self.tokens(v, &l)?);
        }
        let algebra = self.algebra();
        let mut rest = automata.into_iter();
        let mut acc = rest.next().expect("two or more operands");
        for a in rest {
            let step = match op {
                BoolOp::And => algebra.intersect(&acc, &a),
                BoolOp::Or => algebra.union(&acc, &a),
                BoolOp::AndNot => algebra.difference(&acc, &a),
            }
            .map_err(|e| ops_error(loc, e))?;
            self.stats.extend(step.stats);
            acc = step.automaton;
        }
        Ok(Value::Tokens(acc))
    }

    fn complement(&mut self, v: Value, need_bytes: bool, loc: &Loc) -> Result<Value, ExprError> {
        if let Value::Pda(_) = v {
            return Err(loc.error(
                "`complement` of a grammar (a token PDA) is not a token PDA; intersect the \
                 grammar with the complement of a regular constraint instead",
            ));
        }
        let on_bytes = self.trie.is_none() || need_bytes || self.compiler.level == Level::Bytes;
        match v {
            // Every byte string, so that the result equals the token-level complement.
            Value::Bytes(d) if on_bytes => {
                self.rational(loc, |alg| alg.complement(&d, Universe::Bytes))
            }
            v => {
                let a = self.tokens(v, loc)?;
                let trie = self.trie.expect("token values need a trie");
                let step = self
                    .algebra()
                    .complement(&a, &text_tokens_of_trie(trie))
                    .map_err(|e| ops_error(loc, e))?;
                self.stats.extend(step.stats);
                Ok(Value::Tokens(step.automaton))
            }
        }
    }

    /// The token automaton of a value: a byte DFA composed with the vocabulary (an empty
    /// language as the automaton without accepting states).
    fn tokens(&mut self, v: Value, loc: &Loc) -> Result<TokenAutomaton, ExprError> {
        let dfa = match v {
            Value::Tokens(a) => return Ok(a),
            Value::Bytes(d) => d,
            Value::Pda(_) => {
                return Err(loc.error(
                    "this operand is a grammar (a token PDA), which only `intersect` (with \
                     regular operands) and the first operand of `difference` take",
                ))
            }
        };
        let Some(trie) = self.trie else {
            return Err(loc.error("a token automaton needs a vocabulary"));
        };
        if dfa.is_empty() {
            return empty_automaton(trie).map_err(|e| loc.error(e));
        }
        let json = self.compiler.json.get_config();
        let config = fstc_regex::Config::new()
            .dfa_state_limit(json.get_dfa_state_limit())
            .token_edge_limit(json.get_token_edge_limit())
            .time_budget(fstc_regex::time_left(self.budget.deadline()))
            .memory_budget(self.budget.memory.saturating_sub(self.budget.used));
        let composed = RegexCompiler::new()
            .configure(config)
            .compile_dfa_with_trie(&dfa, "this operand", trie)
            .map_err(|e| loc.error(e.to_string()))?;
        self.stats.extend(composed.stats);
        Ok(composed.automaton)
    }
}

impl Run<'_> {
    /// A boolean operation with a grammar operand: `intersect` with one grammar and
    /// regular operands, or `difference(grammar, regular)` (the grammar intersected with
    /// the regular operand's complement), as a token PDA without dead ends.
    fn with_grammar(
        &mut self,
        op: BoolOp,
        values: Vec<(Value, Loc)>,
        loc: &Loc,
    ) -> Result<Value, ExprError> {
        let mut pda = None;
        let mut regular = Vec::new();
        for (i, (v, l)) in values.into_iter().enumerate() {
            match (v, op) {
                (Value::Pda(p), BoolOp::And) if pda.is_none() => pda = Some(p),
                (Value::Pda(p), BoolOp::AndNot) if i == 0 => pda = Some(p),
                (Value::Pda(_), BoolOp::Or) => {
                    return Err(l.error(
                        "`union` with a grammar (a token PDA) is refused: write the \
                         alternatives inside the grammar",
                    ))
                }
                (Value::Pda(_), _) => {
                    return Err(l.error(
                        "a second grammar operand (or a grammar subtracted): the intersection \
                         of two context-free languages need not be context-free, so \
                         `intersect` takes one grammar and `difference` one as its first operand",
                    ))
                }
                (v, _) => regular.push((v, l)),
            }
        }
        let pda = pda.expect("a grammar operand");
        // A token bound (`max_tokens`) is applied last, by the bounded construction,
        // which grows with the bound where a product with it grows with its square.
        let mut bounds = Vec::new();
        if matches!(op, BoolOp::And) {
            regular.retain(|(v, _)| {
                let n = match v {
                    Value::Tokens(a) => token_bound(a, &pda),
                    _ => None,
                };
                bounds.extend(n);
                n.is_none()
            });
        }
        let fsa = match regular.is_empty() {
            true => None,
            false => Some(self.regular_operand(op, regular, loc)?),
        };
        let algebra = self.algebra();
        let step = match (fsa, bounds.iter().min()) {
            (None, None) => return Ok(Value::Pda(pda)),
            (None, Some(&n)) => algebra.bound_pda(&pda, n),
            (Some(fsa), Some(&n)) => algebra.intersect_pda_bounded(&pda, &fsa, n),
            (Some(fsa), None) => algebra.intersect_pda(&pda, &fsa),
        };
        let step = step.map_err(|e| ops_error(loc, e))?;
        self.stats.extend(step.stats);
        Ok(Value::Pda(step.automaton))
    }

    /// The token FSA a grammar is intersected with: the intersection of the regular
    /// operands, complemented for `difference`.
    fn regular_operand(
        &mut self,
        op: BoolOp,
        mut regular: Vec<(Value, Loc)>,
        loc: &Loc,
    ) -> Result<TokenAutomaton, ExprError> {
        let fsa = match regular.len() {
            1 => {
                let (v, l) = regular.pop().expect("one");
                self.tokens(v, &l)?
            }
            _ => match self.boolean(BoolOp::And, regular, false, loc)? {
                Value::Tokens(a) => a,
                v => self.tokens(v, loc)?,
            },
        };
        if !matches!(op, BoolOp::AndNot) {
            return Ok(fsa);
        }
        match self.complement(Value::Tokens(fsa), false, loc)? {
            Value::Tokens(a) => Ok(a),
            v => self.tokens(v, loc),
        }
    }
}

/// A token operation's error at `loc`, naming the budget option it ran into.
fn ops_error(loc: &Loc, e: OpsError) -> ExprError {
    let option = match e.kind() {
        OpsErrorKind::Deadline => " (time_budget, `--time-budget`)",
        OpsErrorKind::Memory { .. } => " (memory_budget, `--memory-budget`)",
        _ => "",
    };
    loc.error(format!("{e}{option}"))
}

/// The name of a grammar compile's size in an expression's `--stats`.
fn grammar_count(name: &'static str) -> &'static str {
    match name {
        "nodes" => "grammar nodes",
        "nodes reached by pops" => "grammar nodes reached by pops",
        "accepting nodes" => "grammar accepting nodes",
        "class edges" => "grammar class edges",
        "pop edges" => "grammar pop edges",
        "classes" => "grammar classes",
        "stack symbols" => "grammar stack symbols",
        "bytes" => "grammar bytes",
        "nondeterministic" => "nondeterministic grammar",
        other => other,
    }
}

/// `a` repeated `min` to `max` times: `a^min (a|ε)^(max-min)`.
fn repeat(
    alg: &Algebra,
    a: &ByteDfa,
    min: u64,
    max: u64,
) -> Result<ByteDfa, fstc_core::bytes::ByteDfaError> {
    let empty_text = alg.from_edges(&[], &[true])?;
    let optional = alg.union(a, &empty_text)?;
    let mut acc = empty_text;
    for i in 0..max {
        acc = alg.concat(&acc, if i < min { a } else { &optional })?;
    }
    Ok(acc)
}

/// The token automaton of no sequence at all.
fn empty_automaton(trie: &VocabTrie) -> Result<TokenAutomaton, String> {
    let parts = ClassParts {
        vocab_size: trie.vocab_size() as u32,
        vocab_fingerprint: trie.fingerprint(),
        eos_ids: trie.eos_ids().to_vec(),
        start: 0,
        accepting: vec![false],
        num_classes: 0,
        class_of_token: vec![NO_CLASS; trie.vocab_size()],
        edges: vec![Vec::new()],
        terminals: Vec::new(),
    };
    TokenAutomaton::from_class_parts(parts).map_err(|e| e.to_string())
}

impl<'a> Run<'a> {
    fn leaf(&mut self, node: &Node, loc: &Loc) -> Result<Value, ExprError> {
        let limit = self.compiler.dfa_limit();
        let dfa = match node {
            Node::Regex(pattern) => self.stats.time("byte DFA", || {
                RegexBuilder::new()
                    .state_limit(limit)
                    .deadline(self.budget.deadline())
                    .build(pattern)
                    .map_err(|e| loc.error(e.to_string()))
            })?,
            Node::Text(literal) => {
                let edges: Vec<(u32, u8, u8, u32)> = (literal.bytes().enumerate())
                    .map(|(i, b)| (i as u32, b, b, i as u32 + 1))
                    .collect();
                let mut accepting = vec![false; literal.len() + 1];
                accepting[literal.len()] = true;
                self.bytes
                    .from_edges(&edges, &accepting)
                    .map_err(|e| loc.error(e.to_string()))?
            }
            Node::Json(file, options) => {
                let path = self.compiler.path(file);
                let text = std::fs::read_to_string(&path)
                    .map_err(|e| loc.error(format!("cannot read {}: {e}", path.display())))?;
                let what = format!("the schema {}", path.display());
                self.schema(&text, options, loc, &what)?
            }
            Node::JsonSchema(text, options) => self.schema(text, options, loc, "the schema")?,
            Node::Fst(file, labels) => {
                let path = self.compiler.path(file);
                let data = read(&path, loc)?;
                self.stats
                    .time("byte DFA", || {
                        byte_dfa_from_openfst_before(&data, *labels, limit, self.budget.deadline())
                    })
                    .map_err(|e| loc.error(format!("{}: {e}", path.display())))?
            }
            Node::Automaton(file) => return self.automaton(&self.compiler.path(file), loc),
            Node::Grammar(text) => {
                return self.grammar(text, fstc_pda::Syntax::Gbnf, loc, "the grammar")
            }
            Node::GrammarFile(file) => {
                let path = self.compiler.path(file);
                let text = std::fs::read_to_string(&path)
                    .map_err(|e| loc.error(format!("cannot read {}: {e}", path.display())))?;
                let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
                let syntax =
                    fstc_pda::Syntax::from_extension(ext).unwrap_or(fstc_pda::Syntax::Gbnf);
                let what = format!("the grammar {}", path.display());
                return self.grammar(&text, syntax, loc, &what);
            }
            Node::MaxTokens(n) => {
                let trie = self.need_trie(loc, "max_tokens")?;
                let n = usize::try_from(*n).unwrap_or(usize::MAX);
                let a = (self.algebra().at_most_tokens(trie, n)).map_err(|e| ops_error(loc, e))?;
                return Ok(Value::Tokens(a));
            }
            _ => unreachable!("inner nodes are evaluated by eval"),
        };
        Ok(Value::Bytes(dfa))
    }

    fn need_trie(&self, loc: &Loc, what: &str) -> Result<&'a VocabTrie, ExprError> {
        self.trie.ok_or_else(|| {
            loc.error(format!(
                "`{what}` is a token-level constraint: it needs a vocabulary, and has no byte DFA"
            ))
        })
    }

    fn grammar(
        &mut self,
        text: &str,
        syntax: fstc_pda::Syntax,
        loc: &Loc,
        what: &str,
    ) -> Result<Value, ExprError> {
        let trie = self.need_trie(loc, "grammar")?;
        // The grammar's time budget is what is left of the expression's; its memory budget
        // stays its own (it counts its transient tables too; the expression counts the
        // token PDA it returns).
        let config = fstc_pda::Config::new()
            .syntax(syntax)
            .time_budget(self.budget.remaining());
        let compiler = fstc_pda::GrammarCompiler::new().configure(config);
        let mut compiled = compiler
            .compile_with_trie(text, trie)
            .map_err(|e| loc.error(format!("{what}: {e}")))?;
        // The grammar's own sizes beside the result's ("grammar nodes" and "nodes").
        compiled.stats.rename_counts(grammar_count);
        self.stats.extend(compiled.stats);
        Ok(Value::Pda(compiled.automaton))
    }

    fn schema(
        &mut self,
        text: &str,
        options: &Options,
        loc: &Loc,
        what: &str,
    ) -> Result<ByteDfa, ExprError> {
        let limit = self.compiler.dfa_limit();
        // The call's options over the compiler's; the schema's own budgets are what is
        // left of the expression's.
        let given = self.compiler.json.get_config();
        let left = schema_options(options, given.get_whitespace())
            .time_budget(self.budget.remaining())
            .memory_budget(self.budget.memory.saturating_sub(self.budget.used));
        let json = &self.compiler.json.clone().configure(left);
        let regex = self
            .stats
            .time("schema translation", || json.to_regex(text))
            .map_err(|e| loc.error(format!("{what}: {e}")))?;
        self.warnings.extend(regex.warnings.iter().cloned());
        self.stats
            .time("byte DFA", || regex.dfa(limit))
            .map_err(|e| loc.error(format!("{what}: {e}")))
    }

    fn automaton(&mut self, path: &Path, loc: &Loc) -> Result<Value, ExprError> {
        let trie = self.need_trie(loc, "automaton")?;
        let loaded = AnyAutomaton::read_file(path)
            .map_err(|e| loc.error(format!("{}: {e}", path.display())))?;
        let AnyAutomaton::Fsa(a) = loaded else {
            return Err(loc.error(format!(
                "{} is a token PDA (a compiled grammar); expressions take token FSAs",
                path.display()
            )));
        };
        if a.vocab_fingerprint() != trie.fingerprint()
            || a.vocab_size() as usize != trie.vocab_size()
        {
            return Err(loc.error(format!(
                "{} was compiled for another vocabulary (size {}, fingerprint {:016x}; this one \
                 has size {}, fingerprint {:016x})",
                path.display(),
                a.vocab_size(),
                a.vocab_fingerprint(),
                trie.vocab_size(),
                trie.fingerprint()
            )));
        }
        Ok(Value::Tokens(a))
    }
}

/// The schema options of one `json` or `json_schema` call as a [`Config`] to put over
/// the compiler's, whose whitespace is `whitespace`: `indent` alone is the pretty style
/// with that indent, `max_whitespace` alone the flexible one, and a style without its
/// number keeps the compiler's number for it (else the command line's default).
fn schema_options(options: &Options, whitespace: Whitespace) -> Config {
    let int = |k: &str| {
        options.iter().find_map(|(o, v)| match v {
            Scalar::Int(n) if *o == k => Some(usize::try_from(*n).unwrap_or(usize::MAX)),
            _ => None,
        })
    };
    let text = |k: &str| {
        options.iter().find_map(|(o, v)| match v {
            Scalar::Str(s) if *o == k => Some(s.as_str()),
            _ => None,
        })
    };
    let flag = |k: &str| {
        options.iter().find_map(|(o, v)| match v {
            Scalar::Bool(b) if *o == k => Some(*b),
            _ => None,
        })
    };
    let (indent, max) = match whitespace {
        Whitespace::Pretty { indent } => (indent, 8),
        Whitespace::Flexible { max_whitespace } => (2, max_whitespace),
        _ => (2, 8),
    };
    let style = match (text("whitespace"), int("indent"), int("max_whitespace")) {
        (Some("compact"), _, _) => Some(Whitespace::Compact),
        (Some("pretty"), i, _) | (None, i @ Some(_), _) => Some(Whitespace::Pretty {
            indent: i.unwrap_or(indent),
        }),
        (Some(_), _, m) | (None, None, m @ Some(_)) => Some(Whitespace::Flexible {
            max_whitespace: m.unwrap_or(max),
        }),
        (None, None, None) => None,
    };
    let mut config = Config::new();
    if let Some(style) = style {
        config = config.whitespace(style);
    }
    if let Some(e) = text("escapes") {
        config = config.escapes(if e == "any" {
            Escapes::Any
        } else {
            Escapes::Canonical
        });
    }
    if let Some(b) = flag("additional_properties") {
        config = config.additional_properties(b);
    }
    if let Some(b) = flag("lenient") {
        config = config.lenient(b);
    }
    if let Some(n) = int("recursion_depth") {
        config = config.recursion_depth(n);
    }
    if let Some(n) = int("any_json_depth") {
        config = config.any_json_depth(n);
    }
    config
}

fn read(path: &Path, loc: &Loc) -> Result<Vec<u8>, ExprError> {
    std::fs::read(path).map_err(|e| loc.error(format!("cannot read {}: {e}", path.display())))
}
