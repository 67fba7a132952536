# SPDX-License-Identifier: MIT
"""Card: an open card (HelloFPGA_Open), its memory-mapped transfers,
registers, user interrupts, GPU Direct pins and TransferMode."""
from __future__ import annotations

import enum
import errno
import os
import threading
import weakref
from ctypes import byref, c_int, c_size_t, c_uint32, cast, POINTER
from dataclasses import dataclass
from typing import Any, Optional, Tuple, Union

from . import _capi, _dlpack
from ._errors import check, fail
from ._gpu import GPUBuffer, cuda_stream_handle, gpu_status, need
from ._owned import Owned

GPU_ALIGN = 4096


class TransferMode(enum.IntEnum):
    """HELLOFPGA_XFER_MODE_*: where DMA_MM calls inside the registered GPU
    buffer go (Card.set_transfer_mode)."""
    CPU = 0
    GPU_PINNED = 1


class Direction(enum.IntEnum):
    """HELLOFPGA_DIR_*: of a GPU Direct sub-range transfer (Pin.xfer)."""
    H2C = 0     # GPU -> card
    C2H = 1     # card -> GPU


class Backend(enum.IntEnum):
    EMULATED = 1
    KERNEL = 2


class IRQMode(enum.IntEnum):
    POLL = 0
    LEGACY = 1
    MSI = 2
    MSIX = 3


def _s(b: bytes) -> str:
    return b.decode("utf-8", "replace")


@dataclass(frozen=True)
class CardInfo:
    """HELLOFPGA_INFO."""
    name: str
    backend: Backend
    backend_name: str
    num_h2c: int
    num_c2h: int
    ddr_size: int
    ip_version: int
    addr_align: int
    len_granularity: int
    irq_mode: IRQMode
    timeout_ms: int
    lib_version: str
    driver_version: str
    abi_version: int
    features: int


def _fields(st: Any) -> dict:
    out = {}
    for f in st._fields_:
        v = getattr(st, f[0])
        out[f[0]] = _s(v) if isinstance(v, bytes) else v
    out.pop("reserved", None)
    return out


Memory = Union[int, GPUBuffer, Any]


def _gpu_memory(obj: Any, size: Optional[int], fn: str) -> _dlpack.DeviceMemory:
    """Address and size of GPU memory: a GPUBuffer, an object exporting
    __cuda_array_interface__ or __dlpack__, or an int address (@size
    required)."""
    if size is not None:
        size = _capi.integer(size, "size", fn)
    if isinstance(obj, GPUBuffer):
        if obj.freed:
            fail(9, "the GPU buffer is freed", fn)
        mem = _dlpack.DeviceMemory(obj.ptr, obj.size, obj.status.dlpack_device,
                                   "GPUBuffer", obj)
    elif isinstance(obj, int) and not isinstance(obj, bool):
        if size is None:
            fail(22, "a GPU address needs its size", fn)
        mem = _dlpack.DeviceMemory(obj, size, gpu_status().dlpack_device,
                                   "address", None)
    else:
        m = _dlpack.device_memory(obj, fn)
        if m is None:
            raise TypeError(f"{fn}: {type(obj).__name__} is not GPU memory: "
                            "pass a hellofpga.GPUBuffer, an object with "
                            "__cuda_array_interface__ or __dlpack__ (a torch "
                            "CUDA tensor, a CuPy array), or an address and "
                            "a size")
        mem = m
    if size is not None:
        if size < 0 or size > mem.nbytes:
            fail(22, f"size {size}: the memory has {mem.nbytes} bytes", fn)
        mem.nbytes = size
    return mem


def check_gpu_alignment(address: int, size: int, fn: str = "pin") -> None:
    """GPU Direct pins start on a 4096-byte boundary and are a multiple of
    4096 bytes (include/hellofpga.h); EINVAL saying what to do otherwise."""
    if address % GPU_ALIGN:
        skip = GPU_ALIGN - address % GPU_ALIGN
        fail(22, f"GPU memory at {address:#x} is {address % GPU_ALIGN} bytes "
             f"past a {GPU_ALIGN}-byte boundary; GPU Direct pins start on "
             f"one. torch's and CuPy's allocators align blocks to 512 bytes "
             f"only: allocate {GPU_ALIGN} bytes more and pin from byte "
             f"{skip} on (hellofpga.align_offset() computes it; "
             f"t[off:off + n] is a view), or allocate with "
             f"hellofpga.gpu_alloc(), which aligns to the GPU page", fn)
    if size <= 0 or size % GPU_ALIGN:
        fail(22, f"size {size}: GPU Direct pins a multiple of {GPU_ALIGN} "
             f"bytes: round it up to {max(GPU_ALIGN, -(-size // GPU_ALIGN) * GPU_ALIGN)}"
             f" (allocate that much) or pass size= a multiple of {GPU_ALIGN}",
             fn)


def align_offset(obj: Any, alignment: int = GPU_ALIGN) -> int:
    """Bytes from the start of @obj's memory (or of an int address) to the
    next @alignment boundary: pin ``t[off:]`` (as bytes) to pin aligned."""
    if isinstance(obj, int):
        addr = obj
    else:
        addr = _gpu_memory(obj, None, "align_offset").address
    return -addr % alignment


class Card(Owned):
    """An open card: ``with hellofpga.Card("emu:0") as card: ...``.

    @name as HelloFPGA_Open(): ``None`` or ``""`` (``$HELLOFPGA_DEVICE``, or
    the first hardware card), ``"emu"``, ``"emu:N,opt,..."`` (the emulated
    card; ``st`` for AXI-Stream channels), ``"/dev/hellofpgaN"``.

    Every method raises :class:`HelloFPGAError` for a negative errno of the
    library.  A card opened before ``fork()`` fails with ECHILD in the
    child (open it again there).
    """

    def __init__(self, name: Optional[str] = None) -> None:
        h = _capi.HANDLE()
        check(_capi.lib.HelloFPGA_Open(
            name.encode() if name is not None else None, byref(h)),
            "HelloFPGA_Open")
        self._h: Optional[int] = h.value
        self._pid = os.getpid()
        self.name: str = self.info().name
        self._streams: "weakref.WeakSet[Any]" = weakref.WeakSet()
        self._pins: "weakref.WeakSet[Pin]" = weakref.WeakSet()
        self._gpu_buffer: Any = None

    # ---- lifetime ----
    @property
    def handle(self) -> int:
        """The HELLOFPGA_HANDLE, for ctypes code of your own; EBADF once
        closed."""
        if self._h is None:
            fail(9, "the card is closed", "Card")
        return self._h

    @property
    def closed(self) -> bool:
        return self._h is None

    def close(self) -> None:
        """Close the streams opened on this card (EBUSY while a view of a
        library-allocated host ring lives), then HelloFPGA_Close(): the
        card's pins end too.  Closing twice is a no-op."""
        if self._h is None:
            return
        for s in list(self._streams):
            s._check_no_views("Card.close")
        for s in list(self._streams):
            s.close()
        for p in list(self._pins):
            p._handle = 0
        h, self._h = self._h, None
        check(_capi.lib.HelloFPGA_Close(h), "HelloFPGA_Close")

    def _owned(self) -> bool:
        return getattr(self, "_h", None) is not None and \
            self._pid == os.getpid()

    def _end(self) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self._h is None else "open"
        return f"<hellofpga.Card {self.name!r} {state}>"

    def _check(self, ret: int, fn: str) -> int:
        return check(ret, fn, self._h)

    # ---- information ----
    def _get(self, struct: Any, fn: str) -> dict:
        """The fields of a @struct that the library's getter @fn fills."""
        st = struct()
        self._check(getattr(_capi.lib, fn)(self.handle, byref(st)), fn)
        return _fields(st)

    def info(self) -> CardInfo:
        """HelloFPGA_GetInfo()."""
        d = self._get(_capi.Info, "HelloFPGA_GetInfo")
        d["backend"] = Backend(d["backend"])
        d["irq_mode"] = IRQMode(d["irq_mode"])
        return CardInfo(**d)

    def pci_info(self) -> dict:
        """HelloFPGA_GetPCIInfo() as a dict."""
        return self._get(_capi.PCIInfo, "HelloFPGA_GetPCIInfo")

    def counters(self) -> dict:
        """HelloFPGA_GetCounters() as a dict."""
        return self._get(_capi.Counters, "HelloFPGA_GetCounters")

    def dma_faults(self) -> dict:
        """HelloFPGA_GetDMAFaults() as a dict."""
        return self._get(_capi.DMAFaults, "HelloFPGA_GetDMAFaults")

    def link_model(self) -> dict:
        """HelloFPGA_GetLinkModel() as a dict."""
        return self._get(_capi.LinkModel, "HelloFPGA_GetLinkModel")

    def set_timeout(self, timeout_ms: int) -> None:
        """HelloFPGA_SetTimeout(): 1 .. 3600000 ms."""
        self._check(_capi.lib.HelloFPGA_SetTimeout(self.handle, timeout_ms),
                    "HelloFPGA_SetTimeout")

    # ---- memory-mapped transfers ----
    def _xfer(self, c2h: bool, buf: Any, offset: int, ch: int,
              size: Optional[int]) -> int:
        fn = "HelloFPGA_DMA_MM_ReadC2H" if c2h else "HelloFPGA_DMA_MM_WriteH2C"
        f = (_capi.lib.HelloFPGA_DMA_MM_ReadC2H if c2h
             else _capi.lib.HelloFPGA_DMA_MM_WriteH2C)
        actual = c_size_t()
        h = self.handle
        host = None
        try:
            if isinstance(buf, int):
                if size is None:
                    fail(22, "an address needs its size", fn)
                addr, n = buf, size
            elif isinstance(buf, GPUBuffer) or hasattr(
                    buf, "__cuda_array_interface__"):
                m = _gpu_memory(buf, size, fn)
                addr, n = m.address, m.nbytes
            else:
                try:
                    host = _dlpack.HostBuffer(buf, c2h, fn)
                    addr, n = host.address, host.nbytes
                except _dlpack.ObjectBufferError:
                    raise
                except TypeError:
                    m = _dlpack.device_memory(buf, fn)
                    if m is None:
                        raise
                    addr, n = m.address, m.nbytes
                if size is not None:
                    if size < 0 or size > n:
                        fail(22, f"size {size}: the buffer has {n} bytes", fn)
                    n = size
            self._check(f(h, ch, addr, offset, n, byref(actual)), fn)
        finally:
            if host is not None:
                host.release()
        return actual.value

    def read_c2h(self, buf: Memory, offset: int, channel: int = 0,
                 size: Optional[int] = None) -> int:
        """HelloFPGA_DMA_MM_ReadC2H(): card memory at @offset into @buf
        (any writable buffer: bytearray, NumPy array, memoryview; in
        TransferMode GPU_PINNED also GPU memory inside the registered
        buffer; or an int address with @size).  @size: bytes (default all of
        @buf).  Returns the bytes moved."""
        return self._xfer(True, buf, offset, channel, size)

    def write_h2c(self, buf: Memory, offset: int, channel: int = 0,
                  size: Optional[int] = None) -> int:
        """HelloFPGA_DMA_MM_WriteH2C(): @buf (any buffer: bytes too) into
        card memory at @offset.  Returns the bytes moved."""
        return self._xfer(False, buf, offset, channel, size)

    def read(self, offset: int, size: int, channel: int = 0) -> bytearray:
        """@size bytes of card memory at @offset, as a new bytearray."""
        out = bytearray(_capi.in_range(size, c_size_t, "size", "Card.read"))
        self.read_c2h(out, offset, channel)
        return out

    def read_array(self, offset: int, shape: Union[int, Tuple[int, ...]],
                   dtype: Any = "uint8", channel: int = 0) -> Any:
        """Card memory at @offset as a new NumPy array of @shape, @dtype
        (the card writes into the array: no copy after the DMA).  @dtype: a
        plain numeric one (integers, floats, complex); any other (object,
        structured, bool, strings, datetimes) is TypeError, for card bytes
        are no valid value of it (object: pointers, a crash)."""
        import numpy as np
        dt = np.dtype(dtype)
        if dt.kind not in "iufc":
            raise TypeError(f"Card.read_array: dtype {dt} is not a plain "
                            "numeric dtype (integers, floats, complex): read "
                            "uint8 and convert, or view the bytes yourself")
        a = np.empty(shape, dtype=dt)
        self.read_c2h(a, offset, channel)
        return a

    write = write_h2c

    # ---- registers, user interrupts ----
    def user_read32(self, offset: int) -> int:
        """HelloFPGA_UserRead32(): a register of the user BAR."""
        v = c_uint32()
        self._check(_capi.lib.HelloFPGA_UserRead32(self.handle, offset,
                                                   byref(v)),
                    "HelloFPGA_UserRead32")
        return v.value

    def user_write32(self, offset: int, value: int) -> None:
        """HelloFPGA_UserWrite32(): @value 0 .. 0xffffffff (a negative one
        or a wider one is OverflowError, not truncated)."""
        self._check(_capi.lib.HelloFPGA_UserWrite32(self.handle, offset,
                                                    value),
                    "HelloFPGA_UserWrite32")

    def irq_wait(self, irq: int, timeout_ms: int = -1) -> int:
        """HelloFPGA_UserIRQ_Wait(): wait for user interrupt @irq (0..15);
        @timeout_ms < 0 without end, 0 only takes a pending one.  Returns
        the count (>= 1); ETIMEDOUT when none came.  The GIL is released
        while it waits."""
        n = c_uint32()
        self._check(_capi.lib.HelloFPGA_UserIRQ_Wait(self.handle, irq,
                                                     timeout_ms, byref(n)),
                    "HelloFPGA_UserIRQ_Wait")
        return n.value

    def irq_fd(self, irq: int) -> int:
        """HelloFPGA_UserIRQ_GetFd(): a descriptor readable while a delivery
        of @irq waits (for select, selectors, asyncio's add_reader); take it
        with irq_wait(irq, 0).  It is the card's: do not close or read it."""
        fd = c_int()
        self._check(_capi.lib.HelloFPGA_UserIRQ_GetFd(self.handle, irq,
                                                      byref(fd)),
                    "HelloFPGA_UserIRQ_GetFd")
        return fd.value

    # ---- GPU Direct ----
    def pin(self, memory: Memory, size: Optional[int] = None) -> "Pin":
        """HelloFPGA_GPUDirect_Pin() of GPU memory: a :class:`GPUBuffer`,
        anything exporting ``__cuda_array_interface__`` or ``__dlpack__``
        (a torch CUDA tensor, a CuPy array), or an int address with @size.
        Start and size must be 4096-byte aligned: EINVAL explains."""
        return Pin(self, memory, size)

    def set_gpu_buffer(self, memory: Optional[Memory],
                       size: Optional[int] = None) -> None:
        """HelloFPGA_SetGPUBuffer(): register the GPU buffer TransferMode
        uses (None unregisters it and returns to CPU mode)."""
        if memory is None:
            self._check(_capi.lib.HelloFPGA_SetGPUBuffer(self.handle, None, 0),
                        "HelloFPGA_SetGPUBuffer")
            self._gpu_buffer = None
            return
        m = _gpu_memory(memory, size, "HelloFPGA_SetGPUBuffer")
        check_gpu_alignment(m.address, m.nbytes, "HelloFPGA_SetGPUBuffer")
        self._check(_capi.lib.HelloFPGA_SetGPUBuffer(self.handle, m.address,
                                                     m.nbytes),
                    "HelloFPGA_SetGPUBuffer")
        self._gpu_buffer = m       # keeps the memory alive

    def set_transfer_mode(self, mode: Union[TransferMode, int]) -> None:
        """HelloFPGA_SetTransferMode(): TransferMode.CPU or GPU_PINNED."""
        self._check(_capi.lib.HelloFPGA_SetTransferMode(self.handle, mode),
                    "HelloFPGA_SetTransferMode")

    # ---- streams ----
    def open_stream(self, channel: int = 0, buffers: int = 8,
                    buffer_size: int = 1 << 20, host: Any = None,
                    pin: Optional["Pin"] = None, gpu_offset: int = 0) -> Any:
        """HelloFPGA_Stream_Open(): a C2H AXI-Stream ring (a card opened with
        ``st``): in host memory the library allocates (default), in @host
        (a writable buffer, 4 KiB aligned, @buffers * @buffer_size bytes,
        held until the stream closes), or in GPU memory: the GPU Direct
        @pin at @gpu_offset.  See :class:`hellofpga.Stream`."""
        from ._stream import Stream
        s = Stream(self, channel, buffers, buffer_size, host, pin, gpu_offset)
        self._streams.add(s)
        return s


class Pin(Owned):
    """A GPU Direct pin (HelloFPGA_GPUDirect_Pin): pin once, reuse it for
    many transfers, unpin at the end (or leave the ``with`` block).  Holds
    the pinned object, so its memory stays while pinned."""

    def __init__(self, card: Card, memory: Memory, size: Optional[int]) -> None:
        m = _gpu_memory(memory, size, "HelloFPGA_GPUDirect_Pin")
        check_gpu_alignment(m.address, m.nbytes, "HelloFPGA_GPUDirect_Pin")
        gh = _capi.GPU_HANDLE()
        card._check(_capi.lib.HelloFPGA_GPUDirect_Pin(card.handle, m.address,
                                                      m.nbytes, byref(gh)),
                    "HelloFPGA_GPUDirect_Pin")
        self.card = card
        self.memory = memory
        self.address: int = m.address
        self.size: int = m.nbytes
        self.device: Tuple[int, int] = m.device
        self._handle: int = gh.value
        self._lock = threading.Lock()
        card._pins.add(self)

    @property
    def handle(self) -> int:
        """The HELLOFPGA_GPU_HANDLE (0 once unpinned)."""
        return self._handle

    def _live(self, fn: str) -> int:
        if not self._handle:
            fail(2, "the pin is unpinned (or its card closed)", fn)
        return self._handle

    def read_c2h(self, fpga_addr: int, size: Optional[int] = None,
                 channel: int = 0, timeout_ms: int = 0) -> None:
        """HelloFPGA_GPUDirect_ReadC2H(): card memory at @fpga_addr -> the
        start of the pinned memory (@size bytes, default all of it);
        @timeout_ms <= 0: the card's timeout."""
        h = self._live("HelloFPGA_GPUDirect_ReadC2H")
        self.card._check(_capi.lib.HelloFPGA_GPUDirect_ReadC2H(
            self.card.handle, channel, h, fpga_addr,
            self.size if size is None else size, timeout_ms),
            "HelloFPGA_GPUDirect_ReadC2H")

    def write_h2c(self, fpga_addr: int, size: Optional[int] = None,
                  channel: int = 0, timeout_ms: int = 0) -> None:
        """HelloFPGA_GPUDirect_WriteH2C(): pinned memory -> card memory."""
        h = self._live("HelloFPGA_GPUDirect_WriteH2C")
        self.card._check(_capi.lib.HelloFPGA_GPUDirect_WriteH2C(
            self.card.handle, channel, h, fpga_addr,
            self.size if size is None else size, timeout_ms),
            "HelloFPGA_GPUDirect_WriteH2C")

    def xfer(self, buf_offset: int, fpga_addr: int, size: int,
             direction: Union[Direction, int], channel: int = 0,
             timeout_ms: int = 0) -> int:
        """HelloFPGA_GPUDirect_Xfer(): a sub-range (rings of buffers, frames
        in one large buffer).  Returns the bytes moved."""
        h = self._live("HelloFPGA_GPUDirect_Xfer")
        actual = c_size_t()
        self.card._check(_capi.lib.HelloFPGA_GPUDirect_Xfer(
            self.card.handle, channel, h, buf_offset, fpga_addr, size,
            direction, timeout_ms, byref(actual)),
            "HelloFPGA_GPUDirect_Xfer")
        return actual.value

    def submit(self, buf_offset: int, fpga_addr: int, size: int,
               direction: Union[Direction, int], channel: int = 0,
               cuda_stream: Any = None, start_on_gpu: bool = False,
               wait_on_gpu: bool = False,
               timeout_ms: int = 0) -> "Submission":
        """HelloFPGA_GPUDirect_Submit(): queue the transfer on the
        channel and return at once.  @wait_on_gpu: @cuda_stream (as for
        Stream.wait_on_gpu) waits for the card's completion of it, so work
        queued on it afterwards runs once the card is done;
        @start_on_gpu: the transfer starts only when @cuda_stream gets
        here.  Without either, @cuda_stream is ignored.  The result:
        :meth:`Submission.complete`; a kernel checks the word at
        :attr:`Submission.status_dev` for :data:`XFER_WB_ERROR`."""
        fn = need("HelloFPGA_GPUDirect_Submit", "Pin.submit")
        h = self._live("HelloFPGA_GPUDirect_Submit")
        flags = ((SUBMIT_WAIT_ON_GPU if wait_on_gpu else 0) |
                 (SUBMIT_START_ON_GPU if start_on_gpu else 0))
        cs = cuda_stream_handle(cuda_stream) if flags else None
        sub = _capi.Submission()
        self.card._check(fn(self.card.handle, channel, h, buf_offset,
                            fpga_addr, size, direction, cs, flags,
                            timeout_ms, byref(sub)),
                         "HelloFPGA_GPUDirect_Submit")
        return Submission(self.card, sub)

    def unpin(self) -> None:
        """HelloFPGA_GPUDirect_Unpin(); waits for transfers in flight.
        Unpinning twice is a no-op.  While a stream's GPU ring lies in the
        pin it is refused (HelloFPGAError EBUSY) and the pin stays: close
        the stream, then unpin again."""
        with self._lock:
            if not self._handle:
                return
            if self.card.closed:
                self._handle = 0
                return
            ret = _capi.lib.HelloFPGA_GPUDirect_Unpin(self.card.handle,
                                                      self._handle)
            if ret != -errno.EBUSY:
                self._handle = 0
            self.card._check(ret, "HelloFPGA_GPUDirect_Unpin")

    def _owned(self) -> bool:
        return bool(getattr(self, "_handle", 0)) and \
            self.card._pid == os.getpid()

    def _end(self) -> None:
        self.unpin()

    def __repr__(self) -> str:
        return (f"<hellofpga.Pin {self.address:#x}+{self.size} "
                f"handle={self._handle}>")


SUBMIT_WAIT_ON_GPU = _capi.SUBMIT_WAIT_ON_GPU
SUBMIT_START_ON_GPU = _capi.SUBMIT_START_ON_GPU
XFER_WB_ERROR = _capi.XFER_WB_ERROR
XFER_WB_MASK = _capi.XFER_WB_MASK


class Submission:
    """A transfer :meth:`Pin.submit` queued (HELLOFPGA_SUBMISSION).

    * :attr:`ticket`: names it for :meth:`complete`;
    * :attr:`status_dev`: the GPU address (a CUdeviceptr) of its writeback
      word, 0 without a GPU flag; :attr:`status`: the word's value now
      (0 while queued or running, then the descriptors the card
      completed, :data:`XFER_WB_ERROR` set if it failed).
    """

    def __init__(self, card: "Card", sub: _capi.Submission) -> None:
        self.card = card
        self.ticket: int = sub.ticket
        self.status_dev: int = sub.status_dev
        self._word = cast(sub.status, POINTER(c_uint32))

    @property
    def status(self) -> int:
        """The writeback word (one load; it stays readable for the life of
        the process once a GPU mapped it, and while the card is open)."""
        if self.card.closed and not self.status_dev:
            # freed with the card's queues: only GPU-mapped words stay
            fail(9, "the card is closed: the word is gone",
                 "Submission.status")
        return int(self._word[0])

    def complete(self, timeout_ms: int = -1) -> int:
        """HelloFPGA_GPUDirect_Complete(): wait for the transfer on the
        CPU (< 0 without end, 0 only looks) and return the bytes moved;
        its failure raises HelloFPGAError (EAGAIN: not done yet)."""
        fn = need("HelloFPGA_GPUDirect_Complete", "Submission.complete")
        actual = c_size_t()
        self.card._check(fn(self.card.handle, self.ticket, timeout_ms,
                            byref(actual)), "HelloFPGA_GPUDirect_Complete")
        return actual.value

    def __repr__(self) -> str:
        return f"<hellofpga.Submission ticket={self.ticket:#x}>"
