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
from ._gpu import (MEMCPY_GPU_TO_HOST, GPUBuffer, _Exported,
                   cuda_stream_handle, need)
from ._owned import Owned

if TYPE_CHECKING:
    from ._card import Card, Pin

FRAME_EOP = 0x1
EBADF, ECHILD, EAGAIN, EBUSY, EINVAL, ERANGE, ENODATA, EOPNOTSUPP = \
    9, 10, 11, 16, 22, 34, 61, 95

# HELLOFPGA_STREAM_WB_* (the status word of a buffer's writeback slot) and
# HelloFPGA_Stream_WaitOnGPU()'s flag
STREAM_WB_MAGIC = _capi.STREAM_WB_MAGIC
STREAM_WB_MAGIC_MASK = _capi.STREAM_WB_MAGIC_MASK
STREAM_WB_EOP = _capi.STREAM_WB_EOP
STREAM_WB_ERROR = _capi.STREAM_WB_ERROR
GPU_WAIT_FLUSH = _capi.GPU_WAIT_FLUSH


class _HostRing(_Exported):
    """The caller's host= buffer of a stream, held through the buffer
    protocol (so an mmap cannot close, a bytearray cannot resize under the
    card) until the stream closed AND the last view of a frame in it went:
    each frame view counts here (a backer of the Frame)."""

    def __init__(self, host: _dlpack.HostBuffer) -> None:
        super().__init__()
        self.host: Optional[_dlpack.HostBuffer] = host
        self._closed = False

    def _export_taken(self) -> None:
        with self._exports_lock:
            if self.host is None:
                raise BufferError("the stream is closed: its host= buffer "
                                  "is the caller's again")
            self._exports += 1

    def close(self) -> None:
        """The stream is done with it: let go now, or at the last view."""
        with self._exports_lock:
            self._closed = True
        self._let_go()

    def _last_export_gone(self) -> None:
        self._let_go()

    def _let_go(self) -> None:
        with self._exports_lock:
            if not self._closed or self._exports or self.host is None:
                return
            host, self.host = self.host, None
        host.release()


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
    goes.  A view also keeps the ring's memory: a ``host=`` buffer stays
    held (an mmap cannot close) after the stream closed until the last view
    goes, and ``GPUBuffer.free()`` of a GPU ring's buffer is EBUSY while
    one lives.
    """

    def __init__(self, stream: "Stream", f: _capi.Frame) -> None:
        super().__init__(stream._view_backers)
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
        mem = getattr(self.stream.pin, "memory", None)
        if isinstance(mem, GPUBuffer) and mem.freed:
            fail(EBADF, "the ring's GPU buffer is freed", "Frame.tobytes")
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


@dataclass(frozen=True)
class GPUWaitResult:
    """What a :class:`GPUWait`'s writeback slot shows (GPUWait.read())."""
    status: int         # the status word
    length: int         # the word after it: bytes in the buffer
    completed: bool     # the magic is there: the GPU wait is satisfied
    eop: bool           # HELLOFPGA_STREAM_WB_EOP: the buffer ends a frame
    error: bool         # HELLOFPGA_STREAM_WB_ERROR: the stream stopped first,
    #                     the buffer has no data (length 0)


class GPUWait:
    """Where a :meth:`Stream.wait_on_gpu` waits (HELLOFPGA_GPU_WAIT): buffer
    :attr:`index` of the ring, which sequence :attr:`sequence` lands in.

    * :attr:`status`: the host address of the status word of the buffer's
      writeback slot (the length is the 32-bit word after it);
      :attr:`status_view`: the two words as a ctypes ``c_uint32 * 2``
      array over it (each read is a load from the slot);
    * :attr:`status_dev`: the status word's GPU address (a CUdeviceptr) for
      a kernel to check :data:`STREAM_WB_ERROR` and read the length;
    * :attr:`host` (a host ring; None for a GPU ring), :attr:`gpu_offset`
      (a GPU ring: the buffer's offset in the pin), :attr:`address`.

    :meth:`read` (or :meth:`check`) tells the length, EOP and error once
    the GPU stream has passed the wait (after a later host function ran, or
    a synchronize): the slot holds them until the buffer goes back to the
    card (its release clears it; then it shows the buffer's next round).
    The slots of a stream waited on are never freed (also after the stream
    closed, which marks them), so reading one is always safe.
    """

    def __init__(self, stream: "Stream", w: _capi.GPUWait,
                 flags: int) -> None:
        self.stream = stream
        self.index: int = w.index
        self.sequence: int = w.sequence
        self.status: int = w.status or 0
        self.status_dev: int = w.status_dev
        self.host: Optional[int] = w.host
        self.gpu_offset: int = w.gpu_offset
        self.flags: int = flags
        self._pin = stream.pin

    @property
    def status_view(self) -> Any:
        """The status and length words of the slot (``c_uint32 * 2`` over
        host memory of the library's; read-only by contract)."""
        return (ctypes.c_uint32 * 2).from_address(self.status)

    @property
    def address(self) -> int:
        """Where the buffer's bytes are: host memory, or GPU memory (the
        pin's address + gpu_offset)."""
        if self.host:
            return self.host
        return self._pin.address + self.gpu_offset  # type: ignore

    def read(self) -> GPUWaitResult:
        """The slot now (not waiting): completed False while the card has
        not completed the buffer (nor the stream stopped)."""
        v = self.status_view
        st = int(v[0])
        length = int(v[1])
        done = (st & STREAM_WB_MAGIC_MASK) == STREAM_WB_MAGIC
        return GPUWaitResult(st, length if done else 0, done,
                             done and bool(st & STREAM_WB_EOP),
                             done and bool(st & STREAM_WB_ERROR))

    def check(self) -> int:
        """The buffer's length, once completed; HelloFPGAError ENODATA when
        the stream stopped before the card filled it (the GPU went on:
        what the consumer did with the buffer is garbage), EAGAIN when
        nothing is there yet (the GPU stream has not passed the wait)."""
        r = self.read()
        if not r.completed:
            fail(EAGAIN, f"sequence {self.sequence} (buffer {self.index}): "
                 "not completed yet: the GPU stream has not passed its wait",
                 "GPUWait.check")
        if r.error:
            fail(ENODATA, f"sequence {self.sequence} (buffer {self.index}): "
                 "the stream stopped (closed, its card closed, or an engine "
                 "error) before the card filled it: the GPU went on, the "
                 "buffer has no data", "GPUWait.check")
        return r.length

    def __repr__(self) -> str:
        return (f"<hellofpga.GPUWait index={self.index} "
                f"sequence={self.sequence} status={self.read().status:#x}>")


class Stream(Owned):
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
        self._host: Optional[_HostRing] = None
        hb: Optional[_dlpack.HostBuffer] = None
        try:
            if host is not None:
                hb = _dlpack.HostBuffer(host, True, "HelloFPGA_Stream_Open")
                if hb.nbytes < buffers * buffer_size:
                    fail(EINVAL, f"host ring of {hb.nbytes} bytes: "
                         f"{buffers} x {buffer_size} do not fit",
                         "HelloFPGA_Stream_Open")
                cfg.host = hb.address
            if pin is not None:
                cfg.gpu = pin._live("HelloFPGA_Stream_Open")
                cfg.gpu_offset = gpu_offset
            s = _capi.STREAM()
            check(_capi.lib.HelloFPGA_Stream_Open(card.handle, byref(cfg),
                                                  byref(s)),
                  "HelloFPGA_Stream_Open", card.handle)
        except BaseException:
            if hb is not None:
                hb.release()
            raise
        # what a frame view keeps: the caller's host= buffer (held until
        # the stream closed and the last view went), or the GPUBuffer of a
        # GPU ring (its free() refuses while a view lives); a ring the
        # library allocated is refused a close while viewed instead
        self._view_backers: Tuple[_Exported, ...] = ()
        if hb is not None:
            self._host = _HostRing(hb)
            self._view_backers = (self._host,)
        elif pin is not None and isinstance(pin.memory, GPUBuffer):
            self._view_backers = (pin.memory,)
        self.card = card
        self.pin = pin
        self.channel = channel
        self.buffers = buffers
        self.buffer_size = buffer_size
        self._s: Optional[int] = s.value
        self._held: dict[int, Frame] = {}
        self._pid = os.getpid()
        # the sequence after the last one Stream.wait() returned, and after
        # the last one wait_on_gpu() waited for (wait_on_gpu(None))
        self._next_cpu = 0
        self._next_gpu = 0

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
        self._next_cpu = max(self._next_cpu, fr.sequence + 1)
        return fr

    def poll(self) -> Optional[Frame]:
        """The next filled buffer if there is one now, else None."""
        try:
            return self.wait(0)
        except HelloFPGAError as e:
            if e.name == "ETIMEDOUT":
                return None
            raise

    @property
    def next_sequence(self) -> int:
        """The sequence ``wait_on_gpu(sequence=None)`` waits for: the first
        buffer of the stream that neither :meth:`wait` has returned nor
        :meth:`wait_on_gpu` waited for, on this Stream object (0 after the
        open); max(last sequence wait() returned, last one wait_on_gpu()
        waited for) + 1."""
        return max(self._next_cpu, self._next_gpu)

    def wait_on_gpu(self, cuda_stream: Any, sequence: Optional[int] = None,
                    flush: bool = False) -> GPUWait:
        """GPU-side completion (HelloFPGA_Stream_WaitOnGPU): enqueue on
        @cuda_stream a wait until the card has completed buffer @sequence
        (HELLOFPGA_FRAME.sequence: buffers the stream completed before it;
        None: :attr:`next_sequence`), so work queued on @cuda_stream after
        this call starts when the buffer landed, with no CPU thread woken.
        It returns at once, never waiting for the card.

        @cuda_stream: a torch.cuda.Stream, a cupy.cuda.Stream, a
        :class:`GPUStream`, an int CUstream, or None (the legacy default
        stream: a real GPU only; the emulated GPU takes only its own
        streams, GPUStream, else EINVAL).  @flush: HELLOFPGA_GPU_WAIT_FLUSH,
        flush the card's writes also for a host ring (a GPU ring's wait
        flushes anyway where the device can).

        The window: with r buffers released so far, a sequence of r ..
        r + buffers - 1 (ERANGE otherwise; the text gives the window).  Do
        not release the buffer before the GPU passed the wait: use
        :meth:`release_on_gpu`.  When the stream stops (close, the card's
        close, an engine error) the wait goes on with the slot marked:
        check :meth:`GPUWait.read` / :meth:`GPUWait.check` (or, in a
        kernel, the status word for STREAM_WB_ERROR) before trusting the
        bytes.  The CPU still takes the buffer with :meth:`wait` (before or
        after the GPU saw it) to release it.

        EOPNOTSUPP when the loaded libhellofpga is older than GPU-side
        completion (ABI 1.3), or the GPU has no stream memory operations:
        use :meth:`wait` (the CPU waits, then launch the kernels)."""
        fn = need("HelloFPGA_Stream_WaitOnGPU", "Stream.wait_on_gpu")
        cs = cuda_stream_handle(cuda_stream)
        seq = (self.next_sequence if sequence is None else
               _capi.integer(sequence, "sequence", "Stream.wait_on_gpu"))
        if seq < 0 or seq >= 1 << 64:
            fail(ERANGE, f"sequence {seq}: not a buffer sequence (>= 0)",
                 "Stream.wait_on_gpu")
        flags = GPU_WAIT_FLUSH if flush else 0
        w = _capi.GPUWait()
        self._check(fn(self.handle, cs, seq, flags, byref(w)),
                    "HelloFPGA_Stream_WaitOnGPU")
        self._next_gpu = max(self._next_gpu, seq + 1)
        return GPUWait(self, w, flags)

    def release_on_gpu(self, cuda_stream: Any,
                       frame: Union[Frame, int]) -> None:
        """HelloFPGA_Stream_ReleaseOnGPU(): give a buffer (a Frame
        :meth:`wait` returned, or its index) back to the card when
        @cuda_stream gets there (after the consumer kernel queued before
        this call), instead of :meth:`release` after the CPU waited for the
        kernel.  The library hands it to the card at its next look (any
        call on the stream; a blocked wait() looks every 100 us); until
        then it stays held.  The Frame counts as released at once (its
        release() is a no-op, it exports no more views); EBUSY while a
        DLPack view of it lives (drop the tensor first: the GPU work queued
        already keeps the buffer until it ran).  @cuda_stream as for
        :meth:`wait_on_gpu`.  EINVAL when not held, or queued already."""
        fn = need("HelloFPGA_Stream_ReleaseOnGPU", "Stream.release_on_gpu")
        cs = cuda_stream_handle(cuda_stream)
        if not isinstance(frame, Frame):
            frame = _capi.integer(frame, "frame", "Stream.release_on_gpu")
        fr = frame if isinstance(frame, Frame) else self._held.get(frame)
        index = fr.index if fr is not None else frame
        if fr is not None:
            if fr.stream is not self:
                fail(EINVAL, "the frame is another stream's",
                     "Stream.release_on_gpu")
            if fr.released or fr._deferred:
                fail(EINVAL, f"buffer {index} is released already",
                     "Stream.release_on_gpu")
            if fr._exports:
                fail(EBUSY, f"buffer {index}: {fr._exports} view(s) of it "
                     "are alive (arrays, tensors): drop them before the "
                     "release (the GPU work queued keeps the buffer until "
                     "it ran)", "Stream.release_on_gpu")
        if not 0 <= index < 1 << 32:
            fail(EINVAL, f"buffer index {index}: out of range",
                 "Stream.release_on_gpu")
        self._check(fn(self.handle, cs, index, 0),
                    "HelloFPGA_Stream_ReleaseOnGPU")
        if fr is not None:
            fr.released = True
            if self._held.get(index) is fr:
                del self._held[index]

    def release(self, frame: Union[Frame, int], deferred: bool = False) -> None:
        """Give a frame (or a buffer index) back: Frame.release()."""
        if isinstance(frame, Frame):
            frame.release(deferred)
            return
        index = _capi.integer(frame, "frame", "Stream.release")
        fr = self._held.get(index)
        if fr is not None:
            fr.release(deferred)
        else:
            self._release_index(index)

    def _release_index(self, index: int) -> None:
        self._held.pop(index, None)
        self._check(_capi.lib.HelloFPGA_Stream_Release(self.handle, index),
                    "HelloFPGA_Stream_Release")

    def frames(self, count: Optional[int] = None,
               timeout_ms: int = -1) -> Iterator[Frame]:
        """Yield @count buffers (None: until an error), each released when
        the next is asked for (deferred while views of it live)."""
        if count is not None:
            count = _capi.integer(count, "count", "Stream.frames")
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
        a view of a library-allocated host ring lives.  A ``host=`` buffer
        is let go (for the caller to close, resize) when the last view of a
        frame in it goes, at once when there is none.  Twice is a no-op."""
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
                self._host.close()      # now, or at the last view

    def _owned(self) -> bool:
        return getattr(self, "_s", None) is not None and \
            self._pid == os.getpid()

    def _end(self) -> None:
        self.close()

    def __repr__(self) -> str:
        where = "gpu" if self.pin is not None else "host"
        return (f"<hellofpga.Stream ch={self.channel} {self.buffers}x"
                f"{self.buffer_size} {where}"
                f"{' closed' if self._s is None else ''}>")
