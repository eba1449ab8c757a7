"""fstc's reading of GGUF tokenizers against llama.cpp's own, through llama-cpp-python's
low-level API with `vocab_only=True`: a SentencePiece file (Llama 2's tokenizer, also with
user-defined tokens added) and byte-level BPE files under each of the pre-tokenizer names Llama
3's is known by (`llama-bpe`, `llama3`, `llama-v3`), Qwen's (`qwen2`, with user-defined tokens)
and GPT-2's (`gpt-2`), each written here with the `gguf` package from the shared vocabularies'
tokenizer files, as llama.cpp's converter writes a model's. Compared: every id's bytes
(`llama_token_to_piece`, special=False) with `Vocabulary.token_bytes`, the end-of-generation ids
with `eos_ids`, and the tokenization of texts (`llama_tokenize`, add_special=False,
parse_special=False) with `Vocabulary.tokenize`.

Skipped unless llama-cpp-python and gguf are installed and ../shared/vocabs is there (the README's
test command has neither package; examples/llama_venv.sh sets them up).
"""

from __future__ import annotations

import ctypes
import importlib.util
import json
import random
import sys
from pathlib import Path

import pytest

import fstc

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared" / "vocabs"
for name in ("llama_cpp", "gguf"):
    if importlib.util.find_spec(name) is None:
        pytest.skip(f"{name} is not installed", allow_module_level=True)
if not (SHARED / "llama2" / "tokenizer.json").exists():
    pytest.skip(f"the shared vocabularies are not at {SHARED}", allow_module_level=True)

sys.path.insert(0, str(ROOT / "testdata"))
import gguf_tokens  # noqa: E402  (the texts llama.cpp tokenizes in detok's GGUF test)

import gguf  # noqa: E402
import llama_cpp  # noqa: E402

# Texts where SentencePiece's merge order matters, and text spelling control tokens' names.
MORE_TEXTS = [
    "internationalization antidisestablishmentarianism pneumonoultramicroscopic",
    "aaaaaaaaaaaaaaaa bbbbbbbb          zzzz",
    " \u2014 ,,, ;;; ... !!! ??? \u201cquoted\u201d \u00abguillemets\u00bb",
    "<s> </s> <unk> [INST] <<SYS>> <0x0A> </s>",
    "<|begin_of_text|><|eot_id|> <|im_end|><|endoftext|>",
    'fn main() { println!("{}", x.iter().map(|y| y * 2).sum::<i64>()); }',
]
TEXTS = gguf_tokens.TEXTS + MORE_TEXTS
# Qwen's added tokens that are text (user-defined in its GGUF) and FIM names (control).
QWEN_TEXTS = [
    "<think>\nplan</think> <tool_call>{\"name\": \"f\"}</tool_call><tool_response>ok</tool_response>",
    "<|fim_prefix|>a<|fim_suffix|>b<|fim_middle|><|file_sep|><|repo_name|> </think </think>>",
]
CHARS = "aeiouAEIOU bcdxyz  \n\t0123456789.,;:!?'\"()[]{}<>/\\-_=+*&^%$#@~`|" \
        "\u00e9\u00df\u00fc\u4e2d\u6587\u65e5\u0416\u03b1\u2014\u2581\U0001f600\u0661"


def random_texts(count: int, seed: int) -> list:
    rng = random.Random(seed)
    return ["".join(rng.choice(CHARS) for _ in range(rng.randrange(1, 40))) for _ in range(count)]


def write(path: Path, model: str, tokens: list, types: list, kvs) -> Path:
    """A vocabulary-only GGUF file: llama.cpp's `llama` architecture keys, then the tokenizer."""
    w = gguf.GGUFWriter(str(path), "llama")
    w.add_context_length(4096)
    w.add_embedding_length(64)
    w.add_block_count(1)
    w.add_feed_forward_length(128)
    w.add_head_count(1)
    w.add_layer_norm_rms_eps(1e-5)
    w.add_tokenizer_model(model)
    w.add_token_list(tokens)
    w.add_token_types(types)
    kvs(w)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path


def merged(merge) -> str:
    return "".join(merge) if isinstance(merge, list) else merge.replace(" ", "")


# User-defined tokens added to Llama 2's file (llama.cpp's converter writes a tokenizer's added
# tokens that are text so): cut out of the text before the tokenizer runs.
USER_DEFINED = ["<|user|>", "<|assistant|>", "[INST]", "<tool call>", "\u2581q\u2581z"]


def spm_gguf(path: Path, space_prefix: bool, user_defined: list = (), name: str = "") -> Path:
    """Llama 2's tokenizer.json as a SentencePiece file: `<0xHH>` byte tokens, the added
    tokens control (id 0 unknown), and each piece's score minus the rank of the first merge
    making it (the merges list the SentencePiece model's pieces by falling score; a piece no
    merge makes, one character, scores minus its id). `user_defined` tokens are appended;
    with a `name` (`general.name`), also Phi-3's control token `<|endoftext|>`, which
    llama.cpp's Phi-3 adjustment looks up by text."""
    t = json.loads((SHARED / "llama2" / "tokenizer.json").read_text())
    vocab = t["model"]["vocab"]
    tokens = [None] * len(vocab)
    for text, i in vocab.items():
        tokens[i] = text
    added = {a["id"] for a in t["added_tokens"]}
    rank = {}
    for r, m in enumerate(t["model"]["merges"]):
        rank.setdefault(merged(m), r)
    types, scores = [], []
    for i, tok in enumerate(tokens):
        kind = (gguf.TokenType.UNKNOWN if i == 0 else gguf.TokenType.CONTROL if i in added
                else gguf.TokenType.BYTE if len(tok) == 6 and tok.startswith("<0x")
                else gguf.TokenType.NORMAL)
        types.append(kind)
        scores.append(-float(rank.get(tok, i)) if kind == gguf.TokenType.NORMAL else 0.0)
    extra = [(tok, gguf.TokenType.USER_DEFINED) for tok in user_defined]
    if name:
        extra.append(("<|endoftext|>", gguf.TokenType.CONTROL))
    for tok, kind in extra:
        assert tok not in vocab, tok  # llama.cpp refuses a file with two tokens of one text
        tokens.append(tok)
        types.append(kind)
        scores.append(0.0)

    def kvs(w):
        if name:
            w.add_name(name)
        w.add_token_scores(scores)
        w.add_bos_token_id(1)
        w.add_eos_token_id(2)
        w.add_unk_token_id(0)
        w.add_add_space_prefix(space_prefix)

    return write(path, "llama", tokens, types, kvs)


def gpt2_gguf(path: Path, pre: str) -> Path:
    """GPT-2's encoder.json and vocab.bpe as a `gpt2` file: `<|endoftext|>` control and EOS."""
    encoder = json.loads((SHARED / "gpt2" / "encoder.json").read_text())
    tokens = [None] * len(encoder)
    for text, i in encoder.items():
        tokens[i] = text
    types = [gguf.TokenType.CONTROL if t == "<|endoftext|>" else gguf.TokenType.NORMAL for t in tokens]
    lines = (SHARED / "gpt2" / "vocab.bpe").read_text().splitlines()
    merges = [line for line in lines if line and not line.startswith("#version")]

    def kvs(w):
        w.add_tokenizer_pre(pre)
        w.add_token_merges(merges)
        w.add_eos_token_id(tokens.index("<|endoftext|>"))

    return write(path, "gpt2", tokens, types, kvs)


def bpe_gguf(path: Path, folder: str, pre: str, name: str = "") -> Path:
    """A byte-level BPE tokenizer.json as a `gpt2` file named `pre`: its vocabulary and
    merges, its added tokens control, or user-defined where they are text (`"special":
    false`: Qwen's `<think>`, `<tool_call>`, ...), as llama.cpp's converter writes them."""
    if folder == "gpt2":
        return gpt2_gguf(path, pre)
    t = json.loads((SHARED / folder / "tokenizer.json").read_text())
    size = max([*t["model"]["vocab"].values(), *(a["id"] for a in t["added_tokens"])]) + 1
    tokens = [f"[PAD{i}]" for i in range(size)]
    types = [gguf.TokenType.UNUSED] * size
    for text, i in t["model"]["vocab"].items():
        tokens[i], types[i] = text, gguf.TokenType.NORMAL
    for a in t["added_tokens"]:
        kind = gguf.TokenType.CONTROL if a["special"] else gguf.TokenType.USER_DEFINED
        tokens[a["id"]], types[a["id"]] = a["content"], kind
    merges = [" ".join(m) if isinstance(m, list) else m for m in t["model"]["merges"]]
    eos = json.loads((SHARED / folder / "tokenizer_config.json").read_text())["eos_token"]
    eos = eos["content"] if isinstance(eos, dict) else eos

    def kvs(w):
        if name:
            w.add_name(name)
        w.add_tokenizer_pre(pre)
        w.add_token_merges(merges)
        w.add_eos_token_id(tokens.index(eos))

    return write(path, "gpt2", tokens, types, kvs)


class Llama:
    """A vocabulary-only llama.cpp model."""

    def __init__(self, path: Path):
        llama_cpp.llama_backend_init()
        params = llama_cpp.llama_model_default_params()
        params.vocab_only = True
        self.model = llama_cpp.llama_model_load_from_file(str(path).encode(), params)
        assert self.model, f"llama.cpp cannot load {path}"
        self.vocab = llama_cpp.llama_model_get_vocab(self.model)

    def __len__(self):
        return llama_cpp.llama_vocab_n_tokens(self.vocab)

    def tokenize(self, text: str, parse_special: bool = False) -> list:
        data = text.encode()
        buf = (llama_cpp.llama_token * (len(data) + 8))()
        n = llama_cpp.llama_tokenize(self.vocab, data, len(data), buf, len(buf), False, parse_special)
        assert n >= 0, text
        return list(buf[:n])

    def piece(self, token: int) -> bytes:
        buf = ctypes.create_string_buffer(256)
        n = llama_cpp.llama_token_to_piece(self.vocab, token, buf, 256, 0, False)
        assert n >= 0
        return buf.raw[:n]

    def eog(self) -> list:
        return [i for i in range(len(self)) if llama_cpp.llama_vocab_is_eog(self.vocab, i)]


@pytest.fixture(scope="module")
def spm(tmp_path_factory):
    work = tmp_path_factory.mktemp("gguf-spm")
    files = {prefix: spm_gguf(work / f"llama2-{prefix}.gguf", prefix) for prefix in (False, True)}
    return {prefix: (Llama(f), fstc.Vocabulary.from_file(str(f))) for prefix, f in files.items()}


def same_vocabulary(llama: Llama, vocab: fstc.Vocabulary) -> None:
    assert len(vocab) == len(llama)
    for i in range(len(vocab)):
        assert (vocab.token_bytes(i) or b"") == llama.piece(i), i
    assert vocab.eos_ids == llama.eog()


def test_spm_bytes_per_id_and_eog_are_llamas(spm):
    for llama, vocab in spm.values():
        same_vocabulary(llama, vocab)


def test_spm_tokenizes_as_llama_cpp(spm):
    """Without llama.cpp's space prefix the ids are equal; with it, llama.cpp's are fstc's
    of the text after one space (fstc's tokens spell the text exactly)."""
    (plain, vocab), (prefixed, _) = spm[False], spm[True]
    for text in TEXTS + random_texts(400, seed=24):
        if "\u2581" in text:
            # llama.cpp reads the marker as a space: its tokens do not spell the text.
            spelled = b"".join(plain.piece(t) for t in plain.tokenize(text))
            assert spelled == text.replace("\u2581", " ").encode(), text
            with pytest.raises(fstc.FstcError, match="cannot spell this text exactly"):
                vocab.tokenize(text)
            continue
        ids = vocab.tokenize(text)
        assert ids == plain.tokenize(text), text
        if text:
            assert prefixed.tokenize(text) == vocab.tokenize(" " + text), text


def test_control_token_names_in_text_are_text(spm):
    """A control token's name in text (`</s>`, `<0x0A>`) is text for llama.cpp without
    parse_special, and for fstc: the same pieces; with parse_special, llama.cpp gives the
    control id, which fstc's tokenize never does (it tokenizes text, as `fstc check --text`
    needs)."""
    llama, vocab = spm[False]
    names = ["<unk>", "<s>", "</s>"] + [f"<0x{b:02X}>" for b in range(256)]
    for name in names:
        assert vocab.tokenize(name) == llama.tokenize(name), name
    assert llama.tokenize("</s>", parse_special=True) == [2]
    assert vocab.detokenize(vocab.tokenize("a</s>b")) == b"a</s>b"


@pytest.mark.parametrize("folder,pre", [
    ("llama3", "llama-bpe"), ("llama3", "llama3"), ("llama3", "llama-v3"), ("qwen3", "qwen2"),
    ("gpt2", "gpt-2"),
])
def test_bpe_pre_tokenizer_names_tokenize_as_llama_cpp(tmp_path, folder, pre):
    path = bpe_gguf(tmp_path / f"{pre}.gguf", folder, pre)
    llama, vocab = Llama(path), fstc.Vocabulary.from_file(str(path))
    same_vocabulary(llama, vocab)
    for text in TEXTS + QWEN_TEXTS + random_texts(200, seed=len(pre)):
        assert vocab.tokenize(text) == llama.tokenize(text), text


def test_spm_user_defined_tokens_are_cut_out_as_llama_cpp_does(tmp_path):
    """Llama 2's file with user-defined tokens added (one with a space, one with the `▁`
    marker): each is cut out of the text wherever it occurs, longest first, the rest tokenized
    apart, as llama.cpp does (without its space prefix, which it also adds after each such
    token); their bytes are their text, as written."""
    path = spm_gguf(tmp_path / "llama2-user.gguf", False, USER_DEFINED)
    llama, vocab = Llama(path), fstc.Vocabulary.from_file(str(path))
    same_vocabulary(llama, vocab)
    rng = random.Random(13)
    pool = USER_DEFINED[:4] + ["<|user", "[INST", "tool call", "<"]
    pool += list(CHARS.replace("\u2581", ""))
    texts = ["".join(rng.choice(pool) for _ in range(rng.randrange(1, 30))) for _ in range(300)]
    for text in TEXTS + texts + ["[INST]<|user|>[INST] <tool call><tool call>x", "<|user|>"]:
        if "\u2581" in text:
            continue
        assert vocab.tokenize(text) == llama.tokenize(text), text
    # "▁q▁z" is also what SentencePiece's merges make of " q z", and llama.cpp gives its id
    # there, which spells the marker, not the spaces: fstc says it cannot spell the text.
    user = len(vocab) - 1
    assert llama.tokenize(" q z") == [user] and vocab.tokenize("\u2581q\u2581z") == [user]
    with pytest.raises(fstc.FstcError, match="cannot spell this text exactly"):
        vocab.tokenize(" q z")


def user_token_texts(user: list, count: int, seed: int) -> list:
    """Texts with user-defined tokens followed by whitespace, words and other tokens."""
    rng = random.Random(seed)
    pool = user + [" ", "  ", "\n", "\t", " \n ", "hi", "SYS", "x", "<", "|", "é", "1"]
    return ["".join(rng.choice(pool) for _ in range(rng.randrange(1, 14))) for _ in range(count)]


def round_trip(llama: Llama, vocab: fstc.Vocabulary, texts: list) -> int:
    """For each text, fstc's tokens for what llama.cpp's tokens spell are llama.cpp's tokens.
    Returns how many texts llama.cpp's tokens do not spell."""
    changed = 0
    for text in texts:
        ids = llama.tokenize(text)
        spelled = b"".join(llama.piece(i) for i in ids).decode()
        changed += spelled != text
        assert vocab.tokenize(spelled) == ids, (text, spelled)
    return changed


@pytest.mark.parametrize("name", ["Phi-3-mini-4k-instruct", "Llama 2"])
@pytest.mark.parametrize("space_prefix", [True, False])
def test_llama_cpp_text_adjustments_round_trip(tmp_path, name, space_prefix):
    """llama.cpp's per-model text adjustments: in a file whose `general.name` contains
    `phi-3`/`phi3` it drops the whitespace after each user-defined token (its RSTRIP flag,
    set by name); with `add_space_prefix` it puts a space before the text and after each
    user-defined token. Its tokens then spell another text than the one given; fstc's
    tokens spell their text exactly, and for the text llama.cpp's tokens spell they are
    llama.cpp's tokens."""
    path = spm_gguf(tmp_path / "user.gguf", space_prefix, USER_DEFINED, name)
    llama, vocab = Llama(path), fstc.Vocabulary.from_file(str(path))
    same_vocabulary(llama, vocab)
    phi = name.startswith("Phi")
    expected = {
        (True, True): "<|user|> SYS\nHI[INST] x",
        (True, False): "<|user|>SYS\nHI[INST]x",
        (False, True): "<|user|> \nSYS\nHI[INST]  x",
        (False, False): "<|user|>\nSYS\nHI[INST] x",
    }[phi, space_prefix]
    ids = llama.tokenize("<|user|>\nSYS\nHI[INST] x")
    assert b"".join(llama.piece(i) for i in ids).decode() == expected
    texts = [t for t in user_token_texts(USER_DEFINED[:4], 300, seed=3) if "\u2581" not in t]
    changed = round_trip(llama, vocab, texts + TEXTS[:10])
    assert (changed > 0) == (phi or space_prefix)


def test_llama_cpp_phi3_adjustment_byte_level(tmp_path):
    """The same on a byte-level file named Phi-3 (Qwen 3's, whose `<think>`, `<tool_call>`
    are user-defined): whitespace after them dropped by llama.cpp, no space prefix."""
    path = bpe_gguf(tmp_path / "phi3.gguf", "qwen3", "qwen2", name="phi3-test")
    llama, vocab = Llama(path), fstc.Vocabulary.from_file(str(path))
    ids = llama.tokenize("<think> \nplan</think>\tok")
    assert b"".join(llama.piece(i) for i in ids) == b"<think>plan</think>ok"
    user = ["<think>", "</think>", "<tool_call>", "</tool_call>"]
    assert round_trip(llama, vocab, user_token_texts(user, 200, seed=4) + QWEN_TEXTS) > 0
