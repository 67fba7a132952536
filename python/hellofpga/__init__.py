# SPDX-License-Identifier: MIT
"""hellofpga: Python bindings of libhellofpga (ctypes; no compiler needed).

DMA between a Xilinx XDMA FPGA card and host or NVIDIA GPU memory (GPU
Direct RDMA), on a hardware card through hellofpga.ko or on the library's
emulated card::

    import hellofpga
    with hellofpga.Card("emu:0") as card:
        card.write_h2c(b"hello", 0x1000)
        data = card.read(0x1000, 5)

The guide is docs/python.md; the C API, whose names these follow, is
include/hellofpga.h.  Errors are :class:`HelloFPGAError` (an OSError with
``errno``, ``name`` and the library's detailed ``text``).
"""
from __future__ import annotations

from typing import Optional

from . import _capi, framefile, regs
from ._card import (GPU_ALIGN, SUBMIT_START_ON_GPU, SUBMIT_WAIT_ON_GPU,
                    XFER_WB_ERROR, XFER_WB_MASK, Backend, Card, CardInfo,
                    Direction, IRQMode, Pin, Submission, TransferMode,
                    align_offset, check_gpu_alignment)
from ._dlpack import KDL_CPU, KDL_CUDA, KDL_CUDA_HOST
from ._errors import HelloFPGAError
from ._gpu import (GPUBuffer, GPUStatus, GPUStream, Platform,
                   cuda_stream_handle, gpu_alloc, gpu_status)
from ._stream import (FRAME_EOP, GPU_WAIT_FLUSH, STREAM_WB_EOP,
                      STREAM_WB_ERROR, STREAM_WB_MAGIC, STREAM_WB_MAGIC_MASK,
                      Frame, GPUWait, GPUWaitResult, Stream, StreamStats)

# one version for the project: the library's (CMakeLists.txt project(VERSION))
__version__: str = _capi.lib.HelloFPGA_Version().decode()

USER_IRQS = 16
STREAM_MIN_BUFFERS = 2
STREAM_MAX_BUFFERS = 512


def library_version() -> str:
    """HelloFPGA_Version() of the loaded library."""
    return _capi.lib.HelloFPGA_Version().decode()


def library_path() -> str:
    """The file the library was loaded from (or the soname asked for)."""
    return _capi.LIBRARY_PATH


def strerror(err: int) -> str:
    """HelloFPGA_StrError(): 'EINVAL: invalid argument' (either sign)."""
    return _capi.strerror(-abs(_capi.integer(err, "err", "strerror")))


def last_error(card: Optional[Card] = None) -> str:
    """HelloFPGA_GetLastError() of @card, or the thread's."""
    return _capi.last_error(card.handle if card is not None else None)


def has_wait_on_gpu() -> bool:
    """Whether the loaded library has GPU-side completion (library ABI 1.3:
    HelloFPGA_Stream_WaitOnGPU / ReleaseOnGPU and the GPU stream calls, for
    Stream.wait_on_gpu, Stream.release_on_gpu, GPUStream).  Without it
    those raise HelloFPGAError EOPNOTSUPP; the package loads either way."""
    return all(f is not None for n, f in _capi.OPTIONAL.items()
               if _capi.OPTIONAL_SINCE[n] == "HELLOFPGA_1.3")


def has_submit() -> bool:
    """Whether the loaded library queues GPU Direct transfers with GPU-side
    completion (library ABI 1.4: HelloFPGA_GPUDirect_Submit / _Complete,
    for Pin.submit)."""
    return all(_capi.OPTIONAL[n] is not None for n in (
        "HelloFPGA_GPUDirect_Submit", "HelloFPGA_GPUDirect_Complete"))


def open(name: Optional[str] = None) -> Card:  # noqa: A001 (as the C API)
    """HelloFPGA_Open(): the same as Card(name).  Not in __all__, so that
    ``from hellofpga import *`` leaves the builtin open() alone."""
    return Card(name)


__all__ = [
    "Backend", "Card", "CardInfo", "Direction", "FRAME_EOP", "Frame",
    "GPU_ALIGN", "GPU_WAIT_FLUSH", "GPUBuffer", "GPUStatus", "GPUStream",
    "GPUWait", "GPUWaitResult", "HelloFPGAError", "IRQMode",
    "KDL_CPU", "KDL_CUDA", "KDL_CUDA_HOST", "Pin", "Platform", "Stream",
    "STREAM_WB_EOP", "STREAM_WB_ERROR", "STREAM_WB_MAGIC",
    "STREAM_WB_MAGIC_MASK", "StreamStats", "TransferMode", "USER_IRQS", "STREAM_MIN_BUFFERS",
    "STREAM_MAX_BUFFERS", "SUBMIT_START_ON_GPU", "SUBMIT_WAIT_ON_GPU",
    "Submission", "XFER_WB_ERROR", "XFER_WB_MASK", "align_offset",
    "check_gpu_alignment", "cuda_stream_handle", "framefile", "gpu_alloc",
    "gpu_status",
    "has_submit", "has_wait_on_gpu",
    "last_error", "library_path", "library_version", "regs",
    "strerror",
]
