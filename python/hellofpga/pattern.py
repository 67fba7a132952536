# SPDX-License-Identifier: MIT
"""The frame format of the reference design's AXI-Stream source
(refdesign/hf_stream_pattern.h, docs/xdma-model.md "Frames"), with NumPy: make
and verify frames in Python.  tests/lint/refdesign_py.py checks its constants
against the header.

A frame of ``len`` bytes: bytes 0..7 the sequence number, 8..11 ``len``,
12..15 ``MAGIC`` (all little endian), then at offset ``o`` byte ``o % 4`` of
``word(seq, o // 4)``.
"""
from __future__ import annotations

from typing import Any

import numpy as np

HDR_SIZE = 16
MAGIC = 0x54534648  # "HFST"

_M32 = np.uint64(0xffffffff)


def _mix(x: Any) -> Any:
    x = x.astype(np.uint64)
    x ^= x >> np.uint64(16)
    x = (x * np.uint64(0x7feb352d)) & _M32
    x ^= x >> np.uint64(15)
    x = (x * np.uint64(0x846ca68b)) & _M32
    x ^= x >> np.uint64(16)
    return x


def words(seq: int, first: int, count: int) -> Any:
    """Pattern words first .. first + count - 1 of frame @seq (uint32)."""
    idx = np.arange(first, first + count, dtype=np.uint64)
    k = (((seq & 0xffffffff) * 0x85ebca77) ^
         ((seq >> 32) * 0xc2b2ae3d)) & 0xffffffff
    x = ((idx * np.uint64(0x9e3779b1)) & _M32) ^ np.uint64(k)
    return _mix(x).astype(np.uint32)


def make(seq: int, length: int) -> Any:
    """Frame (@seq, @length) as a uint8 array (what the source sends)."""
    if length < HDR_SIZE:
        raise ValueError(f"a frame is at least {HDR_SIZE} bytes")
    nwords = (length + 3) // 4
    w = words(seq, 0, nwords)
    w[0] = seq & 0xffffffff
    w[1] = seq >> 32
    w[2] = length
    w[3] = MAGIC
    return w.astype("<u4").view(np.uint8)[:length].copy()


def verify(data: Any) -> int:
    """Check a whole frame (any buffer, a NumPy array, a Frame's view);
    return its sequence number; ValueError names the first bad byte."""
    b = np.frombuffer(data, dtype=np.uint8) if not isinstance(
        data, np.ndarray) else data.reshape(-1).view(np.uint8)
    if b.size < HDR_SIZE:
        raise ValueError(f"frame of {b.size} bytes: shorter than the header")
    hdr = b[:HDR_SIZE].copy().view("<u4")
    seq = int(hdr[0]) | int(hdr[1]) << 32
    if int(hdr[3]) != MAGIC:
        raise ValueError(f"frame magic {int(hdr[3]):#010x}, not {MAGIC:#010x}")
    if int(hdr[2]) != b.size:
        raise ValueError(f"frame says {int(hdr[2])} bytes, has {b.size}")
    good = make(seq, b.size)
    bad = np.flatnonzero(good != b)
    if bad.size:
        o = int(bad[0])
        raise ValueError(f"frame {seq}: byte {o} is {int(b[o]):#04x}, "
                         f"expected {int(good[o]):#04x} ({bad.size} bad)")
    return seq
