//! Regex extensions (Koo et al. §2.5): every sugar extension is checked differentially,
//! alone and in context, against a checker written here from the documented rules (not
//! from fstc's code), over exhaustive small texts, random texts and byte-level mutations
//! of matching texts. Terminals are checked for structure and precedence, malformed uses
//! for their errors, and the linear constructions for their size.

use std::collections::BTreeSet;

use fstc_core::bytes::ByteAutomaton;
use fstc_core::bytes::{ByteDfa, TerminalKind, DEFAULT_DFA_STATE_LIMIT};
use fstc_core::sample::SplitMix64;
use fstc_regex::{RegexBuilder, RegexErrorKind, EXTENSIONS};
use regex::Regex;

fn dfa(pattern: &str) -> ByteDfa {
    fstc_regex::byte_dfa(pattern, DEFAULT_DFA_STATE_LIMIT)
        .unwrap_or_else(|e| panic!("{pattern:?}: {e}"))
}

/// Every string of up to `max_len` chars over `alphabet`.
fn all_strings(alphabet: &[char], max_len: usize) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut layer = vec![String::new()];
    for _ in 0..max_len {
        let mut next = Vec::new();
        for s in &layer {
            for &c in alphabet {
                let mut t = s.clone();
                t.push(c);
                next.push(t);
            }
        }
        out.extend(next.iter().cloned());
        layer = next;
    }
    out
}

fn random_string(rng: &mut SplitMix64, alphabet: &[char], max_len: usize) -> String {
    let len = rng.index(max_len + 1);
    (0..len)
        .map(|_| alphabet[rng.index(alphabet.len())])
        .collect()
}

/// Byte-level edits of `text`: deletions, insertions (including bytes that break UTF-8),
/// duplications and swaps.
fn mutations(rng: &mut SplitMix64, text: &[u8], n: usize) -> Vec<Vec<u8>> {
    const BYTES: &[u8] = b"a\",\\ :#\n\x80\xA9\xC3\xE2\xFF";
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let mut t = text.to_vec();
        for _ in 0..1 + rng.index(2) {
            let i = rng.index(t.len() + 1);
            match rng.index(4) {
                0 if i < t.len() => {
                    t.remove(i);
                }
                1 if i < t.len() => {
                    let b = t[i];
                    t.insert(i, b);
                }
                2 if i + 1 < t.len() => t.swap(i, i + 1),
                _ => t.insert(i, BYTES[rng.index(BYTES.len())]),
            }
        }
        out.push(t);
    }
    out
}

/// Compares `dfa.is_match` with `oracle` (given text, `None` when not UTF-8) on `texts`.
fn agree(pattern: &str, dfa: &ByteDfa, texts: &[Vec<u8>], oracle: &dyn Fn(&str) -> bool) -> usize {
    let mut matched = 0;
    for t in texts {
        let want = std::str::from_utf8(t).map(oracle).unwrap_or(false);
        assert_eq!(
            dfa.is_match(t),
            want,
            "{pattern:?} on {:?}",
            String::from_utf8_lossy(t)
        );
        matched += want as usize;
    }
    matched
}

/// Runs `oracle` against the DFA of `pattern` on all short strings over `alphabet`,
/// random longer ones, the `good` texts and mutations of them. Asserts a fair share of
/// both outcomes, so a checker that always says yes or no cannot pass.
fn differential(pattern: &str, alphabet: &[char], good: &[&str], oracle: &dyn Fn(&str) -> bool) {
    let d = dfa(pattern);
    let mut rng = SplitMix64::new(0x5EED ^ pattern.len() as u64);
    let exhaustive = match alphabet.len() {
        0..=5 => 6,
        6..=8 => 5,
        _ => 4,
    };
    let mut texts: Vec<Vec<u8>> = all_strings(alphabet, exhaustive)
        .into_iter()
        .map(String::into_bytes)
        .collect();
    for _ in 0..3000 {
        texts.push(random_string(&mut rng, alphabet, 14).into_bytes());
    }
    for g in good {
        assert!(oracle(g), "the checker rejects the good text {g:?}");
        texts.push(g.as_bytes().to_vec());
        texts.extend(mutations(&mut rng, g.as_bytes(), 200));
    }
    // Mutations of random matching texts too.
    let found: Vec<Vec<u8>> = texts
        .iter()
        .filter(|t| std::str::from_utf8(t).map(oracle).unwrap_or(false))
        .take(300)
        .cloned()
        .collect();
    for t in &found {
        texts.extend(mutations(&mut rng, t, 10));
    }
    let matched = agree(pattern, &d, &texts, oracle);
    assert!(
        matched >= 20 && texts.len() - matched >= 20,
        "{pattern:?}: {matched} of {} texts match; the test needs both outcomes",
        texts.len()
    );
}

// ---- Independent checkers, from the documented semantics. ----

/// `"`, then characters where `"` and `\` occur only escaped by `\`, then `"`.
fn is_quoted(s: &str) -> bool {
    let cs: Vec<char> = s.chars().collect();
    if cs.len() < 2 || cs[0] != '"' {
        return false;
    }
    let mut i = 1;
    while i < cs.len() {
        match cs[i] {
            '"' => return i == cs.len() - 1,
            '\\' => i += 2,
            _ => i += 1,
        }
    }
    false
}

/// A one-line YAML plain scalar, per the rules in the documentation.
fn is_unquoted(s: &str) -> bool {
    let cs: Vec<char> = s.chars().collect();
    let ws = |c: char| c == ' ' || c == '\t';
    let allowed = |c: char| {
        c != '\u{FEFF}'
            && matches!(c, '\t' | ' '..='~' | '\u{A0}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..='\u{10FFFF}')
    };
    if cs.is_empty() || !cs.iter().all(|&c| allowed(c)) {
        return false;
    }
    let first = cs[0];
    if ws(first) || ws(cs[cs.len() - 1]) {
        return false;
    }
    if "-?:,[]{}#&*!|>'\"%@`".contains(first)
        && (!"-?:".contains(first) || cs.len() < 2 || ws(cs[1]))
    {
        return false;
    }
    for i in 0..cs.len() {
        if cs[i] == ':' && (i + 1 == cs.len() || ws(cs[i + 1])) {
            return false;
        }
        if cs[i] == '#' && i > 0 && ws(cs[i - 1]) {
            return false;
        }
    }
    true
}

/// Ends with a stop phrase, and no stop phrase ends anywhere earlier.
fn is_text_until(stops: &[&str], s: &str) -> bool {
    let b = s.as_bytes();
    let ends_here = |j: usize| stops.iter().any(|p| b[..j].ends_with(p.as_bytes()));
    ends_here(b.len()) && (0..b.len()).all(|j| !ends_here(j))
}

/// The numbers of items with which `s` is `item (delim item)*`.
fn list_counts(s: &str, delim: &str, item: &dyn Fn(&str) -> bool) -> BTreeSet<usize> {
    let bounds: Vec<usize> = s.char_indices().map(|(i, _)| i).chain([s.len()]).collect();
    // counts[j]: item counts with which s[..j] is a complete list.
    let mut counts: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); s.len() + 1];
    for &j in &bounds {
        for &i in bounds.iter().take_while(|&&i| i <= j) {
            if !item(&s[i..j]) {
                continue;
            }
            if i == 0 {
                counts[j].insert(1);
            } else if s[..i].ends_with(delim) {
                let before: Vec<usize> = counts[i - delim.len()].iter().map(|c| c + 1).collect();
                counts[j].extend(before);
            }
        }
    }
    std::mem::take(&mut counts[s.len()])
}

fn is_list(
    s: &str,
    delim: &str,
    item: &dyn Fn(&str) -> bool,
    min: usize,
    max: Option<usize>,
) -> bool {
    (s.is_empty() && min == 0)
        || list_counts(s, delim, item)
            .iter()
            .any(|&c| c >= min && max.map_or(true, |m| c <= m))
}

/// One or more of `items` in order, each at most once, separated by `delim`.
fn is_subsequence(s: &str, delim: &str, items: &[&dyn Fn(&str) -> bool]) -> bool {
    fn from(s: &str, delim: &str, items: &[&dyn Fn(&str) -> bool]) -> bool {
        for (k, item) in items.iter().enumerate() {
            for (j, _) in s.char_indices().chain([(s.len(), ' ')]) {
                if !item(&s[..j]) {
                    continue;
                }
                let rest = &s[j..];
                if rest.is_empty() {
                    return true;
                }
                if let Some(r) = rest.strip_prefix(delim) {
                    if from(r, delim, &items[k + 1..]) {
                        return true;
                    }
                }
            }
        }
        false
    }
    from(s, delim, items)
}

fn full(re: &str) -> impl Fn(&str) -> bool {
    let re = Regex::new(&format!("^(?:{re})$")).unwrap();
    move |s: &str| re.is_match(s)
}

// ---- Sugar, alone. ----

#[test]
fn quoted_text_matches_escaped_strings() {
    differential(
        "(?P<QUOTED_TEXT>)",
        &['"', '\\', 'a', 'é', '\n'],
        &[
            r#""""#,
            r#""a\"b""#,
            r#""\\""#,
            "\"é\\\n\\é\"",
            r#""\a\\\"""#,
        ],
        &is_quoted,
    );
}

#[test]
fn unquoted_text_follows_yaml_plain_scalar_rules() {
    differential(
        "(?P<UNQUOTED_TEXT>)",
        &[
            'a', ' ', ':', '#', '-', '?', '\t', ',', '"', 'é', '\n', '\u{FEFF}', '\u{85}',
        ],
        &[
            "a",
            "-a",
            "?x",
            ":x",
            "a:b c",
            "a#b",
            "x:y",
            "http://x.org/a#b",
            "é - 1",
            "a\tb",
        ],
        &is_unquoted,
    );
}

#[test]
fn delimited_list_counts_items() {
    let item = full("[a-c]+");
    for (pattern, min, max) in [
        ("(?P<DELIMITED_LIST>, |[a-c]+)", 1, None),
        ("(?P<DELIMITED_LIST>, |[a-c]+|0)", 0, None),
        ("(?P<DELIMITED_LIST>, |[a-c]+|2)", 2, None),
        ("(?P<DELIMITED_LIST>, |[a-c]+|2|3)", 2, Some(3)),
        ("(?P<DELIMITED_LIST>, |[a-c]+|0|2)", 0, Some(2)),
        ("(?P<DELIMITED_LIST>, |[a-c]+|1|)", 1, None),
        ("(?P<DELIMITED_LIST>, |[a-c]+|3|3)", 3, Some(3)),
    ] {
        let oracle = |s: &str| is_list(s, ", ", &item, min, max);
        let good: Vec<&str> = ["a", "a, b", "ab, c, ca", "a, b, c, a"]
            .into_iter()
            .filter(|g| oracle(g))
            .collect();
        differential(pattern, &['a', 'b', ',', ' '], &good, &oracle);
    }
    // Only the empty text.
    let d = dfa("(?P<DELIMITED_LIST>,|a|0|0)");
    assert!(d.is_match(b"") && !d.is_match(b"a"));
}

#[test]
fn delimited_list_with_ambiguous_items_and_delimiters() {
    // Items may contain the delimiter, and the delimiter may be empty.
    let item = full("a|a,a");
    differential(
        "(?P<DELIMITED_LIST>,|(?:a|a,a)|2|3)",
        &['a', ','],
        &["a,a", "a,a,a", "a,a,a,a"],
        &|s| is_list(s, ",", &item, 2, Some(3)),
    );
    let item = full("ab?");
    differential(
        "(?P<DELIMITED_LIST>|ab?|2|4)",
        &['a', 'b'],
        &["aa", "abab", "aaaa"],
        &|s| is_list(s, "", &item, 2, Some(4)),
    );
}

#[test]
fn substring_of_matches_nonempty_substrings_on_char_boundaries() {
    for u in ["abcab", "banana", "é☃aé", "a|b\\c"] {
        let pattern = format!("(?P<SUBSTRING_OF>{})", regex::escape(u));
        let alphabet: BTreeSet<char> = u.chars().chain(['x']).collect();
        let alphabet: Vec<char> = alphabet.into_iter().collect();
        differential(&pattern, &alphabet, &[u], &|s| {
            !s.is_empty() && u.contains(s)
        });
    }
}

#[test]
fn text_until_stops_at_the_first_stop_phrase() {
    for stops in [
        &["ab"][..],
        &["aab", "ba", "é"],
        &["ab", "b"],
        &["abc", "b"],
        &["é", "è!"],
        &["\n\n", "END"],
    ] {
        let pattern = format!(
            "(?P<TEXT_UNTIL>{})",
            stops
                .iter()
                .map(|s| regex::escape(s))
                .collect::<Vec<_>>()
                .join("|")
        );
        let mut alphabet: BTreeSet<char> = stops.iter().flat_map(|s| s.chars()).collect();
        alphabet.insert('c');
        alphabet.insert('ê');
        let alphabet: Vec<char> = alphabet.into_iter().collect();
        let good: Vec<String> = stops.iter().map(|s| format!("cê{s}")).collect();
        let good: Vec<&str> = good
            .iter()
            .map(String::as_str)
            .filter(|g| is_text_until(stops, g))
            .collect();
        differential(&pattern, &alphabet, &good, &|s| is_text_until(stops, s));
    }
}

#[test]
fn text_until_is_linear_in_the_stop_phrases() {
    let mut rng = SplitMix64::new(7);
    let stops: Vec<String> = (0..50)
        .map(|_| {
            let len = 3 + rng.index(6);
            random_string_exact(&mut rng, &['a', 'b', 'c', 'é', '<', '/', '>'], len)
        })
        .collect();
    let total: usize = stops.iter().map(String::len).sum();
    let pattern = format!(
        "(?P<TEXT_UNTIL>{})",
        stops
            .iter()
            .map(|s| regex::escape(s))
            .collect::<Vec<_>>()
            .join("|")
    );
    let d = dfa(&pattern);
    assert!(
        d.num_states() <= total + 16,
        "{} states for stop phrases of {total} bytes",
        d.num_states()
    );
    let refs: Vec<&str> = stops.iter().map(String::as_str).collect();
    let mut texts = Vec::new();
    for _ in 0..3000 {
        let mut t = random_string(&mut rng, &['a', 'x', 'ü'], 12);
        t.push_str(&stops[rng.index(stops.len())]);
        texts.push(t.into_bytes());
    }
    let matched = agree(&pattern, &d, &texts, &|s| is_text_until(&refs, s));
    assert!(matched > 1000, "{matched}");
}

#[test]
fn delimited_subsequence_of_keeps_order_and_uniqueness() {
    let a = full("a");
    let b = full("b+");
    let ab = full("ab");
    let c = full("c");
    differential(
        "(?P<DELIMITED_SUBSEQUENCE_OF>,|a|b+|ab|c)",
        &['a', 'b', 'c', ','],
        &["a", "c", "a,bb,ab,c", "ab", "b,c", "a,ab"],
        &|s| is_subsequence(s, ",", &[&a, &b, &ab, &c]),
    );
    // One item: just that item.
    let d = dfa("(?P<DELIMITED_SUBSEQUENCE_OF>, |x)");
    assert!(d.is_match(b"x") && !d.is_match(b"x, x") && !d.is_match(b""));
}

#[test]
fn delimited_subsequence_of_is_linear() {
    // 40 words with distinct first letters: the DFA grows with the words, not with the
    // number of subsequences.
    let words: Vec<String> = (0..40)
        .map(|i| format!("{}{i}x", char::from(b'A' + (i % 26) as u8)))
        .collect();
    let pattern = format!("(?P<DELIMITED_SUBSEQUENCE_OF>, |{})", words.join("|"));
    let d = dfa(&pattern);
    let total: usize = words.iter().map(String::len).sum();
    assert!(
        d.num_states() <= 3 * total + 80,
        "{} states",
        d.num_states()
    );
    assert!(d.is_match(b"A0x, C2x, N39x"));
    assert!(!d.is_match(b"C2x, A0x"));
    assert!(!d.is_match(b"A0x, A0x"));
}

// ---- Sugar in context and nested. ----

#[test]
fn extensions_compose_with_the_pattern_around_them() {
    differential(
        r"\[(?P<DELIMITED_LIST>, |(?P<QUOTED_TEXT>))\]",
        &['[', ']', '"', ',', ' ', 'a', '\\'],
        &[r#"["a"]"#, r#"["a", "\"", ""]"#, r#"["]"]"#],
        &|s| {
            s.strip_prefix('[')
                .and_then(|s| s.strip_suffix(']'))
                .is_some_and(|inner| is_list(inner, ", ", &is_quoted, 1, None))
        },
    );
    differential(
        "key: (?P<UNQUOTED_TEXT>)",
        &['k', 'e', 'y', ':', ' ', '#', 'a'],
        &["key: a", "key: a:b", "key: k#e y"],
        &|s| s.strip_prefix("key: ").is_some_and(is_unquoted),
    );
    let u = "abcab";
    differential(
        "(?P<SUBSTRING_OF>abcab){2}",
        &['a', 'b', 'c'],
        &["aa", "abcababcab", "cabb"],
        &|s| {
            s.char_indices()
                .skip(1)
                .any(|(i, _)| u.contains(&s[..i]) && u.contains(&s[i..]))
        },
    );
    differential(
        "<a>(?P<TEXT_UNTIL></a>|<b>)x?",
        &['<', '/', 'a', '>', 'b', 'x'],
        &["<a>b</a>", "<a><b>x", "<a></a>x"],
        &|s| {
            let Some(rest) = s.strip_prefix("<a>") else {
                return false;
            };
            let rest = rest.strip_suffix('x').into_iter().chain([rest]);
            rest.into_iter().any(|r| is_text_until(&["</a>", "<b>"], r))
        },
    );
}

#[test]
fn extensions_nest_inside_arguments() {
    // A list of lists, and a repeated list with counted items.
    let inner = |s: &str| {
        let parts: Vec<&str> = s.split(',').collect();
        (2..=3).contains(&parts.len())
            && parts
                .iter()
                .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
    };
    differential(
        "(?P<DELIMITED_LIST>;|(?P<DELIMITED_LIST>,|[0-9]+|2|3))",
        &['1', ',', ';'],
        &["1,1", "1,1;11,1,1", "1,1;1,1;1,1"],
        &|s| is_list(s, ";", &inner, 1, None),
    );
    let red = full("red");
    let blue = full("blue");
    differential(
        "(?P<DELIMITED_SUBSEQUENCE_OF>, |red|(?P<QUOTED_TEXT>)|blue)",
        &['r', 'e', 'd', '"', ',', ' ', 'b'],
        &["red", r#"red, "x", blue"#, r#""", blue"#],
        &|s| is_subsequence(s, ", ", &[&red, &is_quoted, &blue]),
    );
    differential(
        "(?:(?P<SUBSTRING_OF>abc)-){1,3}(?P<SUBSTRING_OF>xyz)",
        &['a', 'b', 'c', '-', 'x', 'z'],
        &["a-x", "ab-bc-c-xyz"],
        &|s| {
            let parts: Vec<&str> = s.split('-').collect();
            (2..=4).contains(&parts.len())
                && parts[..parts.len() - 1]
                    .iter()
                    .all(|p| !p.is_empty() && "abc".contains(p))
                && parts
                    .last()
                    .is_some_and(|p| !p.is_empty() && "xyz".contains(p))
        },
    );
}

#[test]
fn inline_flags_reach_the_arguments() {
    let d = dfa("(?i)(?P<DELIMITED_LIST>,|ab)");
    assert!(d.is_match(b"Ab,aB,AB"));
    let d = RegexBuilder::new()
        .case_insensitive(true)
        .build("(?P<DELIMITED_SUBSEQUENCE_OF>,|x|y)")
        .unwrap();
    assert!(d.is_match(b"X,y") && !d.is_match(b"y,X"));
}

#[test]
fn lower_and_mixed_case_names_are_ordinary_groups() {
    for p in [
        "(?P<year>[0-9])x",
        "(?P<Year>[0-9])x",
        "(?<y2>[0-9])x",
        "(?P<yEAR>[0-9])x",
    ] {
        let d = dfa(p);
        assert!(d.is_match(b"1x") && !d.is_match(b"1"), "{p}");
        assert!(d.terminals().is_empty());
    }
    // Escaped, and inside classes: not groups at all.
    let d = dfa(r"\(?P<QUOTED_TEXT>\)");
    assert!(d.is_match(b"(P<QUOTED_TEXT>)") && d.is_match(b"P<QUOTED_TEXT>)"));
    let d = dfa(r"[(?P<QUOTED_TEXT>)]+");
    assert!(d.is_match(b"QUOTED(") && !d.is_match(b"\"\""));
    let d = dfa(r"[]()](?P<QUOTED_TEXT>)[[:alpha:])]");
    assert!(d.is_match(b"]\"\"a") && d.is_match(b"(\"x\")"));
}

// ---- Linear SUBSTRING_OF. ----

#[test]
fn substring_of_a_long_text_is_linear() {
    let mut rng = SplitMix64::new(11);
    for alphabet in [&['a', 'b', 'c', 'd'][..], &['a', 'b', 'é', 'ü', '☃']] {
        let u = random_string_exact(&mut rng, alphabet, 2000);
        let n = u.chars().count();
        let d = dfa(&format!("(?P<SUBSTRING_OF>{u})"));
        assert!(
            d.num_states() <= 4 * n + 8,
            "{} states for a {n}-char text",
            d.num_states()
        );
        let chars: Vec<char> = u.chars().collect();
        let mut texts = Vec::new();
        for _ in 0..2000 {
            let i = rng.index(n);
            let j = i + 1 + rng.index((n - i).min(60));
            let s: String = chars[i..j].iter().collect();
            texts.extend(mutations(&mut rng, s.as_bytes(), 2));
            texts.push(s.into_bytes());
            texts.push(random_string(&mut rng, alphabet, 12).into_bytes());
        }
        let matched = agree("SUBSTRING_OF", &d, &texts, &|s| {
            !s.is_empty() && u.contains(s)
        });
        assert!(matched > 2000 && matched < texts.len() - 500, "{matched}");
    }
}

fn random_string_exact(rng: &mut SplitMix64, alphabet: &[char], len: usize) -> String {
    (0..len)
        .map(|_| alphabet[rng.index(alphabet.len())])
        .collect()
}

// ---- Terminals. ----

/// A symbol of a DFA with terminals: a byte or terminal `k`.
#[derive(Clone, Copy, Debug)]
enum Sym {
    Byte(u8),
    Term(TerminalKind),
}

fn run(d: &ByteDfa, syms: &[Sym]) -> bool {
    let mut s = d.start();
    for sym in syms {
        let next = match *sym {
            Sym::Byte(b) => d.next(s, b),
            Sym::Term(kind) => d
                .terminals()
                .iter()
                .position(|&t| t == kind)
                .and_then(|k| d.next_terminal(s, k)),
        };
        match next {
            Some(t) => s = t,
            None => return false,
        }
    }
    d.is_accepting(s)
}

#[test]
fn terminal_kinds_have_names_and_precedence() {
    for t in TerminalKind::ALL {
        assert_eq!(TerminalKind::from_name(t.name()), Some(t));
        assert!(EXTENSIONS.iter().any(|e| e.name == t.name()));
    }
    assert!(TerminalKind::Image < TerminalKind::ParagraphToken);
    assert!(TerminalKind::ParagraphToken < TerminalKind::TextToken);
    assert_eq!(TerminalKind::from_name("QUOTED_TEXT"), None);
    // Every listed extension compiles in its simplest form.
    for e in EXTENSIONS {
        let p = match e.name {
            "TEXT_UNTIL" | "SUBSTRING_OF" => format!("(?P<{}>ab)", e.name),
            "DELIMITED_LIST" | "DELIMITED_SUBSEQUENCE_OF" => format!("(?P<{}>,|a)", e.name),
            "AUTOMATON" => {
                // Library only: it needs the automaton it names.
                let d = RegexBuilder::new()
                    .automata(vec![std::sync::Arc::new(dfa("ab"))])
                    .build("(?P<AUTOMATON>0)")
                    .unwrap();
                assert!(d.is_match(b"ab") && !d.is_match(b"a"));
                continue;
            }
            "CALL" => {
                // Library only: a call edge to machine 7, which only call networks read.
                let d = RegexBuilder::new().build("a(?P<CALL>7)b").unwrap();
                assert_eq!(d.terminals(), &[TerminalKind::Call(7)]);
                assert!(!d.is_match(b"ab"));
                let missing = RegexBuilder::new().build("(?P<CALL>x)").unwrap_err();
                assert!(
                    missing.to_string().contains("number of a machine"),
                    "{missing}"
                );
                continue;
            }
            _ => format!("(?P<{}>)", e.name),
        };
        dfa(&p);
    }
}

#[test]
fn a_pattern_of_terminals_only_is_tiny() {
    let d = dfa("(?P<PARAGRAPH_TOKEN>)+");
    assert_eq!(d.num_states(), 2);
    assert_eq!(d.terminals(), [TerminalKind::ParagraphToken]);
    assert_eq!(ByteAutomaton::num_terminals(&d), 1);
    assert!(!d.is_accepting(0));
    let s1 = d.next_terminal(0, 0).unwrap();
    assert!(d.is_accepting(s1));
    assert_eq!(ByteAutomaton::next_terminal(&d, s1, 0), Some(s1));
    assert_eq!(d.next_terminal(0, 1), None);
    assert_eq!(d.num_transitions(), 0);
    assert!(!d.is_match(b""));
    assert!(d.to_dot().contains("label=\"<PARAGRAPH_TOKEN>\""));
}

#[test]
fn terminals_are_ordered_by_precedence_and_unused_ones_dropped() {
    let d = dfa("(?P<TEXT_TOKEN>)|(?P<IMAGE>)x|(?P<PARAGRAPH_TOKEN>)");
    assert_eq!(
        d.terminals(),
        [
            TerminalKind::Image,
            TerminalKind::ParagraphToken,
            TerminalKind::TextToken
        ]
    );
    let image = d.next_terminal(0, 0).unwrap();
    assert!(!d.is_accepting(image) && d.next(image, b'x').is_some());
    // Paragraph and text token lead to the same (accepting, final) state.
    assert_eq!(d.next_terminal(0, 1), d.next_terminal(0, 2));
    // A terminal on a path that cannot match is trimmed with it.
    let d = dfa(r"a|(?P<IMAGE>)[^\s\S]");
    assert!(d.terminals().is_empty() && d.is_match(b"a"));
    assert_eq!(ByteAutomaton::num_terminals(&d), 0);
}

#[test]
fn terminal_edges_leave_the_right_states() {
    let d = dfa("a(?P<TEXT_TOKEN>)b|ac");
    assert_eq!(d.terminals(), [TerminalKind::TextToken]);
    let s1 = d.next(0, b'a').unwrap();
    assert_eq!(d.next_terminal(0, 0), None);
    let s2 = d.next_terminal(s1, 0).unwrap();
    assert!(d.next(s1, b'c').is_some());
    assert!(d.is_accepting(d.next(s2, b'b').unwrap()));
    // is_match follows bytes only.
    assert!(d.is_match(b"ac") && !d.is_match(b"ab"));
    assert!(run(
        &d,
        &[
            Sym::Byte(b'a'),
            Sym::Term(TerminalKind::TextToken),
            Sym::Byte(b'b')
        ]
    ));
}

#[test]
fn the_papers_bulleted_list_is_small_and_exact() {
    let pattern = r"Summary:(\n\* (?P<PARAGRAPH_TOKEN>)+){3,5}";
    let d = dfa(pattern);
    assert_eq!(d.terminals(), [TerminalKind::ParagraphToken]);
    // 9 states for the prefixes of "Summary:", then 4 per bullet (after "\n", "*", " ",
    // and in the terminal loop): the minimal DFA.
    assert_eq!(d.num_states(), 9 + 4 * 5);
    // Oracle over symbols: "Summary:" then 3..=5 bullets "\n* " T+.
    let oracle = |syms: &[Sym]| -> bool {
        let mut i = 0;
        for &b in b"Summary:" {
            match syms.get(i) {
                Some(Sym::Byte(x)) if *x == b => i += 1,
                _ => return false,
            }
        }
        let mut bullets = 0;
        while i < syms.len() {
            for &b in b"\n* " {
                match syms.get(i) {
                    Some(Sym::Byte(x)) if *x == b => i += 1,
                    _ => return false,
                }
            }
            let start = i;
            while matches!(syms.get(i), Some(Sym::Term(TerminalKind::ParagraphToken))) {
                i += 1;
            }
            if i == start {
                return false;
            }
            bullets += 1;
        }
        (3..=5).contains(&bullets)
    };
    let mut rng = SplitMix64::new(3);
    let t = Sym::Term(TerminalKind::ParagraphToken);
    let (mut yes, mut total) = (0, 0);
    for _ in 0..20000 {
        let mut syms: Vec<Sym> = b"Summary:".iter().map(|&b| Sym::Byte(b)).collect();
        for _ in 0..rng.index(7) {
            syms.extend(b"\n* ".iter().map(|&b| Sym::Byte(b)));
            for _ in 0..rng.index(3) {
                syms.push(t);
            }
        }
        // Random damage: drop, insert or replace one symbol.
        if rng.index(3) == 0 {
            let i = rng.index(syms.len());
            match rng.index(3) {
                0 => {
                    syms.remove(i);
                }
                1 => syms.insert(
                    i,
                    [t, Sym::Byte(b'\n'), Sym::Term(TerminalKind::TextToken)][rng.index(3)],
                ),
                _ => syms[i] = Sym::Byte(b'*'),
            }
        }
        assert_eq!(run(&d, &syms), oracle(&syms), "{syms:?}");
        yes += oracle(&syms) as usize;
        total += 1;
    }
    assert!(yes > 1000 && total - yes > 1000, "{yes}/{total}");
}

#[test]
fn terminals_work_inside_sugar_arguments() {
    let d = dfa(r"(?P<DELIMITED_LIST>\n|- (?P<PARAGRAPH_TOKEN>)+|2)");
    let p = Sym::Term(TerminalKind::ParagraphToken);
    let b = Sym::Byte;
    assert!(run(
        &d,
        &[b(b'-'), b(b' '), p, b(b'\n'), b(b'-'), b(b' '), p, p]
    ));
    assert!(!run(&d, &[b(b'-'), b(b' '), p]));
    assert!(!run(&d, &[b(b'-'), b(b' '), p, b(b'\n')]));
}

// ---- Errors. ----

/// The error for `pattern`, asserting it is an extension error naming `name` (in kind
/// and message) with a message containing `needle` and a span inside the pattern.
fn ext_err(pattern: &str, name: &str, needle: &str) {
    let e = match fstc_regex::byte_dfa(pattern, DEFAULT_DFA_STATE_LIMIT) {
        Ok(_) => panic!("{pattern:?} should be rejected"),
        Err(e) => e,
    };
    let msg = e.to_string();
    assert!(
        matches!(e.kind(), RegexErrorKind::Extension { name: n } if n == name),
        "{pattern:?}: {:?}: {msg}",
        e.kind()
    );
    assert!(msg.contains(name), "{pattern:?}: {msg}");
    assert!(msg.contains(needle), "{pattern:?}: {msg}");
    let (a, b) = e.span().expect("a span");
    assert!(a < b && b <= pattern.len(), "{pattern:?}: {a}..{b}");
    assert!(pattern[a..].starts_with('('), "{pattern:?}: {a}..{b}");
}

#[test]
fn unknown_reserved_names_are_errors() {
    ext_err("(?P<FOO>a)", "FOO", "unknown extension");
    ext_err(r"x(?<YEAR>\d{4})", "YEAR", "use a lower-case name");
    ext_err("(?P<DELIMITED_LIST>,|(?P<X1>a))", "X1", "unknown extension");
    ext_err("(?P<__fstc_ext_0>a)", "__fstc_ext_0", "reserved");
}

#[test]
fn malformed_extension_uses_are_errors() {
    for (pattern, name, needle) in [
        ("(?P<TEXT_TOKEN>x)", "TEXT_TOKEN", "takes no argument"),
        ("(?P<IMAGE>|)", "IMAGE", "takes no argument"),
        ("(?P<QUOTED_TEXT>a)", "QUOTED_TEXT", "takes no argument"),
        ("(?P<UNQUOTED_TEXT> )", "UNQUOTED_TEXT", "takes no argument"),
        ("(?P<QUOTED_TEXT>", "QUOTED_TEXT", "no matching `)`"),
        ("a(?P<DELIMITED_LIST>,|(b)", "DELIMITED_LIST", "unbalanced"),
        ("(?P<DELIMITED_LIST>,)", "DELIMITED_LIST", "1 field"),
        ("(?P<DELIMITED_LIST>,|a|1|2|3)", "DELIMITED_LIST", "5 field"),
        (
            "(?P<DELIMITED_LIST>,|a|3|2)",
            "DELIMITED_LIST",
            "MIN (3) is larger than MAX (2)",
        ),
        (
            "(?P<DELIMITED_LIST>,|a|x)",
            "DELIMITED_LIST",
            "MIN must be a decimal number",
        ),
        (
            "(?P<DELIMITED_LIST>,|a|1|-2)",
            "DELIMITED_LIST",
            "MAX must be a decimal number",
        ),
        (
            "(?P<DELIMITED_LIST>,|a||2)",
            "DELIMITED_LIST",
            "MIN is empty",
        ),
        (
            "(?P<DELIMITED_LIST>,|a|99999999999999999999999)",
            "DELIMITED_LIST",
            "too large",
        ),
        (
            "(?P<SUBSTRING_OF>a|b)",
            "SUBSTRING_OF",
            "2 `|`-separated fields",
        ),
        ("(?P<SUBSTRING_OF>)", "SUBSTRING_OF", "empty"),
        ("(?P<SUBSTRING_OF>a+)", "SUBSTRING_OF", "must be a literal"),
        (
            "(?i)(?P<SUBSTRING_OF>abc)",
            "SUBSTRING_OF",
            "case-insensitive",
        ),
        (
            "(?P<SUBSTRING_OF>(?P<TEXT_TOKEN>))",
            "SUBSTRING_OF",
            "must be a literal",
        ),
        ("(?P<TEXT_UNTIL>)", "TEXT_UNTIL", "stop phrase 1 is empty"),
        (
            "(?P<TEXT_UNTIL>a||b)",
            "TEXT_UNTIL",
            "stop phrase 2 is empty",
        ),
        (
            "(?P<TEXT_UNTIL>a|b*)",
            "TEXT_UNTIL",
            "stop phrase 2 must be a literal",
        ),
        (
            "(?P<TEXT_UNTIL>(?:))",
            "TEXT_UNTIL",
            "stop phrase 1 is empty",
        ),
        (
            "(?P<DELIMITED_SUBSEQUENCE_OF>,)",
            "DELIMITED_SUBSEQUENCE_OF",
            "at least one item",
        ),
    ] {
        ext_err(pattern, name, needle);
    }
    // Escaped bars are literal, so these are fine.
    assert!(dfa(r"(?P<SUBSTRING_OF>a\|b)").is_match(b"|b"));
    assert!(dfa(r"(?P<TEXT_UNTIL>\||[|])").is_match(b"ab|"));
}

#[test]
fn errors_in_rewritten_patterns_point_at_the_users_text() {
    // Look-around after and inside an extension: spans are in the original pattern.
    // (A look-around body cannot hold a wildcard terminal.)
    let p = "(?P<QUOTED_TEXT>)(?=x(?P<IMAGE>))";
    let e = fstc_regex::byte_dfa(p, DEFAULT_DFA_STATE_LIMIT).unwrap_err();
    assert_eq!(e.span(), Some((17, 33)), "{e}");
    assert!(e.to_string().contains("`(?=x(?P<IMAGE>))`"), "{e}");
    let p = "(?P<DELIMITED_LIST>,|(?=(?P<IMAGE>))b)";
    let e = fstc_regex::byte_dfa(p, DEFAULT_DFA_STATE_LIMIT).unwrap_err();
    assert_eq!(e.span(), Some((21, 36)), "{e}");
    assert_eq!(&p[21..36], "(?=(?P<IMAGE>))");
    // Assertions inside a look-around body compile (exactly: `x` last).
    let d = dfa("(?P<QUOTED_TEXT>)(?=x$)x|(?=a$).");
    assert!(d.is_match(b"a") && !d.is_match(b"b"));
    assert!(d.is_match(b"\"\"x") && !d.is_match(b"\"\"xy"));
    let p = r"(?P<DELIMITED_LIST>,|a{2)\bz";
    let e = fstc_regex::byte_dfa(p, DEFAULT_DFA_STATE_LIMIT).unwrap_err();
    assert!(matches!(e.kind(), RegexErrorKind::Syntax), "{e}");
    let (a, b) = e.span().unwrap();
    assert!(a >= 21 && b <= 24, "{e}");
    // Look-around inside an extension argument compiles: `,` or `a` then `,a`...
    let d = dfa("(?P<DELIMITED_LIST>,|(?=a)[ab])");
    assert!(d.is_match(b"a,a") && !d.is_match(b"a,b"));
}

#[test]
fn limits_still_apply_to_extensions() {
    let e = dfa_err(
        r"(?P<DELIMITED_LIST>,|\w{50}|100|100)",
        DEFAULT_DFA_STATE_LIMIT,
    );
    assert!(
        matches!(
            e,
            RegexErrorKind::TooManyNfaStates { .. } | RegexErrorKind::TooManyStates { .. }
        ),
        "{e:?}"
    );
    let e = dfa_err("(?P<SUBSTRING_OF>abcdefghijklmnopqrstuvwxyz)", 10);
    assert!(
        matches!(e, RegexErrorKind::TooManyStates { limit: 10 }),
        "{e:?}"
    );
    let e = dfa_err("(?P<TEXT_UNTIL>abcdefghijklmnopqrstuvwxyz)", 10);
    assert!(
        matches!(e, RegexErrorKind::TooManyStates { limit: 10 }),
        "{e:?}"
    );
    let e = dfa_err(
        "(?P<DELIMITED_LIST>,|a|100000000|)",
        DEFAULT_DFA_STATE_LIMIT,
    );
    assert!(
        matches!(e, RegexErrorKind::TooManyNfaStates { .. }),
        "{e:?}"
    );
}

fn dfa_err(pattern: &str, limit: usize) -> RegexErrorKind {
    match fstc_regex::byte_dfa(pattern, limit) {
        Ok(_) => panic!("{pattern:?} should exceed the limits"),
        Err(e) => e.kind().clone(),
    }
}

#[test]
fn terminal_edges_in_dot() {
    insta::assert_snapshot!(dfa(r"-(?P<IMAGE>)|(\n\* (?P<PARAGRAPH_TOKEN>)+){1,2}").to_dot());
}

#[test]
fn a_hidden_extension_group_is_an_error_not_a_plain_group() {
    // The comment's `[` hides the group from the rewriter; regex-syntax then sees it.
    let e =
        fstc_regex::byte_dfa("(?x)a # [\n(?P<QUOTED_TEXT>)", DEFAULT_DFA_STATE_LIMIT).unwrap_err();
    assert!(
        matches!(e.kind(), RegexErrorKind::Extension { name } if name == "QUOTED_TEXT"),
        "{e}"
    );
    assert!(e.to_string().contains("verbose mode"), "{e}");
    // Balanced comments are fine.
    let d = dfa("(?x)a # [x]\n(?P<QUOTED_TEXT>)");
    assert!(d.is_match(b"a\"x\""));
}
