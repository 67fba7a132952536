# SPDX-License-Identifier: MIT
"""The GPU side: GetGPUStatus, GPU memory the library allocates
(GPUBuffer, exported through DLPack), CUDA stream handles, the library's
GPU streams (GPUStream)."""
from __future__ import annotations

import enum
import itertools
import os
import sys
import threading
import traceback
from ctypes import byref, c_size_t, c_void_p
from dataclasses import dataclass
from typing import Any, Callable, List, Optional, Tuple

from . import _capi, _dlpack
from ._errors import HelloFPGAError, check, fail
from ._owned import Owned

MEMCPY_HOST_TO_GPU = 1
MEMCPY_GPU_TO_HOST = 2
EOPNOTSUPP = 95


def need(name: str, where: str) -> Any:
    """The optional C function @name (_capi.OPTIONAL), or EOPNOTSUPP for
    @where when the loaded library is older than it."""
    f = _capi.OPTIONAL.get(name)
    if f is None:
        fail(EOPNOTSUPP, f"this libhellofpga ({_capi.LIBRARY_PATH}, "
             f"{_capi.lib.HelloFPGA_Version().decode()}) has no {name}: "
             "GPU-side completion needs libhellofpga1 with symbol version "
             f"{_capi.OPTIONAL_SINCE[name]} (ABI "
             f"{_capi.OPTIONAL_SINCE[name].split('_')[1]}); without it use "
             "Stream.wait() or Pin.xfer(), which complete on the CPU", where)
    return f


class Platform(enum.IntEnum):
    """HELLOFPGA_PLATFORM_*: where GPU memory comes from."""
    NONE = 0
    TEGRA = 1       # integrated GPU: cudaHostAlloc memory
    DESKTOP = 2     # discrete GPU: cudaMalloc memory


@dataclass(frozen=True)
class GPUStatus:
    """What HelloFPGA_GetGPUStatus() reports (HELLOFPGA_GPU_STATUS)."""
    platform: Platform
    supported: bool
    emulated: bool
    device: int
    name: str
    pci_bus_id: str
    reason: str
    cuda_driver_version: int
    rdma_supported: int
    dmabuf_supported: int
    page_size: int

    @property
    def dlpack_device(self) -> Tuple[int, int]:
        """The DLPack device of memory from :func:`gpu_alloc`:
        ``(kDLCUDA, device)`` on a desktop GPU, ``(kDLCUDAHost, 0)`` on Tegra
        (pinned host memory), and ``(kDLCPU, 0)`` on the emulated GPU, whose
        memory is host memory of this process: NumPy and torch see it as CPU
        memory there, as they would a CUDA tensor where CUDA is."""
        if self.emulated or self.platform == Platform.NONE:
            return (_dlpack.KDL_CPU, 0)
        if self.platform == Platform.TEGRA:
            return (_dlpack.KDL_CUDA_HOST, 0)
        return (_dlpack.KDL_CUDA, self.device)


def gpu_status() -> GPUStatus:
    """HelloFPGA_GetGPUStatus(): the GPU platform and whether GPU Direct is
    usable (also without a GPU: ``platform`` NONE, ``reason`` says why).
    The library picks its GPU once, at its first GPU call: set
    ``HELLOFPGA_GPU`` (``emu``, ``emu-tegra``, ``cuda``, ``none``) before."""
    st = _capi.GPUStatus()
    check(_capi.lib.HelloFPGA_GetGPUStatus(byref(st)), "HelloFPGA_GetGPUStatus")
    s = lambda b: b.decode("utf-8", "replace")  # noqa: E731
    return GPUStatus(Platform(st.platform), bool(st.supported),
                     bool(st.emulated), st.device, s(st.name),
                     s(st.pci_bus_id), s(st.reason), st.cuda_driver_version,
                     st.rdma_supported, st.dmabuf_supported, st.page_size)


class _Exported:
    """Counts the DLPack views of an object's memory (see _dlpack).

    @backers: the objects whose memory this one's lies in (a Frame's: its
    ring's GPUBuffer, or the caller's host= buffer): each view counts in
    their exports too, so none of them frees the memory under a view."""

    def __init__(self, backers: Tuple["_Exported", ...] = ()) -> None:
        self._exports = 0
        self._exports_lock = threading.Lock()
        self._backers = backers

    @property
    def exports(self) -> int:
        """Views (DLPack consumers: NumPy arrays, tensors) alive now."""
        return self._exports

    def _export_taken(self) -> None:
        taken: List[_Exported] = []
        try:
            for b in self._backers:     # each may refuse: memory gone
                b._export_taken()
                taken.append(b)
        except BaseException:
            for b in taken:
                b._export_released()
            raise
        with self._exports_lock:
            self._exports += 1

    def _export_released(self) -> None:
        with self._exports_lock:
            self._exports -= 1
            last = self._exports == 0
        try:
            if last:
                self._last_export_gone()
        finally:
            for b in self._backers:
                b._export_released()

    def _last_export_gone(self) -> None:
        pass


class GPUBuffer(_Exported, Owned):
    """GPU memory from HelloFPGA_GPU_Alloc(): device memory on a desktop GPU,
    pinned host memory on Tegra, the emulated GPU's memory without CUDA;
    aligned to the GPU page, so it pins as it is.

    It exports itself with no copy: ``torch.from_dlpack(buf)``,
    ``cupy.from_dlpack(buf)``, ``numpy.from_dlpack(buf)`` (the emulated
    GPU: host memory), and ``__cuda_array_interface__`` where CUDA is.
    A view keeps the buffer alive; :meth:`free` while one lives is EBUSY,
    and so is it while a view of a :class:`Frame` of a stream ring in it
    lives (``numpy.from_dlpack(frame)``, ``frame.numpy()``, a tensor).
    """

    def __init__(self, size: int, dtype: str = "uint8") -> None:
        super().__init__()
        size = _capi.in_range(size, c_size_t, "size", "gpu_alloc")
        if size <= 0:
            fail(22, f"GPU buffer size {size}: must be > 0", "gpu_alloc")
        p = c_void_p()
        check(_capi.lib.HelloFPGA_GPU_Alloc(byref(p), size),
              "HelloFPGA_GPU_Alloc")
        self.ptr: int = p.value or 0
        self.size: int = size
        self.dtype: str = dtype
        self.status: GPUStatus = gpu_status()
        self._pid = os.getpid()

    @property
    def address(self) -> int:
        return self.ptr

    @property
    def freed(self) -> bool:
        return self.ptr == 0

    def free(self) -> None:
        """HelloFPGA_GPU_Free(); pins of it are revoked first.  EBUSY while
        a DLPack view of it, or of a stream frame in it, lives (drop the
        tensor first)."""
        with self._exports_lock:        # no view is taken meanwhile
            if not self.ptr:
                return
            if self._exports:
                fail(16, f"GPU buffer {self.ptr:#x}: {self._exports} DLPack "
                     "view(s) of it or of stream frames in it are alive "
                     "(tensors, arrays): drop them before freeing it",
                     "GPUBuffer.free")
            ptr, self.ptr = self.ptr, 0
        check(_capi.lib.HelloFPGA_GPU_Free(ptr), "HelloFPGA_GPU_Free")

    def _owned(self) -> bool:
        return bool(getattr(self, "ptr", 0)) and self._pid == os.getpid()

    def _end(self) -> None:
        self.free()

    def _live(self, fn: str) -> None:
        if not self.ptr:
            fail(9, "the GPU buffer is freed", fn)

    def _export_taken(self) -> None:
        with self._exports_lock:        # a view of freed memory: never
            self._live("GPUBuffer: a view")
            self._exports += 1

    def copy_from_host(self, src: Any, offset: int = 0) -> None:
        """HelloFPGA_GPU_Memcpy() host -> this buffer at @offset."""
        self._live("GPUBuffer.copy_from_host")
        with _dlpack.HostBuffer(src, False, "GPUBuffer.copy_from_host") as (a, n):
            offset = self._range(offset, n, "GPUBuffer.copy_from_host")
            check(_capi.lib.HelloFPGA_GPU_Memcpy(self.ptr + offset, a, n,
                                                 MEMCPY_HOST_TO_GPU),
                  "HelloFPGA_GPU_Memcpy")

    def copy_to_host(self, dst: Any, offset: int = 0) -> None:
        """HelloFPGA_GPU_Memcpy() this buffer at @offset -> host @dst."""
        self._live("GPUBuffer.copy_to_host")
        with _dlpack.HostBuffer(dst, True, "GPUBuffer.copy_to_host") as (a, n):
            offset = self._range(offset, n, "GPUBuffer.copy_to_host")
            check(_capi.lib.HelloFPGA_GPU_Memcpy(a, self.ptr + offset, n,
                                                 MEMCPY_GPU_TO_HOST),
                  "HelloFPGA_GPU_Memcpy")

    def _range(self, offset: int, n: int, fn: str) -> int:
        offset = _capi.integer(offset, "offset", fn)
        if offset < 0 or offset + n > self.size:
            fail(34, f"bytes {offset}..{offset + n} leave the GPU buffer of "
                 f"{self.size}", fn)
        return offset

    def __dlpack_device__(self) -> Tuple[int, int]:
        return self.status.dlpack_device

    def __dlpack__(self, stream: Any = None, max_version: Any = None,
                   dl_device: Any = None, copy: Any = None) -> Any:
        """DLPack export, no copy.  The card's writes into it complete
        before the calls that make them return, so no stream needs to wait:
        @stream is accepted and not used."""
        self._live("GPUBuffer.__dlpack__")
        if copy:
            raise BufferError("GPUBuffer exports without a copy only")
        return _dlpack.export(self, self.ptr, self.size,
                              self.status.dlpack_device, self.dtype)

    @property
    def __cuda_array_interface__(self) -> dict:
        if self.status.dlpack_device[0] != _dlpack.KDL_CUDA or not self.ptr:
            raise AttributeError("__cuda_array_interface__: not CUDA memory")
        bits = int(self.dtype.rstrip("0123456789") and
                   self.dtype[len(self.dtype.rstrip("0123456789")):])
        item = bits // 8
        kind = self.dtype[0]            # uint -> u, int -> i, float -> f
        return {"shape": (self.size // item,), "typestr": f"<{kind}{item}",
                "data": (self.ptr, False), "version": 3, "strides": None,
                "stream": None}

    def numpy(self) -> Any:
        """A writable NumPy view (no copy) of host-visible GPU memory (the
        emulated GPU, Tegra), of @dtype; EINVAL for device memory.  It
        counts in exports as a DLPack view does."""
        self._live("GPUBuffer.numpy")
        if self.status.dlpack_device[0] == _dlpack.KDL_CUDA:
            fail(22, "desktop GPU memory is not host memory: use torch or "
                 "CuPy (from_dlpack), or copy_to_host()", "GPUBuffer.numpy")
        return _dlpack.numpy_view(self, self.ptr, self.size, self.dtype)

    def __repr__(self) -> str:
        return f"GPUBuffer(ptr={self.ptr:#x}, size={self.size})"


def gpu_alloc(size: int, dtype: str = "uint8") -> GPUBuffer:
    """HelloFPGA_GPU_Alloc(): a :class:`GPUBuffer` of @size bytes."""
    return GPUBuffer(size, dtype)


def cuda_stream_handle(stream: Any) -> int:
    """The CUstream of @stream: ``None`` or 0 (the legacy default stream),
    an int (a CUstream), a :class:`GPUStream` (its handle; EBADF once
    destroyed), anything with ``__cuda_stream__`` (the protocol:
    ``(version, handle)``), a ``torch.cuda.Stream`` (``.cuda_stream``), a
    ``cupy.cuda.Stream`` (``.ptr``)."""
    if stream is None:
        return 0
    if isinstance(stream, GPUStream):
        return stream.handle
    if isinstance(stream, int) and not isinstance(stream, bool):
        if stream < 0:
            fail(22, f"CUDA stream handle {stream}: negative",
                 "cuda_stream_handle")
        return _capi.in_range(stream, c_void_p, "stream",
                              "cuda_stream_handle")
    proto = getattr(stream, "__cuda_stream__", None)
    if proto is not None:
        v = proto() if callable(proto) else proto
        return int(v[1])
    for attr in ("cuda_stream", "ptr", "handle"):
        v = getattr(stream, attr, None)
        if isinstance(v, int) and not isinstance(v, bool):
            return v
    raise TypeError(f"{type(stream).__name__} is not a CUDA stream "
                    "(torch.cuda.Stream, cupy.cuda.Stream, "
                    "hellofpga.GPUStream, an int CUstream, None)")


# ---- GPUStream: HelloFPGA_GPU_StreamCreate and its host functions ----

class _Pending:
    """What a GPUStream's host functions share with it: their exceptions,
    kept until GPUStream.synchronize() raises them."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.errors: List[BaseException] = []
        self.orphaned = False       # the stream was destroyed


# host functions queued and not yet run: key -> (callable, args, _Pending);
# the key is the C function's arg, so the callable lives until it ran
_calls: dict = {}
_calls_lock = threading.Lock()
_keys = itertools.count(1)


def _run_host_func(arg: Optional[int]) -> None:
    """The one C trampoline of every host function: runs on the GPU
    stream's thread (the emulated GPU's worker, CUDA's callback thread);
    never lets an exception escape into C."""
    try:
        with _calls_lock:
            fn, args, pend = _calls.pop(arg or 0)
    except BaseException:           # nothing known: cannot happen
        return
    try:
        fn(*args)
    except BaseException as e:      # noqa: BLE001 (kept, re-raised)
        with pend.lock:
            orphaned = pend.orphaned
            if not orphaned:
                pend.errors.append(e)
        if orphaned:                # nobody can synchronize: say it here
            try:
                sys.stderr.write(
                    "hellofpga: exception in a host function of a destroyed "
                    "GPUStream:\n" + "".join(traceback.format_exception(
                        type(e), e, e.__traceback__)))
                sys.stderr.flush()
            except BaseException:   # noqa: BLE001 (stderr gone at exit)
                pass


_HOST_FUNC = _capi.HOST_FUNC(_run_host_func)    # lives as long as the module


class GPUStream(Owned):
    """A GPU stream of the library (HelloFPGA_GPU_StreamCreate): a CUstream
    (non-blocking, in the library's CUDA context) on a real GPU, else a
    stream of the emulated GPU, whose work a thread of its own runs in
    order.  Pass it wherever a CUDA stream is taken
    (:meth:`Stream.wait_on_gpu`, :meth:`Stream.release_on_gpu`); on the
    emulated GPU it is the only kind there is.  On a real GPU its
    :attr:`handle` is the CUstream (``torch.cuda.ExternalStream(handle)``).

    ::

        with hellofpga.GPUStream() as gs:
            w = stream.wait_on_gpu(gs)
            gs.launch_host_func(consume, w)     # runs once the frame landed
            gs.synchronize(5000)                # re-raises consume's errors

    The ``with`` block's end destroys it without waiting (as
    cuStreamDestroy: the work queued still runs), raising a host
    function's exception that is there already: call :meth:`synchronize`
    to wait.  (A wait for a frame that never comes would keep a
    synchronize waiting until the stream it waits on closes.)
    """

    def __init__(self) -> None:
        p = c_void_p()
        check(need("HelloFPGA_GPU_StreamCreate", "GPUStream")(byref(p)),
              "HelloFPGA_GPU_StreamCreate")
        self._gs: Optional[int] = p.value
        self._pend = _Pending()
        self._pid = os.getpid()

    @property
    def handle(self) -> int:
        """The stream (a CUstream on a real GPU); EBADF once destroyed."""
        if self._gs is None:
            fail(9, "the GPU stream is destroyed", "GPUStream")
        return self._gs

    @property
    def destroyed(self) -> bool:
        return self._gs is None

    def launch_host_func(self, fn: Callable[..., Any], *args: Any) -> None:
        """HelloFPGA_GPU_LaunchHostFunc(): call ``fn(*args)`` once the work
        queued before it in the stream has run; the stream's later work
        waits for it.  On the emulated GPU this is the stand-in for a
        kernel.

        It runs on another thread (the stream's, taking the GIL): keep it
        short, and on a real GPU make no CUDA call in it (no torch or CuPy
        op: CUDA forbids it).  The package keeps @fn and @args alive until
        it ran.  An exception it raises is kept and raised by the next
        :meth:`synchronize` (the first one; ``__notes__`` counts the
        others); one of a destroyed stream is printed to stderr."""
        h = self.handle
        if not callable(fn):
            raise TypeError(f"{type(fn).__name__} is not callable")
        launch = need("HelloFPGA_GPU_LaunchHostFunc",
                      "GPUStream.launch_host_func")
        with _calls_lock:
            key = next(_keys)
            _calls[key] = (fn, args, self._pend)
        ret = launch(h, _HOST_FUNC, key)
        if ret < 0:
            with _calls_lock:
                _calls.pop(key, None)
            check(ret, "HelloFPGA_GPU_LaunchHostFunc")

    def synchronize(self, timeout_ms: int = -1) -> None:
        """HelloFPGA_GPU_StreamSynchronize(): wait for the work queued
        (< 0 without end; ETIMEDOUT when it did not finish, for example a
        GPU wait that no completion satisfied), with the GIL released;
        then raise the first exception a host function raised since the
        last synchronize, if any."""
        sync = need("HelloFPGA_GPU_StreamSynchronize", "GPUStream.synchronize")
        check(sync(self.handle, timeout_ms),
              "HelloFPGA_GPU_StreamSynchronize")
        self.raise_errors()

    def raise_errors(self) -> None:
        """Raise (and forget) the first exception a host function of this
        stream raised since the last call, if any; it does not wait."""
        with self._pend.lock:
            errs, self._pend.errors = self._pend.errors, []
        if errs:
            e = errs[0]
            if len(errs) > 1 and hasattr(e, "add_note"):
                e.add_note(f"hellofpga.GPUStream: {len(errs) - 1} more host "
                           "function(s) raised too")
            raise e

    def destroy(self) -> None:
        """HelloFPGA_GPU_StreamDestroy(): returns at once, the work queued
        still runs (its host functions too).  Twice is a no-op."""
        if self._gs is None:
            return
        gs, self._gs = self._gs, None
        with self._pend.lock:
            self._pend.orphaned = True
        check(need("HelloFPGA_GPU_StreamDestroy", "GPUStream.destroy")(gs),
              "HelloFPGA_GPU_StreamDestroy")

    def __exit__(self, exc_type: Any, *exc: Any) -> None:
        try:
            if exc_type is None:
                self.raise_errors()
        finally:
            self.destroy()

    def _owned(self) -> bool:
        return getattr(self, "_gs", None) is not None and \
            self._pid == os.getpid()

    def _end(self) -> None:
        self.destroy()

    def __repr__(self) -> str:
        if self._gs is None:
            return "<hellofpga.GPUStream destroyed>"
        return f"<hellofpga.GPUStream {self._gs:#x}>"


__all__ = ["Platform", "GPUStatus", "gpu_status", "GPUBuffer", "gpu_alloc",
           "cuda_stream_handle", "GPUStream", "HelloFPGAError"]
