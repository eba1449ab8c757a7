//! Compiling from C (feature `compile`, header `fstc_compile.h`): a vocabulary from a
//! tokenizer file or from the bytes of each id, and a regex, JSON Schema or grammar
//! compiled from its text over it, eagerly into the same `fstc_automaton` that
//! `fstc_automaton_load` gives, or lazily (regexes and JSON Schemas: fstc-core's `lazy`
//! module) into one whose states are composed as matchers reach them.
//!
//! A decoder such as llama.cpp knows its tokens' bytes but not their tokenizer file:
//! `fstc_vocabulary_from_tokens` takes them as it has them. The vocabulary's trie (what
//! every compile walks) is built once, when the vocabulary is made.

use std::ffi::{c_char, CStr};
use std::sync::Arc;

use fstc_core::any::AnyAutomaton;
use fstc_core::options::{check_lazy, OptionError, OptionValue};
use fstc_core::vocab::{ByteVocabulary, TokenVocabulary, VocabTrie};

use crate::{
    copy_out, fail, get, give_automaton, guard, put, slice, Automaton, Failure, FstcAutomaton,
    FstcStatus,
};

/// A vocabulary ready to compile against (opaque to C); lazy automata share its trie.
pub struct FstcVocabulary {
    trie: Arc<VocabTrie>,
}

/// What `fstc_compile` reads the text as (the header's `FSTC_SOURCE_*`).
const SOURCE_REGEX: u32 = 0;
const SOURCE_JSON_SCHEMA: u32 = 1;
const SOURCE_GRAMMAR: u32 = 2;

fn vocabulary_error(message: impl Into<String>) -> Failure {
    fail(FstcStatus::Vocabulary, message)
}

/// Boxes a vocabulary for C.
///
/// # Safety
/// `out` is valid for writing a pointer.
unsafe fn give_vocabulary(vocab: &(impl TokenVocabulary + ?Sized), out: *mut *mut FstcVocabulary) {
    let boxed = Box::new(FstcVocabulary {
        trie: Arc::new(VocabTrie::new(vocab)),
    });
    // SAFETY: per this function's contract.
    unsafe { out.write(Box::into_raw(boxed)) };
}

/// Loads a tokenizer file of any format fstc reads (GGUF, `tokenizer.json`, `encoder.json`,
/// tiktoken, `tekken.json`), telling the format from the content.
///
/// # Safety
/// `path` is null or a NUL-terminated string; `out` is null or writable.
#[no_mangle]
pub unsafe extern "C" fn fstc_vocabulary_load(
    path: *const c_char,
    out: *mut *mut FstcVocabulary,
) -> FstcStatus {
    guard(|| {
        // SAFETY: per this function's contract.
        unsafe { put(out, std::ptr::null_mut(), "out") }?;
        if path.is_null() {
            return Err(crate::null("path"));
        }
        // SAFETY: non-null and NUL-terminated per this function's contract.
        let bytes = unsafe { CStr::from_ptr(path) }.to_bytes();
        let path = path_of(bytes)?;
        let vocab =
            fstc_detok::Vocabulary::from_file(path).map_err(|e| vocabulary_error(e.to_string()))?;
        // SAFETY: checked non-null by `put` above.
        unsafe { give_vocabulary(&vocab, out) };
        Ok(())
    })
}

/// A C path's bytes as a path: any bytes on Unix, UTF-8 elsewhere.
fn path_of(bytes: &[u8]) -> Result<&std::path::Path, Failure> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        Ok(std::path::Path::new(std::ffi::OsStr::from_bytes(bytes)))
    }
    #[cfg(not(unix))]
    {
        std::str::from_utf8(bytes)
            .map(std::path::Path::new)
            .map_err(|e| {
                fail(
                    FstcStatus::InvalidArgument,
                    format!("path: not UTF-8 ({e})"),
                )
            })
    }
}

/// A vocabulary of `n` ids: id `i` stands for the `lens[i]` bytes at `tokens[i]`, or is a
/// special token (no text) where `tokens[i]` is null. `eos_ids` (`n_eos` ids, special
/// tokens) end generation.
///
/// # Safety
/// `tokens` and `lens` point to `n` elements each (or are null with `n` 0); each non-null
/// `tokens[i]` points to `lens[i]` bytes; `eos_ids` to `n_eos` ids; `out` null or writable.
#[no_mangle]
pub unsafe extern "C" fn fstc_vocabulary_from_tokens(
    tokens: *const *const u8,
    lens: *const usize,
    n: usize,
    eos_ids: *const u32,
    n_eos: usize,
    out: *mut *mut FstcVocabulary,
) -> FstcStatus {
    guard(|| {
        // SAFETY: per this function's contract.
        unsafe { put(out, std::ptr::null_mut(), "out") }?;
        // SAFETY: per this function's contract.
        let (tokens, lens) = unsafe { (slice(tokens, n, "tokens")?, slice(lens, n, "lens")?) };
        // SAFETY: per this function's contract.
        let eos = unsafe { slice(eos_ids, n_eos, "eos_ids") }?;
        if u32::try_from(n).is_err() {
            return Err(vocabulary_error(format!(
                "{n} tokens: ids must fit 32 bits"
            )));
        }
        let mut list = Vec::with_capacity(n);
        for (id, (&p, &len)) in tokens.iter().zip(lens).enumerate() {
            if p.is_null() {
                list.push(None);
                continue;
            }
            if len == 0 {
                return Err(vocabulary_error(format!(
                    "token {id} has 0 bytes: a token with no text is special (a null pointer)"
                )));
            }
            // SAFETY: a non-null `tokens[id]` points to `lens[id]` bytes per the contract.
            list.push(Some(unsafe { slice(p, len, "tokens[i]") }?.to_vec()));
        }
        let mut eos = eos.to_vec();
        eos.sort_unstable();
        eos.dedup();
        for &id in &eos {
            match list.get(id as usize) {
                None => {
                    return Err(vocabulary_error(format!(
                        "EOS id {id} is not below the vocabulary size {n}"
                    )))
                }
                Some(Some(_)) => {
                    return Err(vocabulary_error(format!(
                        "EOS id {id} has text: EOS ids must be special tokens (null)"
                    )))
                }
                Some(None) => {}
            }
        }
        // SAFETY: checked non-null by `put` above.
        unsafe { give_vocabulary(&ByteVocabulary::new(list, eos), out) };
        Ok(())
    })
}

/// Frees a vocabulary (null is ignored); automata compiled from it stay valid.
///
/// # Safety
/// `vocab` is null or from `fstc_vocabulary_load`/`_from_tokens` and not yet freed.
#[no_mangle]
pub unsafe extern "C" fn fstc_vocabulary_free(vocab: *mut FstcVocabulary) {
    if !vocab.is_null() {
        // SAFETY: from `Box::into_raw` in `give_vocabulary`, freed once per contract.
        drop(unsafe { Box::from_raw(vocab) });
    }
}

/// The number of ids, special tokens included.
///
/// # Safety
/// `vocab` null or live; `out` null or writable.
#[no_mangle]
pub unsafe extern "C" fn fstc_vocabulary_size(
    vocab: *const FstcVocabulary,
    out: *mut u32,
) -> FstcStatus {
    guard(|| {
        // SAFETY: per this function's contract.
        let v = unsafe { get(vocab, "vocab") }?;
        // SAFETY: per this function's contract; the size fits u32 (checked when made).
        unsafe { put(out, v.trie.vocab_size() as u32, "out") }
    })
}

/// The fingerprint of the ids and their bytes, as `fstc_automaton_vocab_fingerprint`
/// gives for an automaton compiled over the same vocabulary.
///
/// # Safety
/// `vocab` null or live; `out` null or writable.
#[no_mangle]
pub unsafe extern "C" fn fstc_vocabulary_fingerprint(
    vocab: *const FstcVocabulary,
    out: *mut u64,
) -> FstcStatus {
    guard(|| {
        // SAFETY: per this function's contract.
        let v = unsafe { get(vocab, "vocab") }?;
        // SAFETY: per this function's contract.
        unsafe { put(out, v.trie.fingerprint(), "out") }
    })
}

/// The sorted EOS ids into `buf` (`cap` ids); `*len` gets their number.
///
/// # Safety
/// `vocab` null or live; `buf` null or `cap` writable ids; `len` null or writable.
#[no_mangle]
pub unsafe extern "C" fn fstc_vocabulary_eos_ids(
    vocab: *const FstcVocabulary,
    buf: *mut u32,
    cap: usize,
    len: *mut usize,
) -> FstcStatus {
    guard(|| {
        // SAFETY: per this function's contract.
        let v = unsafe { get(vocab, "vocab") }?;
        // SAFETY: per this function's contract.
        unsafe { copy_out(buf, cap, len, v.trie.eos_ids()) }
    })
}

/// Compiles `len` bytes of UTF-8 `text` as `source` (`FSTC_SOURCE_REGEX`,
/// `FSTC_SOURCE_JSON_SCHEMA` or `FSTC_SOURCE_GRAMMAR`: GBNF) over `vocab`, eagerly, with the
/// compilers' default options, as `fstc compile` does. A constraint that does not compile
/// is `FSTC_ERR_COMPILE` with the compiler's message.
///
/// # Safety
/// `vocab` null or live; `text` null (with `len` 0) or `len` readable bytes; `out` null or
/// writable.
#[no_mangle]
pub unsafe extern "C" fn fstc_compile(
    vocab: *const FstcVocabulary,
    source: u32,
    text: *const c_char,
    len: usize,
    out: *mut *mut FstcAutomaton,
) -> FstcStatus {
    // SAFETY: forwarded contract.
    unsafe {
        compile_into(vocab, text, len, out, |trie, text| {
            compile_source(trie, source, text, &Options::default())
        })
    }
}

/// Compiles a regex or JSON Schema as `fstc_compile` does, but lazily: only the byte
/// automaton is built here, and each state's tokens are composed the first time a matcher
/// reaches it, then kept for every matcher of the automaton. A grammar has no lazy form
/// (`FSTC_ERR_INVALID_ARGUMENT`: compile it with `fstc_compile`).
///
/// # Safety
/// As `fstc_compile`.
#[no_mangle]
pub unsafe extern "C" fn fstc_compile_lazy(
    vocab: *const FstcVocabulary,
    source: u32,
    text: *const c_char,
    len: usize,
    out: *mut *mut FstcAutomaton,
) -> FstcStatus {
    let options = Options {
        lazy: true,
        ..Options::default()
    };
    // SAFETY: forwarded contract.
    unsafe {
        compile_into(vocab, text, len, out, |trie, text| {
            compile_source(trie, source, text, &options)
        })
    }
}

/// Compiles as `fstc_compile`, or with `"lazy": true` as `fstc_compile_lazy`, with the
/// options in `options` (`options_len` bytes of a JSON object; null with 0 for none): the
/// names and values of Python's keyword arguments of the same compile, read by the same
/// `Config::with_options`. An option the source does not take, a value it cannot take, or
/// text that is not a JSON object is `FSTC_ERR_INVALID_ARGUMENT` naming it.
///
/// # Safety
/// As `fstc_compile`; `options` null (with `options_len` 0) or `options_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn fstc_compile_with_options(
    vocab: *const FstcVocabulary,
    source: u32,
    text: *const c_char,
    len: usize,
    options: *const c_char,
    options_len: usize,
    out: *mut *mut FstcAutomaton,
) -> FstcStatus {
    // SAFETY: per this function's contract; an error is reported by `compile_into`.
    let options = unsafe { slice(options.cast::<u8>(), options_len, "options") };
    // SAFETY: forwarded contract.
    unsafe {
        compile_into(vocab, text, len, out, |trie, text| {
            compile_source(trie, source, text, &Options::read(options?)?)
        })
    }
}

/// Reads the arguments both compile functions share, runs `compile` on the vocabulary's
/// trie and the text, and gives C the automaton.
///
/// # Safety
/// As `fstc_compile`.
unsafe fn compile_into(
    vocab: *const FstcVocabulary,
    text: *const c_char,
    len: usize,
    out: *mut *mut FstcAutomaton,
    compile: impl FnOnce(&Arc<VocabTrie>, &str) -> Result<Automaton, Failure>,
) -> FstcStatus {
    guard(|| {
        // SAFETY: per this function's contract.
        unsafe { put(out, std::ptr::null_mut(), "out") }?;
        // SAFETY: per this function's contract.
        let v = unsafe { get(vocab, "vocab") }?;
        // SAFETY: per this function's contract.
        let text = unsafe { slice(text.cast::<u8>(), len, "text") }?;
        let text = std::str::from_utf8(text).map_err(|e| {
            fail(
                FstcStatus::InvalidArgument,
                format!("text: not UTF-8 ({e})"),
            )
        })?;
        let automaton = compile(&v.trie, text)?;
        // SAFETY: checked non-null by `put` above.
        unsafe { give_automaton(automaton, out) };
        Ok(())
    })
}

fn compile_error(e: &dyn std::fmt::Display) -> Failure {
    fail(FstcStatus::Compile, e.to_string())
}

fn unknown_source(source: u32) -> Failure {
    fail(
        FstcStatus::InvalidArgument,
        format!(
            "source: {source} is not FSTC_SOURCE_REGEX (0), FSTC_SOURCE_JSON_SCHEMA (1) or \
             FSTC_SOURCE_GRAMMAR (2)"
        ),
    )
}

/// The options of one compile: `lazy`, the lazy automaton's `state_work_limit`, and the
/// front end's by name.
#[derive(Default)]
struct Options {
    lazy: bool,
    state_work_limit: Option<u64>,
    named: Vec<(String, OptionValue)>,
}

impl Options {
    /// The options of a JSON object; empty text is none.
    fn read(json: &[u8]) -> Result<Options, Failure> {
        let mut options = Options::default();
        if json.is_empty() {
            return Ok(options);
        }
        let object: serde_json::Map<String, serde_json::Value> = serde_json::from_slice(json)
            .map_err(|e| invalid_option(format!("not a JSON object ({e})")))?;
        for (name, value) in object {
            let value = option_value(&name, value)?;
            match name.as_str() {
                "lazy" => options.lazy = value.bool("lazy").map_err(invalid_option)?,
                _ => options.named.push((name, value)),
            }
        }
        let names = options.named.iter().map(|(name, _)| name.as_str());
        check_lazy(options.lazy, names).map_err(invalid_option)?;
        if let Some(i) = (options.named.iter()).position(|(name, _)| name == "state_work_limit") {
            let (name, value) = options.named.remove(i);
            options.state_work_limit = Some(value.u64(&name).map_err(invalid_option)?);
        }
        Ok(options)
    }

    /// A front end's `Config` with these options set.
    fn config<C>(
        &self,
        with_options: impl FnOnce(&[(&str, OptionValue)]) -> Result<C, OptionError>,
    ) -> Result<C, Failure> {
        let named: Vec<(&str, OptionValue)> = (self.named.iter())
            .map(|(name, value)| (name.as_str(), value.clone()))
            .collect();
        with_options(&named).map_err(invalid_option)
    }
}

fn invalid_option(e: impl std::fmt::Display) -> Failure {
    fail(FstcStatus::InvalidArgument, format!("options: {e}"))
}

/// A JSON value as an option's value: a boolean, a non-negative integer, a number, a string
/// or a list of non-negative integers.
fn option_value(name: &str, value: serde_json::Value) -> Result<OptionValue, Failure> {
    use serde_json::Value;
    let unreadable = || invalid_option(format!("argument '{name}' cannot be {value}"));
    Ok(match &value {
        Value::Bool(b) => OptionValue::Bool(*b),
        Value::Number(n) => match (n.as_u64(), n.as_f64()) {
            (Some(v), _) => OptionValue::Int(v),
            (None, Some(v)) if !n.is_i64() => OptionValue::Float(v),
            _ => {
                return Err(invalid_option(format!(
                    "argument '{name}' must be from 0, got {n}"
                )))
            }
        },
        Value::String(s) => OptionValue::Str(s.clone()),
        Value::Array(items) => OptionValue::Ints(
            (items.iter())
                .map(|v| v.as_u64().ok_or_else(unreadable))
                .collect::<Result<_, _>>()?,
        ),
        Value::Null | Value::Object(_) => return Err(unreadable()),
    })
}

/// `text` compiled as `source` with `options`, eagerly or lazily.
fn compile_source(
    trie: &Arc<VocabTrie>,
    source: u32,
    text: &str,
    options: &Options,
) -> Result<Automaton, Failure> {
    if !options.lazy {
        return Ok(Automaton::Shared(
            compile_text(trie, source, text, options)?.into(),
        ));
    }
    let automaton = compile_lazy_text(trie, source, text, options)?;
    if let Some(steps) = options.state_work_limit {
        automaton.set_state_work_limit(steps);
    }
    Ok(Automaton::Lazy {
        automaton,
        fingerprint: trie.fingerprint(),
    })
}

fn compile_lazy_text(
    trie: &Arc<VocabTrie>,
    source: u32,
    text: &str,
    options: &Options,
) -> Result<fstc_core::lazy::LazyAutomaton, Failure> {
    match source {
        SOURCE_REGEX => fstc_regex::RegexCompiler::new()
            .configure(options.config(|o| fstc_regex::Config::new().with_options(o))?)
            .compile_lazy(text, Arc::clone(trie))
            .map(|c| c.automaton)
            .map_err(|e| compile_error(&e)),
        SOURCE_JSON_SCHEMA => fstc_json::JsonSchemaCompiler::new()
            .configure(options.config(|o| fstc_json::Config::new().with_options(o))?)
            .compile_lazy(text, Arc::clone(trie))
            .map(|c| c.automaton)
            .map_err(|e| compile_error(&e)),
        SOURCE_GRAMMAR => Err(fail(
            FstcStatus::InvalidArgument,
            "source: a grammar (FSTC_SOURCE_GRAMMAR) has no lazy compile; compile it with \
             fstc_compile",
        )),
        other => Err(unknown_source(other)),
    }
}

fn compile_text(
    trie: &VocabTrie,
    source: u32,
    text: &str,
    options: &Options,
) -> Result<AnyAutomaton, Failure> {
    match source {
        SOURCE_REGEX => fstc_regex::RegexCompiler::new()
            .configure(options.config(|o| fstc_regex::Config::new().with_options(o))?)
            .compile_with_trie(text, trie)
            .map(|c| AnyAutomaton::Fsa(c.automaton))
            .map_err(|e| compile_error(&e)),
        SOURCE_JSON_SCHEMA => fstc_json::JsonSchemaCompiler::new()
            .configure(options.config(|o| fstc_json::Config::new().with_options(o))?)
            .compile_with_trie(text, trie)
            .map(|c| AnyAutomaton::Fsa(c.automaton))
            .map_err(|e| compile_error(&e)),
        SOURCE_GRAMMAR => fstc_pda::GrammarCompiler::new()
            .configure(options.config(|o| fstc_pda::Config::new().with_options(o))?)
            .compile_with_trie(text, trie)
            .map(|c| AnyAutomaton::Pda(c.automaton))
            .map_err(|e| compile_error(&e)),
        other => Err(unknown_source(other)),
    }
}
