"""Shared fixtures: the small tokenizers of the repository's testdata/."""

from __future__ import annotations

import itertools
import json
import os
import re
from pathlib import Path
from typing import Dict, FrozenSet, Iterable, List, Optional, Set

import pytest

import fstc

REPO = Path(__file__).resolve().parents[2]
TESTDATA = REPO / "testdata"

# Where vLLM is installed (test_vllm.py, test_servers_e2e.py): its platform is the CPU, set
# before any test module imports vLLM, which fixes the platform once per process (its
# config code refuses to build without one; there is no GPU where these tests run).
os.environ.setdefault("VLLM_TARGET_DEVICE", "cpu")

#: A structural tag in the legacy spelling vLLM and SGLang forward: free text in which
#: `<tool_call>` opens a call whose body is a JSON object with a city.
TOOL_TAG = json.dumps(
    {
        "type": "structural_tag",
        "structures": [
            {
                "begin": "<tool_call>",
                "schema": {
                    "type": "object",
                    "properties": {"city": {"type": "string"}},
                    "required": ["city"],
                    "additionalProperties": False,
                },
                "end": "</tool_call>",
            }
        ],
        "triggers": ["<tool_call>"],
    }
)


def check_tool_calls(text: str) -> None:
    """TOOL_TAG's language, checked without fstc: free text in which each `<tool_call>`
    opens a call whose body is a JSON object with exactly a string `city`."""
    calls = re.findall(r"<tool_call>(.*?)</tool_call>", text, flags=re.S)
    assert calls, text
    for body in calls:
        value = json.loads(body)
        assert list(value) == ["city"] and isinstance(value["city"], str), body
    assert "<tool_call>" not in re.sub(r"<tool_call>.*?</tool_call>", "", text, flags=re.S)


@pytest.fixture(scope="session")
def bytelevel() -> fstc.Vocabulary:
    """Llama 3's byte-level BPE cut to 2,004 ids plus five added text tokens (2,009 ids, EOS 2002; no multiple of 32)."""
    return fstc.Vocabulary.from_file(TESTDATA / "bytelevel" / "tokenizer.json")


@pytest.fixture(scope="session")
def gpt2() -> fstc.Vocabulary:
    return fstc.Vocabulary.from_file(TESTDATA / "gpt2" / "encoder.json")


class LanguageOracle:
    """The allowed-token sets of a finite language, computed from the language's words
    alone (no fstc code): a text token t is allowed after text p iff p + bytes(t) starts
    some word; EOS iff p is a word."""

    def __init__(self, vocab: fstc.Vocabulary, words: Iterable[bytes]):
        self.words: FrozenSet[bytes] = frozenset(words)
        self.prefixes: Set[bytes] = {w[:i] for w in self.words for i in range(len(w) + 1)}
        self.eos = list(vocab.eos_ids)
        self.tokens: Dict[int, bytes] = {}
        for t in range(len(vocab)):
            b = vocab.token_bytes(t)
            if b:
                self.tokens[t] = b

    def allowed(self, text: bytes) -> List[int]:
        out = [t for t, b in self.tokens.items() if text + b in self.prefixes]
        if text in self.words:
            out.extend(self.eos)
        return sorted(out)


def finite_language(pattern: str, alphabet: bytes, max_len: int) -> List[bytes]:
    """Every text over `alphabet` up to `max_len` bytes that Python's `re` fully matches."""
    compiled = re.compile(pattern.encode())
    words = []
    for n in range(max_len + 1):
        for chars in itertools.product(alphabet, repeat=n):
            w = bytes(chars)
            if compiled.fullmatch(w):
                words.append(w)
    return words


def bits_of(row) -> List[int]:
    """The set bits of an int32 bitmask row, as token ids (bit t % 32 of word t // 32)."""
    out = []
    for i, word in enumerate(int(w) & 0xFFFFFFFF for w in row):
        out.extend(i * 32 + b for b in range(32) if word >> b & 1)
    return out


def walk_text(vocab: fstc.Vocabulary, tokens: List[int]) -> bytes:
    return vocab.detokenize(tokens)


def first_not_in(candidates: Iterable[int], allowed: Iterable[int]) -> Optional[int]:
    allowed = set(allowed)
    return next((t for t in candidates if t not in allowed), None)
