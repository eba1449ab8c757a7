/* fstc_llama.c: an fstc matcher behind llama.cpp's sampler interface (see fstc_llama.h). */
#include "fstc_llama.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static _Thread_local char last_error[1024];

/* Records why an init failed; printf-style. */
static void set_error(const char *format, ...) {
    va_list args;
    va_start(args, format);
    vsnprintf(last_error, sizeof last_error, format, args);
    va_end(args);
}

/* Puts "prefix: " before the recorded error. */
static void prefix_error(const char *prefix) {
    char copy[sizeof last_error];
    memcpy(copy, last_error, sizeof copy);
    set_error("%s: %s", prefix, copy);
}

const char *fstc_llama_last_error(void) { return last_error; }

/* One sequence's walk. */
struct fstc_llama {
    fstc_matcher *matcher;
    uint32_t n_vocab; /* the automaton's vocabulary size */
    uint32_t *mask;
    size_t words;
    uint32_t *eos; /* sorted */
    size_t n_eos;
    char *error; /* set when accept() was refused */
};

/* A malloc'd copy of text (strdup is POSIX, not C11). */
static char *copy_text(const char *text) {
    size_t size = strlen(text) + 1;
    char *copy = malloc(size);
    if (copy) memcpy(copy, text, size);
    return copy;
}

static void ctx_free(struct fstc_llama *ctx) {
    if (!ctx) return;
    fstc_matcher_free(ctx->matcher);
    free(ctx->mask);
    free(ctx->eos);
    free(ctx->error);
    free(ctx);
}

/* A context around matcher (taken over), with room for masks of n_vocab tokens. */
static struct fstc_llama *ctx_new(fstc_matcher *matcher, uint32_t n_vocab, const uint32_t *eos,
                                  size_t n_eos) {
    struct fstc_llama *ctx = calloc(1, sizeof *ctx);
    if (!ctx) {
        fstc_matcher_free(matcher);
        return NULL;
    }
    ctx->matcher = matcher;
    ctx->n_vocab = n_vocab;
    ctx->words = ((size_t)n_vocab + 31) / 32;
    ctx->mask = calloc(ctx->words ? ctx->words : 1, sizeof *ctx->mask);
    ctx->eos = malloc((n_eos ? n_eos : 1) * sizeof *ctx->eos);
    if (!ctx->mask || !ctx->eos) {
        ctx_free(ctx);
        return NULL;
    }
    if (n_eos) memcpy(ctx->eos, eos, n_eos * sizeof *eos);
    ctx->n_eos = n_eos;
    return ctx;
}

static const char *fstc_name(const struct llama_sampler *smpl) {
    (void)smpl;
    return "fstc";
}

/* The mask for the next token: the matcher's, or only the EOS ids once the walk ended
 * (EOS consumed) or broke (a refused token). */
static void next_mask(struct fstc_llama *ctx) {
    bool finished = false;
    if (!ctx->error) fstc_matcher_is_finished(ctx->matcher, &finished);
    if (!ctx->error && !finished &&
        fstc_matcher_fill_mask(ctx->matcher, ctx->mask, ctx->words) == FSTC_OK)
        return;
    memset(ctx->mask, 0, ctx->words * sizeof *ctx->mask);
    for (size_t i = 0; i < ctx->n_eos; i++) ctx->mask[ctx->eos[i] / 32] |= 1u << (ctx->eos[i] % 32);
}

static void fstc_apply(struct llama_sampler *smpl, llama_token_data_array *cur_p) {
    struct fstc_llama *ctx = smpl->ctx;
    next_mask(ctx);
    bool changed = false;
    for (size_t i = 0; i < cur_p->size; i++) {
        llama_token id = cur_p->data[i].id;
        bool allowed = id >= 0 && (uint32_t)id < ctx->n_vocab &&
                       (ctx->mask[(uint32_t)id / 32] >> ((uint32_t)id % 32) & 1u);
        if (!allowed && cur_p->data[i].logit != -INFINITY) {
            cur_p->data[i].logit = -INFINITY;
            changed = true;
        }
    }
    /* Logits set to -inf may break a descending order; the samplers after re-sort. */
    if (changed) cur_p->sorted = false;
}

static void fstc_accept(struct llama_sampler *smpl, llama_token token) {
    struct fstc_llama *ctx = smpl->ctx;
    bool finished = false;
    fstc_matcher_is_finished(ctx->matcher, &finished);
    if (ctx->error || finished) return; /* tokens after EOS change nothing */
    fstc_status status = token < 0 ? FSTC_ERR_OUT_OF_VOCABULARY
                                   : fstc_matcher_consume(ctx->matcher, (uint32_t)token);
    if (status == FSTC_OK) return;
    const char *why = token < 0 ? "a negative id" : fstc_last_error();
    size_t size = strlen(why) + 64;
    ctx->error = malloc(size);
    if (ctx->error) snprintf(ctx->error, size, "token %d refused: %s", (int)token, why);
}

static void fstc_reset(struct llama_sampler *smpl) {
    struct fstc_llama *ctx = smpl->ctx;
    fstc_matcher_reset(ctx->matcher);
    free(ctx->error);
    ctx->error = NULL;
}

static struct llama_sampler *fstc_clone(const struct llama_sampler *smpl);

static void fstc_free(struct llama_sampler *smpl) { ctx_free(smpl->ctx); }

static struct llama_sampler_i fstc_iface = {
    .name = fstc_name,
    .accept = fstc_accept,
    .apply = fstc_apply,
    .reset = fstc_reset,
    .clone = fstc_clone,
    .free = fstc_free,
};

static struct llama_sampler *fstc_clone(const struct llama_sampler *smpl) {
    const struct fstc_llama *ctx = smpl->ctx;
    fstc_matcher *matcher;
    if (fstc_matcher_clone(ctx->matcher, &matcher) != FSTC_OK) return NULL;
    struct fstc_llama *copy = ctx_new(matcher, ctx->n_vocab, ctx->eos, ctx->n_eos);
    if (!copy) return NULL;
    if (ctx->error && !(copy->error = copy_text(ctx->error))) {
        ctx_free(copy);
        return NULL;
    }
    return llama_sampler_init(&fstc_iface, copy);
}

const char *fstc_llama_sampler_error(const struct llama_sampler *smpl) {
    if (!smpl || smpl->iface != &fstc_iface) return NULL;
    return ((const struct fstc_llama *)smpl->ctx)->error;
}

/* The EOG ids of vocab, sorted, in a new array (*n of them); NULL only if out of memory. */
static uint32_t *eog_ids(const struct llama_vocab *vocab, size_t *n) {
    int32_t n_tokens = llama_vocab_n_tokens(vocab);
    uint32_t *ids = malloc(sizeof *ids * (size_t)(n_tokens > 0 ? n_tokens : 1));
    *n = 0;
    if (!ids) return NULL;
    for (int32_t id = 0; id < n_tokens; id++)
        if (llama_vocab_is_eog(vocab, id)) ids[(*n)++] = (uint32_t)id;
    return ids;
}

/* Reads every id's piece into one buffer: *text, with offsets off[id]..off[id + 1]. */
static bool read_pieces(const struct llama_vocab *vocab, int32_t n, char **text, size_t *off) {
    size_t cap = 1 << 16, used = 0;
    char *buf = malloc(cap);
    if (!buf) return false;
    for (int32_t id = 0; id < n; id++) {
        off[id] = used;
        for (;;) {
            size_t room = cap - used > INT32_MAX ? INT32_MAX : cap - used;
            int32_t got = llama_token_to_piece(vocab, id, buf + used, (int32_t)room, 0, false);
            if (got >= 0) {
                used += (size_t)got;
                break;
            }
            char *bigger = realloc(buf, cap * 2 + (size_t)-got);
            if (!bigger) {
                free(buf);
                return false;
            }
            buf = bigger;
            cap = cap * 2 + (size_t)-got;
        }
    }
    off[n] = used;
    *text = buf;
    return true;
}

fstc_status fstc_llama_vocabulary(const struct llama_vocab *vocab, fstc_vocabulary **out) {
    if (!vocab || !out) {
        set_error("vocab or out is a null pointer");
        return FSTC_ERR_NULL_ARGUMENT;
    }
    int32_t n = llama_vocab_n_tokens(vocab);
    if (n < 0) {
        set_error("llama_vocab_n_tokens gave %d", (int)n);
        return FSTC_ERR_INVALID_ARGUMENT;
    }
    size_t *off = malloc(sizeof *off * ((size_t)n + 1));
    const uint8_t **tokens = malloc(sizeof *tokens * ((size_t)n + 1));
    size_t *lens = malloc(sizeof *lens * ((size_t)n + 1));
    char *text = NULL;
    size_t n_eos = 0;
    uint32_t *eos = eog_ids(vocab, &n_eos);
    fstc_status status = FSTC_ERR_INVALID_ARGUMENT;
    if (off && tokens && lens && eos && read_pieces(vocab, n, &text, off)) {
        for (int32_t id = 0; id < n; id++) {
            lens[id] = off[id + 1] - off[id];
            tokens[id] = lens[id] ? (const uint8_t *)text + off[id] : NULL;
        }
        status = fstc_vocabulary_from_tokens(tokens, lens, (size_t)n, eos, n_eos, out);
        if (status != FSTC_OK) set_error("%s", fstc_last_error());
    } else {
        set_error("out of memory reading the vocabulary");
    }
    free(off);
    free(tokens);
    free(lens);
    free(text);
    free(eos);
    return status;
}

/* The sampler over automaton, after checking that it was compiled for vocab's size and EOG
 * ids (and, if fingerprint is not NULL, for its bytes). */
static struct llama_sampler *init_checked(const struct llama_vocab *vocab,
                                          const fstc_automaton *automaton,
                                          const uint64_t *fingerprint) {
    uint32_t n_vocab = 0;
    uint64_t theirs = 0;
    fstc_automaton_vocab_size(automaton, &n_vocab);
    fstc_automaton_vocab_fingerprint(automaton, &theirs);
    if ((int64_t)n_vocab != llama_vocab_n_tokens(vocab)) {
        set_error("the automaton is for a vocabulary of %u tokens, the model's has %d", n_vocab,
                  (int)llama_vocab_n_tokens(vocab));
        return NULL;
    }
    if (fingerprint && *fingerprint != theirs) {
        set_error("the automaton was compiled for another vocabulary: same size, other token "
                  "bytes (fingerprint %016llx, the model's %016llx)",
                  (unsigned long long)theirs, (unsigned long long)*fingerprint);
        return NULL;
    }
    size_t n_eos = 0, n_eog = 0;
    fstc_automaton_eos_ids(automaton, NULL, 0, &n_eos);
    uint32_t *eos = malloc(sizeof *eos * (n_eos ? n_eos : 1));
    uint32_t *eog = eog_ids(vocab, &n_eog);
    fstc_matcher *matcher = NULL;
    struct fstc_llama *ctx = NULL;
    if (!eos || !eog || fstc_automaton_eos_ids(automaton, eos, n_eos, &n_eos) != FSTC_OK) {
        set_error("out of memory");
    } else if (n_eos != n_eog || memcmp(eos, eog, n_eos * sizeof *eos) != 0) {
        set_error("the automaton's EOS ids (%zu, the first %u) are not the model's end-of-"
                  "generation ids (%zu, the first %u)", n_eos, n_eos ? eos[0] : 0u, n_eog,
                  n_eog ? eog[0] : 0u);
    } else if (fstc_matcher_new(automaton, &matcher) != FSTC_OK) {
        set_error("%s", fstc_last_error());
    } else if (!(ctx = ctx_new(matcher, n_vocab, eos, n_eos))) {
        set_error("out of memory");
    }
    free(eos);
    free(eog);
    return ctx ? llama_sampler_init(&fstc_iface, ctx) : NULL;
}

struct llama_sampler *fstc_llama_sampler_init_automaton(const struct llama_vocab *vocab,
                                                        const fstc_automaton *automaton) {
    if (!vocab || !automaton) {
        set_error("vocab or automaton is a null pointer");
        return NULL;
    }
    return init_checked(vocab, automaton, NULL);
}

/* The constraint compiled over fv (lazily but for grammars) into a sampler for vocab. */
static struct llama_sampler *compile_sampler(const struct llama_vocab *vocab,
                                             const fstc_vocabulary *fv, uint32_t source,
                                             const char *text, size_t len) {
    fstc_automaton *automaton = NULL;
    struct llama_sampler *smpl = NULL;
    if ((source == FSTC_SOURCE_GRAMMAR ? fstc_compile : fstc_compile_lazy)(fv, source, text, len,
                                                                          &automaton) != FSTC_OK) {
        set_error("%s", fstc_last_error());
    } else {
        smpl = init_checked(vocab, automaton, NULL);
    }
    fstc_automaton_free(automaton);
    return smpl;
}

struct llama_sampler *fstc_llama_sampler_init(const struct llama_vocab *vocab, uint32_t source,
                                              const char *text, size_t len) {
    fstc_vocabulary *fv = NULL;
    struct llama_sampler *smpl = NULL;
    if (!vocab) {
        set_error("vocab is a null pointer");
    } else if (fstc_llama_vocabulary(vocab, &fv) != FSTC_OK) {
        prefix_error("the model's vocabulary");
    } else {
        smpl = compile_sampler(vocab, fv, source, text, len);
    }
    fstc_vocabulary_free(fv);
    return smpl;
}

struct llama_sampler *fstc_llama_sampler_init_vocabulary(const struct llama_vocab *vocab,
                                                         const fstc_vocabulary *fv,
                                                         uint32_t source, const char *text,
                                                         size_t len) {
    if (!vocab || !fv) {
        set_error("vocab or fv is a null pointer");
        return NULL;
    }
    return compile_sampler(vocab, fv, source, text, len);
}

/* The whole file at path, or NULL (with the error set). */
static uint8_t *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        set_error("cannot open %s", path);
        return NULL;
    }
    size_t cap = 1 << 20, used = 0;
    uint8_t *buf = malloc(cap);
    while (buf) {
        used += fread(buf + used, 1, cap - used, f);
        if (used < cap) break;
        uint8_t *bigger = realloc(buf, cap * 2);
        if (!bigger) free(buf);
        buf = bigger;
        cap *= 2;
    }
    bool failed = ferror(f);
    fclose(f);
    if (!buf || failed) {
        set_error(buf ? "cannot read %s" : "out of memory reading %s", path);
        free(buf);
        return NULL;
    }
    *len = used;
    return buf;
}

struct llama_sampler *fstc_llama_sampler_init_file(const struct llama_vocab *vocab,
                                                   const char *path) {
    if (!vocab || !path) {
        set_error("vocab or path is a null pointer");
        return NULL;
    }
    size_t len = 0;
    uint8_t *bytes = read_file(path, &len);
    if (!bytes) return NULL;
    fstc_automaton *automaton = NULL;
    fstc_vocabulary *fv = NULL;
    uint64_t fingerprint = 0;
    struct llama_sampler *smpl = NULL;
    if (fstc_automaton_load(bytes, len, &automaton) != FSTC_OK) {
        set_error("%s: %s", path, fstc_last_error());
    } else if (fstc_llama_vocabulary(vocab, &fv) != FSTC_OK) {
        prefix_error("the model's vocabulary");
    } else if (fstc_vocabulary_fingerprint(fv, &fingerprint) != FSTC_OK) {
        set_error("%s", fstc_last_error());
    } else if (!(smpl = init_checked(vocab, automaton, &fingerprint))) {
        prefix_error(path);
    }
    free(bytes);
    fstc_automaton_free(automaton);
    fstc_vocabulary_free(fv);
    return smpl;
}
