/*
 * fstc_llama.h: an fstc constraint as a llama.cpp sampler (struct llama_sampler_i).
 *
 * Compile fstc_llama.c with llama.cpp's include folder and capi/include, and link libllama
 * and libfstc_capi built with `--features compile` (docs/servers.md, llama.cpp). Put the
 * sampler first in the sampler chain, before top-k/top-p and the final dist or greedy
 * sampler: it sets the logit of every token the constraint does not allow next to -INFINITY,
 * and a sampler that ran before it may have kept only disallowed tokens.
 *
 * The vocabulary is llama.cpp's own: each id's bytes are what llama_token_to_piece gives
 * (special = false; a token with no text is special) and the EOS ids are those of
 * llama_vocab_is_eog, allowed exactly where the constraint is complete. accept() consumes
 * the sampled token (llama_sampler_sample calls it); a token the constraint refuses (a caller
 * that accepted a token the sampler did not allow) is recorded (fstc_llama_sampler_error)
 * and from then on only EOS ids are allowed, so generation ends; so it does after EOS.
 * reset() goes back to the start, clone() forks the position (beam search), free() frees.
 */
#ifndef FSTC_LLAMA_H
#define FSTC_LLAMA_H

#include "fstc_compile.h"
#include "llama.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A sampler constraining generation to text (len bytes, UTF-8) read as source:
 * FSTC_SOURCE_REGEX, FSTC_SOURCE_JSON_SCHEMA or FSTC_SOURCE_GRAMMAR (GBNF), compiled over
 * the model's vocabulary: regexes and JSON Schemas lazily (fstc_compile_lazy: each state's
 * tokens composed when generation first reaches it, the choice for a constraint per request),
 * grammars eagerly. For an eager regex or schema, compile with fstc_compile over
 * fstc_llama_vocabulary and use fstc_llama_sampler_init_automaton. NULL on failure:
 * fstc_llama_last_error() says why. */
struct llama_sampler *fstc_llama_sampler_init(const struct llama_vocab *vocab, uint32_t source,
                                              const char *text, size_t len);

/* As fstc_llama_sampler_init, over fv = fstc_llama_vocabulary(vocab) made once (the caller
 * keeps it, and frees it after the samplers are made): reading the vocabulary from llama.cpp
 * costs tens of milliseconds on 49k tokens, a lazy compile of a JSON Schema well under one, so a
 * server compiling a constraint per request makes fv once. Checked as
 * fstc_llama_sampler_init_automaton checks (vocabulary size and EOS ids). */
struct llama_sampler *fstc_llama_sampler_init_vocabulary(const struct llama_vocab *vocab,
                                                         const fstc_vocabulary *fv,
                                                         uint32_t source, const char *text,
                                                         size_t len);

/* A sampler walking an automaton file written by `fstc compile ... --vocab MODEL.gguf`.
 * The file must be compiled for this vocabulary (same ids, same bytes per id, same EOS
 * ids), else NULL with a message saying which differs. */
struct llama_sampler *fstc_llama_sampler_init_file(const struct llama_vocab *vocab,
                                                   const char *path);

/* A sampler walking an automaton compiled (eagerly or lazily) over fstc_llama_vocabulary(vocab)
 * (checked: vocabulary size and EOS ids; the sampler shares the automaton, which the caller
 * may free after). */
struct llama_sampler *fstc_llama_sampler_init_automaton(const struct llama_vocab *vocab,
                                                        const fstc_automaton *automaton);

/* The model's vocabulary as fstc sees it (see above), to compile several constraints
 * with fstc_compile and pass each to fstc_llama_sampler_init_automaton. On failure
 * fstc_llama_last_error() says why. */
fstc_status fstc_llama_vocabulary(const struct llama_vocab *vocab, fstc_vocabulary **out);

/* Why the last fstc_llama_sampler_init* on this thread returned NULL ("" if none). */
const char *fstc_llama_last_error(void);

/* NULL while the walk is well; after accept() was given a token the constraint refused,
 * the message (valid until reset or free). NULL too for a sampler that is not fstc's. */
const char *fstc_llama_sampler_error(const struct llama_sampler *smpl);

#ifdef __cplusplus
}
#endif

#endif /* FSTC_LLAMA_H */
