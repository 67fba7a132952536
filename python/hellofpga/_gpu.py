# SPDX-License-Identifier: MIT
"""The GPU side: GetGPUStatus, GPU memory the library allocates
(GPUBuffer, exported through DLPack), CUDA stream handles."""
from __future__ import annotations

import enum
import os
import threading
from ctypes import byref, c_void_p
from dataclasses import dataclass
from typing import Any, Tuple

from . import _capi, _dlpack
from ._errors import HelloFPGAError, check, fail

MEMCPY_HOST_TO_GPU = 1
MEMCPY_GPU_TO_HOST = 2


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
    """Counts the DLPack views of an object's memory (see _dlpack)."""

    def __init__(self) -> None:
        self._exports = 0
        self._exports_lock = threading.Lock()

    @property
    def exports(self) -> int:
        """Views (DLPack consumers: NumPy arrays, tensors) alive now."""
        return self._exports

    def _export_taken(self) -> None:
        with self._exports_lock:
            self._exports += 1

    def _export_released(self) -> None:
        with self._exports_lock:
            self._exports -= 1
            last = self._exports == 0
        if last:
            self._last_export_gone()

    def _last_export_gone(self) -> None:
        pass


class GPUBuffer(_Exported):
    """GPU memory from HelloFPGA_GPU_Alloc(): device memory on a desktop GPU,
    pinned host memory on Tegra, the emulated GPU's memory without CUDA;
    aligned to the GPU page, so it pins as it is.

    It exports itself with no copy: ``torch.from_dlpack(buf)``,
    ``cupy.from_dlpack(buf)``, ``numpy.from_dlpack(buf)`` (the emulated
    GPU: host memory), and ``__cuda_array_interface__`` where CUDA is.
    A view keeps the buffer alive; :meth:`free` while one lives is EBUSY.
    """

    def __init__(self, size: int, dtype: str = "uint8") -> None:
        super().__init__()
        size = int(size)
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
        a DLPack view of it lives (drop the tensor first)."""
        if not self.ptr:
            return
        if self._exports:
            fail(16, f"GPU buffer {self.ptr:#x}: {self._exports} DLPack "
                 "view(s) of it are alive (tensors, arrays): drop them "
                 "before freeing it", "GPUBuffer.free")
        ptr, self.ptr = self.ptr, 0
        check(_capi.lib.HelloFPGA_GPU_Free(ptr), "HelloFPGA_GPU_Free")

    def __enter__(self) -> "GPUBuffer":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.free()

    def __del__(self) -> None:
        if getattr(self, "ptr", 0) and self._pid == os.getpid():
            try:
                self.free()
            except Exception:
                pass

    def _live(self, fn: str) -> None:
        if not self.ptr:
            fail(9, "the GPU buffer is freed", fn)

    def copy_from_host(self, src: Any, offset: int = 0) -> None:
        """HelloFPGA_GPU_Memcpy() host -> this buffer at @offset."""
        self._live("GPUBuffer.copy_from_host")
        with _dlpack.HostBuffer(src, False, "GPUBuffer.copy_from_host") as (a, n):
            self._range(offset, n, "GPUBuffer.copy_from_host")
            check(_capi.lib.HelloFPGA_GPU_Memcpy(self.ptr + offset, a, n,
                                                 MEMCPY_HOST_TO_GPU),
                  "HelloFPGA_GPU_Memcpy")

    def copy_to_host(self, dst: Any, offset: int = 0) -> None:
        """HelloFPGA_GPU_Memcpy() this buffer at @offset -> host @dst."""
        self._live("GPUBuffer.copy_to_host")
        with _dlpack.HostBuffer(dst, True, "GPUBuffer.copy_to_host") as (a, n):
            self._range(offset, n, "GPUBuffer.copy_to_host")
            check(_capi.lib.HelloFPGA_GPU_Memcpy(a, self.ptr + offset, n,
                                                 MEMCPY_GPU_TO_HOST),
                  "HelloFPGA_GPU_Memcpy")

    def _range(self, offset: int, n: int, fn: str) -> None:
        if offset < 0 or offset + n > self.size:
            fail(34, f"bytes {offset}..{offset + n} leave the GPU buffer of "
                 f"{self.size}", fn)

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
    an int (a CUstream), anything with ``__cuda_stream__`` (the protocol:
    ``(version, handle)``), a ``torch.cuda.Stream`` (``.cuda_stream``), a
    ``cupy.cuda.Stream`` (``.ptr``)."""
    if stream is None:
        return 0
    if isinstance(stream, int):
        return stream
    proto = getattr(stream, "__cuda_stream__", None)
    if proto is not None:
        v = proto() if callable(proto) else proto
        return int(v[1])
    for attr in ("cuda_stream", "ptr", "handle"):
        v = getattr(stream, attr, None)
        if isinstance(v, int):
            return v
    raise TypeError(f"{type(stream).__name__} is not a CUDA stream "
                    "(torch.cuda.Stream, cupy.cuda.Stream, an int CUstream)")


__all__ = ["Platform", "GPUStatus", "gpu_status", "GPUBuffer", "gpu_alloc",
           "cuda_stream_handle", "HelloFPGAError"]
