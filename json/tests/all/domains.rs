//! Long domains in `hostname` and `email`: the shapes admitted (at most 3 labels of 63
//! characters, 4 of 62, 8 of 30, 16 of 14, 32 of 6 or 64 of 2, so never past RFC 1123's
//! 253 characters) at their edges, random names of every length against the `jsonschema`
//! crate, and random walks long enough to reach them.

use crate::formats::{crate_misses, language};
use crate::support::{dfa_walk, validator};
use fstc_core::bytes::ByteDfa;
use fstc_core::sample::SplitMix64;
use serde_json::{json, Value};

/// The shapes as docs/json-schema.md states them: (most labels, most characters per label).
const SHAPES: [(usize, usize); 6] = [(3, 63), (4, 62), (8, 30), (16, 14), (32, 6), (64, 2)];

fn fits_a_shape(labels: &[usize]) -> bool {
    SHAPES
        .iter()
        .any(|&(n, max)| labels.len() <= n && labels.iter().all(|&l| l <= max))
}

/// A host name with labels of these lengths (letters, digits, inner hyphens).
fn name(lengths: &[usize], rng: &mut SplitMix64) -> String {
    let inner = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-";
    let labels: Vec<String> = lengths
        .iter()
        .map(|&len| {
            (0..len)
                .map(|i| {
                    let ends = i == 0 || i + 1 == len;
                    inner[rng.index(inner.len() - usize::from(ends))] as char
                })
                .collect()
        })
        .collect();
    labels.join(".")
}

fn admits(dfa: &ByteDfa, text: &str) -> bool {
    dfa.is_match(Value::String(text.into()).to_string().as_bytes())
}

#[test]
fn each_shape_is_admitted_to_its_edge_and_no_further() {
    let mut rng = SplitMix64::new(3);
    let (host, email) = (language("hostname"), language("email"));
    let oracle = validator(&json!({"format": "hostname"}));
    for (n, max) in SHAPES {
        let longest = name(&vec![max; n], &mut rng);
        assert!(longest.len() <= 253, "{n} x {max}");
        assert!(oracle.is_valid(&json!(longest)), "{longest}");
        assert!(admits(&host, &longest), "{n} labels of {max}: {longest}");
        assert!(admits(&email, &format!("ada@{longest}")), "{longest}");
        // One label more, or one character more in one label, leaves every shape.
        for lengths in [vec![max; n + 1], [vec![max + 1], vec![max; n - 1]].concat()] {
            let text = name(&lengths, &mut rng);
            assert_eq!(admits(&host, &text), fits_a_shape(&lengths), "{text}");
        }
    }
    // Valid by RFC 1123 but in no shape (the subset's cost of not counting to 253).
    let full = name(&[63, 63, 63, 61], &mut rng);
    assert!(full.len() == 253 && oracle.is_valid(&json!(full)));
    assert!(!admits(&host, &full) && !admits(&email, &format!("a@{full}")));
    // Past RFC 1123: a 64-character label, 254 characters.
    let long_label = name(&[64], &mut rng);
    let too_long = name(&[2; 85], &mut rng);
    for text in [long_label, too_long] {
        assert!(!oracle.is_valid(&json!(text)), "{text}");
        assert!(!admits(&host, &text), "{text}");
    }
}

/// Random names of 1 to 70 labels of 1 to 64 characters: admitted exactly when they fit a
/// shape, and everything admitted is valid to the crate.
#[test]
fn random_names_are_admitted_by_shape_and_validate() {
    let mut rng = SplitMix64::new(17);
    let (host, email) = (language("hostname"), language("email"));
    let (host_oracle, email_oracle) = (
        validator(&json!({"format": "hostname"})),
        validator(&json!({"format": "email"})),
    );
    let mut admitted = 0;
    for _ in 0..600 {
        let count = 1 + rng.index(70);
        let cap = [2, 6, 14, 30, 64][rng.index(5)];
        let lengths: Vec<usize> = (0..count).map(|_| 1 + rng.index(cap)).collect();
        let text = name(&lengths, &mut rng);
        let fits = fits_a_shape(&lengths);
        assert_eq!(admits(&host, &text), fits, "hostname {text}");
        assert_eq!(admits(&email, &format!("x@{text}")), fits, "email x@{text}");
        if fits {
            admitted += 1;
            assert!(host_oracle.is_valid(&json!(text)), "{text}");
            assert!(email_oracle.is_valid(&json!(format!("x@{text}"))), "{text}");
        }
    }
    assert!(
        (150..450).contains(&admitted),
        "{admitted} of 600 fit a shape"
    );
}

/// Walks long enough to reach long domains validate.
#[test]
fn long_walks_validate() {
    let mut rng = SplitMix64::new(29);
    for format in ["hostname", "email"] {
        let (dfa, oracle) = (language(format), validator(&json!({"format": format})));
        let mut longest = 0;
        for _ in 0..60 {
            let text = String::from_utf8(dfa_walk(&dfa, &mut rng, 250)).unwrap();
            let value: Value = serde_json::from_str(&text).unwrap();
            let s = value.as_str().unwrap();
            longest = longest.max(s.len());
            assert!(
                oracle.is_valid(&value) || crate_misses(format, s),
                "{format}: {text}"
            );
        }
        assert!(longest > 150, "{format}: longest walk {longest}");
    }
}
