#!/usr/bin/env python3
"""Writes llama.cpp's own tokenization of a set of texts with a GGUF file's tokenizer, for
detok's GGUF test.

    python3 testdata/gguf_tokens.py MODEL.gguf > tokens.txt
    FSTC_GGUF_FILE=MODEL.gguf FSTC_GGUF_TOKENS=tokens.txt cargo test -p fstc-detok --test all gguf:: real_gguf

Needs llama-cpp-python (`pip install llama-cpp-python`). One line per text: its UTF-8 in hex, a
tab, then the ids of `llama_tokenize(vocab, text, add_special=False, parse_special=False)`.
"""
import ctypes
import sys

import llama_cpp

TEXTS = [
    "hello world",
    "Hello World, it's fine; they'RE here and I'M not. We'll see; you'd've",
    "1234567 + 89 = 1234656, 3.14159 and -0.5e10",
    "   leading and trailing spaces   ",
    "tabs\tand\t\tmore\t",
    "line one\nline two\n\n\nthree\r\nfour\n  indented\n\tend\n",
    "symbols !!! ??? ... --- ((( ))) {\"a\": [1, 2]}",
    "caf\u00e9 na\u00efve \u00fcber stra\u00dfe \u4e2d\u6587 \u65e5\u672c\u8a9e \U0001f600!",
    "x  y   z    w        eight spaces",
    "a'b 'tis 's",
    "def f(x):\n    return x ** 2  # square\n",
    "<table><tr><td>1</td></tr></table>",
    "{\n  \"name\": \"Marie Curie\",\n  \"born\": 1867\n}",
    "The quick brown fox jumps over the lazy dog. THE QUICK BROWN FOX!",
    "\u00bfQu\u00e9 tal? \u0416\u0438\u0437\u043d\u044c \u2014 \u03b1\u03b2\u03b3 \u0661\u0662\u0663 \u00bd",
    "",
]


def main(path: str) -> None:
    llama_cpp.llama_backend_init()
    params = llama_cpp.llama_model_default_params()
    params.vocab_only = True
    model = llama_cpp.llama_model_load_from_file(path.encode(), params)
    if not model:
        sys.exit(f"llama.cpp cannot load {path}")
    vocab = llama_cpp.llama_model_get_vocab(model)
    for text in TEXTS:
        data = text.encode()
        buf = (llama_cpp.llama_token * (len(data) + 8))()
        n = llama_cpp.llama_tokenize(vocab, data, len(data), buf, len(buf), False, False)
        assert n >= 0, text
        print(data.hex() + "\t" + " ".join(str(t) for t in buf[:n]))


if __name__ == "__main__":
    main(sys.argv[1])
