#!/usr/bin/env python3
"""Writes mistral-common's own reading of a tekken.json: bytes per token id, special tokens,
EOS, and its tokenization of a set of texts, for detok's tekken tests.

    python3 testdata/tekken_dump.py TEKKEN.json > dump.json
    FSTC_TEKKEN_FILE=TEKKEN.json FSTC_TEKKEN_DUMP=dump.json cargo test -p fstc-detok --test all tekken::

Needs mistral-common (`python3 -m venv /tmp/venv && /tmp/venv/bin/pip install mistral-common`;
its wheel ships real files in mistral_common/data/tekken_*.json). Run by hand, never by the test
command. The dump is one JSON object: `pieces` holds, for every id, the hex of
`id_to_byte_piece(id)` (special tokens ignored, so empty), `special` the special tokens' names
by id, `eos` the id of `</s>`, and `texts` pairs of a text and `encode(text, bos=False,
eos=False)`.
"""
import json
import sys
from importlib.metadata import version

from mistral_common.tokens.tokenizers.tekken import Tekkenizer

TEXTS = [
    "Hello, world!\n",
    "The quick brown fox jumps over the lazy dog.",
    "  leading and trailing spaces   ",
    "tabs\tand\r\nwindows newlines\n\n\nthree",
    "numbers 1234567890 and 3.14159, -42",
    "CamelCaseWords and snake_case_words and HTTPServerError",
    "Ünïcödé: naïve café, Straße, ÆØÅ, İstanbul",
    "中文日本語한국어 mixed with English",
    "emoji 🤖🎉👍🏽 and symbols ©®™ €£¥",
    "عربي עברית Ελληνικά Русский",
    "combining: e\u0301 a\u0308 n\u0303",
    "literal specials as text: </s> <s> [INST] [/INST] <unk>",
    'code: fn main() { println!("{}", x?); } // done',
    '{"key": [1, 2.5, null, true], "nested": {"a": "b"}}',
    "path/to/file.txt and https://example.com/a?b=c#d",
    "'s 't 're 've 'm 'll 'd DON'T",
    "",
    " ",
    "\n",
    "a",
]


def dump(path: str) -> dict:
    tok = Tekkenizer.from_file(path)
    n = tok.n_words
    return {
        "mistral_common": version("mistral-common"),
        "file": path.rsplit("/", 1)[-1],
        "num_special": tok.num_special_tokens,
        "special": [tok.id_to_piece(i) for i in range(tok.num_special_tokens)],
        "eos": tok.eos_id,
        "pieces": [tok.id_to_byte_piece(i).hex() for i in range(n)],
        "texts": [[t, tok.encode(t, bos=False, eos=False)] for t in TEXTS],
    }


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    json.dump(dump(sys.argv[1]), sys.stdout, ensure_ascii=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
