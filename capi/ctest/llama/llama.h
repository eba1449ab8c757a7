/*
 * A stand-in for llama.cpp's llama.h, written for fstc's C test of capi/llama/fstc_llama.c:
 * only the sampler types and the vocabulary functions the sampler calls, with the names and
 * signatures of llama.cpp's public C API, so that the sampler compiles and runs in CI without
 * llama.cpp. test_fstc_llama.c implements the functions over a small vocabulary of its own.
 * Also the two chain calls of README.md's sampler example, which build.rs compiles (only).
 * The real header has more fields after `free` in struct llama_sampler_i; the sampler's
 * designated initializer leaves them NULL either way. python/tests/test_llama_sampler.py
 * runs the same sampler against llama.cpp itself (llama-cpp-python).
 */
#ifndef FSTC_TEST_LLAMA_H
#define FSTC_TEST_LLAMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef int32_t llama_token;
struct llama_vocab;

typedef struct llama_token_data {
    llama_token id;
    float logit;
    float p;
} llama_token_data;

typedef struct llama_token_data_array {
    llama_token_data *data;
    size_t size;
    int64_t selected;
    bool sorted;
} llama_token_data_array;

typedef void *llama_sampler_context_t;
struct llama_sampler;

struct llama_sampler_i {
    const char *(*name)(const struct llama_sampler *smpl);
    void (*accept)(struct llama_sampler *smpl, llama_token token);
    void (*apply)(struct llama_sampler *smpl, llama_token_data_array *cur_p);
    void (*reset)(struct llama_sampler *smpl);
    struct llama_sampler *(*clone)(const struct llama_sampler *smpl);
    void (*free)(struct llama_sampler *smpl);
};

struct llama_sampler {
    struct llama_sampler_i *iface;
    llama_sampler_context_t ctx;
};

struct llama_sampler *llama_sampler_init(struct llama_sampler_i *iface, llama_sampler_context_t ctx);
void llama_sampler_free(struct llama_sampler *smpl);
void llama_sampler_chain_add(struct llama_sampler *chain, struct llama_sampler *smpl);
struct llama_sampler *llama_sampler_init_greedy(void);
int32_t llama_vocab_n_tokens(const struct llama_vocab *vocab);
bool llama_vocab_is_eog(const struct llama_vocab *vocab, llama_token token);
int32_t llama_token_to_piece(const struct llama_vocab *vocab, llama_token token, char *buf,
                             int32_t length, int32_t lstrip, bool special);

#endif
