//! Helpers every CLI test uses: the repository's files, running the binary, scratch
//! directories.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A path in the repository.
pub fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(rel)
}

pub fn testdata(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../testdata")
        .join(rel)
}

pub fn gpt2() -> PathBuf {
    testdata("gpt2/encoder.json")
}

pub fn fstc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fstc"))
        .args(args)
        .output()
        .expect("run fstc")
}

pub fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).unwrap()
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8(out.stderr.clone()).unwrap()
}

/// A scratch directory for one test.
pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("fstc-cli-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
