//! Differential tests of the regex extensions (Koo et al. §2.5) at the token level, on
//! real tokenizers.
//!
//! Each case has an independent checker written here from the documented rules (it does
//! not share the compiler's code): every complete random walk must satisfy it, known-good
//! texts tokenized by the tokenizer (and, for sugar, by random other tokenizations) must be
//! accepted, and known-bad texts rejected. Terminal labels read whole tokens, so their
//! known-good texts are given as segments tokenized one by one: a token never straddles a
//! terminal's boundary.

use fstc_core::automaton::TokenAutomaton;
use fstc_core::sample::SplitMix64;
use fstc_core::TokenVocabulary;
use fstc_detok::Vocabulary;
use fstc_regex::RegexCompiler;
use testkit::tokenize::{accepts, walk_to_eos, Segmenter};
use testkit::vocabs::{shared_vocab, testdata_dir};

/// How a finished walk is judged: on its text, or on its tokens.
enum Checker {
    Text(TextCheck),
    Tokens(TokenCheck),
}

type TextCheck = Box<dyn Fn(&[u8]) -> bool>;
type TokenCheck = Box<dyn Fn(&Vocabulary, &[u32]) -> bool>;

struct Case {
    pattern: &'static str,
    check: Checker,
    /// Known-good texts, each as segments that are tokenized separately.
    good: Vec<Vec<&'static str>>,
    /// Texts the constraint must reject, whatever the tokenization.
    bad: Vec<&'static str>,
}

fn text(f: impl Fn(&str) -> bool + 'static) -> Checker {
    Checker::Text(Box::new(move |b| std::str::from_utf8(b).is_ok_and(&f)))
}

/// `"`, then characters where `"` and `\` appear only escaped, then `"`; the length of
/// the quoted string at the start of `s`, if there is one.
fn quoted_prefix(s: &str) -> Option<usize> {
    let mut chars = s.char_indices();
    if chars.next()?.1 != '"' {
        return None;
    }
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Some(i + 1),
            '\\' => {
                chars.next()?;
            }
            _ => {}
        }
    }
    None
}

fn quoted(s: &str) -> bool {
    quoted_prefix(s) == Some(s.len())
}

/// docs/regex.md's rules for `UNQUOTED_TEXT`, checked one by one.
fn unquoted(s: &str) -> bool {
    let ns_char = |c: char| {
        ('!'..='~').contains(&c)
            || ('\u{A0}'..='\u{D7FF}').contains(&c)
            || ('\u{E000}'..='\u{FFFD}').contains(&c)
            || c >= '\u{10000}'
    } && c != '\u{FEFF}';
    let blank = |c: char| c == ' ' || c == '\t';
    let chars: Vec<char> = s.chars().collect();
    let Some(&first) = chars.first() else {
        return false;
    };
    if !chars.iter().all(|&c| ns_char(c) || blank(c)) {
        return false;
    }
    let indicator = "-?:,[]{}#&*!|>'\"%@`".contains(first);
    let next_is_non_space = chars.get(1).is_some_and(|&c| ns_char(c));
    if blank(first) || (indicator && !("-?:".contains(first) && next_is_non_space)) {
        return false;
    }
    for (i, &c) in chars.iter().enumerate() {
        let next = chars.get(i + 1).copied();
        if c == ':' && !next.is_some_and(ns_char) {
            return false;
        }
        if c == '#' && i > 0 && blank(chars[i - 1]) {
            return false;
        }
    }
    !blank(*chars.last().unwrap())
}

/// Valid UTF-8 whose earliest-ending occurrence of any stop phrase ends exactly at the end.
fn text_until(t: &[u8], stops: &[&str], after: &[u8]) -> bool {
    if std::str::from_utf8(t).is_err() {
        return false;
    }
    let first_end = (1..=t.len()).find(|&end| {
        stops
            .iter()
            .any(|s| end >= s.len() && &t[end - s.len()..end] == s.as_bytes())
    });
    first_end.is_some_and(|end| &t[end..] == after)
}

/// `s` split at `delim` into items accepted by `item`, between `min` and `max` of them.
fn delimited(s: &str, delim: &str, item: impl Fn(&str) -> bool, min: usize, max: usize) -> bool {
    if s.is_empty() {
        return min == 0;
    }
    let items: Vec<&str> = s.split(delim).collect();
    (min..=max).contains(&items.len()) && items.iter().all(|i| item(i))
}

/// `s` is one or more of `items`, in order, each at most once, separated by `delim`
/// (items do not contain the delimiter).
fn subsequence(s: &str, delim: &str, items: &[&str]) -> bool {
    let mut next = 0;
    for part in s.split(delim) {
        match items[next..].iter().position(|&i| i == part) {
            Some(p) => next += p + 1,
            None => return false,
        }
    }
    !s.is_empty()
}

/// Whether some split `tokens = a ++ b` has `a` spelling `prefix` and `b` satisfying `rest`.
fn after_prefix(
    vocab: &Vocabulary,
    tokens: &[u32],
    prefix: &str,
    rest: impl Fn(&[u32]) -> bool,
) -> bool {
    (0..=tokens.len())
        .any(|i| vocab.detokenize(&tokens[..i]) == prefix.as_bytes() && rest(&tokens[i..]))
}

fn is_text_token(vocab: &Vocabulary, t: u32) -> bool {
    vocab.token_bytes(t).is_some_and(|b| !b.is_empty())
}

/// Image tokens for `(?P<IMAGE>)`: three text tokens far from the ones the walks use.
fn image_ids(vocab: &Vocabulary) -> Vec<u32> {
    let n = vocab.len() as u32;
    [n / 3, n / 2, 2 * n / 3]
        .into_iter()
        .map(|mut t| {
            while vocab.eos_ids().contains(&t) {
                t += 1;
            }
            t
        })
        .collect()
}

fn cases() -> Vec<Case> {
    // A paragraph token is any token without a newline byte, so a paragraph may hold a
    // token that splits a UTF-8 character: the oracle works on bytes (`(?-u:...)`).
    let bullets = regex::bytes::Regex::new(r"\A(?:Summary:(\n\* (?-u:[^\n])+){3,5})\z").unwrap();
    vec![
        Case {
            pattern: r"\[(?P<DELIMITED_LIST>, |(?P<QUOTED_TEXT>)|0)\]",
            check: text(|s| {
                let Some(inner) = s.strip_prefix('[').and_then(|s| s.strip_suffix(']')) else {
                    return false;
                };
                let mut rest = inner;
                if rest.is_empty() {
                    return true;
                }
                loop {
                    let Some(n) = quoted_prefix(rest) else {
                        return false;
                    };
                    rest = &rest[n..];
                    if rest.is_empty() {
                        return true;
                    }
                    match rest.strip_prefix(", ") {
                        Some(r) => rest = r,
                        None => return false,
                    }
                }
            }),
            good: vec![
                vec![r#"["a", "b, c", "say \"hi\""]"#],
                vec!["[]"],
                vec![r#"["naïve \\ 東京"]"#],
            ],
            bad: vec![
                r#"["a" "b"]"#,
                r#"["a\"]"#,
                r#"["a",]"#,
                r#"[, "a"]"#,
                "[a]",
            ],
        },
        Case {
            pattern: r"(?P<QUOTED_TEXT>)",
            check: text(quoted),
            good: vec![
                vec![r#""""#],
                vec![r#""say \"hi\" \\ \n""#],
                vec!["\"line\\\nbreak é\""],
            ],
            bad: vec![r#"""#, r#""a"b""#, r#""a\""#, "'a'", r#""a" "#],
        },
        Case {
            pattern: r"name: (?P<UNQUOTED_TEXT>)",
            check: text(|s| s.strip_prefix("name: ").is_some_and(unquoted)),
            good: vec![
                vec!["name: hello world"],
                vec!["name: -5"],
                vec!["name: a:b c#d"],
                vec!["name: café au lait"],
            ],
            bad: vec![
                "name: ",
                "name: a: b",
                "name: trailing ",
                "name: x #comment",
                "name: - item",
                "name: [list]",
                "name: two\nlines",
            ],
        },
        Case {
            pattern: r"(?P<TEXT_UNTIL>\.|END)ok",
            check: Checker::Text(Box::new(|t| text_until(t, &[".", "END"], b"ok"))),
            good: vec![
                vec!["The answer is 42.ok"],
                vec!["no dot here, so it runs to the ENDok"],
                vec![".ok"],
            ],
            bad: vec!["one. two.ok", "ENDEND ok", "no stop ok", "END.ok"],
        },
        Case {
            pattern: r"<(?P<SUBSTRING_OF>the quick brown fox, naïve café)>",
            check: text(|s| {
                s.strip_prefix('<')
                    .and_then(|s| s.strip_suffix('>'))
                    .is_some_and(|t| !t.is_empty() && "the quick brown fox, naïve café".contains(t))
            }),
            good: vec![
                vec!["<quick brown>"],
                vec!["<the quick brown fox, naïve café>"],
                vec!["<ïve c>"],
                vec!["<e>"],
            ],
            bad: vec!["<>", "<quick  brown>", "<fox the>", "<cafe>"],
        },
        Case {
            pattern: r"(?P<DELIMITED_LIST>, |[0-9]+|2|4)",
            check: text(|s| {
                delimited(
                    s,
                    ", ",
                    |i| !i.is_empty() && i.chars().all(|c| c.is_ascii_digit()),
                    2,
                    4,
                )
            }),
            good: vec![vec!["1, 22"], vec!["10, 200, 3000, 4"]],
            bad: vec!["1", "1, 2, 3, 4, 5", "1,2", "1, , 2", "1, 2, "],
        },
        Case {
            pattern: r"(?P<DELIMITED_SUBSEQUENCE_OF>, |apple|banana|cherry|date)",
            check: text(|s| subsequence(s, ", ", &["apple", "banana", "cherry", "date"])),
            good: vec![
                vec!["apple"],
                vec!["banana, date"],
                vec!["apple, banana, cherry, date"],
            ],
            bad: vec![
                "",
                "banana, apple",
                "apple, apple",
                "apple,banana",
                "apple, ",
            ],
        },
        Case {
            pattern: r"Summary:(\n\* (?P<PARAGRAPH_TOKEN>)+){3,5}",
            check: Checker::Text(Box::new(move |t| bullets.is_match(t))),
            good: vec![
                vec![
                    "Summary:",
                    "\n* ",
                    "First point, with detail",
                    "\n* ",
                    "second",
                    "\n* ",
                    "the third and last",
                ],
                vec![
                    "Summary:", "\n* ", "a", "\n* ", "b", "\n* ", "c", "\n* ", "d", "\n* ", "e",
                ],
            ],
            bad: vec!["Summary:\n* a\n* b", "Summary:\n* a\n* \n* c"],
        },
        Case {
            pattern: r"Q: (?P<TEXT_TOKEN>){2}",
            check: Checker::Tokens(Box::new(|vocab, tokens| {
                after_prefix(vocab, tokens, "Q: ", |rest| {
                    rest.len() == 2 && rest.iter().all(|&t| is_text_token(vocab, t))
                })
            })),
            good: vec![
                vec!["Q", ":", " ", "a", "!"],
                vec!["Q", ":", " ", "hi", "!"],
            ],
            bad: vec!["Q: "],
        },
        Case {
            pattern: r"<img>(?P<IMAGE>){2,3}</img>",
            check: Checker::Tokens(Box::new(|vocab, tokens| {
                let images = image_ids(vocab);
                (0..=tokens.len()).any(|i| {
                    vocab.detokenize(&tokens[..i]) == b"<img>"
                        && (2..=3).any(|n| {
                            tokens.len() >= i + n
                                && tokens[i..i + n].iter().all(|t| images.contains(t))
                                && vocab.detokenize(&tokens[i + n..]) == b"</img>"
                        })
                })
            })),
            good: vec![],
            bad: vec!["<img></img>"],
        },
    ]
}

/// The tokenizer's own spelling of `text`, else a random one.
fn tokenize(
    vocab: &Vocabulary,
    seg: &Segmenter,
    text: &str,
    rng: &mut SplitMix64,
) -> Option<Vec<u32>> {
    vocab
        .tokenize(text)
        .ok()
        .or_else(|| seg.segment(text.as_bytes(), rng))
}

fn check_vocabulary(name: &str, vocab: &Vocabulary, walks: usize) {
    let seg = Segmenter::new(vocab);
    let mut rng = SplitMix64::new(0x5eed);
    for case in cases() {
        let compiler = RegexCompiler::new().image_tokens(image_ids(vocab));
        let automaton = compiler
            .compile(case.pattern, vocab)
            .unwrap_or_else(|e| panic!("{name}: {}: {e}", case.pattern));
        let loaded = TokenAutomaton::from_bytes_copied(&automaton.to_bytes()).unwrap();
        assert_eq!(loaded, automaton);

        let mut complete = 0;
        for _ in 0..walks * 20 {
            if complete == walks {
                break;
            }
            let walk = walk_to_eos(&automaton, &mut rng, 60);
            if !walk.complete {
                continue;
            }
            complete += 1;
            let ok = match &case.check {
                Checker::Text(f) => f(&vocab.detokenize(&walk.tokens)),
                Checker::Tokens(f) => f(vocab, &walk.tokens),
            };
            assert!(
                ok,
                "{name}: {}: walk {:?} spells {:?}, which the checker rejects",
                case.pattern,
                walk.tokens,
                String::from_utf8_lossy(&vocab.detokenize(&walk.tokens))
            );
        }
        assert!(
            complete > 0,
            "{name}: {}: no complete random walk",
            case.pattern
        );

        let terminals = automaton.num_terminals() > 0;
        for segments in &case.good {
            let whole: String = segments.concat();
            if let Checker::Text(f) = &case.check {
                assert!(f(whole.as_bytes()), "checker rejects good text {whole:?}");
            }
            let mut tokens = Vec::new();
            for s in segments {
                // A token-level case counts tokens: each segment is meant as one token.
                let spelled = match &case.check {
                    Checker::Tokens(_) => seg.token(s.as_bytes()).map(|id| vec![id]),
                    Checker::Text(_) => tokenize(vocab, &seg, s, &mut rng),
                };
                match spelled {
                    Some(t) => tokens.extend(t),
                    None => {
                        tokens.clear();
                        break;
                    }
                }
            }
            if tokens.is_empty() {
                continue; // the vocabulary cannot spell it
            }
            assert!(
                accepts(&automaton, &tokens),
                "{name}: {}: good text {whole:?} as {tokens:?} is rejected",
                case.pattern
            );
            if !terminals {
                // Sugar is byte-level: any tokenization of the text is accepted.
                for _ in 0..3 {
                    let Some(t) = seg.segment(whole.as_bytes(), &mut rng) else {
                        break;
                    };
                    assert!(
                        accepts(&automaton, &t),
                        "{name}: {}: good text {whole:?} as {t:?} is rejected",
                        case.pattern
                    );
                }
            }
        }
        for bad in &case.bad {
            if let Checker::Text(f) = &case.check {
                assert!(!f(bad.as_bytes()), "checker accepts bad text {bad:?}");
            }
            let tries = std::iter::once(vocab.tokenize(bad).ok())
                .chain((0..3).map(|_| seg.segment(bad.as_bytes(), &mut rng)));
            for tokens in tries.flatten() {
                assert!(
                    !accepts(&automaton, &tokens),
                    "{name}: {}: bad text {bad:?} as {tokens:?} is accepted",
                    case.pattern
                );
            }
        }
    }
}

#[test]
fn fixtures() {
    for file in [
        "gpt2/encoder.json",
        "sentencepiece/tokenizer.json",
        "bytelevel/tokenizer.json",
    ] {
        let vocab = Vocabulary::from_file(testdata_dir().join(file)).unwrap();
        check_vocabulary(file, &vocab, 25);
    }
}

/// Real vocabularies, when `../shared/vocabs` is present (it is in CI).
#[test]
fn real_vocabularies() {
    for file in ["llama3/tokenizer.json", "qwen3/tokenizer.json"] {
        let Some(vocab) = shared_vocab(file) else {
            continue;
        };
        check_vocabulary(file, &vocab, 8);
    }
}

/// The paper's example on Llama 3: terminals keep the automaton to a handful of states and
/// edges where `[^\n]+` needs over a million edges; both give the same masks on texts
/// whose paragraphs are tokenized separately.
#[test]
fn paragraph_terminal_is_small_on_llama3() {
    let Some(vocab) = shared_vocab("llama3/tokenizer.json") else {
        return;
    };
    let with = RegexCompiler::new()
        .compile(r"Summary:(\n\* (?P<PARAGRAPH_TOKEN>)+){3,5}", &vocab)
        .unwrap();
    let without = RegexCompiler::new()
        .compile(r"Summary:(\n\* [^\n]+){3,5}", &vocab)
        .unwrap();
    assert!(with.num_states() <= 32, "{} states", with.num_states());
    assert!(with.num_edges() <= 64, "{} edges", with.num_edges());
    assert!(
        without.num_edges() > 100_000,
        "{} edges",
        without.num_edges()
    );
    // Token classes already keep the plain form to one class edge per wildcard; the
    // terminal form still saves the class tables.
    assert!(
        with.memory_bytes() * 20 < without.memory_bytes(),
        "{} vs {} bytes",
        with.memory_bytes(),
        without.memory_bytes()
    );
}
