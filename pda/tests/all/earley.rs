//! An Earley recognizer for the tests, sharing no code with the compiler: it reads the parsed
//! rules (`fstc_pda::gbnf::Rules`, the user's grammar as written, before any rewriting) into a
//! plain context-free grammar and recognizes texts over it. Classes match one UTF-8 encoded
//! character, decoded with `std`. A byte DFA element (a regex terminal, a `%json` schema)
//! is a terminal matching every text its DFA accepts: the tests check such DFAs against
//! their own oracles (the jsonschema crate for `%json`) and this recognizer the rest.

use std::collections::HashSet;
use std::sync::Arc;

use fstc_core::bytes::ByteDfa;

use fstc_pda::gbnf::{Expr, Rules};

#[derive(Clone, Debug)]
enum Term {
    Lit(Vec<u8>),
    Class(Vec<(u32, u32)>, bool),
    Dfa(Arc<ByteDfa>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Sym {
    T(usize),
    N(usize),
}

/// A plain CFG: rules `lhs -> syms`, start nonterminal 0.
pub struct Earley {
    terms: Vec<Term>,
    rules: Vec<(usize, Vec<Sym>)>,
    nullable: Vec<bool>,
    names: Vec<String>,
}

impl Earley {
    pub fn new(rules: &Rules) -> Earley {
        let mut e = Earley {
            terms: Vec::new(),
            rules: Vec::new(),
            nullable: Vec::new(),
            names: Vec::new(),
        };
        let start = rules.start.clone();
        e.names.push(start.clone());
        for r in &rules.rules {
            if !e.names.contains(&r.name) {
                e.names.push(r.name.clone());
            }
        }
        for r in &rules.rules {
            let lhs = e.names.iter().position(|n| *n == r.name).unwrap();
            let syms = e.lower(&r.body);
            e.rules.push((lhs, syms));
        }
        e.nullable = vec![false; e.names.len()];
        let mut changed = true;
        while changed {
            changed = false;
            for (lhs, syms) in &e.rules {
                let v = syms
                    .iter()
                    .all(|s| matches!(s, Sym::N(n) if e.nullable[*n]));
                if v && !e.nullable[*lhs] {
                    e.nullable[*lhs] = true;
                    changed = true;
                }
            }
        }
        e
    }

    fn fresh(&mut self) -> usize {
        self.names.push(format!("<{}>", self.names.len()));
        self.names.len() - 1
    }

    /// The expression as a symbol sequence, adding helper rules.
    fn lower(&mut self, x: &Expr) -> Vec<Sym> {
        match x {
            Expr::Bytes(b) if b.is_empty() => Vec::new(),
            Expr::Bytes(b) => {
                self.terms.push(Term::Lit(b.clone()));
                vec![Sym::T(self.terms.len() - 1)]
            }
            Expr::Class { ranges, negated } => {
                self.terms.push(Term::Class(ranges.clone(), *negated));
                vec![Sym::T(self.terms.len() - 1)]
            }
            Expr::Dfa(dfa) => {
                self.terms.push(Term::Dfa(Arc::clone(dfa)));
                vec![Sym::T(self.terms.len() - 1)]
            }
            Expr::Ref(name, _) => vec![Sym::N(self.names.iter().position(|n| n == name).unwrap())],
            Expr::Seq(items) => items.iter().flat_map(|i| self.lower(i)).collect(),
            Expr::Alt(alts) => {
                let n = self.fresh();
                for a in alts {
                    let syms = self.lower(a);
                    self.rules.push((n, syms));
                }
                vec![Sym::N(n)]
            }
            Expr::Repeat { expr, min, max, .. } => {
                let inner = self.lower(expr);
                let mut out: Vec<Sym> = Vec::new();
                for _ in 0..*min {
                    out.extend(inner.iter().copied());
                }
                match max {
                    None => {
                        // R -> "" | inner R
                        let r = self.fresh();
                        self.rules.push((r, Vec::new()));
                        let mut rec = inner.clone();
                        rec.push(Sym::N(r));
                        self.rules.push((r, rec));
                        out.push(Sym::N(r));
                    }
                    Some(max) => {
                        for _ in *min..*max {
                            let o = self.fresh();
                            self.rules.push((o, Vec::new()));
                            self.rules.push((o, inner.clone()));
                            out.push(Sym::N(o));
                        }
                    }
                }
                out
            }
        }
    }

    /// The lengths of the matches of terminal `t` at `text[i..]`.
    fn scan(&self, t: usize, text: &[u8], i: usize) -> Vec<usize> {
        match &self.terms[t] {
            Term::Dfa(dfa) => (0..=text.len() - i)
                .filter(|&k| dfa.is_match(&text[i..i + k]))
                .collect(),
            _ => self.scan_one(t, text, i).into_iter().collect(),
        }
    }

    /// The length of the match of the literal or class `t` at `text[i..]`.
    fn scan_one(&self, t: usize, text: &[u8], i: usize) -> Option<usize> {
        match &self.terms[t] {
            Term::Dfa(_) => None,
            Term::Lit(b) => text[i..].starts_with(b).then_some(b.len()),
            Term::Class(ranges, negated) => {
                let len = (1..=4).find(|&k| {
                    i + k <= text.len() && std::str::from_utf8(&text[i..i + k]).is_ok()
                })?;
                let c = std::str::from_utf8(&text[i..i + len])
                    .ok()?
                    .chars()
                    .next()? as u32;
                let inside = ranges.iter().any(|&(lo, hi)| lo <= c && c <= hi);
                (inside != *negated).then_some(len)
            }
        }
    }

    /// Whether the grammar derives `text`.
    pub fn accepts(&self, text: &[u8]) -> bool {
        self.items_at_end(text).contains(&usize::MAX)
    }

    /// Runs the chart; returns the rules of the items in the last set (`usize::MAX` marks a
    /// finished start rule over the whole text).
    fn items_at_end(&self, text: &[u8]) -> HashSet<usize> {
        type Item = (usize, usize, usize);
        let n = text.len();
        let mut sets: Vec<Vec<Item>> = vec![Vec::new(); n + 1];
        let mut seen: Vec<HashSet<Item>> = vec![HashSet::new(); n + 1];
        let add =
            |sets: &mut Vec<Vec<Item>>, seen: &mut Vec<HashSet<Item>>, at: usize, it: Item| {
                if seen[at].insert(it) {
                    sets[at].push(it);
                }
            };
        for (r, (lhs, _)) in self.rules.iter().enumerate() {
            if *lhs == 0 {
                add(&mut sets, &mut seen, 0, (r, 0, 0));
            }
        }
        for i in 0..=n {
            let mut k = 0;
            while k < sets[i].len() {
                let (r, dot, origin) = sets[i][k];
                k += 1;
                let (lhs, syms) = &self.rules[r];
                match syms.get(dot) {
                    None => {
                        // Complete: advance the items waiting for `lhs` at `origin`.
                        let waiting: Vec<Item> = sets[origin]
                            .iter()
                            .filter(|&&(r2, d2, _)| self.rules[r2].1.get(d2) == Some(&Sym::N(*lhs)))
                            .copied()
                            .collect();
                        for (r2, d2, o2) in waiting {
                            add(&mut sets, &mut seen, i, (r2, d2 + 1, o2));
                        }
                    }
                    Some(Sym::N(m)) => {
                        for (r2, (l2, _)) in self.rules.iter().enumerate() {
                            if l2 == m {
                                add(&mut sets, &mut seen, i, (r2, 0, i));
                            }
                        }
                        if self.nullable[*m] {
                            add(&mut sets, &mut seen, i, (r, dot + 1, origin));
                        }
                    }
                    Some(Sym::T(t)) => {
                        for len in self.scan(*t, text, i) {
                            add(&mut sets, &mut seen, i + len, (r, dot + 1, origin));
                        }
                    }
                }
            }
        }
        let mut out: HashSet<usize> = sets[n].iter().map(|&(r, _, _)| r).collect();
        if sets[n].iter().any(|&(r, dot, origin)| {
            origin == 0 && self.rules[r].0 == 0 && dot == self.rules[r].1.len()
        }) {
            out.insert(usize::MAX);
        }
        out
    }
}
