# SPDX-License-Identifier: MIT
"""Buffers the library allocates, exported through DLPack with no copy."""
import errno
import gc

import numpy as np
import pytest

import hellofpga
from hellofpga import _dlpack


def ptr(a):
    return a.__array_interface__["data"][0]


def test_numpy_has_from_dlpack():
    # Debian 12's NumPy 1.24 has it (1.22+), taking DLPack 0.x capsules
    assert hasattr(np, "from_dlpack")


def test_gpu_buffer_of_the_emulated_gpu_is_a_cpu_dlpack_device(gpu):
    if not gpu.emulated:
        pytest.skip("a real GPU")
    with hellofpga.gpu_alloc(1 << 16) as b:
        assert b.__dlpack_device__() == (hellofpga.KDL_CPU, 0)


def test_numpy_views_a_gpu_buffer_with_no_copy(gpu):
    if not gpu.emulated:
        pytest.skip("device memory is not host memory")
    b = hellofpga.gpu_alloc(1 << 20)
    a = np.from_dlpack(b)
    assert ptr(a) == b.ptr and a.nbytes == b.size and a.dtype == np.uint8
    del a
    a = b.numpy()           # writable (from_dlpack's is read-only in 1.24)
    assert ptr(a) == b.ptr
    a[:4] = [1, 2, 3, 4]
    out = bytearray(4)
    b.copy_to_host(out)
    assert out == b"\x01\x02\x03\x04"
    del a
    gc.collect()
    b.free()


def test_view_keeps_the_buffer_and_free_is_ebusy(gpu):
    if not gpu.emulated:
        pytest.skip("device memory is not host memory")
    b = hellofpga.gpu_alloc(1 << 16)
    a = b.numpy()
    assert b.exports == 1
    with pytest.raises(hellofpga.HelloFPGAError) as ei:
        b.free()
    assert ei.value.errno == errno.EBUSY and "alive" in ei.value.text
    p = b.ptr
    del b                   # the view holds it
    gc.collect()
    a[:] = 7                # still mapped
    assert ptr(a) == p
    del a
    gc.collect()
    assert _dlpack.live_exports() == 0


def test_slices_of_the_view_keep_it(gpu):
    if not gpu.emulated:
        pytest.skip("device memory is not host memory")
    b = hellofpga.gpu_alloc(1 << 16)
    s = b.numpy()[100:200]
    gc.collect()
    assert b.exports == 1
    del s
    gc.collect()
    assert b.exports == 0
    b.free()


def test_capsule_never_consumed_is_deleted(gpu):
    b = hellofpga.gpu_alloc(1 << 16)
    n = _dlpack.live_exports()
    cap = b.__dlpack__()
    assert b.exports == 1 and _dlpack.live_exports() == n + 1
    del cap
    gc.collect()
    assert b.exports == 0 and _dlpack.live_exports() == n
    b.free()


def test_dtype_of_the_export(gpu):
    if not gpu.emulated:
        pytest.skip("device memory is not host memory")
    b = hellofpga.gpu_alloc(1 << 16, dtype="float32")
    a = np.from_dlpack(b)
    assert a.dtype == np.float32 and a.size == (1 << 14)
    del a
    gc.collect()
    b.free()


def test_reading_the_pointer_of_a_dlpack_producer():
    # numpy exports DLPack too: the import side reads it without consuming
    a = np.arange(4096, dtype=np.uint16)
    m = _dlpack.device_memory(a, "test")
    assert m.address == ptr(a) and m.nbytes == a.nbytes
    assert m.device == (hellofpga.KDL_CPU, 0) and m.source == "__dlpack__"


def test_cuda_array_interface_is_read():
    class FakeCuda:
        __cuda_array_interface__ = {"data": (0x10000, False), "shape": (64, 64),
                                    "typestr": "<f4", "version": 3,
                                    "strides": None}
    m = _dlpack.device_memory(FakeCuda(), "test")
    assert (m.address, m.nbytes, m.device) == (0x10000, 64 * 64 * 4,
                                               (hellofpga.KDL_CUDA, 0))


def test_non_contiguous_cuda_array_is_einval():
    class FakeCuda:
        __cuda_array_interface__ = {"data": (0x10000, False), "shape": (64, 64),
                                    "typestr": "<f4", "version": 3,
                                    "strides": (512, 4)}
    with pytest.raises(hellofpga.HelloFPGAError) as ei:
        _dlpack.device_memory(FakeCuda(), "test")
    assert ei.value.errno == errno.EINVAL and "contiguous" in ei.value.text


def test_cuda_stream_handles():
    class TorchLike:
        cuda_stream = 0x1234

    class CupyLike:
        ptr = 0x5678

    class Proto:
        def __cuda_stream__(self):
            return (0, 0x9abc)
    assert hellofpga.cuda_stream_handle(None) == 0
    assert hellofpga.cuda_stream_handle(42) == 42
    assert hellofpga.cuda_stream_handle(TorchLike()) == 0x1234
    assert hellofpga.cuda_stream_handle(CupyLike()) == 0x5678
    assert hellofpga.cuda_stream_handle(Proto()) == 0x9abc
    with pytest.raises(TypeError):
        hellofpga.cuda_stream_handle("stream")
