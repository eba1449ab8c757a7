"""The framework-independent core of fstc's logits processors, on numpy.

A decoder hands a processor, at every step, each row's whole token sequence (prompt
plus generated tokens) and that step's logits. ``ConstrainedBatch`` remembers each row's
prompt length from the first call, feeds the matcher of each row the tokens it has not
seen yet (forking matchers when beam search reorders rows), and masks the logits of every
token the constraint does not allow. The
framework adapters (``fstc.hf``, ``fstc.llama_cpp``) only convert tensors.
"""

from __future__ import annotations

from typing import Any, List, Optional, Sequence, Union

import numpy as np

from ._fstc import AnyAutomaton, FstcError, LazyAutomaton, Matcher, fill_bitmasks
from .bitmask import allocate_token_bitmask, unpack_bitmask


Automaton = Union[AnyAutomaton, LazyAutomaton]


class ConstrainedBatch:
    """One matcher per batch row, plus each row's prompt length.

    ``automata`` is one automaton (an ``AnyAutomaton``, or a ``LazyAutomaton`` from
    ``lazy=True``) for every row, or one per row. The batch size is fixed
    by the first ``update`` when a single automaton is given. Rows whose matcher has
    accepted EOS are finished: their later tokens (padding) are ignored and their logits
    left alone.
    """

    def __init__(self, automata: Union[Automaton, Sequence[Automaton]]):
        if isinstance(automata, (AnyAutomaton, LazyAutomaton)):
            self._shared: Optional[Automaton] = automata
            self._automata: List[Automaton] = []
        else:
            self._shared = None
            self._automata = list(automata)
            if not self._automata:
                raise ValueError("ConstrainedBatch needs at least one automaton")
        self.matchers: List[Matcher] = []
        self.prompt_lengths: List[int] = []
        self._generated: List[List[int]] = []

    @property
    def vocab_size(self) -> int:
        """The largest vocabulary size among the rows' automata."""
        automata = [self._shared] if self._shared is not None else self._automata
        return max(a.vocab_size for a in automata)

    def reset(self) -> None:
        """Forget every row: the next ``update`` starts a new generation."""
        self.matchers = []
        self.prompt_lengths = []
        self._generated = []

    def _start(self, sequences: Sequence[Sequence[int]]) -> None:
        n = len(sequences)
        if self._shared is not None:
            automata = [self._shared] * n
        elif len(self._automata) != n:
            raise ValueError(f"{len(self._automata)} automata for a batch of {n} rows")
        else:
            automata = self._automata
        self.matchers = [Matcher(a) for a in automata]
        self.prompt_lengths = [len(s) for s in sequences]
        self._generated = [[] for _ in range(n)]

    def update(self, sequences: Sequence[Sequence[int]]) -> None:
        """Feeds each row's matcher the tokens of its sequence it has not seen.

        The first call after construction or ``reset`` records the prompt lengths. Rows
        may be reordered between calls (beam search): a row whose generated tokens do not
        extend its own earlier ones continues from a copy of the row it shares the longest
        prefix with (rolled back to that prefix). A shorter sequence rolls back (rejected
        draft tokens). A sampled token the constraint does not allow raises ``FstcError``
        (it cannot happen when every step was masked).
        """
        if not self.matchers:
            self._start(sequences)
            return
        if len(sequences) != len(self.matchers):
            raise ValueError(
                f"batch changed from {len(self.matchers)} to {len(sequences)} rows; "
                "call reset() between generations"
            )
        new = [[int(t) for t in seq[p:]] for seq, p in zip(sequences, self.prompt_lengths)]
        parents = [self._parent(row, gen) for row, gen in enumerate(new)]
        # Copies are taken before any matcher moves; a parent's first child gets it as is.
        taken = set()
        matchers = []
        for p in parents:
            matchers.append(self.matchers[p].copy() if p in taken else self.matchers[p])
            taken.add(p)
        generated = [self._generated[p] for p in parents]
        self.matchers = matchers
        self._generated = [
            self._advance(row, m, old, gen)
            for row, (m, old, gen) in enumerate(zip(matchers, generated, new))
        ]

    def _parent(self, row: int, gen: List[int]) -> int:
        """The earlier row whose generated tokens share the longest prefix with ``gen``:
        ``row`` itself when they extend its own."""
        own = self._generated[row]
        if gen[: len(own)] == own:
            return row
        return max(
            range(len(self._generated)),
            key=lambda r: (_common_prefix(self._generated[r], gen), r == row),
        )

    def _advance(self, row: int, matcher: Matcher, old: List[int], gen: List[int]) -> List[int]:
        """Moves ``matcher`` (which has accepted ``old``) to ``gen``; returns the tokens it
        has accepted then."""
        common = _common_prefix(old, gen)
        if common == len(old) and matcher.is_terminated():
            return old  # finished: the rest is padding
        matcher.rollback(len(old) - common)
        rest = gen[common:]
        n = matcher.validate_tokens(rest)
        # A prefix shorter than `rest` is fine only when it ends with EOS: the rest is
        # padding after the row finished.
        if n < len(rest) and not (n > 0 and rest[n - 1] in matcher.automaton.eos_ids):
            position = self.prompt_lengths[row] + common + n
            raise FstcError(
                f"row {row}: generated token {rest[n]} at position {position} "
                "is not allowed by the constraint"
            )
        matcher.accept_tokens(rest[:n])
        return gen[: common + n]

    def active_rows(self) -> List[int]:
        """Rows whose matcher has not accepted EOS."""
        return [i for i, m in enumerate(self.matchers) if not m.is_terminated()]

    def fill_bitmask(self, bitmask: Any) -> List[int]:
        """Fills the rows of ``bitmask`` (numpy or torch int32, one row per batch row)
        of active rows; returns those rows. Finished rows are left untouched."""
        rows = self.active_rows()
        fill_bitmasks([self.matchers[i] for i in rows], bitmask, rows)
        return rows

    def mask_logits(self, scores: np.ndarray) -> np.ndarray:
        """Sets, in place, the logits of disallowed tokens to -inf; returns ``scores``
        (shape (batch, vocab)). The vocabulary axis may be wider than the automata's
        vocabulary (padded embeddings): the extra tokens are disallowed."""
        if scores.ndim != 2 or scores.shape[0] != len(self.matchers):
            raise ValueError(
                f"scores of shape {scores.shape} for a batch of {len(self.matchers)} rows"
            )
        width = scores.shape[1]
        if width < self.vocab_size:
            raise ValueError(
                f"scores have {width} tokens but the automaton's vocabulary has "
                f"{self.vocab_size}"
            )
        bitmask = allocate_token_bitmask(len(self.matchers), width)
        rows = self.fill_bitmask(bitmask)
        if rows:
            allowed = unpack_bitmask(bitmask[rows], width)
            scores[rows] = np.where(allowed, scores[rows], -np.inf)
        return scores


def _common_prefix(a: List[int], b: List[int]) -> int:
    """Length of the longest common prefix of two token lists."""
    n = min(len(a), len(b))
    if a[:n] == b[:n]:
        return n
    return next(i for i in range(n) if a[i] != b[i])
