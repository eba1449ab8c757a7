"""Bad input reaches Python as exceptions with the Rust message, never a crash."""

from __future__ import annotations

import random

import pytest
from conftest import TESTDATA

import fstc


def test_bad_patterns(bytelevel):
    with pytest.raises(fstc.FstcError, match=r"backreference `\\1` at bytes 3..5"):
        fstc.compile_regex(r"(a)\1", bytelevel)
    with pytest.raises(fstc.FstcError, match="regex"):
        fstc.compile_regex(r"(unclosed", bytelevel)
    with pytest.raises(fstc.FstcError, match="limit"):
        fstc.compile_regex(r"[ab]*a[ab]{12}", bytelevel, dfa_state_limit=100)
    with pytest.raises(fstc.FstcError):
        fstc.compile_regex(r"(?P<IMAGE>)", bytelevel, image_tokens=[10**6])
    assert issubclass(fstc.FstcError, ValueError)


def test_bad_vocabularies(tmp_path):
    with pytest.raises(fstc.FstcError, match="nope"):
        fstc.Vocabulary.from_file(tmp_path / "nope.json")
    bad = tmp_path / "bad.json"
    bad.write_text('{"model": {"type": "BPE", "vocab": 3}}')
    with pytest.raises(fstc.FstcError):
        fstc.Vocabulary.from_file(bad)
    with pytest.raises(fstc.FstcError, match="EOS id 65"):
        fstc.Vocabulary.from_file(TESTDATA / "bytelevel" / "tokenizer.json", eos_ids=[65])
    v = fstc.Vocabulary.from_file(TESTDATA / "bytelevel" / "tokenizer.json", eos_ids=[2001])
    assert v.eos_ids == [2001]


def test_save_load_and_corrupt_files(bytelevel, tmp_path):
    a = fstc.compile_regex(r"[0-9]{3}", bytelevel)
    path = tmp_path / "a.fstc"
    a.save(path)
    b = fstc.AnyAutomaton.load(str(path))
    assert b.to_bytes() == a.to_bytes() == path.read_bytes()
    c = fstc.AnyAutomaton.from_bytes(a.to_bytes())
    assert (c.num_states, c.num_edges, c.vocab_size, c.eos_ids, c.vocab_fingerprint) == (
        a.num_states, a.num_edges, a.vocab_size, a.eos_ids, bytelevel.fingerprint,
    )
    assert a.size_bytes == len(a.to_bytes())
    with pytest.raises(OSError):
        fstc.AnyAutomaton.load(tmp_path / "missing.fstc")
    with pytest.raises(fstc.FstcError):
        fstc.AnyAutomaton.from_bytes(b"")
    with pytest.raises(fstc.FstcError, match="not an fstc token automaton"):
        fstc.AnyAutomaton.from_bytes(b"x" * 64)
    data = a.to_bytes()
    rng = random.Random(5)
    for _ in range(200):
        mutated = bytearray(data)
        how = rng.randrange(3)
        if how == 0:
            mutated[rng.randrange(len(mutated))] ^= 1 << rng.randrange(8)
        elif how == 1:
            del mutated[rng.randrange(len(mutated)) :]
        else:
            mutated.insert(rng.randrange(len(mutated)), rng.randrange(256))
        with pytest.raises(fstc.FstcError):
            fstc.AnyAutomaton.from_bytes(bytes(mutated))


def test_matcher_errors(bytelevel):
    m = fstc.Matcher(fstc.compile_regex("ab", bytelevel))
    with pytest.raises(fstc.FstcError, match="cannot roll back 1 tokens"):
        m.rollback(1)
    with pytest.raises(TypeError):
        m.accept_tokens("ab")
    with pytest.raises(TypeError):
        fstc.Matcher(bytelevel)
