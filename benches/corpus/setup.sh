#!/usr/bin/env bash
# Makes the corpus bench's own Python environment, benches/corpus/.venv (git-ignored): fstc built
# from this checkout (`pip install ./python`, a release build of the extension), the peers and the
# corpus tools at pinned versions. Never run by .ci/run: the repository's tests need none of this.
# Usage: benches/corpus/setup.sh [PYTHON]   (default python3; needs a Rust toolchain and PyPI);
# VENV=DIR puts the environment elsewhere (the scripts expect benches/corpus/.venv by default).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
py="${1:-python3}"
venv="${VENV:-$here/.venv}"
"$py" -m venv "$venv"
pip="$venv/bin/pip"
"$pip" install --quiet --upgrade pip
"$pip" install --quiet \
    numpy \
    llguidance==1.9.1 \
    outlines-core==0.2.14 \
    tokenizers==0.23.3 \
    jsonschema==4.26.0 \
    hypothesis-jsonschema==0.23.1 \
    hypothesis==6.100.0
"$pip" install --quiet "$root/python"
"$venv/bin/python" -c 'import fstc, llguidance, outlines_core, tokenizers, jsonschema, hypothesis_jsonschema; print("fstc", fstc.__version__, "ready")'
