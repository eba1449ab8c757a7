//! Terminal labels in the token automaton (Koo et al. §2.5.1): one edge stands for a
//! precomputed set of tokens. Checked here on hand-built automata: precedence (token
//! edges, then terminals in order), masks, EOS, the file sections and their validation.

use fstc_core::automaton::{AutomatonParts, Terminal, TokenAutomaton};
use fstc_core::format::FormatErrorKind;
use fstc_core::sample::{random_walk, SplitMix64};
use fstc_core::walker::Walker;
use testkit::file::{forge_checksum, section};

const VOCAB: u32 = 100;
const EOS: u32 = 99;
const NEWLINE: u32 = 10;

fn mask_of(keep: impl Fn(u32) -> bool) -> Vec<u32> {
    let mut m = vec![0u32; (VOCAB as usize).div_ceil(32)];
    for t in (0..VOCAB).filter(|&t| keep(t)) {
        m[(t / 32) as usize] |= 1 << (t % 32);
    }
    m
}

fn bits(mask: &[u32]) -> Vec<u32> {
    (0..mask.len() as u32 * 32)
        .filter(|&t| mask[(t / 32) as usize] & (1 << (t % 32)) != 0)
        .collect()
}

/// `PARA` = every text token but the newline (10) and EOS; `TEXT` = every text token.
/// State 0 --PARA--> 1, 1 --PARA--> 1, 1 --"\n" (10)--> 2, 1 --TEXT--> 3 (never taken by
/// a PARA token: PARA has precedence), 2 accepting, 3 accepting. Token 5 has a normal
/// edge 1 --5--> 2 that wins over PARA.
fn paragraph_automaton() -> AutomatonParts {
    let para = VOCAB;
    let text = VOCAB + 1;
    AutomatonParts {
        vocab_size: VOCAB,
        vocab_fingerprint: 7,
        eos_ids: vec![EOS],
        start: 0,
        accepting: vec![false, false, true, true],
        edges: vec![
            vec![(para, 1)],
            vec![(NEWLINE, 2), (5, 2), (para, 1), (text, 3)],
            vec![],
            vec![],
        ],
        terminals: vec![
            Terminal {
                name: "PARAGRAPH_TOKEN".into(),
                mask: mask_of(|t| t != NEWLINE && t != EOS),
            },
            Terminal {
                name: "TEXT_TOKEN".into(),
                mask: mask_of(|t| t != EOS),
            },
        ],
    }
}

#[test]
fn token_edges_win_then_terminals_in_precedence_order() {
    let a = TokenAutomaton::from_parts(paragraph_automaton()).unwrap();
    assert_eq!(a.num_terminals(), 2);
    assert_eq!(a.terminal_name(0).as_deref(), Some("PARAGRAPH_TOKEN"));
    assert_eq!(a.terminal_name(1).as_deref(), Some("TEXT_TOKEN"));
    assert_eq!(a.terminal_name(2), None);
    // State 0: any paragraph token, nothing else.
    assert_eq!(a.next_state(0, 42), Some(1));
    assert_eq!(a.next_state(0, NEWLINE), None);
    assert_eq!(a.next_state(0, EOS), None);
    // State 1: token 5 takes its own edge, not PARA's; 42 takes PARA (before TEXT);
    // the newline is not in PARA but has a token edge.
    assert_eq!(a.next_state(1, 5), Some(2));
    assert_eq!(a.next_state(1, 42), Some(1));
    assert_eq!(a.next_state(1, NEWLINE), Some(2));
    assert_eq!(
        a.next_state(1, VOCAB),
        None,
        "a terminal label is not a token"
    );
    assert_eq!(
        a.token_edges(1).iter().map(|e| e.0).collect::<Vec<_>>(),
        [5, NEWLINE],
        "token edges only, sorted"
    );
    assert_eq!(
        a.terminal_edges(1).collect::<Vec<_>>(),
        [(0, 1), (1, 3)],
        "terminal edges in precedence order"
    );
    // TEXT is shadowed completely: every TEXT token is a token edge or a PARA token.
    assert_eq!(a.terminal_witness(1, 1), None);
    assert_eq!(a.terminal_witness(1, 0), Some(0));
    assert_eq!(a.terminal_witness(0, 0), Some(0));
}

#[test]
fn masks_are_token_edges_or_terminal_masks_plus_eos_where_accepting() {
    let a = TokenAutomaton::from_parts(paragraph_automaton()).unwrap();
    let mut w = Walker::new(&a);
    let mut mask = vec![u32::MAX; 5]; // wider than the vocabulary: padding must be cleared
    w.fill_mask(&mut mask).unwrap();
    assert_eq!(
        bits(&mask),
        (0..VOCAB)
            .filter(|&t| t != NEWLINE && t != EOS)
            .collect::<Vec<_>>()
    );
    w.consume(42).unwrap();
    w.fill_mask(&mut mask).unwrap();
    assert_eq!(
        bits(&mask),
        (0..VOCAB).filter(|&t| t != EOS).collect::<Vec<_>>()
    );
    assert!(!w.is_allowed(EOS));
    assert!(w.forced_tokens().is_empty());
    w.consume(NEWLINE).unwrap();
    w.fill_mask(&mut mask).unwrap();
    assert_eq!(bits(&mask), [EOS]);
    assert!(w.only_eos_allowed());
    // Every allowed bit is consumable and nothing else is, in every state.
    // State 3 is only reachable through TEXT_TOKEN, which PARAGRAPH_TOKEN and the token
    // edges shadow completely: no token leads there.
    assert_eq!(a.shortest_path_to(3), None);
    for state in 0..3 {
        let path = a.shortest_path_to(state).unwrap();
        let mut w = Walker::new(&a);
        w.consume_tokens(&path).unwrap();
        w.fill_mask(&mut mask).unwrap();
        for t in 0..VOCAB {
            let set = mask[(t / 32) as usize] & (1 << (t % 32)) != 0;
            assert_eq!(w.is_allowed(t), set, "state {state} token {t}");
            assert_eq!(w.validate_tokens(&[t]) == 1, set, "state {state} token {t}");
        }
    }
}

#[test]
fn dense_states_or_their_terminals_into_the_copied_mask() {
    // 70 token edges (enough for a dense mask at this width) plus a terminal on the rest.
    let vocab = 200u32;
    let width = (vocab as usize).div_ceil(32);
    let mut terminal = vec![0u32; width];
    for t in 100..150 {
        terminal[(t / 32) as usize] |= 1 << (t % 32);
    }
    let a = TokenAutomaton::from_parts(AutomatonParts {
        vocab_size: vocab,
        vocab_fingerprint: 1,
        eos_ids: vec![199],
        start: 0,
        accepting: vec![true, true],
        edges: vec![
            (0..70)
                .map(|t| (t, 1))
                .chain([(vocab, 0)])
                .collect::<Vec<_>>(),
            vec![],
        ],
        terminals: vec![Terminal {
            name: "SOME".into(),
            mask: terminal,
        }],
    })
    .unwrap();
    assert!(a.dense_mask(0).is_some());
    let w = Walker::new(&a);
    let mut mask = vec![0u32; width];
    w.fill_mask(&mut mask).unwrap();
    let expect: Vec<u32> = (0..70).chain(100..150).chain([199]).collect();
    assert_eq!(bits(&mask), expect);
    assert!(w.is_allowed(120));
    assert!(!w.is_allowed(160));
    assert_eq!(a.next_state(0, 120), Some(0));
}

#[test]
fn terminals_survive_the_file_and_to_parts() {
    let a = TokenAutomaton::from_parts(paragraph_automaton()).unwrap();
    let bytes = a.to_bytes();
    let b = TokenAutomaton::from_bytes_copied(&bytes).unwrap();
    assert_eq!(a, b);
    assert_eq!(b.terminal_mask(1), a.terminal_mask(1));
    let mut expected = paragraph_automaton();
    for list in &mut expected.edges {
        list.sort_unstable();
    }
    assert_eq!(b.to_parts(), expected);
    let c = TokenAutomaton::from_parts(b.to_parts()).unwrap();
    assert_eq!(c, a);
}

#[test]
fn random_walks_take_terminal_edges_with_tokens_that_follow_them() {
    let a = TokenAutomaton::from_parts(paragraph_automaton()).unwrap();
    let mut rng = SplitMix64::new(3);
    let mut through_terminal = 0;
    for _ in 0..200 {
        let walk = random_walk(&a, &mut rng, 30);
        let mut w = Walker::new(&a);
        for &t in &walk.tokens {
            if t != NEWLINE && t != 5 {
                through_terminal += 1;
            }
            w.consume(t).unwrap();
        }
        if walk.complete {
            w.consume(EOS).unwrap();
        }
    }
    assert!(through_terminal > 100);
}

#[test]
fn bad_terminal_parts_are_named_errors() {
    let check = |edit: &dyn Fn(&mut AutomatonParts), words: &str| {
        let mut parts = paragraph_automaton();
        edit(&mut parts);
        let e = TokenAutomaton::from_parts(parts).unwrap_err();
        assert!(e.to_string().contains(words), "{e}");
    };
    check(
        &|p| p.terminals[0].mask[EOS as usize / 32] |= 1 << (EOS % 32),
        "EOS id 99",
    );
    check(&|p| p.terminals[1].mask[3] |= 1 << 31, "padding");
    check(&|p| p.terminals[1].mask.push(0), "needs 4");
    check(&|p| p.terminals[0].name.clear(), "name of 0 bytes");
    check(&|p| p.terminals[0].name.push('\n'), "control characters");
    check(&|p| p.edges[0].push((VOCAB + 2, 0)), "neither a token");
    check(
        &|p| {
            p.terminals.pop();
        },
        "neither a token",
    );
}

/// The file of `paragraph_automaton` with `edit` applied behind a recomputed checksum.
fn damaged(edit: impl Fn(&mut Vec<u32>)) -> fstc_core::format::FormatError {
    let a = TokenAutomaton::from_parts(paragraph_automaton()).unwrap();
    let mut words = a.as_words().to_vec();
    edit(&mut words);
    forge_checksum(&mut words);
    TokenAutomaton::from_words(words).unwrap_err()
}

#[test]
fn damaged_terminal_sections_are_named() {
    use fstc_core::format::{SECTION_TERMINAL_MASKS, SECTION_TERMINAL_NAMES};
    let e = damaged(|w| {
        let (at, _) = section(w, SECTION_TERMINAL_MASKS);
        w[at + (EOS / 32) as usize] |= 1 << (EOS % 32);
    });
    assert_eq!(e.kind(), FormatErrorKind::Terminals, "{e}");
    assert!(e.to_string().contains("EOS id 99"), "{e}");
    let e = damaged(|w| {
        let (at, len) = section(w, SECTION_TERMINAL_MASKS);
        w[at + len - 1] |= 1 << 31;
    });
    assert!(e.to_string().contains("padding"), "{e}");
    let e = damaged(|w| {
        let (at, _) = section(w, SECTION_TERMINAL_NAMES);
        w[at + 2] = 0xffff_ffff; // first name bytes: not UTF-8
    });
    assert!(e.to_string().contains("not UTF-8"), "{e}");
    let e = damaged(|w| {
        let (at, _) = section(w, SECTION_TERMINAL_NAMES);
        w[at] += 1;
    });
    assert_eq!(e.kind(), FormatErrorKind::Terminals, "{e}");
    let e = damaged(|w| w[14] = 1); // header says one terminal, edges use two
    assert!(
        matches!(
            e.kind(),
            FormatErrorKind::Counts | FormatErrorKind::EdgeLabel
        ),
        "{e}"
    );
    let e = damaged(|w| w[14] = 0);
    assert_eq!(e.kind(), FormatErrorKind::SectionTable, "{e}");
}
