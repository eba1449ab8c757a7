"""`lazy=True`: a `LazyAutomaton` composes each state when a matcher first reaches it. Its
matchers must behave exactly as the eager automaton's of the same constraint, step by step
(masks, EOS, accept, validate, rollback, forced tokens, copies), on three tokenizer
families and the paper's Figure 4 vocabulary (where a byte path is not always a token
path); its complete walks must satisfy Python's `re` / `jsonschema`; its masks must equal
a finite language's allowed sets computed from the words alone."""

from __future__ import annotations

import json
import random
import re
import threading
from typing import Any, Dict, List

import numpy as np
import pytest
from conftest import TESTDATA, TOOL_TAG, LanguageOracle, finite_language

import fstc

try:
    import jsonschema
except ImportError:  # pragma: no cover - depends on the environment
    jsonschema = None

ORDER = {
    "type": "object",
    "properties": {
        "id": {"type": "integer", "minimum": -5, "maximum": 300},
        "item": {"enum": ["tea", "coffee", "water"]},
        "note": {"type": "string", "maxLength": 5},
        "paid": {"type": "boolean"},
    },
    "required": ["id", "item"],
    "additionalProperties": False,
}
TAGS = {
    "type": "array",
    "items": {"type": "string", "pattern": "^[a-z]{1,4}$"},
    "minItems": 1,
    "maxItems": 3,
}


@pytest.fixture(scope="session")
def sentencepiece() -> fstc.Vocabulary:
    return fstc.Vocabulary.from_file(TESTDATA / "sentencepiece" / "tokenizer.json")


@pytest.fixture(scope="session")
def figure4() -> fstc.Vocabulary:
    """The paper's Figure 4 vocabulary (f, oo, foo, for, food) with EOS 5: "o" and "d" are
    no tokens, so some byte paths are no token paths."""
    return fstc.Vocabulary.from_file(TESTDATA / "paper" / "figure4.tiktoken", eos_ids=[5])


# (vocabulary fixture, "regex" or "json", constraint, compile options)
CASES = [
    ("bytelevel", "json", ORDER, {}),
    ("bytelevel", "regex", r"(cat|car|dog)( (and|or) (cat|car|dog)){0,3}\.?", {}),
    ("gpt2", "json", TAGS, {"whitespace": "compact"}),
    ("gpt2", "regex", r"[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2})?", {}),
    ("sentencepiece", "json", ORDER, {"whitespace": "pretty"}),
    ("sentencepiece", "regex", r"([a-zé]+ ?){1,4}(, [0-9]{1,3})?", {}),
    ("figure4", "regex", r"(foo|for)+d?", {}),
    ("figure4", "regex", r"(for|foo)d|f(oo)*", {}),
]


def compile_both(vocab, kind: str, constraint, options: Dict[str, Any]):
    if kind == "json":
        eager, warnings = fstc.compile_json_schema(constraint, vocab, **options)
        lazy, lazy_warnings = fstc.compile_json_schema(constraint, vocab, lazy=True, **options)
        assert warnings == lazy_warnings == []
        return eager, lazy
    return fstc.compile_regex(constraint, vocab, **options), fstc.compile_regex(
        constraint, vocab, lazy=True, **options
    )


def satisfies(kind: str, constraint, text: bytes) -> bool:
    """The independent verdict on a complete walk's text."""
    if kind == "regex":
        return re.fullmatch(constraint.encode(), text) is not None
    instance = json.loads(text)
    if jsonschema is None:  # pragma: no cover - depends on the environment
        return True
    return jsonschema.Draft202012Validator(constraint).is_valid(instance)


class Pair:
    """An eager and a lazy matcher moved together; every query must agree."""

    def __init__(self, eager: fstc.Matcher, lazy: fstc.Matcher, vocab_size: int):
        self.eager, self.lazy = eager, lazy
        self.words = fstc.bitmask_words(vocab_size) + 1  # wider than needed

    def check(self) -> List[int]:
        """Compares every query of the position; returns the allowed tokens."""
        masks = np.full((2, self.words), -1, dtype=np.int32)  # every word must be written
        self.eager.fill_bitmask(masks, 0)
        self.lazy.fill_bitmask(masks, 1)
        assert (masks[0] == masks[1]).all()
        for query in ("is_accepting", "is_terminated", "only_eos_allowed", "forced_tokens",
                      "allowed_tokens"):
            assert getattr(self.eager, query)() == getattr(self.lazy, query)(), query
        assert self.eager.num_accepted == self.lazy.num_accepted
        allowed = self.lazy.allowed_tokens()
        assert allowed == np.flatnonzero(fstc.unpack_bitmask(masks[1:], 32 * self.words)[0]).tolist()
        return allowed

    def both(self, method: str, *args):
        out = getattr(self.eager, method)(*args)
        assert getattr(self.lazy, method)(*args) == out, (method, args)
        return out

    def copy(self) -> "Pair":
        twin = Pair(self.eager.copy(), self.lazy.copy(), 0)
        twin.words = self.words
        return twin


def random_walk(pair: Pair, rng: random.Random, eos: List[int], vocab_size: int, steps: int):
    """Random moves on both matchers: mostly an allowed token, sometimes a refused one,
    a rollback or a switch to copies. Returns the accepted tokens and whether EOS ended
    the walk."""
    tokens: List[int] = []
    for _ in range(steps):
        allowed = pair.check()
        if pair.eager.is_terminated() or not allowed:
            break
        r = rng.random()
        if r < 0.1 and tokens:
            n = rng.randint(1, len(tokens))
            pair.both("rollback", n)
            del tokens[len(tokens) - n :]
        elif r < 0.2:
            refused = [t for t in rng.sample(range(vocab_size + 3), 8) if t not in set(allowed)]
            if refused:
                assert pair.both("accept_token", refused[0]) is False
        elif r < 0.25:
            pair = pair.copy()
        else:
            token = rng.choice(allowed)
            tail = [rng.choice(allowed) for _ in range(3)] + [rng.randrange(vocab_size)]
            pair.both("validate_tokens", [token] + tail)
            assert pair.both("accept_tokens", [token]) is True
            tokens.append(token)
    assert pair.eager.num_accepted == len(tokens)
    for m in (pair.eager, pair.lazy):
        with pytest.raises(fstc.FstcError):
            m.rollback(len(tokens) + 1)
    complete = bool(tokens) and tokens[-1] in eos and pair.eager.is_terminated()
    return (tokens[:-1] if complete else tokens), complete


@pytest.mark.parametrize("fixture,kind,constraint,options", CASES)
def test_lazy_and_eager_matchers_agree_step_by_step(request, fixture, kind, constraint, options):
    vocab = request.getfixturevalue(fixture)
    eager, lazy = compile_both(vocab, kind, constraint, options)
    assert lazy.kind == "lazy" and eager.kind == "fsa"
    assert lazy.vocab_size == eager.vocab_size == vocab.size
    assert lazy.eos_ids == eager.eos_ids == vocab.eos_ids
    assert lazy.vocab_fingerprint == eager.vocab_fingerprint == vocab.fingerprint
    rng = random.Random(f"{fixture} {constraint}")
    complete = 0
    for _ in range(12):
        pair = Pair(fstc.Matcher(eager), fstc.Matcher(lazy), vocab.size)
        tokens, done = random_walk(pair, rng, vocab.eos_ids, vocab.size, 40)
        if done:
            complete += 1
            assert satisfies(kind, constraint, vocab.detokenize(tokens)), tokens
        pair.both("reset")
        pair.check()
    assert 0 < lazy.num_cached_states <= lazy.num_dfa_states
    # The lazy automaton's own walks end only in texts the oracle accepts.
    for tokens, done in lazy.sample(10, seed=3, max_tokens=100):
        complete += done
        if done:
            assert satisfies(kind, constraint, vocab.detokenize(tokens)), tokens
    assert complete > 0


def test_lazy_masks_equal_a_finite_languages_allowed_sets(bytelevel):
    """Every prefix of every word: the mask equals the tokens that continue some word
    (computed from the words alone), EOS exactly after a word."""
    pattern = r"(ab|a|ba){0,3}c?"
    oracle = LanguageOracle(bytelevel, finite_language(pattern, b"abc", 7))
    automaton = fstc.compile_regex(pattern, bytelevel, lazy=True)
    for prefix in sorted(oracle.prefixes):
        m = fstc.Matcher(automaton)
        tokens = bytelevel.tokenize(prefix.decode()) if prefix else []
        assert m.accept_tokens(tokens)
        assert m.allowed_tokens() == oracle.allowed(prefix), prefix
        assert m.is_accepting() == (prefix in oracle.words)


def test_matchers_and_copies_share_the_cache(bytelevel):
    automaton, _ = fstc.compile_json_schema(ORDER, bytelevel, lazy=True)
    assert automaton.num_cached_states == 0
    text = bytelevel.tokenize('{"id": 7, "item": "tea"}')
    first = fstc.Matcher(automaton)
    assert first.accept_tokens(text) and first.is_accepting()
    allowed = first.allowed_tokens()  # composes the state reached
    cached = automaton.num_cached_states
    assert cached > 0
    # A second matcher on the same path composes nothing new, nor does a copy.
    second = fstc.Matcher(automaton)
    assert second.accept_tokens(text)
    assert first.copy().allowed_tokens() == second.allowed_tokens() == allowed
    assert automaton.num_cached_states == cached
    assert isinstance(second.automaton, fstc.LazyAutomaton)
    assert second.automaton.num_cached_states == cached


def test_batch_fill_from_threads_equals_one_by_one(bytelevel):
    """Many matchers at cold states, filled in parallel (`fill_bitmasks` without the GIL)
    and from Python threads at once, give the masks an eager automaton gives."""
    eager, lazy = compile_both(bytelevel, "json", ORDER, {})
    prefixes = ['{"id": ', '{"id": 12, "item": "', '{"id": 3, "item": "water", "note": "', "{"]
    tokens = [bytelevel.tokenize(p) for p in prefixes] * 3
    lazy_matchers = [fstc.Matcher(lazy) for _ in tokens]
    for m, t in zip(lazy_matchers, tokens):
        assert m.accept_tokens(t)
    words = fstc.bitmask_words(bytelevel.size)
    expected = np.zeros((len(tokens), words), np.int32)
    for i, t in enumerate(tokens):
        m = fstc.Matcher(eager)
        assert m.accept_tokens(t)
        m.fill_bitmask(expected, i)
    batch = np.zeros_like(expected)
    fstc.fill_bitmasks(lazy_matchers, batch)
    assert (batch == expected).all()
    rows = np.zeros_like(expected)
    fresh = fstc.compile_json_schema(ORDER, bytelevel, lazy=True)[0]
    matchers = [fstc.Matcher(fresh) for _ in tokens]
    for m, t in zip(matchers, tokens):
        assert m.accept_tokens(t)
    threads = [threading.Thread(target=m.fill_bitmask, args=(rows, i)) for i, m in enumerate(matchers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert (rows == expected).all()


def test_a_lazy_automaton_has_no_file_form(bytelevel):
    automaton = fstc.compile_regex("[0-9]+", bytelevel, lazy=True)
    for method in ("save", "to_bytes"):
        assert not hasattr(automaton, method)
    assert repr(automaton).startswith("LazyAutomaton(dfa_states=")


def test_lazy_errors_are_clean(bytelevel):
    cases = [
        # (call, error, words the message must contain)
        (lambda: fstc.compile_regex("[0-9", bytelevel, lazy=True), fstc.FstcError,
         r"at bytes 0\.\.1 \(`\[`\): unclosed character class"),
        (lambda: fstc.compile_regex("a{3,1}", bytelevel, lazy=True), fstc.FstcError,
         r"at bytes 1\.\.6 \(`\{3,1\}`\)"),
        (lambda: fstc.compile_regex("(?P<TEXT_TOKEN>)x", bytelevel, lazy=True), fstc.FstcError,
         "terminal labels"),
        (lambda: fstc.compile_regex("[0-9]{1,500}", bytelevel, lazy=True, dfa_state_limit=10),
         fstc.FstcError, "state limit"),
        (lambda: fstc.compile_regex("a", bytelevel, lazy=True, token_edge_limit=5), ValueError,
         "token_edge_limit cannot be used with lazy=True"),
        (lambda: fstc.compile_regex("a", bytelevel, lazy=True, image_tokens=[7]), ValueError,
         "image_tokens cannot be used with lazy=True"),
        (lambda: fstc.compile_json_schema("{not json", bytelevel, lazy=True), fstc.FstcError, "JSON"),
        (lambda: fstc.compile_json_schema({"type": "strng"}, bytelevel, lazy=True), fstc.FstcError,
         "strng"),
        (lambda: fstc.compile_json_schema({"type": "array", "uniqueItems": True}, bytelevel,
                                          lazy=True), fstc.FstcError, r"`uniqueItems` at the schema root \(#\)"),
        (lambda: fstc.compile_json_schema({"type": "string"}, bytelevel, lazy=True,
                                          token_edge_limit=5), ValueError, "token_edge_limit"),
        (lambda: fstc.Matcher("not an automaton"), TypeError, "an AnyAutomaton or a LazyAutomaton"),
    ]
    for call, error, words in cases:
        with pytest.raises(error, match=words):
            call()
    # Lenient: the warning comes back beside the lazy automaton, as for an eager one.
    schema = {"type": "array", "uniqueItems": True, "maxItems": 2}
    automaton, warnings = fstc.compile_json_schema(schema, bytelevel, lazy=True, lenient=True)
    assert isinstance(automaton, fstc.LazyAutomaton)
    assert [(w.pointer, w.keyword) for w in warnings] == [("", "uniqueItems")]


def test_a_language_empty_at_the_token_level_is_refused(figure4):
    """"od" is a byte text but no token sequence spells it (no "o", no "d" token): both
    compiles refuse the constraint rather than give a matcher with nothing allowed."""
    for lazy in (False, True):
        with pytest.raises(fstc.FstcError, match="the vocabulary cannot spell any matching text"):
            fstc.compile_regex("od", figure4, lazy=lazy)


#: Arrays nested in four ways at once: a lazy state's stacks multiply with the depth.
AMBIGUOUS_NESTING = {
    "anyOf": [
        {"type": "array", "items": {"$ref": "#"}},
        {"type": "array", "items": {"$ref": "#"}, "maxItems": 5},
        {"type": "array", "items": {"$ref": "#"}, "minItems": 1},
        {"type": "integer"},
    ]
}


def test_state_work_limit_bounds_a_lazy_states_composition(bytelevel):
    """`state_work_limit` (the Rust `LazyAutomaton::set_state_work_limit`, C's option of
    the same name): a cold state past it raises `FstcError` from the call that needed it,
    consuming nothing; without it the same walk composes every state."""
    open_bracket = next(t for t in range(len(bytelevel)) if bytelevel.token_bytes(t) == b"[")

    def walk(**options):
        automaton, _ = fstc.compile_json_schema(
            AMBIGUOUS_NESTING, bytelevel, lazy=True, recursion_depth=8, **options
        )
        m = fstc.Matcher(automaton)
        for depth in range(8):
            try:
                assert open_bracket in m.allowed_tokens()
            except fstc.FstcError as e:
                assert m.num_accepted == depth
                return str(e)
            assert m.accept_token(open_bracket)
        return None

    message = walk(state_work_limit=2_000)
    assert message is not None and "more than 2000 steps" in message, message
    assert walk() is None
    assert walk(state_work_limit=2**64 - 1) is None
    with pytest.raises(ValueError, match="state_work_limit needs lazy=True"):
        fstc.compile_json_schema({"type": "integer"}, bytelevel, state_work_limit=10)
    with pytest.raises(ValueError, match="state_work_limit needs lazy=True"):
        fstc.compile_structural_tag(TOOL_TAG, bytelevel, state_work_limit=10)
    with pytest.raises(fstc.FstcError, match="argument 'state_work_limit'"):
        fstc.compile_json_schema({"type": "integer"}, bytelevel, lazy=True, state_work_limit=-1)
    with pytest.raises(TypeError):
        fstc.compile_regex("a", bytelevel, lazy=True, state_work_limit=10)
