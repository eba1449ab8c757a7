"""The operations on compiled automata and compile_expr from Python: results are the files
of the combined patterns, acceptance matches Python's ``re`` on every text of a small
alphabet, the token-level operations equal the expression compiled on bytes, and bad
operands raise ``FstcError`` naming what is wrong."""

from __future__ import annotations

import itertools
import json
import re
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fstc
from conftest import TESTDATA

#: The byte-level fixture, loaded once for the property test (hypothesis runs without fixtures).
VOCAB = fstc.Vocabulary.from_file(TESTDATA / "bytelevel" / "tokenizer.json")


def texts(alphabet: str, max_len: int):
    for n in range(max_len + 1):
        for t in itertools.product(alphabet, repeat=n):
            yield "".join(t)


def accepts(automaton, tokens) -> bool:
    m = fstc.Matcher(automaton)
    return m.accept_tokens(tokens) and m.is_accepting()


def test_operations_are_the_files_of_the_combined_patterns(bytelevel):
    a = fstc.compile_regex("[a-c]+", bytelevel)
    b = fstc.compile_regex(".{2,3}", bytelevel)
    for op, pattern in [
        (fstc.intersect, "[a-c]{2,3}"),
        (fstc.union, "[a-c]+|.{2,3}"),
        (fstc.difference, "[a-c]|[a-c]{4,}"),
    ]:
        got = op(a, b)
        assert got.kind == "fsa"
        assert got.to_bytes() == fstc.compile_regex(pattern, bytelevel).to_bytes(), pattern


def test_complement_accepts_exactly_the_other_texts(bytelevel):
    a = fstc.compile_regex("[a-c]+", bytelevel)
    c = fstc.compile_regex("[a-d]{1,3}", bytelevel)
    not_a = fstc.complement(a, bytelevel)
    both = fstc.intersect(c, not_a)
    assert both.to_bytes() == fstc.difference(c, a).to_bytes()
    for t in texts("abcd", 3):
        expected = re.fullmatch("[a-d]{1,3}", t) is not None and re.fullmatch("[a-c]+", t) is None
        assert accepts(both, bytelevel.tokenize(t)) == expected, t
        assert accepts(not_a, bytelevel.tokenize(t)) == (re.fullmatch("[a-c]+", t) is None), t


def test_equivalent_and_shortest(bytelevel):
    compile = lambda p: fstc.compile_regex(p, bytelevel)  # noqa: E731
    assert fstc.equivalent(compile("a+"), compile("aa*")) is None
    assert fstc.equivalent(compile("(ab)*a"), compile("a(ba)*")) is None
    a, b = compile("(ab|cd)x"), compile("(ab|cd|ce)x")
    tokens, accepted_by_a = fstc.equivalent(a, b)
    assert bytelevel.detokenize(tokens) == b"cex" and not accepted_by_a
    assert accepts(b, tokens) and not accepts(a, tokens)
    shortest = fstc.shortest(b)
    assert bytelevel.detokenize(shortest) in (b"abx", b"cdx", b"cex")
    assert len(shortest) <= min(len(bytelevel.tokenize(t)) for t in ("abx", "cdx", "cex"))
    assert fstc.shortest(fstc.difference(a, a)) is None


def run_att(att: str, text: bytes) -> bool:
    """Runs an AT&T acceptor (labels byte + 1, deterministic) on `text`."""
    arcs, finals = {}, set()
    for line in att.splitlines():
        f = line.split()
        if len(f) >= 4:
            arcs[(int(f[0]), int(f[2]))] = int(f[1])
        elif f:
            finals.add(int(f[0]))
    state = 0
    for byte in text:
        state = arcs.get((state, byte + 1))
        if state is None:
            return False
    return state in finals


def test_project_gives_the_texts(bytelevel):
    a = fstc.compile_regex("[a-c]+d?", bytelevel)
    att = fstc.project(a, bytelevel)
    for t in texts("abcd", 4):
        assert run_att(att, t.encode()) == (re.fullmatch("[a-c]+d?", t) is not None), t
    fst = fstc.project(a, bytelevel, format="fst")
    assert isinstance(fst, bytes) and fst[:4] == bytes([0xD6, 0xFD, 0xB2, 0x7E])
    assert fstc.project(a, bytelevel, format="dot").startswith("digraph")


def test_bad_operands_are_refused_by_name(bytelevel, gpt2):
    a = fstc.compile_regex("[a-c]+", bytelevel)
    pda = fstc.compile_grammar('root ::= "a" root "b" | "c"', bytelevel)
    with pytest.raises(fstc.FstcError, match="token PDA"):
        fstc.union(a, pda)
    with pytest.raises(fstc.FstcError, match="token PDA"):
        fstc.intersect(pda, pda)
    other = fstc.compile_regex("[a-c]+", gpt2)
    with pytest.raises(fstc.FstcError, match="different vocabularies"):
        fstc.union(a, other)
    with pytest.raises(fstc.FstcError, match="another vocabulary"):
        fstc.complement(a, gpt2)
    with pytest.raises(ValueError, match="format must be"):
        fstc.project(a, bytelevel, format="svg")
    with pytest.raises(fstc.FstcError, match="state limit|states"):
        fstc.intersect(a, fstc.compile_regex(".{2,9}", bytelevel), state_limit=2)


def test_compile_expr_in_all_three_spellings(bytelevel, tmp_path):
    expected = fstc.compile_regex("[a-c]{2,3}", bytelevel).to_bytes()
    text = 'intersect(regex("[a-c]+"), regex(".{2,3}"))'
    tree = {"intersect": [{"regex": "[a-c]+"}, {"regex": ".{2,3}"}]}
    for expr in (text, json.dumps(tree), tree):
        for level in ("bytes", "tokens"):
            automaton, warnings = fstc.compile_expr(expr, bytelevel, boolean_level=level)
            assert automaton.to_bytes() == expected and warnings == [], (expr, level)
    (tmp_path / "n.json").write_text('{"type": "integer", "minimum": 0}')
    answer, _ = fstc.compile_expr(
        {"concat": [{"text": "n="}, {"json": "n.json"}]}, bytelevel, base_dir=tmp_path
    )
    for t, yes in [("n=42", True), ("n=-1", False), ("42", False)]:
        assert accepts(answer, bytelevel.tokenize(t)) == yes, t


def test_compile_expr_token_bounds(bytelevel):
    bounded, _ = fstc.compile_expr('intersect(regex("[a-c]{2,12}"), max_tokens(3))', bytelevel)
    for tokens, complete in bounded.sample(200, seed=5, max_tokens=8):
        if complete:
            assert len(tokens) <= 3
            assert re.fullmatch(b"[a-c]{2,12}", bytelevel.detokenize(tokens))
    bound, _ = fstc.compile_expr("max_tokens(3)", bytelevel)
    by_hand = fstc.intersect(fstc.compile_regex("[a-c]{2,12}", bytelevel), bound)
    assert by_hand.to_bytes() == bounded.to_bytes()


def test_compile_expr_keywords_set_parameters_and_schema_options(bytelevel, tmp_path):
    bound, _ = fstc.compile_expr('intersect(regex("[a-c]{2,12}"), max_tokens(n=3))', bytelevel)
    positional, _ = fstc.compile_expr('intersect(regex("[a-c]{2,12}"), max_tokens(3))', bytelevel)
    assert bound.to_bytes() == positional.to_bytes()
    (tmp_path / "o.json").write_text('{"type": "object", "properties": {"a": {"type": "integer"}}}')
    # The call's keyword is the function's option for that schema alone.
    for expr in ('json("o.json", whitespace="compact")',
                 {"json": "o.json", "whitespace": "compact"}):
        by_keyword, _ = fstc.compile_expr(expr, bytelevel, base_dir=tmp_path)
        by_option, _ = fstc.compile_expr(
            'json("o.json")', bytelevel, base_dir=tmp_path, whitespace="compact"
        )
        assert by_keyword.to_bytes() == by_option.to_bytes(), expr
    for t, yes in [('{"a":1}', True), ('{"a": 1}', False)]:
        assert accepts(by_keyword, bytelevel.tokenize(t)) == yes, t
    with pytest.raises(fstc.FstcError, match="column 16: unknown keyword `indnt` of `json`"):
        fstc.compile_expr('json("o.json", indnt=2)', bytelevel, base_dir=tmp_path)
    with pytest.raises(fstc.FstcError, match="at /indnt: unknown keyword `indnt`"):
        fstc.compile_expr({"json": "o.json", "indnt": 2}, bytelevel, base_dir=tmp_path)


def test_compile_expr_errors_name_the_place(bytelevel):
    with pytest.raises(fstc.FstcError, match=r"expression at column 18: expected `,` or `\)`"):
        fstc.compile_expr('union(regex("a") text("b"))', bytelevel)
    with pytest.raises(fstc.FstcError, match="expression at /union/1/star: expected an expression"):
        fstc.compile_expr({"union": [{"regex": "a"}, {"star": 3}]}, bytelevel)
    with pytest.raises(fstc.FstcError, match="column 20: `concat` joins texts"):
        fstc.compile_expr('concat(regex("a"), max_tokens(2))', bytelevel)
    with pytest.raises(ValueError, match="boolean_level"):
        fstc.compile_expr('regex("a")', bytelevel, boolean_level="both")


PATTERNS = ["[a-c]+", "a*b?", "(ab|c)*", "[b-d]{1,3}", "c|ab|ba", ".{0,2}", "a(b|c)*d?"]


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(PATTERNS), st.sampled_from(PATTERNS))
def test_token_operations_equal_the_expression_on_bytes(p, q):
    """fstc.intersect etc. on compiled files (a product of token automata) against the
    same operation on byte automata composed once (compile_expr)."""
    vocab = VOCAB
    a, b = fstc.compile_regex(p, vocab), fstc.compile_regex(q, vocab)
    leaves = f"regex({json.dumps(p)}), regex({json.dumps(q)})"
    for op, name in [(fstc.intersect, "intersect"), (fstc.union, "union"), (fstc.difference, "difference")]:
        try:
            on_bytes, _ = fstc.compile_expr(f"{name}({leaves})", vocab)
        except fstc.FstcError as e:
            assert "accepts no token sequence" in str(e)
            assert op(a, b).num_accepting == 0
            continue
        assert op(a, b).to_bytes() == on_bytes.to_bytes(), (name, p, q)


BRACKETS = 'root ::= item*\nitem ::= "(" item* ")" | "[" item* "]"'

JSONISH = (
    "root ::= value\n"
    'value ::= "[" (value ("," value)*)? "]" | "{" (pair ("," pair)*)? "}" | [0-9]+ | str\n'
    'pair ::= str ":" value\nstr ::= "\\"" [a-z]* "\\""\n'
)


def balanced(text: bytes) -> bool:
    stack = []
    for c in text.decode():
        if c in "([":
            stack.append(")" if c == "(" else "]")
        elif not stack or stack.pop() != c:
            return False
    return not stack


def test_a_grammar_intersected_with_a_bound_is_a_pda_without_dead_ends(bytelevel):
    pda = fstc.compile_grammar(BRACKETS, bytelevel)
    bound, _ = fstc.compile_expr("max_tokens(4)", bytelevel)
    both = fstc.intersect(pda, bound)
    assert both.kind == "pda"
    assert fstc.intersect(bound, pda).to_bytes() == both.to_bytes()
    expr, _ = fstc.compile_expr({"intersect": [{"grammar": BRACKETS}, {"max_tokens": 4}]}, bytelevel)
    assert expr.to_bytes() == both.to_bytes()
    finished = 0
    for tokens, complete in both.sample(300, seed=3, max_tokens=10):
        # No dead ends: within the bound, every walk reaches EOS.
        assert complete, tokens
        assert len(tokens) <= 4 and balanced(bytelevel.detokenize(tokens)), tokens
        finished += 1
    assert finished == 300
    for text, yes in [("([])", True), ("()[]", True), ("(((())))", False), ("(]", False)]:
        assert accepts(both, bytelevel.tokenize(text)) == (yes and len(bytelevel.tokenize(text)) <= 4), text


def test_compile_expr_grammar_errors_name_the_place(bytelevel):
    with pytest.raises(fstc.FstcError, match="column 19: `concat` joins texts, and this operand is a grammar"):
        fstc.compile_expr('concat(text("x"), grammar("root ::= [a-z]+"))', bytelevel)


def test_compile_expr_budgets_raise_instead_of_hanging(bytelevel):
    # A bound on bytes (a token bound alone now takes tens of milliseconds): the general
    # product and its dead-end analysis take seconds.
    heavy = {"intersect": [{"grammar": JSONISH}, {"regex": "(?s:.){0,400}"}]}
    started = time.monotonic()
    with pytest.raises(fstc.FstcError, match="time budget"):
        fstc.compile_expr(heavy, bytelevel, time_budget=0.3)
    assert time.monotonic() - started < 5
    with pytest.raises(fstc.FstcError, match="memory budget of 1000 bytes"):
        fstc.compile_expr('intersect(regex("[a-z]{1,30}"), regex("[a-m]*"))', bytelevel, memory_budget=1000)


def test_operations_take_the_budgets_of_the_cli(bytelevel):
    a = fstc.compile_regex("[a-c]+", bytelevel)
    b = fstc.compile_regex("[a-c]*", bytelevel)
    ops = {
        "intersect": lambda **k: fstc.intersect(a, b, **k),
        "union": lambda **k: fstc.union(a, b, **k),
        "difference": lambda **k: fstc.difference(b, a, **k),
        "complement": lambda **k: fstc.complement(a, bytelevel, **k),
        "equivalent": lambda **k: fstc.equivalent(a, b, **k),
    }
    past_time = r"past its deadline \(the time budget\) \(`time_budget`\)"
    for name, op in ops.items():
        # No time at all: each operation reads the clock before its first product state.
        with pytest.raises(fstc.FstcError, match=past_time):
            op(time_budget=0)
        with pytest.raises(fstc.FstcError, match=r"past its memory limit of 100 bytes \(`memory_budget`\)"):
            op(memory_budget=100)
        with pytest.raises(fstc.FstcError, match=r"more than 1 product states \(the state limit\)"):
            op(state_limit=1)
        # Within its budgets the same call gives what it gives without them.
        within = op(time_budget=600, memory_budget=1 << 30, state_limit=1000)
        unbounded = op()
        if name == "equivalent":
            # `[a-c]*` accepts the empty sequence and `[a-c]+` does not.
            assert within == unbounded == ([], False), name
        else:
            assert within.to_bytes() == unbounded.to_bytes(), name
        with pytest.raises(fstc.FstcError, match="argument 'time_budget' must be a number of seconds from 0, got -1"):
            op(time_budget=-1.0)
        with pytest.raises(fstc.FstcError, match="argument 'memory_budget' must be an integer from 0"):
            op(memory_budget=-1)
    with pytest.raises(fstc.FstcError, match=r"the shortest path ran past its deadline .*`time_budget`"):
        fstc.shortest(a, time_budget=0)
    assert fstc.shortest(a, time_budget=600) == fstc.shortest(a)
    with pytest.raises(fstc.FstcError, match=r"the projection ran past its deadline .*`time_budget`"):
        fstc.project(a, bytelevel, time_budget=0)
    assert fstc.project(a, bytelevel, time_budget=600) == fstc.project(a, bytelevel)


def test_a_grammar_intersection_stops_at_its_budgets(bytelevel):
    pda = fstc.compile_grammar(JSONISH, bytelevel)
    bytes_bound = fstc.compile_regex("(?s:.){0,40}", bytelevel)
    with pytest.raises(fstc.FstcError, match=r"past its deadline \(the time budget\) \(`time_budget`\)"):
        fstc.intersect(pda, bytes_bound, time_budget=0)
    with pytest.raises(fstc.FstcError, match=r"past its memory limit of 1000 bytes \(`memory_budget`\)"):
        fstc.intersect(bytes_bound, pda, memory_budget=1000)
    both = fstc.intersect(pda, bytes_bound, time_budget=600)
    assert both.kind == "pda" and accepts(both, bytelevel.tokenize('{"a":[1,2]}'))


def test_export_refuses_what_it_cannot_write(bytelevel):
    pda = fstc.compile_grammar('root ::= "(" root ")" | "x"', bytelevel)
    with pytest.raises(fstc.FstcError, match="export takes token FSAs; this is a token PDA"):
        fstc.export(pda)
    with pytest.raises(fstc.FstcError, match=r"needs more than 1 arcs \(one per token edge; the arc limit\)"):
        fstc.export(fstc.compile_regex("[a-c]+x", bytelevel), arc_limit=1)
    with pytest.raises(ValueError, match='format must be "fst" or "att"'):
        fstc.export(bytelevel, format="dot")
    with pytest.raises(TypeError, match="export takes an AnyAutomaton"):
        fstc.export("a.fstc")


def test_export_takes_the_budgets_of_the_cli(bytelevel):
    a = fstc.compile_regex("[a-c]+x", bytelevel)
    for what in (a, bytelevel):
        with pytest.raises(fstc.FstcError, match=r"OpenFst export ran past its deadline .*\(`time_budget`\)"):
            fstc.export(what, time_budget=0)
        with pytest.raises(fstc.FstcError, match=r"and its file, past its memory limit of 100 bytes \(`memory_budget`\)"):
            fstc.export(what, memory_budget=100)
        for format in ("fst", "att"):
            within = fstc.export(what, format=format, time_budget=600, memory_budget=1 << 30)
            assert within == fstc.export(what, format=format)
        with pytest.raises(fstc.FstcError, match="argument 'memory_budget' must be an integer from 0"):
            fstc.export(what, memory_budget=-1)
