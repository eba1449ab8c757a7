//! Languages as byte DFAs: the generated regex text is compiled (with the automata built
//! so far spliced in by `(?P<AUTOMATON>N)`), combined with fst-core's `Algebra`, and the
//! result re-enters regex text as a new `(?P<AUTOMATON>N)`. This is how `allOf`, `not`,
//! `if`/`then`/`else`, `contains`, property counts and pattern-matched names are exact.

use std::collections::{HashSet, VecDeque};
use std::sync::Arc;

use fst_core::regex::{Algebra, ByteDfa, RegexBuilder};

use crate::error::JsonSchemaError;
use crate::lang::Lang;

/// The automata that generated regex text refers to, and the state limit of each step.
#[derive(Clone, Debug)]
pub(crate) struct Automata {
    pub(crate) list: Vec<Arc<ByteDfa>>,
    limit: usize,
}

fn failed(what: &str, e: impl std::fmt::Display) -> JsonSchemaError {
    let short: String = e.to_string().chars().take(300).collect();
    JsonSchemaError::other(format!("{what} could not be built: {short}"))
}

impl Automata {
    pub(crate) fn new(limit: usize) -> Automata {
        Automata {
            list: Vec::new(),
            limit,
        }
    }

    /// The state limit of each step.
    pub(crate) fn limit(&self) -> usize {
        self.limit
    }

    /// The DFA of generated regex text.
    pub(crate) fn dfa(&self, regex: &str) -> Result<ByteDfa, JsonSchemaError> {
        RegexBuilder::new()
            .state_limit(self.limit)
            .automata(self.list.clone())
            .build(regex)
            .map_err(|e| failed("a sub-schema's automaton", e))
    }

    fn algebra(&self) -> Algebra {
        let mut algebra = Algebra::new();
        algebra.state_limit(self.limit);
        algebra
    }

    /// `dfa` as regex text (`None` when its language is empty).
    pub(crate) fn splice(&mut self, dfa: ByteDfa) -> Lang {
        if dfa.is_empty() {
            return None;
        }
        self.list.push(Arc::new(dfa));
        Some(format!("(?P<AUTOMATON>{})", self.list.len() - 1))
    }

    /// The texts of every language (`None` when one is empty or there are none).
    pub(crate) fn intersect(&mut self, langs: &[String]) -> Result<Lang, JsonSchemaError> {
        match langs {
            [] => return Ok(None),
            [one] => return Ok(Some(one.clone())),
            _ => {}
        }
        let mut acc = self.dfa(&langs[0])?;
        for lang in &langs[1..] {
            let next = self.dfa(lang)?;
            acc = self
                .algebra()
                .intersect(&acc, &next)
                .map_err(|e| failed("an intersection (allOf)", e))?;
            if acc.is_empty() {
                return Ok(None);
            }
        }
        Ok(self.splice(acc))
    }

    /// The texts of `a` not in `b`.
    pub(crate) fn difference(&mut self, a: &str, b: Lang) -> Result<Lang, JsonSchemaError> {
        let Some(b) = b else {
            return Ok(Some(a.to_string()));
        };
        let (a, b) = (self.dfa(a)?, self.dfa(&b)?);
        let d = self
            .algebra()
            .difference(&a, &b)
            .map_err(|e| failed("a difference (not, else, oneOf)", e))?;
        Ok(self.splice(d))
    }

    /// Whether no text matches both regexes: a breadth-first search of the product DFA
    /// for a pair of accepting states.
    pub(crate) fn disjoint(&self, a: &str, b: &str) -> Result<bool, JsonSchemaError> {
        let (a, b) = (self.dfa(a)?, self.dfa(b)?);
        let mut seen = HashSet::from([(a.start(), b.start())]);
        let mut queue = VecDeque::from([(a.start(), b.start())]);
        while let Some((s, t)) = queue.pop_front() {
            if a.is_accepting(s) && b.is_accepting(t) {
                return Ok(false);
            }
            for byte in 0..=255u8 {
                if let (Some(s2), Some(t2)) = (a.next(s, byte), b.next(t, byte)) {
                    if seen.insert((s2, t2)) {
                        queue.push_back((s2, t2));
                    }
                }
            }
        }
        Ok(true)
    }

    /// The texts that `regex` matches, in order.
    pub(crate) fn filter_matching(
        &self,
        regex: &str,
        texts: Vec<String>,
    ) -> Result<Vec<String>, JsonSchemaError> {
        let dfa = self.dfa(regex)?;
        Ok(texts
            .into_iter()
            .filter(|t| dfa.is_match(t.as_bytes()))
            .collect())
    }
}
