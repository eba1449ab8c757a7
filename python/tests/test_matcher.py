"""The matcher against independent oracles: a finite language's allowed-token sets
(computed from its words), Python's `re` on random walks, and the tokenizer's own
encoding of known-good and mutated texts."""

from __future__ import annotations

import itertools
import random
import re

import numpy as np
import pytest
from conftest import LanguageOracle, bits_of, finite_language

import fstc

FINITE = [
    # (pattern, its words written out without regex machinery, or enumerated with `re`)
    (r"(ab|a|ba){0,3}c?", lambda: finite_language(r"(ab|a|ba){0,3}c?", b"abc", 7)),
    (r"[0-9]{2}(-[0-9])?", lambda: finite_language(r"[0-9]{2}(-[0-9])?", b"0123456789-", 4)),
    (
        r"(yes|no|maybe)( or (yes|no))?",
        lambda: [a + b for a in (b"yes", b"no", b"maybe") for b in (b"", b" or yes", b" or no")],
    ),
    (r"[ab]{0,4}", lambda: [bytes(w) for n in range(5) for w in itertools.product(b"ab", repeat=n)]),
]


@pytest.mark.parametrize("pattern,language", FINITE)
def test_masks_equal_the_languages_allowed_sets_on_random_walks(bytelevel, pattern, language):
    words = language()
    oracle = LanguageOracle(bytelevel, words)
    automaton = fstc.compile_regex(pattern, bytelevel)
    rng = random.Random(pattern)
    bitmask = np.full((2, fstc.bitmask_words(len(bytelevel)) + 2), -1, dtype=np.int32)
    for _ in range(40):
        matcher = fstc.Matcher(automaton)
        text = b""
        while True:
            expected = oracle.allowed(text)
            matcher.fill_bitmask(bitmask, index=1)
            assert bits_of(bitmask[1]) == expected, (pattern, text)
            assert matcher.allowed_tokens() == expected
            rejected = [t for t in rng.sample(range(len(bytelevel)), 20) if t not in expected]
            for t in rejected:
                assert matcher.validate_tokens([t]) == 0
                assert not matcher.accept_tokens([t])
            pick = rng.choice(expected)
            assert matcher.accept_tokens([pick])
            if pick in bytelevel.eos_ids:
                assert matcher.is_terminated()
                assert text in oracle.words
                break
            text += bytelevel.token_bytes(pick)


REGEXES = [
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}",
    r"\{\"name\": \"[a-z ]{1,12}\", \"age\": [0-9]{1,3}\}",
    r"(GET|POST) /[a-z0-9/]{0,20} HTTP/1\.[01]",
    r"[A-Z][a-z]{1,8}(, [A-Z][a-z]{1,8}){0,3}\.",
]


@pytest.mark.parametrize("pattern", REGEXES)
def test_random_walks_replay_and_fullmatch_python_re(gpt2, pattern):
    automaton = fstc.compile_regex(pattern, gpt2)
    compiled = re.compile(pattern.encode())
    complete = 0
    for tokens, done in automaton.sample(60, seed=7, max_tokens=40):
        matcher = fstc.Matcher(automaton)
        for i, t in enumerate(tokens):
            assert t in matcher.allowed_tokens()
            assert matcher.accept_tokens([t]), (tokens, i)
        if done:
            complete += 1
            assert compiled.fullmatch(gpt2.detokenize(tokens))
            assert matcher.is_accepting()
            assert matcher.accept_tokens([gpt2.eos_ids[0]])
            assert matcher.is_terminated()
    assert complete > 0


GOOD_AND_BAD = [
    (r"[0-9]{4}-[0-9]{2}-[0-9]{2}", ["2024-02-29", "1999-12-31"], ["2024-2-29", "2024-02-291", "abcd-ef-gh"]),
    (
        r"\{\"id\": [0-9]+, \"ok\": (true|false)\}",
        ['{"id": 12, "ok": true}', '{"id": 0, "ok": false}'],
        ['{"id": 12, "ok": True}', '{"id": , "ok": true}', '{"id": 1,"ok": true}'],
    ),
]


@pytest.mark.parametrize("pattern,good,bad", GOOD_AND_BAD)
def test_tokenizer_encodings_of_good_texts_accepted_and_mutations_rejected(gpt2, pattern, good, bad):
    automaton = fstc.compile_regex(pattern, gpt2)
    eos = gpt2.eos_ids[0]
    for text in good:
        tokens = gpt2.tokenize(text)
        assert fstc.Matcher(automaton).validate_tokens(tokens + [eos]) == len(tokens) + 1
        m = fstc.Matcher(automaton)
        assert m.accept_tokens(tokens + [eos]) and m.is_terminated()
    for text in bad:
        tokens = gpt2.tokenize(text)
        m = fstc.Matcher(automaton)
        assert not m.accept_tokens(tokens + [eos])
        assert m.num_accepted == 0
    # Random one-byte mutations of good texts: accepted iff Python's re matches.
    rng = random.Random(1)
    compiled = re.compile(pattern)
    for _ in range(100):
        text = list(rng.choice(good))
        text[rng.randrange(len(text))] = rng.choice('0123456789-{}": abtrue,')
        text = "".join(text)
        tokens = gpt2.tokenize(text) + [eos]
        accepted = fstc.Matcher(automaton).validate_tokens(tokens) == len(tokens)
        assert accepted == bool(compiled.fullmatch(text)), text


def test_validate_does_not_move_and_accept_is_all_or_nothing(gpt2):
    automaton = fstc.compile_regex(r"(yes|no)", gpt2)
    yes, no = gpt2.tokenize("yes"), gpt2.tokenize("no")
    eos = gpt2.eos_ids[0]
    m = fstc.Matcher(automaton)
    assert m.validate_tokens(yes + [eos]) == len(yes) + 1
    assert m.validate_tokens(yes + no) == len(yes)
    assert m.validate_tokens([-1, 2**40]) == 0
    assert m.num_accepted == 0 and not m.is_accepting()
    assert not m.accept_tokens(yes + no)
    assert m.num_accepted == 0
    assert not m.accept_tokens([-5])
    assert m.accept_tokens(yes)
    assert m.is_accepting() and m.only_eos_allowed()
    assert m.validate_tokens([eos, eos]) == 1
    assert m.accept_token(eos) and m.is_terminated()
    assert not m.accept_tokens([eos]) and m.validate_tokens([eos]) == 0
    row = np.full((1, 1600), -1, dtype=np.int32)
    m.fill_bitmask(row)
    assert not row.any()


def test_rollback_restores_every_earlier_state(gpt2):
    automaton = fstc.compile_regex(r"[0-9]{4}-[0-9]{2}", gpt2)
    tokens = gpt2.tokenize("2024-05") + [gpt2.eos_ids[0]]
    m = fstc.Matcher(automaton)
    masks = [m.allowed_tokens()]
    for t in tokens:
        assert m.accept_tokens([t])
        masks.append(m.allowed_tokens())
    assert m.is_terminated()
    with pytest.raises(fstc.FstcError, match="only 5 consumed"):
        m.rollback(len(tokens) + 1)
    assert m.is_terminated() and m.num_accepted == len(tokens)
    for back in range(1, len(tokens) + 1):
        m.rollback(1)
        assert not m.is_terminated()
        assert m.num_accepted == len(tokens) - back
        assert m.allowed_tokens() == masks[len(tokens) - back]
    m.rollback(0)
    assert m.accept_tokens(tokens[:3])
    m.reset()
    assert m.num_accepted == 0 and m.allowed_tokens() == masks[0]


def test_forced_tokens_are_the_single_choices(bytelevel):
    automaton = fstc.compile_regex(r"\{\"k\":[0-9]\}", bytelevel)
    eos = set(bytelevel.eos_ids)
    for tokens, _ in automaton.sample(30, seed=3):
        m = fstc.Matcher(automaton)
        for t in tokens:
            forced = m.forced_tokens()
            allowed = m.allowed_tokens()
            if len(allowed) == 1 and not eos & set(allowed):
                assert forced[:1] == allowed
            else:
                assert forced == []
            probe = fstc.Matcher(automaton)
            assert probe.accept_tokens(tokens[: m.num_accepted] + forced)
            assert m.accept_tokens([t])


def test_dialect_reads_the_pattern_as_the_cli_does(gpt2):
    """``dialect="ecmascript"`` (JSON Schema's ``pattern``): ``\\d`` is ASCII only, while the
    default dialect's ``\\d`` is every Unicode digit, as ``fstc compile regex --dialect``."""

    def accepts(automaton, text):
        m = fstc.Matcher(automaton)
        return m.accept_tokens(gpt2.tokenize(text)) and m.is_accepting()

    for lazy in (False, True):
        unicode = fstc.compile_regex(r"\d{2}", gpt2, lazy=lazy)
        ascii_only = fstc.compile_regex(r"\d{2}", gpt2, lazy=lazy, dialect="ecmascript")
        assert accepts(unicode, "42") and accepts(ascii_only, "42")
        assert accepts(unicode, "\u0663\u0664") and not accepts(ascii_only, "\u0663\u0664")
    with pytest.raises(ValueError, match="dialect"):
        fstc.compile_regex("a", gpt2, dialect="pcre")
