"""Forking matchers for beam search and parallel sampling: `Matcher.copy()` (and
`copy.copy` / `copy.deepcopy`) and `fill_bitmasks` into arbitrary rows, checked against a
finite language's allowed-token sets (computed from its words, no fstc code)."""

from __future__ import annotations

import copy
import random

import numpy as np
import pytest
from conftest import LanguageOracle, bits_of, finite_language

import fstc

PATTERN = r"(ab|a|ba){0,3}c?"


@pytest.fixture(scope="module")
def language(bytelevel):
    words = finite_language(PATTERN, b"abc", 7)
    return fstc.compile_regex(PATTERN, bytelevel), LanguageOracle(bytelevel, words)


@pytest.mark.parametrize("fork", [fstc.Matcher.copy, copy.copy, copy.deepcopy])
def test_a_copy_moves_independently_and_keeps_the_history(bytelevel, language, fork):
    automaton, oracle = language
    a = bytelevel.tokenize("a")
    b = bytelevel.tokenize("b")
    m = fstc.Matcher(automaton)
    assert m.accept_tokens(a + b)
    c = fork(m)
    assert isinstance(c, fstc.Matcher) and c.num_accepted == 2
    assert c.allowed_tokens() == m.allowed_tokens() == oracle.allowed(b"ab")
    assert c.automaton.to_bytes() == automaton.to_bytes()
    assert c.accept_tokens(b + a)
    assert c.allowed_tokens() == oracle.allowed(b"abba")
    assert m.num_accepted == 2 and m.allowed_tokens() == oracle.allowed(b"ab")
    # The history came along: the copy rolls back past the fork.
    c.rollback(4)
    assert c.num_accepted == 0 and c.allowed_tokens() == oracle.allowed(b"")
    assert m.allowed_tokens() == oracle.allowed(b"ab")
    m.accept_token(bytelevel.eos_ids[0])
    assert m.is_terminated() and not fork(m).accept_tokens(a)
    assert fork(m).is_terminated()


def test_beam_search_with_reordered_rows(bytelevel, language):
    """Beams are forked from their parents and land in shuffled bitmask rows; every row
    must equal the allowed set of its own beam's text."""
    automaton, oracle = language
    rng = random.Random(11)
    eos = set(bytelevel.eos_ids)
    width = 6
    words = fstc.bitmask_words(len(bytelevel)) + 1
    beams = [(b"", fstc.Matcher(automaton))]
    steps = 0
    while beams and steps < 12:
        steps += 1
        rows = rng.sample(range(width + 2), len(beams))
        bitmask = np.full((width + 2, words), -1, dtype=np.int32)
        fstc.fill_bitmasks([m for _, m in beams], bitmask, np.array(rows))
        for (text, _), row in zip(beams, rows):
            assert bits_of(bitmask[row]) == oracle.allowed(text), text
        untouched = set(range(width + 2)) - set(rows)
        assert all((bitmask[r] == -1).all() for r in untouched)
        # Expand: each beam proposes a few allowed tokens; keep `width` children, some
        # from the same parent (so parents are copied more than once).
        children = []
        for text, m in beams:
            allowed = bits_of(bitmask[rows[beams.index((text, m))]])
            for t in rng.sample(allowed, min(3, len(allowed))):
                children.append((text, m, t))
        rng.shuffle(children)
        beams = []
        for text, parent, t in children[:width]:
            child = parent.copy()
            assert child.accept_token(t)
            if t in eos:
                assert child.is_terminated() and text in oracle.words
                continue
            beams.append((text + bytelevel.token_bytes(t), child))
    assert steps > 3


def test_one_matcher_may_fill_several_rows(bytelevel, language):
    automaton, oracle = language
    m = fstc.Matcher(automaton)
    bitmask = np.zeros((3, fstc.bitmask_words(len(bytelevel))), dtype=np.int32)
    fstc.fill_bitmasks([m, m], bitmask, [2, 0])
    assert bits_of(bitmask[0]) == bits_of(bitmask[2]) == oracle.allowed(b"")
    assert not bitmask[1].any()
    with pytest.raises(ValueError, match="row 0 is named twice"):
        fstc.fill_bitmasks([m, m], bitmask, [0, 0])
    with pytest.raises(ValueError, match="out of range"):
        fstc.fill_bitmasks([m], bitmask, [3])
    with pytest.raises(ValueError, match="2 matchers but 1 row indices"):
        fstc.fill_bitmasks([m, m], bitmask, [1])


def test_reordered_rows_into_a_torch_bitmask(bytelevel, language):
    torch = pytest.importorskip("torch")
    automaton, oracle = language
    a = fstc.Matcher(automaton)
    b = a.copy()
    assert b.accept_tokens(bytelevel.tokenize("ab"))
    bitmask = torch.full((3, fstc.bitmask_words(len(bytelevel))), -1, dtype=torch.int32)
    fstc.fill_bitmasks([b, a], bitmask, [0, 2])
    assert bits_of(bitmask[0].tolist()) == oracle.allowed(b"ab")
    assert bits_of(bitmask[2].tolist()) == oracle.allowed(b"")
    assert (bitmask[1] == -1).all()
