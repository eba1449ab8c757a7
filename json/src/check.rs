//! Languages as byte DFAs: the generated regex text is compiled (with the automata built
//! so far spliced in by `(?P<AUTOMATON>N)`), combined with fstc-core's `Algebra`, and the
//! result re-enters regex text as a new `(?P<AUTOMATON>N)`. This is how `allOf`, `not`,
//! `if`/`then`/`else`, `contains`, property counts and pattern-matched names are exact.

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex, OnceLock};

use fstc_core::bytes::{Algebra, ByteDfa, DEFAULT_DFA_STATE_LIMIT};

use fstc_regex::RegexBuilder;

use crate::budget::Budget;
use crate::error::JsonSchemaError;
use crate::lang::Lang;

/// The automata that generated regex text refers to, and the state limit of each step.
#[derive(Clone, Debug)]
pub(crate) struct Automata {
    pub(crate) list: Vec<Arc<ByteDfa>>,
    limit: usize,
    /// The `(?P<AUTOMATON>N)` text of each fixed regex spliced so far (see
    /// [`Automata::fixed`]), so that repeated uses share one entry of `list`.
    fixed: HashMap<String, Option<String>>,
    /// The machines of the call network: sub-schema texts that other texts call with
    /// `(?P<CALL>N)` instead of repeating them ([`Automata::call`]).
    pub(crate) machines: Vec<String>,
    /// The JSON pointer of the sub-schema each machine was first made for.
    pub(crate) machine_pointers: Vec<String>,
    machine_ids: HashMap<String, u32>,
    /// Each machine's text with every call inlined, once asked for.
    inlined: RefCell<Vec<Option<Arc<str>>>>,
    /// The DFAs of texts compiled so far, and the results of intersections and
    /// differences, by their operands' texts: a sub-schema used in several places is
    /// translated again at each, and would otherwise compile the same texts again.
    dfas: RefCell<HashMap<String, Arc<ByteDfa>>>,
    results: HashMap<(bool, Vec<String>), Lang>,
    /// The spliced text of each string body built from a pattern, by the pattern and
    /// its encoding: a sub-schema translated again (in each branch an object was
    /// distributed into) would otherwise splice a new copy, and every text around it
    /// would differ from the last and be compiled again.
    bodies: HashMap<String, String>,
    /// The compile's time and memory budgets.
    pub(crate) budget: Budget,
}

/// Texts shorter than this are written in place rather than called: a machine costs a
/// compile of its own, and short texts are repeated cheaply.
const MIN_CALLED_TEXT: usize = 96;

/// How a call is written in regex text.
const CALL_OPEN: &str = "(?P<CALL>";

/// The minimized DFAs of fixed regexes (the `format` grammars), built once per process:
/// RFC 3986 `uri` with its IPv6 forms takes ~1 ms to compile from text, more than the rest
/// of a typical schema, and is the same text in every schema that uses it.
fn fixed_dfas() -> &'static Mutex<HashMap<String, Arc<ByteDfa>>> {
    static DFAS: OnceLock<Mutex<HashMap<String, Arc<ByteDfa>>>> = OnceLock::new();
    DFAS.get_or_init(Mutex::default)
}

/// The process's DFA for `key`, built by `build` the first time (a failed build is not
/// remembered: it is retried, and is as cheap to fail again as the first time). The build
/// runs without the lock, so a compile on another thread never waits for it (`email`'s
/// pieces take ~100 ms); two threads that both build the same key keep the first.
fn shared_fixed(key: &str, build: impl FnOnce() -> Option<ByteDfa>) -> Option<Arc<ByteDfa>> {
    // A poisoned lock only means another thread panicked mid-insert; the map holds
    // complete entries only.
    let cache = || fixed_dfas().lock().unwrap_or_else(|e| e.into_inner());
    if let Some(dfa) = cache().get(key) {
        return Some(Arc::clone(dfa));
    }
    let dfa = Arc::new(build()?);
    Some(Arc::clone(cache().entry(key.to_string()).or_insert(dfa)))
}

/// `k` when `text` is exactly `(?P<AUTOMATON>k)`.
fn spliced_index(text: &str) -> Option<usize> {
    let k = text.strip_prefix(SPLICE_OPEN)?.strip_suffix(')')?;
    k.parse().ok()
}

/// The offset of the first `open` in `text` not escaped by a backslash.
fn find_group(text: &str, open: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(i) = text[from..].find(open) {
        let at = from + i;
        let backslashes = text[..at].bytes().rev().take_while(|&b| b == b'\\').count();
        if backslashes % 2 == 0 {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

/// `text` with every group `open` N `)` the translation wrote (a call or a splice)
/// replaced by `with(N)`.
fn replace_groups<E>(
    text: &str,
    open: &str,
    mut with: impl FnMut(usize) -> Result<String, E>,
) -> Result<String, E> {
    let mut out = String::with_capacity(text.len());
    let rest = each_group(text, open, |plain, n| {
        out.push_str(plain);
        out.push_str(&with(n)?);
        Ok(())
    })?;
    out.push_str(rest);
    Ok(out)
}

/// Calls `each(text before it, N)` for every group `open` N `)` of `text` in order;
/// returns the text after the last.
fn each_group<'t, E>(
    text: &'t str,
    open: &str,
    mut each: impl FnMut(&'t str, usize) -> Result<(), E>,
) -> Result<&'t str, E> {
    let mut rest = text;
    while let Some(at) = find_group(rest, open) {
        let after = &rest[at + open.len()..];
        let end = after.find(')').expect("a group is written `(?P<NAME>N)`");
        let n: usize = after[..end].parse().expect("a group names a number");
        each(&rest[..at], n)?;
        rest = &after[end + 1..];
    }
    Ok(rest)
}

/// Bytes held per byte of a flat regex while it is written: each machine's inlined text
/// is kept for its other callers, and a `String` grows by doubling.
const INLINED_BYTES_PER_BYTE: usize = 4;

/// How a spliced automaton is written in regex text.
const SPLICE_OPEN: &str = "(?P<AUTOMATON>";

impl Automata {
    /// Automata with the state limit `limit` and the default budgets.
    #[cfg(test)]
    pub(crate) fn new(limit: usize) -> Automata {
        use crate::config::Config;
        let budget = Budget::new(Config::DEFAULT_TIME_BUDGET, Config::DEFAULT_MEMORY_BUDGET);
        Automata::with_budget(limit, budget)
    }

    pub(crate) fn with_budget(limit: usize, budget: Budget) -> Automata {
        Automata {
            list: Vec::new(),
            limit,
            fixed: HashMap::new(),
            machines: Vec::new(),
            machine_pointers: Vec::new(),
            machine_ids: HashMap::new(),
            inlined: RefCell::new(Vec::new()),
            dfas: RefCell::new(HashMap::new()),
            results: HashMap::new(),
            bodies: HashMap::new(),
            budget,
        }
    }

    /// `text` as a call of the machine of that text (made now if it is new), or `text`
    /// itself when it is short. Equal sub-schemas translate to equal texts, so each is
    /// one machine however often it is used.
    pub(crate) fn call(&mut self, text: String, pointer: &str) -> String {
        if text.len() < MIN_CALLED_TEXT {
            return text;
        }
        let next = self.machines.len() as u32;
        let id = match self.machine_ids.get(&text) {
            Some(&id) => id,
            None => {
                // Held twice: the machine's text and its key.
                self.budget.hold(2 * text.len());
                self.machine_ids.insert(text.clone(), next);
                self.machines.push(text);
                self.machine_pointers.push(pointer.to_string());
                self.inlined.borrow_mut().push(None);
                next
            }
        };
        format!("{CALL_OPEN}{id})")
    }

    /// `text` with every call replaced by the callee's text, recursively: the flat regex
    /// of the same language, for the eager path and for engines that read plain regexes.
    pub(crate) fn inline<'t>(&self, text: &'t str) -> Cow<'t, str> {
        if !text.contains(CALL_OPEN) {
            return Cow::Borrowed(text);
        }
        // The caller wrote the call where the callee's text stood: substituting it back
        // gives exactly the text the translation would have written inline.
        let inlined = replace_groups(text, CALL_OPEN, |id| {
            Ok::<_, std::convert::Infallible>(self.inlined_machine(id).to_string())
        });
        Cow::Owned(inlined.unwrap_or_else(|never| match never {}))
    }

    /// `text` with every spliced automaton `(?P<AUTOMATON>k)` written as a call of machine
    /// `ids(k)` instead, so that a call network uses the automaton as a machine of its own
    /// rather than copying it into each machine that splices it.
    pub(crate) fn splices_as_calls(&self, text: &str, mut ids: impl FnMut(usize) -> u32) -> String {
        let calls = replace_groups(text, SPLICE_OPEN, |k| {
            Ok::<_, std::convert::Infallible>(format!("{CALL_OPEN}{})", ids(k)))
        });
        calls.unwrap_or_else(|never| match never {})
    }

    /// [`Automata::inline`], refused with the memory budget's error when the flat text
    /// would pass what is left of it (measured before it is written): a sub-schema called
    /// twice by its caller is copied twice, so the flat text may double with each level
    /// of nesting while the translation stays linear.
    pub(crate) fn inline_within<'t>(&self, text: &'t str) -> Result<Cow<'t, str>, JsonSchemaError> {
        let len = self.inlined_len(text);
        self.budget
            .hold_flat(len, len.saturating_mul(INLINED_BYTES_PER_BYTE))?;
        Ok(self.inline(text))
    }

    /// The length of `text` with every call inlined, without writing it: each machine's
    /// from its callees' (smaller ids), in id order, saturating.
    fn inlined_len(&self, text: &str) -> usize {
        let mut lens: Vec<usize> = Vec::with_capacity(self.machines.len());
        let flat_len = |text: &str, lens: &[usize]| {
            let mut total = 0usize;
            let rest = each_group(text, CALL_OPEN, |plain, id| {
                total = total.saturating_add(plain.len()).saturating_add(lens[id]);
                Ok::<_, std::convert::Infallible>(())
            });
            let rest = rest.unwrap_or_else(|never| match never {});
            total.saturating_add(rest.len())
        };
        for machine in &self.machines {
            let len = flat_len(machine, &lens);
            lens.push(len);
        }
        flat_len(text, &lens)
    }

    fn inlined_machine(&self, id: usize) -> Arc<str> {
        if let Some(text) = &self.inlined.borrow()[id] {
            return Arc::clone(text);
        }
        // Callees have smaller ids than their callers, so this recursion is bounded by
        // the nesting of the schema, as the translation that made the texts was.
        let text: Arc<str> = Arc::from(self.inline(&self.machines[id]).as_ref());
        self.inlined.borrow_mut()[id] = Some(Arc::clone(&text));
        text
    }

    /// `regex`, a fixed regex without spliced automata (a `format` grammar), as the
    /// text of its minimized DFA, built once per process and spliced once per schema: the
    /// same language, without compiling the regex text again. Falls back to `regex`
    /// itself when its DFA does not fit the state limit (so the limit is reported as
    /// before) or does not compile (the error then comes from the schema's own build).
    pub(crate) fn fixed(&mut self, regex: &str) -> String {
        let shared = shared_fixed(regex, || {
            fstc_regex::byte_dfa(regex, DEFAULT_DFA_STATE_LIMIT).ok()
        });
        self.fixed_text(regex, shared)
            .unwrap_or_else(|| regex.to_string())
    }

    /// The intersection of fixed regexes (the pieces of a `format` grammar) as the text of
    /// its DFA, built once per process like [`Automata::fixed`]: a schema with `format:
    /// uri` otherwise intersects the pieces again in every compile. `None` where it does
    /// not fit the state limit (the caller then intersects the pieces itself).
    pub(crate) fn fixed_all(&mut self, regexes: &[String]) -> Option<String> {
        if let [one] = regexes {
            return Some(self.fixed(one));
        }
        // Joined by a NUL, which no format regex holds.
        let key = regexes.join("\0");
        // The compile's limit bounds the product (email's pieces pass 10,000 states before
        // they minimize to 2,411); what fits is shared with every later compile.
        let limit = self.limit.max(DEFAULT_DFA_STATE_LIMIT);
        let shared = shared_fixed(&key, || {
            let mut algebra = Algebra::new();
            algebra.state_limit(limit);
            let mut pieces = regexes
                .iter()
                .map(|r| fstc_regex::byte_dfa(r, DEFAULT_DFA_STATE_LIMIT).ok());
            let mut acc = pieces.next()??;
            for piece in pieces {
                acc = algebra.intersect(&acc, &piece?).ok()?;
            }
            Some(acc)
        });
        self.fixed_text(&key, shared)
    }

    /// The text splicing `dfa` (remembered for `key` in this compile), `None` when there
    /// is none or it does not fit the state limit.
    fn fixed_text(&mut self, key: &str, dfa: Option<Arc<ByteDfa>>) -> Option<String> {
        if let Some(text) = self.fixed.get(key) {
            return text.clone();
        }
        let text = match dfa {
            Some(dfa) if !dfa.is_empty() && dfa.num_states() <= self.limit => {
                self.list.push(dfa);
                Some(format!("{SPLICE_OPEN}{})", self.list.len() - 1))
            }
            _ => None,
        };
        self.fixed.insert(key.to_string(), text.clone());
        text
    }

    /// The text `build` splices for `key`, built once per compile.
    pub(crate) fn body(
        &mut self,
        key: String,
        build: impl FnOnce(&mut Automata) -> Result<String, String>,
    ) -> Result<String, String> {
        if let Some(text) = self.bodies.get(&key) {
            return Ok(text.clone());
        }
        let text = build(self)?;
        self.bodies.insert(key, text.clone());
        Ok(text)
    }

    /// The state limit of each step.
    pub(crate) fn limit(&self) -> usize {
        self.limit
    }

    /// The DFA of generated regex text, compiled once per text. A call becomes the
    /// callee's own DFA spliced in (built once per machine), so a text is parsed once
    /// however many sub-schemas use it.
    pub(crate) fn dfa(&self, regex: &str) -> Result<Arc<ByteDfa>, JsonSchemaError> {
        if let Some(dfa) = self.dfas.borrow().get(regex) {
            return Ok(Arc::clone(dfa));
        }
        // A text that is one spliced automaton is that automaton.
        if let Some(k) = spliced_index(regex) {
            return Ok(Arc::clone(&self.list[k]));
        }
        let mut automata = self.list.clone();
        let text = replace_groups(regex, CALL_OPEN, |id| {
            automata.push(self.dfa(&self.machines[id])?);
            Ok::<_, JsonSchemaError>(format!("{SPLICE_OPEN}{})", automata.len() - 1))
        })?;
        let dfa = match spliced_index(&text) {
            // A text that is one call is the callee's automaton (not built again).
            Some(k) => Arc::clone(&automata[k]),
            None => {
                let dfa = RegexBuilder::new()
                    .state_limit(self.limit)
                    .deadline(self.budget.deadline())
                    .automata(automata)
                    .build(&text)
                    .map_err(|e| self.budget.build_failed("a sub-schema's automaton", e))?;
                self.budget.charge(&dfa)?;
                Arc::new(dfa)
            }
        };
        self.dfas
            .borrow_mut()
            .insert(regex.to_string(), Arc::clone(&dfa));
        Ok(dfa)
    }

    fn algebra(&self) -> Algebra {
        let mut algebra = Algebra::new();
        algebra
            .state_limit(self.limit)
            .deadline(self.budget.deadline());
        algebra
    }

    /// `dfa` as regex text (`None` when its language is empty).
    pub(crate) fn splice(&mut self, dfa: ByteDfa) -> Lang {
        self.splice_shared(Arc::new(dfa))
    }

    fn splice_shared(&mut self, dfa: Arc<ByteDfa>) -> Lang {
        if dfa.is_empty() {
            return None;
        }
        self.list.push(dfa);
        Some(format!("{SPLICE_OPEN}{})", self.list.len() - 1))
    }

    /// The texts of every language (`None` when one is empty or there are none).
    pub(crate) fn intersect(&mut self, langs: &[String]) -> Result<Lang, JsonSchemaError> {
        match langs {
            [] => return Ok(None),
            [one] => return Ok(Some(one.clone())),
            _ => {}
        }
        let key = (true, langs.to_vec());
        if let Some(done) = self.results.get(&key) {
            return Ok(done.clone());
        }
        let mut acc = self.dfa(&langs[0])?;
        for lang in &langs[1..] {
            let next = self.dfa(lang)?;
            let both = self
                .algebra()
                .intersect(&acc, &next)
                .map_err(|e| self.budget.build_failed("an intersection (allOf)", e))?;
            self.budget.charge(&both)?;
            acc = Arc::new(both);
            if acc.is_empty() {
                self.results.insert(key, None);
                return Ok(None);
            }
        }
        let lang = self.splice_shared(acc);
        self.results.insert(key, lang.clone());
        Ok(lang)
    }

    /// The texts of `a` not in `b`.
    pub(crate) fn difference(&mut self, a: &str, b: Lang) -> Result<Lang, JsonSchemaError> {
        let Some(b) = b else {
            return Ok(Some(a.to_string()));
        };
        let key = (false, vec![a.to_string(), b]);
        if let Some(done) = self.results.get(&key) {
            return Ok(done.clone());
        }
        let (x, y) = (self.dfa(a)?, self.dfa(&key.1[1])?);
        let d = self.algebra().difference(&x, &y).map_err(|e| {
            self.budget
                .build_failed("a difference (not, else, oneOf)", e)
        })?;
        self.budget.charge(&d)?;
        let lang = self.splice(d);
        self.results.insert(key, lang.clone());
        Ok(lang)
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
