//! Differential tests: the byte PDA and the token PDA against independent checkers.

use crate::common::{figure7_vocab, pda_of, run_tokens, token_pda, Walk, ANBN};
use fstc_core::sample::SplitMix64;
use fstc_core::{ByteVocabulary, TokenVocabulary};

/// a^n b^n with n >= 1, by counting.
fn is_anbn(text: &[u8]) -> bool {
    let n = text.iter().take_while(|&&b| b == b'a').count();
    n >= 1 && text.len() == 2 * n && text[n..].iter().all(|&b| b == b'b')
}

/// Whether `text` can be extended into a^n b^n.
fn is_anbn_prefix(text: &[u8]) -> bool {
    let a = text.iter().take_while(|&&b| b == b'a').count();
    let rest = &text[a..];
    rest.iter().all(|&b| b == b'b') && rest.len() <= a
}

#[test]
fn byte_pda_accepts_exactly_anbn() {
    let pda = pda_of(ANBN);
    // Every text over {a, b} up to length 12, plus texts with other bytes.
    for len in 0..=12u32 {
        for bits in 0..(1u32 << len) {
            let text: Vec<u8> = (0..len)
                .map(|i| if bits >> i & 1 == 1 { b'b' } else { b'a' })
                .collect();
            assert_eq!(
                pda.accepts(&text),
                is_anbn(&text),
                "{:?}",
                String::from_utf8_lossy(&text)
            );
        }
    }
    assert!(!pda.accepts(b"acb") && !pda.accepts(b"ab\0") && !pda.accepts(b""));
    // Deep nesting works up to the stack bound and is refused beyond it.
    let deep = |n: usize| [vec![b'a'; n], vec![b'b'; n]].concat();
    assert!(pda.accepts(&deep(1000)));
    assert!(!pda.accepts(&deep(fstc_pda::MAX_STACK_DEPTH + 10)));
}

#[test]
fn token_pda_accepts_exactly_anbn_on_random_token_sequences() {
    let vocab = figure7_vocab();
    let tpda = token_pda(ANBN, &vocab);
    let mut rng = SplitMix64::new(7);
    let mut accepted = 0;
    for _ in 0..3000 {
        let len = rng.index(9);
        // Bias towards a's first, then b's, so that many sequences are in the language.
        let split = rng.index(len + 1);
        let tokens: Vec<u32> = (0..len)
            .map(|i| {
                if i < split {
                    [0, 3, 0, 1][rng.index(4)]
                } else {
                    [1, 2, 1, 0][rng.index(4)]
                }
            })
            .collect();
        let text: Vec<u8> = tokens
            .iter()
            .flat_map(|&t| vocab.token_bytes(t).unwrap().to_vec())
            .collect();
        let ok = run_tokens(&tpda, vocab.len() as u32, &tokens);
        assert_eq!(ok, is_anbn(&text), "tokens {tokens:?}");
        accepted += usize::from(ok);
    }
    assert!(
        accepted > 100,
        "only {accepted} accepted: the test lost its power"
    );
}

#[test]
fn token_pda_allows_exactly_the_tokens_that_keep_a_viable_prefix() {
    let vocab = figure7_vocab();
    let tpda = token_pda(ANBN, &vocab);
    let mut rng = SplitMix64::new(11);
    for _ in 0..500 {
        let mut w = tpda.walker();
        let mut text = Vec::new();
        loop {
            let allowed = w.allowed();
            for t in 0..4u32 {
                let next = [text.as_slice(), vocab.token_bytes(t).unwrap()].concat();
                assert_eq!(
                    allowed.contains(&t),
                    is_anbn_prefix(&next),
                    "after {text:?}, token {t}"
                );
            }
            assert_eq!(allowed.contains(&4), is_anbn(&text));
            let t = allowed[rng.index(allowed.len())];
            assert!(w.step(t));
            if t == 4 {
                assert!(w.finished() && is_anbn(&text));
                break;
            }
            text.extend_from_slice(vocab.token_bytes(t).unwrap());
        }
    }
}

/// Balanced parentheses around lists of `a`, `bc` and nested groups.
const PARENS: &str = r#"
    S -> "(" L ")" ;
    L -> "" | E L ;
    E -> "a" | "bc" | S ;
"#;

/// Independent recursive-descent checker for `PARENS`.
fn parens_group(text: &[u8], mut pos: usize) -> Option<usize> {
    if text.get(pos) != Some(&b'(') {
        return None;
    }
    pos += 1;
    loop {
        match text.get(pos)? {
            b')' => return Some(pos + 1),
            b'a' => pos += 1,
            b'b' if text.get(pos + 1) == Some(&b'c') => pos += 2,
            b'(' => pos = parens_group(text, pos)?,
            _ => return None,
        }
    }
}

fn is_parens(text: &[u8]) -> bool {
    parens_group(text, 0) == Some(text.len())
}

/// A random member of `PARENS`, generated independently of the grammar machinery.
fn gen_parens(rng: &mut SplitMix64, depth: usize, out: &mut Vec<u8>) {
    out.push(b'(');
    for _ in 0..rng.index(4) {
        match rng.index(if depth < 3 { 3 } else { 2 }) {
            0 => out.push(b'a'),
            1 => out.extend_from_slice(b"bc"),
            _ => gen_parens(rng, depth + 1, out),
        }
    }
    out.push(b')');
}

/// A random text: a member, a mutated member, or random bytes.
fn random_text(rng: &mut SplitMix64) -> Vec<u8> {
    let mut text = Vec::new();
    gen_parens(rng, 0, &mut text);
    match rng.index(3) {
        0 => text,
        1 => {
            let i = rng.index(text.len());
            match rng.index(3) {
                0 => {
                    text.remove(i);
                }
                1 => text.insert(i, b"()abc"[rng.index(5)]),
                _ => text[i] = b"()abc"[rng.index(5)],
            }
            text
        }
        _ => (0..rng.index(10)).map(|_| b"()abc"[rng.index(5)]).collect(),
    }
}

/// Every way to split `text` into tokens of `vocab` (at most `cap` of them).
fn tokenizations(vocab: &ByteVocabulary, text: &[u8], cap: usize) -> Vec<Vec<u32>> {
    let mut out = Vec::new();
    let mut path = Vec::new();
    fn go(
        vocab: &ByteVocabulary,
        text: &[u8],
        pos: usize,
        path: &mut Vec<u32>,
        out: &mut Vec<Vec<u32>>,
        cap: usize,
    ) {
        if out.len() >= cap {
            return;
        }
        if pos == text.len() {
            out.push(path.clone());
            return;
        }
        for id in 0..vocab.len() as u32 {
            if let Some(t) = vocab.token_bytes(id) {
                if text[pos..].starts_with(t) {
                    path.push(id);
                    go(vocab, text, pos + t.len(), path, out, cap);
                    path.pop();
                }
            }
        }
    }
    go(vocab, text, 0, &mut path, &mut out, cap);
    out
}

fn parens_vocab() -> ByteVocabulary {
    ByteVocabulary::from_strs(&[
        "(", ")", "a", "b", "c", "bc", "((", "))", "()", "(a", "a)", ")(", "c)", "abc", "bca",
        "c((", ")))", "(bc)",
    ])
}

#[test]
fn parens_byte_pda_matches_recursive_checker() {
    let pda = pda_of(PARENS);
    let mut rng = SplitMix64::new(3);
    let mut members = 0;
    for _ in 0..5000 {
        let text = random_text(&mut rng);
        assert_eq!(
            pda.accepts(&text),
            is_parens(&text),
            "{}",
            String::from_utf8_lossy(&text)
        );
        members += usize::from(is_parens(&text));
    }
    assert!(members > 1000);
    // Every text over the alphabet up to length 7.
    let alphabet = b"()abc";
    let mut texts = vec![Vec::new()];
    for _ in 0..7 {
        let mut longer = Vec::new();
        for t in &texts {
            assert_eq!(
                pda.accepts(t),
                is_parens(t),
                "{}",
                String::from_utf8_lossy(t)
            );
            for &b in alphabet {
                longer.push([t.as_slice(), &[b]].concat());
            }
        }
        texts = longer;
    }
}

#[test]
fn parens_token_pda_accepts_every_tokenization_of_members_only() {
    let vocab = parens_vocab();
    let tpda = token_pda(PARENS, &vocab);
    let mut rng = SplitMix64::new(5);
    let mut checked = 0;
    for _ in 0..400 {
        let text = random_text(&mut rng);
        let expected = is_parens(&text);
        for tokens in tokenizations(&vocab, &text, 40) {
            assert_eq!(
                run_tokens(&tpda, vocab.len() as u32, &tokens),
                expected,
                "{} as {tokens:?}",
                String::from_utf8_lossy(&text)
            );
            checked += 1;
        }
    }
    assert!(checked > 2000, "only {checked} tokenizations checked");
}

#[test]
fn parens_random_walks_end_only_on_members() {
    let vocab = parens_vocab();
    let tpda = token_pda(PARENS, &vocab);
    let eos = tpda.eos_ids[0];
    let mut rng = SplitMix64::new(9);
    let mut finished = 0;
    for _ in 0..500 {
        let mut w = tpda.walker();
        let mut text = Vec::new();
        for _ in 0..30 {
            let allowed = w.allowed();
            assert!(
                !allowed.is_empty(),
                "dead end after {}",
                String::from_utf8_lossy(&text)
            );
            assert_eq!(allowed.contains(&eos), is_parens(&text));
            let t = allowed[rng.index(allowed.len())];
            assert!(w.step(t));
            if t == eos {
                assert!(w.finished());
                finished += 1;
                break;
            }
            text.extend_from_slice(vocab.token_bytes(t).unwrap());
        }
    }
    assert!(finished > 50);
}
