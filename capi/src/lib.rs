//! A C ABI for decode time: load a compiled token automaton, walk it with matchers.
//!
//! Decoders written in C or C++ (llama.cpp-style servers) call these functions through the
//! hand-written header `capi/include/fstc.h`, which documents each of them. Every function
//! returns an [`FstcStatus`]; on failure [`fstc_last_error`] gives the message (thread-local).
//! Bad input from C — null pointers, a corrupt file, a token out of range, a mask narrower
//! than the vocabulary, a buffer too small — is a status, never a crash, and a panic is caught
//! at the boundary (`FSTC_ERR_PANIC`). All `unsafe` of the project lives in this crate, at
//! the pointer boundary.
//!
//! An automaton file of either kind loads: a token FSA (regexes, JSON Schemas) or a token
//! PDA (grammars), told apart by the file header; the matcher functions are the same.
//!
//! An automaton is immutable and shared: matchers keep it alive (reference counted), so
//! `fstc_automaton_free` may come before the matchers are freed, and one automaton may serve
//! matchers on many threads. A matcher is used by one thread at a time. A matcher is a
//! `Box<dyn DynMatcher>`: every call goes through fstc-core's decoding interface
//! (`SharedAutomaton::matcher` picks the walker of the kind).

#![deny(unsafe_op_in_unsafe_fn)]

use std::cell::RefCell;
use std::ffi::{c_char, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

use fstc_core::any::{AnyAutomaton, SharedAutomaton};
use fstc_core::automaton::AutomatonKind;
use fstc_core::matcher::{DynMatcher, MatchError, MatchErrorKind};

#[cfg(feature = "compile")]
mod compile;

/// The result of every fallible function; the numbering is the header's.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FstcStatus {
    Ok = 0,
    /// A required pointer argument was null.
    NullArgument = 1,
    /// The bytes are not a valid automaton file (bad magic, version, checksum, index...).
    InvalidAutomaton = 2,
    /// The token is not allowed in the current state.
    TokenNotAllowed = 3,
    /// The token id is not below the vocabulary size.
    OutOfVocabulary = 4,
    /// The walk already ended with EOS; only rollback or reset continue it.
    Finished = 5,
    /// The mask has fewer bits than the vocabulary has tokens.
    MaskTooNarrow = 6,
    /// More tokens were to be rolled back than were consumed.
    RollbackTooFar = 7,
    /// The caller's buffer is too small; the length out-parameter says how much is needed.
    BufferTooSmall = 8,
    /// Any other invalid argument (a length past the address space).
    InvalidArgument = 9,
    /// A bug: a panic inside fstc was caught at the boundary.
    Panic = 10,
    /// A token PDA's token would push its stack past the matcher's stack limit.
    StackLimit = 11,
    /// A nondeterministic token PDA's token would leave more live configurations than the
    /// matcher's configuration limit.
    ConfigLimit = 12,
    /// The constraint does not compile (syntax, an unsupported construct, a limit): only
    /// with the `compile` feature.
    Compile = 13,
    /// The vocabulary cannot be read or is inconsistent: only with the `compile` feature.
    Vocabulary = 14,
    /// A lazy automaton's state, composed for this mask or token, passed its work limit
    /// (a resource limit: the call changed nothing).
    ComposeLimit = 15,
}

/// An automaton loaded by `fstc_automaton_load` or compiled (opaque to C): a token FSA or
/// PDA, or with the `compile` feature a lazy automaton (`fstc_compile_lazy`).
pub struct FstcAutomaton {
    inner: Automaton,
}

/// What an `fstc_automaton` holds.
enum Automaton {
    /// Composed up front: loaded from a file or compiled eagerly.
    Shared(SharedAutomaton),
    /// Composed state by state as matchers reach them; `fingerprint` is its vocabulary's.
    #[cfg(feature = "compile")]
    Lazy {
        automaton: fstc_core::lazy::LazyAutomaton,
        fingerprint: u64,
    },
}

/// `fstc_automaton_kind`'s values (the header's `FSTC_KIND_*`).
const KIND_FSA: u32 = 0;
const KIND_PDA: u32 = 1;
#[cfg(feature = "compile")]
const KIND_LAZY: u32 = 2;

impl Automaton {
    fn vocab_size(&self) -> u32 {
        match self {
            Automaton::Shared(a) => a.vocab_size(),
            #[cfg(feature = "compile")]
            Automaton::Lazy { automaton, .. } => automaton.vocab_size(),
        }
    }

    fn eos_ids(&self) -> &[u32] {
        match self {
            Automaton::Shared(a) => a.eos_ids(),
            #[cfg(feature = "compile")]
            Automaton::Lazy { automaton, .. } => automaton.eos_ids(),
        }
    }

    fn vocab_fingerprint(&self) -> u64 {
        match self {
            Automaton::Shared(a) => a.vocab_fingerprint(),
            #[cfg(feature = "compile")]
            Automaton::Lazy { fingerprint, .. } => *fingerprint,
        }
    }

    fn kind(&self) -> u32 {
        match self {
            Automaton::Shared(a) if a.kind() == AutomatonKind::TokenPda => KIND_PDA,
            Automaton::Shared(_) => KIND_FSA,
            #[cfg(feature = "compile")]
            Automaton::Lazy { .. } => KIND_LAZY,
        }
    }

    /// A matcher at the start; the limits apply to token PDAs only.
    fn matcher(
        &self,
        stack_limit: Option<usize>,
        config_limit: Option<usize>,
    ) -> Box<dyn DynMatcher> {
        match self {
            Automaton::Shared(a) => a.matcher(stack_limit, config_limit),
            #[cfg(feature = "compile")]
            Automaton::Lazy { automaton, .. } => Box::new(automaton.start_matcher()),
        }
    }
}

/// Boxes an automaton for C.
///
/// # Safety
/// `out` is valid for writing a pointer.
unsafe fn give_automaton(inner: Automaton, out: *mut *mut FstcAutomaton) {
    let boxed = Box::new(FstcAutomaton { inner });
    // SAFETY: per this function's contract.
    unsafe { out.write(Box::into_raw(boxed)) };
}

/// One sequence's position in an automaton (opaque to C); it shares the automaton.
pub struct FstcMatcher {
    inner: Box<dyn DynMatcher>,
}

struct Failure {
    status: FstcStatus,
    message: String,
}

fn fail(status: FstcStatus, message: impl Into<String>) -> Failure {
    Failure {
        status,
        message: message.into(),
    }
}

impl From<MatchError> for Failure {
    fn from(e: MatchError) -> Failure {
        let status = match e.kind() {
            MatchErrorKind::TokenNotAllowed => FstcStatus::TokenNotAllowed,
            MatchErrorKind::OutOfVocabulary => FstcStatus::OutOfVocabulary,
            MatchErrorKind::Finished => FstcStatus::Finished,
            MatchErrorKind::MaskTooNarrow => FstcStatus::MaskTooNarrow,
            MatchErrorKind::RollbackTooFar => FstcStatus::RollbackTooFar,
            MatchErrorKind::StackLimit => FstcStatus::StackLimit,
            MatchErrorKind::ConfigLimit => FstcStatus::ConfigLimit,
            MatchErrorKind::ComposeLimit => FstcStatus::ComposeLimit,
            _ => FstcStatus::InvalidArgument,
        };
        fail(status, e.to_string())
    }
}

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

fn set_last_error(message: &str) {
    let text = CString::new(message.replace('\0', "\\0")).unwrap_or_default();
    LAST_ERROR.with(|e| *e.borrow_mut() = text);
}

/// Runs `f`, turning its failure or panic into a status and the thread's last error.
fn guard(f: impl FnOnce() -> Result<(), Failure>) -> FstcStatus {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => FstcStatus::Ok,
        Ok(Err(e)) => {
            set_last_error(&e.message);
            e.status
        }
        Err(_) => {
            set_last_error("internal error: a panic inside fstc was caught at the C boundary");
            FstcStatus::Panic
        }
    }
}

fn null(what: &str) -> Failure {
    fail(
        FstcStatus::NullArgument,
        format!("{what} is a null pointer"),
    )
}

/// # Safety
/// `p` is null or points to a valid `T` that outlives `'a`.
unsafe fn get<'a, T>(p: *const T, what: &str) -> Result<&'a T, Failure> {
    // SAFETY: per this function's contract, a non-null `p` points to a live `T`.
    unsafe { p.as_ref() }.ok_or_else(|| null(what))
}

/// # Safety
/// `p` is null or points to a valid `T`, not aliased, that outlives `'a`.
unsafe fn get_mut<'a, T>(p: *mut T, what: &str) -> Result<&'a mut T, Failure> {
    // SAFETY: per this function's contract, a non-null `p` points to a live, unaliased `T`.
    unsafe { p.as_mut() }.ok_or_else(|| null(what))
}

/// Writes `value` to the out-parameter `p`.
///
/// # Safety
/// `p` is null or valid for writing a `T`.
unsafe fn put<T>(p: *mut T, value: T, what: &str) -> Result<(), Failure> {
    if p.is_null() {
        return Err(null(what));
    }
    // SAFETY: non-null and, per this function's contract, valid for writes.
    unsafe { p.write(value) };
    Ok(())
}

fn check_len<T>(len: usize, what: &str) -> Result<(), Failure> {
    match len.checked_mul(std::mem::size_of::<T>()) {
        Some(bytes) if bytes <= isize::MAX as usize => Ok(()),
        _ => Err(fail(
            FstcStatus::InvalidArgument,
            format!("{what}: length {len} is past the address space"),
        )),
    }
}

/// The `len` elements at `p`; `p` may be null when `len` is 0.
///
/// # Safety
/// A non-null `p` points to `len` initialized `T`s, not mutated during `'a`.
unsafe fn slice<'a, T>(p: *const T, len: usize, what: &str) -> Result<&'a [T], Failure> {
    if len == 0 {
        return Ok(&[]);
    }
    if p.is_null() {
        return Err(null(what));
    }
    check_len::<T>(len, what)?;
    // SAFETY: non-null, `len` elements per the contract, and the size fits `isize`.
    Ok(unsafe { std::slice::from_raw_parts(p, len) })
}

/// # Safety
/// A non-null `p` points to `len` writable `T`s, not aliased during `'a`.
unsafe fn slice_mut<'a, T>(p: *mut T, len: usize, what: &str) -> Result<&'a mut [T], Failure> {
    if len == 0 {
        return Ok(&mut []);
    }
    if p.is_null() {
        return Err(null(what));
    }
    check_len::<T>(len, what)?;
    // SAFETY: non-null, `len` writable elements per the contract, and the size fits `isize`.
    Ok(unsafe { std::slice::from_raw_parts_mut(p, len) })
}

/// Copies `items` into the caller's buffer of `cap` elements and writes the count to `len`;
/// `FSTC_ERR_BUFFER_TOO_SMALL` (with `len` set, nothing copied) when `cap` is too small.
///
/// # Safety
/// As [`slice_mut`] for `buf`/`cap` and [`put`] for `len`.
unsafe fn copy_out(
    buf: *mut u32,
    cap: usize,
    len: *mut usize,
    items: &[u32],
) -> Result<(), Failure> {
    // SAFETY: forwarded contract.
    unsafe { put(len, items.len(), "len") }?;
    if cap < items.len() {
        return Err(fail(
            FstcStatus::BufferTooSmall,
            format!("the buffer holds {cap} ids, {} are needed", items.len()),
        ));
    }
    // SAFETY: forwarded contract.
    let out = unsafe { slice_mut(buf, cap, "buf") }?;
    out[..items.len()].copy_from_slice(items);
    Ok(())
}

/// The message of the last failed call on this thread ("" if none). Valid until the next
/// failed call on this thread.
#[no_mangle]
pub extern "C" fn fstc_last_error() -> *const c_char {
    LAST_ERROR.with(|e| e.borrow().as_ptr())
}

/// Loads an automaton file of either kind from `len` bytes (copied, validated).
///
/// # Safety
/// `bytes` points to `len` readable bytes (or is null with `len` 0); `out` is null or
/// valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn fstc_automaton_load(
    bytes: *const u8,
    len: usize,
    out: *mut *mut FstcAutomaton,
) -> FstcStatus {
    guard(|| {
        // SAFETY: `out` is valid for writes per this function's contract.
        unsafe { put(out, std::ptr::null_mut(), "out") }?;
        // SAFETY: `bytes` holds `len` bytes per this function's contract.
        let data = unsafe { slice(bytes, len, "bytes") }?;
        let automaton = AnyAutomaton::from_bytes_copied(data)
            .map_err(|e| fail(FstcStatus::InvalidAutomaton, e.to_string()))?;
        // SAFETY: checked non-null above.
        unsafe { give_automaton(Automaton::Shared(automaton.into()), out) };
        Ok(())
    })
}

/// Frees an automaton (null is ignored). Matchers made from it stay valid.
///
/// # Safety
/// `automaton` is null or from `fstc_automaton_load` and not yet freed.
#[no_mangle]
pub unsafe extern "C" fn fstc_automaton_free(automaton: *mut FstcAutomaton) {
    if !automaton.is_null() {
        // SAFETY: from `Box::into_raw` in `fstc_automaton_load`, freed once per contract.
        drop(unsafe { Box::from_raw(automaton) });
    }
}

/// The number of token ids of the automaton's vocabulary (a mask needs that many bits).
///
/// # Safety
/// `automaton` is null or live; `out` is null or writable.
#[no_mangle]
pub unsafe extern "C" fn fstc_automaton_vocab_size(
    automaton: *const FstcAutomaton,
    out: *mut u32,
) -> FstcStatus {
    guard(|| {
        // SAFETY: per this function's contract.
        let a = unsafe { get(automaton, "automaton") }?;
        // SAFETY: per this function's contract.
        unsafe { put(out, a.inner.vocab_size(), "out") }
    })
}

/// The EOS ids, sorted, into `buf` (`cap` ids); `*len` gets their number.
///
/// # Safety
/// `automaton` null or live; `buf` null or `cap` writable ids; `len` null or writable.
#[no_mangle]
pub unsafe extern "C" fn fstc_automaton_eos_ids(
    automaton: *const FstcAutomaton,
    buf: *mut u32,
    cap: usize,
    len: *mut usize,
) -> FstcStatus {
    guard(|| {
        // SAFETY: per this function's contract.
        let a = unsafe { get(automaton, "automaton") }?;
        // SAFETY: per this function's contract.
        unsafe { copy_out(buf, cap, len, a.inner.eos_ids()) }
    })
}

/// The kind of the automaton: 0 a token FSA, 1 a token PDA, 2 a lazy automaton
/// (`FSTC_KIND_*`).
///
/// # Safety
/// `automaton` is null or live; `out` is null or writable.
#[no_mangle]
pub unsafe extern "C" fn fstc_automaton_kind(
    automaton: *const FstcAutomaton,
    out: *mut u32,
) -> FstcStatus {
    guard(|| {
        // SAFETY: per this function's contract.
        let a = unsafe { get(automaton, "automaton") }?;
        // SAFETY: per this function's contract.
        unsafe { put(out, a.inner.kind(), "out") }
    })
}

/// The fingerprint of the vocabulary the automaton was compiled for (fstc-core's
/// `vocab::fingerprint`: the ids and their bytes, not the EOS ids), to tell a file
/// compiled for another tokenizer.
///
/// # Safety
/// `automaton` is null or live; `out` is null or writable.
#[no_mangle]
pub unsafe extern "C" fn fstc_automaton_vocab_fingerprint(
    automaton: *const FstcAutomaton,
    out: *mut u64,
) -> FstcStatus {
    guard(|| {
        // SAFETY: per this function's contract.
        let a = unsafe { get(automaton, "automaton") }?;
        // SAFETY: per this function's contract.
        unsafe { put(out, a.inner.vocab_fingerprint(), "out") }
    })
}

/// A matcher at the automaton's start state (a PDA's stack limit is the default).
///
/// # Safety
/// `automaton` null or live; `out` null or writable.
#[no_mangle]
pub unsafe extern "C" fn fstc_matcher_new(
    automaton: *const FstcAutomaton,
    out: *mut *mut FstcMatcher,
) -> FstcStatus {
    // SAFETY: forwarded contract.
    unsafe { new_matcher(automaton, None, None, out) }
}

/// A matcher at the start whose token PDA stack holds at most `stack_limit` symbols: a
/// token that would push past it is left out of masks and refused with
/// `FSTC_ERR_STACK_LIMIT`. An FSA has no stack; the limit does not apply to it.
///
/// # Safety
/// `automaton` null or live; `out` null or writable.
#[no_mangle]
pub unsafe extern "C" fn fstc_matcher_new_with_stack_limit(
    automaton: *const FstcAutomaton,
    stack_limit: usize,
    out: *mut *mut FstcMatcher,
) -> FstcStatus {
    // SAFETY: forwarded contract.
    unsafe { new_matcher(automaton, Some(stack_limit), None, out) }
}

/// A matcher at the start with both limits: `stack_limit` as
/// `fstc_matcher_new_with_stack_limit`, `config_limit` the most live configurations of a
/// nondeterministic token PDA's matcher (a token that would leave more is refused with
/// `FSTC_ERR_CONFIG_LIMIT`; masks do not reflect it). It does not apply to other automata.
///
/// # Safety
/// `automaton` null or live; `out` null or writable.
#[no_mangle]
pub unsafe extern "C" fn fstc_matcher_new_with_limits(
    automaton: *const FstcAutomaton,
    stack_limit: usize,
    config_limit: usize,
    out: *mut *mut FstcMatcher,
) -> FstcStatus {
    // SAFETY: forwarded contract.
    unsafe { new_matcher(automaton, Some(stack_limit), Some(config_limit), out) }
}

/// # Safety
/// As `fstc_matcher_new`.
unsafe fn new_matcher(
    automaton: *const FstcAutomaton,
    stack_limit: Option<usize>,
    config_limit: Option<usize>,
    out: *mut *mut FstcMatcher,
) -> FstcStatus {
    guard(|| {
        // SAFETY: per this function's contract.
        unsafe { put(out, std::ptr::null_mut(), "out") }?;
        // SAFETY: per this function's contract.
        let a = unsafe { get(automaton, "automaton") }?;
        let inner = a.inner.matcher(stack_limit, config_limit);
        // SAFETY: checked non-null above.
        unsafe { out.write(Box::into_raw(Box::new(FstcMatcher { inner }))) };
        Ok(())
    })
}

/// A copy of `matcher` at the same position with the same history (it can roll back as
/// far), sharing the automaton: a fork for beam search or parallel sampling.
///
/// # Safety
/// `matcher` null or live; `out` null or writable.
#[no_mangle]
pub unsafe extern "C" fn fstc_matcher_clone(
    matcher: *const FstcMatcher,
    out: *mut *mut FstcMatcher,
) -> FstcStatus {
    guard(|| {
        // SAFETY: per this function's contract.
        unsafe { put(out, std::ptr::null_mut(), "out") }?;
        // SAFETY: per this function's contract.
        let inner = unsafe { get(matcher, "matcher") }?.inner.fork();
        // SAFETY: checked non-null above.
        unsafe { out.write(Box::into_raw(Box::new(FstcMatcher { inner }))) };
        Ok(())
    })
}

/// Frees a matcher (null is ignored).
///
/// # Safety
/// `matcher` is null or from `fstc_matcher_new` or `fstc_matcher_clone` and not yet freed.
#[no_mangle]
pub unsafe extern "C" fn fstc_matcher_free(matcher: *mut FstcMatcher) {
    if !matcher.is_null() {
        // SAFETY: from `Box::into_raw` in `fstc_matcher_new`/`_clone`, freed once per contract.
        drop(unsafe { Box::from_raw(matcher) });
    }
}

/// Back to the start state, nothing consumed.
///
/// # Safety
/// `matcher` null or live, not used by another thread meanwhile.
#[no_mangle]
pub unsafe extern "C" fn fstc_matcher_reset(matcher: *mut FstcMatcher) -> FstcStatus {
    guard(|| {
        // SAFETY: per this function's contract.
        unsafe { get_mut(matcher, "matcher") }?.inner.reset();
        Ok(())
    })
}

/// Writes the allowed tokens into `mask` (`words` uint32 words; token t is bit t % 32 of
/// word t / 32). Every word is written; `FSTC_ERR_MASK_TOO_NARROW` if `32 * words` is below
/// the vocabulary size.
///
/// # Safety
/// `matcher` null or live; `mask` null or `words` writable words.
#[no_mangle]
pub unsafe extern "C" fn fstc_matcher_fill_mask(
    matcher: *const FstcMatcher,
    mask: *mut u32,
    words: usize,
) -> FstcStatus {
    guard(|| {
        // SAFETY: per this function's contract.
        let m = unsafe { get(matcher, "matcher") }?;
        if mask.is_null() {
            return Err(null("mask"));
        }
        // SAFETY: per this function's contract.
        let mask = unsafe { slice_mut(mask, words, "mask") }?;
        Ok(m.inner.fill_mask(mask)?)
    })
}

/// Whether `token` may come next (false for ids past the vocabulary).
///
/// # Safety
/// `matcher` null or live; `out` null or writable.
#[no_mangle]
pub unsafe extern "C" fn fstc_matcher_is_allowed(
    matcher: *const FstcMatcher,
    token: u32,
    out: *mut bool,
) -> FstcStatus {
    guard(|| {
        // SAFETY: per this function's contract.
        let m = unsafe { get(matcher, "matcher") }?;
        // SAFETY: per this function's contract.
        unsafe { put(out, m.inner.is_allowed(token), "out") }
    })
}

/// Consumes one token (EOS in an accepting state finishes the walk); on error nothing
/// changes.
///
/// # Safety
/// `matcher` null or live, not used by another thread meanwhile.
#[no_mangle]
pub unsafe extern "C" fn fstc_matcher_consume(matcher: *mut FstcMatcher, token: u32) -> FstcStatus {
    guard(|| {
        // SAFETY: per this function's contract.
        Ok(unsafe { get_mut(matcher, "matcher") }?
            .inner
            .consume(token)?)
    })
}

/// Consumes all `n` tokens or, if one is not allowed, none.
///
/// # Safety
/// `matcher` null or live and unshared; `tokens` null or `n` readable ids.
#[no_mangle]
pub unsafe extern "C" fn fstc_matcher_consume_tokens(
    matcher: *mut FstcMatcher,
    tokens: *const u32,
    n: usize,
) -> FstcStatus {
    guard(|| {
        // SAFETY: per this function's contract.
        let m = unsafe { get_mut(matcher, "matcher") }?;
        // SAFETY: per this function's contract.
        let tokens = unsafe { slice(tokens, n, "tokens") }?;
        Ok(m.inner.consume_tokens(tokens)?)
    })
}

/// `*accepted` = how many leading tokens of `tokens` would be accepted, without moving.
///
/// # Safety
/// `matcher` null or live; `tokens` null or `n` readable ids; `accepted` null or writable.
#[no_mangle]
pub unsafe extern "C" fn fstc_matcher_validate_tokens(
    matcher: *const FstcMatcher,
    tokens: *const u32,
    n: usize,
    accepted: *mut usize,
) -> FstcStatus {
    guard(|| {
        // SAFETY: per this function's contract.
        let m = unsafe { get(matcher, "matcher") }?;
        // SAFETY: per this function's contract.
        let tokens = unsafe { slice(tokens, n, "tokens") }?;
        // SAFETY: per this function's contract.
        unsafe { put(accepted, m.inner.validate_tokens(tokens), "accepted") }
    })
}

/// Undoes the last `n` consumed tokens (EOS included); on error nothing changes.
///
/// # Safety
/// `matcher` null or live, not used by another thread meanwhile.
#[no_mangle]
pub unsafe extern "C" fn fstc_matcher_rollback(matcher: *mut FstcMatcher, n: usize) -> FstcStatus {
    guard(|| {
        // SAFETY: per this function's contract.
        Ok(unsafe { get_mut(matcher, "matcher") }?.inner.rollback(n)?)
    })
}

/// Whether the current state accepts (EOS may come next, or came).
///
/// # Safety
/// `matcher` null or live; `out` null or writable.
#[no_mangle]
pub unsafe extern "C" fn fstc_matcher_is_accepting(
    matcher: *const FstcMatcher,
    out: *mut bool,
) -> FstcStatus {
    guard(|| {
        // SAFETY: per this function's contract.
        let m = unsafe { get(matcher, "matcher") }?;
        // SAFETY: per this function's contract.
        unsafe { put(out, m.inner.is_accepting(), "out") }
    })
}

/// Whether EOS has been consumed.
///
/// # Safety
/// `matcher` null or live; `out` null or writable.
#[no_mangle]
pub unsafe extern "C" fn fstc_matcher_is_finished(
    matcher: *const FstcMatcher,
    out: *mut bool,
) -> FstcStatus {
    guard(|| {
        // SAFETY: per this function's contract.
        let m = unsafe { get(matcher, "matcher") }?;
        // SAFETY: per this function's contract.
        unsafe { put(out, m.inner.is_finished(), "out") }
    })
}

/// How many tokens were consumed since the start, EOS included: how far
/// `fstc_matcher_rollback` can go.
///
/// # Safety
/// `matcher` null or live; `out` null or writable.
#[no_mangle]
pub unsafe extern "C" fn fstc_matcher_num_consumed(
    matcher: *const FstcMatcher,
    out: *mut usize,
) -> FstcStatus {
    guard(|| {
        // SAFETY: per this function's contract.
        let m = unsafe { get(matcher, "matcher") }?;
        // SAFETY: per this function's contract.
        unsafe { put(out, m.inner.num_consumed(), "out") }
    })
}

/// The tokens the constraint forces from here into `buf` (`cap` ids); `*len` gets their
/// number.
///
/// # Safety
/// `matcher` null or live; `buf` null or `cap` writable ids; `len` null or writable.
#[no_mangle]
pub unsafe extern "C" fn fstc_matcher_forced_tokens(
    matcher: *const FstcMatcher,
    buf: *mut u32,
    cap: usize,
    len: *mut usize,
) -> FstcStatus {
    guard(|| {
        // SAFETY: per this function's contract.
        let m = unsafe { get(matcher, "matcher") }?;
        // SAFETY: per this function's contract.
        unsafe { copy_out(buf, cap, len, &m.inner.forced_tokens()) }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn panics_become_a_status_and_a_message() {
        let status = guard(|| panic!("boom"));
        assert_eq!(status, FstcStatus::Panic);
        // SAFETY: fstc_last_error returns a valid C string.
        let msg = unsafe { std::ffi::CStr::from_ptr(fstc_last_error()) };
        assert!(msg.to_str().unwrap().contains("panic"));
    }
}
