"""A Hugging Face transformers ``LogitsProcessor`` backed by fstc.

    from fstc.hf import FstcLogitsProcessor
    processor = FstcLogitsProcessor(automaton)  # an AnyAutomaton or a LazyAutomaton
    model.generate(**inputs, logits_processor=LogitsProcessorList([processor]))

``input_ids`` (batch, seq) and ``scores`` (batch, vocab) are torch tensors; numpy arrays
are accepted too (the same core, ``fstc.processors.ConstrainedBatch``, does the work).
The bitmask is filled on the CPU and applied on the scores' device. Use one processor
per ``generate`` call (or ``reset()`` it). Beam search works: when rows are reordered, a
row continues from a copy of the matcher of the row it extends.
"""

from __future__ import annotations

from typing import Any, Sequence, Union

import numpy as np

from .bitmask import bitmask_words
from .processors import Automaton, ConstrainedBatch

try:  # Subclass transformers' base when it is installed; any callable works otherwise.
    from transformers import LogitsProcessor as _Base  # type: ignore[import-not-found]
except ImportError:  # pragma: no cover - depends on the environment
    _Base = object


class FstcLogitsProcessor(_Base):  # type: ignore[misc,valid-type]
    """Masks the logits of tokens the constraint does not allow, row by row."""

    def __init__(self, automata: Union[Automaton, Sequence[Automaton]]):
        self.batch = ConstrainedBatch(automata)

    def reset(self) -> None:
        """Start a new generation."""
        self.batch.reset()

    def __call__(self, input_ids: Any, scores: Any) -> Any:
        rows = input_ids.tolist() if hasattr(input_ids, "tolist") else input_ids
        self.batch.update(rows)
        if isinstance(scores, np.ndarray):
            return self.batch.mask_logits(scores)
        return _mask_torch(self.batch, scores)


def _mask_torch(batch: ConstrainedBatch, scores: Any) -> Any:
    import torch  # type: ignore[import-not-found]

    rows, width = scores.shape
    if width < batch.vocab_size:
        raise ValueError(
            f"scores have {width} tokens but the automaton's vocabulary has "
            f"{batch.vocab_size}"
        )
    bitmask = torch.zeros((rows, bitmask_words(width)), dtype=torch.int32)
    active = batch.fill_bitmask(bitmask)
    if not active:
        return scores
    shifts = torch.arange(32, dtype=torch.int32)
    bits = (bitmask[active].unsqueeze(-1) >> shifts) & 1
    allowed = bits.reshape(len(active), -1)[:, :width].bool().to(scores.device)
    index = torch.tensor(active, device=scores.device)
    masked = scores[index].masked_fill(~allowed, float("-inf"))
    return scores.index_copy(0, index, masked)
