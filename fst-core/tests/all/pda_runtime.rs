//! Token PDAs: the walker against independent recognizers (Figure 7's `a^n b^n` and
//! balanced brackets with multi-bracket tokens), the matcher contract, the stack limit,
//! parts → file → parts round trips and kind dispatch.

use std::sync::Arc;

use fstc_core::format::FormatErrorKind;
use fstc_core::matcher::MatchErrorKind;
use fstc_core::parts::{PdaEdge, PdaParts, NO_CLASS};
use fstc_core::pda_walker::{OwnedPdaWalker, PdaWalker};
use fstc_core::sample::SplitMix64;
use fstc_core::token_pda::TokenPda;
use fstc_core::{automaton::TokenAutomaton, AnyAutomaton};
use testkit::masks::{mask_of, ones};
use testkit::paper::{
    figure5_parts, figure7_pda_parts, FIG7_A, FIG7_AAAB, FIG7_B, FIG7_BB, FIG7_EOS, FIGURE7_TOKENS,
};

use crate::matcher_contract;

/// Token texts of the brackets vocabulary; `fillers` more tokens "x" follow, then EOS.
const BRACKET_TOKENS: [&str; 7] = ["(", ")", "((", "))", ")(", "()", "x"];

/// Balanced brackets over [`BRACKET_TOKENS`] plus `fillers` more "x" tokens, written by
/// hand: node 0 is the only node a walk rests at (accepting with an empty stack); each
/// `(` pushes symbol 0; a token that first closes `k` groups is an edge of node `k`,
/// reached from node 0 by `k` pops.
pub fn brackets_parts(fillers: u32) -> PdaParts {
    let vocab = BRACKET_TOKENS.len() as u32 + fillers + 1;
    let e = |class, push| PdaEdge {
        class,
        target: 0,
        push,
    };
    // Classes: 0 "(", 1 ")", 2 "((", 3 "))", 4 ")(", and 5: "()" and the "x" tokens,
    // which behave alike everywhere.
    let mut class_of_token: Vec<u32> = (0..5).collect();
    class_of_token.extend(std::iter::repeat(5).take(2 + fillers as usize));
    class_of_token.push(NO_CLASS);
    PdaParts {
        vocab_size: vocab,
        vocab_fingerprint: 7,
        eos_ids: vec![vocab - 1],
        num_stack_symbols: 1,
        start: 0,
        accepting: vec![true, false, false],
        num_classes: 6,
        class_of_token,
        edges: vec![
            vec![e(0, 1), e(2, 2), e(5, 0)],
            vec![e(1, 0), e(4, 1)],
            vec![e(3, 0)],
        ],
        pops: vec![vec![(0, 1)], vec![(0, 2)], vec![]],
        push_seqs: vec![vec![], vec![0], vec![0, 0]],
        nondeterministic: false,
    }
}

/// The text of a token of the brackets vocabulary, `None` for EOS.
fn bracket_text(vocab: u32, t: u32) -> Option<&'static str> {
    match BRACKET_TOKENS.get(t as usize) {
        Some(&s) => Some(s),
        None if t + 1 < vocab => Some("x"),
        None => None,
    }
}

/// A language as an independent recognizer: whether a text can still be completed, and
/// whether it is complete.
struct Oracle {
    viable: fn(&str) -> bool,
    complete: fn(&str) -> bool,
}

fn bracket_depths(text: &str) -> Option<i64> {
    let mut depth = 0i64;
    for c in text.chars() {
        depth += match c {
            '(' => 1,
            ')' => -1,
            _ => 0,
        };
        if depth < 0 {
            return None;
        }
    }
    Some(depth)
}

const BRACKETS: Oracle = Oracle {
    viable: |t| bracket_depths(t).is_some(),
    complete: |t| bracket_depths(t) == Some(0),
};

/// `(i, j)` when `text` is `a^i b^j`.
fn a_then_b(text: &str) -> Option<(usize, usize)> {
    let i = text.len() - text.trim_start_matches('a').len();
    let rest = &text[i..];
    rest.chars().all(|c| c == 'b').then_some((i, rest.len()))
}

const A_N_B_N: Oracle = Oracle {
    viable: |t| a_then_b(t).is_some_and(|(i, j)| j <= i),
    complete: |t| a_then_b(t).is_some_and(|(i, j)| i == j && i >= 1),
};

fn figure7_text(t: u32) -> Option<&'static str> {
    FIGURE7_TOKENS.get(t as usize).copied()
}

fn bit(mask: &[u32], t: u32) -> bool {
    mask[(t / 32) as usize] & (1 << (t % 32)) != 0
}

/// The mask the oracle gives after `text`.
fn oracle_mask(
    oracle: &Oracle,
    text_of: &dyn Fn(u32) -> Option<&'static str>,
    vocab: u32,
    text: &str,
) -> Vec<u32> {
    let mut mask = vec![0u32; (vocab as usize).div_ceil(32)];
    for t in 0..vocab {
        let ok = match text_of(t) {
            Some(s) => (oracle.viable)(&format!("{text}{s}")),
            None => (oracle.complete)(text),
        };
        if ok {
            mask[(t / 32) as usize] |= 1 << (t % 32);
        }
    }
    mask
}

/// Random walks checked against the oracle at every step: the mask is exactly the set of
/// tokens that keep the text viable (EOS exactly when complete), and rollback restores.
fn differential_walks(
    pda: &TokenPda,
    oracle: &Oracle,
    text_of: &dyn Fn(u32) -> Option<&'static str>,
    seed: u64,
) {
    let mut rng = SplitMix64::new(seed);
    let vocab = pda.vocab_size();
    for _ in 0..60 {
        let mut w = PdaWalker::new(pda);
        let mut text = String::new();
        let mut masks = Vec::new();
        for step in 0..40 {
            let mask = mask_of(&w);
            assert_eq!(
                mask,
                oracle_mask(oracle, text_of, vocab, &text),
                "after {text:?} (step {step}, stack {:?})",
                w.stack()
            );
            let allowed: Vec<u32> = (0..vocab).filter(|&t| bit(&mask, t)).collect();
            if allowed.is_empty() {
                break;
            }
            let t = allowed[rng.index(allowed.len())];
            w.consume(t).unwrap();
            match text_of(t) {
                Some(s) => text.push_str(s),
                None => {
                    assert!(w.is_finished());
                    break;
                }
            }
            masks.push(mask);
            if step % 5 == 4 {
                let k = 1 + rng.index(3.min(w.num_consumed()));
                let mut back = w.clone();
                back.rollback(k).unwrap();
                assert_eq!(mask_of(&back), masks[masks.len() - k], "rollback({k})");
            }
        }
    }
}

/// Random token sequences: `validate_tokens` is the oracle's longest accepted prefix and
/// `consume_tokens` accepts exactly the sequences the oracle accepts.
fn differential_sequences(
    pda: &TokenPda,
    oracle: &Oracle,
    text_of: &dyn Fn(u32) -> Option<&'static str>,
    seed: u64,
    alphabet: u32,
) {
    let mut rng = SplitMix64::new(seed);
    for _ in 0..2000 {
        let len = 1 + rng.index(10);
        let seq: Vec<u32> = (0..len)
            .map(|_| {
                let t = rng.below(u64::from(alphabet)) as u32;
                if t + 1 == alphabet {
                    pda.eos_ids()[0]
                } else {
                    t
                }
            })
            .collect();
        let mut text = String::new();
        let mut want = seq.len();
        for (i, &t) in seq.iter().enumerate() {
            match text_of(t) {
                Some(s) if (oracle.viable)(&format!("{text}{s}")) => text.push_str(s),
                None if (oracle.complete)(&text) => {
                    want = i + 1;
                    break;
                }
                _ => {
                    want = i;
                    break;
                }
            }
        }
        let w = PdaWalker::new(pda);
        assert_eq!(w.validate_tokens(&seq), want, "{seq:?}");
        let mut c = w.clone();
        assert!(
            c.consume_tokens(&seq[..want]).is_ok(),
            "{seq:?} prefix {want}"
        );
        if want < seq.len() {
            assert!(PdaWalker::new(pda).consume_tokens(&seq).is_err(), "{seq:?}");
        }
    }
}

#[test]
fn figure7_accepts_the_papers_walk() {
    let pda = TokenPda::from_parts(figure7_pda_parts()).unwrap();
    let mut w = PdaWalker::new(&pda);
    w.consume(FIG7_AAAB).unwrap();
    assert_eq!(w.stack(), [0, 0]);
    assert!(!w.is_allowed(FIG7_EOS));
    w.consume_tokens(&[FIG7_B, FIG7_B]).unwrap();
    assert!(w.is_accepting());
    assert_eq!(ones(&mask_of(&w)), [FIG7_EOS]);
    w.consume(FIG7_EOS).unwrap();
    assert!(w.is_finished());
    // The same text another way: "aaab" then "bb" pops both return addresses at once.
    let mut w = PdaWalker::new(&pda);
    w.consume_tokens(&[FIG7_AAAB, FIG7_BB, FIG7_EOS]).unwrap();
    assert!(w.is_finished());
    assert_eq!(
        PdaWalker::new(&pda).validate_tokens(&[FIG7_A, FIG7_BB]),
        1,
        "abb is not a^n b^n"
    );
}

/// Every tokenization of `a^n b^n` (n <= 6) is accepted, and the texts with one `b`
/// more or less are refused at EOS or before.
#[test]
fn figure7_accepts_every_tokenization_of_a_n_b_n() {
    fn tokenizations(text: &str) -> Vec<Vec<u32>> {
        if text.is_empty() {
            return vec![vec![]];
        }
        let mut out = Vec::new();
        for (id, tok) in FIGURE7_TOKENS.iter().enumerate() {
            if let Some(rest) = text.strip_prefix(tok) {
                for mut tail in tokenizations(rest) {
                    tail.insert(0, id as u32);
                    out.push(tail);
                }
            }
        }
        out
    }
    let pda = TokenPda::from_parts(figure7_pda_parts()).unwrap();
    let mut checked = 0;
    for n in 1..=6 {
        for (text, good) in [
            (format!("{}{}", "a".repeat(n), "b".repeat(n)), true),
            (format!("{}{}", "a".repeat(n), "b".repeat(n - 1)), false),
            (format!("{}{}", "a".repeat(n), "b".repeat(n + 1)), false),
        ] {
            for mut seq in tokenizations(&text) {
                seq.push(FIG7_EOS);
                let accepted = PdaWalker::new(&pda).validate_tokens(&seq) == seq.len();
                assert_eq!(accepted, good, "{text} as {seq:?}");
                checked += 1;
            }
        }
    }
    assert!(checked > 50, "{checked}");
}

#[test]
fn walks_agree_with_the_recognizers() {
    let fig7 = TokenPda::from_parts(figure7_pda_parts()).unwrap();
    differential_walks(&fig7, &A_N_B_N, &figure7_text, 1);
    differential_sequences(&fig7, &A_N_B_N, &figure7_text, 2, 5);
    for fillers in [0, 300] {
        let pda = TokenPda::from_parts(brackets_parts(fillers)).unwrap();
        let vocab = pda.vocab_size();
        let text_of = move |t| bracket_text(vocab, t);
        differential_walks(&pda, &BRACKETS, &text_of, 3);
        differential_sequences(&pda, &BRACKETS, &text_of, 4, 8);
    }
}

#[test]
fn wide_nodes_get_dense_masks_without_eos() {
    let pda = TokenPda::from_parts(brackets_parts(300)).unwrap();
    assert_eq!(pda.num_dense_masks(), 1);
    let w = PdaWalker::new(&pda);
    let mask = mask_of(&w);
    assert!(bit(&mask, pda.eos_ids()[0]));
    let mut w = PdaWalker::new(&pda);
    w.consume(0).unwrap();
    assert!(
        !bit(&mask_of(&w), pda.eos_ids()[0]),
        "EOS with an open group"
    );
}

#[test]
fn the_matcher_contract_holds() {
    let fig7 = TokenPda::from_parts(figure7_pda_parts()).unwrap();
    for seed in 0..4 {
        matcher_contract::check_contract(|| PdaWalker::new(&fig7), &[FIG7_EOS], seed);
    }
    for fillers in [0, 40] {
        let pda = Arc::new(TokenPda::from_parts(brackets_parts(fillers)).unwrap());
        let eos = pda.eos_ids().to_vec();
        for seed in 0..4 {
            matcher_contract::check_contract(|| OwnedPdaWalker::new(pda.clone()), &eos, seed);
            // The GLR walker walks deterministic PDAs alike.
            matcher_contract::check_contract(
                || fstc_core::glr_walker::OwnedGlrWalker::new(pda.clone()),
                &eos,
                seed,
            );
        }
    }
    let mut parts = class_on_two_chain_nodes();
    parts.nondeterministic = true;
    parts.edges[0].insert(
        0,
        PdaEdge {
            class: 0,
            target: 1,
            push: 0,
        },
    );
    let nondet = TokenPda::from_parts(parts).unwrap();
    for seed in 0..4 {
        matcher_contract::check_contract(
            || fstc_core::glr_walker::GlrWalker::new(&nondet),
            nondet.eos_ids(),
            seed,
        );
    }
}

#[test]
fn forced_tokens_follow_a_single_choice() {
    // After "a", "a", "b" (stack [r]) only "b" closes: forced, then EOS ends it.
    let pda = TokenPda::from_parts(figure7_pda_parts()).unwrap();
    let mut w = PdaWalker::new(&pda);
    w.consume_tokens(&[FIG7_A, FIG7_A, FIG7_B]).unwrap();
    // Both "b" and no other token are allowed: "b" then EOS.
    assert_eq!(w.forced_tokens(), [FIG7_B]);
    assert!(PdaWalker::new(&pda).forced_tokens().is_empty());
}

#[test]
fn the_stack_limit_is_an_error_that_changes_nothing() {
    let pda = TokenPda::from_parts(brackets_parts(0)).unwrap();
    let mut w = PdaWalker::new(&pda).with_stack_limit(3);
    w.consume_tokens(&[2, 0]).unwrap();
    let before = mask_of(&w);
    assert!(!w.is_allowed(2));
    let e = w.consume(2).unwrap_err();
    assert_eq!(e.kind(), MatchErrorKind::StackLimit, "{e}");
    assert!(e.to_string().contains("stack limit of 3"), "{e}");
    assert_eq!(w.num_consumed(), 2);
    assert_eq!(mask_of(&w), before);
    assert_eq!(w.validate_tokens(&[1, 0, 2]), 2);
    // Deep but within the default limit: 5,000 nested groups, then all closed.
    let mut w = PdaWalker::new(&pda);
    w.consume_tokens(&vec![2; 2500]).unwrap();
    w.consume_tokens(&vec![3; 2500]).unwrap();
    assert!(w.is_accepting());
    w.rollback(5000).unwrap();
    assert_eq!(w.stack(), Vec::<u32>::new());
}

#[test]
fn parts_round_trip_through_the_file() {
    for parts in [figure7_pda_parts(), brackets_parts(0), brackets_parts(300)] {
        let pda = TokenPda::from_parts(parts.clone()).unwrap();
        assert_eq!(pda.to_parts(), parts);
        let bytes = pda.to_bytes();
        let copied = TokenPda::from_bytes_copied(&bytes).unwrap();
        assert_eq!(copied, pda);
        let words = pda.as_words().to_vec();
        let borrowed = TokenPda::from_bytes(bytemuck::cast_slice(&words)).unwrap();
        assert_eq!(borrowed.to_parts(), parts);
        let dir = std::env::temp_dir().join(format!("fstc-pda-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("p.fstc");
        pda.write_file(&path).unwrap();
        assert_eq!(TokenPda::read_file(&path).unwrap(), pda);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn a_layout_past_its_deadline_gives_up_and_one_before_it_is_the_layout() {
    use std::time::{Duration, Instant};
    let parts = brackets_parts(300);
    // A deadline already passed when the layout starts: no PDA, and no error.
    let past = Some(Instant::now());
    assert_eq!(TokenPda::from_parts_before(parts.clone(), past), Ok(None));
    let later = Instant::now().checked_add(Duration::from_secs(3600));
    let pda = TokenPda::from_parts_before(parts.clone(), later).unwrap();
    assert_eq!(pda, Some(TokenPda::from_parts(parts).unwrap()));
    // Parts that are not a PDA are an error whatever the deadline.
    let mut bad = brackets_parts(0);
    bad.start = 9;
    let err = TokenPda::from_parts_before(bad, past).unwrap_err();
    assert!(err.to_string().contains("start state 9"), "{err}");
}

#[test]
fn equal_classes_are_merged_and_unused_ones_dropped() {
    // Split the "x" class (tokens 6..11) in two with equal edges and add an unused class:
    // the file is the one of the canonical parts.
    let split = |push| {
        let mut parts = brackets_parts(4);
        parts.num_classes = 8;
        for t in 8..11 {
            parts.class_of_token[t] = 6;
        }
        parts.edges[0].push(PdaEdge {
            class: 6,
            target: 0,
            push,
        });
        parts
    };
    let pda = TokenPda::from_parts(split(0)).unwrap();
    assert_eq!(pda, TokenPda::from_parts(brackets_parts(4)).unwrap());
    // The same target with another push keeps the classes apart.
    let mut parts = split(3);
    parts.push_seqs.push(vec![0, 0, 0]);
    parts.num_classes = 7;
    let pda = TokenPda::from_parts(parts.clone()).unwrap();
    assert_eq!(pda.num_classes(), 7);
    assert_eq!(pda.to_parts(), parts);
}

#[test]
fn loaders_dispatch_on_the_kind() {
    let pda = TokenPda::from_parts(figure7_pda_parts()).unwrap();
    let fsa = TokenAutomaton::from_parts(figure5_parts()).unwrap();
    let e = TokenAutomaton::from_bytes_copied(&pda.to_bytes()).unwrap_err();
    assert_eq!(e.kind(), FormatErrorKind::Kind);
    assert!(e.to_string().contains("token PDA (kind 1)"), "{e}");
    let e = TokenPda::from_bytes_copied(&fsa.to_bytes()).unwrap_err();
    assert_eq!(e.kind(), FormatErrorKind::Kind);
    assert!(e.to_string().contains("token FSA (kind 0)"), "{e}");
    match AnyAutomaton::from_bytes_copied(&pda.to_bytes()).unwrap() {
        AnyAutomaton::Pda(p) => assert_eq!(p, pda),
        AnyAutomaton::Fsa(_) => panic!("a PDA file loaded as an FSA"),
    }
    match AnyAutomaton::from_bytes_copied(&fsa.to_bytes()).unwrap() {
        AnyAutomaton::Fsa(a) => assert_eq!(a, fsa),
        AnyAutomaton::Pda(_) => panic!("an FSA file loaded as a PDA"),
    }
    let e = AnyAutomaton::from_bytes_copied(b"not an automaton").unwrap_err();
    assert_eq!(e.kind(), FormatErrorKind::NotAnAutomaton);
}

#[test]
fn bad_parts_are_refused_before_layout() {
    let mut parts = figure7_pda_parts();
    parts.pops[3][0].1 = 17;
    let e = TokenPda::from_parts(parts).unwrap_err();
    assert!(e.to_string().contains("node 3, pop edge 0"), "{e}");
}

/// Uses everything a decoder would, to show a loaded PDA is safe to use.
fn exercise<W: AsRef<[u32]>>(pda: &TokenPda<W>) {
    // Damage can leave a valid file with a huge vocab_size; don't allocate its mask.
    let width = (pda.vocab_size() as usize).div_ceil(32);
    let _ = pda.to_parts();
    let mut rng = SplitMix64::new(5);
    let mut mask = vec![0u32; width.min(1 << 12)];
    for _ in 0..4 {
        let mut w = PdaWalker::new(pda).with_stack_limit(64);
        for _ in 0..30 {
            if width > mask.len() {
                assert!(w.fill_mask(&mut mask).is_err());
                break;
            }
            w.fill_mask(&mut mask).unwrap();
            let allowed = ones(&mask);
            let _ = (
                w.forced_tokens(),
                w.validate_tokens(&allowed),
                w.is_accepting(),
            );
            let Some(&t) = allowed.get(rng.index(allowed.len().max(1))) else {
                break;
            };
            // A file that loads is a valid PDA, and masks are exact (at the stack limit
            // too): a token the mask sets is consumed.
            w.consume(t).unwrap();
        }
        let n = w.num_consumed();
        w.rollback(n).unwrap();
    }
}

/// The PDA the corruption tests damage (also `format_corruption`'s).
pub(crate) fn corruption_subject() -> TokenPda {
    TokenPda::from_parts(brackets_parts(70)).unwrap()
}

#[test]
fn pda_damage_behind_a_forged_checksum_never_panics() {
    let pda = corruption_subject();
    let mut rng = SplitMix64::new(11);
    let (mut ok, mut rejected) = (0, 0);
    let body = pda.as_words().len() - 2;
    // Every single bit flip, then random multi-word damage.
    let mut cases: Vec<Vec<(usize, u32)>> = (0..body * 32)
        .map(|b| vec![(b / 32, pda.as_words()[b / 32] ^ 1 << (b % 32))])
        .collect();
    for _ in 0..3000 {
        let edits = (0..1 + rng.below(3))
            .map(|_| {
                let i = rng.below(body as u64) as usize;
                let old = pda.as_words()[i];
                let v = match rng.below(4) {
                    0 => rng.next_u64() as u32,
                    1 => old.wrapping_add(1),
                    2 => old.wrapping_sub(1),
                    _ => rng.below(80) as u32,
                };
                (i, v)
            })
            .collect();
        cases.push(edits);
    }
    for (round, edits) in cases.iter().enumerate() {
        let mut words = pda.as_words().to_vec();
        for &(i, v) in edits {
            words[i] = v;
        }
        if testkit::file::load_forged(words, round, TokenPda::from_words, exercise) {
            ok += 1;
        } else {
            rejected += 1;
        }
    }
    eprintln!("forged-checksum PDA damage: {rejected} rejected, {ok} harmless");
    assert!(rejected > ok, "rejected {rejected}, accepted {ok}");
}

#[test]
fn pda_structural_damage_is_named() {
    use fstc_core::format::{
        SECTION_POP_EDGES, SECTION_PUSH_OFFSETS, SECTION_PUSH_SYMBOLS, SECTION_STACK_OPS,
    };
    use testkit::file::{forge_checksum, section};
    let pda = TokenPda::from_parts(figure7_pda_parts()).unwrap();
    // Each case writes `value` at word `offset` of a section and names the error expected.
    let cases = [
        (
            SECTION_STACK_OPS,
            0,
            9,
            "pushes sequence 9, but there are 4 push sequences",
        ),
        (
            SECTION_POP_EDGES,
            0,
            1,
            "symbol 1 is not below the 1 stack symbols",
        ),
        (
            SECTION_POP_EDGES,
            1,
            6,
            "target 6 is not below the number of nodes 6",
        ),
        (SECTION_PUSH_OFFSETS, 1, 1, "sequence 0, the empty sequence"),
        (
            SECTION_PUSH_SYMBOLS,
            0,
            3,
            "symbol 3 is not below the 1 stack symbols",
        ),
    ];
    for (id, offset, value, needle) in cases {
        let mut words = pda.as_words().to_vec();
        let at = section(&words, id).0 + offset;
        words[at] = value;
        forge_checksum(&mut words);
        let e = TokenPda::from_words(words).unwrap_err();
        assert_eq!(e.kind(), FormatErrorKind::StackSections, "{e}");
        assert!(e.to_string().contains(needle), "{e}");
    }
}

#[test]
fn figure7_draws_like_the_paper() {
    let pda = TokenPda::from_parts(figure7_pda_parts()).unwrap();
    let text = |t: u32| figure7_text(t).map(|s| s.as_bytes().to_vec());
    insta::assert_snapshot!(fstc_core::dot::pda_to_dot(&pda, &text));
}

/// A PDA where one class sits on two nodes of a pop chain: token x (id 0) pushes r at the
/// start, then at node 1 over [r] both node 1 and its pop node 3 have x's class; node 1
/// decides (to node 2), whose pop node 4 accepts. Token y (id 1) has no edge; EOS is 2.
fn class_on_two_chain_nodes() -> PdaParts {
    let edge = |target, push| PdaEdge {
        class: 0,
        target,
        push,
    };
    PdaParts {
        vocab_size: 3,
        vocab_fingerprint: 0,
        eos_ids: vec![2],
        num_stack_symbols: 1,
        start: 0,
        accepting: vec![false, false, false, false, true],
        num_classes: 1,
        class_of_token: vec![0, NO_CLASS, NO_CLASS],
        edges: vec![
            vec![edge(1, 1)],
            vec![edge(2, 0)],
            vec![],
            vec![edge(2, 0)],
            vec![],
        ],
        pops: vec![vec![], vec![(0, 3)], vec![(0, 4)], vec![], vec![]],
        push_seqs: vec![vec![], vec![0]],
        nondeterministic: false,
    }
}

#[test]
fn a_single_token_is_forced_even_when_its_class_sits_on_two_chain_nodes() {
    let pda = TokenPda::from_parts(class_on_two_chain_nodes()).unwrap();
    let mut w = PdaWalker::new(&pda);
    let mut mask = [0u32; 1];
    w.fill_mask(&mut mask).unwrap();
    assert_eq!(ones(&mask), [0]);
    assert_eq!(w.forced_tokens(), [0, 0]);
    w.consume(0).unwrap();
    w.fill_mask(&mut mask).unwrap();
    assert_eq!(
        ones(&mask),
        [0],
        "x at node 1 and at its pop node 3, no EOS"
    );
    assert_eq!(w.forced_tokens(), [0]);
    w.consume(0).unwrap();
    assert_eq!(w.node(), 2, "the first chain node with the class decides");
    assert!(w.forced_tokens().is_empty(), "EOS is allowed");
}

#[test]
fn the_mask_and_forced_tokens_respect_the_stack_limit() {
    let pda = TokenPda::from_parts(class_on_two_chain_nodes()).unwrap();
    let w = PdaWalker::new(&pda).with_stack_limit(0);
    let mut mask = [u32::MAX; 1];
    w.fill_mask(&mut mask).unwrap();
    assert_eq!(mask, [0], "x would push past the limit");
    assert!(!w.is_allowed(0));
    assert!(w.forced_tokens().is_empty());
    assert_eq!(w.validate_tokens(&[0]), 0);
    // Figure 7 at limit 1: after "a", "a" pushes a second r and aaab two more; b is left.
    let pda = TokenPda::from_parts(figure7_pda_parts()).unwrap();
    let mut w = PdaWalker::new(&pda).with_stack_limit(1);
    w.consume(FIG7_A).unwrap();
    w.consume(FIG7_A).unwrap();
    let mut mask = [0u32; 1];
    w.fill_mask(&mut mask).unwrap();
    assert_eq!(ones(&mask), [FIG7_B, FIG7_BB]);
    let e = w.clone().consume(FIG7_AAAB).unwrap_err();
    assert_eq!(e.kind(), MatchErrorKind::StackLimit);
}

/// `class_on_two_chain_nodes` as a nondeterministic PDA, with a second edge for x at the
/// start (to node 1 without pushing): every way at every chain node is followed, the file
/// holds the alternatives sections, and damage to them is named.
#[test]
fn a_nondeterministic_pda_keeps_every_way_and_its_file_names_damage() {
    use fstc_core::format::SECTION_ALTERNATIVES;
    use fstc_core::glr_walker::GlrWalker;
    use testkit::file::{forge_checksum, section};
    let mut parts = class_on_two_chain_nodes();
    parts.nondeterministic = true;
    parts.edges[0].insert(
        0,
        PdaEdge {
            class: 0,
            target: 1,
            push: 0,
        },
    );
    let pda = TokenPda::from_parts(parts.clone()).unwrap();
    assert!(!pda.is_deterministic());
    assert_eq!(pda.to_parts(), parts);
    assert!(TokenPda::from_parts(class_on_two_chain_nodes())
        .unwrap()
        .is_deterministic());
    let mut w = GlrWalker::new(&pda);
    w.consume(0).unwrap();
    assert_eq!(w.num_configurations(), 2, "node 1 over [] and over [r]");
    assert!(!w.is_accepting());
    // From node 1 over [r], x is read at node 1 and at its pop node 3: node 2 over [r]
    // (whose pop node 4 accepts) and over [].
    w.consume(0).unwrap();
    assert_eq!(w.num_configurations(), 2);
    assert!(w.is_accepting());
    w.rollback(2).unwrap();
    assert_eq!(w.num_configurations(), 1);
    // A deterministic walker takes the first chain node only, and pushes on the first x.
    let mut d = PdaWalker::new(&pda);
    d.consume(0).unwrap();
    assert_eq!(d.stack(), Vec::<u32>::new(), "the first edge of the class");
    for (offset, value, needle) in [
        (0, 9, "target 9 is not below the number of nodes 5"),
        (1, 7, "push 7 is not below the 2 push sequences"),
        (
            0,
            0,
            "(target 0, push 1) does not come after (target 1, push 0)",
        ),
    ] {
        let mut words = pda.as_words().to_vec();
        let at = section(&words, SECTION_ALTERNATIVES).0 + offset;
        words[at] = value;
        forge_checksum(&mut words);
        let e = TokenPda::from_words(words).unwrap_err();
        assert_eq!(e.kind(), FormatErrorKind::StackSections, "{e}");
        assert!(e.to_string().contains(needle), "{e}");
    }
}
