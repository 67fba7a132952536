# SPDX-License-Identifier: MIT
"""C2H AXI-Stream rings: Stream (HelloFPGA_Stream_*) and its Frames."""
from __future__ import annotations

import ctypes
import os
from ctypes import byref
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterator, Optional, Tuple, Union

from . import _capi, _dlpack
from ._errors import HelloFPGAError, check, fail
from ._gpu import MEMCPY_GPU_TO_HOST, _Exported, cuda_stream_handle

if TYPE_CHECKING:
    from ._card import Card, Pin

FRAME_EOP = 0x1
EBADF, ECHILD, EBUSY, EINVAL, EOPNOTSUPP = 9, 10, 16, 22, 95

_wait_on_gpu = _capi.optional("HelloFPGA_Stream_WaitOnGPU")


@dataclass(frozen=True)
class StreamStats:
    """HELLOFPGA_STREAM_STATS."""
    buffers: int
    frames: int
    bytes: int
    ring_full: int
    source_dropped: int
    source_sent: int
    held: int


class Frame(_Exported):
    """One filled buffer of a stream (HELLOFPGA_FRAME): the caller's until
    :meth:`release` (or the end of a ``with frame:`` block).

    Its bytes are viewed with no copy through DLPack: ``numpy.from_dlpack``
    / :meth:`numpy` (a host ring; a GPU ring on the emulated GPU),
    ``torch.from_dlpack(frame)``, ``cupy.from_dlpack(frame)`` (a GPU ring
    on a CUDA GPU: the tensor's ``data_ptr()`` is :attr:`address`).  A view
    keeps the Frame alive; :meth:`release` while one lives raises EBUSY,
    ``release(deferred=True)`` gives the buffer back when the last view
    goes.
    """

    def __init__(self, stream: "Stream", f: _capi.Frame) -> None:
        super().__init__()
        self.stream = stream
        self.index: int = f.index
        self.flags: int = f.flags
        self.length: int = f.length
        self.sequence: int = f.sequence
        self.frame: int = f.frame
        self.dropped: int = f.dropped
        self.timestamp_ns: int = f.timestamp_ns
        self.host: Optional[int] = f.host
        self.gpu_offset: int = f.gpu_offset
        self.released = False
        self._deferred = False

    @property
    def eop(self) -> bool:
        """This buffer ends a frame (TLAST)."""
        return bool(self.flags & FRAME_EOP)

    @property
    def address(self) -> int:
        """Where its bytes are: host memory, or GPU memory (the pin's
        address + gpu_offset)."""
        if self.host:
            return self.host
        return self.stream.pin.address + self.gpu_offset  # type: ignore

    @property
    def device(self) -> Tuple[int, int]:
        """The DLPack device of its bytes."""
        if self.host:
            return (_dlpack.KDL_CPU, 0)
        return self.stream.pin.device  # type: ignore

    def __dlpack_device__(self) -> Tuple[int, int]:
        return self.device

    def __dlpack__(self, stream: Any = None, max_version: Any = None,
                   dl_device: Any = None, copy: Any = None) -> Any:
        """A 1-D uint8 DLPack tensor of the buffer's bytes, no copy.  The
        card finished writing them before Stream.wait() returned, so no
        CUDA stream needs to wait: @stream is accepted and not used."""
        if self.released:
            raise BufferError("the frame is released: its buffer is the "
                              "card's again")
        if copy:
            raise BufferError("a Frame exports without a copy only")
        return _dlpack.export(self, self.address, self.length, self.device)

    def numpy(self) -> Any:
        """The bytes as a writable NumPy uint8 array, no copy (host-visible
        memory only: a host ring, a GPU ring of the emulated GPU; copy a
        desktop GPU ring's with tobytes()).  It counts as a view."""
        if self.released:
            fail(EINVAL, "the frame is released", "Frame.numpy")
        if self.device[0] == _dlpack.KDL_CUDA:
            fail(EINVAL, "the frame is in GPU device memory: view it with "
                 "torch.from_dlpack / cupy.from_dlpack, or copy it with "
                 "tobytes()", "Frame.numpy")
        return _dlpack.numpy_view(self, self.address, self.length)

    def tobytes(self) -> bytes:
        """A copy of the bytes in host memory (a GPU ring's through
        HelloFPGA_GPU_Memcpy)."""
        if self.released:
            fail(EINVAL, "the frame is released", "Frame.tobytes")
        if self.host:
            return ctypes.string_at(self.host, self.length)
        out = ctypes.create_string_buffer(self.length)
        check(_capi.lib.HelloFPGA_GPU_Memcpy(out, self.address, self.length,
                                             MEMCPY_GPU_TO_HOST),
              "HelloFPGA_GPU_Memcpy")
        return out.raw

    def release(self, deferred: bool = False) -> None:
        """HelloFPGA_Stream_Release(): give the buffer back to the card.
        While a DLPack view of it lives: EBUSY, or with @deferred the
        buffer goes back when the last view is dropped.  Releasing twice is
        a no-op."""
        if self.released or self._deferred:
            return
        if self._exports:
            if deferred:
                self._deferred = True
                if self._exports == 0:     # went meanwhile
                    self._last_export_gone()
                return
            fail(EBUSY, f"buffer {self.index}: {self._exports} view(s) of it "
                 "are alive (arrays, tensors): drop them first, or "
                 "release(deferred=True)", "Frame.release")
        self._do_release()

    def _do_release(self) -> None:
        if self.released:
            return
        self.released = True
        self.stream._release_index(self.index)

    def _last_export_gone(self) -> None:
        if self._deferred and not self.released:
            try:
                self._do_release()
            except HelloFPGAError:
                pass    # the stream closed meanwhile: nothing to give back

    def __enter__(self) -> "Frame":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.release(deferred=True)

    def __repr__(self) -> str:
        return (f"<hellofpga.Frame index={self.index} length={self.length} "
                f"sequence={self.sequence} frame={self.frame}"
                f"{' eop' if self.eop else ''}>")


class Stream:
    """A C2H AXI-Stream ring (HelloFPGA_Stream_Open), from
    :meth:`Card.open_stream`::

        with card.open_stream(buffers=8, buffer_size=1 << 20) as s:
            for f in s.frames(100):       # each released at the next one
                consume(f.numpy())

    :meth:`wait` hands out the next filled buffer as a :class:`Frame`; the
    GIL is released while it waits.
    """

    def __init__(self, card: "Card", channel: int, buffers: int,
                 buffer_size: int, host: Any, pin: Optional["Pin"],
                 gpu_offset: int) -> None:
        cfg = _capi.StreamConfig()
        cfg.channel = channel
        cfg.buffers = buffers
        cfg.buffer_size = buffer_size
        self._host: Optional[_dlpack.HostBuffer] = None
        if host is not None:
            self._host = _dlpack.HostBuffer(host, True, "HelloFPGA_Stream_Open")
            cfg.host = self._host.address
            if self._host.nbytes < buffers * buffer_size:
                self._host.release()
                fail(EINVAL, f"host ring of {self._host.nbytes} bytes: "
                     f"{buffers} x {buffer_size} do not fit",
                     "HelloFPGA_Stream_Open")
        if pin is not None:
            cfg.gpu = pin._live("HelloFPGA_Stream_Open")
            cfg.gpu_offset = gpu_offset
        s = _capi.STREAM()
        try:
            check(_capi.lib.HelloFPGA_Stream_Open(card.handle, byref(cfg),
                                                  byref(s)),
                  "HelloFPGA_Stream_Open", card.handle)
        except BaseException:
            if self._host is not None:
                self._host.release()
            raise
        self.card = card
        self.pin = pin
        self.channel = channel
        self.buffers = buffers
        self.buffer_size = buffer_size
        self._s: Optional[int] = s.value
        self._held: dict[int, Frame] = {}
        self._pid = os.getpid()

    # ---- errors: the stream's own failures have no handle's text ----
    def _check(self, ret: int, fn: str) -> int:
        if ret >= 0:
            return ret
        h = None if (-ret in (EBADF, ECHILD) or self.card.closed) \
            else self.card._h
        return check(ret, fn, h)

    @property
    def handle(self) -> int:
        """The HELLOFPGA_STREAM; EBADF once closed."""
        if self._s is None:
            fail(EBADF, "the stream is closed", "Stream")
        return self._s

    @property
    def closed(self) -> bool:
        return self._s is None

    @property
    def held(self) -> Tuple[Frame, ...]:
        """The frames handed out and not yet released."""
        return tuple(self._held.values())

    def wait(self, timeout_ms: int = -1) -> Frame:
        """HelloFPGA_Stream_Wait(): the next filled buffer; @timeout_ms < 0
        the card's timeout, 0 only looks.  ETIMEDOUT when none came (the
        stream goes on)."""
        f = _capi.Frame()
        self._check(_capi.lib.HelloFPGA_Stream_Wait(self.handle, timeout_ms,
                                                    byref(f)),
                    "HelloFPGA_Stream_Wait")
        fr = Frame(self, f)
        self._held[fr.index] = fr
        return fr

    def poll(self) -> Optional[Frame]:
        """The next filled buffer if there is one now, else None."""
        try:
            return self.wait(0)
        except HelloFPGAError as e:
            if e.name == "ETIMEDOUT":
                return None
            raise

    def wait_on_gpu(self, cuda_stream: Any = None,
                    timeout_ms: int = -1) -> Frame:
        """GPU-side completion (HelloFPGA_Stream_WaitOnGPU): the next buffer,
        with @cuda_stream (a torch.cuda.Stream, a cupy.cuda.Stream, an int
        CUstream, None for the default stream) made to wait on the GPU until
        the card has filled it: work queued on @cuda_stream after this call
        sees the frame's bytes, and the CPU does not wait for them.

        EOPNOTSUPP when the loaded libhellofpga has no such call (it is being
        added to the C library): use :meth:`wait` (the CPU waits, then
        launch the kernels)."""
        if _wait_on_gpu is None:
            fail(EOPNOTSUPP, "this libhellofpga (" + _capi.LIBRARY_PATH +
                 ") has no HelloFPGA_Stream_WaitOnGPU (GPU-side completion):"
                 " use Stream.wait(), which completes on the CPU",
                 "Stream.wait_on_gpu")
        cs = cuda_stream_handle(cuda_stream)
        f = _capi.Frame()
        self._check(_wait_on_gpu(self.handle, cs, timeout_ms, byref(f)),
                    "HelloFPGA_Stream_WaitOnGPU")
        fr = Frame(self, f)
        self._held[fr.index] = fr
        return fr

    def release(self, frame: Union[Frame, int], deferred: bool = False) -> None:
        """Give a frame (or a buffer index) back: Frame.release()."""
        if isinstance(frame, Frame):
            frame.release(deferred)
            return
        fr = self._held.get(int(frame))
        if fr is not None:
            fr.release(deferred)
        else:
            self._release_index(int(frame))

    def _release_index(self, index: int) -> None:
        self._held.pop(index, None)
        self._check(_capi.lib.HelloFPGA_Stream_Release(self.handle, index),
                    "HelloFPGA_Stream_Release")

    def frames(self, count: Optional[int] = None,
               timeout_ms: int = -1) -> Iterator[Frame]:
        """Yield @count buffers (None: until an error), each released when
        the next is asked for (deferred while views of it live)."""
        n = 0
        prev: Optional[Frame] = None
        try:
            while count is None or n < count:
                f = self.wait(timeout_ms)
                if prev is not None:
                    prev.release(deferred=True)
                prev = f
                n += 1
                yield f
        finally:
            if prev is not None and not self.closed:
                prev.release(deferred=True)

    def stats(self) -> StreamStats:
        """HelloFPGA_Stream_GetStats()."""
        st = _capi.StreamStats()
        self._check(_capi.lib.HelloFPGA_Stream_GetStats(self.handle,
                                                        byref(st)),
                    "HelloFPGA_Stream_GetStats")
        return StreamStats(st.buffers, st.frames, st.bytes, st.ring_full,
                           st.source_dropped, st.source_sent, st.held)

    def _views(self) -> int:
        return sum(f._exports for f in self._held.values())

    def _check_no_views(self, fn: str) -> None:
        # a ring the library allocated is freed by the close: no view of it
        # may outlive it (GPU rings and host= rings are the caller's memory)
        if self._s is None or self.pin is not None or self._host is not None:
            return
        n = self._views()
        if n:
            fail(EBUSY, f"{n} view(s) of the stream's ring buffers are alive "
                 "(arrays, tensors): closing would free the memory they "
                 "view; drop them first", fn)

    def close(self) -> None:
        """HelloFPGA_Stream_Close(): stop the ring and free it.  EBUSY while
        a view of a library-allocated host ring lives.  Twice is a no-op."""
        if self._s is None:
            return
        self._check_no_views("Stream.close")
        s, self._s = self._s, None
        for f in list(self._held.values()):
            f.released = True
        self._held.clear()
        try:
            self._check(_capi.lib.HelloFPGA_Stream_Close(s),
                        "HelloFPGA_Stream_Close")
        finally:
            if self._host is not None:
                self._host.release()
                self._host = None

    def __enter__(self) -> "Stream":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        if getattr(self, "_s", None) is not None and self._pid == os.getpid():
            try:
                self.close()
            except Exception:
                pass

    def __repr__(self) -> str:
        where = "gpu" if self.pin is not None else "host"
        return (f"<hellofpga.Stream ch={self.channel} {self.buffers}x"
                f"{self.buffer_size} {where}"
                f"{' closed' if self._s is None else ''}>")
