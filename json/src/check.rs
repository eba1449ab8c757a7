//! Languages as byte DFAs: the generated regex text is compiled (with the automata built
//! so far spliced in by `(?P<AUTOMATON>N)`), combined with fstc-core's `Algebra`, and the
//! result re-enters regex text as a new `(?P<AUTOMATON>N)`. This is how `allOf`, `not`,
//! `if`/`then`/`else`, `contains`, property counts and pattern-matched names are exact.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex, OnceLock};

use fstc_core::bytes::{Algebra, ByteDfa, DEFAULT_DFA_STATE_LIMIT};

use fstc_regex::RegexBuilder;

use crate::error::JsonSchemaError;
use crate::lang::Lang;

/// The automata that generated regex text refers to, and the state limit of each step.
#[derive(Clone, Debug)]
pub(crate) struct Automata {
    pub(crate) list: Vec<Arc<ByteDfa>>,
    limit: usize,
    /// The `(?P<AUTOMATON>N)` text of each fixed regex spliced so far (see
    /// [`Automata::fixed`]), so that repeated uses share one entry of `list`.
    fixed: HashMap<String, String>,
}

/// The minimized DFAs of fixed regexes (the `format` grammars), built once per process:
/// RFC 3986 `uri` with its IPv6 forms takes ~1 ms to compile from text, more than the rest
/// of a typical schema, and is the same text in every schema that uses it.
fn fixed_dfas() -> &'static Mutex<HashMap<String, Arc<ByteDfa>>> {
    static DFAS: OnceLock<Mutex<HashMap<String, Arc<ByteDfa>>>> = OnceLock::new();
    DFAS.get_or_init(Mutex::default)
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
            fixed: HashMap::new(),
        }
    }

    /// `regex`, a fixed regex without spliced automata (a `format` grammar), as the
    /// text of its minimized DFA, built once per process and spliced once per schema: the
    /// same language, without compiling the regex text again. Falls back to `regex`
    /// itself when its DFA does not fit the state limit (so the limit is reported as
    /// before) or does not compile (the error then comes from the schema's own build).
    pub(crate) fn fixed(&mut self, regex: &str) -> String {
        if let Some(text) = self.fixed.get(regex) {
            return text.clone();
        }
        let dfa = {
            // A poisoned lock only means another thread panicked mid-insert; the map
            // holds complete entries only.
            let mut cache = fixed_dfas().lock().unwrap_or_else(|e| e.into_inner());
            match cache.get(regex) {
                Some(dfa) => Some(Arc::clone(dfa)),
                None => match fstc_regex::byte_dfa(regex, DEFAULT_DFA_STATE_LIMIT) {
                    Ok(dfa) => {
                        let dfa = Arc::new(dfa);
                        cache.insert(regex.to_string(), Arc::clone(&dfa));
                        Some(dfa)
                    }
                    Err(_) => None,
                },
            }
        };
        let text = match dfa {
            Some(dfa) if !dfa.is_empty() && dfa.num_states() <= self.limit => {
                self.list.push(dfa);
                format!("(?P<AUTOMATON>{})", self.list.len() - 1)
            }
            _ => regex.to_string(),
        };
        self.fixed.insert(regex.to_string(), text.clone());
        text
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::{body_regex, Format};

    /// The fixed regexes the translator splices: the unbounded string body and the
    /// format grammars (the IRI forms aside: their Unicode classes are slow in debug).
    fn fixed_regexes() -> Vec<String> {
        use crate::config::Escapes;
        let mut out: Vec<String> = [Escapes::Canonical, Escapes::Any]
            .into_iter()
            .map(|e| format!("(?:{}){{2,}}", crate::strings::any_char(e)))
            .collect();
        for name in ["date-time", "duration", "ipv6", "hostname", "email", "uri"] {
            match body_regex(name) {
                Format::Exact(regexes) => out.extend(regexes),
                _ => panic!("{name} is enforced"),
            }
        }
        out
    }

    /// Spliced as its automaton, a fixed regex keeps its language: the minimized DFAs of a
    /// pattern around it (canonical, so equal exactly when the languages are) are equal,
    /// and a second use shares the first one's automaton.
    #[test]
    fn fixed_regexes_keep_their_language() {
        for regex in fixed_regexes() {
            let mut automata = Automata::new(10_000);
            let spliced = automata.fixed(&regex);
            assert_eq!(spliced, "(?P<AUTOMATON>0)", "{regex}");
            assert_eq!(automata.fixed(&regex), spliced);
            assert_eq!(automata.list.len(), 1);
            let around = |body: &str| format!("\"{body}\"(?:,\"{body}\")*");
            let expected = automata.dfa(&around(&regex)).unwrap();
            assert_eq!(
                automata.dfa(&around(&spliced)).unwrap(),
                expected,
                "{regex}"
            );
        }
    }

    /// Under a state limit its automaton exceeds, or for text that does not compile, the
    /// regex stays text, so the schema's own build reports the error as before.
    #[test]
    fn fixed_regexes_past_the_limit_stay_text() {
        let uri = fixed_regexes().pop().unwrap();
        let mut automata = Automata::new(20);
        assert_eq!(automata.fixed(&uri), uri);
        assert!(automata.list.is_empty());
        assert!(automata.dfa(&uri).is_err());
        let mut automata = Automata::new(10_000);
        assert_eq!(automata.fixed("(unclosed"), "(unclosed");
        assert!(automata.list.is_empty());
    }
}
