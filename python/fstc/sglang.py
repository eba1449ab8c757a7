"""fstc as an SGLang grammar backend: ``--grammar-backend fstc``.

``pip install fstc[sglang]`` installs the ``sglang.srt.plugins`` entry point ``fstc``
(``fstc.sglang:register``). SGLang runs it in each of its processes before reading its
arguments; it adds ``fstc`` to ``--grammar-backend``'s choices and registers the backend
with SGLang's own ``register_grammar_backend`` (no patching). SGLang caches one grammar
object per constraint (``BaseGrammarBackend``'s cache) and gives each request a ``copy``.

JSON Schemas (``$$ANY$$``: any JSON value), regexes and structural tags (XGrammar's JSON,
``fstc.compile_structural_tag``) compile lazily, EBNF (GBNF, or Lark when no rule uses
``::=``) eagerly. An ``ebnf`` of
``@fstc:NAME`` names an automaton file ``NAME.fstc`` of ``$FSTC_AUTOMATA_DIR``, loaded at
start-up (compiled ahead with ``fstc compile``).
"""

from __future__ import annotations

import logging
import os
from typing import Any, Iterable, List, Optional, Tuple

import sglang
import torch
from sglang.srt.arg_groups.choices import GRAMMAR_BACKEND_CHOICES, add_grammar_backend_choices
from sglang.srt.constrained.base_grammar_backend import (
    BaseGrammarBackend,
    BaseGrammarObject,
    GrammarStats,
    InvalidGrammarObject,
    register_grammar_backend,
)

from . import FstcError, Matcher, bitmask_words
from .servers import (
    FILE_PREFIX,
    check_version,
    compile_request,
    load_automata,
    vocabulary_from_tokenizer,
)

logger = logging.getLogger(__name__)

#: SGLang releases (major.minor) whose grammar-backend interface this module was written
#: against and tested with (python/tests/test_sglang.py).
KNOWN_SGLANG = ("0.5",)

BACKEND = "fstc"

#: SGLang's key for "any JSON value" (``response_format: json_object``).
ANY_JSON = "$$ANY$$"


def apply_bitmask(logits: torch.Tensor, vocab_mask: torch.Tensor) -> None:
    """Sets ``logits[r, t]`` to -inf where bit ``t % 32`` of word ``t // 32`` of row ``r``
    is 0 (tokens past the mask's width too), in torch ops on the logits' device."""
    rows, vocab = logits.shape
    mask = vocab_mask.to(logits.device, non_blocking=True)[:rows]
    shifts = torch.arange(32, device=logits.device, dtype=torch.int32)
    bits = (mask.unsqueeze(-1) >> shifts) & 1  # (rows, words, 32), bit 31 via sign
    allowed = bits.reshape(rows, -1)[:, :vocab].bool()
    if allowed.shape[1] < vocab:
        pad = torch.zeros(rows, vocab - allowed.shape[1], dtype=torch.bool, device=logits.device)
        allowed = torch.cat([allowed, pad], dim=1)
    logits.masked_fill_(~allowed, float("-inf"))


class FstcGrammar(BaseGrammarObject):
    """One request's position: an ``fstc.Matcher`` with SGLang's calling conventions
    (a refused token raises ``ValueError``; tokens after EOS are ignored)."""

    def __init__(
        self, automaton: Any, vocab: Any, key: str, stats: Optional[GrammarStats] = None
    ):
        super().__init__()
        self.automaton = automaton
        self.vocab = vocab
        self.key = key
        self.matcher = Matcher(automaton)
        self.grammar_stats = stats

    def accept_token(self, token: int) -> None:
        if self.matcher.is_terminated():
            return
        self.current_token = token
        if not self.matcher.accept_token(token):
            raise ValueError(
                f"fstc refused token {token} after {self.matcher.num_accepted} tokens "
                f"(constraint {self.key[:200]!r})"
            )

    def rollback(self, k: int) -> None:
        if k > 0:
            self.matcher.rollback(k)

    def is_terminated(self) -> bool:
        return self.matcher.is_terminated()

    def allocate_vocab_mask(self, vocab_size: int, batch_size: int, device) -> torch.Tensor:
        return FstcGrammarBackend.allocate_vocab_mask(vocab_size, batch_size, device)

    def fill_vocab_mask(self, vocab_mask: torch.Tensor, idx: int) -> None:
        self.matcher.fill_bitmask(vocab_mask, idx)

    @staticmethod
    def move_vocab_mask(vocab_mask: torch.Tensor, device) -> torch.Tensor:
        return vocab_mask.to(device, non_blocking=True)

    @staticmethod
    def apply_vocab_mask(logits: torch.Tensor, vocab_mask: torch.Tensor) -> None:
        apply_bitmask(logits, vocab_mask)

    @staticmethod
    def reset_vocab_mask(vocab_mask: torch.Tensor) -> None:
        vocab_mask.fill_(-1)

    def copy(self) -> "FstcGrammar":
        """A new request's grammar for the same constraint, at its start (what SGLang's
        cache hands out); the automaton is shared, not recompiled."""
        stats = self.grammar_stats
        if stats is not None:
            stats = GrammarStats(dispatch_type=stats.dispatch_type, is_cache_hit=True)
        return FstcGrammar(self.automaton, self.vocab, self.key, stats)

    def try_jump_forward(self, tokenizer) -> Optional[Tuple[List[int], str]]:
        """The tokens the constraint forces from here and their text, or None when
        nothing is forced (or the forced bytes end inside a UTF-8 character)."""
        eos = set(self.automaton.eos_ids)
        forced = [t for t in self.matcher.forced_tokens() if t not in eos]
        if not forced:
            return None
        try:
            return forced, self.vocab.detokenize(forced).decode("utf-8")
        except UnicodeDecodeError:
            return None

    def jump_forward_str_state(self, helper: Tuple[List[int], str]) -> Tuple[str, int]:
        return helper[1], -1

    def jump_and_retokenize(
        self, old_output_ids: List[int], new_output_ids: List[int], next_state: int
    ) -> None:
        """Rolls back to the longest common prefix of the two tokenizations and accepts
        the rest of the new one."""
        k = 0
        while k < min(len(old_output_ids), len(new_output_ids)) and (
            old_output_ids[k] == new_output_ids[k]
        ):
            k += 1
        self.rollback(len(old_output_ids) - k)
        rest = list(new_output_ids[k:])
        if rest and not self.matcher.accept_tokens(rest):
            raise ValueError(f"fstc refused the retokenized output {rest}")

    def __repr__(self) -> str:
        return f"FstcGrammar(key={self.key[:60]!r}, {self.matcher!r})"


class FstcGrammarBackend(BaseGrammarBackend):
    """Compiles each request's constraint for the server's tokenizer (its EOS ids are the
    model's); SGLang's base class caches the result per (type, constraint)."""

    def __init__(
        self,
        tokenizer: Any,
        vocab_size: int,
        eos_token_ids: Optional[Iterable[int]] = None,
        whitespace: str = "flexible",
    ):
        super().__init__()
        eos = set(eos_token_ids or ()) or {tokenizer.eos_token_id}
        self.vocab = vocabulary_from_tokenizer(tokenizer, eos)
        self.vocab_size = vocab_size
        self.whitespace = whitespace
        if self.vocab.size > bitmask_words(vocab_size) * 32:
            raise ValueError(
                f"the tokenizer has {self.vocab.size} ids, more than the model's "
                f"vocabulary of {vocab_size}"
            )
        folder = os.environ.get("FSTC_AUTOMATA_DIR")
        self.files = load_automata(folder, self.vocab) if folder else {}

    def _compile(self, kind: str, key_string: str, spec: Any) -> BaseGrammarObject:
        try:
            automaton = compile_request(kind, spec, self.vocab, whitespace=self.whitespace)
        except (FstcError, ValueError) as e:
            logger.error("fstc could not compile the %s constraint: %s", kind, e)
            return InvalidGrammarObject(str(e))
        return FstcGrammar(automaton, self.vocab, key_string, GrammarStats(dispatch_type=kind))

    def dispatch_json(self, key_string: str) -> BaseGrammarObject:
        return self._compile("json", key_string, {} if key_string == ANY_JSON else key_string)

    def dispatch_regex(self, key_string: str) -> BaseGrammarObject:
        return self._compile("regex", key_string, key_string)

    def dispatch_ebnf(self, key_string: str) -> BaseGrammarObject:
        """A grammar, or ``@fstc:NAME``: the file ``NAME.fstc`` of ``$FSTC_AUTOMATA_DIR``
        loaded at start-up (an eager automaton, compiled ahead)."""
        if key_string.startswith(FILE_PREFIX):
            name = key_string[len(FILE_PREFIX) :]
            automaton = self.files.get(name)
            if automaton is None:
                known = ", ".join(sorted(self.files)) or "none"
                return InvalidGrammarObject(f"no automaton file named {name!r} (loaded: {known})")
            return FstcGrammar(automaton, self.vocab, key_string, GrammarStats(dispatch_type="file"))
        return self._compile("grammar", key_string, key_string)

    def dispatch_structural_tag(self, key_string: str) -> BaseGrammarObject:
        """XGrammar's structural-tag JSON (either spelling), compiled lazily by
        ``fstc.compile_structural_tag``."""
        return self._compile("structural_tag", key_string, key_string)

    @staticmethod
    def allocate_vocab_mask(vocab_size: int, batch_size: int, device) -> torch.Tensor:
        """int32 rows of ``ceil(vocab_size / 32)`` words on the CPU (fstc fills host
        memory), every token allowed (-1) so unfilled rows are unconstrained."""
        return torch.full((batch_size, bitmask_words(vocab_size)), -1, dtype=torch.int32)

    @staticmethod
    def move_vocab_mask(vocab_mask: torch.Tensor, device) -> torch.Tensor:
        return vocab_mask.to(device, non_blocking=True)

    @staticmethod
    def apply_vocab_mask(logits: torch.Tensor, vocab_mask: torch.Tensor) -> None:
        apply_bitmask(logits, vocab_mask)


def create_backend(
    server_args: Any, tokenizer: Any, vocab_size: int, eos_token_ids: Optional[set] = None
) -> FstcGrammarBackend:
    """The factory SGLang calls for ``--grammar-backend fstc``."""
    compact = bool(getattr(server_args, "constrained_json_disable_any_whitespace", False))
    return FstcGrammarBackend(
        tokenizer, vocab_size, eos_token_ids, whitespace="compact" if compact else "flexible"
    )


def register() -> None:
    """The ``sglang.srt.plugins`` entry point. Idempotent. Raises ``RuntimeError`` on an
    SGLang release not in ``KNOWN_SGLANG``."""
    check_version("sglang", sglang.__version__, KNOWN_SGLANG)
    if BACKEND not in GRAMMAR_BACKEND_CHOICES:
        add_grammar_backend_choices([BACKEND])
    register_grammar_backend(BACKEND, create_backend)


__all__ = ["BACKEND", "KNOWN_SGLANG", "FstcGrammar", "FstcGrammarBackend", "create_backend", "register"]
