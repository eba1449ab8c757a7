//! The stack limit is part of the language: with a limit, the masks, `is_allowed`,
//! `consume`, `validate_tokens`, EOS and forced tokens all say exactly what the grammar with
//! a depth bound at token boundaries says (a token may open and close a group deeper than
//! the limit within itself: the limit bounds the stack between tokens). Checked against a
//! depth-bounded checker written here and the contract walker of `common` (which applies
//! the limit itself), in lockstep.

use crate::common::{token_pda, Walk};
use fstc_core::sample::SplitMix64;
use fstc_core::{ByteVocabulary, TokenVocabulary};

/// Nested brackets around `x`s: the rule's call of itself pushes one return address per
/// level below the outermost, so between tokens a stack limit `n` allows `n + 1` open
/// brackets.
const NEST: &str = r#"root ::= "[" ( "x" | root )* "]""#;

/// The deepest nesting of `text` if it is a member of `NEST` (independent of the grammar
/// machinery).
fn nesting(text: &[u8]) -> Option<usize> {
    fn group(text: &[u8], pos: usize) -> Option<(usize, usize)> {
        if text.get(pos) != Some(&b'[') {
            return None;
        }
        let (mut pos, mut deepest) = (pos + 1, 1);
        loop {
            match text.get(pos)? {
                b']' => return Some((pos + 1, deepest)),
                b'x' => pos += 1,
                _ => {
                    let (end, d) = group(text, pos)?;
                    (pos, deepest) = (end, deepest.max(d + 1));
                }
            }
        }
    }
    group(text, 0).and_then(|(end, d)| (end == text.len()).then_some(d))
}

/// The number of open brackets after `text` if it is a prefix of a member of `NEST`.
fn open_after(text: &[u8]) -> Option<usize> {
    let mut depth = 0usize;
    for (i, &b) in text.iter().enumerate() {
        match b {
            b'[' if depth > 0 || i == 0 => depth += 1,
            b']' if depth > 0 => depth -= 1,
            b'x' if depth > 0 => {}
            _ => return None,
        }
        if depth == 0 && i + 1 < text.len() {
            return None;
        }
    }
    Some(depth)
}

fn nest_vocab() -> ByteVocabulary {
    ByteVocabulary::from_strs(&[
        "[", "]", "x", "[[", "]]", "[x", "x]", "][", "[[[", "]]]", "x[[", "[[[[", "x]]", "[x]",
    ])
}

/// A random member of `NEST` nesting at most `max` deep.
fn member(rng: &mut SplitMix64, max: usize, out: &mut Vec<u8>) {
    out.push(b'[');
    for _ in 0..rng.index(4) {
        if max > 1 && rng.index(2) == 0 {
            member(rng, max - 1, out);
        } else {
            out.push(b'x');
        }
    }
    out.push(b']');
}

#[test]
fn masks_are_exact_at_small_stack_limits() {
    let vocab = nest_vocab();
    let tpda = token_pda(NEST, &vocab);
    let eos = tpda.eos_ids[0];
    let mut rng = SplitMix64::new(21);
    for limit in 0..5 {
        let (mut at_limit, mut finished) = (0, 0);
        for _ in 0..300 {
            let mut w = tpda.walker_limited(limit);
            let mut text = Vec::new();
            for _ in 0..40 {
                let allowed = w.allowed();
                assert!(!allowed.is_empty(), "stuck after {text:?}");
                // The oracle: members end; prefixes continue with at most `limit + 1` open.
                let expected: Vec<u32> = (0..vocab.len() as u32)
                    .filter(|&t| match vocab.token_bytes(t) {
                        None => nesting(&text).is_some(),
                        Some(bytes) => open_after(&[text.as_slice(), bytes].concat())
                            .is_some_and(|open| open <= limit + 1),
                    })
                    .collect();
                assert_eq!(
                    allowed,
                    expected,
                    "limit {limit} after {:?}",
                    String::from_utf8_lossy(&text)
                );
                at_limit += usize::from(w.reference.depth() == limit);
                let t = allowed[rng.index(allowed.len())];
                assert!(w.step(t), "an allowed token is consumed");
                if t == eos {
                    finished += 1;
                    break;
                }
                text.extend_from_slice(vocab.token_bytes(t).unwrap());
            }
        }
        assert!(
            at_limit > 50 && finished > 20,
            "limit {limit}: {at_limit} {finished}"
        );
    }
}

#[test]
fn texts_are_accepted_exactly_within_the_nesting_bound() {
    let vocab = nest_vocab();
    let tpda = token_pda(NEST, &vocab);
    let mut rng = SplitMix64::new(22);
    for limit in 0..4 {
        let (mut inside, mut outside) = (0, 0);
        for _ in 0..200 {
            let mut text = Vec::new();
            member(&mut rng, limit + 4, &mut text);
            let tokens = crate::common::random_tokenization(&vocab, &text, &mut rng);
            let mut prefix = Vec::new();
            let within = tokens.iter().all(|&t| {
                prefix.extend_from_slice(vocab.token_bytes(t).unwrap());
                open_after(&prefix).unwrap() <= limit + 1
            });
            let all: Vec<u32> = tokens.iter().chain([&tpda.eos_ids[0]]).copied().collect();
            let mut w = tpda.walker_limited(limit);
            let valid = w.matcher.validate_tokens(&all);
            let taken = all.iter().take_while(|&&t| {
                w.allowed();
                w.step(t)
            });
            let taken = taken.count();
            assert_eq!(valid, taken, "validate_tokens");
            assert_eq!(taken == all.len(), within, "limit {limit}: {text:?}");
            if within {
                inside += 1;
            } else {
                outside += 1;
            }
        }
        assert!(
            inside > 20 && outside > 20,
            "limit {limit}: {inside} {outside}"
        );
    }
}
