#!/usr/bin/env python3
"""Regenerate the tokenizer fixtures under testdata/ from the real tokenizers.

Usage: python3 testdata/make_fixtures.py [VOCABS_DIR]
VOCABS_DIR defaults to /work/shared/vocabs (folders gpt2/, llama2/, llama3/).
Python 3 standard library only. The output is deterministic: running it twice
gives byte-identical files.
"""
import base64
import json
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# Llama 2 ids below this bound are kept (specials, 256 byte-fallback pieces, first merge results).
SP_KEEP_BELOW = 2000
# Extra single-character Llama 2 pieces kept (they live at ids 28705..31999 in Llama 2).
SP_EXTRA_CHARS = set("中文日本語’“”—…€©°±×÷")
# Llama 3 ids below this bound are kept (256 single bytes, then merge results).
BL_KEEP_BELOW = 2000
# Added tokens that are text (`"special": false`), as Gemma and Qwen have them: newline runs,
# whitespace runs and an HTML tag. In the SentencePiece fixture they also sit in the model
# vocabulary at the same ids (as in Gemma's file), from 32000 on (past Llama 2's ids); one
# whitespace run is written with the ▁ marker (17 of them: a run Llama 2 has no piece for),
# which the decoder turns into spaces.
SP_ADDED_TEXT = ["\n", "\n\n", "\n\n\n", "\t\t", "\u2581" * 17, "<table>"]
SP_ADDED_FIRST_ID = 32000
# In the byte-level fixture they are added tokens only (as Qwen's <think>), numbered after
# BL_ADDED.
BL_ADDED_TEXT = ["\n", "\n\n", "\n\n\n", " " * 8, "<table>"]


def dump_json(path, value):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(value, f, ensure_ascii=False, indent=1)
        f.write("\n")


def gpt2_byte_decoder():
    """GPT-2's table: printable bytes map to themselves, the others to U+0100 onwards."""
    bs = list(range(0x21, 0x7F)) + list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return {chr(c): b for b, c in zip(bs, cs)}


def merge_parts(merge):
    return merge.split(" ") if isinstance(merge, str) else list(merge)


def keep_merges(merges, vocab):
    out = []
    for m in merges:
        a, b = merge_parts(m)
        if a in vocab and b in vocab and a + b in vocab:
            out.append(m)
    return out


def make_gpt2(src):
    dst = os.path.join(HERE, "gpt2")
    os.makedirs(dst, exist_ok=True)
    for name in ("encoder.json", "vocab.bpe"):
        shutil.copyfile(os.path.join(src, "gpt2", name), os.path.join(dst, name))


def added_text_entry(content, token_id):
    return {"id": token_id, "content": content, "single_word": False, "lstrip": False,
            "rstrip": False, "normalized": False, "special": False}


def make_sentencepiece(src):
    with open(os.path.join(src, "llama2", "tokenizer.json"), encoding="utf-8") as f:
        tok = json.load(f)
    vocab = tok["model"]["vocab"]
    kept = {
        piece: i
        for piece, i in vocab.items()
        if i < SP_KEEP_BELOW
        or (len(piece) == 1 and (ord(piece) < 0x250 or piece in SP_EXTRA_CHARS or piece == "\u2581"))
    }
    # Keep Llama 2's own ids (the fixture has holes where pieces were dropped).
    tok["model"]["vocab"] = dict(sorted(kept.items(), key=lambda kv: kv[1]))
    tok["model"]["merges"] = keep_merges(tok["model"]["merges"], kept)
    for i, content in enumerate(SP_ADDED_TEXT):
        assert content not in kept, content
        tok["model"]["vocab"][content] = SP_ADDED_FIRST_ID + i
        tok["added_tokens"].append(added_text_entry(content, SP_ADDED_FIRST_ID + i))
    dst = os.path.join(HERE, "sentencepiece")
    os.makedirs(dst, exist_ok=True)
    dump_json(os.path.join(dst, "tokenizer.json"), tok)
    with open(os.path.join(src, "llama2", "tokenizer_config.json"), encoding="utf-8") as f:
        config = json.load(f)
    config = {k: config[k] for k in ("bos_token", "eos_token", "unk_token", "tokenizer_class") if k in config}
    dump_json(os.path.join(dst, "tokenizer_config.json"), config)


BL_ADDED = [
    # (name, fixture id, special) -- Llama 3 ids 128000, 128001, 128009 and 128002.
    ("<|begin_of_text|>", BL_KEEP_BELOW, True),
    ("<|end_of_text|>", BL_KEEP_BELOW + 1, True),
    ("<|eot_id|>", BL_KEEP_BELOW + 2, True),
    # Marked non-special on purpose, to exercise added tokens that are not special. (No hole
    # here: the tokenizers crate renumbers added tokens to be consecutive after the model's.)
    ("<|reserved_special_token_0|>", BL_KEEP_BELOW + 3, False),
]


def make_bytelevel(src):
    with open(os.path.join(src, "llama3", "tokenizer.json"), encoding="utf-8") as f:
        tok = json.load(f)
    vocab = tok["model"]["vocab"]
    kept = {piece: i for piece, i in vocab.items() if i < BL_KEEP_BELOW}
    tok["model"]["vocab"] = dict(sorted(kept.items(), key=lambda kv: kv[1]))
    tok["model"]["merges"] = keep_merges(tok["model"]["merges"], kept)
    by_name = {t["content"]: t for t in tok["added_tokens"]}
    added = []
    for name, new_id, special in BL_ADDED:
        entry = dict(by_name[name])
        entry["id"] = new_id
        entry["special"] = special
        added.append(entry)
    for content in BL_ADDED_TEXT:
        added.append(added_text_entry(content, BL_KEEP_BELOW + len(added)))
    tok["added_tokens"] = added
    dst = os.path.join(HERE, "bytelevel")
    os.makedirs(dst, exist_ok=True)
    dump_json(os.path.join(dst, "tokenizer.json"), tok)
    config = {
        "bos_token": "<|begin_of_text|>",
        # The object form of eos_token, as many tokenizer_config.json files write it.
        "eos_token": {"content": "<|eot_id|>", "lstrip": False, "normalized": False, "rstrip": False,
                      "single_word": False, "special": True},
        "tokenizer_class": "PreTrainedTokenizerFast",
    }
    dump_json(os.path.join(dst, "tokenizer_config.json"), config)
    return kept


def make_tiktoken(bytelevel_vocab):
    table = gpt2_byte_decoder()
    dst = os.path.join(HERE, "tiktoken")
    os.makedirs(dst, exist_ok=True)
    with open(os.path.join(dst, "small.tiktoken"), "w", encoding="ascii") as f:
        for piece, rank in sorted(bytelevel_vocab.items(), key=lambda kv: kv[1]):
            token = bytes(table[c] for c in piece)
            f.write(f"{base64.b64encode(token).decode('ascii')} {rank}\n")


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else "/work/shared/vocabs"
    make_gpt2(src)
    make_sentencepiece(src)
    make_tiktoken(make_bytelevel(src))


if __name__ == "__main__":
    main()
