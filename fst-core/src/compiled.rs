//! What every compiler returns: [`Compiled`], the automaton with what the compile measured
//! ([`CompileStats`]) and what it left out ([`Warning`]). One type for the regex, JSON
//! Schema and grammar front ends, so tools print and test their results one way.

use std::fmt;
use std::time::{Duration, Instant};

use crate::automaton::TokenAutomaton;
use crate::vocab::{TokenVocabulary, VocabTrie};

/// A compiled constraint: the automaton `A` (a `TokenAutomaton`, a `TokenPda` or its
/// parts, a `LazyAutomaton`), the phases and sizes of the compile, and the constructs the
/// automaton does not enforce.
#[derive(Clone, Debug)]
pub struct Compiled<A> {
    /// The automaton.
    pub automaton: A,
    /// Phase timings and sizes, covering the whole compile.
    pub stats: CompileStats,
    /// Constructs left out (only under a lenient option, e.g. JSON Schema's `lenient`).
    pub warnings: Vec<Warning>,
}

impl<A> Compiled<A> {
    /// What `with_trie` compiles over `vocab`'s trie, the trie built first and timed as a
    /// phase of its own: every front end's `compile` beside its `compile_with_trie`.
    pub fn over_vocab_trie<V, E>(
        vocab: &V,
        with_trie: impl FnOnce(&VocabTrie) -> Result<Compiled<A>, E>,
    ) -> Result<Compiled<A>, E>
    where
        V: TokenVocabulary + ?Sized,
    {
        let mut stats = CompileStats::new();
        let trie = stats.time("vocabulary trie", || VocabTrie::new(vocab));
        let mut compiled = with_trie(&trie)?;
        stats.extend(compiled.stats);
        compiled.stats = stats;
        Ok(compiled)
    }

    /// `automaton` with its stats and no warnings.
    pub fn new(automaton: A, stats: CompileStats) -> Compiled<A> {
        Compiled {
            automaton,
            stats,
            warnings: Vec::new(),
        }
    }

    /// The same compile with its automaton turned into another form (e.g. an `AnyAutomaton`).
    pub fn map<B>(self, f: impl FnOnce(A) -> B) -> Compiled<B> {
        Compiled {
            automaton: f(self.automaton),
            stats: self.stats,
            warnings: self.warnings,
        }
    }

    /// [`Compiled::map`] where the new form may not exist (a token FSA asked of an
    /// `AnyAutomaton` that holds a PDA): `f`'s error then.
    pub fn try_map<B, E>(self, f: impl FnOnce(A) -> Result<B, E>) -> Result<Compiled<B>, E> {
        Ok(Compiled {
            automaton: f(self.automaton)?,
            stats: self.stats,
            warnings: self.warnings,
        })
    }
}

/// What a compile measured: its phases in the order they ran, each with its duration, and
/// named sizes of what it built (states, edges, bytes...).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CompileStats {
    phases: Vec<(&'static str, Duration)>,
    counts: Vec<(&'static str, usize)>,
}

impl CompileStats {
    /// No phases, no counts.
    pub fn new() -> CompileStats {
        CompileStats::default()
    }

    /// Runs `f` as the phase `name` and records how long it took.
    pub fn time<T>(&mut self, name: &'static str, f: impl FnOnce() -> T) -> T {
        let started = Instant::now();
        let out = f();
        self.phases.push((name, started.elapsed()));
        out
    }

    /// Records the phase `name` as having taken `took` (for a phase timed in parts).
    pub fn record(&mut self, name: &'static str, took: Duration) {
        self.phases.push((name, took));
    }

    /// Records the size `name` (replacing an earlier value of that name).
    pub fn set_count(&mut self, name: &'static str, value: usize) {
        match self.counts.iter_mut().find(|(n, _)| *n == name) {
            Some(slot) => slot.1 = value,
            None => self.counts.push((name, value)),
        }
    }

    /// Records the sizes of a laid-out token automaton: states, accepting states, edges
    /// (class edges expanded, terminal edges included) and file bytes.
    pub fn count_automaton<W: AsRef<[u32]>>(&mut self, automaton: &TokenAutomaton<W>) {
        self.set_count("states", automaton.num_states() as usize);
        self.set_count("accepting states", automaton.num_accepting() as usize);
        self.set_count("edges", automaton.num_edges() as usize);
        self.set_count("bytes", automaton.as_words().len() * 4);
    }

    /// Appends the phases of `later` (a step run after this one's) and takes its sizes.
    pub fn extend(&mut self, later: CompileStats) {
        self.phases.extend(later.phases);
        for (name, value) in later.counts {
            self.set_count(name, value);
        }
    }

    /// Renames the sizes through `rename` (a step's sizes kept beside its result's,
    /// e.g. a grammar's nodes beside those of its intersection).
    pub fn rename_counts(&mut self, rename: impl Fn(&'static str) -> &'static str) {
        for (name, _) in &mut self.counts {
            *name = rename(name);
        }
    }

    /// The phases in the order they ran.
    pub fn phases(&self) -> &[(&'static str, Duration)] {
        &self.phases
    }

    /// The sizes in the order they were recorded.
    pub fn counts(&self) -> &[(&'static str, usize)] {
        &self.counts
    }

    /// The duration of the phase `name` (summed if it ran more than once).
    pub fn phase(&self, name: &str) -> Option<Duration> {
        let mut times = self.phases.iter().filter(|(n, _)| *n == name).peekable();
        times.peek()?;
        Some(times.map(|&(_, d)| d).sum())
    }

    /// The size `name`.
    pub fn count(&self, name: &str) -> Option<usize> {
        self.counts
            .iter()
            .find(|(n, _)| *n == name)
            .map(|&(_, v)| v)
    }

    /// The time of every phase together: the whole compile.
    pub fn total(&self) -> Duration {
        self.phases.iter().map(|&(_, d)| d).sum()
    }
}

/// Two lines: `compile: <total> ms (<phase> <ms> ms, ...)` and the sizes, `<value> <name>`
/// separated by commas, as `fstc compile --stats` prints them.
impl fmt::Display for CompileStats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        write!(f, "compile: {:.1} ms (", ms(self.total()))?;
        for (i, (name, time)) in self.phases.iter().enumerate() {
            let sep = if i == 0 { "" } else { ", " };
            write!(f, "{sep}{name} {:.1} ms", ms(*time))?;
        }
        f.write_str(")\nsizes: ")?;
        for (i, (name, value)) in self.counts.iter().enumerate() {
            let sep = if i == 0 { "" } else { ", " };
            write!(f, "{sep}{value} {name}")?;
        }
        Ok(())
    }
}

/// A construct of the source the automaton does not enforce: today a JSON Schema keyword
/// left out under `lenient`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Warning {
    /// JSON pointer of the source object holding the construct (`""` is the root).
    pub pointer: String,
    /// The construct (a schema keyword).
    pub keyword: String,
    /// Why it is not enforced.
    pub message: String,
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = if self.pointer.is_empty() {
            "the root (#)".to_string()
        } else {
            format!("#{}", self.pointer)
        };
        write!(
            f,
            "`{}` at {at} not enforced: {}",
            self.keyword, self.message
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phases_add_up_and_print_in_order() {
        let mut stats = CompileStats::new();
        let x = stats.time("parse", || 2 + 2);
        stats.time("build", || std::thread::sleep(Duration::from_millis(2)));
        stats.set_count("states", 7);
        stats.set_count("edges", 9);
        stats.set_count("states", 8);
        assert_eq!(stats.count("edges"), Some(9));
        assert_eq!(x, 4);
        let names: Vec<_> = stats.phases().iter().map(|&(n, _)| n).collect();
        assert_eq!(names, ["parse", "build"]);
        assert!(stats.phase("build").unwrap() >= Duration::from_millis(2));
        assert_eq!(stats.phase("missing"), None);
        assert_eq!(
            stats.total(),
            stats.phase("parse").unwrap() + stats.phase("build").unwrap()
        );
        assert_eq!(stats.counts(), [("states", 8), ("edges", 9)]);
        let text = stats.to_string();
        assert!(text.starts_with("compile: "), "{text}");
        assert!(text.contains(" ms (parse "), "{text}");
        assert!(text.contains(", build "), "{text}");
        assert!(text.ends_with("\nsizes: 8 states, 9 edges"), "{text}");
    }
}
