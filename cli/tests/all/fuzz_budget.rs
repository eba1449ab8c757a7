//! The fuzz targets under proptest for a time budget each (issue 27): inputs drawn from a
//! random seed, either a seed file with a few edits ([`Edit`]) or, for JSON Schemas,
//! grammars and regexes, a text generated from the surface's own syntax. A panic fails the
//! test with proptest's shrunk input; an abort or a signal ends the test binary, so the
//! input being run is written to a file first (its path is printed on stderr at the start);
//! an input still running after `FSTC_FUZZ_HANG_SECONDS` (default 60; the targets' compile
//! budget is 2 s) ends the binary with exit code 3, naming that file: a hang is a finding.
//!
//! `FSTC_FUZZ_SECONDS` sets the budget per target (default 1; `.ci/run` raises it),
//! `FSTC_FUZZ_SEED` replays a run (the seed is printed with the count of inputs run).

use std::io::Write;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed, TestCaseError, TestRunner};

use crate::fuzz_targets::{seeds, Edit, Seed, Target, TARGETS};

/// Seconds from environment variable `name`, else `default`.
fn seconds(name: &str, default: f64) -> Duration {
    let value = std::env::var(name).ok();
    Duration::from_secs_f64(value.map_or(default, |s| s.parse().expect(name)))
}

/// `started` between inputs, and once the run is over.
const IDLE: u64 = u64::MAX;
const DONE: u64 = u64::MAX - 1;

/// Ends the process when the input that started at `started` (ms since `epoch`) runs past
/// `FSTC_FUZZ_HANG_SECONDS`; returns when `started` is [`DONE`].
fn watch_for_hangs(name: String, current: PathBuf, epoch: Instant, started: Arc<AtomicU64>) {
    let hang = seconds("FSTC_FUZZ_HANG_SECONDS", 60.0).as_millis() as u64;
    std::thread::spawn(move || loop {
        std::thread::sleep(Duration::from_millis(200));
        let at = started.load(Ordering::Relaxed);
        let now = epoch.elapsed().as_millis() as u64;
        if at == DONE {
            return;
        }
        if at != IDLE && now.saturating_sub(at) > hang {
            say(&format!(
                "fuzz_budget {name}: an input has run over {} s (a hang); it is in {}",
                hang / 1000,
                current.display()
            ));
            std::process::exit(3);
        }
    });
}

/// The run's seed: `FSTC_FUZZ_SEED`, else drawn from the clock.
fn run_seed() -> u64 {
    match std::env::var("FSTC_FUZZ_SEED") {
        Ok(s) => s.parse().expect("FSTC_FUZZ_SEED"),
        Err(_) => std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64),
    }
}

/// Written straight to stderr: the harness's capture would lose it if the binary aborts.
fn say(line: &str) {
    let _ = writeln!(std::io::stderr(), "{line}");
}

fn edit() -> impl Strategy<Value = Edit> {
    (
        any::<u8>(),
        any::<usize>(),
        any::<u8>(),
        any::<usize>(),
        any::<usize>(),
    )
        .prop_map(|(kind, at, byte, len, piece)| Edit {
            kind,
            at,
            byte,
            len,
            piece,
        })
}

/// A seed of `target` with one to six edits.
fn edited(seeds: Vec<Vec<u8>>) -> BoxedStrategy<Vec<u8>> {
    (
        prop::sample::select(seeds),
        prop::collection::vec(edit(), 1..7),
    )
        .prop_map(|(mut data, edits)| {
            edits.into_iter().for_each(|e| e.apply(&mut data));
            data
        })
        .boxed()
}

/// Runs `name` on inputs from `inputs` until the budget is spent; returns how many ran.
fn run(name: &str, inputs: BoxedStrategy<Vec<u8>>) -> usize {
    let target: Target = TARGETS
        .iter()
        .find(|(n, _)| *n == name)
        .expect("a target")
        .1;
    let seed = run_seed();
    let current: PathBuf = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("fuzz-{name}"));
    say(&format!(
        "fuzz_budget {name}: seed {seed}; an abort's input is in {}",
        current.display()
    ));
    let config = Config {
        rng_seed: RngSeed::Fixed(seed),
        failure_persistence: None,
        ..Config::default()
    };
    let mut runner = TestRunner::new(config);
    let (start, budget) = (Instant::now(), seconds("FSTC_FUZZ_SECONDS", 1.0));
    let started = Arc::new(AtomicU64::new(IDLE));
    watch_for_hangs(name.into(), current.clone(), start, started.clone());
    let mut count = 0;
    while start.elapsed() < budget {
        let tree = inputs.new_tree(&mut runner).expect("an input");
        let outcome = runner.run_one(tree, |data| {
            std::fs::write(&current, &data).expect("the input written");
            started.store(start.elapsed().as_millis() as u64, Ordering::Relaxed);
            let ran = catch_unwind(AssertUnwindSafe(|| target(&data)));
            started.store(IDLE, Ordering::Relaxed);
            ran.map_err(|_| {
                TestCaseError::fail(format!("panicked on {:?}", String::from_utf8_lossy(&data)))
            })
        });
        if let Err(e) = outcome {
            panic!("fuzz_budget {name} (FSTC_FUZZ_SEED={seed}): {e}");
        }
        count += 1;
    }
    started.store(DONE, Ordering::Relaxed);
    say(&format!(
        "fuzz_budget {name}: {count} inputs in {:.1} s, none failed",
        start.elapsed().as_secs_f64()
    ));
    count
}

fn seeds_of(target: &str) -> Vec<Vec<u8>> {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let all: Vec<Seed> = seeds(&repo).expect("the seed files read");
    all.into_iter()
        .filter(|s| s.target == target)
        .map(|s| s.data)
        .collect()
}

/// A JSON Schema built from the keywords the compiler branches on, four levels deep.
fn schema() -> impl Strategy<Value = String> {
    let leaf = prop::sample::select(vec![
        r#"{"type":"string"}"#,
        r#"{"type":"integer","minimum":-5,"maximum":300}"#,
        r#"{"type":"number","exclusiveMinimum":0.5}"#,
        r#"{"type":"boolean"}"#,
        r#"{"type":"null"}"#,
        r#"{"enum":["a",1,null,[true]]}"#,
        r#"{"const":{"k":"v"}}"#,
        r#"{"type":"string","pattern":"^(a|b)*c{2,5}$"}"#,
        r#"{"type":"string","minLength":2,"maxLength":40}"#,
        r#"{"type":"string","format":"date-time"}"#,
        r##"{"$ref":"#"}"##,
        "{}",
        "true",
        "false",
    ])
    .prop_map(str::to_string);
    leaf.prop_recursive(4, 24, 3, |s| {
        prop_oneof![
            (s.clone(), s.clone(), any::<bool>()).prop_map(|(a, b, more)| format!(
                r#"{{"type":"object","properties":{{"a":{a},"b\"é":{b}}},"required":["a"],"additionalProperties":{more}}}"#
            )),
            (s.clone(), 0u8..4, 0u8..9).prop_map(|(a, lo, n)| format!(
                r#"{{"type":"array","items":{a},"minItems":{lo},"maxItems":{}}}"#,
                lo + n
            )),
            (prop::sample::select(vec!["anyOf", "allOf", "oneOf", "prefixItems"]), s.clone(), s.clone())
                .prop_map(|(k, a, b)| format!(r#"{{"{k}":[{a},{b}]}}"#)),
            s.clone().prop_map(|a| format!(r#"{{"not":{a}}}"#)),
            (s.clone(), s.clone(), s.clone())
                .prop_map(|(a, b, c)| format!(r#"{{"if":{a},"then":{b},"else":{c}}}"#)),
            (s.clone(), s.clone()).prop_map(|(a, b)| format!(
                r##"{{"$defs":{{"d":{a}}},"anyOf":[{{"$ref":"#/$defs/d"}},{b}]}}"##
            )),
            (s.clone(), s).prop_map(|(a, b)| format!(
                r#"{{"type":"object","patternProperties":{{"^x":{a}}},"properties":{{"y":{b}}},"unevaluatedProperties":false}}"#
            )),
        ]
    })
}

/// A pattern built from atoms, groups, alternations, counted repetitions and look-arounds.
fn pattern() -> impl Strategy<Value = String> {
    let atoms = vec![
        "a", "b", "é", ".", r"\d", r"\w", r"\s", "[a-c]", "[^a]", r"\b", "^", "$", r"\p{L}",
        "x{0,3}",
    ];
    let leaf = prop::sample::select(atoms).prop_map(str::to_string);
    leaf.prop_recursive(4, 24, 3, |e| {
        prop_oneof![
            prop::collection::vec(e.clone(), 2..4).prop_map(|v| v.concat()),
            prop::collection::vec(e.clone(), 2..4).prop_map(|v| format!("(?:{})", v.join("|"))),
            (e.clone(), 0u8..4, 0u8..6, any::<bool>()).prop_map(|(a, lo, n, lazy)| {
                let lazy = if lazy { "?" } else { "" };
                format!("(?:{a}){{{lo},{}}}{lazy}", lo + n)
            }),
            (e.clone(), prop::sample::select(vec!["*", "+", "?", "*?"]))
                .prop_map(|(a, op)| format!("({a}){op}")),
            (e, prop::sample::select(vec!["?=", "?!", "?<=", "?<!"]))
                .prop_map(|(a, op)| format!("({op}{a})")),
        ]
    })
}

/// A GBNF grammar of up to five rules whose bodies refer to each other (and to rules
/// that do not exist), with literals, classes, groups and repetitions.
fn gbnf() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        prop::sample::select(vec![
            r#""ab""#, r#""{""#, "[a-z]", "[^\\n]", r#""""#, "[0-9]"
        ])
        .prop_map(str::to_string),
        (0u8..6).prop_map(|i| format!("r{i}")),
    ];
    let body = leaf.prop_recursive(3, 16, 3, |e| {
        prop_oneof![
            prop::collection::vec(e.clone(), 2..4).prop_map(|v| v.join(" ")),
            prop::collection::vec(e.clone(), 2..4).prop_map(|v| format!("({})", v.join(" | "))),
            (
                e,
                prop::sample::select(vec!["*", "+", "?", "{2}", "{0,3}", "{1,}"])
            )
                .prop_map(|(a, op)| format!("({a}){op}")),
        ]
    });
    prop::collection::vec(body, 1..6).prop_map(|bodies| {
        let rules = bodies
            .iter()
            .enumerate()
            .map(|(i, b)| format!("r{i} ::= {b}\n"));
        format!("root ::= r0\n{}", rules.collect::<String>())
    })
}

#[test]
fn json_schema() {
    let generated = schema().prop_map(String::into_bytes).boxed();
    let ran = run(
        "json_schema",
        prop_oneof![edited(seeds_of("json_schema")), generated].boxed(),
    );
    assert!(ran > 0);
}

#[test]
fn grammar() {
    let gbnf = gbnf().prop_map(|text| [vec![0], text.into_bytes()].concat());
    let ran = run(
        "grammar",
        prop_oneof![edited(seeds_of("grammar")), gbnf].boxed(),
    );
    assert!(ran > 0);
}

#[test]
fn regex() {
    // The first byte picks the dialect and case folding.
    let generated =
        (0u8..4, pattern()).prop_map(|(first, p)| [vec![first], p.into_bytes()].concat());
    let inputs = prop_oneof![edited(seeds_of("regex")), generated];
    assert!(run("regex", inputs.boxed()) > 0);
}

#[test]
fn automaton_file() {
    assert!(run("automaton_file", edited(seeds_of("automaton_file"))) > 0);
}

#[test]
fn structural_tag() {
    assert!(run("structural_tag", edited(seeds_of("structural_tag"))) > 0);
}
