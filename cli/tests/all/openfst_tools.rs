//! fstc's OpenFst files against OpenFst's own command-line tools (`fstinfo`, `fstprint`,
//! `fstdraw`, `fstcompile`, `fstcompose`, `fstequivalent`; Debian's `libfst-tools`), which
//! share no code with fstc or rustfst: the tools read what `fstc export` writes with the
//! sizes fstc reports, OpenFst's own composition of an exported acceptor with the exported
//! T_V projects to the texts `fstc project` gives, and an acceptor `fstcompile` writes
//! compiles as the equal regex does. Without the tools each test prints why it skipped.

use std::path::Path;
use std::process::{Command, Output, Stdio};

use crate::common::{arg, bytelevel, fstc_ok, scratch, size, stderr, stdout};

/// Runs an OpenFst tool, or `None` when it is not installed.
fn openfst(tool: &str, args: &[&str]) -> Option<Output> {
    match Command::new(tool).args(args).stdin(Stdio::null()).output() {
        Ok(out) => Some(out),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => panic!("{tool}: {e}"),
    }
}

/// Whether OpenFst's tools are installed; if not, prints that the test skipped.
fn tools_installed(test: &str) -> bool {
    let found = openfst("fstinfo", &["--help"]).is_some();
    if !found {
        println!("skipped: {test}: OpenFst's command-line tools (fstinfo; Debian libfst-tools) are not installed");
    }
    found
}

/// Runs an OpenFst tool that must be installed and succeed; its stdout.
fn run(tool: &str, args: &[&str]) -> String {
    let out = openfst(tool, args).unwrap_or_else(|| panic!("{tool} is not installed"));
    assert!(out.status.success(), "{tool} {args:?}: {}", stderr(&out));
    stdout(&out)
}

/// A count `fstinfo` prints, such as `# of states`.
fn info_count(info: &str, name: &str) -> usize {
    let line = info.lines().find(|l| l.starts_with(name)).expect(name);
    line[name.len()..].trim().parse().unwrap()
}

/// The arcs and final states of AT&T text (`fstprint`'s or `fstc export --att`'s), with
/// default weights dropped, sorted: equal for equal machines whoever printed them.
fn att_lines(text: &str) -> Vec<String> {
    let mut lines: Vec<String> = text
        .lines()
        .map(|l| {
            let fields: Vec<&str> = l.split('\t').collect();
            match fields.as_slice() {
                [from, to, i, o, "0"] | [from, to, i, o] => format!("{from} {to} {i} {o}"),
                [state, "0"] | [state] => state.to_string(),
                _ => l.to_string(),
            }
        })
        .collect();
    lines.sort();
    lines
}

#[test]
fn openfst_tools_read_fstc_exports_with_the_sizes_fstc_reports() {
    if !tools_installed("openfst_tools_read_fstc_exports_with_the_sizes_fstc_reports") {
        return;
    }
    let dir = scratch("openfst-tools-read");
    let (v, a) = (bytelevel(), dir.join("a.fstc"));
    fstc_ok(&[
        "compile",
        "regex",
        "[a-c]+d|x{2,4}",
        "--vocab",
        &v,
        "-o",
        arg(&a),
    ]);
    let (fst, att, tv) = (dir.join("a.fst"), dir.join("a.att"), dir.join("tv.fst"));
    let exports: [(Vec<&str>, &Path, &str); 2] = [
        (
            vec!["export", arg(&a), "-o", arg(&fst), "--stats"],
            &fst,
            "y",
        ),
        (
            vec!["export", "--vocab", &v, "-o", arg(&tv), "--stats"],
            &tv,
            "n",
        ),
    ];
    // The acceptor is deterministic; T_V reads epsilon on its trie edges.
    for (args, file, yes) in exports {
        let stats = fstc_ok(&args);
        let info = run("fstinfo", &[arg(file)]);
        assert_eq!(
            info_count(&info, "# of states"),
            size(&stats, "OpenFst states")
        );
        assert_eq!(info_count(&info, "# of arcs"), size(&stats, "OpenFst arcs"));
        let flag = |name: &str| {
            info.lines()
                .find(|l| l.starts_with(name))
                .unwrap()
                .to_string()
        };
        assert!(flag("acceptor").ends_with(yes), "{info}");
        assert!(flag("input deterministic").ends_with(yes), "{info}");
        assert!(
            flag("# of connected states").ends_with(&info_count(&info, "# of states").to_string())
        );
    }
    // fstprint prints the arcs and final states fstc writes as AT&T text.
    fstc_ok(&["export", arg(&a), "-o", arg(&att), "--att"]);
    let ours = std::fs::read_to_string(&att).unwrap();
    assert_eq!(att_lines(&run("fstprint", &[arg(&fst)])), att_lines(&ours));
    assert!(run("fstdraw", &[arg(&fst)]).starts_with("digraph FST {"));
}

#[test]
fn openfst_composition_with_the_exported_t_v_projects_as_fstc_project() {
    if !tools_installed("openfst_composition_with_the_exported_t_v_projects_as_fstc_project") {
        return;
    }
    let dir = scratch("openfst-tools-project");
    let v = bytelevel();
    let tv = dir.join("tv.fst");
    fstc_ok(&["export", "--vocab", &v, "-o", arg(&tv)]);
    let patterns = ["[a-c]+d", "(ab|ba){1,3}", "[^a]{2}", "a b|c"];
    for (i, pattern) in patterns.iter().enumerate() {
        let a = dir.join(format!("{i}.fstc"));
        fstc_ok(&["compile", "regex", pattern, "--vocab", &v, "-o", arg(&a)]);
        let exported = dir.join(format!("{i}.fst"));
        fstc_ok(&["export", arg(&a), "-o", arg(&exported)]);
        // OpenFst's own pipeline: sort, compose with T_V, keep the bytes, optimize.
        let step = |tool: &str, args: &[&str], from: &Path, name: &str| {
            let to = dir.join(format!("{i}-{name}.fst"));
            run(tool, &[args, &[arg(from), arg(&to)]].concat());
            to
        };
        let sorted = step("fstarcsort", &["--sort_type=olabel"], &exported, "sorted");
        let composed = dir.join(format!("{i}-composed.fst"));
        run("fstcompose", &[arg(&sorted), arg(&tv), arg(&composed)]);
        let bytes = step("fstproject", &["--project_type=output"], &composed, "bytes");
        let no_eps = step("fstrmepsilon", &[], &bytes, "rmeps");
        let det = step("fstdeterminize", &[], &no_eps, "det");
        let theirs = step("fstminimize", &[], &det, "min");
        let ours = dir.join(format!("{i}-project.fst"));
        fstc_ok(&["project", arg(&a), "--vocab", &v, "-o", arg(&ours)]);
        let same = openfst("fstequivalent", &[arg(&theirs), arg(&ours)]).unwrap();
        assert_eq!(same.status.code(), Some(0), "{pattern}: {}", stderr(&same));
        // Projected from a pattern with one more text, the bytes differ: the comparison
        // can fail.
        let other = dir.join(format!("{i}-other.fstc"));
        fstc_ok(&[
            "compile",
            "regex",
            &format!("{pattern}|aaaaa"),
            "--vocab",
            &v,
            "-o",
            arg(&other),
        ]);
        let other_bytes = dir.join(format!("{i}-other.fst"));
        fstc_ok(&[
            "project",
            arg(&other),
            "--vocab",
            &v,
            "-o",
            arg(&other_bytes),
        ]);
        let differ = openfst("fstequivalent", &[arg(&theirs), arg(&other_bytes)]).unwrap();
        assert!(!differ.status.success(), "{pattern}|aaaaa");
    }
}

#[test]
fn an_acceptor_fstcompile_writes_compiles_as_the_equal_regex() {
    if !tools_installed("an_acceptor_fstcompile_writes_compiles_as_the_equal_regex") {
        return;
    }
    let dir = scratch("openfst-tools-compile");
    let v = bytelevel();
    // `(ab|c)+d?` over byte values (`fstcompile --acceptor`'s numeric labels, Pynini's
    // byte mode), with an epsilon arc, written by hand.
    let (a, b, c, d) = (b'a', b'b', b'c', b'd');
    let text = format!("0\t1\t{a}\n1\t2\t{b}\n0\t2\t{c}\n2\t0\t0\n2\t3\t{d}\n2\n3\n");
    let att = dir.join("hand.att");
    std::fs::write(&att, text).unwrap();
    let compiled = dir.join("hand.fst");
    run("fstcompile", &["--acceptor", arg(&att), arg(&compiled)]);
    let from_openfst = dir.join("from-openfst.fstc");
    let stats = fstc_ok(&[
        "compile",
        "fst",
        arg(&compiled),
        "--labels",
        "bytes",
        "--vocab",
        &v,
        "-o",
        arg(&from_openfst),
        "--stats",
    ]);
    assert!(stats.contains("byte DFA"), "{stats}");
    let from_regex = dir.join("from-regex.fstc");
    fstc_ok(&[
        "compile",
        "regex",
        "(ab|c)+d?",
        "--vocab",
        &v,
        "-o",
        arg(&from_regex),
    ]);
    assert_eq!(
        std::fs::read(&from_openfst).unwrap(),
        std::fs::read(&from_regex).unwrap()
    );
    let other = dir.join("other.fstc");
    fstc_ok(&[
        "compile",
        "regex",
        "(ab|c)+d",
        "--vocab",
        &v,
        "-o",
        arg(&other),
    ]);
    assert_ne!(
        std::fs::read(&from_openfst).unwrap(),
        std::fs::read(&other).unwrap()
    );
}
