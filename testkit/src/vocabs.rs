//! Where fstc's own tests, examples and benches find tokenizers.
//!
//! The small fixtures are checked in under the workspace's `testdata/`. The real tokenizers
//! (GPT-2, Llama 2, Llama 3, Qwen 3) are too large to check in, so they live in a shared
//! folder beside the workspace that users may not have; tests that need them skip when
//! [`shared_vocabs_dir`] is `None`. One locator, so every crate's tests agree on where to look
//! and on the one variable that overrides it.
//!
//! Both paths are fixed when testkit is compiled (from its manifest directory), so they are
//! only meaningful inside the fstc workspace.

use std::path::{Path, PathBuf};

use fstc_detok::Vocabulary;

/// The variable naming the shared vocabulary folder, for worktrees or checkouts that do not
/// sit beside it.
pub const SHARED_VOCABS_VAR: &str = "FSTC_VOCABS";

fn workspace_root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

/// The workspace's `testdata/` folder: the small tokenizer fixtures the tests rely on.
pub fn testdata_dir() -> PathBuf {
    workspace_root().join("testdata")
}

/// The file `rel` (e.g. `gpt2/encoder.json`) in [`testdata_dir`].
pub fn testdata(rel: &str) -> PathBuf {
    testdata_dir().join(rel)
}

/// The folder of real tokenizers (`gpt2/encoder.json`, `llama3/tokenizer.json`, ...):
/// `$FSTC_VOCABS` when set, else `<workspace>/../shared/vocabs`. `None` when that folder does
/// not exist, which tests take as "skip".
pub fn shared_vocabs_dir() -> Option<PathBuf> {
    let dir = std::env::var_os(SHARED_VOCABS_VAR)
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("../shared/vocabs"));
    dir.is_dir().then_some(dir)
}

/// The real vocabularies of [`shared_vocabs_dir`], by name, with their file relative to
/// it: GPT-2 as `encoder.json` (with `vocab.bpe` beside it), the others as `tokenizer.json`.
pub const SHARED_VOCABS: [(&str, &str); 4] = [
    ("gpt2", "gpt2/encoder.json"),
    ("llama2", "llama2/tokenizer.json"),
    ("llama3", "llama3/tokenizer.json"),
    ("qwen3", "qwen3/tokenizer.json"),
];

/// The file `rel` (e.g. `llama3/tokenizer.json`) in [`shared_vocabs_dir`], or `None`
/// after printing a line that says the calling test is skipped.
pub fn shared_vocab_path(rel: &str) -> Option<PathBuf> {
    match shared_vocabs_dir().map(|dir| dir.join(rel)) {
        Some(path) if path.exists() => Some(path),
        _ => {
            println!("skipped: {rel} is absent (set {SHARED_VOCABS_VAR} or add ../shared/vocabs)");
            None
        }
    }
}

/// The real vocabulary `rel` read by [`Vocabulary::from_file`], or `None` (test skipped)
/// when it is absent.
///
/// # Panics
///
/// When the file is there but does not load: a broken fixture must fail the test, not
/// skip it.
pub fn shared_vocab(rel: &str) -> Option<Vocabulary> {
    let path = shared_vocab_path(rel)?;
    Some(Vocabulary::from_file(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn testdata_holds_the_fixtures() {
        assert!(testdata_dir().join("bytelevel/tokenizer.json").is_file());
    }
}
