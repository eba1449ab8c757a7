"""fstc.sglang against the real SGLang package (skipped where SGLang is not installed;
the README's test command does not install it): the plugin entry point through SGLang's
own loader, ``--grammar-backend fstc`` through SGLang's registry, and the grammar objects
driven as SGLang's scheduler and speculative code drive them (cache and copy, vocab mask
fill/move/apply, accept, rollback, termination, jump-forward), each mask compared with
fstc's own matcher."""

from __future__ import annotations

import json
import re
from types import SimpleNamespace

import pytest

sglang = pytest.importorskip("sglang")
torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
base = pytest.importorskip("sglang.srt.constrained.base_grammar_backend")

import fstc  # noqa: E402
from fstc.sglang import FstcGrammar, FstcGrammarBackend, register  # noqa: E402

from conftest import TESTDATA, TOOL_TAG, bits_of, check_tool_calls  # noqa: E402

TOKENIZER = TESTDATA / "bytelevel" / "tokenizer.json"
EOS = 2002
MODEL_VOCAB = 2048
SCHEMA = {
    "type": "object",
    "properties": {"id": {"type": "integer"}, "tags": {"type": "array", "items": {"type": "string"}}},
    "required": ["id"],
    "additionalProperties": False,
}


@pytest.fixture(scope="module")
def tokenizer():
    return transformers.PreTrainedTokenizerFast(
        tokenizer_file=str(TOKENIZER), eos_token="<|eot_id|>"
    )


@pytest.fixture(scope="module")
def reference_vocab():
    return fstc.Vocabulary.from_file(TOKENIZER, eos_ids=[EOS])


@pytest.fixture(scope="module", autouse=True)
def plugin():
    """SGLang's own plugin loader finds fstc's entry point and runs it."""
    from sglang.srt.plugins import load_plugins

    load_plugins()
    assert "fstc" in base.GRAMMAR_BACKEND_REGISTRY, (
        "the sglang.srt.plugins entry point did not run: is fstc installed (pip install ./python)?"
    )


@pytest.fixture(scope="module")
def backend(tokenizer):
    """Built the way SGLang builds a registered backend (its registry's factory)."""
    factory = base.GRAMMAR_BACKEND_REGISTRY["fstc"]
    args = SimpleNamespace(constrained_json_disable_any_whitespace=False)
    return factory(args, tokenizer, MODEL_VOCAB, {EOS})


def compiled(backend, key):
    """SGLang's compile path: the cache, else a future from its executor; the manager
    then caches ``copy()`` and hands the request the compiled object."""
    value, hit = backend.get_cached_or_future_value(key, require_reasoning=False)
    if hit:
        return value
    grammar = value.result()
    backend.set_cache(key, grammar.copy())
    return grammar


def test_plugin_choices_and_version(monkeypatch):
    from importlib.metadata import entry_points

    from sglang.srt.arg_groups.choices import GRAMMAR_BACKEND_CHOICES

    eps = {ep.name: ep.value for ep in entry_points(group="sglang.srt.plugins")}
    assert eps.get("fstc") == "fstc.sglang:register"
    assert GRAMMAR_BACKEND_CHOICES.count("fstc") == 1
    register()
    assert GRAMMAR_BACKEND_CHOICES.count("fstc") == 1
    monkeypatch.setattr(sglang, "__version__", "0.9.0")
    with pytest.raises(RuntimeError, match=r"knows sglang 0\.5\.x, not 0\.9\.0"):
        register()


def test_server_args_take_fstc():
    """``--grammar-backend fstc`` through SGLang's own argument parser."""
    import argparse

    from sglang.srt.server_args import ServerArgs

    parser = argparse.ArgumentParser()
    ServerArgs.add_cli_args(parser)
    args = parser.parse_args(["--model-path", "x", "--grammar-backend", "fstc"])
    assert args.grammar_backend == "fstc"


CASES = [
    ("json", json.dumps(SCHEMA), '{"id": 7, "tags": ["a", "bc"]}'),
    ("regex", r"(0|[1-9][0-9]*)\.[0-9]{2}", "12.50"),
    ("ebnf", 'root ::= "(" item ("," item)* ")"\nitem ::= [a-z]+ | root', "(ab,(c,d),e)"),
    (
        "structural_tag",
        TOOL_TAG,
        'Hm. <tool_call>{"city": "Oslo"}</tool_call> and <tool_call>{"city":"Rome"}</tool_call>.',
    ),
]


def oracle(kind, spec, vocab):
    if kind == "json":
        return fstc.compile_json_schema(spec, vocab)[0]
    if kind == "regex":
        return fstc.compile_regex(spec, vocab)
    if kind == "structural_tag":
        return fstc.compile_structural_tag(spec, vocab)[0]
    return fstc.compile_grammar(spec, vocab)


def validate(kind, spec, text):
    """An independent check of each case's text."""
    if kind == "json":
        v = json.loads(text)
        assert isinstance(v["id"], int) and all(isinstance(t, str) for t in v["tags"])
    elif kind == "regex":
        assert re.fullmatch(spec, text)
    elif kind == "structural_tag":
        check_tool_calls(text)
    else:
        depth = 0
        for c in text:
            depth += {"(": 1, ")": -1}.get(c, 0)
            assert depth >= 0
        assert depth == 0 and re.fullmatch(r"[a-z(),]+", text)


@pytest.mark.parametrize("kind,spec,text", CASES, ids=[c[0] for c in CASES])
def test_decode_loop(backend, tokenizer, reference_vocab, kind, spec, text):
    """SGLang's loop: allocate, fill (batched), move, apply; accept each token; EOS ends.
    Masks equal fstc's own matcher's; exactly the allowed logits stay finite."""
    validate(kind, spec, text)
    grammar = compiled(backend, (kind, spec))
    assert isinstance(grammar, FstcGrammar)
    ref = fstc.Matcher(oracle(kind, spec, reference_vocab))
    for token in tokenizer.encode(text, add_special_tokens=False) + [EOS]:
        mask = grammar.allocate_vocab_mask(MODEL_VOCAB, 2, "cpu")
        grammar.fill_vocab_mask_batched([base.GrammarRow(row=1, grammar=grammar)], mask)
        mask = grammar.move_vocab_mask(mask, "cpu")
        assert (mask[0] == -1).all()  # unlisted rows stay unconstrained
        assert bits_of(mask[1].numpy()) == ref.allowed_tokens()
        logits = torch.randn(2, MODEL_VOCAB)
        base.GrammarMask(grammar, mask).apply(logits)
        assert torch.isfinite(logits[0]).all()
        assert torch.isfinite(logits[1]).nonzero().flatten().tolist() == ref.allowed_tokens()
        assert token in ref.allowed_tokens()
        grammar.accept_token(token)
        assert ref.accept_tokens([token])
    assert grammar.is_terminated()
    grammar.accept_token(5)  # after EOS: ignored


def test_cache_copy_is_a_fresh_start(backend, tokenizer):
    key = ("regex", "[a-c]{3}")
    first = compiled(backend, key)
    first.accept_token(tokenizer.encode("a", add_special_tokens=False)[0])
    second = compiled(backend, key)  # a cache hit: SGLang's copy of the cached object
    assert second is not first and second.matcher.num_accepted == 0
    assert second.automaton is first.automaton
    assert second.grammar_stats.is_cache_hit


def test_refusal_and_rollback(backend, tokenizer):
    """A refused token raises ValueError (SGLang aborts the request) and moves nothing;
    rollback undoes tokens."""
    grammar = compiled(backend, ("regex", r"[0-9]{2}:[0-9]{2}"))
    toks = tokenizer.encode("12:3", add_special_tokens=False)
    for t in toks:
        grammar.accept_token(t)
    with pytest.raises(ValueError, match="refused token"):
        grammar.accept_token(tokenizer.encode("x", add_special_tokens=False)[0])
    assert grammar.matcher.num_accepted == len(toks)
    grammar.rollback(2)
    assert grammar.matcher.num_accepted == len(toks) - 2


def test_speculative_tree_with_sglangs_walk(backend, tokenizer, reference_vocab):
    """SGLang's own draft-tree walk (spec_utils.traverse_tree): each accepted draft's row
    is the mask after the path to it, a refused draft's row is left unconstrained, and
    the grammar ends where it started."""
    from sglang.srt.speculative.spec_utils import traverse_tree

    pattern = r"[0-9]{2}:[0-9]{2}"
    grammar = compiled(backend, ("regex", pattern))
    one = lambda s: tokenizer.encode(s, add_special_tokens=False)[0]  # noqa: E731
    prefix = tokenizer.encode("12", add_special_tokens=False)
    for t in prefix:
        grammar.accept_token(t)
    # Tree: 0 (the verified token, already accepted) -> 1 ":" -> 3 "3" -> 4 "4";
    # 1's sibling 2 "x" is refused.
    draft = torch.tensor([prefix[-1], one(":"), one("x"), one("3"), one("4")])
    next_token = torch.tensor([1, 3, -1, 4, -1])
    next_sibling = torch.tensor([-1, 2, -1, -1, -1])
    mask = grammar.allocate_vocab_mask(MODEL_VOCAB, 5, "cpu")
    traverse_tree(next_token, next_sibling, draft, grammar, mask, vocab_size=MODEL_VOCAB)
    automaton = oracle("regex", pattern, reference_vocab)
    paths = {0: [], 1: [one(":")], 3: [one(":"), one("3")], 4: [one(":"), one("3"), one("4")]}
    for row, path in paths.items():
        ref = fstc.Matcher(automaton)
        assert ref.accept_tokens(prefix + path)
        assert bits_of(mask[row].numpy()) == ref.allowed_tokens(), row
    assert bits_of(mask[4].numpy()) == [EOS]
    assert (mask[2] == -1).all()
    assert grammar.matcher.num_accepted == len(prefix)


def test_speculative_trees_through_a_tool_call(backend, tokenizer, reference_vocab):
    """SGLang's draft-tree walk under a structural tag, at every position of a text with a
    tool call: the verified token, a chain of the text's next three tokens, and a sibling of
    the first that the tag refuses there (when one of a few tokens is refused). Each
    accepted node's row is fstc's own mask after the path to it, a refused node's row is
    unconstrained, and the grammar ends where it started."""
    from sglang.srt.speculative.spec_utils import traverse_tree

    grammar = compiled(backend, ("structural_tag", TOOL_TAG))
    automaton = oracle("structural_tag", TOOL_TAG, reference_vocab)
    text = 'Hm. <tool_call>{"city": "Oslo"}</tool_call> ok'
    check_tool_calls(text)
    tokens = tokenizer.encode(text, add_special_tokens=False)
    odd = [tokenizer.encode(s, add_special_tokens=False)[0] for s in ("x", "<", "}", "{")]

    def after(prefix):
        ref = fstc.Matcher(automaton)
        assert ref.accept_tokens(prefix)
        return ref

    refused_siblings = 0
    grammar.accept_token(tokens[0])
    for i in range(1, len(tokens)):
        chain = tokens[i : i + 3]
        allowed = set(after(tokens[:i]).allowed_tokens())
        sibling = next((t for t in odd if t not in allowed and t != chain[0]), None)
        # Nodes: 0 the verified token, 1..n the chain, then the refused sibling of node 1.
        n = len(chain)
        draft = [tokens[i - 1]] + chain + ([sibling] if sibling is not None else [])
        next_token = list(range(1, n + 1)) + [-1] * (len(draft) - n)
        next_sibling = [-1] * len(draft)
        if sibling is not None:
            next_sibling[1] = n + 1
        mask = grammar.allocate_vocab_mask(MODEL_VOCAB, len(draft), "cpu")
        traverse_tree(
            torch.tensor(next_token), torch.tensor(next_sibling), torch.tensor(draft),
            grammar, mask, vocab_size=MODEL_VOCAB,
        )
        for node in range(n + 1):
            expected = after(tokens[:i] + chain[:node]).allowed_tokens()
            assert bits_of(mask[node].numpy()) == expected, (i, node)
        if sibling is not None:
            assert (mask[n + 1] == -1).all(), i
            refused_siblings += 1
        assert grammar.matcher.num_accepted == i
        grammar.accept_token(tokens[i])
    assert refused_siblings > 0
    grammar.accept_token(EOS)
    assert grammar.is_terminated()


def test_jump_forward(backend, tokenizer):
    grammar = compiled(backend, ("json", json.dumps({"const": {"key": "value"}})))
    helper = grammar.try_jump_forward(tokenizer)
    assert helper is not None
    forced, text = helper
    assert text == '{"key":"value"}'[: len(text)] and text
    s, state = grammar.jump_forward_str_state(helper)
    assert s == text
    retokenized = tokenizer.encode(text, add_special_tokens=False)
    grammar.jump_and_retokenize([], retokenized, state)
    assert grammar.matcher.num_accepted == len(retokenized)


def test_no_jump_forward_inside_a_character(backend, tokenizer):
    """``(ü|ý)``: only the shared first byte of the two characters is forced, which is no
    text, so there is nothing to jump over."""
    grammar = compiled(backend, ("regex", "(ü|ý)"))
    assert len(grammar.matcher.forced_tokens()) == 1
    assert grammar.try_jump_forward(tokenizer) is None


def test_structural_tags_compile_and_bad_constraints_are_invalid_objects(backend, tokenizer):
    tag = compiled(backend, ("structural_tag", TOOL_TAG))
    assert isinstance(tag, FstcGrammar)
    text = 'Hm. <tool_call>{"city":"Oslo"}</tool_call>'
    for t in tokenizer.encode(text, add_special_tokens=False):
        assert tag.matcher.accept_token(t), text
    assert tag.matcher.is_accepting()
    bad_tag = compiled(backend, ("structural_tag", '{"type": "structural_tag"}'))
    assert isinstance(bad_tag, base.InvalidGrammarObject) and bad_tag.error_message
    bad = compiled(backend, ("regex", "[0-9"))
    assert isinstance(bad, base.InvalidGrammarObject) and bad.error_message
    anyjson = compiled(backend, ("json", "$$ANY$$"))
    assert isinstance(anyjson, FstcGrammar)


def test_backend_alone(tokenizer, reference_vocab):
    b = FstcGrammarBackend(tokenizer, MODEL_VOCAB, {EOS}, whitespace="compact")
    assert b.vocab.fingerprint == reference_vocab.fingerprint
    with pytest.raises(ValueError, match="more than the model"):
        FstcGrammarBackend(tokenizer, 1000, {EOS})


def test_real_tokenizer_qwen3():
    """Qwen 3's tokenizer (../shared/vocabs) and its model's padded vocabulary (151,936
    rows for 151,669 ids) through the registered factory: masks equal fstc's eager compile
    from the file, and the logits of the padding rows are -inf."""
    folder = TESTDATA.parent.parent / "shared" / "vocabs" / "qwen3"
    if not (folder / "tokenizer.json").exists():
        pytest.skip(f"{folder} is not here")
    tok = transformers.AutoTokenizer.from_pretrained(str(folder))
    model_vocab = 151936
    b = base.GRAMMAR_BACKEND_REGISTRY["fstc"](
        SimpleNamespace(), tok, model_vocab, {tok.eos_token_id}
    )
    spec = r"[A-Z][a-z]+ [0-9]{1,3}"
    grammar = compiled(b, ("regex", spec))
    vocab = fstc.Vocabulary.from_file(folder / "tokenizer.json", eos_ids=[tok.eos_token_id])
    ref = fstc.Matcher(fstc.compile_regex(spec, vocab))
    for token in tok.encode("Oslo 42", add_special_tokens=False) + [tok.eos_token_id]:
        mask = grammar.allocate_vocab_mask(model_vocab, 1, "cpu")
        grammar.fill_vocab_mask(mask, 0)
        logits = torch.zeros(1, model_vocab)
        grammar.apply_vocab_mask(logits, mask)
        assert torch.isfinite(logits[0]).nonzero().flatten().tolist() == ref.allowed_tokens()
        grammar.accept_token(token)
        assert ref.accept_tokens([token])
    assert grammar.is_terminated()


def test_preloaded_automaton_files(tokenizer, reference_vocab, tmp_path, monkeypatch):
    """``FSTC_AUTOMATA_DIR``: eager automata compiled ahead, loaded when the backend
    starts and named by ``@fstc:NAME`` as a request's ebnf; a file for another vocabulary
    stops the backend, naming the file; an unknown name fails only its request."""
    pattern = r"[0-9]{4}-[0-9]{2}-[0-9]{2}"
    fstc.compile_regex(pattern, reference_vocab).save(tmp_path / "date.fstc")
    monkeypatch.setenv("FSTC_AUTOMATA_DIR", str(tmp_path))
    factory = base.GRAMMAR_BACKEND_REGISTRY["fstc"]
    b = factory(SimpleNamespace(), tokenizer, MODEL_VOCAB, {EOS})
    assert sorted(b.files) == ["date"]
    grammar = compiled(b, ("ebnf", "@fstc:date"))
    assert isinstance(grammar, FstcGrammar)
    ref = fstc.Matcher(fstc.AnyAutomaton.load(tmp_path / "date.fstc"))
    for token in tokenizer.encode("2024-02-29", add_special_tokens=False) + [EOS]:
        mask = grammar.allocate_vocab_mask(MODEL_VOCAB, 1, "cpu")
        grammar.fill_vocab_mask(mask, 0)
        assert bits_of(mask[0].numpy()) == ref.allowed_tokens()
        grammar.accept_token(token)
        ref.accept_tokens([token])
    assert grammar.is_terminated()
    missing = compiled(b, ("ebnf", "@fstc:time"))
    assert isinstance(missing, base.InvalidGrammarObject)
    assert "'time'" in missing.error_message and "date" in missing.error_message
    gpt2 = fstc.Vocabulary.from_file(TESTDATA / "gpt2" / "encoder.json")
    fstc.compile_regex(pattern, gpt2).save(tmp_path / "other.fstc")
    with pytest.raises(ValueError, match=r"other\.fstc was compiled for vocabulary"):
        factory(SimpleNamespace(), tokenizer, MODEL_VOCAB, {EOS})
