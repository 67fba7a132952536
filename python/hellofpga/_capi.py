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

Every prototype of the header is declared here and nowhere else, and
called through :data:`lib` (and :data:`OPTIONAL`), whose functions check
each integer argument against its C type first (:func:`checked`).  Symbols
newer than the oldest library this package supports are looked up with
:func:`optional` and are ``None`` when the loaded library lacks them.
"""
from __future__ import annotations

import ctypes
import operator
import os
from ctypes import (CFUNCTYPE, POINTER, Structure, c_char, c_char_p, c_double, c_int,
                    c_size_t, c_uint32, c_uint64, c_void_p)
from typing import Any, Callable, Optional, Tuple

SONAME = "libhellofpga.so.1"

HANDLE = c_void_p
STREAM = c_void_p
GPU_HANDLE = c_uint64


# ---- integers crossing into C: checked, never truncated ----
#
# ctypes converts a Python int to a C integer type modulo 2**bits, without
# a word: 2**32 + 100 becomes 100, -1 becomes 0xffffffff, True becomes 1.
# Every function of lib (and of OPTIONAL) is wrapped by checked(), which
# refuses, before C is called, an integer argument that its C type cannot
# hold (OverflowError: out of range, negative for an unsigned type) and an
# argument of an integer or pointer parameter that is not an integer
# (TypeError: bool, float, str; numpy integers and IntEnum are integers);
# the same checks guard the fields Python fills of CheckedStructure
# (HELLOFPGA_STREAM_CONFIG).  Pointers that are ctypes objects (byref(),
# buffers) and None pass to ctypes as they are.

def _int_kind(ctype: Any) -> Optional[Tuple[int, int, str]]:
    """(lowest, highest, C name) of an integer or pointer ctypes type;
    None for any other (strings, structures, function pointers)."""
    code = getattr(ctype, "_type_", None)
    if not isinstance(code, str):
        return None
    bits = 8 * ctypes.sizeof(ctype)
    if code == "P":                     # void *: an address
        return 0, (1 << bits) - 1, "void * (an address)"
    if code not in "bBhHiIlLqQ":
        return None
    if code.islower():
        return -(1 << (bits - 1)), (1 << (bits - 1)) - 1, f"int{bits}_t"
    return 0, (1 << bits) - 1, f"uint{bits}_t"


def integer(v: Any, what: str, where: str) -> int:
    """@v as a plain int: an int, a numpy integer, an IntEnum; TypeError
    for a bool and for anything that is not an integer (a float, a str),
    naming @what (the parameter) of @where (the call)."""
    if isinstance(v, bool) or type(v).__name__ == "bool_":
        raise TypeError(f"{where}: {what} must be an integer, not a bool")
    try:
        return operator.index(v)
    except TypeError:
        raise TypeError(f"{where}: {what} must be an integer, not "
                        f"{type(v).__name__}") from None


def in_range(v: Any, ctype: Any, what: str, where: str) -> int:
    """@v as an int that C type @ctype holds: TypeError for a non-integer
    (integer()), OverflowError when out of the type's range."""
    kind = _int_kind(ctype)
    assert kind is not None, ctype
    lo, hi, cname = kind
    n = integer(v, what, where)
    if not lo <= n <= hi:
        raise OverflowError(f"{where}: {what} = {n} does not fit the C "
                            f"type {cname} ({lo}..{hi}): refused, not "
                            "truncated")
    return n


def _arg_check(fn: str, what: str,
               ctype: Any) -> Optional[Callable[[Any], Any]]:
    kind = _int_kind(ctype)
    if kind is None:
        return None
    if kind[2].startswith("void"):
        def pointer(v: Any) -> Any:
            if v is None:
                return None
            if isinstance(v, int) or hasattr(v, "__index__"):
                return in_range(v, ctype, what, fn)
            if isinstance(v, (float, str)):
                raise TypeError(f"{fn}: {what} must be an address (an "
                                f"integer), not {type(v).__name__}")
            return v                # a ctypes object, bytes: ctypes' own
        return pointer
    return lambda v: in_range(v, ctype, what, fn)


def checked(fn: str, f: Any, names: str) -> Callable[..., Any]:
    """The ctypes function @f (argtypes set) behind a wrapper that checks
    each integer and pointer argument (@names: the parameters' names, for
    the error) before the call."""
    argtypes = list(f.argtypes or [])
    pnames = names.split()
    assert len(pnames) == len(argtypes), fn
    checks = [(i, c) for i, c in ((i, _arg_check(fn, n, t)) for i, (n, t)
                                  in enumerate(zip(pnames, argtypes)))
              if c is not None]

    def call(*args: Any) -> Any:
        if len(args) != len(argtypes):
            raise TypeError(f"{fn}: {len(argtypes)} arguments, "
                            f"{len(args)} given")
        if checks:
            a = list(args)
            for i, c in checks:
                a[i] = c(a[i])
            return f(*a)
        return f(*args)
    call.__name__ = call.__qualname__ = fn
    return call


class CheckedStructure(Structure):
    """A structure Python fills for C: its integer (and pointer) fields
    refuse, as checked() does, what their C type cannot hold."""

    def __setattr__(self, name: str, value: Any) -> None:
        for fname, ftype in type(self)._fields_:
            if fname == name:
                chk = _arg_check(getattr(self, "C_NAME", type(self).__name__),
                                 name, ftype)
                if chk is not None:
                    value = chk(value)
                break
        super().__setattr__(name, value)


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


class StreamConfig(CheckedStructure):
    C_NAME = "HELLOFPGA_STREAM_CONFIG"
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


# name: (restype, argtypes, the parameters' names as in the header); every
# call returns 0 or a negative errno unless said otherwise
_PROTOTYPES: dict[str, tuple[Any, list[Any], str]] = {
    "HelloFPGA_Open": (c_int, [c_char_p, POINTER(HANDLE)], "name phDev"),
    "HelloFPGA_Close": (c_int, [HANDLE], "hDev"),
    "HelloFPGA_DMA_MM_ReadC2H": (c_int, [HANDLE, c_int, c_void_p, c_uint64,
                                         c_size_t, POINTER(c_size_t)],
                                 "hDev ch buf offset len actual"),
    "HelloFPGA_DMA_MM_WriteH2C": (c_int, [HANDLE, c_int, c_void_p, c_uint64,
                                          c_size_t, POINTER(c_size_t)],
                                  "hDev ch buf offset len actual"),
    "HelloFPGA_StrError": (c_char_p, [c_int], "err"),
    "HelloFPGA_GetLastError": (c_char_p, [HANDLE], "hDev"),
    "HelloFPGA_SetTimeout": (c_int, [HANDLE, c_int], "hDev timeout_ms"),
    "HelloFPGA_GetInfo": (c_int, [HANDLE, POINTER(Info)], "hDev info"),
    "HelloFPGA_GetPCIInfo": (c_int, [HANDLE, POINTER(PCIInfo)], "hDev pci"),
    "HelloFPGA_GetCounters": (c_int, [HANDLE, POINTER(Counters)], "hDev c"),
    "HelloFPGA_GetDMAFaults": (c_int, [HANDLE, POINTER(DMAFaults)], "hDev f"),
    "HelloFPGA_GetLinkModel": (c_int, [HANDLE, POINTER(LinkModel)],
                               "hDev lm"),
    "HelloFPGA_UserRead32": (c_int, [HANDLE, c_uint32, POINTER(c_uint32)],
                             "hDev offset val"),
    "HelloFPGA_UserWrite32": (c_int, [HANDLE, c_uint32, c_uint32],
                              "hDev offset val"),
    "HelloFPGA_UserIRQ_Wait": (c_int, [HANDLE, c_int, c_int,
                                       POINTER(c_uint32)],
                               "hDev irq timeout_ms count"),
    "HelloFPGA_UserIRQ_GetFd": (c_int, [HANDLE, c_int, POINTER(c_int)],
                                "hDev irq fd"),
    "HelloFPGA_GetGPUStatus": (c_int, [POINTER(GPUStatus)], "status"),
    "HelloFPGA_GPUDirect_Pin": (c_int, [HANDLE, c_void_p, c_size_t,
                                        POINTER(GPU_HANDLE)],
                                "hDev gpuBuf size handle"),
    "HelloFPGA_GPUDirect_ReadC2H": (c_int, [HANDLE, c_int, GPU_HANDLE,
                                            c_uint64, c_size_t, c_int],
                                    "hDev ch handle fpgaAddr size timeout_ms"),
    "HelloFPGA_GPUDirect_WriteH2C": (c_int, [HANDLE, c_int, GPU_HANDLE,
                                             c_uint64, c_size_t, c_int],
                                     "hDev ch handle fpgaAddr size "
                                     "timeout_ms"),
    "HelloFPGA_GPUDirect_Xfer": (c_int, [HANDLE, c_int, GPU_HANDLE, c_size_t,
                                         c_uint64, c_size_t, c_int, c_int,
                                         POINTER(c_size_t)],
                                 "hDev ch handle bufOffset fpgaAddr size dir "
                                 "timeout_ms actual"),
    "HelloFPGA_GPUDirect_Unpin": (c_int, [HANDLE, GPU_HANDLE], "hDev handle"),
    "HelloFPGA_SetGPUBuffer": (c_int, [HANDLE, c_void_p, c_size_t],
                               "hDev gpuAddr size"),
    "HelloFPGA_SetTransferMode": (c_int, [HANDLE, c_int], "hDev mode"),
    "HelloFPGA_GPU_Alloc": (c_int, [POINTER(c_void_p), c_size_t],
                            "ptr size"),
    "HelloFPGA_GPU_Free": (c_int, [c_void_p], "ptr"),
    "HelloFPGA_GPU_Memcpy": (c_int, [c_void_p, c_void_p, c_size_t, c_int],
                             "dst src size kind"),
    "HelloFPGA_Stream_Open": (c_int, [HANDLE, POINTER(StreamConfig),
                                      POINTER(STREAM)], "hDev cfg s"),
    "HelloFPGA_Stream_Wait": (c_int, [STREAM, c_int, POINTER(Frame)],
                              "s timeout_ms f"),
    "HelloFPGA_Stream_Release": (c_int, [STREAM, c_uint32], "s index"),
    "HelloFPGA_Stream_GetStats": (c_int, [STREAM, POINTER(StreamStats)],
                                  "s st"),
    "HelloFPGA_Stream_Close": (c_int, [STREAM], "s"),
    "HelloFPGA_Version": (c_char_p, [], ""),
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
_OPTIONAL: dict[str, tuple[Any, list[Any], str]] = {
    "HelloFPGA_Stream_WaitOnGPU": (c_int, [STREAM, c_void_p, c_uint64,
                                           c_uint32, POINTER(GPUWait)],
                                   "s gpu_stream sequence flags w"),
    "HelloFPGA_Stream_ReleaseOnGPU": (c_int, [STREAM, c_void_p, c_uint32,
                                              c_uint32],
                                      "s gpu_stream index flags"),
    "HelloFPGA_GPU_StreamCreate": (c_int, [POINTER(c_void_p)], "stream"),
    "HelloFPGA_GPU_StreamDestroy": (c_int, [c_void_p], "stream"),
    "HelloFPGA_GPU_StreamSynchronize": (c_int, [c_void_p, c_int],
                                        "stream timeout_ms"),
    "HelloFPGA_GPU_LaunchHostFunc": (c_int, [c_void_p, HOST_FUNC, c_void_p],
                                     "stream fn arg"),
    # HELLOFPGA_1.4: GPU Direct transfers submitted to a channel's queue
    "HelloFPGA_GPUDirect_Submit": (c_int, [HANDLE, c_int, c_uint64, c_size_t,
                                           c_uint64, c_size_t, c_int,
                                           c_void_p, c_uint32, c_int,
                                           POINTER(Submission)],
                                   "hDev ch handle bufOffset fpgaAddr size "
                                   "dir gpu_stream flags timeout_ms sub"),
    "HelloFPGA_GPUDirect_Complete": (c_int, [HANDLE, c_uint64, c_int,
                                             POINTER(c_size_t)],
                                     "hDev ticket timeout_ms actual"),
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


_cdll = _load()
LIBRARY_PATH: str = _cdll._name


class _Lib:
    """The library's functions, each a :func:`checked` wrapper of its ctypes
    prototype: ``lib.HelloFPGA_Open(...)``.  Only the prototypes declared
    here are reachable, so every call of the package goes through the
    checks."""

    def __repr__(self) -> str:
        return f"<hellofpga._capi.lib {LIBRARY_PATH!r}>"


lib = _Lib()

for _name, (_res, _args, _names) in _PROTOTYPES.items():
    _f = getattr(_cdll, _name)
    _f.restype = _res
    _f.argtypes = _args
    setattr(lib, _name, checked(_name, _f, _names))


def _lookup(name: str) -> Optional[Any]:
    try:
        f = getattr(_cdll, name)
    except AttributeError:
        return None
    res, args, names = _OPTIONAL[name]
    f.restype = res
    f.argtypes = args
    return checked(name, f, names)


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
