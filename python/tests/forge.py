"""Forged automaton files: header words overwritten and the checksum recomputed, so a
forgery reaches the loader's checks behind the checksum (``test_hostile.py`` and
``benches/hostile_table.py``)."""

from __future__ import annotations

import struct


def fnv_words(words):
    """The file's checksum: FNV-1a over eight lanes of 32-bit words, folded."""
    offset, prime, mask = 0xCBF29CE484222325, 0x100000001B3, 2**64 - 1
    lanes = [offset] * 8
    for i, w in enumerate(words):
        lanes[i % 8] = ((lanes[i % 8] ^ w) * prime) & mask
    h = offset
    for lane in lanes:
        h = ((h ^ lane) * prime) & mask
    return h


def forged(data: bytes, edits) -> bytes:
    """`data` with header words overwritten and the checksum recomputed."""
    words = list(struct.unpack(f"<{len(data) // 4}I", data))
    for at, value in edits.items():
        words[at] = value
    h = fnv_words(words[:-2])
    words[-2], words[-1] = h & 0xFFFFFFFF, h >> 32
    return struct.pack(f"<{len(words)}I", *words)
