//! Grammar analysis: resolves names, flattens literals into bytes, and proves that the PDA
//! built from the grammar is deterministic with one byte of lookahead.
//!
//! The checks, in order: the start nonterminal has rules; every used nonterminal has rules;
//! every reachable nonterminal can finish (productive); no nonterminal can call itself before
//! reading a byte (left recursion, also through nullable symbols — the PDA would loop); and
//! the LL(1) condition over bytes: the PREDICT sets (FIRST of the alternative, plus FOLLOW of
//! the nonterminal when the alternative can be empty) of two alternatives never meet. Under
//! these conditions the PDA of [`crate::Pda`] never has a choice: see that module.

use std::collections::HashMap;

use crate::error::{PdaError, PdaErrorKind};
use crate::grammar::{fmt_rule, Grammar, Symbol};

/// One element of a flattened right-hand side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Elem {
    Byte(u8),
    Nt(u32),
}

/// A rule with literals flattened into bytes and names resolved.
#[derive(Clone, Debug)]
pub(crate) struct CRule {
    pub lhs: u32,
    pub elems: Vec<Elem>,
    /// The rule as the user wrote it, for messages.
    pub text: String,
}

/// A set of bytes plus the end of the text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct LookSet {
    bytes: [u64; 4],
    end: bool,
}

impl LookSet {
    pub fn contains(&self, b: u8) -> bool {
        self.bytes[usize::from(b >> 6)] >> (b & 63) & 1 == 1
    }

    pub fn is_empty(&self) -> bool {
        self.bytes == [0; 4] && !self.end
    }

    fn insert(&mut self, b: u8) -> bool {
        let word = &mut self.bytes[usize::from(b >> 6)];
        let old = *word;
        *word |= 1 << (b & 63);
        *word != old
    }

    fn union(&mut self, other: &LookSet) -> bool {
        let old = *self;
        for (w, o) in self.bytes.iter_mut().zip(other.bytes) {
            *w |= o;
        }
        self.end |= other.end;
        *self != old
    }
}

/// A checked grammar, ready for the PDA construction.
#[derive(Clone, Debug)]
pub(crate) struct Cfg {
    /// Nonterminal names; the last one is the synthetic start `<start>`.
    pub names: Vec<String>,
    /// Rule 0 is the synthetic `<start> -> S`; the others are the reachable user rules.
    pub rules: Vec<CRule>,
    pub by_lhs: Vec<Vec<u32>>,
    pub nullable: Vec<bool>,
    pub first: Vec<LookSet>,
    /// Per nonterminal and byte, the alternative that byte starts (`u32::MAX`: none).
    choice: Vec<Vec<u32>>,
}

/// The name shown for the synthetic start nonterminal.
pub(crate) const START_NAME: &str = "<start>";

/// How a byte (or the end) is shown in messages.
fn fmt_look(look: Option<u8>) -> String {
    match look {
        Some(b) if b.is_ascii_graphic() => format!("byte `{}`", b as char),
        Some(b) => format!("byte 0x{b:02X}"),
        None => "the end of the text".to_string(),
    }
}

impl Cfg {
    /// Checks `grammar` and builds its flattened form.
    pub fn new(grammar: &Grammar) -> Result<Cfg, PdaError> {
        let mut index: HashMap<&str, u32> = HashMap::new();
        let mut names: Vec<String> = Vec::new();
        for (lhs, _) in grammar.rules() {
            if !index.contains_key(lhs) {
                index.insert(lhs, names.len() as u32);
                names.push(lhs.to_string());
            }
        }
        let Some(&start) = index.get(grammar.start()) else {
            return Err(PdaError::new(
                PdaErrorKind::EmptyGrammar,
                format!(
                    "the start nonterminal `{}` has no rules; add one with `{} -> ... ;`",
                    grammar.start(),
                    grammar.start()
                ),
            ));
        };
        let mut all: Vec<CRule> = Vec::new();
        for (lhs, rhs) in grammar.rules() {
            let mut elems = Vec::new();
            for sym in rhs {
                match sym {
                    Symbol::Lit(bytes) => elems.extend(bytes.iter().map(|&b| Elem::Byte(b))),
                    Symbol::Nt(name) => match index.get(name.as_str()) {
                        Some(&n) => elems.push(Elem::Nt(n)),
                        None => {
                            return Err(PdaError::new(
                                PdaErrorKind::UnknownNonterminal,
                                format!(
                                    "unknown nonterminal `{name}` in rule `{}`: no rule has it on the left of `->`",
                                    fmt_rule(lhs, rhs)
                                ),
                            ))
                        }
                    },
                }
            }
            all.push(CRule {
                lhs: index[lhs],
                elems,
                text: fmt_rule(lhs, rhs),
            });
        }

        // Keep the nonterminals reachable from the start, in first-definition order.
        let mut reachable = vec![false; names.len()];
        reachable[start as usize] = true;
        let mut work = vec![start];
        while let Some(n) = work.pop() {
            for r in all.iter().filter(|r| r.lhs == n) {
                for e in &r.elems {
                    if let Elem::Nt(m) = *e {
                        if !reachable[m as usize] {
                            reachable[m as usize] = true;
                            work.push(m);
                        }
                    }
                }
            }
        }
        let mut renumber = vec![u32::MAX; names.len()];
        let mut kept_names = Vec::new();
        for (i, name) in names.iter().enumerate() {
            if reachable[i] {
                renumber[i] = kept_names.len() as u32;
                kept_names.push(name.clone());
            }
        }
        let synthetic = kept_names.len() as u32;
        kept_names.push(START_NAME.to_string());
        let mut rules = vec![CRule {
            lhs: synthetic,
            elems: vec![Elem::Nt(renumber[start as usize])],
            text: format!("{START_NAME} -> {}", grammar.start()),
        }];
        for r in all.into_iter().filter(|r| reachable[r.lhs as usize]) {
            rules.push(CRule {
                lhs: renumber[r.lhs as usize],
                elems: r
                    .elems
                    .iter()
                    .map(|e| match *e {
                        Elem::Nt(m) => Elem::Nt(renumber[m as usize]),
                        b => b,
                    })
                    .collect(),
                text: r.text,
            });
        }
        let mut by_lhs = vec![Vec::new(); kept_names.len()];
        for (i, r) in rules.iter().enumerate() {
            by_lhs[r.lhs as usize].push(i as u32);
        }
        let n = kept_names.len();
        let mut cfg = Cfg {
            names: kept_names,
            rules,
            by_lhs,
            nullable: vec![false; n],
            first: vec![LookSet::default(); n],
            choice: Vec::new(),
        };
        cfg.check_productive()?;
        cfg.compute_nullable();
        cfg.check_left_recursion()?;
        cfg.compute_first();
        let follow = cfg.follow();
        cfg.check_conflicts(&follow)?;
        Ok(cfg)
    }

    /// The nonterminal whose rules are the start alternatives.
    pub fn synthetic_start(&self) -> u32 {
        (self.names.len() - 1) as u32
    }

    fn check_productive(&self) -> Result<(), PdaError> {
        let mut productive = vec![false; self.names.len()];
        let mut changed = true;
        while changed {
            changed = false;
            for r in &self.rules {
                if !productive[r.lhs as usize]
                    && r.elems.iter().all(|e| match *e {
                        Elem::Byte(_) => true,
                        Elem::Nt(m) => productive[m as usize],
                    })
                {
                    productive[r.lhs as usize] = true;
                    changed = true;
                }
            }
        }
        if let Some(bad) = (0..self.names.len()).find(|&i| !productive[i]) {
            // User nonterminals come before the synthetic start, so `bad` is a user one.
            let rules: Vec<&str> = self.by_lhs[bad]
                .iter()
                .map(|&r| self.rules[r as usize].text.as_str())
                .collect();
            return Err(PdaError::new(
                PdaErrorKind::NonProductive,
                format!(
                    "nonterminal `{}` can never finish: each of its rules needs a nonterminal that cannot finish (`{}`); add a rule that ends the recursion",
                    self.names[bad],
                    rules.join("`, `")
                ),
            ));
        }
        Ok(())
    }

    fn compute_nullable(&mut self) {
        let mut changed = true;
        while changed {
            changed = false;
            for r in &self.rules {
                if !self.nullable[r.lhs as usize]
                    && r.elems.iter().all(|e| match *e {
                        Elem::Byte(_) => false,
                        Elem::Nt(m) => self.nullable[m as usize],
                    })
                {
                    self.nullable[r.lhs as usize] = true;
                    changed = true;
                }
            }
        }
    }

    /// The nonterminals a rule calls before reading any byte (its left corners).
    fn left_corners(&self, rule: usize) -> Vec<u32> {
        let mut out = Vec::new();
        for e in &self.rules[rule].elems {
            match *e {
                Elem::Byte(_) => break,
                Elem::Nt(m) => {
                    out.push(m);
                    if !self.nullable[m as usize] {
                        break;
                    }
                }
            }
        }
        out
    }

    /// Finds a cycle in "A calls B before reading a byte", without recursion (grammars may
    /// have long chains of nonterminals).
    fn check_left_recursion(&self) -> Result<(), PdaError> {
        let n = self.names.len();
        // succ[a]: (b, rule) for each left corner b of a rule of a.
        let mut succ: Vec<Vec<(u32, usize)>> = vec![Vec::new(); n];
        let mut pred: Vec<Vec<u32>> = vec![Vec::new(); n];
        for (r, rule) in self.rules.iter().enumerate() {
            for b in self.left_corners(r) {
                succ[rule.lhs as usize].push((b, r));
                pred[b as usize].push(rule.lhs);
            }
        }
        // Peel off nonterminals whose left corners are all peeled: what remains reaches a cycle.
        let mut out_left: Vec<usize> = succ.iter().map(Vec::len).collect();
        let mut peeled = vec![false; n];
        let mut work: Vec<u32> = (0..n as u32)
            .filter(|&a| out_left[a as usize] == 0)
            .collect();
        while let Some(b) = work.pop() {
            peeled[b as usize] = true;
            for &a in &pred[b as usize] {
                out_left[a as usize] -= 1;
                if out_left[a as usize] == 0 {
                    work.push(a);
                }
            }
        }
        let Some(first) = (0..n).find(|&a| !peeled[a]) else {
            return Ok(());
        };
        // Walk unpeeled successors until a nonterminal repeats: that is a cycle.
        let mut path: Vec<(u32, usize)> = Vec::new();
        let mut a = first as u32;
        let from = loop {
            if let Some(i) = path.iter().position(|&(x, _)| x == a) {
                break i;
            }
            let &(b, r) = succ[a as usize]
                .iter()
                .find(|(b, _)| !peeled[*b as usize])
                .expect("an unpeeled nonterminal has an unpeeled left corner");
            path.push((a, r));
            a = b;
        };
        let chain: Vec<String> = path[from..]
            .iter()
            .map(|&(_, r)| format!("`{}`", self.rules[r].text))
            .collect();
        Err(PdaError::new(
            PdaErrorKind::LeftRecursion,
            format!(
                "left recursion: `{}` can call itself before reading any byte, through {}; the PDA would loop. Rewrite it with right recursion (e.g. `L -> \"x\" L | \"\"` instead of `L -> L \"x\" | \"\"`)",
                self.names[a as usize],
                chain.join(", then ")
            ),
        ))
    }

    fn compute_first(&mut self) {
        let mut changed = true;
        while changed {
            changed = false;
            for i in 0..self.rules.len() {
                let lhs = self.rules[i].lhs as usize;
                let set = self.first_of(&self.rules[i].elems);
                changed |= self.first[lhs].union(&set);
            }
        }
    }

    /// FIRST of a sequence of elements (bytes only; `end` stays false).
    pub fn first_of(&self, elems: &[Elem]) -> LookSet {
        let mut set = LookSet::default();
        for e in elems {
            match *e {
                Elem::Byte(b) => {
                    set.insert(b);
                    return set;
                }
                Elem::Nt(m) => {
                    set.union(&self.first[m as usize]);
                    if !self.nullable[m as usize] {
                        return set;
                    }
                }
            }
        }
        set
    }

    /// Whether a sequence of elements derives the empty string.
    pub fn nullable_of(&self, elems: &[Elem]) -> bool {
        elems.iter().all(|e| match *e {
            Elem::Byte(_) => false,
            Elem::Nt(m) => self.nullable[m as usize],
        })
    }

    /// Whether a call of the nonterminal at `pos` of `rule` is a tail call: what follows it
    /// can only derive the empty string, so it needs no return address.
    pub fn is_tail_call(&self, rule: usize, pos: usize) -> bool {
        let rest = &self.rules[rule].elems[pos + 1..];
        self.nullable_of(rest) && self.first_of(rest).is_empty()
    }

    fn follow(&self) -> Vec<LookSet> {
        let mut follow = vec![LookSet::default(); self.names.len()];
        follow[self.synthetic_start() as usize].end = true;
        let mut changed = true;
        while changed {
            changed = false;
            for r in &self.rules {
                for (k, e) in r.elems.iter().enumerate() {
                    if let Elem::Nt(b) = *e {
                        let rest = &r.elems[k + 1..];
                        let mut add = self.first_of(rest);
                        if self.nullable_of(rest) {
                            let lhs_follow = follow[r.lhs as usize];
                            add.union(&lhs_follow);
                        }
                        changed |= follow[b as usize].union(&add);
                    }
                }
            }
        }
        follow
    }

    /// LL(1) check in one pass per nonterminal: each lookahead (byte or end) may be claimed
    /// by one alternative only, and only one alternative may derive the empty string.
    fn check_conflicts(&mut self, follow: &[LookSet]) -> Result<(), PdaError> {
        const END: usize = 256;
        let conflict = |cfg: &Cfg, a: usize, i: u32, j: u32, why: String| {
            PdaError::new(
                PdaErrorKind::Conflict,
                format!(
                    "nonterminal `{}` is not deterministic with one byte of lookahead: rules `{}` and `{}` conflict ({why}); rewrite them so that the next byte decides, e.g. by left-factoring the common prefix (`S -> \"a\" T ; T -> \"b\" | S \"b\"` instead of `S -> \"ab\" | \"a\" S \"b\"`)",
                    cfg.names[a], cfg.rules[i as usize].text, cfg.rules[j as usize].text
                ),
            )
        };
        let mut choice = Vec::with_capacity(self.by_lhs.len());
        for (a, alts) in self.by_lhs.iter().enumerate() {
            let mut owner = [u32::MAX; END + 1];
            let mut empty_owner: Option<u32> = None;
            for &r in alts {
                let elems = &self.rules[r as usize].elems;
                let mut predict = self.first_of(elems);
                if self.nullable_of(elems) {
                    if let Some(other) = empty_owner {
                        let why = "both derive the empty string".to_string();
                        return Err(conflict(self, a, other, r, why));
                    }
                    empty_owner = Some(r);
                    predict.union(&follow[a]);
                }
                let looks = (0..=255u8)
                    .filter(|&b| predict.contains(b))
                    .map(usize::from)
                    .chain(predict.end.then_some(END));
                for look in looks {
                    if owner[look] != u32::MAX {
                        let shown = u8::try_from(look).ok();
                        let why = format!("{} can come first in both", fmt_look(shown));
                        return Err(conflict(self, a, owner[look], r, why));
                    }
                    owner[look] = r;
                }
            }
            // The alternative a byte selects when it starts a non-empty derivation.
            let mut by_first = vec![u32::MAX; 256];
            for &r in alts {
                let first = self.first_of(&self.rules[r as usize].elems);
                for b in 0..=255u8 {
                    if first.contains(b) {
                        by_first[usize::from(b)] = r;
                    }
                }
            }
            choice.push(by_first);
        }
        self.choice = choice;
        Ok(())
    }

    /// The alternative of `nt` whose derivations can start with byte `b`, if any.
    pub fn choice(&self, nt: u32, b: u8) -> Option<usize> {
        let r = self.choice[nt as usize][usize::from(b)];
        (r != u32::MAX).then_some(r as usize)
    }
}
