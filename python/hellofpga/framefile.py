# SPDX-License-Identifier: MIT
"""Stream frames in a file: the layout ``hellofpga stream --save FILE``
writes (docs/cli.md "stream"), for frames of any design, unchecked.

Per frame, one after the other: a header of 24 bytes, little endian (u32
``MAGIC``, u32 length in bytes, u64 index: the frame's number on the
stream, u64 timestamp: ns of CLOCK_MONOTONIC when the library saw its last
buffer), then the frame's bytes::

    n = hellofpga.framefile.save(stream, "frames.bin", 100)
    for f in hellofpga.framefile.read("frames.bin"):
        print(f.index, f.timestamp_ns, len(f.data))
"""
from __future__ import annotations

import os
import struct
from typing import TYPE_CHECKING, BinaryIO, Iterator, List, NamedTuple, Union

if TYPE_CHECKING:
    from ._stream import Stream

MAGIC = 0x52464648  # "HFFR"
HEADER = struct.Struct("<IIQQ")
MAX_LENGTH = 0xffffffff

Path = Union[str, "os.PathLike[str]"]


class SavedFrame(NamedTuple):
    """One frame of a file: its number on the stream, when, its bytes."""
    index: int
    timestamp_ns: int
    data: bytes


def write(f: BinaryIO, index: int, timestamp_ns: int, data: bytes) -> None:
    """Append one frame to the open file @f."""
    if len(data) > MAX_LENGTH:
        raise ValueError(f"frame {index}: {len(data)} bytes, more than a "
                         "32-bit length")
    f.write(HEADER.pack(MAGIC, len(data), index, timestamp_ns))
    f.write(data)


def read(path: Path) -> Iterator[SavedFrame]:
    """The frames of the file at @path, in order.  ValueError for a header
    whose magic is wrong, or a file that ends inside a frame."""
    with open(path, "rb") as f:
        pos = 0
        while True:
            hdr = f.read(HEADER.size)
            if not hdr:
                return
            if len(hdr) < HEADER.size:
                raise ValueError(f"{path}: ends inside the header at {pos}")
            magic, n, index, ts = HEADER.unpack(hdr)
            if magic != MAGIC:
                raise ValueError(f"{path}: no frame at {pos}: magic "
                                 f"0x{magic:08x}, not 0x{MAGIC:08x}")
            data = f.read(n)
            if len(data) < n:
                raise ValueError(f"{path}: frame {index} at {pos}: "
                                 f"{len(data)} of its {n} bytes")
            pos += HEADER.size + n
            yield SavedFrame(index, ts, data)


def save(stream: "Stream", path: Path, count: int,
         timeout_ms: int = -1) -> int:
    """Take @count frames from @stream as they come (a frame spanning
    buffers whole, none checked) and write them to a new file at @path.
    Returns the frames written; a Wait's error (e.g. ETIMEDOUT after
    @timeout_ms) is raised with the frames so far in the file."""
    n = 0
    parts: List[bytes] = []
    bufs = stream.frames(None, timeout_ms)
    try:
        with open(path, "wb") as f:
            while n < count:
                buf = next(bufs)
                parts.append(buf.tobytes())
                if buf.eop:
                    write(f, buf.frame, buf.timestamp_ns, b"".join(parts))
                    parts = []
                    n += 1
    finally:
        bufs.close()
    return n
