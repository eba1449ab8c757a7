//! The byte-DFA algebra (`fstc_core::bytes::Algebra`) against the `regex` crate: for pairs
//! of random small patterns, every operation's result is compared on every text of up to
//! four pieces over `a`, `b`, `c`, `é` and a lone `\xC3` (invalid UTF-8), with the
//! operation applied to the oracle's answers (both match, either, one not the other, a
//! split point for concatenation, splits into matched pieces for closure, the mirrored text for reversal). Results are minimal,
//! witnesses are shortest, and size limits and terminal operands fail cleanly.

use fstc_core::bytes::ByteDfaErrorKind;
use fstc_core::bytes::{Algebra, ByteDfa, Universe};
use fstc_core::sample::SplitMix64;
use testkit::patterns::{all_texts, count_equivalence_classes, random_pattern};

const PIECES: &[&[u8]] = &[b"a", b"b", b"c", "é".as_bytes(), b"\xC3"];

fn oracle(pattern: &str) -> regex::bytes::Regex {
    regex::bytes::Regex::new(&format!(r"\A(?:{pattern})\z")).unwrap()
}

/// Two random patterns and their DFAs.
fn pair(rng: &mut SplitMix64) -> (String, String, ByteDfa, ByteDfa) {
    let (p, q) = (random_pattern(rng, 3), random_pattern(rng, 3));
    let a = fstc_regex::byte_dfa(&p, 10_000).unwrap();
    let b = fstc_regex::byte_dfa(&q, 10_000).unwrap();
    (p, q, a, b)
}

fn check(what: &str, dfa: &ByteDfa, texts: &[Vec<u8>], expected: impl Fn(&[u8]) -> bool) {
    for t in texts {
        assert_eq!(dfa.is_match(t), expected(t), "{what} on {t:?}");
    }
    assert_eq!(
        count_equivalence_classes(dfa),
        dfa.num_states(),
        "{what}: not minimal"
    );
}

#[test]
fn boolean_operations_agree_with_the_regex_crate() {
    let texts = all_texts(PIECES, 4);
    let algebra = Algebra::new();
    let mut rng = SplitMix64::new(15);
    for _ in 0..150 {
        let (p, q, a, b) = pair(&mut rng);
        let (ra, rb) = (oracle(&p), oracle(&q));
        let name = |op: &str| format!("{op}({p}, {q})");
        check(
            &name("intersect"),
            &algebra.intersect(&a, &b).unwrap(),
            &texts,
            |t| ra.is_match(t) && rb.is_match(t),
        );
        check(
            &name("union"),
            &algebra.union(&a, &b).unwrap(),
            &texts,
            |t| ra.is_match(t) || rb.is_match(t),
        );
        check(
            &name("difference"),
            &algebra.difference(&a, &b).unwrap(),
            &texts,
            |t| ra.is_match(t) && !rb.is_match(t),
        );
        check(
            &format!("complement_utf8({p})"),
            &algebra.complement(&a, Universe::Utf8).unwrap(),
            &texts,
            |t| std::str::from_utf8(t).is_ok() && !ra.is_match(t),
        );
        check(
            &format!("complement_bytes({p})"),
            &algebra.complement(&a, Universe::Bytes).unwrap(),
            &texts,
            |t| !ra.is_match(t),
        );
    }
}

#[test]
fn concatenation_and_reversal_agree_with_the_regex_crate() {
    let texts = all_texts(PIECES, 4);
    let algebra = Algebra::new();
    let mut rng = SplitMix64::new(51);
    for _ in 0..150 {
        let (p, q, a, b) = pair(&mut rng);
        let (ra, rb) = (oracle(&p), oracle(&q));
        check(
            &format!("concat({p}, {q})"),
            &algebra.concat(&a, &b).unwrap(),
            &texts,
            |t| (0..=t.len()).any(|i| ra.is_match(&t[..i]) && rb.is_match(&t[i..])),
        );
        check(
            &format!("reverse({p})"),
            &algebra.reverse(&a).unwrap(),
            &texts,
            |t| {
                let mirrored: Vec<u8> = t.iter().rev().copied().collect();
                ra.is_match(&mirrored)
            },
        );
    }
}

#[test]
fn closure_agrees_with_the_regex_crate() {
    let texts = all_texts(PIECES, 4);
    let algebra = Algebra::new();
    let mut rng = SplitMix64::new(77);
    for _ in 0..150 {
        let (p, _, a, _) = pair(&mut rng);
        let star = algebra.star(&a).unwrap();
        // By definition, pieces each matched by the oracle alone (anchors in `p` make
        // the oracle's own `(?:p)*` a different language).
        let ra = oracle(&p);
        check(&format!("star({p})"), &star, &texts, |t| in_closure(&ra, t));
        assert_eq!(algebra.star(&star).unwrap(), star, "star twice of {p}");
    }
    let empty = ByteDfa::empty_language();
    assert!(algebra.star(&empty).unwrap().is_match(b""));
}

/// Whether `t` splits into non-empty pieces each matched by `r` (or is empty).
fn in_closure(r: &regex::bytes::Regex, t: &[u8]) -> bool {
    t.is_empty() || (1..=t.len()).any(|i| r.is_match(&t[..i]) && in_closure(r, &t[i..]))
}

#[test]
fn equal_languages_give_equal_dfas() {
    let algebra = Algebra::new();
    let mut rng = SplitMix64::new(3);
    for _ in 0..100 {
        let (p, q, a, b) = pair(&mut rng);
        // De Morgan in the UTF-8 universe, and reversal twice.
        let lhs = algebra.complement(&algebra.union(&a, &b).unwrap(), Universe::Utf8);
        let rhs = algebra.intersect(
            &algebra.complement(&a, Universe::Utf8).unwrap(),
            &algebra.complement(&b, Universe::Utf8).unwrap(),
        );
        assert_eq!(lhs.unwrap(), rhs.unwrap(), "De Morgan on {p}, {q}");
        let twice = algebra.reverse(&algebra.reverse(&a).unwrap()).unwrap();
        assert_eq!(twice, a, "reverse twice of {p}");
        assert_eq!(algebra.intersect(&a, &a).unwrap(), a, "{p} ∩ {p}");
    }
}

#[test]
fn shortest_witnesses_are_shortest_and_emptiness_is_exact() {
    let texts = all_texts(PIECES, 3);
    let algebra = Algebra::new();
    let mut rng = SplitMix64::new(9);
    for _ in 0..200 {
        let (p, q, a, b) = pair(&mut rng);
        let both = algebra.intersect(&a, &b).unwrap();
        let (ra, rb) = (oracle(&p), oracle(&q));
        match both.shortest_match() {
            Some(w) => {
                assert!(ra.is_match(&w) && rb.is_match(&w), "{p} ∩ {q}: {w:?}");
                // No shorter text over the test pieces is in both.
                for t in texts.iter().filter(|t| t.len() < w.len()) {
                    assert!(!(ra.is_match(t) && rb.is_match(t)), "{p} ∩ {q}: {t:?}");
                }
                assert!(!both.is_empty());
            }
            None => {
                assert!(both.is_empty());
                for t in &texts {
                    assert!(!(ra.is_match(t) && rb.is_match(t)), "{p} ∩ {q}: {t:?}");
                }
            }
        }
        let none = algebra
            .intersect(&a, &algebra.complement(&a, Universe::Bytes).unwrap())
            .unwrap();
        assert!(none.is_empty(), "{p} minus itself");
        assert_eq!(none, ByteDfa::empty_language());
    }
    assert_eq!(
        fstc_regex::byte_dfa("[a-c]{3}x", 100)
            .unwrap()
            .shortest_match(),
        Some(b"aaax".to_vec())
    );
    assert_eq!(
        ByteDfa::universe(Universe::Utf8).shortest_match(),
        Some(Vec::new())
    );
}

#[test]
fn operations_stop_at_the_state_limit() {
    let mut algebra = Algebra::new();
    algebra.state_limit(500);
    // The mirror of `(a|b){12}a(a|b)*` is `(a|b)*a(a|b){12}`: 2^13 states.
    let wide = fstc_regex::byte_dfa("(?:a|b){12}a(?:a|b)*", 10_000).unwrap();
    let err = algebra.reverse(&wide).unwrap_err();
    assert_eq!(err.kind(), &ByteDfaErrorKind::TooManyStates { limit: 500 });
    assert!(err.to_string().contains("reversal"), "{err}");
    // A product of two 30-state cycles needs 900 states.
    let x = fstc_regex::byte_dfa("(?:a{30})*", 10_000).unwrap();
    let y = fstc_regex::byte_dfa("(?:a{31})*", 10_000).unwrap();
    let err = algebra.intersect(&x, &y).unwrap_err();
    assert_eq!(err.kind(), &ByteDfaErrorKind::TooManyStates { limit: 500 });
    assert!(err.to_string().contains("intersection"), "{err}");
    algebra.state_limit(10_000);
    let both = algebra.intersect(&x, &y).unwrap();
    assert_eq!(both.shortest_match(), Some(Vec::new()));
    assert!(both.is_match(&[b'a'; 30 * 31]) && !both.is_match(&[b'a'; 30]));
}

#[test]
fn terminal_operands_are_refused_by_name() {
    let algebra = Algebra::new();
    let wild = fstc_regex::byte_dfa("x(?P<TEXT_TOKEN>)", 1_000).unwrap();
    let plain = fstc_regex::byte_dfa("x", 1_000).unwrap();
    for (op, result) in [
        ("intersection", algebra.intersect(&plain, &wild)),
        ("union", algebra.union(&wild, &plain)),
        ("concatenation", algebra.concat(&plain, &wild)),
        ("reversal", algebra.reverse(&wild)),
        ("complement", algebra.complement(&wild, Universe::Utf8)),
    ] {
        let err = result.unwrap_err();
        assert_eq!(
            err.kind(),
            &ByteDfaErrorKind::TerminalOperand { operation: op }
        );
        assert!(err.to_string().contains("<TEXT_TOKEN>"), "{err}");
    }
}

/// `(?P<AUTOMATON>N)` splices a DFA into a pattern: a random pattern around a spliced
/// intersection matches what the oracle says for the same pattern with the intersection
/// checked on the spliced part (texts split at every point).
#[test]
fn spliced_automata_match_their_language_in_context() {
    let texts = all_texts(PIECES, 4);
    let algebra = Algebra::new();
    let mut rng = SplitMix64::new(16);
    for _ in 0..60 {
        let (p, q, a, b) = pair(&mut rng);
        let both = std::sync::Arc::new(algebra.intersect(&a, &b).unwrap());
        let dfa = fstc_regex::RegexBuilder::new()
            .automata(vec![both])
            .build("a(?P<AUTOMATON>0)(?:c|(?P<AUTOMATON>0))")
            .unwrap();
        let (ra, rb) = (oracle(&p), oracle(&q));
        let inner = |t: &[u8]| ra.is_match(t) && rb.is_match(t);
        for t in &texts {
            let expected = t.first() == Some(&b'a')
                && (1..=t.len()).any(|i| {
                    let (x, rest) = (&t[1..i], &t[i..]);
                    inner(x) && (rest == b"c" || inner(rest))
                });
            assert_eq!(dfa.is_match(t), expected, "a({p} & {q})(c|same) on {t:?}");
        }
    }
    let err = fstc_regex::RegexBuilder::new()
        .build("(?P<AUTOMATON>0)")
        .unwrap_err();
    assert!(err.to_string().contains("no automaton 0"), "{err}");
}

/// `substitute_chars` maps every text through a code-point encoding with several spellings
/// per code point: raw UTF-8 (not `\`), or below U+0100 also `\x` and two hex digits of
/// either case. Random patterns with wide classes and multi-byte characters; every short
/// text is decoded by brute force and compared with the pattern on its decoding.
#[test]
fn char_substitution_is_the_image_of_the_language() {
    let code = |ranges: &[(char, char)]| {
        let mut alts: Vec<Vec<Vec<(u8, u8)>>> = Vec::new();
        for &(lo, hi) in ranges {
            let raw = |a: char, b: char| regex_syntax::utf8::Utf8Sequences::new(a, b);
            let parts = [(lo, hi.min('[')), (lo.max(']'), hi)];
            for (a, b) in parts.into_iter().filter(|(a, b)| a <= b) {
                for seq in raw(a, b) {
                    alts.push(
                        seq.as_slice()
                            .iter()
                            .map(|r| vec![(r.start, r.end)])
                            .collect(),
                    );
                }
            }
            for c in lo as u32..=(hi as u32).min(0xff) {
                let digit = |d: u32| {
                    let d = char::from_digit(d, 16).unwrap() as u8;
                    vec![(d, d), (d.to_ascii_uppercase(), d.to_ascii_uppercase())]
                };
                alts.push(vec![
                    vec![(b'\\', b'\\')],
                    vec![(b'x', b'x')],
                    digit(c >> 4),
                    digit(c & 15),
                ]);
            }
        }
        alts
    };
    let decode = |t: &[u8]| -> Option<Vec<u8>> {
        let text = std::str::from_utf8(t).ok()?;
        let mut out = String::new();
        let mut rest = text;
        while let Some(c) = rest.chars().next() {
            if c == '\\' {
                let hex = rest.get(2..4).filter(|_| rest[1..].starts_with('x'))?;
                let v = u32::from_str_radix(hex, 16)
                    .ok()
                    .filter(|_| hex.bytes().all(|b| b.is_ascii_hexdigit()))?;
                out.push(char::from_u32(v)?);
                rest = &rest[4..];
            } else {
                out.push(c);
                rest = &rest[c.len_utf8()..];
            }
        }
        Some(out.into_bytes())
    };
    let pieces: &[&[u8]] = &[
        b"a",
        "é".as_bytes(),
        "😀".as_bytes(),
        b"\\",
        b"\\x61",
        b"\\xE9",
        b"\\xe9",
        b"\\x5C",
        b"\\x5",
        b"\xC3",
    ];
    let texts = all_texts(pieces, 3);
    let leaves = &[
        "a",
        "é",
        "😀",
        "\\\\",
        "[^a]",
        "[a-é]",
        "(?s:.)",
        "[\\x{80}-\\x{10FFFF}]",
    ];
    let algebra = Algebra::new();
    let mut rng = SplitMix64::new(29);
    for _ in 0..60 {
        let p = testkit::patterns::random_pattern_with(&mut rng, 3, leaves);
        let a = fstc_regex::byte_dfa(&p, 10_000).unwrap();
        let image = algebra.substitute_chars(&a, code).unwrap();
        let ra = oracle(&p);
        for t in &texts {
            let expected = decode(t).is_some_and(|d| ra.is_match(&d));
            assert_eq!(
                image.is_match(t),
                expected,
                "{p} on {:?}",
                String::from_utf8_lossy(t)
            );
        }
        assert_eq!(
            count_equivalence_classes(&image),
            image.num_states(),
            "{p}: not minimal"
        );
    }
    let wild = fstc_regex::byte_dfa("x(?P<TEXT_TOKEN>)", 1_000).unwrap();
    let err = algebra.substitute_chars(&wild, code).unwrap_err();
    assert!(err.to_string().contains("<TEXT_TOKEN>"), "{err}");
}
