//! ARCHITECTURE.md's crate table says what `cargo metadata` says.
//!
//! The table under `## Crates` has a row per workspace package: the package name (the first
//! backquoted word of the first cell), its role, then the workspace crates and the external
//! crates it depends on (every backquoted word of those two cells; `none` for an empty list).
//! Compared with the normal dependencies of `cargo metadata --no-deps` (optional ones included,
//! dev- and build-dependencies not), a path dependency being a workspace crate. Rows come in
//! dependency order: a crate's workspace dependencies are in rows above it.

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

use crate::common::repo;

/// What one package depends on: (workspace crates, external crates).
type Deps = (BTreeSet<String>, BTreeSet<String>);

/// The backquoted words of a table cell.
fn quoted(cell: &str) -> BTreeSet<String> {
    cell.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

/// The rows of ARCHITECTURE.md's crate table, in order: package → its dependencies.
fn table() -> Vec<(String, Deps)> {
    let text = std::fs::read_to_string(repo("ARCHITECTURE.md")).unwrap();
    let section = text
        .split("\n## Crates\n")
        .nth(1)
        .expect("ARCHITECTURE.md has a `## Crates` section");
    let section = section.split("\n## ").next().unwrap();
    let mut rows = Vec::new();
    for line in section.lines().filter(|l| l.starts_with('|')).skip(2) {
        let cells: Vec<&str> = line.trim_matches('|').split('|').collect();
        assert_eq!(
            cells.len(),
            4,
            "ARCHITECTURE.md: a crate row has 4 cells: {line}"
        );
        let name = cells[0].split('`').nth(1);
        let name = name.unwrap_or_else(|| panic!("ARCHITECTURE.md: no `package` in {line}"));
        rows.push((name.to_string(), (quoted(cells[2]), quoted(cells[3]))));
    }
    rows
}

/// Each workspace package's normal dependencies, from `cargo metadata`.
fn metadata() -> BTreeMap<String, Deps> {
    let out = Command::new(env!("CARGO"))
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .current_dir(repo(""))
        .output()
        .expect("run cargo metadata");
    assert!(
        out.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut packages = BTreeMap::new();
    for package in meta["packages"].as_array().unwrap() {
        let mut deps: Deps = Default::default();
        for dep in package["dependencies"].as_array().unwrap() {
            if !dep["kind"].is_null() {
                continue;
            }
            let name = dep["name"].as_str().unwrap().to_string();
            match dep.get("path") {
                Some(_) => deps.0.insert(name),
                None => deps.1.insert(name),
            };
        }
        packages.insert(package["name"].as_str().unwrap().to_string(), deps);
    }
    packages
}

/// `what` of a row against cargo's, as a sentence naming the differences.
fn compare(
    package: &str,
    what: &str,
    table: &BTreeSet<String>,
    cargo: &BTreeSet<String>,
) -> Option<String> {
    let missing: Vec<_> = cargo.difference(table).collect();
    let extra: Vec<_> = table.difference(cargo).collect();
    (!missing.is_empty() || !extra.is_empty()).then(|| {
        format!(
            "ARCHITECTURE.md's row `{package}`, column \"{what}\": add {missing:?}, remove {extra:?} \
             (cargo metadata: {cargo:?})"
        )
    })
}

#[test]
fn architecture_crate_table_matches_cargo_metadata() {
    let rows = table();
    let cargo = metadata();
    let mut wrong = Vec::new();
    let listed: BTreeSet<&String> = rows.iter().map(|(name, _)| name).collect();
    for name in cargo.keys().filter(|n| !listed.contains(n)) {
        wrong.push(format!(
            "ARCHITECTURE.md has no row for the workspace package `{name}`"
        ));
    }
    let mut above = BTreeSet::new();
    for (name, (workspace, external)) in &rows {
        let Some((cargo_workspace, cargo_external)) = cargo.get(name) else {
            wrong.push(format!(
                "ARCHITECTURE.md's row `{name}` names no workspace package"
            ));
            continue;
        };
        wrong.extend(compare(
            name,
            "workspace crates",
            workspace,
            cargo_workspace,
        ));
        wrong.extend(compare(name, "external crates", external, cargo_external));
        for dep in cargo_workspace.iter().filter(|d| !above.contains(*d)) {
            wrong.push(format!(
                "ARCHITECTURE.md's row `{name}` depends on `{dep}`, which is not in a row above it"
            ));
        }
        above.insert(name.clone());
    }
    assert!(wrong.is_empty(), "\n{}", wrong.join("\n"));
}

/// The packages `cargo tree` lists for `args` (normal dependencies, the package included).
fn tree(args: &[&str]) -> BTreeSet<String> {
    let out = Command::new(env!("CARGO"))
        .args(["tree", "--offline", "-e", "normal", "--prefix", "none"])
        .args(args)
        .current_dir(repo(""))
        .output()
        .expect("run cargo tree");
    assert!(
        out.status.success(),
        "cargo tree {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    text.lines()
        .filter_map(|line| line.split_whitespace().next())
        .map(str::to_string)
        .collect()
}

/// What the decode-time builds pull in: fstc-core without the compiler only bytemuck, and a
/// vocabulary loader without tokenizing no regex engine, rayon, rustfst or `tokenizers`.
#[test]
fn decode_time_builds_pull_in_no_compiler() {
    let core = tree(&["-p", "fstc-core", "--no-default-features"]);
    let expected: BTreeSet<String> = ["fstc-core", "bytemuck"].map(String::from).into();
    assert_eq!(core, expected, "fstc-core --no-default-features");

    let detok = tree(&["-p", "fstc-detok", "--no-default-features"]);
    assert!(
        detok.contains("fstc-detok") && detok.contains("serde_json"),
        "{detok:?}"
    );
    let heavy = [
        "regex-syntax",
        "regex",
        "fancy-regex",
        "rayon",
        "rustfst",
        "tokenizers",
    ];
    let found: Vec<_> = heavy.iter().filter(|h| detok.contains(**h)).collect();
    assert!(
        found.is_empty(),
        "fstc-detok --no-default-features pulls in {found:?}"
    );
    // The loader's tokenizer is what brought them in: with it, they are there.
    assert!(tree(&["-p", "fstc-detok"]).contains("tokenizers"));
}
