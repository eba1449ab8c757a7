"""`compile_json_schema` against Python's `jsonschema` (an independent validator): random
walks of the automaton are valid instances, and random instances, valid or not, written in
the automaton's output form are accepted exactly when `jsonschema` says they are valid."""

from __future__ import annotations

import json
import random
from typing import Any, Dict, List

import pytest

import fstc

try:
    import jsonschema
except ImportError:  # pragma: no cover - depends on the environment
    jsonschema = None

PERSON = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "minLength": 1, "maxLength": 6},
        "age": {"type": "integer", "minimum": 0, "maximum": 120},
        "role": {"enum": ["admin", "user"]},
        "tags": {"type": "array", "items": {"type": "boolean"}, "maxItems": 2},
    },
    "required": ["name", "age"],
    "additionalProperties": False,
}


def is_valid(instance: Any, schema: Dict[str, Any]) -> bool:
    """`jsonschema`'s verdict, or, without it, a hand check of PERSON's keywords."""
    if jsonschema is not None:
        return jsonschema.Draft202012Validator(schema).is_valid(instance)
    assert schema is PERSON
    if not isinstance(instance, dict) or not {"name", "age"} <= set(instance):
        return False
    checks = {
        "name": lambda v: isinstance(v, str) and 1 <= len(v) <= 6,
        "age": lambda v: type(v) is int and 0 <= v <= 120,
        "role": lambda v: v in ("admin", "user"),
        "tags": lambda v: isinstance(v, list) and len(v) <= 2 and all(type(x) is bool for x in v),
    }
    return all(k in checks and checks[k](v) for k, v in instance.items())


def random_person(rng: random.Random) -> Dict[str, Any]:
    """An instance near PERSON, often invalid: values of other types or out of range,
    members missing or unknown. Keys come in schema order (the output form)."""
    pools = {
        # (valid values, invalid values)
        "name": (["Ada", "Grace", "B", "Linus"], ["", "Barbara", 7, None]),
        "age": ([0, 37, 120], [121, -1, 1000, "9", True, 3.5]),
        "role": (["admin", "user"], ["root", 1, None]),
        "tags": ([[], [True], [False, True]], [[True, True, False], [1], "x", [None]]),
        "extra": ([], [1, "x"]),
    }

    def value(key: str) -> Any:
        good, bad = pools[key]
        return rng.choice(good if good and rng.random() < 0.85 else bad)

    values = {k: (lambda k=k: value(k)) for k in pools}
    keys = [k for k in values if rng.random() < (0.9 if k in ("name", "age") else 0.4)]
    if "extra" in keys and rng.random() < 0.7:
        keys.remove("extra")
    return {k: values[k]() for k in keys}


FORMS = [
    # (whitespace option, how json.dumps writes that form)
    ({"whitespace": "compact"}, lambda v: json.dumps(v, separators=(",", ":"), ensure_ascii=False)),
    ({"whitespace": "pretty", "indent": 2}, lambda v: json.dumps(v, indent=2, ensure_ascii=False)),
    ({}, lambda v: json.dumps(v, ensure_ascii=False)),
]


@pytest.mark.parametrize("options,dumps", FORMS)
def test_instances_accepted_exactly_when_jsonschema_validates(bytelevel, options, dumps):
    automaton, warnings = fstc.compile_json_schema(PERSON, bytelevel, **options)
    assert warnings == []
    eos = bytelevel.eos_ids[0]
    rng = random.Random(13)
    seen = {True: 0, False: 0}
    for _ in range(300):
        instance = random_person(rng)
        text = dumps(instance)
        tokens = bytelevel.tokenize(text) + [eos]
        accepted = fstc.Matcher(automaton).validate_tokens(tokens) == len(tokens)
        valid = is_valid(instance, PERSON)
        assert accepted == valid, (text, valid)
        seen[valid] += 1
    assert seen[True] > 20 and seen[False] > 20, seen


@pytest.mark.parametrize("options,dumps", FORMS)
def test_random_walks_are_valid_instances(bytelevel, options, dumps):
    automaton, _ = fstc.compile_json_schema(json.dumps(PERSON), bytelevel, **options)
    complete = 0
    for tokens, done in automaton.sample(80, seed=5, max_tokens=200):
        if not done:
            continue
        complete += 1
        instance = json.loads(bytelevel.detokenize(tokens))
        assert is_valid(instance, PERSON), instance
        if options:
            # The fixed forms (compact, pretty) are exactly what json.dumps writes.
            assert bytelevel.detokenize(tokens).decode() == dumps(instance)
    assert complete > 40


def test_text_and_object_give_the_same_automaton(bytelevel):
    from_dict, _ = fstc.compile_json_schema(PERSON, bytelevel)
    from_text, _ = fstc.compile_json_schema(json.dumps(PERSON), bytelevel)
    assert from_dict.to_bytes() == from_text.to_bytes()
    boolean, _ = fstc.compile_json_schema({"type": "boolean"}, bytelevel)
    m = fstc.Matcher(boolean)
    assert m.accept_tokens(bytelevel.tokenize("false") + bytelevel.eos_ids[:1])


def test_lenient_leaves_keywords_out_with_warnings(bytelevel):
    schema = {"type": "object", "properties": {"ids": {"type": "array", "uniqueItems": True}}}
    with pytest.raises(fstc.FstcError, match=r"`uniqueItems` at #/properties/ids"):
        fstc.compile_json_schema(schema, bytelevel)
    automaton, warnings = fstc.compile_json_schema(schema, bytelevel, lenient=True)
    assert [(w.pointer, w.keyword) for w in warnings] == [("/properties/ids", "uniqueItems")]
    assert "not enforced" in str(warnings[0]) and warnings[0].message
    assert "uniqueItems" in repr(warnings[0])
    # Left out, so repeated items are admitted.
    tokens = bytelevel.tokenize('{"ids": [1, 1]}') + bytelevel.eos_ids[:1]
    assert fstc.Matcher(automaton).accept_tokens(tokens)


def test_options_change_the_language(bytelevel):
    schema = {"type": "object", "properties": {"a": {"type": "integer"}}}
    eos = bytelevel.eos_ids[:1]
    extra = bytelevel.tokenize('{"a": 1, "b": 2}') + eos
    open_, _ = fstc.compile_json_schema(schema, bytelevel)
    closed, _ = fstc.compile_json_schema(schema, bytelevel, additional_properties=False)
    assert fstc.Matcher(open_).accept_tokens(extra)
    assert not fstc.Matcher(closed).accept_tokens(extra)
    spaced = bytelevel.tokenize('{"a":' + " " * 5 + "1}") + eos
    narrow, _ = fstc.compile_json_schema(schema, bytelevel, max_whitespace=4)
    wide, _ = fstc.compile_json_schema(schema, bytelevel, max_whitespace=5)
    assert not fstc.Matcher(narrow).accept_tokens(spaced)
    assert fstc.Matcher(wide).accept_tokens(spaced)


def test_any_escapes_admit_every_spelling_of_the_decoded_string(bytelevel):
    schema = {"type": "object", "properties": {"w": {"enum": ["café", "a/b"]}}, "required": ["w"]}
    eos = bytelevel.eos_ids[:1]
    canonical, _ = fstc.compile_json_schema(schema, bytelevel, whitespace="compact")
    any_, _ = fstc.compile_json_schema(schema, bytelevel, whitespace="compact", escapes="any")
    # json.dumps's default (ensure_ascii) writes \u00e9; the other spellings are JSON too.
    for text in [json.dumps({"w": "café"}, separators=(",", ":")), r'{"w":"a\/b"}', r'{"\u0077":"caf\u00E9"}']:
        assert json.loads(text)["w"] in ("café", "a/b")
        assert fstc.Matcher(any_).accept_tokens(bytelevel.tokenize(text) + eos), text
        assert not fstc.Matcher(canonical).accept_tokens(bytelevel.tokenize(text) + eos), text
    for text in [r'{"w":"caf\u00e8"}', r'{"w":"caf\ud800"}', '{"w":"a\\b"}']:
        assert not fstc.Matcher(any_).accept_tokens(bytelevel.tokenize(text) + eos), text


def test_bad_schemas_and_options_are_errors(bytelevel):
    cases: List[tuple] = [
        ("{not json", {}, fstc.FstcError, "JSON"),
        ({"type": "integer", "minimum": "x"}, {}, fstc.FstcError, "minimum"),
        ({"type": "strng"}, {}, fstc.FstcError, "strng"),
        ({"a": {1, 2}}, {}, ValueError, "JSON-serializable"),
        ({"type": "string"}, {"whitespace": "tabs"}, ValueError, "whitespace"),
        ({"type": "string"}, {"escapes": "ascii"}, ValueError, "escapes"),
        ({"type": "string", "pattern": "[a-z]{1,500}"}, {"dfa_state_limit": 10}, fstc.FstcError, "state limit"),
    ]
    for schema, options, error, words in cases:
        with pytest.raises(error, match=words):
            fstc.compile_json_schema(schema, bytelevel, **options)


def test_references_to_other_documents_read_the_reference_folder(bytelevel, tmp_path):
    (tmp_path / "defs").mkdir()
    (tmp_path / "defs" / "port.json").write_text('{"type": "integer", "minimum": 1, "maximum": 9}')
    schema = {"properties": {"port": {"$ref": "https://example.com/defs/port.json"}}, "required": ["port"]}
    eos = [bytelevel.eos_ids[0]]
    for lazy in [False, True]:
        automaton, _ = fstc.compile_json_schema(schema, bytelevel, lazy=lazy, whitespace="compact", ref_dir=tmp_path)
        assert fstc.Matcher(automaton).accept_tokens(bytelevel.tokenize('{"port":3}') + eos)
        assert not fstc.Matcher(automaton).accept_tokens(bytelevel.tokenize('{"port":30}') + eos)
    with pytest.raises(fstc.FstcError, match=r"`\$ref` at #/properties/port: .* names another document.*ref_dir"):
        fstc.compile_json_schema(schema, bytelevel)
    with pytest.raises(fstc.FstcError, match=r"names `https://example.com/other.json`"):
        fstc.compile_json_schema({"$ref": "https://example.com/other.json"}, bytelevel, ref_dir=str(tmp_path))
