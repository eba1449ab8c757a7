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
            compile_text(trie, source, text).map(|a| Automaton::Shared(a.into()))
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
    // SAFETY: forwarded contract.
    unsafe {
        compile_into(vocab, text, len, out, |trie, text| {
            let automaton = compile_lazy_text(trie, source, text)?;
            Ok(Automaton::Lazy {
                automaton,
                fingerprint: trie.fingerprint(),
            })
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

fn compile_lazy_text(
    trie: &Arc<VocabTrie>,
    source: u32,
    text: &str,
) -> Result<fstc_core::lazy::LazyAutomaton, Failure> {
    match source {
        SOURCE_REGEX => fstc_regex::RegexCompiler::new()
            .compile_lazy(text, Arc::clone(trie))
            .map(|c| c.automaton)
            .map_err(|e| compile_error(&e)),
        SOURCE_JSON_SCHEMA => fstc_json::JsonSchemaCompiler::new()
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

fn compile_text(trie: &VocabTrie, source: u32, text: &str) -> Result<AnyAutomaton, Failure> {
    match source {
        SOURCE_REGEX => fstc_regex::RegexCompiler::new()
            .compile_with_trie(text, trie)
            .map(|c| AnyAutomaton::Fsa(c.automaton))
            .map_err(|e| compile_error(&e)),
        SOURCE_JSON_SCHEMA => fstc_json::JsonSchemaCompiler::new()
            .compile_with_trie(text, trie)
            .map(|c| AnyAutomaton::Fsa(c.automaton))
            .map_err(|e| compile_error(&e)),
        SOURCE_GRAMMAR => fstc_pda::GrammarCompiler::new()
            .compile_with_trie(text, trie)
            .map(|c| AnyAutomaton::Pda(c.automaton))
            .map_err(|e| compile_error(&e)),
        other => Err(unknown_source(other)),
    }
}
