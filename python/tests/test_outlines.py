"""fstc in outlines (1.3) through ``Generator(model, processor=...)``, against the real
outlines and transformers packages (skipped where they or torch are not installed; the
README's test command installs none of them): outlines' own transformers model runs
``generate`` on a one-layer GPT-2 with random weights built from a config over the byte-level
fixture tokenizer (nothing downloaded); every text it returns must match the regex, and at
every step fstc's mask must equal the one of outlines' own regex processor (its default
backend, outlines_core) for the same regex, an independent implementation."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import fstc

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
outlines = pytest.importorskip("outlines")

from fstc.outlines import FstcOutlinesProcessor  # noqa: E402

PATTERN = r"\{\"n\": [0-9]{1,3}, \"s\": \"[a-z]{0,5}\"\}"
TOKENIZER = Path(__file__).resolve().parents[2] / "testdata/bytelevel/tokenizer.json"
EOS = 2002  # <|eot_id|>, the fixture's EOS (its tokenizer_config.json)


@pytest.fixture(scope="module")
def model():
    tokenizer = transformers.PreTrainedTokenizerFast(
        tokenizer_file=str(TOKENIZER), eos_token="<|eot_id|>", pad_token="<|eot_id|>"
    )
    config = transformers.GPT2Config(
        vocab_size=len(tokenizer), n_positions=128, n_embd=32, n_layer=1, n_head=2,
        bos_token_id=tokenizer.eos_token_id, eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.eos_token_id,
    )
    torch.manual_seed(0)
    return outlines.from_transformers(transformers.GPT2LMHeadModel(config).eval(), tokenizer)


@pytest.fixture(scope="module")
def automaton(bytelevel):
    assert bytelevel.eos_ids == [EOS]
    return fstc.compile_regex(PATTERN, bytelevel)


@pytest.mark.parametrize("search", [{"do_sample": True}, {"num_beams": 3, "num_return_sequences": 3}])
def test_generator_texts_match(model, automaton, search):
    processor = FstcOutlinesProcessor(automaton, model.tensor_library_name)
    generator = outlines.Generator(model, processor=processor)
    for prompt in ("a prompt", "another prompt"):  # outlines resets the processor between
        out = generator(prompt, max_new_tokens=40, **search)
        texts = out if isinstance(out, list) else [out]
        assert len(texts) == search.get("num_return_sequences", 1)
        for text in texts:
            assert re.fullmatch(PATTERN, text), text
    batch = generator.batch(["one", "two prompts"], max_new_tokens=40, do_sample=True)
    assert all(re.fullmatch(PATTERN, text) for text in batch), batch


def test_masks_equal_outlines_own_processor(model, automaton):
    """Random walks through both processors with random logits: the same tokens left finite
    at every step (EOS included), until the regex is complete and EOS is taken."""
    from outlines.backends import get_regex_logits_processor

    generator = torch.Generator().manual_seed(1)
    prompt = [5, 6, 7]
    for walk in range(20):
        ours = FstcOutlinesProcessor(automaton, "torch")
        theirs = get_regex_logits_processor("outlines_core", model, PATTERN)
        ids = list(prompt)
        for step in range(60):
            logits = torch.randn(1, automaton.vocab_size, generator=generator)
            a = ours(torch.tensor([ids]), logits.clone())
            b = theirs(torch.tensor([ids]), logits.clone())
            assert torch.equal(torch.isfinite(a), torch.isfinite(b)), (walk, step)
            token = int(torch.argmax(a[0]))
            ids.append(token)
            if token == EOS:
                break
        assert ids[-1] == EOS, walk
