/*
 * fstc.h: the C ABI of fstc for decode time (crate fstc-capi).
 *
 * Load a token automaton compiled by `fstc compile` (a .fstc file's bytes: a token FSA from a
 * regex or JSON Schema, or a token PDA from a grammar), make one matcher per sequence, and at each decoding step fill a mask of allowed tokens, consume the sampled
 * token, roll back rejected draft tokens. Link libfstc_capi.a (with -lpthread -ldl -lm) or
 * libfstc_capi.so.
 *
 * Lazy automata (Python's `lazy=True`) compose each state with the vocabulary while decoding,
 * so they need the compiler: they come from fstc_compile_lazy (fstc_compile.h, feature
 * `compile`) and are walked with the same functions as a loaded file.
 *
 * Every fallible function returns an fstc_status; on failure fstc_last_error() gives a
 * message naming what is wrong. Bad input (null pointers, a corrupt file, a token out of
 * range, a mask narrower than the vocabulary, a small buffer) is a status, never a crash.
 * Out-parameters are written only on success, except: load/new/clone set *out to NULL on failure,
 * and the id-list functions set *len to the needed count on FSTC_ERR_BUFFER_TOO_SMALL.
 *
 * Threads: an automaton is immutable and may be shared by matchers on any threads; matchers
 * keep it alive, so fstc_automaton_free may come before fstc_matcher_free. A matcher is used
 * by one thread at a time.
 *
 * Masks: token t is allowed iff bit (t % 32) of mask[t / 32] is set. A mask may be wider
 * than the vocabulary; every word is written and bits past the vocabulary are 0.
 */
#ifndef FSTC_H
#define FSTC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum fstc_status {
    FSTC_OK = 0,
    FSTC_ERR_NULL_ARGUMENT = 1,    /* a required pointer was NULL */
    FSTC_ERR_INVALID_AUTOMATON = 2,/* not a valid automaton file (magic, version, checksum...) */
    FSTC_ERR_TOKEN_NOT_ALLOWED = 3,/* the token is not allowed in the current state */
    FSTC_ERR_OUT_OF_VOCABULARY = 4,/* the token id is not below the vocabulary size */
    FSTC_ERR_FINISHED = 5,         /* EOS was consumed: only rollback or reset continue */
    FSTC_ERR_MASK_TOO_NARROW = 6,  /* 32 * words < vocabulary size */
    FSTC_ERR_ROLLBACK_TOO_FAR = 7, /* fewer tokens consumed than asked to roll back */
    FSTC_ERR_BUFFER_TOO_SMALL = 8, /* *len says how many ids are needed */
    FSTC_ERR_INVALID_ARGUMENT = 9, /* e.g. a length past the address space */
    FSTC_ERR_PANIC = 10,           /* a bug in fstc, caught at the boundary */
    FSTC_ERR_STACK_LIMIT = 11,     /* a token PDA's token would push past the stack limit */
    FSTC_ERR_CONFIG_LIMIT = 12,    /* a nondeterministic token PDA's token would leave more
                                      live configurations than the matcher's limit */
    FSTC_ERR_COMPILE = 13,         /* fstc_compile.h: the constraint does not compile */
    FSTC_ERR_VOCABULARY = 14,      /* fstc_compile.h: the vocabulary cannot be read or is
                                      inconsistent */
    FSTC_ERR_COMPOSE_LIMIT = 15    /* a lazy automaton's state, composed for this mask or
                                      token, passed its work limit: nothing changed */
} fstc_status;

/* Automaton kinds (fstc_automaton_kind). */
#define FSTC_KIND_FSA 0u /* a token FSA: regexes, JSON Schemas */
#define FSTC_KIND_PDA 1u /* a token PDA: grammars (a matcher holds a stack) */
#define FSTC_KIND_LAZY 2u /* a lazy token FSA (fstc_compile_lazy): no file form */

typedef struct fstc_automaton fstc_automaton;
typedef struct fstc_matcher fstc_matcher;

/* The message of the last failed call on this thread ("" if none); valid until the next
 * failed call on this thread. */
const char *fstc_last_error(void);

/* Loads an automaton file of either kind from len bytes (copied, so the buffer may be freed
 * after; validated). */
fstc_status fstc_automaton_load(const uint8_t *bytes, size_t len, fstc_automaton **out);
/* Frees an automaton; NULL is ignored. */
void fstc_automaton_free(fstc_automaton *automaton);
/* The vocabulary size: a mask needs at least that many bits. */
fstc_status fstc_automaton_vocab_size(const fstc_automaton *automaton, uint32_t *out);
/* The sorted EOS ids into buf (cap ids); *len gets their number. buf may be NULL if cap is 0. */
fstc_status fstc_automaton_eos_ids(const fstc_automaton *automaton, uint32_t *buf, size_t cap,
                                   size_t *len);

/* *out = FSTC_KIND_FSA, FSTC_KIND_PDA or FSTC_KIND_LAZY. */
fstc_status fstc_automaton_kind(const fstc_automaton *automaton, uint32_t *out);
/* *out = the fingerprint of the vocabulary the automaton was compiled for (the ids and their
 * bytes, not the EOS ids): equal fingerprints, same tokenizer. */
fstc_status fstc_automaton_vocab_fingerprint(const fstc_automaton *automaton, uint64_t *out);

/* A matcher at the start state (a token PDA's stack holds at most 10000 symbols). */
fstc_status fstc_matcher_new(const fstc_automaton *automaton, fstc_matcher **out);
/* A matcher at the start state whose token PDA stack holds at most stack_limit symbols: a
 * token that would push past it is left out of the mask and refused with FSTC_ERR_STACK_LIMIT
 * (the limit is part of the language). An FSA has no stack; the limit does not apply. */
fstc_status fstc_matcher_new_with_stack_limit(const fstc_automaton *automaton,
                                              size_t stack_limit, fstc_matcher **out);
/* The default limits of fstc_matcher_new. */
#define FSTC_DEFAULT_STACK_LIMIT 10000
#define FSTC_DEFAULT_CONFIG_LIMIT 1024
/* A matcher at the start state with both limits: stack_limit as in
 * fstc_matcher_new_with_stack_limit, and config_limit (at least 1) the most live configurations
 * of a nondeterministic token PDA's matcher: a token that would leave more is refused with
 * FSTC_ERR_CONFIG_LIMIT (a resource limit, not part of the language: the mask does not reflect
 * it). Other automata follow one configuration; config_limit does not apply to them. */
fstc_status fstc_matcher_new_with_limits(const fstc_automaton *automaton, size_t stack_limit,
                                         size_t config_limit, fstc_matcher **out);
/* A copy of matcher at the same position with the same history (it can roll back as far),
 * sharing the automaton: fork one per beam or parallel sample; the two move independently.
 * Free it with fstc_matcher_free. */
fstc_status fstc_matcher_clone(const fstc_matcher *matcher, fstc_matcher **out);
/* Frees a matcher (from fstc_matcher_new or fstc_matcher_clone); NULL is ignored. */
void fstc_matcher_free(fstc_matcher *matcher);
/* Back to the start state with nothing consumed. */
fstc_status fstc_matcher_reset(fstc_matcher *matcher);
/* Fills mask (words uint32 words) with the tokens allowed next; EOS ids are set exactly
 * in accepting states, nothing after EOS. */
fstc_status fstc_matcher_fill_mask(const fstc_matcher *matcher, uint32_t *mask, size_t words);
/* *out = whether token may come next, as the mask says: false past the vocabulary, and false for
 * a token that would push a PDA's stack past its limit (consuming it gives FSTC_ERR_STACK_LIMIT). */
fstc_status fstc_matcher_is_allowed(const fstc_matcher *matcher, uint32_t token, bool *out);
/* Consumes one token; EOS in an accepting state finishes the walk. On error nothing changes. */
fstc_status fstc_matcher_consume(fstc_matcher *matcher, uint32_t token);
/* Consumes all n tokens, or none if one is not allowed (the message names its index). */
fstc_status fstc_matcher_consume_tokens(fstc_matcher *matcher, const uint32_t *tokens, size_t n);
/* *accepted = how many leading tokens would be accepted from here; the matcher does not move
 * (speculative decoding: check draft tokens). */
fstc_status fstc_matcher_validate_tokens(const fstc_matcher *matcher, const uint32_t *tokens,
                                         size_t n, size_t *accepted);
/* Undoes the last n consumed tokens (EOS included). On error nothing changes. */
fstc_status fstc_matcher_rollback(fstc_matcher *matcher, size_t n);
/* *out = whether the current state accepts (EOS may come next). */
fstc_status fstc_matcher_is_accepting(const fstc_matcher *matcher, bool *out);
/* *out = whether EOS has been consumed. */
fstc_status fstc_matcher_is_finished(const fstc_matcher *matcher, bool *out);
/* *out = how many tokens were consumed since the start, EOS included (how far rollback can
 * go). */
fstc_status fstc_matcher_num_consumed(const fstc_matcher *matcher, size_t *out);
/* The tokens the constraint forces from here (jump-forward) into buf (cap ids); *len gets
 * their number. buf may be NULL if cap is 0. */
fstc_status fstc_matcher_forced_tokens(const fstc_matcher *matcher, uint32_t *buf, size_t cap,
                                       size_t *len);

#ifdef __cplusplus
}
#endif

#endif /* FSTC_H */
