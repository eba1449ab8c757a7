"""fstc.vllm against the real vLLM package (skipped where vLLM is not installed; the
README's test command does not install it): the plugin entry point, vLLM's own config,
CLI and request validation, and vLLM's StructuredOutputManager driving FstcBackend as the
engine does (compile, bitmask rows with speculative drafts, accept, rollback, apply to
logits with vLLM's function), each mask compared with fstc's own matcher."""

from __future__ import annotations

import json
import re
from types import SimpleNamespace

import pytest

vllm = pytest.importorskip("vllm")
torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

import fstc  # noqa: E402
from fstc.vllm import FstcBackend, FstcGrammar, register  # noqa: E402
from vllm.sampling_params import SamplingParams, StructuredOutputsParams  # noqa: E402
from vllm.v1.structured_output import StructuredOutputManager  # noqa: E402
from vllm.v1.structured_output.backend_types import StructuredOutputOptions as Opt  # noqa: E402
from vllm.v1.structured_output.request import StructuredOutputRequest  # noqa: E402

from conftest import TESTDATA, TOOL_TAG, bits_of, check_tool_calls  # noqa: E402

TOKENIZER = TESTDATA / "bytelevel" / "tokenizer.json"
EOS = 2002  # <|eot_id|>
MODEL_VOCAB = 2048  # the model's embedding rows: more than the tokenizer's 2,009 ids

SCHEMA = {
    "type": "object",
    "properties": {"name": {"type": "string", "maxLength": 12}, "n": {"type": "integer"}},
    "required": ["name", "n"],
    "additionalProperties": False,
}
REGEX = r"[0-9]{3}-[a-z]{2,4}"


@pytest.fixture(scope="module")
def tokenizer():
    return transformers.PreTrainedTokenizerFast(
        tokenizer_file=str(TOKENIZER), eos_token="<|eot_id|>"
    )


@pytest.fixture(scope="module")
def reference_vocab():
    """The same tokenizer read from its file by fstc: the oracle matchers' vocabulary."""
    return fstc.Vocabulary.from_file(TOKENIZER, eos_ids=[EOS])


def vllm_config(num_spec: int = 0, max_num_seqs: int = 4):
    """The parts of a VllmConfig that the manager and backend read (a real VllmConfig
    needs a model)."""
    return SimpleNamespace(
        structured_outputs_config=vllm.config.StructuredOutputsConfig(backend="fstc"),
        num_speculative_tokens=num_spec,
        speculative_config=None,
        model_config=SimpleNamespace(
            is_diffusion=False, get_vocab_size=lambda: MODEL_VOCAB, skip_tokenizer_init=False
        ),
        scheduler_config=SimpleNamespace(max_num_seqs=max_num_seqs),
        parallel_config=SimpleNamespace(distributed_executor_backend="uni"),
    )


def manager(tokenizer, num_spec: int = 0) -> StructuredOutputManager:
    """vLLM's own manager, built without its constructor (which loads a tokenizer from a
    model config); every method the tests call is vLLM's."""
    m = object.__new__(StructuredOutputManager)
    m.backend = None
    m.backend_name = None
    m.reasoner_cls = None
    m.vllm_config = vllm_config(num_spec)
    m._use_async_grammar_compilation = False
    m._grammar_bitmask = None
    m._full_mask = torch.tensor(-1, dtype=torch.int32)
    m.fill_bitmask_parallel_threshold = 128
    m.tokenizer = tokenizer
    m.enable_in_reasoning = False
    return m


def request(req_id: str, so: StructuredOutputsParams, tokenizer):
    """A request validated by vLLM's SamplingParams code (which sets the backend)."""
    params = SamplingParams(structured_outputs=so)
    params._validate_structured_outputs(
        SimpleNamespace(is_diffusion=False), vllm_config().structured_outputs_config, tokenizer
    )
    return SimpleNamespace(
        request_id=req_id,
        sampling_params=params,
        structured_output_request=StructuredOutputRequest.from_sampling_params(params),
        use_structured_output=True,
        all_token_ids=[],
        prompt_token_ids=[],
    )


@pytest.fixture(autouse=True, scope="module")
def plugin():
    """vLLM's own plugin loader finds fstc's entry point and runs it."""
    from vllm.plugins import load_general_plugins

    load_general_plugins()
    assert getattr(StructuredOutputManager.grammar_init, "_fstc", False), (
        "the vllm.general_plugins entry point did not run: is fstc installed (pip install ./python)?"
    )


def test_entry_point_and_config_accept_fstc():
    from importlib.metadata import entry_points

    eps = {ep.name: ep.value for ep in entry_points(group="vllm.general_plugins")}
    assert eps.get("fstc") == "fstc.vllm:register"
    assert vllm.config.StructuredOutputsConfig(backend="fstc").backend == "fstc"
    with pytest.raises(Exception, match="fstx|literal|Input should be"):
        vllm.config.StructuredOutputsConfig(backend="fstx")
    register()  # idempotent


def test_cli_selects_fstc():
    """vLLM's own argument parser. Building it reads the platform's device type, which a
    CUDA build of vLLM cannot infer without a GPU: conftest.py names the CPU."""
    from vllm.engine.arg_utils import AsyncEngineArgs, EngineArgs
    from vllm.utils.argparse_utils import FlexibleArgumentParser

    parser = AsyncEngineArgs.add_cli_args(FlexibleArgumentParser())
    args = parser.parse_args(["--structured-outputs-config.backend", "fstc"])
    assert EngineArgs.from_cli_args(args).structured_outputs_config.backend == "fstc"


def test_unknown_vllm_release_fails_loudly(monkeypatch):
    monkeypatch.setattr(vllm, "__version__", "0.99.1")
    with pytest.raises(RuntimeError, match=r"knows vllm 0\.32\.x or 0\.33\.x, not 0\.99\.1"):
        register()


def test_request_validation(tokenizer):
    from vllm.exceptions import VLLMValidationError

    r = request("a", StructuredOutputsParams(regex=REGEX), tokenizer)
    assert r.sampling_params.structured_outputs._backend == "fstc"
    tag = request("b", StructuredOutputsParams(structural_tag=TOOL_TAG), tokenizer)
    assert tag.sampling_params.structured_outputs._backend == "fstc"
    with pytest.raises(VLLMValidationError, match="empty list"):
        request("c", StructuredOutputsParams(choice=[]), tokenizer)
    deep: dict = {"type": "string"}
    for _ in range(200):
        deep = {"type": "array", "items": deep}
    with pytest.raises(VLLMValidationError, match="nest"):
        request("e", StructuredOutputsParams(json=deep), tokenizer)
    slow = SimpleNamespace(eos_token_id=EOS)
    with pytest.raises(VLLMValidationError, match="fast tokenizer"):
        request("d", StructuredOutputsParams(regex=REGEX), slow)


def test_vocabulary_from_tokenizer_is_the_files(tokenizer, reference_vocab):
    backend = FstcBackend(vllm_config(), tokenizer, MODEL_VOCAB)
    vocab = backend.vocabulary()
    assert vocab.fingerprint == reference_vocab.fingerprint
    assert vocab.eos_ids == [EOS]
    assert backend.vocabulary({EOS, 2001}).eos_ids == [2001, EOS]


def oracle(kind, spec, vocab):
    """fstc's own compile of the same constraint, through the public API."""
    if kind == "json":
        return fstc.compile_json_schema(spec, vocab)[0]
    if kind == "regex":
        return fstc.compile_regex(spec, vocab)
    if kind == "grammar":
        return fstc.compile_grammar(spec, vocab)
    if kind == "structural_tag":
        return fstc.compile_structural_tag(spec, vocab)[0]
    raise AssertionError(kind)


CASES = [
    ("json", StructuredOutputsParams(json=SCHEMA), '{"name": "Ada", "n": 36}', SCHEMA),
    ("regex", StructuredOutputsParams(regex=REGEX), "123-abc", REGEX),
    (
        "grammar",
        StructuredOutputsParams(grammar='root ::= "[" [0-9]+ ("," [0-9]+)* "]"'),
        "[1,22,333]",
        'root ::= "[" [0-9]+ ("," [0-9]+)* "]"',
    ),
    (
        "structural_tag",
        StructuredOutputsParams(structural_tag=TOOL_TAG),
        'Hm. <tool_call>{"city": "Oslo"}</tool_call> and <tool_call>{"city":"Rome"}</tool_call>.',
        TOOL_TAG,
    ),
]


def check_text(text: str, kind: str) -> None:
    """An independent validator of each case's text."""
    if kind == "json":
        v = json.loads(text)
        assert set(v) == {"name", "n"} and isinstance(v["n"], int) and len(v["name"]) <= 12
    elif kind == "regex":
        assert re.fullmatch(REGEX, text)
    elif kind == "structural_tag":
        check_tool_calls(text)
    else:
        assert re.fullmatch(r"\[[0-9]+(,[0-9]+)*\]", text)


@pytest.mark.parametrize("kind,so,text,spec", CASES, ids=[c[0] for c in CASES])
def test_engine_loop_masks_and_accepts(tokenizer, reference_vocab, kind, so, text, spec):
    """The engine's loop: grammar_init, then per step grammar_bitmask (vLLM's), the row
    equal to fstc's own matcher's mask, the HF tokenizer's next token in it, and
    accept_tokens (vLLM's); EOS last terminates."""
    check_text(text, kind)
    m = manager(tokenizer)
    req = request("r", so, tokenizer)
    m.grammar_init(req)
    assert isinstance(m.backend, FstcBackend) and m.backend_name == "fstc"
    grammar = req.structured_output_request.grammar
    assert isinstance(grammar, FstcGrammar)
    ref = fstc.Matcher(oracle(kind, spec, reference_vocab))
    tokens = tokenizer.encode(text, add_special_tokens=False) + [EOS]
    for token in tokens:
        rows = m.grammar_bitmask({"r": req}, ["r"], {})
        assert rows.shape == (1, MODEL_VOCAB // 32)
        assert bits_of(rows[0]) == ref.allowed_tokens()
        assert token in bits_of(rows[0])
        assert m.accept_tokens(req, [token]) and ref.accept_tokens([token])
    assert grammar.is_terminated()
    assert grammar.accept_tokens("r", [5])  # after EOS: ignored, as vLLM's backends do
    grammar.reset()
    assert not grammar.is_terminated() and grammar.matcher.num_accepted == 0


def test_refused_token_is_false_and_moves_nothing(tokenizer):
    m = manager(tokenizer)
    req = request("r", StructuredOutputsParams(regex=REGEX), tokenizer)
    m.grammar_init(req)
    grammar = req.structured_output_request.grammar
    good = tokenizer.encode("12", add_special_tokens=False)
    bad = tokenizer.encode("x", add_special_tokens=False)
    assert not m.accept_tokens(req, good + bad)
    assert grammar.matcher.num_accepted == 0
    assert m.accept_tokens(req, good)
    # Tokens after EOS in one step are ignored, as vLLM's backends do.
    rest = tokenizer.encode("3-ab", add_special_tokens=False)
    assert m.accept_tokens(req, rest + [EOS] + bad)
    assert grammar.is_terminated() and grammar.matcher.num_accepted == len(good + rest) + 1


def test_speculative_rows_validation_and_rollback(tokenizer, reference_vocab):
    """vLLM's speculative path: one row per draft position plus the bonus row, each the
    mask after the drafts before it; a refused draft's row repeats the last good one;
    the grammar is rolled back after; validate_tokens cuts drafts at the first refusal."""
    k = 4
    m = manager(tokenizer, num_spec=k)
    req = request("r", StructuredOutputsParams(regex=REGEX), tokenizer)
    m.grammar_init(req)
    grammar = req.structured_output_request.grammar
    ref_automaton = oracle("regex", REGEX, reference_vocab)
    prefix = tokenizer.encode("1", add_special_tokens=False)
    assert m.accept_tokens(req, prefix)
    drafts = [tokenizer.encode(s, add_special_tokens=False)[0] for s in ("2", "3", "x", "4")]
    assert m.validate_tokens(req, drafts) == drafts[:2]
    assert m.validate_tokens(req, drafts[:2] + [-1, -1]) == drafts[:2]  # padding stripped
    rows = m.grammar_bitmask({"r": req}, ["r"], {"r": drafts})
    assert rows.shape[0] == k + 1
    for i in range(3):
        ref = fstc.Matcher(ref_automaton)
        assert ref.accept_tokens(prefix + drafts[:i])
        assert bits_of(rows[i]) == ref.allowed_tokens(), i
    assert (rows[3] == rows[2]).all() and (rows[4] == rows[2]).all()
    assert grammar.matcher.num_accepted == len(prefix)  # rolled back
    # A full valid draft: rows for every position and the bonus row, then rolled back.
    drafts = tokenizer.encode("23-ab", add_special_tokens=False)[:k]
    rows = m.grammar_bitmask({"r": req}, ["r"], {"r": drafts})
    for i in range(len(drafts) + 1):
        ref = fstc.Matcher(ref_automaton)
        assert ref.accept_tokens(prefix + drafts[:i])
        assert bits_of(rows[i]) == ref.allowed_tokens(), i
    assert grammar.matcher.num_accepted == len(prefix)
    # The scheduler then accepts what the target model kept.
    assert m.accept_tokens(req, drafts)
    assert grammar.matcher.num_accepted == len(prefix) + len(drafts)


def test_speculative_rows_through_a_tool_call(tokenizer, reference_vocab):
    """Speculative decoding under a structural tag: at every position of a text with a tool
    call, vLLM's manager gets the text's next k tokens as drafts, the last replaced by a
    token the tag refuses there when there is one. Its rows are fstc's own matcher's masks
    after each accepted draft (past a refused one, the last good row again),
    validate_tokens cuts at the refusal, and the grammar is rolled back before the step's
    token is accepted."""
    k = 3
    m = manager(tokenizer, num_spec=k)
    req = request("r", StructuredOutputsParams(structural_tag=TOOL_TAG), tokenizer)
    m.grammar_init(req)
    grammar = req.structured_output_request.grammar
    automaton = oracle("structural_tag", TOOL_TAG, reference_vocab)
    text = 'Hm. <tool_call>{"city": "Oslo"}</tool_call> ok'
    check_text(text, "structural_tag")
    tokens = tokenizer.encode(text, add_special_tokens=False)
    odd = [tokenizer.encode(s, add_special_tokens=False)[0] for s in ("x", "<", "}", "{")]

    def after(prefix):
        ref = fstc.Matcher(automaton)
        assert ref.accept_tokens(prefix)
        return ref

    refusals = 0
    for i, token in enumerate(tokens):
        drafts = tokens[i : i + k]
        if len(drafts) == k:
            allowed = set(after(tokens[: i + k - 1]).allowed_tokens())
            drafts[-1] = next((t for t in odd if t not in allowed), drafts[-1])
        good = after(tokens[:i]).validate_tokens(drafts)
        refusals += len(drafts) - good
        assert m.validate_tokens(req, drafts) == drafts[:good]
        rows = m.grammar_bitmask({"r": req}, ["r"], {"r": drafts})
        for j in range(len(drafts) + 1):
            expected = after(tokens[:i] + drafts[: min(j, good)]).allowed_tokens()
            assert bits_of(rows[j]) == expected, (i, j)
        assert grammar.matcher.num_accepted == i  # rolled back
        assert m.accept_tokens(req, [token])
    assert refusals > 0
    assert m.accept_tokens(req, [EOS]) and grammar.is_terminated()


def test_apply_with_vllms_function(tokenizer, monkeypatch):
    """vLLM's apply_grammar_bitmask (its CPU path) with fstc's rows: exactly the
    disallowed logits become -inf; padded model rows past the tokenizer too. (A CUDA
    build of vLLM pins host memory, which needs a driver: not here.)"""
    from vllm.v1.structured_output import utils
    from vllm.v1.structured_output.utils import apply_grammar_bitmask

    monkeypatch.setattr(utils, "PIN_MEMORY", False)

    m = manager(tokenizer)
    reqs = {
        "a": request("a", StructuredOutputsParams(regex=REGEX), tokenizer),
        "b": request("b", StructuredOutputsParams(choice=["yes", "no (x|y)"]), tokenizer),
    }
    for r in reqs.values():
        m.grammar_init(r)
    rows = m.grammar_bitmask(reqs, ["a", "b"], {})
    logits = torch.randn(3, MODEL_VOCAB)  # batch order: plain, b, a
    before = logits.clone()
    apply_grammar_bitmask(
        SimpleNamespace(scheduled_spec_decode_tokens={}),
        SimpleNamespace(grammar_bitmask=rows, structured_output_request_ids=["a", "b"]),
        SimpleNamespace(req_ids=["plain", "b", "a"]),
        logits,
    )
    assert torch.equal(logits[0], before[0])
    for batch_row, name in ((2, "a"), (1, "b")):
        allowed = reqs[name].structured_output_request.grammar.matcher.allowed_tokens()
        finite = torch.isfinite(logits[batch_row]).nonzero().flatten().tolist()
        assert finite == allowed
    b = reqs["b"].structured_output_request.grammar
    for text in ("no (x|y)", "yes"):
        b.reset()
        assert b.validate_tokens(tokenizer.encode(text, add_special_tokens=False) + [EOS])
    wrong = tokenizer.encode("no x", add_special_tokens=False) + [EOS]
    assert len(b.validate_tokens(wrong)) < len(wrong)


def test_compile_kinds_and_refusals(tokenizer):
    backend = FstcBackend(vllm_config(), tokenizer, MODEL_VOCAB)
    obj = backend.compile_grammar(Opt.JSON_OBJECT, "")
    assert obj.accept_tokens("r", tokenizer.encode('{"a": [1, {}]}', add_special_tokens=False))
    assert not obj.validate_tokens(tokenizer.encode("[1]", add_special_tokens=False))
    lark = backend.compile_grammar(Opt.GRAMMAR, 'start: "a" NUM\nNUM: /[0-9]+/\n')
    assert lark.accept_tokens("r", tokenizer.encode("a42", add_special_tokens=False) + [EOS])
    assert lark.is_terminated()
    tag = backend.compile_grammar(Opt.STRUCTURAL_TAG, TOOL_TAG)
    call = tokenizer.encode('Hm. <tool_call>{"city":"Oslo"}</tool_call>', add_special_tokens=False)
    assert tag.accept_tokens("r", call + [EOS]) and tag.is_terminated()
    with pytest.raises(fstc.FstcError, match="structural tag"):
        backend.compile_grammar(Opt.STRUCTURAL_TAG, "{}")
    with pytest.raises(fstc.FstcError):
        backend.compile_grammar(Opt.REGEX, "[0-9")
    # Stop tokens of the request: allowed only where the constraint is complete.
    g = backend.compile_grammar(Opt.REGEX, "[0-9]+", stop_token_ids={EOS, 2001})
    digits = tokenizer.encode("7", add_special_tokens=False)
    assert g.validate_tokens([2001]) == [] and g.validate_tokens(digits + [2001]) == digits + [2001]
    mask = backend.allocate_token_bitmask(2)
    assert mask.shape == (2, MODEL_VOCAB // 32) and mask.dtype == torch.int32
    assert (mask == -1).all()
    # The cache: a second request for the same constraint shares the automaton (the
    # states the first one composed are there) and adds no entry.
    first = backend.compile_grammar(Opt.REGEX, "[5-9]+")
    entries = len(backend.cache)
    assert first.accept_tokens("r", tokenizer.encode("5", add_special_tokens=False))
    second = backend.compile_grammar(Opt.REGEX, "[5-9]+")
    assert len(backend.cache) == entries and second.matcher.automaton.num_cached_states == 1


SHARED = TESTDATA.parent.parent / "shared" / "vocabs"


@pytest.mark.parametrize("name,model_vocab", [("llama3", 128256), ("qwen3", 151936)])
def test_real_tokenizers(name, model_vocab, monkeypatch):
    """Llama 3's and Qwen 3's tokenizers (../shared/vocabs) with their models' vocabulary
    sizes (Qwen 3's is padded past the tokenizer): the engine loop over a JSON Schema,
    every row equal to fstc's eager compile from the tokenizer's file."""
    folder = SHARED / name
    if not (folder / "tokenizer.json").exists():
        pytest.skip(f"{folder} is not here")
    tok = transformers.AutoTokenizer.from_pretrained(str(folder))
    assert tok.is_fast
    m = manager(tok)
    monkeypatch.setattr(m.vllm_config.model_config, "get_vocab_size", lambda: model_vocab)
    req = request("r", StructuredOutputsParams(json=SCHEMA), tok)
    m.grammar_init(req)
    vocab = fstc.Vocabulary.from_file(folder / "tokenizer.json", eos_ids=[tok.eos_token_id])
    ref = fstc.Matcher(fstc.compile_json_schema(SCHEMA, vocab)[0])
    text = '{"name": "Zoë 😀", "n": -12}'
    check_text(text, "json")
    for token in tok.encode(text, add_special_tokens=False) + [tok.eos_token_id]:
        rows = m.grammar_bitmask({"r": req}, ["r"], {})
        assert rows.shape == (1, (model_vocab + 31) // 32)
        allowed = bits_of(rows[0])
        assert allowed == ref.allowed_tokens() and token in allowed
        assert m.accept_tokens(req, [token]) and ref.accept_tokens([token])
    assert req.structured_output_request.grammar.is_terminated()
