#!/bin/sh
# Compiles a pinned set of regexes, JSON Schemas and grammars on GPT-2 (testdata) and Llama 3
# (../shared/vocabs/llama3, or $FSTC_VOCABS/llama3) and prints each output file's sha256:
# refactors that must not change files compare this list before and after.
# Usage: benches/pinned_files.sh [FSTC_BINARY] [OUT_DIR]   (from the repository root)
# WRAP runs each compile under a command, e.g. instruction counts, repeatable under load:
#   RAYON_NUM_THREADS=1 WRAP=benches/callgrind.sh benches/pinned_files.sh BIN OUT 2> LOG
set -eu
WRAP=${WRAP:-}
FSTC=${1:-target/release/fstc}
OUT=${2:-$(mktemp -d)}
VOCABS=${FSTC_VOCABS:-../shared/vocabs}
mkdir -p "$OUT"

REGEXES='[0-9]{4}-[0-9]{2}-[0-9]{2}
[a-z]+@[a-z]+\.com
Summary:(\n\* (?P<PARAGRAPH_TOKEN>)+){3,5}
"([^"\\]|\\.)*"
\w+( \w+){0,5}
((25[0-5]|2[0-4][0-9]|1?[0-9]?[0-9])\.){3}(25[0-5]|2[0-4][0-9]|1?[0-9]?[0-9])'
SCHEMAS='benches/inputs/json/json-small.schema.json
benches/inputs/json/json-medium.schema.json
json/tests/schemas/weather_tool.json
json/tests/schemas/user_profile.json
json/tests/schemas/tree_recursive.json
json/tests/schemas/contact_formats.json'
GRAMMARS='pda/tests/grammars/json.gbnf
pda/tests/grammars/arith.gbnf
pda/tests/grammars/sql.gbnf
pda/tests/grammars/toolcall.gbnf
pda/tests/grammars/chess.gbnf'

for vocab in gpt2 llama3; do
    case $vocab in
    gpt2) v=testdata/gpt2/encoder.json ;;
    *) v=$VOCABS/$vocab/tokenizer.json ;;
    esac
    i=0
    printf "%s\n" "$REGEXES" | while IFS= read -r re; do
        i=$((i + 1))
        $WRAP "$FSTC" compile regex "$re" --vocab "$v" -o "$OUT/$vocab-regex$i.fstc" ${STATS:+--stats} >&2
    done
    for f in $SCHEMAS; do
        name=$(basename "$f" .json)
        # json/tests/schemas/ wrap the schema with its test instances: compile the schema.
        python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); json.dump(d.get("schema", d), sys.stdout)' \
            "$f" >"$OUT/$name.schema"
        $WRAP "$FSTC" compile json-schema "$OUT/$name.schema" --vocab "$v" -o "$OUT/$vocab-$name.fstc" ${STATS:+--stats} >&2
    done
    for f in $GRAMMARS; do
        $WRAP "$FSTC" compile grammar "$f" --vocab "$v" -o "$OUT/$vocab-$(basename "$f" .gbnf).fstc" ${STATS:+--stats} >&2
    done
done
(cd "$OUT" && sha256sum -- *.fstc)
