#!/usr/bin/env bash
# The vLLM and SGLang backend tests (docs/servers.md) and the tekken.json check in a venv of their own, against the
# real packages from PyPI. Several gigabytes (torch with CUDA); not part of .ci/run.
# Usage: examples/servers_venv.sh VENV   (from the repository root)
set -euo pipefail
venv=${1:?usage: examples/servers_venv.sh VENV}
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install vllm==0.33.0
# SGLang pins other versions of some of vLLM's dependencies: its modules under test import
# with vLLM's torch, so it goes in without its dependencies, plus the two they need.
"$venv/bin/pip" install --no-deps sglang==0.5.23
"$venv/bin/pip" install ipython gguf accelerate jsonschema  # the last two for examples/servers_e2e.py
"$venv/bin/pip" install -e ./python pytest
"$venv/bin/python" -m pytest python/tests/test_vllm.py python/tests/test_sglang.py python/tests/test_servers_e2e.py -q -rs -p no:warnings
# Mistral's tekken.json files that mistral-common (a dependency of vLLM) ships: detok's reading of each
# (bytes per id, special tokens, EOS, tokenizations) against mistral-common's own (testdata/tekken_dump.py).
for tekken in "$venv"/lib/python3*/site-packages/mistral_common/data/tekken_*.json; do
  dump=$(mktemp)
  "$venv/bin/python" testdata/tekken_dump.py "$tekken" > "$dump"
  FSTC_TEKKEN_FILE="$tekken" FSTC_TEKKEN_DUMP="$dump" \
    cargo test -p fstc-detok --test all tekken::real_tekken_file_matches_mistral_common -- --nocapture
  rm -f "$dump"
done
