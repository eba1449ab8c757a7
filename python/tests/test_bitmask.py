"""Bitmask layout bit by bit, strict array checks, and batch filling from many threads."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from conftest import bits_of

import fstc


@pytest.fixture(scope="module")
def letters(bytelevel):
    return fstc.compile_regex(r"[a-z]{1,3}", bytelevel)


def test_layout_bit_by_bit_at_widths_past_the_vocabulary(bytelevel, letters):
    vocab = len(bytelevel)
    assert vocab % 32 != 0
    matcher = fstc.Matcher(letters)
    assert matcher.accept_tokens(bytelevel.tokenize("a"))
    expected = set(matcher.allowed_tokens())
    assert expected and set(bytelevel.eos_ids) <= expected
    for words in (fstc.bitmask_words(vocab), fstc.bitmask_words(vocab) + 1, 200):
        bitmask = np.full((3, words), -1, dtype=np.int32)
        matcher.fill_bitmask(bitmask, index=2)
        assert (bitmask[:2] == -1).all(), "other rows untouched"
        row = bitmask[2]
        for t in range(words * 32):
            bit = (int(row[t // 32]) >> (t % 32)) & 1
            assert bit == (t in expected), t
        # Bit 31 is the sign bit of the int32 word.
        for i, word in enumerate(row):
            assert (word < 0) == ((i * 32 + 31) in expected)
    assert any(t % 32 == 31 for t in expected), "the test should cover a sign bit"
    unpacked = fstc.unpack_bitmask(bitmask[2:], vocab)
    assert list(np.flatnonzero(unpacked[0])) == sorted(expected)


def test_bad_bitmasks_are_errors(letters):
    m = fstc.Matcher(letters)
    words = fstc.bitmask_words(letters.vocab_size)
    good = np.zeros((2, words), dtype=np.int32)
    cases = [
        (np.zeros((2, words), dtype=np.int64), TypeError, "int32"),
        (np.zeros((2, words), dtype=np.uint32), TypeError, "int32"),
        (np.zeros((2, words), dtype=np.float32), TypeError, "int32"),
        (np.zeros((words,), dtype=np.int32), ValueError, "2-D"),
        (np.zeros((1, 2, words), dtype=np.int32), ValueError, "2-D"),
        (np.zeros((2, 2 * words), dtype=np.int32)[:, ::2], ValueError, "C-contiguous"),
        (np.asfortranarray(np.zeros((2, words), dtype=np.int32)), ValueError, "C-contiguous"),
        (np.zeros((2, words), dtype=np.int32).view(">i4"), TypeError, "int32"),
        ([[0] * words], TypeError, "numpy array or a torch tensor"),
        (np.zeros((2, words - 1), dtype=np.int32), fstc.FstcError, "needs at least"),
    ]
    readonly = good.copy()
    readonly.setflags(write=False)
    cases.append((readonly, ValueError, "read-only"))
    for array, error, message in cases:
        with pytest.raises(error, match=message):
            m.fill_bitmask(array)
    with pytest.raises(ValueError, match="out of range"):
        m.fill_bitmask(good, index=2)
    with pytest.raises(fstc.FstcError, match="argument 'index' must be an integer from 0"):
        m.fill_bitmask(good, index=-1)
    with pytest.raises(ValueError, match="named twice"):
        fstc.fill_bitmasks([m, m], good, [1, 1])
    with pytest.raises(ValueError, match="2 matchers but 1 row"):
        fstc.fill_bitmasks([m, m], good, [0])
    assert not good.any()


def _positions(bytelevel, automaton, n):
    """`n` matchers at the positions of seeded random walks."""
    matchers = []
    for i, (tokens, _) in enumerate(automaton.sample(n, seed=11, max_tokens=8)):
        m = fstc.Matcher(automaton)
        assert m.accept_tokens(tokens[: i % (len(tokens) + 1)])
        matchers.append(m)
    return matchers


def test_batch_fill_matches_single_fills_under_many_threads(bytelevel):
    automaton = fstc.compile_regex(r"[a-z]{1,3}( [a-z]{1,3})* [0-9]{1,4}", bytelevel)
    matchers = _positions(bytelevel, automaton, 64)
    words = fstc.bitmask_words(bytelevel.size) + 1
    reference = np.zeros((64, words), dtype=np.int32)
    for i, m in enumerate(matchers):
        m.fill_bitmask(reference, i)
    assert len({bytes(r) for r in reference}) > 3, "rows should differ"
    failures = []

    def work(seed):
        rng = np.random.default_rng(seed)
        try:
            for _ in range(30):
                out = np.full((64, words), -1, dtype=np.int32)
                order = rng.permutation(64)
                fstc.fill_bitmasks([matchers[i] for i in order], out, list(order))
                if not np.array_equal(out, reference):
                    failures.append(seed)
                single = np.zeros((1, words), dtype=np.int32)
                i = int(rng.integers(64))
                matchers[i].fill_bitmask(single)
                if not np.array_equal(single[0], reference[i]):
                    failures.append(seed)
        except Exception as e:  # pragma: no cover - reported below
            failures.append(repr(e))

    threads = [threading.Thread(target=work, args=(s,)) for s in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []
    assert [bits_of(r) for r in reference[:3]] == [m.allowed_tokens() for m in matchers[:3]]


def test_torch_bitmask(bytelevel, letters):
    torch = pytest.importorskip("torch")
    m = fstc.Matcher(letters)
    words = fstc.bitmask_words(letters.vocab_size) + 3
    t = torch.full((2, words), -1, dtype=torch.int32)
    m.fill_bitmask(t, index=1)
    assert bits_of(t[1].tolist()) == m.allowed_tokens()
    assert (t[0] == -1).all()
    fstc.fill_bitmasks([m, m], t)
    assert bits_of(t[0].tolist()) == m.allowed_tokens()
    with pytest.raises(TypeError, match="torch.int32"):
        m.fill_bitmask(torch.zeros((1, words), dtype=torch.int64))
    with pytest.raises(ValueError, match="contiguous"):
        m.fill_bitmask(torch.zeros((words, 2), dtype=torch.int32).t())
