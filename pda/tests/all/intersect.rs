//! A token PDA intersected with a token FSA (`TokenAlgebra::intersect_pda`), against
//! oracles that share no code with it: the Earley recognizer and the `regex` crate on
//! texts, the grammar's own token PDA and the FSA walked side by side on token sequences,
//! and, for dead ends, an exhaustive search of what both operands can still finish.

use std::collections::{HashMap, HashSet};

use fstc_core::automaton::TokenAutomaton;
use fstc_core::ops::{at_most_tokens, token_bound, TokenAlgebra};
use fstc_core::sample::SplitMix64;
use fstc_core::token_pda::TokenPda;
use fstc_core::{ByteVocabulary, TokenVocabulary};
use fstc_regex::RegexCompiler;

use crate::common::{random_tokenization, run_tokens, token_pda, Compiled, RefWalker, Walk};
use crate::earley::Earley;

const BRACKETS: &str = "root ::= item*\nitem ::= \"(\" item* \")\" | \"[\" item* \"]\"\n";

const ARITH: &str = "root ::= expr\nexpr ::= term (\"+\" term)*\nterm ::= factor (\"*\" factor)*\n\
                     factor ::= [0-9]+ | \"(\" expr \")\"\n";

const JSONISH: &str = "root ::= value\n\
    value ::= \"[\" (value (\",\" value)*)? \"]\" | \"{\" (pair (\",\" pair)*)? \"}\" | [0-9]+ | str\n\
    pair ::= str \":\" value\nstr ::= \"\\\"\" [ab]* \"\\\"\"\n";

/// A nondeterministic PDA: which rule a `(` opens is known only at the end.
const EITHER: &str =
    "root ::= x \"a\" | y \"b\"\nx ::= \"(\" x \")\" | \"\"\ny ::= \"(\" y \")\" | \"\"\n";

/// Single bytes of every grammar, and tokens that straddle rule boundaries.
fn vocab() -> ByteVocabulary {
    ByteVocabulary::from_strs(&[
        "(", ")", "[", "]", "{", "}", "0", "1", "2", "+", "*", ",", ":", "\"", "a", "b", "((",
        "))", "()", ")(", "[]", "[(", ")]", "12", "1+", "+(", ")*", "*(", "{\"", "\":", "\",",
        ",\"", "a\"", "[1", "1,", "},", "}]", "\"a",
    ])
}

/// A grammar, a regex and an optional token bound: the FSA is the regex's token FSA,
/// intersected with `max_tokens(n)` when there is a bound.
struct Case {
    grammar: &'static str,
    regex: &'static str,
    bound: Option<usize>,
}

const CASES: &[Case] = &[
    Case {
        grammar: BRACKETS,
        regex: r"(?s:.)*",
        bound: Some(5),
    },
    Case {
        grammar: BRACKETS,
        regex: r"\(.*",
        bound: Some(6),
    },
    Case {
        grammar: BRACKETS,
        regex: r"[^\[\]]*",
        bound: None,
    },
    Case {
        grammar: ARITH,
        regex: r".*\*.*",
        bound: Some(5),
    },
    Case {
        grammar: ARITH,
        regex: r"[0-9(]{1,3}.*",
        bound: None,
    },
    Case {
        grammar: JSONISH,
        regex: r"\[.*",
        bound: Some(5),
    },
    Case {
        grammar: JSONISH,
        regex: r".{0,9}",
        bound: None,
    },
    Case {
        grammar: EITHER,
        regex: r"[^b]*",
        bound: Some(6),
    },
    // A bound alone: `intersect_pda` takes the bounded construction (`bound_pda`).
    Case {
        grammar: ARITH,
        regex: r"(?s:.)*",
        bound: Some(7),
    },
    Case {
        grammar: JSONISH,
        regex: r"(?s:.)*",
        bound: Some(6),
    },
    Case {
        grammar: EITHER,
        regex: r"(?s:.)*",
        bound: Some(7),
    },
];

struct Built {
    grammar: Compiled,
    fsa: TokenAutomaton,
    product: Compiled,
    earley: Earley,
    regex: regex::bytes::Regex,
}

fn build(case: &Case, vocab: &ByteVocabulary) -> Built {
    let grammar = token_pda(case.grammar, vocab);
    let mut fsa = RegexCompiler::new()
        .compile(case.regex, vocab)
        .unwrap()
        .automaton;
    if let Some(n) = case.bound {
        let bound = at_most_tokens(vocab, n).unwrap();
        fsa = TokenAlgebra::new()
            .intersect(&fsa, &bound)
            .unwrap()
            .automaton;
    }
    let product = TokenAlgebra::new()
        .intersect_pda(&grammar.rt, &fsa)
        .unwrap();
    let bounded = product.stats.count("token bound");
    assert_eq!(token_bound(&fsa, &grammar.rt), bounded);
    if case.regex == r"(?s:.)*" {
        assert_eq!(bounded, case.bound, "the bound alone is recognized");
    }
    assert_eq!(
        product.automaton.is_deterministic(),
        grammar.rt.is_deterministic()
    );
    Built {
        product: Compiled::new(product.automaton.to_parts()),
        earley: Earley::new(&fstc_pda::gbnf::parse(case.grammar).unwrap()),
        regex: regex::bytes::Regex::new(&format!("^(?:{})$", case.regex)).unwrap(),
        grammar,
        fsa,
    }
}

fn text_of(vocab: &ByteVocabulary, tokens: &[u32]) -> Vec<u8> {
    tokens
        .iter()
        .flat_map(|&t| vocab.token_bytes(t).unwrap().to_vec())
        .collect()
}

/// What both operands say of a token sequence, from the oracles: the text in the
/// grammar (Earley) and the regex, and within the bound.
fn expected(b: &Built, case: &Case, vocab: &ByteVocabulary, tokens: &[u32]) -> bool {
    let text = text_of(vocab, tokens);
    b.earley.accepts(&text)
        && b.regex.is_match(&text)
        && case.bound.map_or(true, |n| tokens.len() <= n)
}

/// The grammar's longest-match tokenization (the fixture vocabulary's own).
fn greedy(vocab: &ByteVocabulary, text: &[u8]) -> Vec<u32> {
    let mut out = Vec::new();
    let mut pos = 0;
    while pos < text.len() {
        let best = (0..vocab.len() as u32)
            .filter(|&t| {
                vocab
                    .token_bytes(t)
                    .is_some_and(|b| !b.is_empty() && text[pos..].starts_with(b))
            })
            .max_by_key(|&t| vocab.token_bytes(t).unwrap().len())
            .unwrap();
        out.push(best);
        pos += vocab.token_bytes(best).unwrap().len();
    }
    out
}

/// A random walk of `c` to EOS (at most `max` tokens, else `None`), asserting that
/// something is allowed at every step: no dead end on the way.
fn walk(c: &Compiled, rng: &mut SplitMix64, max: usize) -> Option<Vec<u32>> {
    let mut w = c.walker();
    let mut tokens = Vec::new();
    loop {
        let allowed = w.allowed();
        assert!(!allowed.is_empty(), "a dead end after {tokens:?}");
        let eos = c.eos_ids[0];
        let pick = if allowed.contains(&eos) && rng.index(3) == 0 {
            eos
        } else {
            allowed[rng.index(allowed.len())]
        };
        assert!(w.step(pick));
        if pick == eos {
            return Some(tokens);
        }
        tokens.push(pick);
        if tokens.len() > max {
            return None;
        }
    }
}

#[test]
fn random_walks_of_the_product_are_accepted_by_both_operands() {
    let vocab = vocab();
    let mut rng = SplitMix64::new(25);
    assert!(!token_pda(EITHER, &vocab).rt.is_deterministic());
    for case in CASES {
        let b = build(case, &vocab);
        let mut finished = 0;
        for _ in 0..150 {
            let Some(tokens) = walk(&b.product, &mut rng, 40) else {
                continue;
            };
            finished += 1;
            let text = text_of(&vocab, &tokens);
            assert!(
                run_tokens(&b.grammar, 0, &tokens),
                "grammar refuses {text:?}"
            );
            assert!(
                testkit::tokenize::accepts(&b.fsa, &tokens),
                "FSA refuses {text:?}"
            );
            assert!(
                expected(&b, case, &vocab, &tokens),
                "oracles refuse {text:?}"
            );
        }
        assert!(
            finished > 50,
            "{}: only {finished} walks finished",
            case.regex
        );
    }
}

/// Texts of the grammar (random walks of its own PDA) and their one-byte mutations.
fn texts(b: &Built, vocab: &ByteVocabulary, rng: &mut SplitMix64) -> Vec<Vec<u8>> {
    let alphabet = b"()[]{}012+*,:\"ab";
    let mut out = Vec::new();
    while out.len() < 200 {
        let Some(tokens) = walk(&b.grammar, rng, 12) else {
            continue;
        };
        let text = text_of(vocab, &tokens);
        let mut mutant = text.clone();
        match (mutant.is_empty(), rng.index(3)) {
            (true, _) | (_, 0) => {
                mutant.insert(rng.index(mutant.len() + 1), alphabet[rng.index(16)])
            }
            (_, 1) => {
                mutant.remove(rng.index(mutant.len()));
            }
            _ => {
                let i = rng.index(mutant.len());
                mutant[i] = alphabet[rng.index(16)];
            }
        }
        out.push(text);
        out.push(mutant);
    }
    out
}

#[test]
fn texts_are_accepted_by_the_product_exactly_when_both_operands_accept_them() {
    let vocab = vocab();
    let mut rng = SplitMix64::new(13);
    for case in CASES {
        let b = build(case, &vocab);
        let (mut accepted, mut refused) = (0, 0);
        for text in texts(&b, &vocab, &mut rng) {
            let mut tokenizations = vec![greedy(&vocab, &text)];
            tokenizations.extend((0..3).map(|_| random_tokenization(&vocab, &text, &mut rng)));
            for tokens in tokenizations {
                let want = expected(&b, case, &vocab, &tokens);
                let got = run_tokens(&b.product, vocab.len() as u32, &tokens);
                assert_eq!(
                    got,
                    want,
                    "{}: {:?} as {tokens:?}",
                    case.regex,
                    String::from_utf8_lossy(&text)
                );
                if want {
                    accepted += 1
                } else {
                    refused += 1
                }
            }
        }
        assert!(
            accepted > 20 && refused > 20,
            "{}: {accepted} accepted, {refused} refused",
            case.regex
        );
    }
}

/// Both operands walked side by side: the grammar's PDA (reference walker) and the
/// FSA's state.
#[derive(Clone)]
struct Pair<'p> {
    pda: RefWalker<'p>,
    state: Option<u32>,
}

type Key = (Vec<(u32, Vec<u32>)>, Option<u32>);

impl Pair<'_> {
    fn key(&self) -> Key {
        (self.pda.configs().to_vec(), self.state)
    }

    /// The text tokens both allow, and the pair after each.
    fn moves(&self, fsa: &TokenAutomaton, eos: u32) -> Vec<(u32, Self)> {
        let Some(q) = self.state else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for t in self.pda.allowed().into_iter().filter(|&t| t != eos) {
            if let Some(next) = fsa.next_state(q, t) {
                let mut pda = self.pda.clone();
                assert!(pda.step(t));
                out.push((
                    t,
                    Pair {
                        pda,
                        state: Some(next),
                    },
                ));
            }
        }
        out
    }
}

/// Whether both operands can still finish together (both bounded by the FSA's token
/// bound, so the search ends).
fn live(p: &Pair<'_>, fsa: &TokenAutomaton, eos: u32, memo: &mut HashMap<Key, bool>) -> bool {
    if let Some(&v) = memo.get(&p.key()) {
        return v;
    }
    let v = (p.pda.allowed().contains(&eos) && p.state.is_some_and(|q| fsa.is_accepting(q)))
        || p.moves(fsa, eos)
            .iter()
            .any(|(_, next)| live(next, fsa, eos, memo));
    memo.insert(p.key(), v);
    v
}

#[test]
fn the_product_allows_exactly_the_tokens_after_which_both_operands_can_finish() {
    let vocab = vocab();
    for case in CASES.iter().filter(|c| c.bound.is_some()) {
        let b = build(case, &vocab);
        let eos = b.grammar.eos_ids[0];
        let mut memo = HashMap::new();
        let mut seen = HashSet::new();
        let (mut visited, mut naive_dead_ends) = (0, 0);
        let start = Pair {
            pda: RefWalker::new(&b.grammar.parts),
            state: Some(b.fsa.start()),
        };
        let mut stack = vec![(RefWalker::new(&b.product.parts), start)];
        while let Some((product, pair)) = stack.pop() {
            if !seen.insert((product.configs().to_vec(), pair.key())) {
                continue;
            }
            visited += 1;
            let moves = pair.moves(&b.fsa, eos);
            let mut exact: Vec<u32> = moves
                .iter()
                .filter(|(_, next)| live(next, &b.fsa, eos, &mut memo))
                .map(|&(t, _)| t)
                .collect();
            naive_dead_ends += moves.len() - exact.len();
            if pair.pda.allowed().contains(&eos)
                && pair.state.is_some_and(|q| b.fsa.is_accepting(q))
            {
                exact.push(eos);
            }
            exact.sort_unstable();
            assert_eq!(product.allowed(), exact, "{}: after a prefix", case.regex);
            for (t, next) in moves.into_iter().filter(|(t, _)| exact.contains(t)) {
                let mut product = product.clone();
                assert!(product.step(t));
                stack.push((product, next));
            }
        }
        // The plain product would allow these tokens: the check above is not vacuous.
        assert!(naive_dead_ends > 0, "{}: no dead end to remove", case.regex);
        assert!(visited > 20, "{}: {visited} configurations", case.regex);
    }
}

/// Every configuration reachable in both PDAs walked side by side allows the same tokens
/// (EOS included): the two accept the same sequences and neither has a dead end the
/// other lacks. The number of configuration pairs seen.
fn same_moves(a: &Compiled, b: &Compiled) -> usize {
    let mut seen = HashSet::new();
    let mut stack = vec![(RefWalker::new(&a.parts), RefWalker::new(&b.parts))];
    while let Some((x, y)) = stack.pop() {
        if !seen.insert((x.configs().to_vec(), y.configs().to_vec())) {
            continue;
        }
        let allowed = x.allowed();
        assert_eq!(allowed, y.allowed(), "after a common prefix");
        for t in allowed.into_iter().filter(|&t| !x.is_eos(t)) {
            let (mut x, mut y) = (x.clone(), y.clone());
            assert!(x.step(t) && y.step(t));
            stack.push((x, y));
        }
    }
    seen.len()
}

fn nodes(p: &TokenPda) -> u32 {
    p.num_nodes()
}

#[test]
fn a_token_bound_on_a_nesting_grammar_grows_linearly_and_keeps_the_language() {
    let vocab = vocab();
    for (grammar, n) in [(BRACKETS, 12), (ARITH, 10), (JSONISH, 10), (EITHER, 12)] {
        let g = token_pda(grammar, &vocab);
        let mut sizes = Vec::new();
        for k in [n, 2 * n] {
            let bound = at_most_tokens(&vocab, k).unwrap();
            let general = TokenAlgebra::new()
                .recognize_bounds(false)
                .intersect_pda(&g.rt, &bound)
                .unwrap();
            let bounded = TokenAlgebra::new().intersect_pda(&g.rt, &bound).unwrap();
            let direct = TokenAlgebra::new().bound_pda(&g.rt, k).unwrap();
            assert_eq!(bounded.stats.count("token bound"), Some(k));
            assert_eq!(direct.automaton.to_bytes(), bounded.automaton.to_bytes());
            let (before, after) = (nodes(&general.automaton), nodes(&bounded.automaton));
            eprintln!("bound {k}: general product {before} nodes, bounded construction {after}");
            assert!(after < before, "{before} nodes -> {after}");
            sizes.push((before, after));
            if k > n {
                continue; // the side-by-side search grows with the bound: once suffices
            }
            let (general, bounded) = (
                Compiled::new(general.automaton.to_parts()),
                Compiled::new(bounded.automaton.to_parts()),
            );
            assert!(same_moves(&general, &bounded) > 100);
        }
        // Doubling the bound about doubles the bounded nodes; the general product's grow
        // faster.
        let ((g1, b1), (g2, b2)) = (sizes[0], sizes[1]);
        assert!(2 * b2 < 5 * b1, "{b1} -> {b2} nodes");
        assert!(g2 * b1 > g1 * b2, "{g1} -> {g2} against {b1} -> {b2}");
    }
}

#[test]
fn a_bounded_grammar_past_its_deadline_is_the_deadline_error() {
    use fstc_core::ops::OpsErrorKind;
    use std::time::Instant;
    let vocab = vocab();
    let g = token_pda(JSONISH, &vocab);
    // Each step (bounded product, layout) polls the deadline; past it, one error.
    for n in [3, 400] {
        let past = TokenAlgebra::new().deadline(Some(Instant::now()));
        let err = past.bound_pda(&g.rt, n).unwrap_err();
        assert!(matches!(err.kind(), OpsErrorKind::Deadline), "{err}");
        assert!(err.to_string().contains("past its deadline"), "{err}");
        let bound = at_most_tokens(&vocab, n).unwrap();
        let err = past.intersect_pda(&g.rt, &bound).unwrap_err();
        assert!(matches!(err.kind(), OpsErrorKind::Deadline), "{err}");
    }
}

#[test]
fn random_grammars_bounded_equal_the_general_product_with_the_bound() {
    let vocab = ByteVocabulary::from_strs(&["a", "b", "c", "ab", "bc", "ca", "abc", "aa", "cc"]);
    let mut rng = SplitMix64::new(7);
    let (mut compared, mut empty, mut nondeterministic) = (0, 0, 0);
    for _ in 0..400 {
        let g = crate::random_grammars::random_grammar(&mut rng);
        let Ok(pda) = fstc_pda::Pda::from_grammar(&g) else {
            continue;
        };
        let trie = fstc_core::vocab::VocabTrie::new(&vocab);
        let Ok(parts) = fstc_pda::GrammarCompiler::new().compose(&pda, &trie) else {
            continue;
        };
        let g_pda = crate::common::runtime(&parts.automaton);
        for n in [0, 1, 3, 5] {
            let bound = at_most_tokens(&vocab, n).unwrap();
            let general = TokenAlgebra::new()
                .recognize_bounds(false)
                .intersect_pda(&g_pda, &bound)
                .unwrap();
            let bounded = TokenAlgebra::new().bound_pda(&g_pda, n).unwrap();
            assert_eq!(
                bounded.automaton.is_deterministic(),
                g_pda.is_deterministic()
            );
            empty += usize::from(bounded.automaton.num_accepting() == 0);
            nondeterministic += usize::from(!g_pda.is_deterministic());
            same_moves(
                &Compiled::new(general.automaton.to_parts()),
                &Compiled::new(bounded.automaton.to_parts()),
            );
            compared += 1;
        }
    }
    // The comparisons covered grammars with nothing within the bound and
    // nondeterministic ones.
    assert!(
        compared > 400 && empty > 10 && nondeterministic > 10,
        "{compared} {empty} {nondeterministic}"
    );
}

#[test]
fn a_grammar_and_a_regex_bounded_in_one_construction_equal_the_general_product() {
    let vocab = vocab();
    for case in CASES {
        let Some(n) = case.bound else { continue };
        let b = build(case, &vocab);
        let regex = RegexCompiler::new()
            .compile(case.regex, &vocab)
            .unwrap()
            .automaton;
        let bounded = TokenAlgebra::new()
            .intersect_pda_bounded(&b.grammar.rt, &regex, n)
            .unwrap();
        assert_eq!(bounded.stats.count("token bound"), Some(n));
        let general = TokenAlgebra::new()
            .recognize_bounds(false)
            .intersect_pda(&b.grammar.rt, &b.fsa)
            .unwrap();
        let (general, bounded) = (
            Compiled::new(general.automaton.to_parts()),
            Compiled::new(bounded.automaton.to_parts()),
        );
        assert!(same_moves(&general, &bounded) > 20, "{}", case.regex);
    }
}
