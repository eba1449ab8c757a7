//! Runs the fuzz targets on stable over files: `replay TARGET PATH...` (a path may be a
//! directory: every file in it), or `replay all DIR` for `DIR/TARGET/*` of every target.
//! Prints each input slower than the time budget and the total; a panic or abort ends the
//! run with the input's path printed first. `replay seed DIR` writes starting inputs for
//! every target into `DIR/TARGET/`.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use fstc_fuzz::{TARGETS, TIME_BUDGET};

fn files(path: &Path) -> Vec<PathBuf> {
    if !path.is_dir() {
        return vec![path.to_path_buf()];
    }
    let mut out: Vec<PathBuf> = std::fs::read_dir(path)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    out.sort();
    out
}

/// Runs `target` over `paths`; the number of inputs and of slow ones.
fn run(name: &str, target: fn(&[u8]), paths: &[PathBuf]) -> (usize, usize) {
    let (mut count, mut slow) = (0, 0);
    for path in paths.iter().flat_map(|p| files(p)) {
        let Ok(data) = std::fs::read(&path) else {
            continue;
        };
        eprintln!("{name}: {}", path.display());
        let started = Instant::now();
        target(&data);
        let took = started.elapsed();
        count += 1;
        // Twice the compile budget: a compile, the lazy one and the walks.
        if took > 2 * TIME_BUDGET + Duration::from_secs(1) {
            slow += 1;
            println!("SLOW {name} {took:?} {}", path.display());
        }
    }
    (count, slow)
}

/// Patterns for `regex`, each after its first byte (dialect and case folding).
const PATTERNS: [&str; 10] = [
    r"[^\W\d]\w*",
    r"((25[0-5]|2[0-4]\d|[01]?\d\d?)\.){3}(25[0-5]|2[0-4]\d|[01]?\d\d?)",
    r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}",
    r"(?:\b\w+\b[ ,]*){1,8}",
    r"(?m)(?:^[a-z]+: \d+$\n?){1,5}",
    r"(?=.*\d)(?=.*[a-z])(?!.*\s).{8,16}",
    r"(?:\d|(?<!-)-)+(?<=\d)",
    r"(?P<PARAGRAPH_TOKEN>)+x",
    r#""([^"\\]|\\.)*""#,
    r"(?i)hello|wor(ld)?",
];

/// Fills `dir/TARGET/` with starting inputs from the repository's own test files (test
/// schemas, grammars, structural tag specs), some patterns, and a small FSA file and PDA
/// file (the paper's figures 5 and 7: `automaton_file` inputs must look like files to get
/// past the header).
fn seed(dir: &Path) -> std::io::Result<()> {
    use fstc_core::automaton::TokenAutomaton;
    use fstc_core::token_pda::TokenPda;
    use testkit::paper::{figure5_parts, figure7_pda_parts};
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let write = |target: &str, name: &str, data: &[u8]| {
        std::fs::create_dir_all(dir.join(target))?;
        std::fs::write(dir.join(target).join(name), data)
    };
    for path in files(&repo.join("json/tests/schemas")) {
        // A test file holds the schema and its instances: `{"schema": …, "valid": …}`.
        let Ok(file) = serde_json::from_slice::<serde_json::Value>(&std::fs::read(&path)?) else {
            continue;
        };
        let schema = file.get("schema").unwrap_or(&file).to_string();
        write("json_schema", &name_of(&path), schema.as_bytes())?;
    }
    for path in files(&repo.join("pda/tests/grammars")) {
        let syntax = match path.extension().and_then(|e| e.to_str()) {
            Some("gbnf") => 0u8,
            Some("lark") => 1,
            Some("ebnf") => 2,
            _ => continue,
        };
        let mut data = vec![syntax];
        data.extend(std::fs::read(&path)?);
        write("grammar", &name_of(&path), &data)?;
    }
    let specs = ["tags/tests/specs", "tags/tests/specs/grammar"];
    for path in specs.iter().flat_map(|d| files(&repo.join(d))) {
        // A test case file holds the spec beside texts; the target reads the spec.
        if path.is_file() {
            let case: serde_json::Value = serde_json::from_slice(&std::fs::read(&path)?)?;
            write(
                "structural_tag",
                &name_of(&path),
                case["spec"].to_string().as_bytes(),
            )?;
        }
    }
    for (i, pattern) in PATTERNS.iter().enumerate() {
        let mut data = vec![i as u8 % 4];
        data.extend(pattern.as_bytes());
        write("regex", &format!("{i:02}"), &data)?;
    }
    let fsa = TokenAutomaton::from_parts(figure5_parts()).expect("figure 5 builds");
    let pda = TokenPda::from_parts(figure7_pda_parts()).expect("figure 7 builds");
    write(
        "automaton_file",
        "figure5.fstc",
        &bytemuck_words(fsa.as_words()),
    )?;
    write(
        "automaton_file",
        "figure7.fstc",
        &bytemuck_words(pda.as_words()),
    )
}

fn name_of(path: &Path) -> String {
    path.file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
}

fn bytemuck_words(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [cmd, dir] = &args[..] {
        if cmd == "seed" {
            seed(Path::new(dir)).expect("seeds written");
            return;
        }
    }
    let Some((name, paths)) = args.split_first() else {
        eprintln!("usage: replay TARGET PATH... | replay all DIR");
        std::process::exit(2);
    };
    let paths: Vec<PathBuf> = paths.iter().map(PathBuf::from).collect();
    let mut slow = 0;
    for (target_name, target) in TARGETS {
        let dirs = match name.as_str() {
            "all" => paths.iter().map(|p| p.join(target_name)).collect(),
            n if n == target_name => paths.clone(),
            _ => continue,
        };
        let (count, s) = run(target_name, target, &dirs);
        slow += s;
        println!("{target_name}: {count} inputs, {s} slow");
    }
    if slow > 0 {
        std::process::exit(1);
    }
}
