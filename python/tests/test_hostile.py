"""Hostile use of the Python API (issue 27): every integer argument out of range is an
``FstcError`` (a ``ValueError``) naming the argument, never an ``OverflowError`` or a
crash; ids outside the vocabulary are errors; one matcher may be used from several
threads; forged and mutated automaton files load or fail cleanly, and what loads walks
in bounded work. Generated cases use hypothesis with a fixed example budget."""

from __future__ import annotations

import json
import threading

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import TESTDATA
from forge import forged

import fstc

HUGE = [-1, -(2**63), 2**32, 2**64, 2**200]


def raises_naming(name, f, *args, **kwargs):
    with pytest.raises(fstc.FstcError, match=f"argument '{name}'"):
        f(*args, **kwargs)


@pytest.fixture(scope="module")
def digits(bytelevel):
    return fstc.compile_regex(r"[0-9]{1,6}", bytelevel)


@pytest.fixture(scope="module")
def lazy_digits(bytelevel):
    return fstc.compile_regex(r"[0-9]{1,6}(,[0-9]{1,6})*", bytelevel, lazy=True)


def test_out_of_range_integers_name_the_argument(bytelevel, digits, lazy_digits):
    bitmask = fstc.allocate_token_bitmask(2, digits.vocab_size)
    for value in HUGE:
        m = fstc.Matcher(digits)
        if value > 0:
            # Within usize on 64 bits: a valid count that is merely large.
            if value < 2**64:
                with pytest.raises(fstc.FstcError, match="rolled|roll|accepted"):
                    m.rollback(value)
            else:
                raises_naming("n", m.rollback, value)
        else:
            raises_naming("n", m.rollback, value)
            raises_naming("stack_limit", fstc.Matcher, digits, stack_limit=value)
            raises_naming("config_limit", fstc.Matcher, digits, config_limit=value)
            raises_naming("config_limit", fstc.compile_grammar, 'root ::= "a"', bytelevel, config_limit=value)
            raises_naming("count", digits.sample, value)
            raises_naming("max_tokens", lazy_digits.sample, 1, max_tokens=value)
            raises_naming("seed", digits.sample, 1, seed=value)
            raises_naming("dfa_state_limit", fstc.compile_regex, "a", bytelevel, dfa_state_limit=value)
            raises_naming("node_limit", fstc.compile_grammar, 'root ::= "a"', bytelevel, node_limit=value)
            raises_naming("indent", fstc.compile_json_schema, {}, bytelevel, whitespace="pretty", indent=value)
            raises_naming("any_json_depth", fstc.compile_json_schema, {}, bytelevel, any_json_depth=value)
            path = TESTDATA / "bytelevel" / "tokenizer.json"
            raises_naming("eos_ids", fstc.Vocabulary.from_file, path, eos_ids=[value])
        raises_naming("index", m.fill_bitmask, bitmask, value)
        raises_naming("indices", fstc.fill_bitmasks, [m], bitmask, indices=[value])
        raises_naming("id", bytelevel.token_bytes, value)
        raises_naming("tokens", bytelevel.detokenize, [65, value])
        if value < 0 or value >= 2**64:
            raises_naming("pop_limit", fstc.compile_grammar, 'root ::= "a"', bytelevel, pop_limit=value)
            raises_naming("token_edge_limit", fstc.compile_regex, "a", bytelevel, token_edge_limit=value)
            raises_naming("recursion_depth", fstc.compile_json_schema, {}, bytelevel, recursion_depth=value)
            raises_naming("max_whitespace", fstc.compile_json_schema, {}, bytelevel, max_whitespace=value)
        # A token id of any size that is no token is simply not allowed.
        assert m.accept_tokens([value]) is False
        assert m.accept_token(value) is False
        assert m.validate_tokens([value]) == 0
        assert m.num_accepted == 0


def test_option_values_past_their_maximum_are_errors(bytelevel):
    with pytest.raises(fstc.FstcError, match="any_json_depth is 12, over its maximum 5"):
        fstc.compile_json_schema({}, bytelevel, any_json_depth=12, lazy=False)
    # A lazy compile calls each level instead of copying it: deeper, to its own maximum.
    fstc.compile_json_schema({}, bytelevel, any_json_depth=12, lazy=True)
    with pytest.raises(fstc.FstcError, match=r"any_json_depth \(lazy compile\) is 65, over its maximum 64"):
        fstc.compile_json_schema({}, bytelevel, any_json_depth=65, lazy=True)
    with pytest.raises(fstc.FstcError, match="indent is 1099511627776"):
        fstc.compile_json_schema({"type": "integer"}, bytelevel, whitespace="pretty", indent=2**40)
    with pytest.raises(fstc.FstcError, match="recursion_depth is 300"):
        fstc.compile_json_schema({"items": {"$ref": "#"}, "minItems": 1}, bytelevel, recursion_depth=300)


def test_ids_outside_the_vocabulary_are_errors(bytelevel):
    n = len(bytelevel)
    with pytest.raises(fstc.FstcError, match=f"from 0 to {n - 1}, got {n}"):
        bytelevel.detokenize([n])
    with pytest.raises(fstc.FstcError, match="argument 'id'"):
        bytelevel.token_bytes(n)
    assert bytelevel.detokenize([bytelevel.tokenize("12")[0]]) == b"12"


def test_a_5000_ref_alias_chain_is_an_error_not_a_crash(bytelevel):
    defs = {f"d{i}": {"$ref": f"#/$defs/d{i + 1}"} for i in range(5000)}
    defs["d5000"] = {"type": "integer"}
    schema = {"$ref": "#/$defs/d0", "$defs": defs}
    with pytest.raises(fstc.FstcError, match=r"#/\$defs/d\d+: sub-schemas and `\$ref`s nest"):
        fstc.compile_json_schema(json.dumps(schema), bytelevel)


@pytest.mark.parametrize("lazy", [False, True])
def test_one_matcher_from_four_threads(bytelevel, digits, lazy_digits, lazy):
    automaton = lazy_digits if lazy else digits
    m = fstc.Matcher(automaton)
    one = bytelevel.tokenize("1")[0]
    errors = []
    rows = fstc.allocate_token_bitmask(4, automaton.vocab_size)

    def work(k):
        try:
            for _ in range(300):
                m.fill_bitmask(rows, k)
                if m.accept_tokens([one]):
                    m.rollback(1)
                m.allowed_tokens()
                m.forced_tokens()
                m.validate_tokens([one, one])
                fstc.fill_bitmasks([m, m], rows[k : k + 1].repeat(2, axis=0))
                m.copy().accept_token(one)
        except Exception as e:  # noqa: BLE001 - any exception fails the test below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert m.num_accepted == 0
    assert fstc.unpack_bitmask(rows, automaton.vocab_size)[0, one]


def test_a_header_claiming_2_31_tokens_is_refused(digits):
    data = forged(digits.to_bytes(), {6: 2**31})
    with pytest.raises(fstc.FstcError, match="vocab_size 2147483648"):
        fstc.AnyAutomaton.from_bytes(data)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    edits=st.dictionaries(st.integers(4, 30), st.integers(0, 2**32 - 1), min_size=1, max_size=3),
)
def test_forged_headers_load_or_fail_cleanly(digits, edits):
    data = forged(digits.to_bytes(), edits)
    try:
        a = fstc.AnyAutomaton.from_bytes(data)
    except fstc.FstcError:
        return
    # What loads walks in work bounded by the walk's length.
    for tokens, _ in a.sample(2, max_tokens=8):
        assert len(tokens) <= 8
    m = fstc.Matcher(a)
    m.fill_bitmask(fstc.allocate_token_bitmask(1, a.vocab_size))


INT_ARGS = st.one_of(st.integers(), st.integers(-(2**70), 2**70), st.sampled_from(HUGE + [0, 1]))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=INT_ARGS, which=st.integers(0, 7))
def test_any_integer_is_a_result_or_an_fstc_error(bytelevel, digits, value, which):
    m = fstc.Matcher(digits)
    calls = [
        lambda: m.rollback(value),
        lambda: m.fill_bitmask(fstc.allocate_token_bitmask(1, digits.vocab_size), value),
        lambda: m.accept_tokens([value, value]),
        lambda: bytelevel.token_bytes(value),
        lambda: bytelevel.detokenize([value]),
        lambda: digits.sample(min(abs(value), 3) if value >= 0 else value, max_tokens=4),
        lambda: fstc.Matcher(digits, stack_limit=value),
        lambda: fstc.compile_regex("[0-9]", bytelevel, dfa_state_limit=value),
    ]
    try:
        calls[which]()
    except fstc.FstcError:
        pass


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    schema=st.recursive(
        st.sampled_from([True, {"type": "integer"}, {"$ref": "#"}, {"type": "string", "maxLength": 10**9}]),
        lambda inner: st.one_of(
            st.builds(lambda s: {"items": s}, inner),
            st.builds(lambda s: {"properties": {"a": s}, "required": ["a"]}, inner),
            st.lists(inner, min_size=1, max_size=3).map(lambda v: {"anyOf": v}),
        ),
        max_leaves=12,
    ),
    depth=st.integers(0, 2**64),
)
def test_hostile_schemas_are_a_result_or_an_fstc_error(bytelevel, schema, depth):
    try:
        fstc.compile_json_schema(
            json.dumps(schema), bytelevel, recursion_depth=depth, dfa_state_limit=2000, lazy=True
        )
    except fstc.FstcError:
        pass


def ambiguous_grammar(n):
    """``n`` alternatives that one byte of lookahead never decides: over a minute and
    1.8 GB to compile unbudgeted at 5,000."""
    alts = " | ".join(f"r{i}" for i in range(n))
    rules = "".join(f'r{i} ::= "w{i}" root?\n' for i in range(n))
    return f"root ::= {alts}\n{rules}"


def test_grammar_compiles_stop_at_their_budgets(bytelevel):
    text = ambiguous_grammar(4000)
    with pytest.raises(fstc.FstcError, match=r"time budget of 300ms .*line \d+, column 1\).*time_budget"):
        fstc.compile_grammar(text, bytelevel, time_budget=0.3)
    with pytest.raises(fstc.FstcError, match=r"memory budget of 10000000 bytes .*column 1\).*memory_budget"):
        fstc.compile_grammar(text, bytelevel, memory_budget=10_000_000)
    for value in [-1.0, float("nan"), 1e300]:
        with pytest.raises(fstc.FstcError, match="argument 'time_budget'"):
            fstc.compile_grammar('root ::= "a"', bytelevel, time_budget=value)
    raises_naming("memory_budget", fstc.compile_grammar, 'root ::= "a"', bytelevel, memory_budget=-1)
    fstc.compile_grammar('root ::= "a"', bytelevel, time_budget=60, memory_budget=1 << 30)


def test_regex_compiles_stop_at_their_budgets(bytelevel):
    """The pattern that ran past 150 s under ``dfa_state_limit=10_000_000`` ends at the
    time budget; ``[ab]*a[ab]{18}``'s 2^19 byte-DFA states end at a 1 MB memory budget,
    eagerly and lazily; the options are checked as the other compiles' are."""
    with pytest.raises(fstc.FstcError, match=r"time budget.*time_budget, `--time-budget`"):
        fstc.compile_regex(r"((?:([\s\S])?\b\p{L}){10,11})*", bytelevel, dialect="ecmascript",
                           dfa_state_limit=10_000_000, time_budget=0.3)
    for lazy in [False, True]:
        with pytest.raises(fstc.FstcError, match=r"memory budget of 1000000 bytes.*memory_budget"):
            fstc.compile_regex("[ab]*a[ab]{18}", bytelevel, lazy=lazy, dfa_state_limit=1 << 21,
                               memory_budget=1_000_000)
    for value in [-1.0, float("nan"), 1e300]:
        with pytest.raises(fstc.FstcError, match="argument 'time_budget'"):
            fstc.compile_regex("a", bytelevel, time_budget=value)
    raises_naming("memory_budget", fstc.compile_regex, "a", bytelevel, memory_budget=-1)
    fstc.compile_regex("a", bytelevel, time_budget=60, memory_budget=1 << 30)


SCHEMA_KEYWORDS = ["not", "if", "then", "else", "allOf", "anyOf", "oneOf", "items", "prefixItems",
                   "additionalItems", "contains", "properties", "patternProperties",
                   "additionalProperties", "propertyNames", "dependentSchemas", "dependencies",
                   "unevaluatedProperties", "unevaluatedItems"]


def wrapped(keyword, inner):
    if keyword in ("allOf", "anyOf", "oneOf", "prefixItems"):
        return {keyword: [inner]}
    if keyword in ("properties", "dependentSchemas", "dependencies"):
        return {keyword: {"a": inner}}
    if keyword == "patternProperties":
        return {keyword: {"^a": inner}}
    if keyword in ("then", "else"):
        return {"if": {"type": "object"}, keyword: inner}
    if keyword == "additionalItems":
        return {"items": [True], keyword: inner}
    return {keyword: inner}


def on_small_stack(f):
    """Runs ``f`` on a thread with a 2 MiB stack (a server worker's), re-raising its error."""
    out = {}

    def run():
        try:
            out["value"] = f()
        except BaseException as e:  # noqa: BLE001 - handed to the caller
            out["error"] = e

    old = threading.stack_size(2 << 20)
    try:
        t = threading.Thread(target=run)
        t.start()
        t.join()
    finally:
        threading.stack_size(old)
    if "error" in out:
        raise out["error"]
    return out.get("value")


def test_deep_schemas_through_every_keyword_raise_on_a_small_stack(bytelevel):
    """Nested in the text past JSON's 127 levels, or chained through ``$ref``s past the
    translation's bound, through every keyword that holds schemas: an ``FstcError``
    naming where, never a crash; a dict nested deeper than Python's own recursion limit
    is a ``ValueError`` from serializing it."""
    def run():
        for keyword in SCHEMA_KEYWORDS:
            nested = {"type": "integer"}
            for _ in range(130):
                nested = wrapped(keyword, nested)
            with pytest.raises(fstc.FstcError, match=r"more than 127 deep: the value at #/"):
                fstc.compile_json_schema(json.dumps(nested), bytelevel)
            defs = {f"d{i}": wrapped(keyword, {"$ref": f"#/$defs/d{i + 1}"}) for i in range(1200)}
            defs["d1200"] = {"type": "integer"}
            chain = {"$ref": "#/$defs/d0", "$defs": defs}
            with pytest.raises(fstc.FstcError, match=r"#/\$defs/d\d+[^:]*: sub-schemas and `\$ref`s nest"):
                fstc.compile_json_schema(json.dumps(chain), bytelevel)
    on_small_stack(run)
    # Serialized by `json.dumps` on this (main) thread: Python's own recursion limit.
    deep = {"type": "integer"}
    for _ in range(100_000):
        deep = {"not": deep}
    with pytest.raises(ValueError):
        fstc.compile_json_schema(deep, bytelevel)
