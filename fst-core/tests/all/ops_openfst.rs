//! Exchange with OpenFst files: byte DFAs written by rustfst (binary and AT&T text) read
//! back equal, in the three label schemes; token automata written for OpenFst read back
//! by rustfst with the same arcs; the intersection against rustfst's own composition;
//! malformed files refused with errors, never a panic.
#![cfg(feature = "compile")]

use fstc_core::automaton::{AutomatonParts, Terminal, TokenAutomaton};
use fstc_core::bytes::{ByteDfa, DEFAULT_DFA_STATE_LIMIT};
use fstc_core::labels::{label_token, token_label};
use fstc_core::minimize::minimize;
use fstc_core::ops::openfst::{
    byte_dfa_from_openfst, size, to_binary, to_openfst, Labels, OpenFstExport,
};
use fstc_core::ops::OpsErrorKind;
use fstc_core::ops::TokenAlgebra;
use fstc_regex::byte_dfa;
use proptest::prelude::*;
use rustfst::algorithms::compose::compose;
use rustfst::algorithms::determinize::determinize;
use rustfst::algorithms::tr_compares::{ILabelCompare, OLabelCompare};
use rustfst::algorithms::tr_sort;
use rustfst::prelude::*;

use crate::compose_support::Rng;

const LIMIT: usize = DEFAULT_DFA_STATE_LIMIT;

fn dfa(pattern: &str) -> ByteDfa {
    byte_dfa(pattern, LIMIT).unwrap()
}

fn read(data: &[u8], labels: Labels) -> ByteDfa {
    byte_dfa_from_openfst(data, labels, LIMIT).unwrap()
}

fn binary(fst: &VectorFst<TropicalWeight>) -> Vec<u8> {
    let mut out = Vec::new();
    fst.store(&mut out).unwrap();
    out
}

#[test]
fn byte_dfas_written_by_rustfst_read_back_equal() {
    for pattern in [
        "(foo)+d",
        r"\d{2,3}-[a-z]+",
        "é|中文|x*",
        "",
        r"[\x00-\xFF]",
    ] {
        let d = dfa(pattern);
        let fst = d.to_fst();
        assert_eq!(read(&binary(&fst), Labels::Fstc), d, "{pattern} binary");
        assert_eq!(
            read(fst.text().unwrap().as_bytes(), Labels::Fstc),
            d,
            "{pattern} text"
        );
    }
}

/// An acceptor over the given arcs `(from, to, label)`, start 0, `finals`.
fn acceptor(n: u32, arcs: &[(u32, u32, u32)], finals: &[u32]) -> VectorFst<TropicalWeight> {
    let mut fst = VectorFst::<TropicalWeight>::new();
    fst.add_states(n as usize);
    fst.set_start(0).unwrap();
    for &(from, to, l) in arcs {
        fst.add_tr(from, Tr::new(l, l, TropicalWeight::one(), to))
            .unwrap();
    }
    for &f in finals {
        fst.set_final(f, TropicalWeight::one()).unwrap();
    }
    fst
}

#[test]
fn byte_and_code_point_labels_and_epsilons_are_read() {
    // Pynini's byte mode: `ab|c` with raw byte values.
    let fst = acceptor(3, &[(0, 1, 97), (1, 2, 98), (0, 2, 99)], &[2]);
    assert_eq!(read(&binary(&fst), Labels::Bytes), dfa("ab|c"));
    // Code points: `é中?` (U+00E9, U+4E2D), with an epsilon arc making the second optional.
    let fst = acceptor(3, &[(0, 1, 0xE9), (1, 2, 0x4E2D), (1, 2, 0)], &[2]);
    assert_eq!(read(&binary(&fst), Labels::CodePoints), dfa("é中?"));
    // `(a|ab)*` as an epsilon NFA, in AT&T text by hand: acceptor lines, a zero-weight arc.
    let text =
        "0\t1\t98\n1\t2\t99\n2\t0\t0\t0\n0\t3\t98\n3\t0\t0\n0\n0\t4\t120\t120\tInfinity\n4\n";
    assert_eq!(read(text.as_bytes(), Labels::Fstc), dfa("(a|ab)*"));
}

#[test]
fn token_automata_written_for_openfst_read_back_in_rustfst() {
    let vocab = testkit::paper::figure4_vocabulary();
    let a = fstc_regex::RegexCompiler::new()
        .compile("(foo)+d", &vocab)
        .unwrap()
        .automaton;
    let fst = VectorFst::<TropicalWeight>::load(&to_binary(&to_openfst(&a, 100).unwrap()).unwrap())
        .unwrap();
    assert_eq!(fst.num_states() as u32, a.num_states());
    assert_eq!(fst.start(), Some(a.start()));
    for s in 0..a.num_states() {
        let arcs: Vec<(u32, u32)> = fst
            .get_trs(s)
            .unwrap()
            .trs()
            .iter()
            .map(|tr| (label_token(tr.ilabel).unwrap(), tr.nextstate))
            .collect();
        assert_eq!(arcs, a.token_edges(s));
        assert_eq!(fst.is_final(s).unwrap(), a.is_accepting(s));
    }
    let err = to_openfst(&a, 2).unwrap_err();
    assert!(err.to_string().contains("more than 2 arcs"), "{err}");
}

/// An export is held to its memory limit at 96 bytes a state and 64 an arc (the machine
/// and its file, which the count covers in both formats), and to its deadline; T_V too.
#[test]
fn exports_stop_at_their_memory_limit_and_deadline() {
    let vocab = testkit::paper::figure4_vocabulary();
    let a = fstc_regex::RegexCompiler::new()
        .compile("(foo)+d", &vocab)
        .unwrap()
        .automaton;
    let fst = OpenFstExport::new().acceptor(&a).unwrap();
    let tv = OpenFstExport::new().detokenizer(&vocab).unwrap();
    assert_eq!(tv, fstc_core::reference::detokenizing_fst(&vocab));
    for (machine, build) in [(&fst, 0), (&tv, 1)] {
        let (states, arcs) = size(machine);
        let held = states * 96 + arcs * 64;
        let export = |limits: OpenFstExport| match build {
            0 => limits.acceptor(&a),
            _ => limits.detokenizer(&vocab),
        };
        for att in [false, true] {
            let file = OpenFstExport::new().write(machine, att).unwrap();
            assert!(file.len() <= held, "{} > {held}", file.len());
        }
        assert_eq!(
            &export(OpenFstExport::new().memory_limit(held)).unwrap(),
            machine
        );
        let err = export(OpenFstExport::new().memory_limit(held - 1)).unwrap_err();
        assert!(matches!(err.kind(), OpsErrorKind::Memory { .. }), "{err}");
        assert!(
            err.to_string()
                .contains("and its file, past its memory limit"),
            "{err}"
        );
        let err = export(OpenFstExport::new().arc_limit(arcs - 1)).unwrap_err();
        assert!(
            matches!(err.kind(), OpsErrorKind::TooManyStates { .. }),
            "{err}"
        );
        let now = std::time::Instant::now().checked_sub(std::time::Duration::from_millis(1));
        let err = export(OpenFstExport::new().deadline(now)).unwrap_err();
        assert!(matches!(err.kind(), OpsErrorKind::Deadline), "{err}");
        let err = OpenFstExport::new().deadline(now).write(machine, false);
        assert!(matches!(err.unwrap_err().kind(), OpsErrorKind::Deadline));
    }
}

/// A random automaton over ids 0..6 (EOS 6) with a terminal edge now and then.
fn random_automaton(rng: &mut Rng) -> TokenAutomaton {
    let n = 1 + rng.below(4);
    let mask = (0..6)
        .filter(|_| rng.chance(50))
        .fold(0u32, |m, t| m | 1 << t);
    let mut edges = Vec::new();
    for _ in 0..n {
        let mut list = Vec::new();
        for t in 0..6u32 {
            if rng.chance(40) {
                list.push((t, rng.below(n) as u32));
            }
        }
        if mask != 0 && rng.chance(40) {
            list.push((7, rng.below(n) as u32));
        }
        edges.push(list);
    }
    TokenAutomaton::from_parts(AutomatonParts {
        vocab_size: 7,
        vocab_fingerprint: 3,
        eos_ids: vec![6],
        start: 0,
        accepting: (0..n).map(|_| rng.chance(40)).collect(),
        edges,
        terminals: if mask != 0 {
            vec![Terminal {
                name: "T".into(),
                mask: vec![mask],
            }]
        } else {
            Vec::new()
        },
    })
    .unwrap()
}

/// rustfst's determinized, minimized acceptor as a canonical token automaton.
fn from_rustfst(fst: &VectorFst<TropicalWeight>) -> TokenAutomaton {
    let Some(start) = fst.start() else {
        return empty();
    };
    let n = fst.num_states() as u32;
    let accepting = (0..n).map(|s| fst.is_final(s).unwrap()).collect();
    let edges = (0..n)
        .map(|s| {
            let trs = fst.get_trs(s).unwrap();
            let mut list: Vec<(u32, u32)> = trs
                .trs()
                .iter()
                .map(|tr| (label_token(tr.ilabel).unwrap(), tr.nextstate))
                .collect();
            list.sort_unstable();
            list
        })
        .collect();
    let parts = AutomatonParts {
        vocab_size: 7,
        vocab_fingerprint: 3,
        eos_ids: vec![6],
        start,
        accepting,
        edges,
        terminals: Vec::new(),
    };
    TokenAutomaton::from_parts(minimize(parts)).unwrap()
}

/// The automaton accepting nothing.
fn empty() -> TokenAutomaton {
    TokenAutomaton::from_parts(minimize(AutomatonParts {
        vocab_size: 7,
        vocab_fingerprint: 3,
        eos_ids: vec![6],
        start: 0,
        accepting: vec![false],
        edges: vec![Vec::new()],
        terminals: Vec::new(),
    }))
    .unwrap()
}

#[test]
fn intersection_equals_rustfst_composition_of_the_exported_acceptors() {
    let mut rng = Rng::new(31);
    for case in 0..200 {
        let (a, b) = (random_automaton(&mut rng), random_automaton(&mut rng));
        let mut fa = to_openfst(&a, 1000).unwrap();
        let mut fb = to_openfst(&b, 1000).unwrap();
        tr_sort(&mut fa, OLabelCompare {});
        tr_sort(&mut fb, ILabelCompare {});
        let composed: VectorFst<TropicalWeight> =
            compose::<TropicalWeight, VectorFst<_>, VectorFst<_>, VectorFst<_>, _, _>(&fa, &fb)
                .unwrap();
        let det: VectorFst<TropicalWeight> = determinize(&composed).unwrap();
        let ours = TokenAlgebra::new().intersect(&a, &b).unwrap().automaton;
        assert_eq!(ours, from_rustfst(&det), "case {case}");
        assert_eq!(token_label(0), 1);
    }
}

#[test]
fn malformed_files_are_refused_with_the_place_named() {
    let err = |data: &[u8]| {
        byte_dfa_from_openfst(data, Labels::Fstc, LIMIT)
            .unwrap_err()
            .to_string()
    };
    assert!(err(b"0\t1\tx\tx\n").contains("line 1: `x` is not a numeric label"));
    assert!(err(b"0 1 2 3\n").contains("line 1: input label 2 and output label 3 differ"));
    assert!(err(b"0\n1 2 3 4 5 6\n").contains("line 2: 6 fields"));
    assert!(err(b"a 1 2\n").contains("line 1: `a` is not a state number"));
    assert!(err(b"0 1 2 2 heavy\n").contains("line 1: `heavy` is not a weight"));
    assert!(err(b"0 1 300\n1\n").contains("label 300 is not a byte label"));
    assert!(err(b"\xff\xfe").contains("neither an OpenFst binary file"));
    let transducer = {
        let mut f = acceptor(2, &[(0, 1, 5)], &[1]);
        f.add_tr(0, Tr::new(3, 4, TropicalWeight::one(), 1))
            .unwrap();
        binary(&f)
    };
    assert!(err(&transducer).contains("arc 1 of state 0 has input label 3 and output label 4"));
    let dangling = binary(&acceptor(2, &[(0, 7, 5)], &[1]));
    assert!(err(&dangling).contains("arc 0 of state 0 leads to state 7, past the 2 states"));
    let mut log = binary(&acceptor(1, &[], &[0]));
    let at = log.windows(8).position(|w| w == b"standard").unwrap();
    log[at..at + 8].copy_from_slice(b"log\0\0\0\0\0");
    assert!(err(&log).contains("fstc reads `vector` FSTs with `standard` arcs"));
    let cp = byte_dfa_from_openfst(b"0 1 55296\n1\n", Labels::CodePoints, LIMIT).unwrap_err();
    assert!(
        cp.to_string().contains("not a Unicode scalar value"),
        "{cp}"
    );
    let too_big = byte_dfa_from_openfst(
        dfa("[a-z]{30}").to_fst().text().unwrap().as_bytes(),
        Labels::Fstc,
        10,
    );
    assert!(too_big.unwrap_err().to_string().contains("10"));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn damaged_binary_files_give_errors_or_automata(cut in 0usize..400, flips in proptest::collection::vec((0usize..400, any::<u8>()), 0..4)) {
        let mut data = binary(&dfa("(ab|c)+d?").to_fst());
        for (at, byte) in flips {
            let i = at % data.len();
            data[i] ^= byte | 1;
        }
        data.truncate(cut.max(4));
        // Any outcome but a panic or a hang; a file that loads is a valid DFA.
        if let Ok(d) = byte_dfa_from_openfst(&data, Labels::Fstc, LIMIT) {
            prop_assert!(d.num_states() >= 1);
        }
    }

    #[test]
    fn random_text_gives_errors_or_automata(lines in proptest::collection::vec(proptest::collection::vec(prop_oneof![Just("0".to_string()), Just("1".to_string()), Just("257".to_string()), Just("x".to_string()), Just("Infinity".to_string()), Just("99999999999".to_string())], 0..7), 0..8)) {
        let text: String = lines.iter().map(|l| l.join("\t") + "\n").collect();
        let _ = byte_dfa_from_openfst(text.as_bytes(), Labels::Bytes, LIMIT);
    }
}

#[test]
fn acceptors_written_by_pynini_compile_like_the_equal_regex() {
    // testdata/openfst/*.fst come from testdata/make_pynini_fixture.py (OpenFst's own writer).
    let vocab =
        fstc_detok::Vocabulary::from_file(testkit::vocabs::testdata("bytelevel/tokenizer.json"))
            .unwrap();
    let cases = [
        (
            "openfst/date.fst",
            Labels::Bytes,
            r"[0-9]{4}-[0-9]{2}-[0-9]{2}",
        ),
        ("openfst/words.fst", Labels::CodePoints, "(é|中文)+x"),
    ];
    for (rel, labels, pattern) in cases {
        let data = std::fs::read(testkit::vocabs::testdata(rel)).unwrap();
        let d = read(&data, labels);
        assert_eq!(d, dfa(pattern), "{rel}");
        let trie = fstc_core::vocab::VocabTrie::new(&vocab);
        let compiler = fstc_regex::RegexCompiler::new();
        let from_fst = compiler.compile_dfa_with_trie(&d, rel, &trie).unwrap();
        let from_regex = compiler.compile_with_trie(pattern, &trie).unwrap();
        assert_eq!(from_fst.automaton, from_regex.automaton, "{rel}");
    }
}
