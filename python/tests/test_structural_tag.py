"""`compile_structural_tag`: tool calls in free text, in both JSON spellings, eager and
lazy, checked against the tests' own reading of the tag (a regex written here for the
structure, Python's `json` for the call bodies)."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

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
            lazy, _ = fstc.compile_structural_tag(spec, gpt2, lazy=True)
            m = fstc.Matcher(lazy)
            assert (m.accept_tokens(tokens) and m.is_accepting()) == ok, (n, body, count)


def test_max_tokens_on_a_tag_body(gpt2):
    # The limit on the tag instead of its free text: the same count.
    for n in (2, 3):
        spec = {"type": "sequence", "elements": [
            {"type": "tag", "begin": "<think>", "end": "</think>", "max_tokens": n,
             "content": {"type": "any_text"}},
            {"type": "const_string", "value": "!"}]}
        automaton, _ = fstc.compile_structural_tag(spec, gpt2)
        for body in ["", "Hi", "Hello there", "Hello there, world"]:
            tokens = gpt2.tokenize(f"<think>{body}</think>!")
            spans, at = [], 0
            for t in tokens:
                spans.append((at, at + len(gpt2.token_bytes(t))))
                at = spans[-1][1]
            start, end = len("<think>"), len("<think>") + len(body.encode())
            count = sum(1 for a, b in spans if a < end and b > start)
            for compiled in (automaton, fstc.compile_structural_tag(spec, gpt2, lazy=True)[0]):
                m = fstc.Matcher(compiled)
                assert (m.accept_tokens(tokens) and m.is_accepting()) == (count <= n), (n, body)


ARITH = """root ::= expr
expr ::= term (("+" | "-") term)*
term ::= "(" expr ")" | [0-9]+
"""
CALC = {"type": "triggered_tags", "triggers": ["<calc>"], "tags": [
    {"begin": "<calc>", "end": "</calc>", "content": {"type": "grammar", "grammar": ARITH}}]}


def arith(text: str) -> bool:
    """The tests' own reader of ARITH: recursive descent."""
    at = 0

    def expr() -> bool:
        nonlocal at
        if not term():
            return False
        while at < len(text) and text[at] in "+-":
            at += 1
            if not term():
                return False
        return True

    def term() -> bool:
        nonlocal at
        if at < len(text) and text[at] == "(":
            at += 1
            if not expr() or at >= len(text) or text[at] != ")":
                return False
            at += 1
            return True
        start = at
        while at < len(text) and text[at].isdigit():
            at += 1
        return at > start

    return expr() and at == len(text)


def calc_member(text: str) -> bool:
    """Free text without `<calc>`, and calls whose bodies ARITH derives."""
    parts = re.split(r"<calc>", text)
    for part in parts[1:]:
        body, sep, _ = part.partition("</calc>")
        if not sep or not arith(body):
            return False
    return True


def test_a_grammar_piece_gives_a_token_pda(gpt2):
    automaton, warnings = fstc.compile_structural_tag({"type": "structural_tag", "format": CALC}, gpt2)
    assert automaton.kind == "pda" and warnings == []
    texts = ["So <calc>(1+2)-((3))</calc> is 0.", "<calc>7</calc><calc>(((8)))</calc>", "no call",
             "<calc>(1+2</calc>", "<calc>1)</calc>", "<calc>()</calc>", "a <calc>1+</calc>", "x <calc>1"]
    rng = random.Random(5)
    for _ in range(60):
        depth = rng.randrange(5)
        body = "(" * depth + str(rng.randrange(100)) + ")" * rng.choice([depth, depth, max(depth - 1, 0), depth + 1])
        texts.append(f"Say {body} <calc>{body}+1</calc> done")
    accepted = 0
    for text in texts:
        expected = calc_member(text)
        m = fstc.Matcher(automaton)
        ok = m.accept_tokens(gpt2.tokenize(text)) and m.is_accepting()
        assert ok == expected, text
        accepted += ok
    assert 10 < accepted < len(texts) - 10
    with pytest.raises(fstc.FstcError, match=r"/format/tags/0/content: a recursive `grammar` piece is context-free"):
        fstc.compile_structural_tag({"type": "structural_tag", "format": CALC}, gpt2, lazy=True)


def test_refusals_name_the_path(gpt2):
    spec = {"type": "structural_tag", "format": {"type": "dispatch", "rules": []}}
    with pytest.raises(fstc.FstcError, match=r"/format: format `dispatch` is refused"):
        fstc.compile_structural_tag(spec, gpt2)
    bad_grammar = {"type": "grammar", "grammar": "root ::= (", "syntax": "gbnf"}
    with pytest.raises(fstc.FstcError, match=r"/grammar: grammar \(gbnf\)"):
        fstc.compile_structural_tag(bad_grammar, gpt2)
    bad_trigger = json.loads(json.dumps(CURRENT))
    bad_trigger["format"]["triggers"] = ["<call="]
    with pytest.raises(fstc.FstcError, match=r"/format/tags/0/begin"):
        fstc.compile_structural_tag(bad_trigger, gpt2)
    with pytest.raises(ValueError, match="token_edge_limit cannot be used with lazy=True"):
        fstc.compile_structural_tag(CURRENT, gpt2, lazy=True, token_edge_limit=5)


def test_the_compile_stops_at_its_budgets(gpt2):
    plain = {"type": "structural_tag", "format": {"type": "regex", "pattern": "[a-z]{1,40}"}}
    calc = {"type": "structural_tag", "format": CALC}
    for spec in (plain, calc):
        with pytest.raises(fstc.FstcError, match=r"time budget.*time_budget"):
            fstc.compile_structural_tag(spec, gpt2, time_budget=0.0)
        with pytest.raises(fstc.FstcError, match=r"memory budget of 1000 bytes"):
            fstc.compile_structural_tag(spec, gpt2, memory_budget=1000)
        automaton, _ = fstc.compile_structural_tag(spec, gpt2, time_budget=60.0, memory_budget=1 << 30)
        assert fstc.Matcher(automaton).accept_tokens(gpt2.tokenize("abc"))


def python_tag_spec(token) -> dict:
    """Llama 3.1's form: a special token opens one call (`<|python_tag|>` there), free text
    before it, nothing after."""
    return {
        "type": "structural_tag",
        "format": {
            "type": "token_triggered_tags",
            "trigger_tokens": [token],
            "stop_after_first": True,
            "tags": [
                {
                    "type": "tag",
                    "begin": {"type": "token", "token": token},
                    "content": {"type": "json_schema", "json_schema": WEATHER},
                    "end": "",
                }
            ],
        },
    }


def call_tokens(vocab, before: str, opener: int, body: str, after: str = "") -> list:
    return vocab.tokenize(before) + [opener] + vocab.tokenize(body) + (vocab.tokenize(after) if after else [])


def is_call(body: str) -> bool:
    """The tests' reading of a call body: compact JSON, one string `city`."""
    try:
        value = json.loads(body)
    except ValueError:
        return False
    return list(value) == ["city"] and isinstance(value["city"], str) and json.dumps(
        value, ensure_ascii=False, separators=(",", ":")
    ) == body


@pytest.mark.parametrize("lazy", [False, True])
def test_a_special_token_opens_a_call(bytelevel, lazy):
    # 2000 is Llama 3's `<|begin_of_text|>`, special (no text), named by name and by id.
    assert bytelevel.token_bytes(2000) is None
    for token in ["<|begin_of_text|>", 2000]:
        automaton, _ = fstc.compile_structural_tag(
            python_tag_spec(token), bytelevel, lazy=lazy, whitespace="compact"
        )
        for before, body, after in [
            ("I will look.", '{"city":"Lima"}', ""),
            ("", '{"city":""}', ""),
            ("x", '{"town":"Lima"}', ""),
            ("x", '{"city":"Lima"}', "more"),
        ]:
            tokens = call_tokens(bytelevel, before, 2000, body, after)
            m = fstc.Matcher(automaton)
            expected = is_call(body) and not after
            assert (m.accept_tokens(tokens) and m.is_accepting()) == expected, (before, body, after)
        # The name written as text is free text, not the token: no call opens.
        text = 'x<|begin_of_text|>{"city":"Lima"}'
        spelled = [t for ch in text for t in bytelevel.tokenize(ch)]
        assert 2000 not in spelled
        m = fstc.Matcher(automaton)
        assert m.accept_tokens(spelled) and m.is_accepting()
        m = fstc.Matcher(automaton)
        assert m.accept_tokens(spelled + [2000] + bytelevel.tokenize('{"city":"a"}'))


def test_named_tokens_are_checked_against_the_vocabulary(bytelevel):
    with pytest.raises(fstc.FstcError, match="trigger_tokens/0.*no special or added token"):
        fstc.compile_structural_tag(python_tag_spec("<|no such|>"), bytelevel)
    with pytest.raises(fstc.FstcError, match="EOS"):
        fstc.compile_structural_tag(python_tag_spec(2002), bytelevel)


SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "vocabs"


@pytest.mark.parametrize("name,token", [("llama3", 128010), ("qwen3", "<tool_call>")])
def test_model_tokens_open_calls_on_real_vocabularies(name, token):
    path = SHARED / name / "tokenizer.json"
    if not path.exists():
        pytest.skip(f"{path} is not there")
    vocab = fstc.Vocabulary.from_file(path)
    automaton, _ = fstc.compile_structural_tag(python_tag_spec(token), vocab, whitespace="compact")
    opener = token if isinstance(token, int) else vocab.tokenize(token)[0]
    assert len(vocab.tokenize("<tool_call>")) == 1 or isinstance(token, int)
    good = call_tokens(vocab, "Let me check.", opener, '{"city":"Oslo"}')
    bad = call_tokens(vocab, "Let me check.", opener, '{"city":"Oslo"}', " done")
    for tokens, expected in [(good, True), (bad, False)]:
        m = fstc.Matcher(automaton)
        assert (m.accept_tokens(tokens) and m.is_accepting()) == expected
