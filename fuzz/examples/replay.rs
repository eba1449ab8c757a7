//! Runs the fuzz targets on stable over files: `replay TARGET PATH...` (a path may be a
//! directory: every file in it), or `replay all DIR` for `DIR/TARGET/*` of every target.
//! Prints each input slower than the time budget and the total; a panic or abort ends the
//! run with the input's path printed first. `replay seed DIR` writes starting inputs for
//! every target into `DIR/TARGET/`; `replay smoke DIR` writes them with the mutations the
//! test command runs (to find which one aborted: `replay all DIR` after it).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use fstc_fuzz::{files, seeds, smoke_inputs, TARGETS, TIME_BUDGET};

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

/// Writes `inputs` of `target` into `dir/TARGET/`.
fn write(dir: &Path, target: &str, inputs: &[(String, Vec<u8>)]) -> std::io::Result<()> {
    std::fs::create_dir_all(dir.join(target))?;
    for (name, data) in inputs {
        std::fs::write(dir.join(target).join(name), data)?;
    }
    Ok(())
}

/// `replay seed DIR`: the seeds; `replay smoke DIR`: what the test command runs.
fn write_inputs(cmd: &str, dir: &Path) -> std::io::Result<()> {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let seeds = seeds(&repo)?;
    for (target, _) in TARGETS {
        let inputs = match cmd {
            "seed" => (seeds.iter().filter(|s| s.target == target))
                .map(|s| (s.name.clone(), s.data.clone()))
                .collect(),
            _ => smoke_inputs(&seeds, target),
        };
        write(dir, target, &inputs)?;
    }
    Ok(())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [cmd, dir] = &args[..] {
        if cmd == "seed" || cmd == "smoke" {
            write_inputs(cmd, Path::new(dir)).expect("inputs written");
            return;
        }
    }
    let Some((name, paths)) = args.split_first() else {
        eprintln!("usage: replay TARGET PATH... | replay all DIR | replay seed DIR | replay smoke DIR");
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
