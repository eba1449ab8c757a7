"""`compile_structural_tag`: tool calls in free text, in both JSON spellings, eager and
lazy, checked against the tests' own reading of the tag (a regex written here for the
structure, Python's `json` for the call bodies)."""

from __future__ import annotations

import json
import random
import re

import pytest

import fstc

WEATHER = {
    "type": "object",
    "properties": {"city": {"type": "string"}},
    "required": ["city"],
    "additionalProperties": False,
}
CURRENT = {
    "type": "structural_tag",
    "format": {
        "type": "triggered_tags",
        "triggers": ["<function="],
        "tags": [
            {
                "type": "tag",
                "begin": "<function=get_weather>",
                "content": {"type": "json_schema", "json_schema": WEATHER},
                "end": "</function>",
            }
        ],
    },
}
LEGACY = {
    "type": "structural_tag",
    "structures": [{"begin": "<function=get_weather>", "schema": WEATHER, "end": "</function>"}],
    "triggers": ["<function="],
}
CALL = re.compile(r"<function=get_weather>(.*?)</function>", re.S)


def member(text: str) -> bool:
    """Free text without `<function=` except where a call to get_weather starts, each
    call's body a compact JSON object with one string `city`."""
    rest = text
    for m in CALL.finditer(text):
        body = m.group(1)
        try:
            value = json.loads(body)
        except ValueError:
            return False
        if not (isinstance(value, dict) and list(value) == ["city"] and isinstance(value["city"], str)):
            return False
        if json.dumps(value, ensure_ascii=False, separators=(",", ":")) != body:
            return False
        rest = rest.replace(m.group(0), "\0", 1)
    return "<function=" not in rest


GOOD = [
    "",
    "It is sunny. <function=get_weather>{\"city\":\"Paris\"}</function> Anything else?",
    "<function=get_weather>{\"city\":\"Zürich\"}</function><function=get_weather>{\"city\":\"\"}</function>",
]
BAD = [
    "<function=get_time>{}</function>",
    "<function=get_weather>{\"town\":\"Paris\"}</function>",
    "<function=get_weather>{\"city\":\"Paris\"}",
    "see <function= here",
]


def accepts(automaton, vocab, text: str) -> bool:
    m = fstc.Matcher(automaton)
    return m.accept_tokens(vocab.tokenize(text)) and m.is_accepting()


@pytest.mark.parametrize("spec", [CURRENT, LEGACY, json.dumps(CURRENT)], ids=["current", "legacy", "text"])
@pytest.mark.parametrize("lazy", [False, True])
def test_known_transcripts(gpt2, spec, lazy):
    automaton, warnings = fstc.compile_structural_tag(spec, gpt2, lazy=lazy, whitespace="compact")
    assert warnings == []
    for text in GOOD:
        assert member(text) and accepts(automaton, gpt2, text), text
    for text in BAD:
        assert not member(text) and not accepts(automaton, gpt2, text), text


def test_walks_are_members(gpt2):
    automaton, _ = fstc.compile_structural_tag(CURRENT, gpt2, whitespace="compact")
    rng = random.Random(5)
    finished = 0
    for _ in range(30):
        m = fstc.Matcher(automaton)
        # Start inside a call half the time, so walks cover the tag and what follows it.
        prefix = gpt2.tokenize("Hi <function=get_weather>{\"ci") if rng.random() < 0.5 else []
        assert m.accept_tokens(prefix)
        tokens = list(prefix)
        for _ in range(40):
            if m.is_accepting() and rng.random() < 0.3:
                break
            allowed = [t for t in m.allowed_tokens() if t not in gpt2.eos_ids]
            # Prefer short tokens' neighbours: the closing quote and brace are single tokens.
            token = rng.choice([t for t in allowed if len(gpt2.token_bytes(t) or b"") == 1] or allowed)
            assert m.accept_token(token)
            tokens.append(token)
        if m.is_accepting():
            finished += 1
            assert member(gpt2.detokenize(tokens).decode("utf-8")), tokens
    assert finished >= 10


def test_max_tokens_counts_the_tokens_of_the_text(gpt2):
    # A reasoning block of at most n tokens (those that carry a byte of it), then "!".
    for n in (2, 3, 4):
        spec = {"type": "sequence", "elements": [
            {"type": "tag", "begin": "<think>", "end": "</think>",
             "content": {"type": "any_text", "max_tokens": n}},
            {"type": "const_string", "value": "!"}]}
        automaton, _ = fstc.compile_structural_tag(spec, gpt2)
        for body in ["", "Hi", "Hello there", "Hello there, world", "Hello there, my world"]:
            tokens = gpt2.tokenize(f"<think>{body}</think>!")
            spans, at = [], 0
            for t in tokens:
                spans.append((at, at + len(gpt2.token_bytes(t))))
                at = spans[-1][1]
            start, end = len("<think>"), len("<think>") + len(body.encode())
            count = sum(1 for a, b in spans if a < end and b > start)
            m = fstc.Matcher(automaton)
            ok = m.accept_tokens(tokens) and m.is_accepting()
            assert ok == (count <= n), (n, body, count)
    # Only the eager compile counts tokens; the lazy one refuses, naming the limit.
    with pytest.raises(fstc.FstcError, match=r"/elements/0/content/max_tokens: `max_tokens` counts tokens"):
        fstc.compile_structural_tag(spec, gpt2, lazy=True)


def test_refusals_name_the_path(gpt2):
    spec = {"type": "structural_tag", "format": {"type": "grammar", "grammar": "root ::= [a-z]+"}}
    with pytest.raises(fstc.FstcError, match=r"/format: format `grammar` is refused"):
        fstc.compile_structural_tag(spec, gpt2)
    bad_trigger = json.loads(json.dumps(CURRENT))
    bad_trigger["format"]["triggers"] = ["<call="]
    with pytest.raises(fstc.FstcError, match=r"/format/tags/0/begin"):
        fstc.compile_structural_tag(bad_trigger, gpt2)
    with pytest.raises(ValueError, match="token_edge_limit cannot be used with lazy=True"):
        fstc.compile_structural_tag(CURRENT, gpt2, lazy=True, token_edge_limit=5)
