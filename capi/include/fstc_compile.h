/*
 * fstc_compile.h: compiling constraints from C (fstc-capi built with `--features compile`).
 *
 * A vocabulary (from a tokenizer file, or from the bytes of each token id as a decoder has
 * them), then a regex, JSON Schema or GBNF grammar compiled over it, eagerly or (regexes,
 * JSON Schemas) lazily, into an fstc_automaton walked with the functions of fstc.h. Statuses and fstc_last_error() as in
 * fstc.h; a constraint that does not compile is FSTC_ERR_COMPILE with the compiler's message
 * (naming the construct and where it is), a vocabulary that cannot be read or is
 * inconsistent FSTC_ERR_VOCABULARY.
 *
 * A vocabulary is immutable and may be shared by threads compiling at once; automata compiled
 * from it do not need it afterwards (a lazy automaton keeps what it needs of it alive).
 */
#ifndef FSTC_COMPILE_H
#define FSTC_COMPILE_H

#include "fstc.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What fstc_compile reads the text as. */
#define FSTC_SOURCE_REGEX 0u       /* a regex (fstc's dialect, docs/regex.md) */
#define FSTC_SOURCE_JSON_SCHEMA 1u /* a JSON Schema (docs/json-schema.md) */
#define FSTC_SOURCE_GRAMMAR 2u     /* a GBNF grammar (docs/grammars.md): a token PDA */

typedef struct fstc_vocabulary fstc_vocabulary;

/* Loads a tokenizer file of any format fstc reads, told from its content: a GGUF model, a
 * Hugging Face tokenizer.json, a GPT-2 encoder.json, a tiktoken rank file, a tekken.json. */
fstc_status fstc_vocabulary_load(const char *path, fstc_vocabulary **out);
/* A vocabulary of n ids: id i stands for the lens[i] bytes at tokens[i], or is a special
 * token (no text) where tokens[i] is NULL (a non-NULL token of 0 bytes is an error). The
 * n_eos eos_ids, which must be special tokens, end generation: an automaton allows them
 * exactly where the constraint is complete. The bytes are copied. */
fstc_status fstc_vocabulary_from_tokens(const uint8_t *const *tokens, const size_t *lens,
                                        size_t n, const uint32_t *eos_ids, size_t n_eos,
                                        fstc_vocabulary **out);
/* Frees a vocabulary; NULL is ignored. */
void fstc_vocabulary_free(fstc_vocabulary *vocab);
/* The number of ids, special tokens included. */
fstc_status fstc_vocabulary_size(const fstc_vocabulary *vocab, uint32_t *out);
/* The fingerprint fstc_automaton_vocab_fingerprint gives for automata compiled over it. */
fstc_status fstc_vocabulary_fingerprint(const fstc_vocabulary *vocab, uint64_t *out);
/* The sorted EOS ids into buf (cap ids); *len gets their number. */
fstc_status fstc_vocabulary_eos_ids(const fstc_vocabulary *vocab, uint32_t *buf, size_t cap,
                                    size_t *len);

/* Compiles len bytes of UTF-8 text read as source (FSTC_SOURCE_*) over vocab, with the
 * compilers' default options (as `fstc compile` does): a JSON Schema or a grammar past the
 * default budgets (10 s, 1 GiB of automata and tables) is FSTC_ERR_COMPILE naming them. */
fstc_status fstc_compile(const fstc_vocabulary *vocab, uint32_t source, const char *text,
                         size_t len, fstc_automaton **out);

/* As fstc_compile, lazily: only the byte automaton is built here; each state's allowed tokens
 * are composed the first time a matcher reaches it (a walk of the vocabulary, tenths of a
 * millisecond to a few on 128k-152k vocabularies) and kept for every matcher and clone of
 * the automaton, on any thread. The choice for a constraint used once (a JSON Schema per
 * request): compiling plus the first mask is several times faster than fstc_compile. Same
 * language, masks and matcher functions as the eager automaton; fstc_automaton_kind gives
 * FSTC_KIND_LAZY; it has no file form. Regexes and JSON Schemas only: a grammar is
 * FSTC_ERR_INVALID_ARGUMENT (token PDAs are compiled with fstc_compile). */
fstc_status fstc_compile_lazy(const fstc_vocabulary *vocab, uint32_t source, const char *text,
                              size_t len, fstc_automaton **out);

/* As fstc_compile, or with "lazy": true as fstc_compile_lazy, with options: options_len bytes
 * of a JSON object (NULL with 0 for none) whose names and values are Python's keyword
 * arguments of the same compile (docs/python.md) and the CLI's options with '_' for '-':
 *   regex:       lazy, dialect ("regex", "ecmascript"), dfa_state_limit, token_edge_limit,
 *                image_tokens (a list of ids), time_budget (seconds), memory_budget (bytes);
 *   JSON Schema: lazy, whitespace ("flexible", "compact", "pretty"), max_whitespace, indent,
 *                escapes ("canonical", "any"), additional_properties, recursion_depth,
 *                any_json_depth, lenient, dfa_state_limit, token_edge_limit, time_budget
 *                (seconds), memory_budget (bytes), state_work_limit, ref_dir (a folder);
 *   grammar:     syntax ("gbnf", "lark", "ebnf", "paper"), node_limit, token_edge_limit,
 *                pop_limit, config_limit, require_deterministic, time_budget, memory_budget.
 * token_edge_limit and image_tokens are an eager compile's, state_work_limit a lazy one's (the
 * work of composing one state, default 2^23 steps; past it the mask or token call that needed
 * the state is FSTC_ERR_COMPOSE_LIMIT). An unknown name, a value of the wrong kind or out of
 * range, an option of the other mode, or text that is not a JSON object is
 * FSTC_ERR_INVALID_ARGUMENT naming it. */
fstc_status fstc_compile_with_options(const fstc_vocabulary *vocab, uint32_t source,
                                      const char *text, size_t len, const char *options,
                                      size_t options_len, fstc_automaton **out);

#ifdef __cplusplus
}
#endif

#endif /* FSTC_COMPILE_H */
