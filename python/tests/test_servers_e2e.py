"""examples/servers_e2e.py's decoding loops, cheaply: a small random Llama (transformers, on the
CPU) whose logits go through vLLM's structured-output manager and worker function and SGLang's
grammar backend registry, sampling info and chain-verify mask, with fstc selected by name,
with and without drafts (the greedy answer's next tokens, some replaced by a token the
constraint refuses). Greedy decoding, so the four runs must give the same tokens; every text
is checked by an independent validator. Skipped unless vLLM, SGLang and
transformers are installed (examples/servers_venv.sh); the README's test command has none.
The real model's run is the script itself (benches/RESULTS.md)."""

from __future__ import annotations

import json
import re
import sys

import pytest

pytest.importorskip("vllm")
pytest.importorskip("sglang")
transformers = pytest.importorskip("transformers")

from conftest import TESTDATA  # noqa: E402

sys.path.insert(0, str(TESTDATA.parent / "examples"))
import servers_e2e as e2e  # noqa: E402

import torch  # noqa: E402

EOS = 2002
SCHEMA = {
    "type": "object",
    "properties": {"id": {"type": "integer", "maximum": 999}, "ok": {"type": "boolean"}},
    "required": ["id", "ok"],
    "additionalProperties": False,
}
TASKS = [
    ("regex", r"[0-9]{3}-[a-z]{2,4}", lambda s: re.fullmatch(r"[0-9]{3}-[a-z]{2,4}", s)),
    ("json", SCHEMA, lambda s: set(json.loads(s)) == {"id", "ok"}),
    ("grammar", 'root ::= "(" [0-9] ("," [0-9])* ")"', lambda s: re.fullmatch(r"\([0-9](,[0-9])*\)", s)),
    ("structural_tag", e2e.TOOL_TAG, e2e.tool_call_valid),
]


@pytest.fixture(scope="module")
def sides(tmp_path_factory):
    """A 2-layer Llama with random weights over the test tokenizer (2,048 embedding rows,
    more than its 2,009 ids), saved as a model folder vLLM's config code reads."""
    folder = tmp_path_factory.mktemp("tiny-llama")
    tok = transformers.PreTrainedTokenizerFast(
        tokenizer_file=str(TESTDATA / "bytelevel" / "tokenizer.json"), eos_token="<|eot_id|>"
    )
    tok.save_pretrained(folder)
    config = transformers.LlamaConfig(
        vocab_size=2048, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, eos_token_id=EOS, max_position_embeddings=4096,
    )
    torch.manual_seed(24)
    model = transformers.LlamaForCausalLM(config).eval()
    model.save_pretrained(folder)
    vllm_side = e2e.VllmSide(folder, k=3)
    sglang_side = e2e.SglangSide(folder, 2048, {EOS})
    return e2e.Model(model), vllm_side, sglang_side


def test_engine_config_takes_fstc_as_a_dict(sides):
    """EngineArgs(structured_outputs_config={"backend": "fstc"}) reaches a VllmConfig (its
    validator holds a copy of the backend names that register() rebuilds)."""
    _, vllm_side, _ = sides
    assert vllm_side.config.structured_outputs_config.backend == "fstc"
    assert vllm_side.config.num_speculative_tokens == 3


def drafter_from(reference: list, prompt: list, bad: int):
    """Drafts that follow ``reference`` (so greedy verification keeps them); the first and every other
    proposal cut to two tokens and ``bad`` appended, a token the constraint refuses."""
    calls = []

    def drafts(tokens: list) -> list:
        calls.append(1)
        done = len(tokens) - len(prompt)
        out = reference[done : done + 3]
        if len(calls) % 2 == 1:
            out = out[:2] + [bad]
        return out

    return drafts


@pytest.mark.parametrize("kind,spec,valid", TASKS, ids=[t[0] for t in TASKS])
def test_four_runs_agree_and_are_valid(sides, kind, spec, valid):
    model, vllm_side, sglang_side = sides
    tok = vllm_side.tokenizer
    prompt = tok.encode("Answer: ", add_special_tokens=False)
    bad = tok.encode("Z", add_special_tokens=False)[0]
    stats = {engine: dict(apply_s=0.0, drafted=0, kept=0, refused=0) for engine in ("vllm", "sglang")}
    free = dict(stats["vllm"])
    reference = vllm_side.decode(model, vllm_side.request(kind, spec, prompt, 24), {EOS}, None, free)
    grammar = sglang_side.grammar(kind, spec)
    assert sglang_side.decode(model, grammar, prompt, 24, {EOS}, None, dict(free)) == reference
    drafted = vllm_side.decode(
        model, vllm_side.request(kind, spec, prompt, 24), {EOS},
        drafter_from(reference, prompt, bad), stats["vllm"],
    )
    grammar = sglang_side.grammar(kind, spec)
    sg = sglang_side.decode(
        model, grammar, prompt, 24, {EOS}, drafter_from(reference, prompt, bad), stats["sglang"]
    )
    assert drafted == reference and sg == reference
    if reference[-1] == EOS:
        assert valid(tok.decode(reference[:-1])), reference
    else:  # the budget ran out first
        assert len(reference) == 24
    assert free["drafted"] == 0
    for engine in ("vllm", "sglang"):
        assert stats[engine]["kept"] > 0, (engine, stats)
    assert stats["vllm"]["refused"] > 0, stats


def test_lookup_drafts_and_greedy_verify():
    assert e2e.lookup_drafts([1, 2, 3, 9, 1, 2], 3) == [3, 9, 1]
    assert e2e.lookup_drafts([1, 2, 7, 1, 2, 8, 1, 2], 1) == [7]  # the first occurrence
    assert e2e.lookup_drafts([5, 6, 7], 2) == []
    rows = torch.zeros(3, 10)
    rows[0, 4] = rows[1, 5] = rows[2, 6] = 1.0
    assert e2e.greedy_verify(rows, [4, 5]) == [4, 5, 6]
    assert e2e.greedy_verify(rows, [4, 7]) == [4, 5]
    assert e2e.greedy_verify(rows, [3, 5]) == [4]


def test_lookup_drafts_are_vllms_ngram_drafts(sides):
    """The script's prompt lookup (SGLang's side) proposes what vLLM's NgramProposer (vLLM's
    side) does, with the same n-gram lengths and k."""
    import random

    _, vllm_side, _ = sides
    ngram = vllm_side.ngram_drafter()
    rng = random.Random(5)
    for _ in range(300):
        tokens = [rng.randrange(4) for _ in range(rng.randrange(2, 30))]
        assert ngram(tokens) == e2e.lookup_drafts(tokens, 3), tokens
