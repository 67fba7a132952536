# SPDX-License-Identifier: MIT
"""DLPack with ctypes: export memory the library owns, read the device
pointer of memory others own.

Exporting (``__dlpack__``): a ``DLManagedTensor`` (DLPack 0.8, the
unversioned struct every consumer takes, NumPy 1.24's ``from_dlpack``
among them) in a PyCapsule named ``"dltensor"``.  A consumer renames the
capsule ``"used_dltensor"`` and calls the tensor's deleter when it drops its
view; a capsule that nobody consumed calls the deleter from its destructor.
Until the deleter runs, the managed tensor holds a reference to its owner
(a :class:`~hellofpga.GPUBuffer`, a :class:`~hellofpga.Frame`) and counts
in the owner's ``exports``: the owner refuses to free or release the memory
while a view of it lives (``EBUSY``).

Importing (:func:`memory_of`): a host buffer through the buffer protocol
(``PyObject_GetBuffer``, held for the call), device memory through
``__cuda_array_interface__`` or ``__dlpack__`` (the capsule is read, not
consumed: its producer's deleter runs when it goes, and the caller keeps the
object itself alive, which keeps its memory).
"""
from __future__ import annotations

import ctypes
import re
import threading
from ctypes import (CFUNCTYPE, POINTER, Structure, c_char_p, c_int, c_int32,
                    c_int64, c_uint8, c_uint16, c_uint64, c_void_p, py_object)
from typing import Any, Optional, Tuple

from ._errors import fail

# DLDeviceType
KDL_CPU = 1
KDL_CUDA = 2
KDL_CUDA_HOST = 3
KDL_CUDA_MANAGED = 13

# DLDataTypeCode
KDL_INT = 0
KDL_UINT = 1
KDL_FLOAT = 2


class DLDevice(Structure):
    _fields_ = [("device_type", c_int32), ("device_id", c_int32)]


class DLDataType(Structure):
    _fields_ = [("code", c_uint8), ("bits", c_uint8), ("lanes", c_uint16)]


class DLTensor(Structure):
    _fields_ = [("data", c_void_p), ("device", DLDevice), ("ndim", c_int32),
                ("dtype", DLDataType), ("shape", POINTER(c_int64)),
                ("strides", POINTER(c_int64)), ("byte_offset", c_uint64)]


class DLManagedTensor(Structure):
    pass


_DELETER = CFUNCTYPE(None, c_void_p)
DLManagedTensor._fields_ = [("dl_tensor", DLTensor),
                            ("manager_ctx", c_void_p),
                            ("deleter", _DELETER)]

_api = ctypes.pythonapi
_api.PyCapsule_New.restype = py_object
_api.PyCapsule_New.argtypes = [c_void_p, c_char_p, c_void_p]
_api.PyCapsule_GetPointer.restype = c_void_p
_api.PyCapsule_GetPointer.argtypes = [py_object, c_char_p]
_api.PyCapsule_GetName.restype = c_char_p
_api.PyCapsule_GetName.argtypes = [py_object]

# The same two, on a capsule's address, for its destructor: the capsule is
# dying and must not be referenced as an object again, and an exception may
# be pending then (a PYFUNCTYPE call would raise it in the callback and lose
# it).  These read the capsule's fields only and set no error for a capsule
# named as asked: plain C calls, with no error check.
_capsule_valid_raw = CFUNCTYPE(c_int, c_void_p, c_char_p)(
    ("PyCapsule_IsValid", _api))
_capsule_pointer_raw = CFUNCTYPE(c_void_p, c_void_p, c_char_p)(
    ("PyCapsule_GetPointer", _api))

_NAME = b"dltensor"

# address of a live DLManagedTensor -> (the struct, its shape array, owner)
_live: dict[int, Tuple[Any, Any, Any]] = {}
_live_lock = threading.Lock()


def _deleter(addr: Optional[int]) -> None:
    if not addr:
        return
    with _live_lock:
        entry = _live.pop(addr, None)
    if entry is not None:
        entry[2]._export_released()


_deleter_c = _DELETER(_deleter)


def _capsule_destructor(cap: Optional[int]) -> None:
    # a capsule still named "dltensor" was never consumed: free it here
    if cap and _capsule_valid_raw(cap, _NAME):
        _deleter(_capsule_pointer_raw(cap, _NAME))


_capsule_destructor_c = CFUNCTYPE(None, c_void_p)(_capsule_destructor)

_DTYPES = {"uint8": (KDL_UINT, 8), "int8": (KDL_INT, 8),
           "uint16": (KDL_UINT, 16), "int16": (KDL_INT, 16),
           "uint32": (KDL_UINT, 32), "int32": (KDL_INT, 32),
           "uint64": (KDL_UINT, 64), "int64": (KDL_INT, 64),
           "float16": (KDL_FLOAT, 16), "float32": (KDL_FLOAT, 32),
           "float64": (KDL_FLOAT, 64)}


def export(owner: Any, ptr: int, nbytes: int, device: Tuple[int, int],
           dtype: str = "uint8") -> Any:
    """A "dltensor" capsule of the 1-D array of @nbytes bytes at @ptr, as
    @dtype, on @device (DLDeviceType, device id); @owner counts it in its
    exports until the consumer lets go (owner._export_taken() /
    owner._export_released())."""
    try:
        code, bits = _DTYPES[dtype]
    except KeyError:
        fail(22, f"dtype {dtype!r} is not one of {sorted(_DTYPES)}",
             "__dlpack__")
    if nbytes % (bits // 8):
        fail(22, f"{nbytes} bytes are not a whole number of {dtype}",
             "__dlpack__")
    mt = DLManagedTensor()
    shape = (c_int64 * 1)(nbytes // (bits // 8))
    t = mt.dl_tensor
    t.data = ptr
    t.device = DLDevice(*device)
    t.ndim = 1
    t.dtype = DLDataType(code, bits, 1)
    t.shape = ctypes.cast(shape, POINTER(c_int64))
    t.strides = None            # compact, row-major
    t.byte_offset = 0
    mt.manager_ctx = None
    mt.deleter = _deleter_c
    addr = ctypes.addressof(mt)
    owner._export_taken()
    with _live_lock:
        _live[addr] = (mt, shape, owner)
    try:
        return _api.PyCapsule_New(addr, _NAME,
                                  ctypes.cast(_capsule_destructor_c, c_void_p))
    except BaseException:
        _deleter(addr)
        raise


class _ViewToken:
    """Counts in its owner's exports while it lives: the base of a NumPy
    view made by :func:`numpy_view`."""

    def __init__(self, owner: Any) -> None:
        owner._export_taken()           # may refuse: then no owner to tell
        self.owner = owner

    def __del__(self) -> None:
        owner = getattr(self, "owner", None)
        if owner is not None:
            owner._export_released()


def numpy_view(owner: Any, ptr: int, nbytes: int, dtype: str = "uint8") -> Any:
    """A writable NumPy array of the @nbytes at @ptr, no copy, counted in
    @owner's exports like a DLPack view.  (numpy.from_dlpack gives read-only
    arrays before NumPy 2: DLPack 0.x says nothing of writability.)"""
    import numpy as np
    arr = (ctypes.c_uint8 * nbytes).from_address(ptr)
    arr._hf_token = _ViewToken(owner)     # type: ignore[attr-defined]
    return np.frombuffer(arr, dtype=np.uint8).view(dtype)


def live_exports() -> int:
    """Managed tensors exported and not yet deleted (for the tests)."""
    with _live_lock:
        return len(_live)


# ---------------------------------------------------------------- import --

class _PyBuffer(Structure):
    _fields_ = [("buf", c_void_p), ("obj", c_void_p), ("len", ctypes.c_ssize_t),
                ("itemsize", ctypes.c_ssize_t), ("readonly", c_int),
                ("ndim", c_int), ("format", c_char_p), ("shape", c_void_p),
                ("strides", c_void_p), ("suboffsets", c_void_p),
                ("internal", c_void_p)]


_api.PyObject_GetBuffer.restype = c_int
_api.PyObject_GetBuffer.argtypes = [py_object, POINTER(_PyBuffer), c_int]
_api.PyBuffer_Release.restype = None
_api.PyBuffer_Release.argtypes = [POINTER(_PyBuffer)]
_PyBUF_WRITABLE = 0x0001
_PyBUF_FORMAT = 0x0004
_PyBUF_ND = 0x0008      # with FORMAT (a memoryview wants both); C-contiguous


def _holds_objects(fmt: Optional[bytes]) -> bool:
    """Whether a buffer of struct format @fmt holds Python object pointers
    ('O', also inside a structure: "T{<i:a:O:b:}"; field names, between
    colons, are not codes)."""
    if not fmt:
        return False
    return "O" in re.sub(r":[^:]*:", "", fmt.decode("ascii", "replace"))


class ObjectBufferError(TypeError):
    """A buffer of Python objects offered for a transfer (HostBuffer)."""


class HostBuffer:
    """A host buffer held through the buffer protocol (contiguous bytes):
    ``with HostBuffer(obj, writable) as (address, nbytes): ...``.

    A buffer of Python objects (a NumPy array of dtype object, a structured
    one with an object field, a ctypes structure with a py_object) is
    TypeError: the card would write object pointers (a crash at their next
    use) or read them (addresses, not data)."""

    def __init__(self, obj: Any, writable: bool, function: str) -> None:
        self._view: Optional[_PyBuffer] = _PyBuffer()
        flags = (_PyBUF_WRITABLE if writable else 0) | _PyBUF_FORMAT | \
            _PyBUF_ND
        try:
            _api.PyObject_GetBuffer(obj, ctypes.byref(self._view), flags)
        except (BufferError, ValueError) as e:
            self._view = None
            what = "writable contiguous" if writable else "contiguous"
            fail(22, f"{type(obj).__name__} is not a {what} buffer: {e}",
                 function)
        except TypeError:
            self._view = None
            raise TypeError(f"{function}: {type(obj).__name__} does not "
                            "support the buffer protocol") from None
        if _holds_objects(self._view.format):
            fmt = (self._view.format or b"").decode("ascii", "replace")
            self.release()
            raise ObjectBufferError(
                f"{function}: {type(obj).__name__} holds Python objects "
                f"(buffer format {fmt!r}): the card moves the bytes of "
                "plain data only (integers, floats)")
        self.address: int = self._view.buf or 0
        self.nbytes: int = self._view.len

    def release(self) -> None:
        if self._view is not None:
            _api.PyBuffer_Release(ctypes.byref(self._view))
            self._view = None

    def __enter__(self) -> Tuple[int, int]:
        return self.address, self.nbytes

    def __exit__(self, *exc: Any) -> None:
        self.release()


def _itemsize(typestr: str) -> int:
    return int(typestr[2:])


def _c_contiguous(shape: Tuple[int, ...], strides: Optional[Tuple[int, ...]],
                  itemsize: int) -> bool:
    if strides is None:
        return True
    expect = itemsize
    for n, s in zip(reversed(shape), reversed(strides)):
        if n != 1 and s != expect:
            return False
        expect *= n
    return True


class DeviceMemory:
    """Where an object's memory is: @address, @nbytes, @device (DLDeviceType,
    id; KDL_CUDA for CUDA device memory), @source (how it was found)."""

    def __init__(self, address: int, nbytes: int, device: Tuple[int, int],
                 source: str, obj: Any) -> None:
        self.address = address
        self.nbytes = nbytes
        self.device = device
        self.source = source
        self.obj = obj      # keeps the memory alive

    def __repr__(self) -> str:
        return (f"DeviceMemory(address={self.address:#x}, nbytes={self.nbytes},"
                f" device={self.device}, source={self.source!r})")


def device_memory(obj: Any, function: str) -> Optional[DeviceMemory]:
    """The memory of an object that exports __cuda_array_interface__ or
    __dlpack__ (a torch tensor, a CuPy array, a library buffer), or None for
    an object that exports neither.  Non-contiguous memory is EINVAL."""
    cai = getattr(obj, "__cuda_array_interface__", None)
    if cai is not None:
        ptr = int(cai["data"][0])
        shape = tuple(int(n) for n in cai["shape"])
        isz = _itemsize(cai["typestr"])
        strides = cai.get("strides")
        if not _c_contiguous(shape, strides and tuple(strides), isz):
            fail(22, f"{type(obj).__name__} is not contiguous (shape {shape}, "
                 f"strides {strides}): pin a contiguous one (.contiguous())",
                 function)
        n = isz
        for d in shape:
            n *= d
        return DeviceMemory(ptr, n, (KDL_CUDA, _cai_device(obj)),
                            "__cuda_array_interface__", obj)
    if not hasattr(obj, "__dlpack__"):
        return None
    cap = obj.__dlpack__()
    name = _api.PyCapsule_GetName(cap)
    if name != _NAME:
        fail(22, f"{type(obj).__name__}.__dlpack__() gave a capsule named "
             f"{name!r}, not 'dltensor'", function)
    mt = DLManagedTensor.from_address(_api.PyCapsule_GetPointer(cap, _NAME))
    t = mt.dl_tensor
    shape = tuple(t.shape[i] for i in range(t.ndim))
    isz = (t.dtype.bits * t.dtype.lanes + 7) // 8
    strides = (tuple(t.strides[i] * isz for i in range(t.ndim))
               if t.strides else None)
    if not _c_contiguous(shape, strides, isz):
        fail(22, f"{type(obj).__name__} is not contiguous (shape {shape}): "
             "pin a contiguous one", function)
    n = isz
    for d in shape:
        n *= d
    mem = DeviceMemory((t.data or 0) + t.byte_offset, n,
                       (t.device.device_type, t.device.device_id),
                       "__dlpack__", obj)
    del t, mt, cap      # unconsumed: its destructor runs the deleter
    return mem


def _cai_device(obj: Any) -> int:
    dev = getattr(obj, "device", None)
    idx = getattr(dev, "index", None)        # torch.device
    if idx is None:
        idx = getattr(dev, "id", None)       # cupy.cuda.Device
    return int(idx) if idx is not None else 0


__all__ = ["export", "device_memory", "HostBuffer", "DeviceMemory",
           "KDL_CPU", "KDL_CUDA", "KDL_CUDA_HOST", "live_exports"]
