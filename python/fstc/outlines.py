"""fstc as an outlines (1.3) logits processor.

    import outlines
    from fstc.outlines import FstcOutlinesProcessor
    model = outlines.from_transformers(hf_model, hf_tokenizer)   # or outlines.from_llamacpp(llm)
    processor = FstcOutlinesProcessor(automaton, model.tensor_library_name)
    generator = outlines.Generator(model, processor=processor)
    text = generator("prompt", max_new_tokens=64)

outlines picks its own backends by name (outlines_core, xgrammar, llguidance); a processor of
one's own goes in through ``Generator(model, processor=...)``, which outlines supports for its
steerable models (transformers, llama.cpp, MLX). outlines calls ``reset()`` before each
generation and the processor with each row's whole token sequence and that step's logits
(torch tensors for transformers, numpy arrays for llama.cpp), in 2-D; the work is
``fstc.processors.ConstrainedBatch``'s, as for ``fstc.hf``. The automaton must be compiled for
the model's vocabulary (the same ids the model uses).
"""

from __future__ import annotations

from typing import Any, Sequence, Union

from outlines.processors import OutlinesLogitsProcessor

from .hf import FstcLogitsProcessor
from .processors import Automaton


class FstcOutlinesProcessor(OutlinesLogitsProcessor):
    """Masks the logits of tokens the constraint does not allow, row by row.

    ``tensor_library_name`` is the model's (``model.tensor_library_name``: "torch" or
    "numpy"); ``automata`` one automaton for every row, or one per row."""

    def __init__(self, automata: Union[Automaton, Sequence[Automaton]], tensor_library_name: str):
        if tensor_library_name not in ("torch", "numpy"):
            raise ValueError(
                f"fstc masks torch tensors and numpy arrays, not {tensor_library_name!r} ones"
            )
        super().__init__(tensor_library_name)
        self._processor = FstcLogitsProcessor(automata)

    @property
    def batch(self):
        """The rows' matchers and prompt lengths (``fstc.processors.ConstrainedBatch``)."""
        return self._processor.batch

    def reset(self) -> None:
        """Start a new generation (outlines calls it before each)."""
        self._processor.reset()

    def process_logits(self, input_ids: Any, logits: Any) -> Any:
        return self._processor(input_ids, logits)
