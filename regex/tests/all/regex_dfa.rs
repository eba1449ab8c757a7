//! Differential tests of `ByteDfa` against the `regex` crate, minimality and trimness
//! checks, the DOT snapshot of the paper's Figure 5, and timings of the patterns a
//! later issue must compile quickly.

use std::time::Instant;

use fstc_core::bytes::ByteAutomaton;
use fstc_core::bytes::{ByteDfa, DEAD, DEFAULT_DFA_STATE_LIMIT};
use fstc_core::labels::byte_label;
use fstc_core::sample::SplitMix64;
use fstc_regex::{RegexBuilder, RegexErrorKind};
use rustfst::fst_impls::VectorFst;
use rustfst::fst_traits::{CoreFst, ExpandedFst};
use rustfst::semirings::TropicalWeight;
use rustfst::trs::Trs;
use testkit::patterns::count_equivalence_classes;

/// `fstc_core::sample::SplitMix64` (seeded, so failures reproduce) drawing `usize` indices.
struct Rng(SplitMix64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0.below(n as u64) as usize
    }
}

/// (pattern, texts that must match, characters to build random texts from)
const CASES: &[(&str, &[&str], &str)] = &[
    ("abc", &["abc"], "abcx"),
    ("a|b|c", &["a", "b", "c"], "abcd"),
    ("(foo)+d", &["food", "foofood", "foofoofood"], "fod"),
    ("a*", &["", "a", "aaaa"], "ab"),
    ("(a|b)*abb", &["abb", "aabb", "babb", "abababb"], "ab"),
    ("[a-c]{2,4}", &["ab", "abc", "cccc"], "abcd"),
    ("x{3}", &["xxx"], "xy"),
    ("x{2,}", &["xx", "xxxxxxx"], "xy"),
    ("(ab)?c", &["c", "abc"], "abc"),
    ("a?b?c?", &["", "a", "ac", "abc", "bc"], "abc"),
    (
        r"[0-9]+(\.[0-9]+)?",
        &["0", "12", "3.14", "10.001"],
        "019.a",
    ),
    (
        r"\d{4}-\d{2}-\d{2}",
        &["2024-01-31", "٢٠٢٤-01-31"],
        "0129-٢x",
    ),
    ("[^abc]*", &["", "xyz", "é☃"], "abxyé"),
    (".", &["a", "é", "☃", "😀"], "a\né☃😀"),
    (".*x.*", &["x", "axb", "éxé"], "axé\n"),
    ("(?s).{2}", &["\n\n", "aé"], "a\né"),
    (r"\w+", &["abc", "été", "x_1", "Ωμέγα"], "a_1 é-Ω"),
    (r"[^\W\d]\w*", &["a1", "é", "_x", "Ω9"], "a1_é -"),
    (r"\p{L}+", &["abc", "日本", "Ωé"], "a日1é "),
    (r"\p{Greek}{1,3}", &["α", "αβγ", "Ω"], "αβa"),
    ("(?i)hello", &["hello", "HeLLo", "HELLO"], "hHeElLoO"),
    (
        "(?i)straße",
        &["straße", "STRAẞE", "Straße"],
        "sStTrRaAßẞeE",
    ),
    ("(?i)[a-z]+ö", &["abö", "ABÖ", "xÖ"], "aAbBöÖ"),
    ("é|e\u{301}", &["é", "e\u{301}"], "e\u{301}é"),
    ("[α-ω]+", &["αω", "λ"], "αωλa"),
    ("😀+|☃", &["😀", "😀😀", "☃"], "😀☃a"),
    ("^abc$", &["abc"], "abc"),
    ("a^b", &[], "ab"),
    ("(^a|b)c", &["ac", "bc"], "abc"),
    ("a$b", &[], "ab"),
    ("(a$|b)c?", &["a", "b", "bc"], "abc"),
    ("$^", &[""], "a"),
    ("(a|^)b", &["ab", "b"], "ab"),
    (r"\A(ab)*\z", &["", "ab", "abab"], "ab"),
    ("a(b$)?", &["a", "ab"], "ab"),
    ("(a$)*b?", &["", "a", "b"], "ab"),
    ("(^|a)*b", &["b", "ab", "aab"], "ab"),
    (
        r"((25[0-5]|2[0-4]\d|[01]?\d\d?)\.){3}(25[0-5]|2[0-4]\d|[01]?\d\d?)",
        &["192.168.0.1", "255.255.255.255", "0.0.0.0", "10.2.34.199"],
        "0125.9",
    ),
    (
        r#""([^"\\]|\\.)*""#,
        &[r#""""#, r#""a\"b""#, r#""é\\""#],
        "\"\\aé",
    ),
    (
        r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})",
        &["2024-01-31T12:34:56Z", "2024-01-31T12:34:56.789+02:00"],
        "0129-:TZ.+",
    ),
    (
        r"Summary:(\n\* [^\n]+){3,5}",
        &[
            "Summary:\n* a\n* b\n* c",
            "Summary:\n* x y\n* é\n* 1\n* 2\n* 3",
        ],
        "\n* ab",
    ),
    ("(a+?)(b*?)", &["a", "aab", "abbb"], "ab"),
    ("[[:alpha:]]+[[:digit:]]", &["a1", "abc9"], "a1b9é"),
    ("(?x) a b  # comment\n", &["ab"], "ab "),
    ("[a-z&&[^aeiou]]+", &["bcd", "xyz"], "abeiz"),
    (
        "(a|ab)(c|bcd)(d*)",
        &["ac", "abcd", "abcdd", "acdd"],
        "abcd",
    ),
    ("(?-u:[a-z])+", &["abc"], "abé"),
    ("(?i)ǅ", &["ǅ", "Ǆ", "ǆ"], "ǄǅǆD"),
    (
        r"[\p{Han}\p{Hiragana}]{1,2}",
        &["日", "日本", "ひら"],
        "日ひaカ",
    ),
    ("", &[""], "a"),
    (r"[^\x00-\x7F]", &["é", "😀"], "aé😀"),
    (r"\s*x\s*", &["x", " x\t", "\u{3000}x\n"], " x\t\u{3000}a"),
    ("(|a)+b", &["b", "ab", "aab"], "ab"),
    ("(a*)*b", &["b", "aab"], "ab"),
    ("a{0}b", &["b"], "ab"),
    ("(?U)a+", &["a", "aaa"], "ab"),
    ("[^a]", &["b", "é", "\n"], "abé\n"),
    (
        r"\x{10FFFF}|\x{FFFF}",
        &["\u{10FFFF}", "\u{FFFF}"],
        "\u{10FFFF}\u{FFFF}a",
    ),
    ("(?i)k", &["k", "K", "\u{212A}"], "kK\u{212A}"),
    ("[ab]{3,5}c|a{2}", &["aaac", "aa", "ababac"], "abc"),
    (r"(?i)\p{Lu}{2}", &["ab", "ÉÈ", "Ωx"], "aBéΩ1"),
];

/// Walks the rustfst acceptor byte by byte (arcs found by label).
fn fst_accepts(fst: &VectorFst<TropicalWeight>, text: &[u8]) -> bool {
    let Some(mut s) = fst.start() else {
        return false;
    };
    for &b in text {
        let trs = fst.get_trs(s).expect("state exists");
        match trs.trs().iter().find(|tr| tr.ilabel == byte_label(b)) {
            Some(tr) => {
                assert_eq!(tr.olabel, tr.ilabel, "an acceptor");
                s = tr.nextstate;
            }
            None => return false,
        }
    }
    fst.is_final(s).expect("state exists")
}

/// Walks through the `ByteAutomaton` trait, as the composition does.
fn trait_accepts<A: ByteAutomaton>(a: &A, text: &[u8]) -> bool {
    let mut s = a.start();
    for &b in text {
        match a.next(s, b) {
            Some(t) => s = t,
            None => return false,
        }
    }
    a.is_accepting(s)
}

/// Texts to try: the examples, random strings over the alphabet, and mutations of the
/// examples at character and byte level (the latter produce invalid UTF-8 too).
fn texts(examples: &[&str], alphabet: &str, rng: &mut Rng) -> Vec<Vec<u8>> {
    let chars: Vec<char> = alphabet.chars().collect();
    let mut out: Vec<Vec<u8>> = examples.iter().map(|e| e.as_bytes().to_vec()).collect();
    for _ in 0..300 {
        let len = rng.below(12);
        let s: String = (0..len).map(|_| chars[rng.below(chars.len())]).collect();
        out.push(s.into_bytes());
    }
    for e in examples {
        let ec: Vec<char> = e.chars().collect();
        for _ in 0..60 {
            let mut m = ec.clone();
            match rng.below(5) {
                0 if !m.is_empty() => {
                    m.remove(rng.below(m.len()));
                }
                1 => m.insert(rng.below(m.len() + 1), chars[rng.below(chars.len())]),
                2 if !m.is_empty() => {
                    let i = rng.below(m.len());
                    m[i] = chars[rng.below(chars.len())];
                }
                3 => {
                    let dup = m.clone();
                    m.extend(dup);
                }
                _ => {
                    let mut bytes = m.iter().collect::<String>().into_bytes();
                    if !bytes.is_empty() {
                        let i = rng.below(bytes.len());
                        match rng.below(3) {
                            0 => bytes.truncate(i),
                            1 => bytes[i] ^= 1 << rng.below(8),
                            _ => {
                                bytes.remove(i);
                            }
                        }
                    }
                    out.push(bytes);
                    continue;
                }
            }
            out.push(m.into_iter().collect::<String>().into_bytes());
        }
    }
    out
}

/// Every state is reachable from the start and can reach an accepting state.
fn assert_trim(dfa: &ByteDfa, pattern: &str) {
    let n = dfa.num_states();
    let mut seen = vec![false; n];
    let mut stack = vec![0u32];
    seen[0] = true;
    let mut rev: Vec<Vec<u32>> = vec![Vec::new(); n];
    while let Some(s) = stack.pop() {
        for b in 0..=255u8 {
            if let Some(t) = dfa.next(s, b) {
                rev[t as usize].push(s);
                if !seen[t as usize] {
                    seen[t as usize] = true;
                    stack.push(t);
                }
            }
        }
    }
    assert!(seen.iter().all(|&x| x), "{pattern}: unreachable state");
    if n == 1 && !dfa.is_accepting(0) {
        assert_eq!(
            dfa.num_transitions(),
            0,
            "{pattern}: empty language has no edges"
        );
        return;
    }
    let mut live = vec![false; n];
    let mut stack: Vec<u32> = (0..n as u32).filter(|&s| dfa.is_accepting(s)).collect();
    for &s in &stack {
        live[s as usize] = true;
    }
    while let Some(t) = stack.pop() {
        for &s in &rev[t as usize] {
            if !live[s as usize] {
                live[s as usize] = true;
                stack.push(s);
            }
        }
    }
    assert!(live.iter().all(|&x| x), "{pattern}: dead state left in");
}

#[test]
fn agrees_with_regex_crate_on_every_text() {
    assert!(CASES.len() >= 40);
    let mut rng = Rng(SplitMix64::new(0x9E37_79B9_7F4A_7C15));
    let mut total = 0;
    for &(pattern, examples, alphabet) in CASES {
        let oracle = regex::bytes::Regex::new(&format!(r"\A(?:{pattern})\z")).unwrap();
        let dfa = fstc_regex::byte_dfa(pattern, DEFAULT_DFA_STATE_LIMIT)
            .unwrap_or_else(|e| panic!("{pattern}: {e}"));
        let fst = dfa.to_fst();
        assert_eq!(fst.num_states(), dfa.num_states(), "{pattern}");
        for e in examples {
            assert!(
                oracle.is_match(e.as_bytes()),
                "bad example {e:?} for {pattern}"
            );
        }
        let mut matched = 0;
        for text in texts(examples, alphabet, &mut rng) {
            let want = oracle.is_match(&text);
            matched += usize::from(want);
            assert_eq!(
                dfa.is_match(&text),
                want,
                "{pattern} on {:?}",
                String::from_utf8_lossy(&text)
            );
            assert_eq!(
                trait_accepts(&dfa, &text),
                want,
                "{pattern} (trait) on {text:?}"
            );
            assert_eq!(
                fst_accepts(&fst, &text),
                want,
                "{pattern} (fst) on {text:?}"
            );
            total += 1;
        }
        assert!(matched >= examples.len(), "{pattern}");
        assert_eq!(
            count_equivalence_classes(&dfa),
            dfa.num_states(),
            "{pattern}: not minimal"
        );
        assert_trim(&dfa, pattern);
    }
    eprintln!("checked {total} texts on {} patterns", CASES.len());
}

#[test]
fn figure_5_has_five_states_and_no_dead_state() {
    let dfa = fstc_regex::byte_dfa("(foo)+d", 100).unwrap();
    assert_eq!(dfa.num_states(), 5);
    assert_eq!(dfa.num_transitions(), 5);
    insta::assert_snapshot!("foo_plus_d_dot", dfa.to_dot());
}

#[test]
fn dot_of_a_utf8_pattern_is_stable() {
    let dfa = fstc_regex::byte_dfa("[0-9]+|é|[α-γ]", 100).unwrap();
    insta::assert_snapshot!("utf8_dot", dfa.to_dot());
}

#[test]
fn equal_languages_give_equal_dfas() {
    let build = |p: &str| fstc_regex::byte_dfa(p, 1000).unwrap();
    assert_eq!(build("a|a"), build("a"));
    assert_eq!(build("a*a*"), build("a*"));
    assert_eq!(build("(a|b)*"), build("[ab]*"));
    assert_eq!(build("(?i)ab"), build("[aA][bB]"));
    assert_eq!(build("x{2,3}"), build("xx|xxx"));
    assert_ne!(build("x{2,3}"), build("xx|xxxx"));
    // The classic: (a|b)*abb needs exactly four states.
    assert_eq!(build("(a|b)*abb").num_states(), 4);
    assert_eq!(build("a*").num_states(), 1);
}

#[test]
fn empty_language_is_one_non_accepting_state() {
    for p in ["a^b", "a$b", r"[^\x00-\x{10FFFF}]", r"a\zb", "(a^)+"] {
        let dfa = fstc_regex::byte_dfa(p, 100).unwrap();
        assert_eq!(dfa.num_states(), 1, "{p}");
        assert!(!dfa.is_accepting(0), "{p}");
        assert_eq!(dfa.num_transitions(), 0, "{p}");
        assert!(!dfa.is_match(b""), "{p}");
    }
}

#[test]
fn byte_classes_index_the_table() {
    let dfa = fstc_regex::byte_dfa("[0-9]+x", 100).unwrap();
    let classes = dfa.byte_classes();
    assert_eq!(classes[b'0' as usize], classes[b'9' as usize]);
    assert_ne!(classes[b'0' as usize], classes[b'x' as usize]);
    assert_eq!(
        dfa.transitions().len(),
        dfa.num_states() * dfa.num_classes()
    );
    for s in 0..dfa.num_states() as u32 {
        for b in 0..=255u8 {
            let t =
                dfa.transitions()[s as usize * dfa.num_classes() + classes[b as usize] as usize];
            assert_eq!(dfa.next(s, b), (t != DEAD).then_some(t));
        }
    }
    // Start, digits seen (loop), accept: 10 + 10 + 1 byte arcs.
    assert_eq!(dfa.num_states(), 3);
    assert_eq!(dfa.num_transitions(), 21);
}

#[test]
fn dot_labels_group_ranges_per_target() {
    let dot = fstc_regex::byte_dfa("[0-9a-c]|é|-", 100).unwrap().to_dot();
    assert!(dot.contains(r#"[label="[\\-0-9a-c]"]"#), "{dot}");
    assert!(dot.contains(r#"[label="\\xC3"]"#), "{dot}");
    assert!(dot.contains(r#"[label="\\xA9"]"#), "{dot}");
    assert_eq!(
        dot,
        fstc_regex::byte_dfa("-|[a-c0-9]|é", 100).unwrap().to_dot()
    );
}

#[test]
fn builder_case_insensitive_and_limit() {
    let dfa = RegexBuilder::new()
        .case_insensitive(true)
        .build("abc")
        .unwrap();
    assert!(dfa.is_match(b"AbC"));
    let err = RegexBuilder::new()
        .state_limit(3)
        .build("abcdef")
        .unwrap_err();
    assert_eq!(err.kind(), &RegexErrorKind::TooManyStates { limit: 3 });
}

/// The patterns a later issue must compile in a few ms each; run with
/// `cargo test --release -p fstc-core --test all -- --nocapture regex_dfa::timings`.
#[test]
fn timings_of_realistic_patterns() {
    let cases: &[(&str, &str)] = &[
        (r"[^\W\d]\w*", "naïve_1"),
        (
            r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})",
            "2024-01-31T12:34:56.5-03:00",
        ),
        (
            r"((25[0-5]|2[0-4]\d|[01]?\d\d?)\.){3}(25[0-5]|2[0-4]\d|[01]?\d\d?)",
            "127.0.0.1",
        ),
        (r"Summary:(\n\* [^\n]+){3,5}", "Summary:\n* a\n* b\n* c"),
        (r#""([^"\\]|\\.)*""#, r#""say \"hi\"""#),
    ];
    // Best of five: the machine running the tests may be shared.
    for &(p, text) in cases {
        let mut best = std::time::Duration::MAX;
        let mut dfa = None;
        for _ in 0..5 {
            let t = Instant::now();
            dfa = Some(fstc_regex::byte_dfa(p, DEFAULT_DFA_STATE_LIMIT).unwrap());
            best = best.min(t.elapsed());
        }
        let dfa = dfa.unwrap();
        assert!(dfa.is_match(text.as_bytes()), "{p}");
        eprintln!(
            "{:>8.3} ms  {:>4} states {:>3} classes  {p}",
            best.as_secs_f64() * 1e3,
            dfa.num_states(),
            dfa.num_classes()
        );
    }
}
