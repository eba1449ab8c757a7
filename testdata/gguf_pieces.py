#!/usr/bin/env python3
"""Writes llama.cpp's own bytes for every token id of a GGUF file, for detok's GGUF test.

    python3 testdata/gguf_pieces.py MODEL.gguf > pieces.txt
    FSTC_GGUF_FILE=MODEL.gguf FSTC_GGUF_PIECES=pieces.txt cargo test -p fstc-detok --test all gguf:: real_gguf

Needs llama-cpp-python (`pip install llama-cpp-python`). One line per id: the hex of
`llama_token_to_piece(vocab, id, special=False)` (empty for no text), then " eog" when llama.cpp
ends generation on the id (`llama_vocab_is_eog`).
"""
import ctypes
import sys

import llama_cpp


def main(path: str) -> None:
    llama_cpp.llama_backend_init()
    params = llama_cpp.llama_model_default_params()
    params.vocab_only = True
    model = llama_cpp.llama_model_load_from_file(path.encode(), params)
    if not model:
        sys.exit(f"llama.cpp cannot load {path}")
    vocab = llama_cpp.llama_model_get_vocab(model)
    size = 1 << 16
    buf = (ctypes.c_char * size)()
    out = sys.stdout
    for token in range(llama_cpp.llama_vocab_n_tokens(vocab)):
        n = llama_cpp.llama_token_to_piece(vocab, token, buf, size, 0, False)
        if n < 0:
            sys.exit(f"token {token}: piece longer than {size} bytes")
        line = bytes(buf[:n]).hex()
        if llama_cpp.llama_vocab_is_eog(vocab, token):
            line += " eog"
        out.write(line + "\n")
    llama_cpp.llama_model_free(model)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
