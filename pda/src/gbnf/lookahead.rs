//! XGrammar's lookahead assertions: `name ::= body (= la)` says that the text after every
//! occurrence of `name` begins with a text of `la` (at the end of the output, `la` must
//! match the empty text). Enforced exactly: `la` must be regular (rules it names are
//! inlined; a recursive one is refused by name), and the grammar is intersected with a
//! monitor that reads the text alongside it. The monitor's state is the set of assertions
//! still pending, each as a state of the DFA of `la` followed by anything; a rule's exit
//! adds its assertion, a byte advances every pending one (one that can no longer be met
//! kills the path, one met is dropped). Each rule is copied once per monitor state it may
//! start in and end in (`name (lookahead 2-0)`), as the classic intersection of a grammar
//! with a finite automaton, but only where something is pending or an asserted rule is
//! inside: other rules are read unchanged.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

use fstc_core::bytes::{Algebra, ByteDfa, Universe};
use regex_syntax::utf8::Utf8Sequences;

use super::ast::{scalar_ranges, Expr, Pos, RuleDef, Rules};
use crate::budget::Budget;
use crate::error::{PdaError, PdaErrorKind};

/// Most monitor states (sets of pending assertions), rule copies, and states of one
/// regex element read alongside the monitor.
const MAX_MONITOR_STATES: usize = 4096;
const MAX_COPIES: usize = 50_000;
const MAX_PAIRS: usize = 200_000;

/// One rule's assertion as read: the rule's name, the assertion, where `(=` is.
pub(crate) struct Assertion {
    pub rule: String,
    pub expr: Expr,
    pub at: Pos,
}

type Res<T> = Result<T, PdaError>;

fn error(at: Pos, what: String) -> PdaError {
    PdaError::new(PdaErrorKind::Syntax, format!("grammar {at}: {what}"))
}

/// The rules with every assertion enforced (see the module documentation). Where no text
/// meets them, the error names the assertions that no text meets even alone (or all, if
/// only together), each with where it is, and says when one is recursive.
pub(crate) fn expand(rules: Rules, assertions: &[Assertion], budget: &Budget) -> Res<Rules> {
    if assertions.is_empty() {
        return Ok(rules);
    }
    let all: Vec<&Assertion> = assertions.iter().collect();
    if let Some(out) = intersect(&rules, &all, budget)? {
        return Ok(out);
    }
    let mut never = Vec::new();
    for a in assertions {
        if intersect(&rules, &[a], budget)?.is_none() {
            never.push(a);
        }
    }
    let (culprits, together) = match never.is_empty() {
        true => (all, " together"),
        false => (never, ""),
    };
    let first = culprits[0];
    if names_itself(&rules.rules, first) {
        let what = format!("the lookahead assertion of `{0}` is recursive and can never hold: it names `{0}`, so every occurrence of `{0}` must be followed by another, and at the end of the output nothing follows", first.rule);
        return Err(error(first.at, what));
    }
    let others: String = (culprits[1..].iter())
        .map(|a| format!(" and of `{}` ({})", a.rule, a.at))
        .collect();
    let what = format!("the lookahead assertion of `{}`{others} can never hold{together}: no text of the grammar has every occurrence of the rule followed by a text of its assertion (at the end of the output nothing follows)", first.rule);
    Err(error(first.at, what))
}

/// The grammar intersected with the monitor of `assertions`; `None` where no text meets
/// them.
fn intersect(rules: &Rules, assertions: &[&Assertion], budget: &Budget) -> Res<Option<Rules>> {
    let index: HashMap<String, usize> = (rules.rules.iter().enumerate())
        .map(|(i, r)| (r.name.clone(), i))
        .collect();
    let mut asserted = vec![None; rules.rules.len()];
    let mut dfas = Vec::new();
    for a in assertions {
        let l = Regular {
            rules: &rules.rules,
            index: &index,
            at: a.at,
        }
        .dfa(&a.expr, &mut Vec::new())?;
        let followed = Algebra::new()
            .concat(&l, &ByteDfa::universe(Universe::Bytes))
            .map_err(|e| {
                error(
                    a.at,
                    format!("the lookahead assertion of `{}`: {e}", a.rule),
                )
            })?;
        asserted[index[&a.rule]] = Some(dfas.len());
        dfas.push(followed);
    }
    let touches = touching(&rules.rules, &index, &asserted);
    let mut x = Intersect {
        defs: rules.rules.clone(),
        index,
        asserted,
        touches,
        monitor: Monitor::new(dfas),
        exits: HashMap::new(),
        order: Vec::new(),
        starred: HashMap::new(),
        chains: HashMap::new(),
        grew: false,
        at: assertions[0].at,
        budget,
    };
    x.run(&rules.start)
}

/// Whether `a`'s assertion names its own rule, directly or through the rules it names.
fn names_itself(defs: &[RuleDef], a: &Assertion) -> bool {
    let mut seen = vec![a.expr.clone()];
    let mut named: BTreeSet<&str> = BTreeSet::new();
    while let Some(e) = seen.pop() {
        let mut names = Vec::new();
        refs(&e, &mut names);
        for n in names {
            if n == a.rule {
                return true;
            }
            if let Some(d) = defs.iter().find(|d| d.name == n) {
                if named.insert(d.name.as_str()) {
                    seen.push(d.body.clone());
                }
            }
        }
    }
    false
}

/// The rule names `e` refers to.
fn refs(e: &Expr, out: &mut Vec<String>) {
    match e {
        Expr::Ref(n, _) => out.push(n.clone()),
        Expr::Seq(items) | Expr::Alt(items) => items.iter().for_each(|i| refs(i, out)),
        Expr::Repeat { expr, .. } => refs(expr, out),
        Expr::Bytes(_) | Expr::Class { .. } | Expr::Dfa(_) => {}
    }
}

/// Which rules have an assertion or call one that does (a fixpoint).
fn touching(
    defs: &[RuleDef],
    index: &HashMap<String, usize>,
    asserted: &[Option<usize>],
) -> Vec<bool> {
    let mut touches: Vec<bool> = asserted.iter().map(Option::is_some).collect();
    loop {
        let mut grew = false;
        for (i, d) in defs.iter().enumerate() {
            if !touches[i] && calls_any(&d.body, &|n| index.get(n).is_some_and(|&j| touches[j])) {
                touches[i] = true;
                grew = true;
            }
        }
        if !grew {
            return touches;
        }
    }
}

/// Whether `e` names a rule for which `hit` holds.
fn calls_any(e: &Expr, hit: &dyn Fn(&str) -> bool) -> bool {
    match e {
        Expr::Ref(n, _) => hit(n),
        Expr::Seq(items) | Expr::Alt(items) => items.iter().any(|i| calls_any(i, hit)),
        Expr::Repeat { expr, .. } => calls_any(expr, hit),
        Expr::Bytes(_) | Expr::Class { .. } | Expr::Dfa(_) => false,
    }
}

/// An assertion's language as a byte DFA, rules it names inlined.
struct Regular<'a> {
    rules: &'a [RuleDef],
    index: &'a HashMap<String, usize>,
    at: Pos,
}

impl Regular<'_> {
    fn dfa(&self, e: &Expr, inside: &mut Vec<usize>) -> Res<ByteDfa> {
        let algebra = Algebra::new();
        let fail = |m: String| error(self.at, format!("the lookahead assertion: {m}"));
        let op =
            |r: Result<ByteDfa, fstc_core::bytes::ByteDfaError>| r.map_err(|e| fail(e.to_string()));
        Ok(match e {
            Expr::Bytes(b) => literal_dfa(b),
            Expr::Class { ranges, negated } => class_dfa(ranges, *negated),
            Expr::Dfa(d) => (**d).clone(),
            Expr::Ref(name, _) => {
                let Some(&k) = self.index.get(name) else {
                    return Err(fail(format!("unknown rule `{name}`")));
                };
                if inside.contains(&k) {
                    return Err(fail(format!("rule `{name}` is recursive, so the assertion may not be regular; XGrammar's assertions are checked as regular languages here")));
                }
                inside.push(k);
                let d = self.dfa(&self.rules[k].body, inside)?;
                inside.pop();
                d
            }
            Expr::Seq(items) => {
                let mut acc = literal_dfa(&[]);
                for i in items {
                    acc = op(algebra.concat(&acc, &self.dfa(i, inside)?))?;
                }
                acc
            }
            Expr::Alt(parts) => {
                let mut acc = ByteDfa::empty_language();
                for p in parts {
                    acc = op(algebra.union(&acc, &self.dfa(p, inside)?))?;
                }
                acc
            }
            Expr::Repeat { expr, min, max, .. } => {
                let x = self.dfa(expr, inside)?;
                let mut acc = literal_dfa(&[]);
                for _ in 0..*min {
                    acc = op(algebra.concat(&acc, &x))?;
                }
                match max {
                    None => op(algebra.concat(&acc, &op(algebra.star(&x))?))?,
                    Some(max) => {
                        let once = op(algebra.union(&x, &literal_dfa(&[])))?;
                        for _ in *min..*max {
                            acc = op(algebra.concat(&acc, &once))?;
                        }
                        acc
                    }
                }
            }
        })
    }
}

/// The DFA of exactly `bytes`.
pub(super) fn literal_dfa(bytes: &[u8]) -> ByteDfa {
    let n = bytes.len() as u32;
    let edges: Vec<(u32, u8, u8, u32)> = (bytes.iter().enumerate())
        .map(|(i, &b)| (i as u32, b, b, i as u32 + 1))
        .collect();
    let mut accepting = vec![false; bytes.len() + 1];
    accepting[n as usize] = true;
    from_edges(&edges, &accepting)
}

/// The DFA of one character of a class (UTF-8 encoded).
fn class_dfa(ranges: &[(u32, u32)], negated: bool) -> ByteDfa {
    let mut edges = Vec::new();
    let mut states = 2u32;
    for (lo, hi) in scalar_ranges(ranges, negated) {
        for seq in Utf8Sequences::new(lo, hi) {
            let parts = seq.as_slice();
            let mut at = 0;
            for (i, r) in parts.iter().enumerate() {
                let next = match i + 1 == parts.len() {
                    true => 1,
                    false => {
                        states += 1;
                        states - 1
                    }
                };
                edges.push((at, r.start, r.end, next));
                at = next;
            }
        }
    }
    let mut accepting = vec![false; states as usize];
    accepting[1] = true;
    from_edges(&edges, &accepting)
}

/// `from_edges` of automata this module builds: they are a few states per byte or range
/// of their source, far under the algebra's state limit, so it cannot fail.
fn from_edges(edges: &[(u32, u8, u8, u32)], accepting: &[bool]) -> ByteDfa {
    Algebra::new()
        .from_edges(edges, accepting)
        .unwrap_or_else(|_| ByteDfa::empty_language())
}

/// The assertions pending at a point of the text, interned: per assertion, the states of
/// its DFA the pending occurrences are in. State 0 is "nothing pending".
struct Monitor {
    dfas: Vec<ByteDfa>,
    sets: Vec<Vec<(u32, u32)>>,
    ids: HashMap<Vec<(u32, u32)>, u32>,
    steps: HashMap<(u32, u8), Option<u32>>,
}

impl Monitor {
    fn new(dfas: Vec<ByteDfa>) -> Monitor {
        Monitor {
            dfas,
            sets: vec![Vec::new()],
            ids: HashMap::from([(Vec::new(), 0)]),
            steps: HashMap::new(),
        }
    }

    fn intern(&mut self, mut set: Vec<(u32, u32)>) -> Option<u32> {
        set.sort_unstable();
        set.dedup();
        if let Some(&id) = self.ids.get(&set) {
            return Some(id);
        }
        if self.sets.len() >= MAX_MONITOR_STATES {
            return None;
        }
        let id = self.sets.len() as u32;
        self.sets.push(set.clone());
        self.ids.insert(set, id);
        Some(id)
    }

    /// The state after `b`, `Ok(None)` when a pending assertion can no longer be met,
    /// `Err(())` past [`MAX_MONITOR_STATES`].
    fn step(&mut self, m: u32, b: u8) -> Result<Option<u32>, ()> {
        if m == 0 {
            return Ok(Some(0));
        }
        if let Some(&t) = self.steps.get(&(m, b)) {
            return Ok(t);
        }
        let mut next = Vec::new();
        for &(k, s) in &self.sets[m as usize] {
            let dfa = &self.dfas[k as usize];
            match dfa.next(s, b) {
                None => {
                    self.steps.insert((m, b), None);
                    return Ok(None);
                }
                Some(t) if dfa.is_accepting(t) => {}
                Some(t) => next.push((k, t)),
            }
        }
        let t = self.intern(next).ok_or(())?;
        self.steps.insert((m, b), Some(t));
        Ok(Some(t))
    }

    /// The state after an exit of a rule asserting `k` (when `Some`).
    fn assert(&mut self, m: u32, k: Option<usize>) -> Result<u32, ()> {
        let Some(k) = k else { return Ok(m) };
        if self.dfas[k].is_accepting(0) {
            return Ok(m);
        }
        let mut set = self.sets[m as usize].clone();
        set.push((k as u32, 0));
        self.intern(set).ok_or(())
    }
}

/// Texts of an expression from a monitor state, by the state they end in.
type Exits = BTreeMap<u32, Expr>;

/// The intersection of the rules with the monitor.
struct Intersect<'b> {
    /// The rules, then one `x ::= "" | body x` per starred body read with something pending.
    defs: Vec<RuleDef>,
    index: HashMap<String, usize>,
    asserted: Vec<Option<usize>>,
    touches: Vec<bool>,
    monitor: Monitor,
    /// Per rule and entry state, the states it may exit in (grown to a fixpoint).
    exits: HashMap<(usize, u32), BTreeSet<u32>>,
    order: Vec<(usize, u32)>,
    starred: HashMap<Expr, usize>,
    /// Rules `x ::= "" | body y` (`y` the same for one fewer) for at most so many bodies.
    chains: HashMap<(Expr, u32), usize>,
    grew: bool,
    /// Where the first assertion is, for the limits' messages.
    at: Pos,
    budget: &'b Budget,
}

impl Intersect<'_> {
    fn run(&mut self, start: &str) -> Res<Option<Rules>> {
        let Some(&s) = self.index.get(start) else {
            return Ok(Some(Rules {
                start: start.to_string(),
                rules: self.defs.clone(),
            }));
        };
        self.demand(s, 0)?;
        loop {
            self.grew = false;
            let mut i = 0;
            while i < self.order.len() {
                let (k, m) = self.order[i];
                self.budget
                    .poll(1, || 0, || "enforcing the lookahead assertions".to_string())?;
                let out = self.exits_of(k, m)?;
                let known = &self.exits[&(k, m)];
                if !out.keys().all(|t| known.contains(t)) {
                    self.exits.insert((k, m), out.into_keys().collect());
                    self.grew = true;
                }
                i += 1;
            }
            if !self.grew {
                break;
            }
        }
        let mut rules = self.defs.clone();
        for &(k, m) in &self.order.clone() {
            for (t, body) in self.exits_of(k, m)? {
                rules.push(RuleDef {
                    name: copy_name(&self.defs[k].name, m, t),
                    at: self.defs[k].at,
                    body,
                });
            }
        }
        // Nothing may be pending at the end; without such a path no text meets them.
        if !self.exits[&(s, 0)].contains(&0) {
            return Ok(None);
        }
        Ok(Some(Rules {
            start: copy_name(start, 0, 0),
            rules,
        }))
    }

    /// Rule `k`'s body from `m`, by the state after its exit (its assertion added).
    fn exits_of(&mut self, k: usize, m: u32) -> Res<Exits> {
        let body = self.defs[k].body.clone();
        let mut out: BTreeMap<u32, Vec<Expr>> = BTreeMap::new();
        for (t, e) in self.thread(&body, m)? {
            let after = self
                .monitor
                .assert(t, self.asserted[k])
                .map_err(|()| self.too_many("monitor states", MAX_MONITOR_STATES))?;
            out.entry(after).or_default().push(e);
        }
        Ok(out.into_iter().map(|(t, es)| (t, alt(es))).collect())
    }

    fn demand(&mut self, k: usize, m: u32) -> Res<()> {
        if !self.exits.contains_key(&(k, m)) {
            if self.order.len() >= MAX_COPIES {
                return Err(self.too_many("rule copies", MAX_COPIES));
            }
            self.exits.insert((k, m), BTreeSet::new());
            self.order.push((k, m));
            self.grew = true;
        }
        Ok(())
    }

    fn too_many(&self, what: &str, limit: usize) -> PdaError {
        error(self.at, format!("the lookahead assertions need more than {limit} {what}; simplify them or the rules after the asserted rules"))
    }

    fn touches(&self, e: &Expr) -> bool {
        calls_any(e, &|n| self.index.get(n).is_some_and(|&j| self.touches[j]))
    }

    /// The texts of `e` read from monitor state `m`, by the state they end in.
    fn thread(&mut self, e: &Expr, m: u32) -> Res<Exits> {
        if m == 0 && !self.touches(e) {
            return Ok(Exits::from([(0, e.clone())]));
        }
        match e {
            Expr::Bytes(b) => {
                let mut s = m;
                for &byte in b {
                    match self.step(s, byte)? {
                        Some(t) => s = t,
                        None => return Ok(Exits::new()),
                    }
                }
                Ok(Exits::from([(s, e.clone())]))
            }
            Expr::Class { ranges, negated } => self.thread_dfa(&class_dfa(ranges, *negated), m),
            Expr::Dfa(d) => self.thread_dfa(d, m),
            Expr::Ref(name, at) => {
                let Some(&k) = self.index.get(name) else {
                    return Ok(Exits::from([(m, e.clone())]));
                };
                self.demand(k, m)?;
                let exits = self.exits[&(k, m)].clone();
                let to = |t: u32| Expr::Ref(copy_name(name, m, t), *at);
                Ok(exits.into_iter().map(|t| (t, to(t))).collect())
            }
            Expr::Seq(items) => self.thread_seq(items, m),
            Expr::Alt(parts) => {
                let mut out: BTreeMap<u32, Vec<Expr>> = BTreeMap::new();
                for p in parts {
                    for (t, x) in self.thread(p, m)? {
                        out.entry(t).or_default().push(x);
                    }
                }
                Ok(out.into_iter().map(|(t, es)| (t, alt(es))).collect())
            }
            Expr::Repeat { expr, min, max, at } => {
                let mut items = vec![(**expr).clone(); *min as usize];
                items.push(match max {
                    Some(max) => self.chain(expr, max - min, *at),
                    None => self.star(expr, *at),
                });
                self.thread(&Expr::Seq(items), m)
            }
        }
    }

    fn step(&mut self, m: u32, b: u8) -> Res<Option<u32>> {
        self.monitor
            .step(m, b)
            .map_err(|()| self.too_many("monitor states", MAX_MONITOR_STATES))
    }

    fn thread_seq(&mut self, items: &[Expr], m: u32) -> Res<Exits> {
        let mut cur = Exits::from([(m, Expr::Seq(Vec::new()))]);
        for item in items {
            let mut next: BTreeMap<u32, Vec<Expr>> = BTreeMap::new();
            for (s, prefix) in cur {
                for (t, x) in self.thread(item, s)? {
                    let seq = match &prefix {
                        Expr::Seq(items) => [items.clone(), vec![x]].concat(),
                        other => vec![other.clone(), x],
                    };
                    next.entry(t).or_default().push(Expr::Seq(seq));
                }
            }
            cur = next.into_iter().map(|(t, es)| (t, alt(es))).collect();
        }
        Ok(cur)
    }

    /// A reference to the rule `x ::= "" | body x` (made once per body).
    fn star(&mut self, body: &Expr, at: Option<Pos>) -> Expr {
        let k = match self.starred.get(body) {
            Some(&k) => k,
            None => {
                let name = format!("(repetition {})", self.defs.len());
                let rec = Expr::Seq(vec![body.clone(), Expr::Ref(name, at)]);
                let k = self.helper(Expr::Alt(vec![Expr::Bytes(Vec::new()), rec]), at, body);
                self.starred.insert(body.clone(), k);
                k
            }
        };
        Expr::Ref(self.defs[k].name.clone(), at)
    }

    /// A reference to the rule of at most `n` repetitions of `body`: `x ::= "" | body y`,
    /// `y` that of `n - 1` (rules, not nested groups, so that `{0,2000}` nests nothing).
    fn chain(&mut self, body: &Expr, n: u32, at: Option<Pos>) -> Expr {
        if n == 0 {
            return Expr::Bytes(Vec::new());
        }
        if let Some(&k) = self.chains.get(&(body.clone(), n)) {
            return Expr::Ref(self.defs[k].name.clone(), at);
        }
        let rest = self.chain(body, n - 1, at);
        let more = Expr::Seq(vec![body.clone(), rest]);
        let k = self.helper(Expr::Alt(vec![Expr::Bytes(Vec::new()), more]), at, body);
        self.chains.insert((body.clone(), n), k);
        Expr::Ref(self.defs[k].name.clone(), at)
    }

    /// A new rule of `body`, numbered; `inner` is what it repeats (whether it touches).
    fn helper(&mut self, body: Expr, at: Option<Pos>, inner: &Expr) -> usize {
        let k = self.defs.len();
        let name = format!("(repetition {k})");
        self.defs.push(RuleDef {
            name: name.clone(),
            at,
            body,
        });
        self.index.insert(name, k);
        self.asserted.push(None);
        let t = self.touches(inner);
        self.touches.push(t);
        k
    }

    /// A regex element read alongside the monitor from `m`: the product automaton, one
    /// DFA per monitor state its accepting pairs end in.
    fn thread_dfa(&mut self, dfa: &ByteDfa, m: u32) -> Res<Exits> {
        if m == 0 {
            return Ok(Exits::from([(0, Expr::Dfa(Arc::new(dfa.clone())))]));
        }
        if !dfa.terminals().is_empty() {
            return Err(error(self.at, "a lookahead assertion is pending across an element with token wildcards, which cannot be read byte by byte".to_string()));
        }
        let mut pairs = vec![(dfa.start(), m)];
        let mut ids = HashMap::from([((dfa.start(), m), 0u32)]);
        let mut edges: Vec<(u32, u8, u8, u32)> = Vec::new();
        let mut i = 0;
        while i < pairs.len() {
            let (d, s) = pairs[i];
            for b in 0..=255u8 {
                let Some(d2) = dfa.next(d, b) else { continue };
                let Some(s2) = self.step(s, b)? else { continue };
                let j = *ids.entry((d2, s2)).or_insert_with(|| {
                    pairs.push((d2, s2));
                    pairs.len() as u32 - 1
                });
                match edges.last_mut() {
                    Some(e) if e.0 == i as u32 && e.3 == j && e.2 as u16 + 1 == b as u16 => e.2 = b,
                    _ => edges.push((i as u32, b, b, j)),
                }
            }
            if pairs.len() > MAX_PAIRS {
                return Err(self.too_many(
                    "states of a regex element read with an assertion pending",
                    MAX_PAIRS,
                ));
            }
            i += 1;
        }
        let ends: BTreeSet<u32> = pairs
            .iter()
            .filter(|p| dfa.is_accepting(p.0))
            .map(|p| p.1)
            .collect();
        let algebra = Algebra::new();
        let mut out = Exits::new();
        for t in ends {
            let accepting: Vec<bool> = pairs
                .iter()
                .map(|&(d, s)| s == t && dfa.is_accepting(d))
                .collect();
            let d = algebra.from_edges(&edges, &accepting).map_err(|e| {
                error(
                    self.at,
                    format!("a regex element read with a lookahead assertion pending: {e}"),
                )
            })?;
            out.insert(t, Expr::Dfa(Arc::new(d)));
        }
        Ok(out)
    }
}

fn alt(mut es: Vec<Expr>) -> Expr {
    match es.len() {
        1 => es.pop().unwrap_or(Expr::Alt(Vec::new())),
        _ => Expr::Alt(es),
    }
}

/// The name of rule `name`'s copy entered in monitor state `m` and left in `t`.
fn copy_name(name: &str, m: u32, t: u32) -> String {
    format!("{name} (lookahead {m}-{t})")
}
