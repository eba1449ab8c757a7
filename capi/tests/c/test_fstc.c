/*
 * The C test of fstc.h, run by capi/tests/c_abi.rs:
 *
 *     test_fstc AUTOMATON_FILE SCRIPT_FILE
 *     test_fstc TOKENIZER SOURCE CONSTRAINT_FILE SCRIPT_FILE
 *
 * AUTOMATON_FILE is a token FSA or a token PDA. In the second form the automaton is the
 * constraint in CONSTRAINT_FILE (SOURCE: FSTC_SOURCE_* as a number) compiled by
 * fstc_compile_lazy (fstc_compile.h) over the tokenizer file, and the script is the same
 * eager walker's: a lazy automaton answers every call as the eager one does. SCRIPT_FILE is written by the Rust test from
 * fstc-core's own walker of that kind on random walks: a header (kind, stack limit,
 * configuration limit, vocabulary size, EOS ids), then each line is a call and the result the Rust walker gave (see
 * run_script). After the script,
 * every function is called with bad input (null pointers, corrupt and truncated files,
 * narrow masks, out-of-range tokens, small buffers) and must return the documented status
 * with a message. Prints "N passed, 0 failed" and exits 0 when everything holds.
 */
#include "fstc_compile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int passed = 0;
static int failed = 0;

#define CHECK(cond, ...)                                                                   \
    do {                                                                                   \
        if (cond) {                                                                        \
            passed++;                                                                      \
        } else {                                                                           \
            failed++;                                                                      \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);       \
            fprintf(stderr, __VA_ARGS__);                                                  \
            fprintf(stderr, " (last error: %s)\n", fstc_last_error());                    \
        }                                                                                  \
    } while (0)

/* A status that must be an error with a non-empty message. */
#define CHECK_ERR(call, expected)                                                          \
    do {                                                                                   \
        fstc_status st_ = (call);                                                          \
        CHECK(st_ == (expected), "%s gave %d, expected %d", #call, (int)st_, (int)(expected)); \
        CHECK(strlen(fstc_last_error()) > 0, "%s left no message", #call);                \
    } while (0)

static unsigned char *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        exit(2);
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = malloc(n > 0 ? (size_t)n : 1);
    if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
        fprintf(stderr, "cannot read %s\n", path);
        exit(2);
    }
    fclose(f);
    *len = (size_t)n;
    return buf;
}

static size_t read_ids(FILE *script, uint32_t *ids, size_t cap) {
    size_t n = 0;
    if (fscanf(script, "%zu", &n) != 1 || n > cap) {
        fprintf(stderr, "bad id list in script\n");
        exit(2);
    }
    for (size_t i = 0; i < n; i++) {
        if (fscanf(script, "%u", &ids[i]) != 1) {
            fprintf(stderr, "bad id in script\n");
            exit(2);
        }
    }
    return n;
}

/* Script lines (all numbers decimal):
 *   reset
 *   mask WORDS W0 W1 ...        fill a mask of WORDS words; it must equal W0 W1 ...
 *   allowed TOKEN 0|1
 *   consume TOKEN STATUS
 *   tokens N T1..TN STATUS      consume_tokens
 *   validate N T1..TN ACCEPTED
 *   rollback N STATUS
 *   accepting 0|1
 *   finished 0|1
 *   forced N T1..TN
 *   consumed N                  num_consumed
 *   fork                        continue on a clone (checked independent), free the original
 */

/* The mask of m into buf (words words). */
static void mask_of(const fstc_matcher *m, uint32_t *buf, size_t words) {
    CHECK(fstc_matcher_fill_mask(m, buf, words) == FSTC_OK, "fill_mask");
}

/* Clones *mp, checks the clone is independent (a token consumed on it leaves the original
 * as it was) and shares the history (rolling that token back gives the original's mask),
 * then frees the original and continues on the clone. */
static void fork_matcher(fstc_matcher **mp, uint32_t vocab) {
    static uint32_t before[1 << 16], after[1 << 16], again[1 << 16];
    size_t words = (vocab + 31) / 32, n0 = 0, n1 = 0;
    fstc_matcher *c = NULL;
    CHECK(fstc_matcher_clone(*mp, &c) == FSTC_OK && c != NULL, "clone");
    if (!c) return;
    mask_of(*mp, before, words);
    mask_of(c, again, words);
    CHECK(memcmp(before, again, words * 4) == 0, "a clone has the original's mask");
    /* The first token the mask allows that consume accepts (at a PDA's stack limit the mask
     * may show tokens consume refuses; past a nondeterministic PDA's configuration limit,
     * tokens is_allowed accepts too). */
    uint32_t t = 0;
    bool ok = false;
    fstc_status st = FSTC_ERR_TOKEN_NOT_ALLOWED;
    for (; t < vocab; t++) {
        if ((before[t / 32] >> (t % 32) & 1) && fstc_matcher_is_allowed(*mp, t, &ok) == FSTC_OK &&
            ok && (st = fstc_matcher_consume(c, t)) != FSTC_ERR_CONFIG_LIMIT)
            break;
    }
    if (t < vocab) {
        CHECK(fstc_matcher_num_consumed(*mp, &n0) == FSTC_OK, "num_consumed");
        CHECK(st == FSTC_OK, "the clone consumes allowed token %u", t);
        CHECK(fstc_matcher_num_consumed(c, &n1) == FSTC_OK && n1 == n0 + 1, "clone moved");
        mask_of(*mp, after, words);
        CHECK(memcmp(before, after, words * 4) == 0, "the original did not move");
        CHECK(fstc_matcher_num_consumed(*mp, &n1) == FSTC_OK && n1 == n0, "original count");
        CHECK(fstc_matcher_rollback(c, 1) == FSTC_OK, "the clone rolls back");
        mask_of(c, again, words);
        CHECK(memcmp(before, again, words * 4) == 0, "rolled back to the original's mask");
    }
    fstc_matcher_free(*mp);
    *mp = c;
}

static void run_script(fstc_matcher **mp, uint32_t vocab, FILE *script) {
    static uint32_t ids[1 << 16];
    static uint32_t mask[1 << 16];
    char op[32];
    int line = 0;
    while (fscanf(script, "%31s", op) == 1) {
        fstc_matcher *m = *mp;
        line++;
        unsigned a = 0, b = 0;
        size_t n = 0, got = 0;
        bool flag = false;
        if (!strcmp(op, "reset")) {
            CHECK(fstc_matcher_reset(m) == FSTC_OK, "line %d", line);
        } else if (!strcmp(op, "mask")) {
            n = read_ids(script, ids, 1 << 16);
            memset(mask, 0xAB, sizeof mask);
            CHECK(fstc_matcher_fill_mask(m, mask, n) == FSTC_OK, "line %d", line);
            CHECK(memcmp(mask, ids, n * sizeof(uint32_t)) == 0, "line %d: mask differs", line);
        } else if (!strcmp(op, "allowed")) {
            if (fscanf(script, "%u %u", &a, &b) != 2) exit(2);
            CHECK(fstc_matcher_is_allowed(m, a, &flag) == FSTC_OK && flag == (b != 0),
                  "line %d: is_allowed(%u)", line, a);
        } else if (!strcmp(op, "consume")) {
            if (fscanf(script, "%u %u", &a, &b) != 2) exit(2);
            fstc_status st = fstc_matcher_consume(m, a);
            CHECK(st == (fstc_status)b, "line %d: consume(%u) gave %d, expected %u", line, a,
                  (int)st, b);
        } else if (!strcmp(op, "tokens")) {
            n = read_ids(script, ids, 1 << 16);
            if (fscanf(script, "%u", &b) != 1) exit(2);
            fstc_status st = fstc_matcher_consume_tokens(m, ids, n);
            CHECK(st == (fstc_status)b, "line %d: consume_tokens gave %d", line, (int)st);
        } else if (!strcmp(op, "validate")) {
            n = read_ids(script, ids, 1 << 16);
            if (fscanf(script, "%u", &b) != 1) exit(2);
            CHECK(fstc_matcher_validate_tokens(m, ids, n, &got) == FSTC_OK && got == b,
                  "line %d: validate gave %zu, expected %u", line, got, b);
        } else if (!strcmp(op, "rollback")) {
            if (fscanf(script, "%u %u", &a, &b) != 2) exit(2);
            fstc_status st = fstc_matcher_rollback(m, a);
            CHECK(st == (fstc_status)b, "line %d: rollback(%u) gave %d", line, a, (int)st);
        } else if (!strcmp(op, "accepting") || !strcmp(op, "finished")) {
            if (fscanf(script, "%u", &b) != 1) exit(2);
            fstc_status st = op[0] == 'a' ? fstc_matcher_is_accepting(m, &flag)
                                          : fstc_matcher_is_finished(m, &flag);
            CHECK(st == FSTC_OK && flag == (b != 0), "line %d: %s", line, op);
        } else if (!strcmp(op, "forced")) {
            n = read_ids(script, ids, 1 << 16);
            uint32_t out[4096];
            CHECK(fstc_matcher_forced_tokens(m, out, 4096, &got) == FSTC_OK && got == n &&
                      memcmp(out, ids, n * sizeof(uint32_t)) == 0,
                  "line %d: forced tokens (%zu, expected %zu)", line, got, n);
        } else if (!strcmp(op, "consumed")) {
            if (fscanf(script, "%u", &b) != 1) exit(2);
            CHECK(fstc_matcher_num_consumed(m, &got) == FSTC_OK && got == b,
                  "line %d: num_consumed gave %zu, expected %u", line, got, b);
        } else if (!strcmp(op, "fork")) {
            fork_matcher(mp, vocab);
        } else {
            fprintf(stderr, "unknown script op %s\n", op);
            exit(2);
        }
    }
    CHECK(line > 0, "the script was empty");
}

static void bad_input(const unsigned char *file, size_t len) {
    fstc_automaton *a = (fstc_automaton *)1;
    fstc_matcher *m = (fstc_matcher *)1;
    uint32_t mask[4] = {0}, ids[4] = {0}, vocab = 0;
    size_t n = 0;
    bool flag = false;

    /* Null pointers everywhere. */
    CHECK_ERR(fstc_automaton_load(NULL, len, &a), FSTC_ERR_NULL_ARGUMENT);
    CHECK(a == NULL, "load sets *out to NULL on failure");
    CHECK_ERR(fstc_automaton_load(file, len, NULL), FSTC_ERR_NULL_ARGUMENT);
    CHECK_ERR(fstc_automaton_vocab_size(NULL, &vocab), FSTC_ERR_NULL_ARGUMENT);
    CHECK_ERR(fstc_automaton_eos_ids(NULL, ids, 4, &n), FSTC_ERR_NULL_ARGUMENT);
    CHECK_ERR(fstc_matcher_new(NULL, &m), FSTC_ERR_NULL_ARGUMENT);
    CHECK(m == NULL, "new sets *out to NULL on failure");
    m = (fstc_matcher *)1;
    CHECK_ERR(fstc_matcher_new_with_stack_limit(NULL, 4, &m), FSTC_ERR_NULL_ARGUMENT);
    CHECK(m == NULL, "new_with_stack_limit sets *out to NULL on failure");
    m = (fstc_matcher *)1;
    CHECK_ERR(fstc_matcher_new_with_limits(NULL, 4, 2, &m), FSTC_ERR_NULL_ARGUMENT);
    CHECK(m == NULL, "new_with_limits sets *out to NULL on failure");
    CHECK_ERR(fstc_automaton_kind(NULL, &vocab), FSTC_ERR_NULL_ARGUMENT);
    CHECK_ERR(fstc_matcher_reset(NULL), FSTC_ERR_NULL_ARGUMENT);
    CHECK_ERR(fstc_matcher_fill_mask(NULL, mask, 4), FSTC_ERR_NULL_ARGUMENT);
    CHECK_ERR(fstc_matcher_is_allowed(NULL, 0, &flag), FSTC_ERR_NULL_ARGUMENT);
    CHECK_ERR(fstc_matcher_consume(NULL, 0), FSTC_ERR_NULL_ARGUMENT);
    CHECK_ERR(fstc_matcher_consume_tokens(NULL, ids, 1), FSTC_ERR_NULL_ARGUMENT);
    CHECK_ERR(fstc_matcher_validate_tokens(NULL, ids, 1, &n), FSTC_ERR_NULL_ARGUMENT);
    CHECK_ERR(fstc_matcher_rollback(NULL, 0), FSTC_ERR_NULL_ARGUMENT);
    CHECK_ERR(fstc_matcher_is_accepting(NULL, &flag), FSTC_ERR_NULL_ARGUMENT);
    CHECK_ERR(fstc_matcher_is_finished(NULL, &flag), FSTC_ERR_NULL_ARGUMENT);
    CHECK_ERR(fstc_matcher_forced_tokens(NULL, ids, 4, &n), FSTC_ERR_NULL_ARGUMENT);
    CHECK_ERR(fstc_matcher_num_consumed(NULL, &n), FSTC_ERR_NULL_ARGUMENT);
    fstc_matcher *c = (fstc_matcher *)1;
    CHECK_ERR(fstc_matcher_clone(NULL, &c), FSTC_ERR_NULL_ARGUMENT);
    CHECK(c == NULL, "clone sets *out to NULL on failure");
    fstc_automaton_free(NULL);
    fstc_matcher_free(NULL);

    /* Corrupt, truncated and empty files. */
    unsigned char *copy = malloc(len);
    memcpy(copy, file, len);
    copy[len / 2] ^= 0x5A;
    CHECK_ERR(fstc_automaton_load(copy, len, &a), FSTC_ERR_INVALID_AUTOMATON);
    CHECK(a == NULL, "no automaton from a corrupt file");
    memcpy(copy, file, len);
    copy[0] = 'X';
    CHECK_ERR(fstc_automaton_load(copy, len, &a), FSTC_ERR_INVALID_AUTOMATON);
    CHECK_ERR(fstc_automaton_load(file, len - 4, &a), FSTC_ERR_INVALID_AUTOMATON);
    CHECK_ERR(fstc_automaton_load(file, 7, &a), FSTC_ERR_INVALID_AUTOMATON);
    CHECK_ERR(fstc_automaton_load(NULL, 0, &a), FSTC_ERR_INVALID_AUTOMATON);
    /* Unaligned bytes are fine (the load copies). */
    free(copy);
    copy = malloc(len + 1);
    memcpy(copy + 1, file, len);
    CHECK(fstc_automaton_load(copy + 1, len, &a) == FSTC_OK, "unaligned load");
    free(copy); /* the automaton owns its own copy */

    CHECK(fstc_automaton_vocab_size(a, &vocab) == FSTC_OK && vocab > 0, "vocab size");
    CHECK_ERR(fstc_automaton_vocab_size(a, NULL), FSTC_ERR_NULL_ARGUMENT);
    CHECK(fstc_automaton_eos_ids(a, NULL, 0, &n) == FSTC_ERR_BUFFER_TOO_SMALL && n >= 1,
          "eos count query");
    CHECK_ERR(fstc_automaton_eos_ids(a, ids, 4, NULL), FSTC_ERR_NULL_ARGUMENT);
    CHECK_ERR(fstc_automaton_kind(a, NULL), FSTC_ERR_NULL_ARGUMENT);
    CHECK_ERR(fstc_matcher_new_with_stack_limit(a, 4, NULL), FSTC_ERR_NULL_ARGUMENT);
    CHECK_ERR(fstc_matcher_new_with_limits(a, 4, 2, NULL), FSTC_ERR_NULL_ARGUMENT);
    CHECK(fstc_matcher_new(a, &m) == FSTC_OK, "new");
    /* The matcher keeps the automaton alive. */
    fstc_automaton_free(a);

    size_t words = (vocab + 31) / 32;
    uint32_t *wide = malloc((words + 3) * sizeof(uint32_t));
    CHECK_ERR(fstc_matcher_fill_mask(m, wide, words - 1), FSTC_ERR_MASK_TOO_NARROW);
    CHECK_ERR(fstc_matcher_fill_mask(m, NULL, words), FSTC_ERR_NULL_ARGUMENT);
    CHECK_ERR(fstc_matcher_fill_mask(m, NULL, 0), FSTC_ERR_NULL_ARGUMENT);
    memset(wide, 0xFF, (words + 3) * sizeof(uint32_t));
    CHECK(fstc_matcher_fill_mask(m, wide, words + 3) == FSTC_OK, "wide mask");
    bool past_zero = wide[words] == 0 && wide[words + 1] == 0 && wide[words + 2] == 0;
    for (uint32_t t = vocab; t < 32 * words; t++) past_zero &= !(wide[t / 32] >> (t % 32) & 1);
    CHECK(past_zero, "bits past the vocabulary are 0");
    free(wide);

    CHECK_ERR(fstc_matcher_consume(m, vocab), FSTC_ERR_OUT_OF_VOCABULARY);
    CHECK_ERR(fstc_matcher_consume(m, 0xFFFFFFFFu), FSTC_ERR_OUT_OF_VOCABULARY);
    CHECK(fstc_matcher_is_allowed(m, vocab, &flag) == FSTC_OK && !flag, "out of range");
    ids[0] = vocab;
    CHECK(fstc_matcher_validate_tokens(m, ids, 1, &n) == FSTC_OK && n == 0, "validate");
    CHECK(fstc_matcher_validate_tokens(m, NULL, 0, &n) == FSTC_OK && n == 0, "validate []");
    CHECK_ERR(fstc_matcher_validate_tokens(m, NULL, 1, &n), FSTC_ERR_NULL_ARGUMENT);
    CHECK_ERR(fstc_matcher_validate_tokens(m, ids, 1, NULL), FSTC_ERR_NULL_ARGUMENT);
    CHECK_ERR(fstc_matcher_consume_tokens(m, ids, 1), FSTC_ERR_OUT_OF_VOCABULARY);
    CHECK_ERR(fstc_matcher_consume_tokens(m, NULL, 1), FSTC_ERR_NULL_ARGUMENT);
    CHECK(fstc_matcher_consume_tokens(m, NULL, 0) == FSTC_OK, "consume nothing");
    CHECK_ERR(fstc_matcher_rollback(m, 1), FSTC_ERR_ROLLBACK_TOO_FAR);
    CHECK_ERR(fstc_matcher_is_allowed(m, 0, NULL), FSTC_ERR_NULL_ARGUMENT);
    CHECK_ERR(fstc_matcher_is_accepting(m, NULL), FSTC_ERR_NULL_ARGUMENT);
    CHECK_ERR(fstc_matcher_is_finished(m, NULL), FSTC_ERR_NULL_ARGUMENT);
    CHECK_ERR(fstc_matcher_forced_tokens(m, ids, 4, NULL), FSTC_ERR_NULL_ARGUMENT);
    CHECK_ERR(fstc_matcher_new(NULL, NULL), FSTC_ERR_NULL_ARGUMENT);
    CHECK_ERR(fstc_matcher_clone(m, NULL), FSTC_ERR_NULL_ARGUMENT);
    CHECK_ERR(fstc_matcher_num_consumed(m, NULL), FSTC_ERR_NULL_ARGUMENT);
    /* A message names what is wrong. */
    fstc_matcher_consume(m, vocab);
    CHECK(strstr(fstc_last_error(), "outside the vocabulary") != NULL, "message: %s",
          fstc_last_error());
    fstc_matcher_free(m);
}

/* The lazy automaton of the constraint in path (read as source) over the tokenizer file. */
static fstc_automaton *compile_lazily(const char *tokenizer, const char *source, const char *path) {
    size_t len = 0;
    unsigned char *text = read_file(path, &len);
    fstc_vocabulary *vocab = NULL;
    fstc_automaton *a = NULL;
    CHECK(fstc_vocabulary_load(tokenizer, &vocab) == FSTC_OK, "vocabulary %s", tokenizer);
    CHECK(fstc_compile_lazy(vocab, (uint32_t)atoi(source), (const char *)text, len, &a) ==
              FSTC_OK,
          "lazy compile of %s", path);
    fstc_vocabulary_free(vocab); /* the automaton keeps what it needs */
    free(text);
    return a;
}

int main(int argc, char **argv) {
    if (argc != 3 && argc != 5) {
        fprintf(stderr, "usage: %s AUTOMATON_FILE SCRIPT_FILE\n"
                        "       %s TOKENIZER SOURCE CONSTRAINT_FILE SCRIPT_FILE\n",
                argv[0], argv[0]);
        return 2;
    }
    passed = failed = 0; /* the Rust test may run this main more than once per process */
    CHECK(strcmp(fstc_last_error(), "") == 0, "no error yet");
    size_t len = 0;
    unsigned char *file = NULL;
    fstc_automaton *a = NULL;
    if (argc == 3) {
        file = read_file(argv[1], &len);
        CHECK(fstc_automaton_load(file, len, &a) == FSTC_OK && a != NULL, "load");
    } else {
        a = compile_lazily(argv[1], argv[2], argv[3]);
    }
    FILE *script = fopen(argv[argc - 1], "r");
    if (!script || !a) {
        fprintf(stderr, "cannot start\n");
        return 2;
    }
    /* The script's first lines give the kind, the stack limit (0: the default), the
     * configuration limit (0: the default), the vocabulary size and the EOS ids. */
    uint32_t vocab = 0, expected_vocab = 0, eos[64], expected_eos[64], kind = 9, expected_kind = 0;
    size_t n_eos = 0, stack_limit = 0, config_limit = 0;
    char word[32];
    if (fscanf(script, "%31s %u", word, &expected_kind) != 2 || strcmp(word, "kind")) return 2;
    CHECK(fstc_automaton_kind(a, &kind) == FSTC_OK && kind == expected_kind, "kind %u", kind);
    if (fscanf(script, "%31s %zu", word, &stack_limit) != 2 || strcmp(word, "stack")) return 2;
    if (fscanf(script, "%31s %zu", word, &config_limit) != 2 || strcmp(word, "configs")) return 2;
    fstc_matcher *m = NULL;
    fstc_status st =
        config_limit ? fstc_matcher_new_with_limits(
                           a, stack_limit ? stack_limit : FSTC_DEFAULT_STACK_LIMIT, config_limit, &m)
        : stack_limit ? fstc_matcher_new_with_stack_limit(a, stack_limit, &m)
                      : fstc_matcher_new(a, &m);
    CHECK(st == FSTC_OK && m != NULL, "new");
    if (!m) return 2;
    if (fscanf(script, "%31s %u", word, &expected_vocab) != 2 || strcmp(word, "vocab")) return 2;
    CHECK(fstc_automaton_vocab_size(a, &vocab) == FSTC_OK && vocab == expected_vocab,
          "vocab %u", vocab);
    if (fscanf(script, "%31s", word) != 1 || strcmp(word, "eos")) return 2;
    size_t expected_n = read_ids(script, expected_eos, 64);
    CHECK(fstc_automaton_eos_ids(a, eos, 64, &n_eos) == FSTC_OK && n_eos == expected_n &&
              memcmp(eos, expected_eos, n_eos * sizeof(uint32_t)) == 0,
          "eos ids");
    run_script(&m, vocab, script);
    fclose(script);
    fstc_matcher_free(m);
    fstc_automaton_free(a);

    if (file) bad_input(file, len);
    free(file);
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
