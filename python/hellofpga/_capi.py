# SPDX-License-Identifier: MIT
"""ctypes declarations of libhellofpga's C API (include/hellofpga.h).

Loads the shared library once, at import:

* ``$HELLOFPGA_LIBRARY`` when set (a path, e.g. the build tree's
  ``build/lib/libhellofpga.so.1``; the tests use it),
* else ``libhellofpga.so.1`` by its soname (the dynamic linker's search:
  ``/usr/lib/<triplet>/`` from the Debian package, ``ldconfig``'s cache,
  ``LD_LIBRARY_PATH``),
* else the library beside the prefix ``cmake --install`` used
  (``_config.LIBDIR``).

Every prototype of the header is declared here and nowhere else.  Symbols
newer than the oldest library this package supports are looked up with
:func:`optional` and are ``None`` when the loaded library lacks them.
"""
from __future__ import annotations

import ctypes
import os
from ctypes import (CFUNCTYPE, POINTER, Structure, c_char, c_char_p, c_double, c_int,
                    c_size_t, c_uint32, c_uint64, c_void_p)
from typing import Any, Optional

SONAME = "libhellofpga.so.1"

HANDLE = c_void_p
STREAM = c_void_p
GPU_HANDLE = c_uint64


class Info(Structure):
    _fields_ = [("name", c_char * 64), ("backend", c_int),
                ("backend_name", c_char * 48), ("num_h2c", c_int),
                ("num_c2h", c_int), ("ddr_size", c_uint64),
                ("ip_version", c_uint32), ("addr_align", c_uint32),
                ("len_granularity", c_uint32), ("irq_mode", c_int),
                ("timeout_ms", c_int), ("lib_version", c_char * 16),
                ("driver_version", c_char * 32), ("abi_version", c_uint32),
                ("features", c_uint64)]


class PCIInfo(Structure):
    _fields_ = [("valid", c_int), ("domain", c_uint32), ("bus", c_uint32),
                ("device", c_uint32), ("function", c_uint32),
                ("vendor_id", c_uint32), ("device_id", c_uint32),
                ("user_bar_size", c_uint64), ("reserved", c_uint32 * 8)]


class Counters(Structure):
    _fields_ = [("transfers", c_uint64), ("bytes_h2c", c_uint64),
                ("bytes_c2h", c_uint64), ("errors", c_uint64),
                ("timeouts", c_uint64), ("model_valid", c_int),
                ("mmio_reads", c_uint64), ("mmio_writes", c_uint64),
                ("desc_fetched", c_uint64), ("irqs", c_uint64),
                ("wb_writes", c_uint64)]


class DMAFaults(Structure):
    _fields_ = [("faults", c_uint64), ("last_fault_bus", c_uint64),
                ("dma_errors", c_uint64)]


class LinkModel(Structure):
    _fields_ = [("enabled", c_int), ("gen", c_uint32), ("lanes", c_uint32),
                ("mps", c_uint32), ("desc_ns", c_uint64), ("gbps", c_double),
                ("text", c_char * 96)]


class GPUStatus(Structure):
    _fields_ = [("platform", c_int), ("supported", c_int),
                ("emulated", c_int), ("device", c_int),
                ("name", c_char * 96), ("pci_bus_id", c_char * 32),
                ("reason", c_char * 192), ("cuda_driver_version", c_int),
                ("rdma_supported", c_int), ("dmabuf_supported", c_int),
                ("page_size", c_uint32)]


class StreamConfig(Structure):
    _fields_ = [("channel", c_int), ("buffers", c_uint32),
                ("buffer_size", c_size_t), ("host", c_void_p),
                ("gpu", GPU_HANDLE), ("gpu_offset", c_uint64),
                ("flags", c_uint32), ("reserved", c_uint32 * 7)]


class Frame(Structure):
    _fields_ = [("index", c_uint32), ("flags", c_uint32),
                ("length", c_uint64), ("sequence", c_uint64),
                ("frame", c_uint64), ("dropped", c_uint64),
                ("timestamp_ns", c_uint64), ("host", c_void_p),
                ("gpu_offset", c_uint64), ("reserved", c_uint32 * 8)]


class StreamStats(Structure):
    _fields_ = [("buffers", c_uint64), ("frames", c_uint64),
                ("bytes", c_uint64), ("ring_full", c_uint64),
                ("source_dropped", c_uint64), ("source_sent", c_uint64),
                ("held", c_uint32), ("reserved", c_uint32 * 9)]


# name: (restype, argtypes); every call returns 0 or a negative errno
# unless said otherwise
_PROTOTYPES: dict[str, tuple[Any, list[Any]]] = {
    "HelloFPGA_Open": (c_int, [c_char_p, POINTER(HANDLE)]),
    "HelloFPGA_Close": (c_int, [HANDLE]),
    "HelloFPGA_DMA_MM_ReadC2H": (c_int, [HANDLE, c_int, c_void_p, c_uint64,
                                         c_size_t, POINTER(c_size_t)]),
    "HelloFPGA_DMA_MM_WriteH2C": (c_int, [HANDLE, c_int, c_void_p, c_uint64,
                                          c_size_t, POINTER(c_size_t)]),
    "HelloFPGA_StrError": (c_char_p, [c_int]),
    "HelloFPGA_GetLastError": (c_char_p, [HANDLE]),
    "HelloFPGA_SetTimeout": (c_int, [HANDLE, c_int]),
    "HelloFPGA_GetInfo": (c_int, [HANDLE, POINTER(Info)]),
    "HelloFPGA_GetPCIInfo": (c_int, [HANDLE, POINTER(PCIInfo)]),
    "HelloFPGA_GetCounters": (c_int, [HANDLE, POINTER(Counters)]),
    "HelloFPGA_GetDMAFaults": (c_int, [HANDLE, POINTER(DMAFaults)]),
    "HelloFPGA_GetLinkModel": (c_int, [HANDLE, POINTER(LinkModel)]),
    "HelloFPGA_UserRead32": (c_int, [HANDLE, c_uint32, POINTER(c_uint32)]),
    "HelloFPGA_UserWrite32": (c_int, [HANDLE, c_uint32, c_uint32]),
    "HelloFPGA_UserIRQ_Wait": (c_int, [HANDLE, c_int, c_int,
                                       POINTER(c_uint32)]),
    "HelloFPGA_UserIRQ_GetFd": (c_int, [HANDLE, c_int, POINTER(c_int)]),
    "HelloFPGA_GetGPUStatus": (c_int, [POINTER(GPUStatus)]),
    "HelloFPGA_GPUDirect_Pin": (c_int, [HANDLE, c_void_p, c_size_t,
                                        POINTER(GPU_HANDLE)]),
    "HelloFPGA_GPUDirect_ReadC2H": (c_int, [HANDLE, c_int, GPU_HANDLE,
                                            c_uint64, c_size_t, c_int]),
    "HelloFPGA_GPUDirect_WriteH2C": (c_int, [HANDLE, c_int, GPU_HANDLE,
                                             c_uint64, c_size_t, c_int]),
    "HelloFPGA_GPUDirect_Xfer": (c_int, [HANDLE, c_int, GPU_HANDLE, c_size_t,
                                         c_uint64, c_size_t, c_int, c_int,
                                         POINTER(c_size_t)]),
    "HelloFPGA_GPUDirect_Unpin": (c_int, [HANDLE, GPU_HANDLE]),
    "HelloFPGA_SetGPUBuffer": (c_int, [HANDLE, c_void_p, c_size_t]),
    "HelloFPGA_SetTransferMode": (c_int, [HANDLE, c_int]),
    "HelloFPGA_GPU_Alloc": (c_int, [POINTER(c_void_p), c_size_t]),
    "HelloFPGA_GPU_Free": (c_int, [c_void_p]),
    "HelloFPGA_GPU_Memcpy": (c_int, [c_void_p, c_void_p, c_size_t, c_int]),
    "HelloFPGA_Stream_Open": (c_int, [HANDLE, POINTER(StreamConfig),
                                      POINTER(STREAM)]),
    "HelloFPGA_Stream_Wait": (c_int, [STREAM, c_int, POINTER(Frame)]),
    "HelloFPGA_Stream_Release": (c_int, [STREAM, c_uint32]),
    "HelloFPGA_Stream_GetStats": (c_int, [STREAM, POINTER(StreamStats)]),
    "HelloFPGA_Stream_Close": (c_int, [STREAM]),
    "HelloFPGA_Version": (c_char_p, []),
}



class GPUWait(Structure):
    """HELLOFPGA_GPU_WAIT (library ABI 1.3)."""
    _fields_ = [("index", c_uint32), ("reserved0", c_uint32),
                ("sequence", c_uint64), ("status", c_void_p),
                ("status_dev", c_uint64), ("host", c_void_p),
                ("gpu_offset", c_uint64), ("reserved", c_uint32 * 8)]


class Submission(Structure):
    """HELLOFPGA_SUBMISSION (library ABI 1.4)."""
    _fields_ = [("ticket", c_uint64), ("status", c_void_p),
                ("status_dev", c_uint64), ("reserved", c_uint32 * 8)]


#: void (*fn)(void *arg) of HelloFPGA_GPU_LaunchHostFunc
HOST_FUNC = CFUNCTYPE(None, c_void_p)

# Symbols newer than library ABI 1.2 (HELLOFPGA_1.3 in lib/libhellofpga.map:
# GPU-side completion), which an older libhellofpga.so.1 lacks: looked up
# with optional(), None there.  void *gpu_stream is a CUstream (NULL: the
# legacy default stream) or an emulated GPU's stream.
_OPTIONAL: dict[str, tuple[Any, list[Any]]] = {
    "HelloFPGA_Stream_WaitOnGPU": (c_int, [STREAM, c_void_p, c_uint64,
                                           c_uint32, POINTER(GPUWait)]),
    "HelloFPGA_Stream_ReleaseOnGPU": (c_int, [STREAM, c_void_p, c_uint32,
                                              c_uint32]),
    "HelloFPGA_GPU_StreamCreate": (c_int, [POINTER(c_void_p)]),
    "HelloFPGA_GPU_StreamDestroy": (c_int, [c_void_p]),
    "HelloFPGA_GPU_StreamSynchronize": (c_int, [c_void_p, c_int]),
    "HelloFPGA_GPU_LaunchHostFunc": (c_int, [c_void_p, HOST_FUNC, c_void_p]),
    # HELLOFPGA_1.4: GPU Direct transfers submitted to a channel's queue
    "HelloFPGA_GPUDirect_Submit": (c_int, [HANDLE, c_int, c_uint64, c_size_t,
                                           c_uint64, c_size_t, c_int,
                                           c_void_p, c_uint32, c_int,
                                           POINTER(Submission)]),
    "HelloFPGA_GPUDirect_Complete": (c_int, [HANDLE, c_uint64, c_int,
                                             POINTER(c_size_t)]),
}

#: the symbol version that brought each optional symbol
OPTIONAL_SINCE = {n: "HELLOFPGA_1.4" if n.startswith("HelloFPGA_GPUDirect_")
                  else "HELLOFPGA_1.3" for n in _OPTIONAL}

# HELLOFPGA_XFER_WB_* and HELLOFPGA_SUBMIT_* (ABI 1.4)
SUBMIT_DEPTH = 256
XFER_WB_COUNT = 0x00ffffff
XFER_WB_ERROR = 0x80000000
XFER_WB_MASK = XFER_WB_COUNT | XFER_WB_ERROR
SUBMIT_WAIT_ON_GPU = 0x1
SUBMIT_START_ON_GPU = 0x2

# HELLOFPGA_STREAM_WB_* and HELLOFPGA_GPU_WAIT_FLUSH
STREAM_WB_MAGIC = 0x52b40000
STREAM_WB_MAGIC_MASK = 0xffff0000
STREAM_WB_EOP = 0x00000001
STREAM_WB_ERROR = 0x00008000
GPU_WAIT_FLUSH = 0x1


def _load() -> ctypes.CDLL:
    tried = []
    env = os.environ.get("HELLOFPGA_LIBRARY")
    names = [env] if env else [SONAME]
    if not env:
        try:
            from . import _config  # written by cmake --install
            if _config.LIBDIR:
                names.append(os.path.join(_config.LIBDIR, SONAME))
        except ImportError:
            pass
    for n in names:
        try:
            return ctypes.CDLL(n)
        except OSError as e:
            tried.append(f"{n}: {e}")
    raise ImportError("hellofpga: cannot load libhellofpga (" +
                      "; ".join(tried) + "); install libhellofpga1, or set "
                      "HELLOFPGA_LIBRARY to the library's path")


lib = _load()
LIBRARY_PATH: str = lib._name

for _name, (_res, _args) in _PROTOTYPES.items():
    _f = getattr(lib, _name)
    _f.restype = _res
    _f.argtypes = _args


def _lookup(name: str) -> Optional[Any]:
    try:
        f = getattr(lib, name)
    except AttributeError:
        return None
    res, args = _OPTIONAL[name]
    f.restype = res
    f.argtypes = args
    return f


#: the optional functions, looked up once: None where the library lacks one
OPTIONAL: dict[str, Optional[Any]] = {n: _lookup(n) for n in _OPTIONAL}


def optional(name: str) -> Optional[Any]:
    """The C function @name with its prototype, or None when the loaded
    library does not export it."""
    return OPTIONAL[name]


def strerror(err: int) -> str:
    return lib.HelloFPGA_StrError(err).decode("utf-8", "replace")


def last_error(h: Optional[int]) -> str:
    return lib.HelloFPGA_GetLastError(h).decode("utf-8", "replace")
