//! Runs capi/tests/c/test_fstc.c and the C example of docs/c.md (compiled by build.rs with the
//! system C compiler, linked here with fstc-capi) on automata compiled here over the
//! byte-level fixture vocabulary: a token FSA from a regex and a token PDA from a grammar.
//! The C program replays a script of calls whose results come from fstc-core's own walkers
//! (`Walker`, `PdaWalker` with a small stack limit, `GlrWalker` with a small configuration
//! limit) on random walks (continuing on clones of
//! the matcher now and then), then calls every function with bad input (the corrupt files
//! are mutations of the automaton under test).

use std::ffi::{c_char, c_int, CString};
use std::fmt::Write as _;
use std::path::PathBuf;

use fstc_core::automaton::TokenAutomaton;
use fstc_core::glr_walker::GlrWalker;
use fstc_core::matcher::{MatchError, MatchErrorKind, Matcher};
use fstc_core::pda_walker::PdaWalker;
use fstc_core::sample::SplitMix64;
use fstc_core::token_pda::TokenPda;
use fstc_core::walker::Walker;
use fstc_core::TokenVocabulary;
use fstc_detok::Vocabulary;
use fstc_regex::RegexCompiler;

/// Status codes of fstc.h.
fn code(result: Result<(), MatchError>) -> u32 {
    match result.map_err(|e| e.kind()) {
        Ok(()) => 0,
        Err(MatchErrorKind::TokenNotAllowed) => 3,
        Err(MatchErrorKind::OutOfVocabulary) => 4,
        Err(MatchErrorKind::Finished) => 5,
        Err(MatchErrorKind::MaskTooNarrow) => 6,
        Err(MatchErrorKind::RollbackTooFar) => 7,
        Err(MatchErrorKind::StackLimit) => 11,
        Err(MatchErrorKind::ConfigLimit) => 12,
        Err(kind) => panic!("unexpected {kind:?}"),
    }
}

fn ids(list: &[u32]) -> String {
    let mut s = list.len().to_string();
    for id in list {
        write!(s, " {id}").unwrap();
    }
    s
}

/// The tokens the mask allows (for a PDA at its stack limit, also those `consume`
/// refuses with the stack-limit status).
fn allowed<M: Matcher>(walker: &M, vocab_size: u32) -> Vec<u32> {
    let mut mask = vec![0u32; vocab_size.div_ceil(32) as usize];
    walker.fill_mask(&mut mask).unwrap();
    (0..vocab_size)
        .filter(|&t| mask[t as usize / 32] >> (t % 32) & 1 == 1)
        .collect()
}

/// One step's checks: mask (exact and wider), flags, forced tokens, a validate, two
/// `is_allowed`.
fn observe<M: Matcher>(walker: &M, rng: &mut SplitMix64, vocab_size: u32, script: &mut String) {
    let words = vocab_size.div_ceil(32) as usize;
    for width in [words, words + 2] {
        let mut mask = vec![0u32; width];
        walker.fill_mask(&mut mask).unwrap();
        writeln!(script, "mask {}", ids(&mask)).unwrap();
    }
    writeln!(script, "accepting {}", walker.is_accepting() as u8).unwrap();
    writeln!(script, "finished {}", walker.is_finished() as u8).unwrap();
    writeln!(script, "consumed {}", walker.num_consumed()).unwrap();
    writeln!(script, "forced {}", ids(&walker.forced_tokens())).unwrap();
    let t = rng.below(vocab_size as u64 + 8) as u32;
    writeln!(script, "allowed {t} {}", walker.is_allowed(t) as u8).unwrap();
    let draft: Vec<u32> = (0..rng.index(4))
        .map(|_| match allowed(walker, vocab_size).as_slice() {
            [] => rng.below(vocab_size as u64) as u32,
            a => a[rng.index(a.len())],
        })
        .collect();
    let accepted = walker.validate_tokens(&draft);
    writeln!(script, "validate {} {accepted}", ids(&draft)).unwrap();
}

/// What a script exercised, to check the walks reached what they should.
#[derive(Default)]
struct Reached {
    forced_steps: usize,
    stack_limit_refusals: usize,
    config_limit_refusals: usize,
    moves: usize,
}

impl Reached {
    fn count(&mut self, result: &Result<(), MatchError>) {
        let kind = result.as_ref().err().map(MatchError::kind);
        self.stack_limit_refusals += (kind == Some(MatchErrorKind::StackLimit)) as usize;
        self.config_limit_refusals += (kind == Some(MatchErrorKind::ConfigLimit)) as usize;
        self.moves += result.is_ok() as usize;
    }
}

/// The header's limits: 0 for the default.
#[derive(Clone, Copy, Default)]
struct Limits {
    stack: usize,
    configs: usize,
}

/// The script of test_fstc.c: kind, stack and configuration limits (0: the default),
/// vocabulary, EOS ids, then random walks with bad tokens, rollbacks and batch consumes
/// mixed in.
fn script<M: Matcher + Clone>(
    mut walker: M,
    kind: u32,
    limits: Limits,
    eos: &[u32],
    walks: usize,
    probes: &[u32],
) -> (String, Reached) {
    let vocab_size = walker.vocab_size();
    let mut s = format!(
        "kind {kind}\nstack {}\nconfigs {}\nvocab {vocab_size}\neos {}\n",
        limits.stack,
        limits.configs,
        ids(eos)
    );
    let mut rng = SplitMix64::new(7);
    let mut reached = Reached::default();
    for _ in 0..walks {
        walker.reset();
        s.push_str("reset\n");
        for _ in 0..40 {
            observe(&walker, &mut rng, vocab_size, &mut s);
            reached.forced_steps += !walker.forced_tokens().is_empty() as usize;
            // Any token: allowed (the walk moves on both sides) or an error (neither moves).
            let any = rng.below(vocab_size as u64 + 2) as u32;
            writeln!(s, "consume {any} {}", code(walker.consume(any))).unwrap();
            // Probes (e.g. an opening bracket) now and then: they move the walk where they
            // are allowed, and near the stack limit the masks leave them out, so consuming
            // one is the limit's error on both sides.
            for &p in probes.iter().filter(|_| rng.below(3) == 0) {
                let result = walker.consume(p);
                reached.count(&result);
                writeln!(s, "consume {p} {}", code(result)).unwrap();
            }
            let choices = allowed(&walker, vocab_size);
            if choices.is_empty() || walker.is_finished() {
                writeln!(s, "consume 0 {}", code(walker.clone().consume(0))).unwrap();
                break;
            }
            if rng.below(5) == 0 && choices.len() > 1 {
                let batch = [choices[rng.index(choices.len())], vocab_size];
                writeln!(
                    s,
                    "tokens {} {}",
                    ids(&batch),
                    code(walker.consume_tokens(&batch))
                )
                .unwrap();
            }
            let t = choices[rng.index(choices.len())];
            let result = walker.consume(t);
            reached.count(&result);
            writeln!(s, "consume {t} {}", code(result)).unwrap();
            if rng.below(7) == 0 {
                // The C side continues on a clone; the script stays the same.
                s.push_str("fork\n");
            }
            if rng.below(6) == 0 {
                let n = rng.index(walker.num_consumed() + 2);
                writeln!(s, "rollback {n} {}", code(walker.rollback(n))).unwrap();
            }
        }
    }
    (s, reached)
}

#[link(name = "fstc_ctest", kind = "static")]
extern "C" {
    fn fstc_c_test_main(argc: c_int, argv: *const *const c_char) -> c_int;
    fn fstc_example_main(argc: c_int, argv: *const *const c_char) -> c_int;
    fn fstc_llama_test_main(argc: c_int, argv: *const *const c_char) -> c_int;
}

type CMain = unsafe extern "C" fn(c_int, *const *const c_char) -> c_int;

/// Calls a C `main` with `args` (after the program name) and returns its exit code.
fn call_main(main: CMain, args: &[&std::path::Path]) -> c_int {
    // The C code calls fstc-capi's exports; name the crate so it is linked.
    let _ = fstc_capi_ctest::fstc_capi::fstc_last_error;
    let owned: Vec<CString> = std::iter::once("c_test".to_string())
        .chain(args.iter().map(|p| p.display().to_string()))
        .map(|s| CString::new(s).unwrap())
        .collect();
    let mut argv: Vec<*const c_char> = owned.iter().map(|s| s.as_ptr()).collect();
    argv.push(std::ptr::null());
    // SAFETY: argv holds argc valid C strings (alive in `owned`) and a null terminator, as
    // a C `main` expects; the programs only read them.
    unsafe { main(owned.len() as c_int, argv.as_ptr()) }
}

fn work_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("fstc-capi");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The automaton of `pattern` over the byte-level fixture, also written to `NAME.fstc`.
fn fixture_automaton(pattern: &str, name: &str) -> (TokenAutomaton, PathBuf) {
    let vocab = fixture_vocab();
    let automaton = RegexCompiler::new()
        .compile(pattern, &vocab)
        .unwrap()
        .automaton;
    assert_eq!(automaton.vocab_size() as usize, vocab.len());
    let file = work_dir().join(format!("{name}.fstc"));
    std::fs::write(&file, automaton.to_bytes()).unwrap();
    (automaton, file)
}

fn fixture_vocab() -> Vocabulary {
    let path = testkit::vocabs::testdata_dir().join("bytelevel/tokenizer.json");
    Vocabulary::from_file(path).unwrap()
}

/// The token PDA of a GBNF grammar over the byte-level fixture, also written to `NAME.fstc`.
fn fixture_pda(grammar: &str, name: &str) -> (TokenPda, PathBuf) {
    let vocab = fixture_vocab();
    let pda = fstc_pda::GrammarCompiler::new()
        .compile(grammar, &vocab)
        .unwrap()
        .automaton;
    let file = work_dir().join(format!("{name}.fstc"));
    std::fs::write(&file, pda.to_bytes()).unwrap();
    (pda, file)
}

/// test_fstc.c keeps its counters and buffers in statics: one run at a time.
static C_TEST: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Runs test_fstc.c on `file` with `script`.
fn run_c_test(file: &std::path::Path, script: &str, name: &str) {
    let script_path = work_dir().join(format!("{name}.txt"));
    std::fs::write(&script_path, script).unwrap();
    let _one_at_a_time = C_TEST.lock().unwrap_or_else(|e| e.into_inner());
    let code = call_main(fstc_c_test_main, &[file, &script_path]);
    assert_eq!(code, 0, "test_fstc.c failed (its stderr says which check)");
}

const PATTERN: &str = r#"\{"(id|name)": ([0-9]{1,3}|"[a-z ]{0,8}")\}"#;

#[test]
fn c_program_exercises_every_function() {
    let (automaton, file) = fixture_automaton(PATTERN, "script");
    let walker = Walker::new(&automaton);
    let (script, reached) = script(walker, 0, Limits::default(), automaton.eos_ids(), 12, &[]);
    assert!(
        reached.forced_steps > 0,
        "the walks reach states with forced tokens"
    );
    run_c_test(&file, &script, "script");
}

/// A JSON Schema with an object, a bounded array, an enum and a pattern.
const SCHEMA: &str = r#"{"type": "object", "properties": {
    "id": {"type": "integer", "minimum": 0, "maximum": 999},
    "tags": {"type": "array", "items": {"enum": ["a", "bc"]}, "maxItems": 3},
    "name": {"type": "string", "pattern": "^[a-z]{1,6}$"}},
  "required": ["id"], "additionalProperties": false}"#;

/// `fstc_compile_lazy` in C (the second form of test_fstc.c) answers every call of the
/// script as fstc-core's eager walker of the same constraint does: a regex, and a JSON
/// Schema (whose lazy compile is a call network, not one DFA).
#[test]
fn c_program_walks_lazy_automata_as_the_eager_walker() {
    let vocab = fixture_vocab();
    let tokenizer = testkit::vocabs::testdata_dir().join("bytelevel/tokenizer.json");
    let schema = fstc_json::JsonSchemaCompiler::new()
        .compile(SCHEMA, &vocab)
        .unwrap()
        .automaton;
    let (regex, _) = fixture_automaton(PATTERN, "lazy_regex");
    for (name, source, text, automaton) in [
        ("lazy_regex", 0, PATTERN, &regex),
        ("lazy_schema", 1, SCHEMA, &schema),
    ] {
        let (script, reached) = script(
            Walker::new(automaton),
            2,
            Limits::default(),
            automaton.eos_ids(),
            12,
            &[],
        );
        assert!(reached.moves > 0, "{name}: the walks move");
        let text_path = work_dir().join(format!("{name}.txt.in"));
        std::fs::write(&text_path, text).unwrap();
        let script_path = work_dir().join(format!("{name}.txt"));
        std::fs::write(&script_path, script).unwrap();
        let _one_at_a_time = C_TEST.lock().unwrap_or_else(|e| e.into_inner());
        let source = std::path::PathBuf::from(source.to_string());
        // A thread of its own: test_fstc.c starts by checking that no call failed yet.
        let code = std::thread::scope(|s| {
            s.spawn(|| {
                call_main(
                    fstc_c_test_main,
                    &[&tokenizer, &source, &text_path, &script_path],
                )
            })
            .join()
            .unwrap()
        });
        assert_eq!(
            code, 0,
            "{name}: test_fstc.c failed (its stderr says which check)"
        );
    }
}

/// Nested lists: brackets push, so the walks reach the stack limit of 3.
const GRAMMAR: &str = r#"
root  ::= "[" items? "]"
items ::= item ("," item)*
item  ::= [0-9]{1,3} | root | "\"" [a-z]{0,4} "\""
"#;

/// The C program walks a token PDA (a grammar's) exactly as `PdaWalker` does, including
/// the stack-limit status, and refuses the PDA file's corruptions.
#[test]
fn c_program_walks_a_token_pda() {
    let (pda, file) = fixture_pda(GRAMMAR, "grammar");
    let walker = PdaWalker::new(&pda).with_stack_limit(3);
    let vocab = fixture_vocab();
    let open: Vec<u32> = (0..vocab.len() as u32)
        .filter(|&t| vocab.token_bytes(t) == Some(b"["))
        .collect();
    assert!(!open.is_empty(), "the fixture spells `[`");
    let limits = Limits {
        stack: 3,
        configs: 0,
    };
    let (script, reached) = script(walker, 1, limits, pda.eos_ids(), 24, &open);
    assert!(
        reached.stack_limit_refusals > 0,
        "the walks reach the stack limit"
    );
    run_c_test(&file, &script, "grammar");
}

/// Ambiguous: after `x` the text may be in `a` or in `b`, each a call, so a walker keeps two
/// configurations; after `(x`, three (`a`, `b` or `c`).
const AMBIGUOUS_GRAMMAR: &str = r#"
root ::= a | b | "(" ( a | b | c )
a    ::= "x" a | "x"
b    ::= "x" b | "x" "y"
c    ::= "x" c | "x" "z"
"#;

/// The C program walks a nondeterministic token PDA exactly as `GlrWalker` does, with a
/// configuration limit (`fstc_matcher_new_with_limits`) of 2: walks through `a` or `b` move,
/// and `x` after `(` is refused though the mask allows it.
#[test]
fn c_program_walks_a_nondeterministic_token_pda_with_a_configuration_limit() {
    let (pda, file) = fixture_pda(AMBIGUOUS_GRAMMAR, "ambiguous");
    assert!(!pda.is_deterministic());
    let walker = GlrWalker::new(&pda)
        .with_stack_limit(8)
        .with_config_limit(2);
    let limits = Limits {
        stack: 8,
        configs: 2,
    };
    let (script, reached) = script(walker, 1, limits, pda.eos_ids(), 24, &[]);
    assert!(
        reached.config_limit_refusals > 0 && reached.moves > 0,
        "the walks move and reach the configuration limit ({} moves, {} refusals)",
        reached.moves,
        reached.config_limit_refusals
    );
    run_c_test(&file, &script, "ambiguous");
}

/// The grammar of docs/c.md's C example run on a token PDA: the first `item` is a call
/// (something follows it), so its `!` is read with a return address on the stack.
const EXAMPLE_GRAMMAR: &str = r#"root ::= item item
item ::= "!" | "(" item ")"
"#;

/// docs/c.md's C example, compiled and run as written.
#[test]
fn docs_c_example_runs() {
    let (_, file) = fixture_automaton(r"(yes|no)", "yesno");
    assert_eq!(
        call_main(fstc_example_main, &[&file]),
        0,
        "the example walks to EOS"
    );
    // The same program walks a grammar's token PDA (docs/c.md's second run).
    let (_, pda_file) = fixture_pda(EXAMPLE_GRAMMAR, "pairs");
    assert_eq!(
        call_main(fstc_example_main, &[&pda_file]),
        0,
        "the example walks the PDA to EOS"
    );
    let missing = work_dir().join("missing.fstc");
    assert_eq!(
        call_main(fstc_example_main, &[&missing]),
        2,
        "a missing file is reported"
    );
}

/// The pieces of test_fstc_llama.c's stand-in llama.cpp vocabulary (`None`: special; id 0 is
/// its end of generation), then its one long piece.
const LLAMA_PIECES: [Option<&str>; 13] = [
    None,
    None,
    Some("a"),
    Some("b"),
    Some("ab"),
    Some("ba"),
    Some("c"),
    Some("{"),
    Some("}"),
    Some("\""),
    Some("1"),
    Some("12"),
    Some(" "),
];

/// `(ab|b)+c` compiled over `tokens` (EOS id 0) and written to `NAME.fstc`.
fn llama_file(tokens: Vec<Option<Vec<u8>>>, name: &str) -> PathBuf {
    let vocab = fstc_core::vocab::ByteVocabulary::new(tokens, vec![0]);
    let trie = fstc_core::vocab::VocabTrie::new(&vocab);
    let automaton = RegexCompiler::new()
        .compile_with_trie("(ab|b)+c", &trie)
        .unwrap()
        .automaton;
    let file = work_dir().join(format!("{name}.fstc"));
    std::fs::write(&file, automaton.to_bytes()).unwrap();
    file
}

/// The llama.cpp sampler (capi/llama/fstc_llama.c) driven through its `llama_sampler_i` as
/// llama.cpp does, against a matcher of the same constraint; and files compiled ahead: one
/// for its vocabulary, one for the same size with other bytes, one for another size; and
/// fstc_compile.h's functions on the byte-level fixture and on bad input.
#[test]
fn llama_sampler_masks_as_the_matcher() {
    let mut same: Vec<Option<Vec<u8>>> = LLAMA_PIECES
        .iter()
        .map(|p| p.map(|s| s.as_bytes().to_vec()))
        .collect();
    same.push(Some(vec![b'z'; 70000]));
    let mut other = same.clone();
    other[12] = Some(b"\t".to_vec());
    let smaller = same[..same.len() - 1].to_vec();
    let files = [
        llama_file(same, "llama_same"),
        llama_file(other, "llama_other_bytes"),
        llama_file(smaller, "llama_other_size"),
    ];
    let tokenizer = testkit::vocabs::testdata_dir().join("bytelevel/tokenizer.json");
    let mut paths: Vec<&std::path::Path> = files.iter().map(PathBuf::as_path).collect();
    paths.push(&tokenizer);
    assert_eq!(
        call_main(fstc_llama_test_main, &paths),
        0,
        "test_fstc_llama.c failed (its stderr says which check)"
    );
}
