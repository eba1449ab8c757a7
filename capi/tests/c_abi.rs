//! Builds capi/tests/c/test_fstc.c (and the README's C example) with the system C compiler
//! against the static library and runs it on an automaton compiled here from a regex over
//! the byte-level fixture vocabulary. The C program replays a script of calls whose results
//! come from fst-core's own `Walker` on random walks, then calls every function with bad
//! input.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

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
                writeln!(s, "tokens {} {}", ids(&batch), code(walker.consume_tokens(&batch))).unwrap();
            }
            let t = choices[rng.index(choices.len())];
            writeln!(s, "consume {t} {}", code(walker.consume(t))).unwrap();
            if rng.below(6) == 0 {
                let n = rng.index(walker.num_consumed() + 2);
                writeln!(s, "rollback {n} {}", code(walker.rollback(n))).unwrap();
            }
        }
    }
    (s, forced_steps)
}

fn target_dir() -> PathBuf {
    // The test binary is target/<profile>/deps/c_abi-HASH; the library is in target/<profile>.
    let exe = std::env::current_exe().unwrap();
    exe.parent().unwrap().parent().unwrap().to_path_buf()
}

/// Compiles `source` against fstc.h and the static library into `out`.
fn build_c(source: &Path, out: &Path) {
    let lib = target_dir().join("libfstc_capi.a");
    assert!(lib.is_file(), "{} is missing: cargo builds it with the tests", lib.display());
    let include = Path::new(env!("CARGO_MANIFEST_DIR")).join("include");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    let status = Command::new(&cc)
        .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-I"])
        .arg(&include)
        .arg(source)
        .arg(&lib)
        .args(["-lpthread", "-ldl", "-lm", "-o"])
        .arg(out)
        .status()
        .unwrap_or_else(|e| panic!("cannot run the C compiler {cc:?}: {e}"));
    assert!(status.success(), "{cc} failed on {}", source.display());
}

fn work_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("fstc-capi");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn fixture_automaton(pattern: &str) -> (TokenAutomaton, PathBuf) {
    let path = detok::fixtures::testdata_dir().join("bytelevel/tokenizer.json");
    let vocab = Vocabulary::from_file(path).unwrap();
    let automaton = RegexCompiler::new().compile(pattern, &vocab).unwrap();
    assert_eq!(automaton.vocab_size() as usize, vocab.len());
    let file = work_dir().join("test.fstc");
    std::fs::write(&file, automaton.to_bytes()).unwrap();
    (automaton, file)
}

const PATTERN: &str = r#"\{"(id|name)": ([0-9]{1,3}|"[a-z ]{0,8}")\}"#;

#[test]
fn c_program_exercises_every_function() {
    let (automaton, file) = fixture_automaton(PATTERN);
    let (script, forced_steps) = script(&automaton, 12);
    assert!(forced_steps > 0, "the walks reach states with forced tokens");
    let dir = work_dir();
    std::fs::write(dir.join("script.txt"), &script).unwrap();
    let exe = dir.join("test_fstc");
    build_c(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/c/test_fstc.c"),
        &exe,
    );
    let out = Command::new(&exe)
        .arg(&file)
        .arg(dir.join("script.txt"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "test_fstc failed:\n{stdout}\n{stderr}");
    let passed: usize = stdout
        .trim()
        .strip_suffix(" passed, 0 failed")
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("unexpected output {stdout:?}"));
    assert!(passed > 1000, "{passed} checks");
}

/// The README's "Use from C" example, compiled and run as written.
#[test]
fn readme_c_example_runs() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md"))
        .unwrap();
    let start = readme.find("```c\n").expect("README has a ```c block") + 5;
    let end = start + readme[start..].find("```").unwrap();
    let dir = work_dir();
    let source = dir.join("example.c");
    std::fs::write(&source, &readme[start..end]).unwrap();
    let exe = dir.join("example");
    build_c(&source, &exe);
    let (automaton, file) = fixture_automaton(r"(yes|no)");
    let out = Command::new(&exe).arg(&file).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    let walker = Walker::new(&automaton);
    let n = (0..automaton.vocab_size())
        .filter(|&t| walker.is_allowed(t))
        .count();
    assert!(stdout.contains(&format!("{n} tokens allowed")), "{stdout}");
}
