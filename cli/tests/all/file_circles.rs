//! No two files of a crate reach each other through their `crate::`, `super::` and `self::`
//! paths (file circles: ARCHITECTURE's "one way" inside a crate). A file naming an item of an
//! ancestor module's file (a child using its parent's types) is not an edge: Rust's module
//! tree has those both ways by design.
//!
//! Paths are read roughly, as `structure.py` reads them: comments and string literals are
//! blanked, then every `crate::`/`super::`/`self::` path (and each entry of a `{...}` list
//! after one) is resolved to the longest prefix that is a file of the crate.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::common::repo;

/// A module path inside one crate (`["ops", "pda_live"]`); the crate root is empty.
type Module = Vec<String>;

/// Blanks `//` comments (doc comments included) and string literals, raw ones too.
fn strip(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = String::with_capacity(src.len());
    let mut i = 0;
    while i < b.len() {
        let word_before = i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
        let hashes = b[i + 1..].iter().take_while(|&&c| c == b'#').count();
        if b[i] == b'r' && !word_before && b.get(i + 1 + hashes) == Some(&b'"') {
            let close = format!("\"{}", "#".repeat(hashes));
            let body = i + 2 + hashes;
            i = src[body..]
                .find(&close)
                .map_or(b.len(), |k| body + k + close.len());
            out.push_str("\"\"");
        } else if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i] == b'"' && (i == 0 || b[i - 1] != b'\'') {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
        } else {
            let c = src[i..].chars().next().unwrap();
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

fn ident_path(text: &str) -> Option<Vec<String>> {
    let end = text
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ':'))
        .unwrap_or(text.len());
    let path: Vec<String> = (text[..end].split("::"))
        .take_while(|s| !s.is_empty())
        .map(str::to_string)
        .collect();
    (!path.is_empty()).then_some(path)
}

/// The paths written at `text` (just after `crate::` and the like): one, or a `{...}` list's.
fn paths_at(text: &str) -> Vec<Vec<String>> {
    let Some(list) = text.trim_start().strip_prefix('{') else {
        return ident_path(text).into_iter().collect();
    };
    let (mut depth, mut start, mut out) = (0, 0, Vec::new());
    for (i, c) in list.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => {
                out.extend(ident_path(list[start..i].trim_start()));
                break;
            }
            '}' => depth -= 1,
            ',' if depth == 0 => {
                out.extend(ident_path(list[start..i].trim_start()));
                start = i + 1;
            }
            _ => {}
        }
    }
    out
}

/// Every `.rs` file under `src`, by module path.
fn files(src: &Path) -> BTreeMap<Module, PathBuf> {
    let mut found = BTreeMap::new();
    let mut dirs = vec![src.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
                continue;
            }
            if path.extension().map_or(true, |e| e != "rs") {
                continue;
            }
            let rel = path.strip_prefix(src).unwrap().with_extension("");
            let mut module: Module = rel.iter().map(|p| p.to_string_lossy().into()).collect();
            if matches!(
                module.last().map(String::as_str),
                Some("mod" | "lib" | "main")
            ) {
                module.pop();
            }
            found.insert(module, path);
        }
    }
    found
}

/// The files each file of one crate names, ancestors left out.
fn edges(src: &Path) -> BTreeMap<Module, BTreeSet<Module>> {
    let files = files(src);
    let mut edges = BTreeMap::new();
    for (me, path) in &files {
        let text = strip(&std::fs::read_to_string(path).unwrap());
        let mut named = BTreeSet::new();
        for (at, _) in text.match_indices("::") {
            let head = text[..at].rsplit(|c: char| !c.is_ascii_alphanumeric() && c != '_');
            let Some(kind) = head.into_iter().next() else {
                continue;
            };
            let start = match kind {
                "crate" => Vec::new(),
                "self" => me.clone(),
                "super" => me[..me.len().saturating_sub(1)].to_vec(),
                _ => continue,
            };
            let before = at - kind.len();
            if before > 0 && text[..before].ends_with("::") {
                continue; // `super::super::x` is read from its first `super`
            }
            for mut path in paths_at(&text[at + 2..]) {
                let mut base = start.clone();
                while path.first().is_some_and(|p| p == "super") {
                    base.pop();
                    path.remove(0);
                }
                base.extend(path);
                let target = (0..=base.len())
                    .rev()
                    .map(|k| &base[..k])
                    .find(|m| files.contains_key(*m));
                if let Some(target) = target.filter(|t| !me.starts_with(t)) {
                    named.insert(target.to_vec());
                }
            }
        }
        edges.insert(me.clone(), named);
    }
    edges
}

/// The groups of more than one file that reach each other (strongly connected components).
fn circles(edges: &BTreeMap<Module, BTreeSet<Module>>) -> Vec<Vec<Module>> {
    let reach = |from: &Module| {
        let mut seen = BTreeSet::new();
        let mut todo = vec![from.clone()];
        while let Some(m) = todo.pop() {
            for next in edges.get(&m).into_iter().flatten() {
                if seen.insert(next.clone()) {
                    todo.push(next.clone());
                }
            }
        }
        seen
    };
    let reached: BTreeMap<&Module, BTreeSet<Module>> =
        edges.keys().map(|m| (m, reach(m))).collect();
    let mut done = BTreeSet::new();
    let mut out = Vec::new();
    for m in edges.keys().filter(|m| reached[m].contains(*m)) {
        if done.contains(m) {
            continue;
        }
        let group: Vec<Module> = (reached[m].iter())
            .filter(|o| reached[*o].contains(m))
            .cloned()
            .collect();
        done.extend(group.iter().cloned());
        out.push(group);
    }
    out
}

#[test]
fn no_file_circles_inside_a_crate() {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(repo("")).unwrap() {
        let src = entry.unwrap().path().join("src");
        if !src.is_dir() || !src.with_file_name("Cargo.toml").is_file() {
            continue;
        }
        for group in circles(&edges(&src)) {
            let names: Vec<String> = group.iter().map(|m| m.join("/")).collect();
            found.push(format!("{}: {}", src.display(), names.join(", ")));
        }
    }
    assert!(
        found.is_empty(),
        "files that reach each other:\n{}",
        found.join("\n")
    );
}

#[test]
fn a_circle_of_two_sibling_files_is_found() {
    let dir = std::env::temp_dir().join(format!("fstc-file-circles-{}", std::process::id()));
    let src = dir.join("src");
    std::fs::create_dir_all(src.join("ops")).unwrap();
    let write = |name: &str, text: &str| std::fs::write(src.join(name), text).unwrap();
    write("lib.rs", "mod ops;\nmod a;\n");
    write(
        "a.rs",
        "use crate::ops::b::B; // crate::ops::c in a comment\n",
    );
    write("ops/mod.rs", "pub mod b;\npub mod c;\n");
    write("ops/b.rs", "use super::{c::C, super::a::A};\n");
    write(
        "ops/c.rs",
        "use super::super::lib_item;\nconst S: &str = \"crate::a\";\n\
         const R: &str = r#\"a \"crate::a\" b\"#;\n",
    );
    let found = circles(&edges(&src));
    std::fs::remove_dir_all(&dir).unwrap();
    let names: Vec<Vec<String>> = (found.iter())
        .map(|g| g.iter().map(|m| m.join("/")).collect())
        .collect();
    assert_eq!(names, vec![vec!["a".to_string(), "ops/b".to_string()]]);
}
