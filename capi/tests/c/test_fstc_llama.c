/* test_fstc_llama.c: capi/llama/fstc_llama.c driven as llama.cpp drives a sampler (apply on the
 * candidate array, accept the sampled token, clone, reset, free), over a small vocabulary
 * served by the stand-in llama.h functions below. Every applied mask is compared with an fstc
 * matcher of the same constraint walked alongside; and fstc_compile.h's functions, bad input
 * included. Usage: test SAME.fstc OTHER_BYTES.fstc OTHER_SIZE.fstc TOKENIZER: "(ab|b)+c"
 * compiled by capi/ctest/tests/c_abi.rs over this vocabulary, over one of the same size with
 * other bytes, and over a smaller one; a tokenizer file. */
#include "fstc_llama.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The vocabulary: id 0 is EOS (special, end of generation), id 1 BOS (special, not an end),
 * id 13 a piece longer than the sampler's first buffer. */
static const char *const PIECES[] = {NULL, NULL, "a", "b", "ab", "ba", "c", "{", "}", "\"",
                                     "1", "12", " "};
#define N_SHORT ((int32_t)(sizeof PIECES / sizeof PIECES[0]))
#define N_TOKENS (N_SHORT + 1)
#define LONG_LEN 70000

int32_t llama_vocab_n_tokens(const struct llama_vocab *vocab) {
    (void)vocab;
    return N_TOKENS;
}

bool llama_vocab_is_eog(const struct llama_vocab *vocab, llama_token token) {
    (void)vocab;
    return token == 0;
}

int32_t llama_token_to_piece(const struct llama_vocab *vocab, llama_token token, char *buf,
                             int32_t length, int32_t lstrip, bool special) {
    (void)vocab;
    (void)lstrip;
    (void)special;
    int32_t n = token == N_SHORT ? LONG_LEN : PIECES[token] ? (int32_t)strlen(PIECES[token]) : 0;
    if (n > length) return -n;
    if (token == N_SHORT) memset(buf, 'z', LONG_LEN);
    else if (n) memcpy(buf, PIECES[token], (size_t)n);
    return n;
}

struct llama_sampler *llama_sampler_init(struct llama_sampler_i *iface, llama_sampler_context_t ctx) {
    struct llama_sampler *smpl = malloc(sizeof *smpl);
    if (!smpl) abort();
    smpl->iface = iface;
    smpl->ctx = ctx;
    return smpl;
}

void llama_sampler_free(struct llama_sampler *smpl) {
    if (!smpl) return;
    if (smpl->iface->free) smpl->iface->free(smpl);
    free(smpl);
}

static int failures = 0;
#define CHECK(cond, ...)                                                    \
    do {                                                                    \
        if (!(cond)) {                                                      \
            failures++;                                                     \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                   \
            fprintf(stderr, "\n");                                          \
        }                                                                   \
    } while (0)

static const struct llama_vocab *const VOCAB = (const struct llama_vocab *)&failures;

/* Applies smpl to every token (logit 0) plus two ids no vocabulary has; writes which stay
 * finite to allowed[] and returns the array's sorted flag after. */
static bool apply_all(struct llama_sampler *smpl, bool allowed[N_TOKENS]) {
    llama_token_data data[N_TOKENS + 2];
    for (int32_t i = 0; i < N_TOKENS; i++) data[i] = (llama_token_data){i, 0.0f, 0.0f};
    data[N_TOKENS] = (llama_token_data){N_TOKENS, 0.0f, 0.0f};
    data[N_TOKENS + 1] = (llama_token_data){-1, 0.0f, 0.0f};
    llama_token_data_array cur = {data, N_TOKENS + 2, -1, true};
    smpl->iface->apply(smpl, &cur);
    CHECK(cur.size == N_TOKENS + 2 && cur.data == data, "apply keeps the candidates");
    CHECK(data[N_TOKENS].logit == -INFINITY && data[N_TOKENS + 1].logit == -INFINITY,
          "ids outside the vocabulary are never allowed");
    for (int32_t i = 0; i < N_TOKENS; i++) allowed[i] = data[i].logit != -INFINITY;
    return cur.sorted;
}

/* Checks that smpl allows exactly what matcher's mask allows. */
static void same_as(struct llama_sampler *smpl, const fstc_matcher *matcher, const char *where) {
    uint32_t mask[(N_TOKENS + 31) / 32];
    CHECK(fstc_matcher_fill_mask(matcher, mask, sizeof mask / sizeof mask[0]) == FSTC_OK, "%s",
          where);
    bool allowed[N_TOKENS];
    apply_all(smpl, allowed);
    for (int32_t t = 0; t < N_TOKENS; t++)
        CHECK(allowed[t] == (bool)(mask[t / 32] >> (t % 32) & 1u), "%s: token %d", where, (int)t);
}

static int count(const bool allowed[N_TOKENS]) {
    int n = 0;
    for (int32_t t = 0; t < N_TOKENS; t++) n += allowed[t];
    return n;
}

/* A walk of "(ab|b)+c" through llama.cpp's calls, beside a matcher of the same automaton. */
static void walk_regex(void) {
    static const char REGEX[] = "(ab|b)+c";
    fstc_vocabulary *fv;
    CHECK(fstc_llama_vocabulary(VOCAB, &fv) == FSTC_OK, "%s", fstc_llama_last_error());
    uint32_t size = 0, eos[4];
    size_t n_eos = 0;
    fstc_vocabulary_size(fv, &size);
    fstc_vocabulary_eos_ids(fv, eos, 4, &n_eos);
    CHECK(size == N_TOKENS && n_eos == 1 && eos[0] == 0, "size %u, %zu EOS", size, n_eos);
    fstc_automaton *automaton;
    CHECK(fstc_compile(fv, FSTC_SOURCE_REGEX, REGEX, strlen(REGEX), &automaton) == FSTC_OK, "%s",
          fstc_last_error());
    fstc_matcher *oracle;
    fstc_matcher_new(automaton, &oracle);

    struct llama_sampler *smpl = fstc_llama_sampler_init(VOCAB, FSTC_SOURCE_REGEX, REGEX, strlen(REGEX));
    CHECK(smpl != NULL, "%s", fstc_llama_last_error());
    if (!smpl) return;
    CHECK(strcmp(smpl->iface->name(smpl), "fstc") == 0, "name");
    bool allowed[N_TOKENS];
    CHECK(!apply_all(smpl, allowed), "masking clears the sorted flag");
    CHECK(allowed[2] && allowed[3] && allowed[4] && allowed[5] && !allowed[6] && !allowed[0] &&
              !allowed[1] && !allowed[N_SHORT],
          "first token: a, b, ab, ba; not c, EOS, BOS, the long piece");
    same_as(smpl, oracle, "start");

    /* "ab" "b": then c or more; a clone forks here. */
    const llama_token walk[] = {4, 3};
    for (size_t i = 0; i < 2; i++) {
        smpl->iface->accept(smpl, walk[i]);
        fstc_matcher_consume(oracle, (uint32_t)walk[i]);
        same_as(smpl, oracle, "after ab, b");
    }
    CHECK(fstc_llama_sampler_error(smpl) == NULL, "no error on allowed tokens");
    struct llama_sampler *fork = smpl->iface->clone(smpl);
    CHECK(fork != NULL && fork != smpl, "clone");
    smpl->iface->accept(smpl, 6);
    fstc_matcher_consume(oracle, 6);
    apply_all(smpl, allowed);
    CHECK(count(allowed) == 1 && allowed[0], "after c only EOS");
    apply_all(fork, allowed);
    CHECK(allowed[6] && !allowed[0], "the clone stayed before c");
    smpl->iface->accept(smpl, 0);
    apply_all(smpl, allowed);
    CHECK(count(allowed) == 1 && allowed[0], "after EOS only EOS");
    smpl->iface->accept(smpl, 3); /* after EOS: ignored */
    CHECK(fstc_llama_sampler_error(smpl) == NULL, "tokens after EOS are ignored");

    smpl->iface->reset(smpl);
    fstc_matcher_reset(oracle);
    same_as(smpl, oracle, "after reset");

    /* A refused token: recorded, then only EOS; reset clears it. */
    smpl->iface->accept(smpl, 7);
    const char *error = fstc_llama_sampler_error(smpl);
    CHECK(error && strstr(error, "token 7 refused"), "refused: %s", error ? error : "(none)");
    apply_all(smpl, allowed);
    CHECK(count(allowed) == 1 && allowed[0], "after a refused token only EOS");
    struct llama_sampler *broken = smpl->iface->clone(smpl);
    CHECK(fstc_llama_sampler_error(broken) && strcmp(fstc_llama_sampler_error(broken), error) == 0,
          "a clone keeps the error");
    smpl->iface->reset(smpl);
    CHECK(fstc_llama_sampler_error(smpl) == NULL, "reset clears the error");
    CHECK(fstc_llama_sampler_error(fork) == NULL, "a sampler is not another's");

    /* The same automaton given directly. */
    struct llama_sampler *direct = fstc_llama_sampler_init_automaton(VOCAB, automaton);
    CHECK(direct != NULL, "%s", fstc_llama_last_error());
    fstc_matcher_reset(oracle);
    if (direct) same_as(direct, oracle, "init_automaton");

    /* A lazy automaton given directly (the sampler from text is lazy too, above). */
    fstc_automaton *lazy = NULL;
    CHECK(fstc_compile_lazy(fv, FSTC_SOURCE_REGEX, REGEX, strlen(REGEX), &lazy) == FSTC_OK, "%s",
          fstc_last_error());
    struct llama_sampler *from_lazy = fstc_llama_sampler_init_automaton(VOCAB, lazy);
    fstc_automaton_free(lazy); /* the sampler keeps it */
    CHECK(from_lazy != NULL, "%s", fstc_llama_last_error());
    if (from_lazy) {
        same_as(from_lazy, oracle, "lazy init_automaton");
        from_lazy->iface->accept(from_lazy, 3);
        fstc_matcher_consume(oracle, 3);
        same_as(from_lazy, oracle, "lazy init_automaton after b");
    }

    /* From text over a vocabulary made once. */
    struct llama_sampler *shared =
        fstc_llama_sampler_init_vocabulary(VOCAB, fv, FSTC_SOURCE_REGEX, REGEX, strlen(REGEX));
    CHECK(shared != NULL, "%s", fstc_llama_last_error());
    fstc_matcher_reset(oracle);
    if (shared) same_as(shared, oracle, "init_vocabulary");
    CHECK(fstc_llama_sampler_init_vocabulary(VOCAB, NULL, FSTC_SOURCE_REGEX, "a", 1) == NULL &&
              strstr(fstc_llama_last_error(), "null pointer"),
          "no fstc vocabulary: %s", fstc_llama_last_error());

    llama_sampler_free(shared);
    llama_sampler_free(from_lazy);
    llama_sampler_free(direct);
    llama_sampler_free(broken);
    llama_sampler_free(fork);
    llama_sampler_free(smpl);
    fstc_matcher_free(oracle);
    fstc_automaton_free(automaton);
    fstc_vocabulary_free(fv);
}

/* A grammar (a token PDA) and a JSON Schema compile through the same entry point. */
static void other_sources(void) {
    static const char GRAMMAR[] = "root ::= \"{\" root? \"}\"";
    struct llama_sampler *smpl = fstc_llama_sampler_init(VOCAB, FSTC_SOURCE_GRAMMAR, GRAMMAR, strlen(GRAMMAR));
    CHECK(smpl != NULL, "%s", fstc_llama_last_error());
    if (smpl) {
        bool allowed[N_TOKENS];
        const llama_token walk[] = {7, 7, 8};
        for (size_t i = 0; i < 3; i++) smpl->iface->accept(smpl, walk[i]);
        apply_all(smpl, allowed);
        CHECK(count(allowed) == 1 && allowed[8], "{{} needs one more }");
        CHECK(fstc_llama_sampler_error(smpl) == NULL, "nested braces accepted");
        llama_sampler_free(smpl);
    }
    static const char SCHEMA[] = "{\"type\": \"integer\", \"minimum\": 1, \"maximum\": 12}";
    smpl = fstc_llama_sampler_init(VOCAB, FSTC_SOURCE_JSON_SCHEMA, SCHEMA, strlen(SCHEMA));
    CHECK(smpl != NULL, "%s", fstc_llama_last_error());
    if (smpl) {
        bool allowed[N_TOKENS];
        smpl->iface->accept(smpl, 11); /* "12" */
        apply_all(smpl, allowed);
        CHECK(allowed[0] && !allowed[10] && !allowed[11], "12 is complete and nothing extends it");
        llama_sampler_free(smpl);
    }
}

/* A file compiled ahead for this vocabulary walks as the compile from text does. */
static void from_file(const char *same) {
    struct llama_sampler *smpl = fstc_llama_sampler_init_file(VOCAB, same);
    struct llama_sampler *text = fstc_llama_sampler_init(VOCAB, FSTC_SOURCE_REGEX, "(ab|b)+c", 8);
    CHECK(smpl != NULL && text != NULL, "%s", fstc_llama_last_error());
    if (!smpl || !text) return;
    const llama_token walk[] = {3, 4, 6, 0};
    for (size_t i = 0; i < 4; i++) {
        bool a[N_TOKENS], b[N_TOKENS];
        apply_all(smpl, a);
        apply_all(text, b);
        CHECK(memcmp(a, b, sizeof a) == 0 && a[walk[i]], "step %zu", i);
        smpl->iface->accept(smpl, walk[i]);
        text->iface->accept(text, walk[i]);
    }
    CHECK(fstc_llama_sampler_error(smpl) == NULL, "b ab c EOS accepted");
    llama_sampler_free(smpl);
    llama_sampler_free(text);
}

/* What init refuses, each with a message. */
static void refusals(const char *other_bytes, const char *other_size) {
    CHECK(fstc_llama_sampler_init(VOCAB, FSTC_SOURCE_REGEX, "(a", 2) == NULL &&
              strlen(fstc_llama_last_error()) > 0,
          "a bad regex");
    CHECK(fstc_llama_sampler_init(VOCAB, FSTC_SOURCE_JSON_SCHEMA, "{\"type\": 3}", 11) == NULL &&
              strlen(fstc_llama_last_error()) > 0,
          "a bad schema");
    CHECK(fstc_llama_sampler_init(VOCAB, 9, "a", 1) == NULL &&
              strstr(fstc_llama_last_error(), "FSTC_SOURCE_REGEX"),
          "an unknown source: %s", fstc_llama_last_error());
    CHECK(fstc_llama_sampler_init(NULL, FSTC_SOURCE_REGEX, "a", 1) == NULL, "no vocabulary");
    CHECK(fstc_llama_sampler_init_file(VOCAB, "/nonexistent/x.fstc") == NULL &&
              strstr(fstc_llama_last_error(), "cannot open"),
          "a missing file: %s", fstc_llama_last_error());
    CHECK(fstc_llama_sampler_init_file(VOCAB, other_bytes) == NULL &&
              strstr(fstc_llama_last_error(), "other token bytes"),
          "a file for other bytes: %s", fstc_llama_last_error());
    CHECK(fstc_llama_sampler_init_file(VOCAB, other_size) == NULL &&
              strstr(fstc_llama_last_error(), "vocabulary of"),
          "a file for another size: %s", fstc_llama_last_error());
}

/* The masks of two matchers, equal; false (with a message) if not. */
static bool same_masks(const fstc_matcher *a, const fstc_matcher *b, uint32_t n_vocab) {
    size_t words = (n_vocab + 31) / 32;
    uint32_t *x = calloc(words, sizeof *x), *y = calloc(words, sizeof *y);
    bool same = x && y && fstc_matcher_fill_mask(a, x, words) == FSTC_OK &&
                fstc_matcher_fill_mask(b, y, words) == FSTC_OK &&
                memcmp(x, y, words * sizeof *x) == 0;
    free(x);
    free(y);
    return same;
}

/* fstc_compile_lazy on a tokenizer's vocabulary: a JSON Schema walked beside its eager
 * automaton (kind, fingerprint, masks, a refused token); what it refuses. */
static void lazy_compiles(const fstc_vocabulary *fv) {
    static const char SCHEMA[] = "{\"type\": \"object\", \"properties\": {\"ok\": {\"type\": "
                                 "\"boolean\"}}, \"required\": [\"ok\"], "
                                 "\"additionalProperties\": false}";
    fstc_automaton *lazy = NULL, *eager = NULL;
    CHECK(fstc_compile_lazy(fv, FSTC_SOURCE_JSON_SCHEMA, SCHEMA, strlen(SCHEMA), &lazy) == FSTC_OK,
          "%s", fstc_last_error());
    CHECK(fstc_compile(fv, FSTC_SOURCE_JSON_SCHEMA, SCHEMA, strlen(SCHEMA), &eager) == FSTC_OK,
          "%s", fstc_last_error());
    if (!lazy || !eager) return;
    uint32_t kind = 9, n_vocab = 0, n_eager = 1;
    uint64_t f_lazy = 0, f_vocab = 1;
    fstc_automaton_kind(lazy, &kind);
    fstc_automaton_vocab_fingerprint(lazy, &f_lazy);
    fstc_vocabulary_fingerprint(fv, &f_vocab);
    fstc_automaton_vocab_size(lazy, &n_vocab);
    fstc_automaton_vocab_size(eager, &n_eager);
    CHECK(kind == FSTC_KIND_LAZY && f_lazy == f_vocab && n_vocab == n_eager,
          "kind %u, fingerprints %d, sizes %u %u", kind, f_lazy == f_vocab, n_vocab, n_eager);
    fstc_matcher *m = NULL, *o = NULL;
    fstc_matcher_new(lazy, &m);
    fstc_matcher_new(eager, &o);
    /* Greedy: the lowest allowed token of the eager mask, to the end (whitespace is bounded). */
    size_t words = (n_vocab + 31) / 32;
    uint32_t *mask = calloc(words, sizeof *mask);
    for (int step = 0; mask && step < 400; step++) {
        CHECK(same_masks(m, o, n_vocab), "step %d: lazy and eager masks differ", step);
        fstc_matcher_fill_mask(o, mask, words);
        uint32_t t = 0;
        while (t < n_vocab && !(mask[t / 32] >> (t % 32) & 1u)) t++;
        if (t == n_vocab) break;
        CHECK(fstc_matcher_consume(m, t) == FSTC_OK && fstc_matcher_consume(o, t) == FSTC_OK,
              "step %d: token %u", step, t);
        bool done = false;
        fstc_matcher_is_finished(o, &done);
        if (done) break;
    }
    free(mask);
    bool done = false;
    fstc_matcher_is_finished(m, &done);
    CHECK(done, "the greedy walk reaches EOS on the lazy automaton");
    fstc_matcher_free(m);
    fstc_matcher_free(o);
    fstc_automaton_free(lazy);
    fstc_automaton_free(eager);

    lazy = (fstc_automaton *)&failures;
    CHECK(fstc_compile_lazy(fv, FSTC_SOURCE_GRAMMAR, "root ::= \"a\"", 14, &lazy) ==
                  FSTC_ERR_INVALID_ARGUMENT &&
              lazy == NULL && strstr(fstc_last_error(), "fstc_compile"),
          "a grammar has no lazy compile: %s", fstc_last_error());
    CHECK(fstc_compile_lazy(fv, FSTC_SOURCE_JSON_SCHEMA, "{\"type\": 3}", 11, &lazy) ==
              FSTC_ERR_COMPILE,
          "a bad schema");
    CHECK(fstc_compile_lazy(fv, FSTC_SOURCE_REGEX, "(a", 2, &lazy) == FSTC_ERR_COMPILE,
          "a bad regex");
    CHECK(fstc_compile_lazy(fv, FSTC_SOURCE_REGEX, "\xff", 1, &lazy) == FSTC_ERR_INVALID_ARGUMENT &&
              strstr(fstc_last_error(), "UTF-8"),
          "text not UTF-8: %s", fstc_last_error());
    CHECK(fstc_compile_lazy(fv, 9, "a", 1, &lazy) == FSTC_ERR_INVALID_ARGUMENT &&
              strstr(fstc_last_error(), "FSTC_SOURCE_REGEX"),
          "an unknown source: %s", fstc_last_error());
    CHECK(fstc_compile_lazy(NULL, FSTC_SOURCE_REGEX, "a", 1, &lazy) == FSTC_ERR_NULL_ARGUMENT,
          "no vocabulary");
    CHECK(fstc_compile_lazy(fv, FSTC_SOURCE_REGEX, "a", 1, NULL) == FSTC_ERR_NULL_ARGUMENT,
          "no out");
}

/* fstc_compile_with_options over a vocabulary of every printable ASCII byte, tab, newline and
 * return (id = byte - 0x20 for printable bytes) and EOS: the options change the automaton as
 * their names say; state_work_limit bounds a lazy state's composition (FSTC_ERR_COMPOSE_LIMIT,
 * nothing consumed); what the options object may not hold is FSTC_ERR_INVALID_ARGUMENT naming it. */
static uint32_t ascii_id(char c) { return (uint32_t)(c - 0x20); }

static bool allows(const fstc_automaton *a, const char *prefix, char c) {
    fstc_matcher *m = NULL;
    bool ok = false;
    if (fstc_matcher_new(a, &m) != FSTC_OK) return false;
    for (const char *p = prefix; *p; p++) fstc_matcher_consume(m, ascii_id(*p));
    fstc_matcher_is_allowed(m, ascii_id(c), &ok);
    fstc_matcher_free(m);
    return ok;
}

static fstc_status compile_with(const fstc_vocabulary *fv, uint32_t source, const char *text,
                                const char *options, fstc_automaton **out) {
    return fstc_compile_with_options(fv, source, text, strlen(text), options,
                                     options ? strlen(options) : 0, out);
}

static void compile_options(void) {
    uint8_t bytes[98];
    const uint8_t *tokens[99];
    size_t lens[99];
    uint32_t n = 0;
    for (int b = 0x20; b < 0x7f; b++) bytes[n++] = (uint8_t)b;
    bytes[n++] = '\t';
    bytes[n++] = '\n';
    bytes[n++] = '\r';
    for (uint32_t i = 0; i < n; i++) tokens[i] = &bytes[i], lens[i] = 1;
    tokens[n] = NULL;
    lens[n] = 0;
    uint32_t eos = n;
    fstc_vocabulary *fv = NULL;
    CHECK(fstc_vocabulary_from_tokens(tokens, lens, n + 1, &eos, 1, &fv) == FSTC_OK, "%s",
          fstc_last_error());
    if (!fv) return;

    static const char ARRAY[] = "{\"type\": \"array\", \"items\": {\"type\": \"integer\"}}";
    fstc_automaton *flexible = NULL, *compact = NULL, *lazy = NULL;
    CHECK(compile_with(fv, FSTC_SOURCE_JSON_SCHEMA, ARRAY, NULL, &flexible) == FSTC_OK, "%s",
          fstc_last_error());
    CHECK(compile_with(fv, FSTC_SOURCE_JSON_SCHEMA, ARRAY, "{\"whitespace\": \"compact\"}",
                       &compact) == FSTC_OK,
          "%s", fstc_last_error());
    CHECK(flexible && compact && allows(flexible, "[", ' ') && !allows(compact, "[", ' ') &&
              allows(compact, "[", '1'),
          "whitespace: compact leaves out the space after [");
    fstc_automaton_free(flexible);
    fstc_automaton_free(compact);

    /* Arrays nested in four ways at once: a lazy state's stacks multiply with the depth. */
    static const char NESTING[] =
        "{\"anyOf\": [{\"type\": \"array\", \"items\": {\"$ref\": \"#\"}}, {\"type\": \"array\", "
        "\"items\": {\"$ref\": \"#\"}, \"maxItems\": 5}, {\"type\": \"array\", \"items\": "
        "{\"$ref\": \"#\"}, \"minItems\": 1}, {\"type\": \"integer\"}]}";
    for (int bounded = 1; bounded >= 0; bounded--) {
        const char *options = bounded ? "{\"lazy\": true, \"recursion_depth\": 8, "
                                        "\"state_work_limit\": 2000}"
                                      : "{\"lazy\": true, \"recursion_depth\": 8}";
        CHECK(compile_with(fv, FSTC_SOURCE_JSON_SCHEMA, NESTING, options, &lazy) == FSTC_OK, "%s",
              fstc_last_error());
        uint32_t kind = 0;
        fstc_automaton_kind(lazy, &kind);
        CHECK(kind == FSTC_KIND_LAZY, "\"lazy\": true gives a lazy automaton (kind %u)", kind);
        fstc_matcher *m = NULL;
        fstc_matcher_new(lazy, &m);
        uint32_t mask[4];
        fstc_status status = FSTC_OK;
        size_t depth = 0, consumed = 0;
        for (; m && depth < 8; depth++) {
            status = fstc_matcher_fill_mask(m, mask, 4);
            if (status != FSTC_OK) break;
            fstc_matcher_consume(m, ascii_id('['));
        }
        fstc_matcher_num_consumed(m, &consumed);
        if (bounded)
            CHECK(status == FSTC_ERR_COMPOSE_LIMIT && consumed == depth &&
                      strstr(fstc_last_error(), "more than 2000 steps"),
                  "state_work_limit 2000: status %d at depth %zu: %s", (int)status, depth,
                  fstc_last_error());
        else
            CHECK(status == FSTC_OK && consumed == 8, "the default limit: status %d at depth %zu",
                  (int)status, depth);
        fstc_matcher_free(m);
        fstc_automaton_free(lazy);
        lazy = NULL;
    }

    fstc_automaton *a = NULL;
    CHECK(compile_with(fv, FSTC_SOURCE_REGEX, "\\d+", "{\"dialect\": \"ecmascript\"}", &a) ==
              FSTC_OK && allows(a, "", '7'),
          "dialect: %s", fstc_last_error());
    fstc_automaton_free(a);
    CHECK(compile_with(fv, FSTC_SOURCE_GRAMMAR, "S \xe2\x86\x92 \"ab\"", "{\"syntax\": \"paper\"}",
                       &a) == FSTC_OK && allows(a, "a", 'b'),
          "syntax: %s", fstc_last_error());
    fstc_automaton_free(a);
    CHECK(compile_with(fv, FSTC_SOURCE_REGEX, "[0-9]{1,50}", "{\"dfa_state_limit\": 3}", &a) ==
              FSTC_ERR_COMPILE && a == NULL,
          "dfa_state_limit: %s", fstc_last_error());
    /* The regex compile's budgets, named as JSON Schemas' and grammars' (issue 27). */
    CHECK(compile_with(fv, FSTC_SOURCE_REGEX, "[ab]*a[ab]{18}",
                       "{\"dfa_state_limit\": 2000000, \"memory_budget\": 1000000}", &a) ==
                  FSTC_ERR_COMPILE &&
              a == NULL && strstr(fstc_last_error(), "memory_budget"),
          "regex memory_budget: %s", fstc_last_error());
    CHECK(compile_with(fv, FSTC_SOURCE_REGEX, "[ab]*a[ab]{18}",
                       "{\"dfa_state_limit\": 2000000, \"time_budget\": 0}", &a) ==
                  FSTC_ERR_COMPILE &&
              a == NULL && strstr(fstc_last_error(), "time_budget"),
          "regex time_budget: %s", fstc_last_error());
    static const struct {
        uint32_t source;
        const char *options, *words;
    } REFUSED[] = {
        {FSTC_SOURCE_REGEX, "{\"nope\": 1}", "unknown option 'nope' for a regex"},
        {FSTC_SOURCE_JSON_SCHEMA, "{\"syntax\": \"gbnf\"}", "unknown option 'syntax'"},
        {FSTC_SOURCE_REGEX, "[1]", "not a JSON object"},
        {FSTC_SOURCE_REGEX, "{\"lazy\": true, \"token_edge_limit\": 5}",
         "token_edge_limit cannot be used with lazy=True"},
        {FSTC_SOURCE_JSON_SCHEMA, "{\"state_work_limit\": 5}", "state_work_limit needs lazy=True"},
        {FSTC_SOURCE_JSON_SCHEMA, "{\"whitespace\": 3}", "argument 'whitespace' must be a string"},
        {FSTC_SOURCE_JSON_SCHEMA, "{\"indent\": -1}", "argument 'indent' must be from 0"},
        {FSTC_SOURCE_JSON_SCHEMA, "{\"time_budget\": \"soon\"}", "argument 'time_budget'"},
        {FSTC_SOURCE_REGEX, "{\"time_budget\": -1}", "argument 'time_budget'"},
        {FSTC_SOURCE_REGEX, "{\"deadline\": 1}", "unknown option 'deadline' for a regex"},
        {FSTC_SOURCE_GRAMMAR, "{\"lazy\": true}", "fstc_compile"},
        {FSTC_SOURCE_GRAMMAR, "{\"syntax\": \"yacc\"}", "yacc"},
    };
    for (size_t i = 0; i < sizeof REFUSED / sizeof REFUSED[0]; i++) {
        a = (fstc_automaton *)&failures;
        const char *text = REFUSED[i].source == FSTC_SOURCE_REGEX ? "a"
                           : REFUSED[i].source == FSTC_SOURCE_GRAMMAR ? "root ::= \"a\""
                                                                      : "{}";
        CHECK(compile_with(fv, REFUSED[i].source, text, REFUSED[i].options, &a) ==
                      FSTC_ERR_INVALID_ARGUMENT &&
                  a == NULL && strstr(fstc_last_error(), REFUSED[i].words),
              "%s: %s", REFUSED[i].options, fstc_last_error());
    }
    CHECK(fstc_compile_with_options(fv, FSTC_SOURCE_REGEX, "a", 1, NULL, 3, &a) ==
              FSTC_ERR_NULL_ARGUMENT,
          "options NULL with a length");
    fstc_vocabulary_free(fv);
}

/* fstc_compile.h's functions on a tokenizer file and on bad input. */
static void compile_api(const char *tokenizer) {
    fstc_vocabulary *fv = (fstc_vocabulary *)&failures;
    CHECK(fstc_vocabulary_load(NULL, &fv) == FSTC_ERR_NULL_ARGUMENT && fv == NULL, "null path");
    CHECK(fstc_vocabulary_load("/nonexistent/tokenizer.json", &fv) == FSTC_ERR_VOCABULARY &&
              strstr(fstc_last_error(), "/nonexistent/tokenizer.json"),
          "missing file: %s", fstc_last_error());
    CHECK(fstc_vocabulary_load(tokenizer, &fv) == FSTC_OK, "%s", fstc_last_error());
    fstc_automaton *automaton = NULL;
    CHECK(fstc_compile(fv, FSTC_SOURCE_REGEX, "(yes|no)", 8, &automaton) == FSTC_OK, "%s",
          fstc_last_error());
    uint64_t a = 0, b = 1;
    fstc_vocabulary_fingerprint(fv, &a);
    fstc_automaton_vocab_fingerprint(automaton, &b);
    CHECK(a == b, "an automaton carries its vocabulary's fingerprint");
    CHECK(fstc_compile(fv, FSTC_SOURCE_REGEX, "\xff", 1, &automaton) == FSTC_ERR_INVALID_ARGUMENT &&
              automaton == NULL && strstr(fstc_last_error(), "UTF-8"),
          "text not UTF-8: %s", fstc_last_error());
    CHECK(fstc_compile(fv, FSTC_SOURCE_GRAMMAR, "root ::= (", 10, &automaton) == FSTC_ERR_COMPILE,
          "bad grammar");
    CHECK(fstc_compile(NULL, FSTC_SOURCE_REGEX, "a", 1, &automaton) == FSTC_ERR_NULL_ARGUMENT, "null");
    lazy_compiles(fv);
    compile_options();
    CHECK(fstc_llama_sampler_init_vocabulary(VOCAB, fv, FSTC_SOURCE_REGEX, "(yes|no)", 8) == NULL &&
              strstr(fstc_llama_last_error(), "vocabulary of"),
          "a vocabulary of another size: %s", fstc_llama_last_error());
    fstc_vocabulary_free(fv);
    fstc_vocabulary_free(NULL);

    const uint8_t x[] = "x";
    const uint8_t *tokens[] = {x, NULL};
    size_t lens[] = {1, 0};
    uint32_t eos_text = 0, eos_far = 2, eos_ok = 1;
    CHECK(fstc_vocabulary_from_tokens(tokens, lens, 2, &eos_text, 1, &fv) == FSTC_ERR_VOCABULARY &&
              strstr(fstc_last_error(), "EOS id 0 has text"),
          "EOS with text: %s", fstc_last_error());
    CHECK(fstc_vocabulary_from_tokens(tokens, lens, 2, &eos_far, 1, &fv) == FSTC_ERR_VOCABULARY &&
              strstr(fstc_last_error(), "not below the vocabulary size"),
          "EOS out of range: %s", fstc_last_error());
    lens[0] = 0;
    CHECK(fstc_vocabulary_from_tokens(tokens, lens, 2, &eos_ok, 1, &fv) == FSTC_ERR_VOCABULARY &&
              strstr(fstc_last_error(), "token 0 has 0 bytes"),
          "empty token: %s", fstc_last_error());
    CHECK(fstc_vocabulary_from_tokens(NULL, lens, 2, &eos_ok, 1, &fv) == FSTC_ERR_NULL_ARGUMENT,
          "null tokens");
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: %s SAME.fstc OTHER_BYTES.fstc OTHER_SIZE.fstc TOKENIZER\n",
                argv[0]);
        return 2;
    }
    compile_api(argv[4]);
    walk_regex();
    other_sources();
    from_file(argv[1]);
    refusals(argv[2], argv[3]);
    if (failures) fprintf(stderr, "%d checks failed\n", failures);
    return failures ? 1 : 0;
}
