//! Runs capi/tests/c/test_fstc.c and the README's C example (compiled by build.rs with the
//! system C compiler, linked here with fstc-capi) on automata compiled here from regexes over
//! the byte-level fixture vocabulary. The C program replays a script of calls whose results
//! come from fst-core's own `Walker` on random walks (continuing on clones of the matcher
//! now and then), then calls every function with bad input.

use std::ffi::{c_char, c_int, CString};
use std::fmt::Write as _;
use std::path::PathBuf;

use detok::Vocabulary;
use fst_core::automaton::TokenAutomaton;
use fst_core::compiler::RegexCompiler;
use fst_core::sample::SplitMix64;
use fst_core::walker::{WalkError, WalkErrorKind, Walker};
use fst_core::TokenVocabulary;

/// Status codes of fstc.h.
fn code(result: Result<(), WalkError>) -> u32 {
    match result.map_err(|e| e.kind()) {
        Ok(()) => 0,
        Err(WalkErrorKind::TokenNotAllowed) => 3,
        Err(WalkErrorKind::OutOfVocabulary) => 4,
        Err(WalkErrorKind::Finished) => 5,
        Err(WalkErrorKind::MaskTooNarrow) => 6,
        Err(WalkErrorKind::RollbackTooFar) => 7,
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

fn allowed(walker: &Walker<'_>, vocab_size: u32) -> Vec<u32> {
    (0..vocab_size).filter(|&t| walker.is_allowed(t)).collect()
}

/// One step's checks: mask (exact and wider), flags, forced tokens, a validate, two
/// `is_allowed`.
fn observe(walker: &Walker<'_>, rng: &mut SplitMix64, vocab_size: u32, script: &mut String) {
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

/// The script of test_fstc.c: vocabulary, EOS ids, then random walks with bad tokens,
/// rollbacks and batch consumes mixed in. Returns it and how many steps had forced tokens.
fn script(automaton: &TokenAutomaton, walks: usize) -> (String, usize) {
    let vocab_size = automaton.vocab_size();
    let mut s = format!("vocab {vocab_size}\neos {}\n", ids(automaton.eos_ids()));
    let mut rng = SplitMix64::new(7);
    let mut walker = Walker::new(automaton);
    let mut forced_steps = 0;
    for _ in 0..walks {
        walker.reset();
        s.push_str("reset\n");
        for _ in 0..40 {
            observe(&walker, &mut rng, vocab_size, &mut s);
            forced_steps += !walker.forced_tokens().is_empty() as usize;
            // Any token: allowed (the walk moves on both sides) or an error (neither moves).
            let any = rng.below(vocab_size as u64 + 2) as u32;
            writeln!(s, "consume {any} {}", code(walker.consume(any))).unwrap();
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
            writeln!(s, "consume {t} {}", code(walker.consume(t))).unwrap();
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
    (s, forced_steps)
}

#[link(name = "fstc_ctest", kind = "static")]
extern "C" {
    fn fstc_c_test_main(argc: c_int, argv: *const *const c_char) -> c_int;
    fn fstc_readme_main(argc: c_int, argv: *const *const c_char) -> c_int;
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
    let path = testkit::vocabs::testdata_dir().join("bytelevel/tokenizer.json");
    let vocab = Vocabulary::from_file(path).unwrap();
    let automaton = RegexCompiler::new().compile(pattern, &vocab).unwrap();
    assert_eq!(automaton.vocab_size() as usize, vocab.len());
    let file = work_dir().join(format!("{name}.fstc"));
    std::fs::write(&file, automaton.to_bytes()).unwrap();
    (automaton, file)
}

const PATTERN: &str = r#"\{"(id|name)": ([0-9]{1,3}|"[a-z ]{0,8}")\}"#;

#[test]
fn c_program_exercises_every_function() {
    let (automaton, file) = fixture_automaton(PATTERN, "script");
    let (script, forced_steps) = script(&automaton, 12);
    assert!(
        forced_steps > 0,
        "the walks reach states with forced tokens"
    );
    let script_path = work_dir().join("script.txt");
    std::fs::write(&script_path, &script).unwrap();
    let code = call_main(fstc_c_test_main, &[&file, &script_path]);
    assert_eq!(code, 0, "test_fstc.c failed (its stderr says which check)");
}

/// The README's "Use from C" example, compiled and run as written.
#[test]
fn readme_c_example_runs() {
    let (_, file) = fixture_automaton(r"(yes|no)", "yesno");
    assert_eq!(
        call_main(fstc_readme_main, &[&file]),
        0,
        "the example walks to EOS"
    );
    let missing = work_dir().join("missing.fstc");
    assert_eq!(
        call_main(fstc_readme_main, &[&missing]),
        2,
        "a missing file is reported"
    );
}
