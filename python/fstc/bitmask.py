"""Bitmask helpers on numpy: allocation and unpacking to booleans."""

from __future__ import annotations

import numpy as np


def bitmask_words(vocab_size: int) -> int:
    """Number of int32 words a bitmask row needs for ``vocab_size`` tokens."""
    return (vocab_size + 31) // 32


def allocate_token_bitmask(batch_size: int, vocab_size: int) -> np.ndarray:
    """A zeroed int32 bitmask of shape (batch_size, ceil(vocab_size / 32))."""
    return np.zeros((batch_size, bitmask_words(vocab_size)), dtype=np.int32)


def unpack_bitmask(bitmask: np.ndarray, vocab_size: int) -> np.ndarray:
    """Booleans of shape (batch, vocab_size): entry [r, t] is bit t % 32 of word t // 32
    of row r."""
    words = np.ascontiguousarray(bitmask, dtype="<i4")
    if words.ndim != 2 or words.shape[1] * 32 < vocab_size:
        raise ValueError(
            f"bitmask of shape {words.shape} cannot hold {vocab_size} tokens per row"
        )
    bits = np.unpackbits(words.view(np.uint8), axis=1, bitorder="little")
    return bits[:, :vocab_size].astype(bool)
