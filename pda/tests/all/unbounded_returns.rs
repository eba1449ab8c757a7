//! Grammars where one token returns through an unboundedly deep nest of calls: a dangling
//! `else` that may close any `if` still open (`tests/grammars/nondeterministic/
//! dangling_else.gbnf`), and lists whose closers are optional, where `]]]`, `1],` or `.`
//! close any number of them (`open_lists.gbnf`). Their token PDAs return through a cycle
//! of pop edges; texts nested up to 40 deep, under random tokenizations over vocabularies
//! whose tokens span the returns, are accepted exactly when the Earley recognizer accepts
//! them, with both walkers checked against each other at every step (`common::run_tokens`).

use fstc_core::parts::PdaParts;
use fstc_core::sample::SplitMix64;
use fstc_core::ByteVocabulary;

use crate::common::{compile, random_tokenization, run_tokens, Compiled, Walk};
use crate::earley::Earley;
use crate::gbnf_grammars::grammar_text;
use fstc_pda::Pda;

/// Whether the pop edges of `parts` make a cycle: without one, a token could return through
/// a bounded number of calls only.
pub fn pops_cycle(parts: &PdaParts) -> bool {
    // 0 unseen, 1 on the path, 2 done.
    let mut mark = vec![0u8; parts.pops.len()];
    fn visit(parts: &PdaParts, n: usize, mark: &mut [u8]) -> bool {
        mark[n] = 1;
        for &(_, next) in &parts.pops[n] {
            let next = next as usize;
            if mark[next] == 1 || (mark[next] == 0 && visit(parts, next, mark)) {
                return true;
            }
        }
        mark[n] = 2;
        false
    }
    (0..parts.pops.len()).any(|n| mark[n] == 0 && visit(parts, n, &mut mark))
}

/// The grammar's token PDA over `tokens` (every single byte of `alphabet` added, so any
/// text over it has a tokenization), and its recognizer.
fn setup(file: &str, alphabet: &[u8], tokens: &[&str]) -> (Compiled, ByteVocabulary, Earley) {
    let text = grammar_text(file);
    let earley = Earley::new(&fstc_pda::gbnf::parse(&text).unwrap());
    let singles: Vec<String> = alphabet.iter().map(|&b| (b as char).to_string()).collect();
    let all: Vec<&str> = singles
        .iter()
        .map(String::as_str)
        .chain(tokens.iter().copied())
        .collect();
    let vocab = ByteVocabulary::from_strs(&all);
    let pda = Pda::from_gbnf(&text).unwrap();
    assert!(!pda.is_deterministic(), "{file}");
    let tpda = compile(&pda, &vocab);
    assert!(pops_cycle(&tpda), "{file}: no cycle of pop edges");
    (tpda, vocab, earley)
}

/// Each text, under three random tokenizations, is accepted exactly when the recognizer
/// accepts it; returns how many texts were accepted.
fn agree(file: &str, texts: &[String], setup: &(Compiled, ByteVocabulary, Earley)) -> usize {
    let (tpda, vocab, earley) = setup;
    let mut rng = SplitMix64::new(22);
    let mut accepted = 0;
    for text in texts {
        let expected = earley.accepts(text.as_bytes());
        accepted += usize::from(expected);
        for _ in 0..3 {
            let ids = random_tokenization(vocab, text.as_bytes(), &mut rng);
            assert_eq!(
                run_tokens(tpda, 0, &ids),
                expected,
                "{file}: {text:?} as {ids:?}"
            );
        }
    }
    accepted
}

/// `depth` nested `if`s (a `while` every third level), an assignment, then `elses`
/// `else` branches: accepted exactly when `elses <= depth` (each `else` closes one `if`).
fn dangling(depth: usize, elses: usize) -> String {
    let mut text = String::new();
    for level in 0..depth {
        text += if level % 3 == 2 {
            "while (b == 2) "
        } else {
            "if (a < 1) "
        };
    }
    text += "x = 1;";
    for _ in 0..elses {
        text += " else y = 2;";
    }
    text
}

#[test]
fn a_dangling_else_closes_any_if_still_open_at_any_depth() {
    let s = setup(
        "nondeterministic/dangling_else.gbnf",
        b" (){}<=+;_012abiefhlswxyz\n",
        &[
            "if (", "else", " else", "; else", "1; else", ";\n", "a < 1", ") ", "while (",
        ],
    );
    let mut texts = Vec::new();
    for depth in [0, 1, 2, 3, 5, 8, 13, 21, 40] {
        let ifs = depth - depth / 3;
        for elses in [0, 1, ifs / 2, ifs, ifs + 1] {
            texts.push(dangling(depth, elses));
        }
    }
    texts.push(dangling(6, 2).replacen("x = 1;", "{ x = 1; }", 1));
    let accepted = agree("dangling_else.gbnf", &texts, &s);
    let expected = texts.iter().filter(|t| {
        let ifs = t.matches("if (").count();
        t.matches(" else").count() <= ifs
    });
    assert_eq!(accepted, expected.count());
}

/// `depth` open lists, an element, then `moves` (`]` or `,2`) and the final `.`.
fn open_lists(depth: usize, moves: &[&str]) -> String {
    let mut text = "[".repeat(depth) + "1";
    for m in moves {
        text += m;
    }
    text + "."
}

#[test]
fn one_token_closes_any_number_of_open_lists() {
    let s = setup(
        "nondeterministic/open_lists.gbnf",
        b"[],.12x",
        &["]]]", "]]", "1]]],", "],", "]].", ".", ",[", "[[[", ",x]"],
    );
    let mut rng = SplitMix64::new(7);
    let mut texts = Vec::new();
    for depth in [0, 1, 2, 4, 9, 20, 40] {
        texts.push(open_lists(depth, &[]));
        texts.push(open_lists(depth, &vec!["]"; depth]));
        texts.push(open_lists(depth, &vec!["]"; depth + 1]));
        for _ in 0..4 {
            let moves: Vec<&str> = (0..rng.index(depth + 3))
                .map(|_| ["]", ",2", ",[x", "]]]"][rng.index(4)])
                .collect();
            texts.push(open_lists(depth, &moves));
        }
    }
    let accepted = agree("open_lists.gbnf", &texts, &s);
    assert!(
        accepted * 3 >= texts.len() && accepted < texts.len(),
        "{accepted} of {}",
        texts.len()
    );
}

#[test]
fn random_walks_of_an_unbounded_return_grammar_parse() {
    // Walks of the reference and fstc-core's walker in lockstep; every finished one parses.
    let (tpda, vocab, earley) = setup(
        "nondeterministic/open_lists.gbnf",
        b"[],.12x",
        &["]]]", "]]", "1]]],", "],", "]].", ",[", "[[["],
    );
    let mut rng = SplitMix64::new(3);
    let mut finished = 0;
    for walk in 0..40 {
        let mut w = tpda.walker();
        let mut text = Vec::new();
        for step in 0..60 {
            let allowed = w.allowed();
            assert!(
                !allowed.is_empty(),
                "stuck after {:?}",
                String::from_utf8_lossy(&text)
            );
            let eos = tpda.eos_ids[0];
            let pick = if allowed.contains(&eos) && step > walk / 2 {
                eos
            } else {
                let text_tokens: Vec<u32> = allowed.iter().copied().filter(|&t| t != eos).collect();
                if text_tokens.is_empty() {
                    eos
                } else {
                    text_tokens[rng.index(text_tokens.len())]
                }
            };
            assert!(w.step(pick));
            if w.finished() {
                assert!(
                    earley.accepts(&text),
                    "{:?}",
                    String::from_utf8_lossy(&text)
                );
                finished += 1;
                break;
            }
            text.extend_from_slice(fstc_core::TokenVocabulary::token_bytes(&vocab, pick).unwrap());
        }
    }
    assert!(finished >= 20, "only {finished} of 40 walks finished");
}
