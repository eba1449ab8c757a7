"""A llama-cpp-python logits processor backed by fstc.

    from llama_cpp import LogitsProcessorList
    from fstc.llama_cpp import FstcLlamaLogitsProcessor
    processor = FstcLlamaLogitsProcessor(automaton)  # an AnyAutomaton or a LazyAutomaton
    llm(prompt, logits_processor=LogitsProcessorList([processor]))

llama-cpp-python calls ``processor(input_ids, scores)`` with every token so far (prompt
included) as a 1-D numpy array and the next token's logits as a 1-D float array, and
uses the array returned. The automaton must be compiled for the model's vocabulary (the
same ids llama.cpp uses). Use one processor per generation (or ``reset()`` it).
"""

from __future__ import annotations

import numpy as np

from .processors import Automaton, ConstrainedBatch


class FstcLlamaLogitsProcessor:
    """Masks, in place, the logits of tokens the constraint does not allow."""

    def __init__(self, automaton: Automaton):
        self.batch = ConstrainedBatch(automaton)

    def reset(self) -> None:
        """Start a new generation."""
        self.batch.reset()

    @property
    def matcher(self):
        """The matcher of the (single) sequence, once the first call has happened."""
        return self.batch.matchers[0] if self.batch.matchers else None

    def __call__(self, input_ids: np.ndarray, scores: np.ndarray) -> np.ndarray:
        self.batch.update([input_ids])
        # reshape is a view for the contiguous rows llama-cpp-python passes; the copy back
        # keeps any other layout right too.
        masked = self.batch.mask_logits(scores.reshape(1, -1))
        scores[...] = masked[0]
        return scores
