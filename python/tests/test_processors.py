"""The logits processors on numpy (CI) and, when torch is importable, on torch: a
simulated decoder samples from random logits through the processor; every finished
output must fully match the regex (Python's `re`)."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

import fstc
from fstc.hf import FstcLogitsProcessor
from fstc.llama_cpp import FstcLlamaLogitsProcessor
from fstc.processors import ConstrainedBatch

PATTERN = r"\{\"n\": [0-9]{1,3}, \"s\": \"[a-z]{0,5}\"\}"


def _sample(rng, scores):
    """A random choice among the finite logits (softmax sampling)."""
    finite = np.isfinite(scores)
    assert finite.any(), "every token masked"
    p = np.exp(scores[finite] - scores[finite].max())
    return int(rng.choice(np.flatnonzero(finite), p=p / p.sum()))


@pytest.mark.parametrize("lazy", [False, True])
def test_llama_cpp_processor_generates_valid_texts(bytelevel, lazy):
    automaton = fstc.compile_regex(PATTERN, bytelevel, lazy=lazy)
    width = bytelevel.size + 7  # a model may have more logits than tokens
    eos = bytelevel.eos_ids[0]
    rng = np.random.default_rng(0)
    for trial in range(20):
        processor = FstcLlamaLogitsProcessor(automaton)
        ids = np.array(bytelevel.tokenize("prompt text"), dtype=np.intc)
        for _ in range(60):
            scores = rng.normal(size=width).astype(np.float32)
            out = processor(ids, scores)
            assert out is scores
            assert np.isneginf(scores[bytelevel.size :]).all()
            token = _sample(rng, scores)
            if token == eos:
                break
            ids = np.append(ids, token).astype(np.intc)
        else:
            pytest.fail("no EOS in 60 steps")
        text = bytelevel.detokenize(list(ids[len(bytelevel.tokenize("prompt text")) :]))
        assert re.fullmatch(PATTERN.encode(), text), text
    # The matcher saw every generated token.
    assert processor.matcher is not None and processor.matcher.is_accepting()


def test_llama_cpp_processor_with_a_lazy_schema(bytelevel):
    """A schema compiled per request (`lazy=True`) through the llama-cpp processor: every
    output parses and has the schema's shape (its keys, types and ranges checked by hand)."""
    schema = {
        "type": "object",
        "properties": {"n": {"type": "integer", "minimum": 0, "maximum": 99}, "ok": {"type": "boolean"}},
        "required": ["n", "ok"],
        "additionalProperties": False,
    }
    eos = bytelevel.eos_ids[0]
    rng = np.random.default_rng(4)
    for trial in range(8):
        automaton, _ = fstc.compile_json_schema(schema, bytelevel, lazy=True, whitespace="compact")
        processor = FstcLlamaLogitsProcessor(automaton)
        ids = np.array([1, 2, 3], dtype=np.intc)
        for _ in range(40):
            scores = rng.normal(size=bytelevel.size).astype(np.float32)
            token = _sample(rng, processor(ids, scores))
            if token == eos:
                break
            ids = np.append(ids, token).astype(np.intc)
        else:
            pytest.fail("no EOS in 40 steps")
        value = json.loads(bytelevel.detokenize(list(ids[3:])))
        assert list(value) == ["n", "ok"], value
        assert type(value["n"]) is int and 0 <= value["n"] <= 99 and type(value["ok"]) is bool


def _generate_batch(processor, bytelevel, rng, to_tensor, from_scores):
    """Greedy-free sampling for a batch of 3 rows with padded prompts; finished rows
    continue with EOS as padding, as transformers does."""
    eos = bytelevel.eos_ids[0]
    prompt = [[5, 6, 7, 8], [9, 9, 9, 9], [1, 2, 3, 4]]
    rows = [list(p) for p in prompt]
    done = [False] * 3
    for _ in range(80):
        scores = rng.normal(size=(3, bytelevel.size)).astype(np.float32)
        out = from_scores(processor(to_tensor(rows), to_tensor(scores)))
        for r in range(3):
            token = eos if done[r] else _sample(rng, out[r])
            done[r] = done[r] or token == eos
            rows[r].append(token)
        if all(done):
            break
    assert all(done)
    texts = []
    for r in range(3):
        generated = rows[r][4:]
        generated = generated[: generated.index(eos)]
        texts.append(bytelevel.detokenize(generated))
    return texts


def test_hf_processor_on_numpy_batch(bytelevel):
    automata = [  # eager and lazy automata mix in one batch
        fstc.compile_regex(PATTERN, bytelevel),
        fstc.compile_regex(r"[0-9]{2,4}", bytelevel, lazy=True),
        fstc.compile_regex(PATTERN, bytelevel, lazy=True),
    ]
    rng = np.random.default_rng(1)
    processor = FstcLogitsProcessor(automata)
    texts = _generate_batch(processor, bytelevel, rng, np.array, lambda s: s)
    assert re.fullmatch(PATTERN.encode(), texts[0])
    assert re.fullmatch(rb"[0-9]{2,4}", texts[1])
    assert re.fullmatch(PATTERN.encode(), texts[2])
    # A batch of a different size without reset is refused; after reset it starts anew.
    with pytest.raises(ValueError, match="reset"):
        processor(np.zeros((2, 5), dtype=np.int64), np.zeros((2, bytelevel.size), np.float32))
    processor.reset()
    processor(np.zeros((3, 5), dtype=np.int64), np.zeros((3, bytelevel.size), np.float32))


def test_processor_rejects_unmasked_tokens_and_narrow_scores(bytelevel):
    automaton = fstc.compile_regex(r"[0-9]+", bytelevel)
    batch = ConstrainedBatch(automaton)
    batch.update([[1, 2]])
    letter = bytelevel.tokenize("x")[0]
    with pytest.raises(fstc.FstcError, match=f"generated token {letter} at position 2"):
        batch.update([[1, 2, letter]])
    with pytest.raises(ValueError, match=f"vocabulary has {automaton.vocab_size}"):
        batch.mask_logits(np.zeros((1, 100), np.float32))
    # A shorter sequence rolls the matcher back (e.g. a decoder that rewinds).
    digits = bytelevel.tokenize("12")
    batch.update([[1, 2] + digits])
    assert batch.matchers[0].num_accepted == len(digits)
    batch.update([[1, 2]])
    assert batch.matchers[0].num_accepted == 0


@pytest.mark.parametrize("lazy", [False, True])
def test_hf_processor_on_torch(bytelevel, lazy):
    torch = pytest.importorskip("torch")
    automaton = fstc.compile_regex(PATTERN, bytelevel, lazy=lazy)
    rng = np.random.default_rng(2)
    processor = FstcLogitsProcessor(automaton)
    texts = _generate_batch(
        processor,
        bytelevel,
        rng,
        lambda x: torch.tensor(np.asarray(x)),
        lambda s: s.numpy(),
    )
    for text in texts:
        assert re.fullmatch(PATTERN.encode(), text)


@pytest.mark.parametrize("lazy", [False, True])
def test_hf_processor_follows_beams_reordered_between_steps(bytelevel, lazy):
    """Beam search as transformers runs it: each step keeps `width` rows, each extending
    some earlier row (often the same one twice, in any order). Every row's mask must be
    the allowed set of a fresh matcher replaying that row's tokens, and every finished
    beam must match the regex."""
    automaton = fstc.compile_regex(PATTERN, bytelevel, lazy=lazy)
    eos = bytelevel.eos_ids[0]
    rng = np.random.default_rng(3)
    width, prompt = 4, [7, 8, 9]
    processor = FstcLogitsProcessor(automaton)
    rows = [list(prompt) for _ in range(width)]
    finished = 0
    for step in range(40):
        scores = np.zeros((width, bytelevel.size), dtype=np.float32)
        out = processor(np.array(rows), scores)
        children = []
        for r, row in enumerate(rows):
            replay = fstc.Matcher(automaton)
            assert replay.accept_tokens(row[len(prompt) :])
            allowed = np.flatnonzero(np.isfinite(out[r])).tolist()
            assert allowed == replay.allowed_tokens(), (step, r)
            for t in rng.choice(allowed, size=min(2, len(allowed)), replace=False):
                children.append(row + [int(t)])
        for child in children:
            if child[-1] == eos:
                finished += 1
                assert re.fullmatch(PATTERN.encode(), bytelevel.detokenize(child[len(prompt) : -1]))
        live = [c for c in children if c[-1] != eos]
        if not live:
            break
        rows = [live[i] for i in rng.choice(len(live), size=width)]
    assert finished > 0


@pytest.mark.parametrize("search", [{"do_sample": True}, {"num_beams": 3, "num_return_sequences": 3}])
def test_transformers_generate_with_a_tiny_random_model(bytelevel, search):
    """transformers' own `generate` (sampling, and beam search, which reorders rows) on a
    one-layer GPT-2 with random weights built from a config (nothing downloaded): every
    returned sequence must match the regex."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    eos = bytelevel.eos_ids[0]
    config = transformers.GPT2Config(
        vocab_size=bytelevel.size, n_positions=128, n_embd=32, n_layer=1, n_head=2,
        bos_token_id=eos, eos_token_id=eos, pad_token_id=eos,
    )
    torch.manual_seed(0)
    model = transformers.GPT2LMHeadModel(config).eval()
    automaton = fstc.compile_regex(PATTERN, bytelevel)
    prompt = torch.tensor([bytelevel.tokenize("a prompt")] * 2)
    processor = FstcLogitsProcessor(automaton)
    out = model.generate(
        prompt, attention_mask=torch.ones_like(prompt), max_new_tokens=40,
        logits_processor=transformers.LogitsProcessorList([processor]), **search,
    )
    assert out.shape[0] == 2 * search.get("num_return_sequences", 1)
    for row in out.tolist():
        generated = row[prompt.shape[1] :]
        assert eos in generated, generated
        text = bytelevel.detokenize(generated[: generated.index(eos)])
        assert re.fullmatch(PATTERN.encode(), text), text
