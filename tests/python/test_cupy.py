# SPDX-License-Identifier: MIT
"""CuPy on a real CUDA GPU (tests/python/h200.sh); skipped elsewhere."""
import gc

import numpy as np
import pytest

import hellofpga
from hellofpga import pattern
from helpers import src_start, wait_on_gpu_in_window

cp = pytest.importorskip("cupy")
TMO = 5000
# a ring's buffers must each be contiguous in bus addresses: start rings on
# a large GPU page (examples/python/frame_loop_torch.py)
RING_ALIGN = 2 << 20


@pytest.fixture(autouse=True)
def _cuda():
    try:
        if cp.cuda.runtime.getDeviceCount() < 1:
            pytest.skip("no CUDA device")
    except Exception as e:      # no driver
        pytest.skip(f"no CUDA: {e}")
    st = hellofpga.gpu_status()
    if st.emulated or not st.supported:
        pytest.skip(f"not a real GPU with GPU Direct: {st.reason}")


def aligned_array(nbytes, alignment=hellofpga.GPU_ALIGN):
    big = cp.empty(nbytes + alignment, dtype=cp.uint8)
    off = hellofpga.align_offset(big, alignment)
    return big[off:off + nbytes]


def test_gpu_buffer_is_a_cupy_array_with_no_copy():
    buf = hellofpga.gpu_alloc(1 << 20)
    a = cp.from_dlpack(buf)
    assert a.data.ptr == buf.ptr and a.nbytes == buf.size
    b = cp.asarray(buf)             # through __cuda_array_interface__
    assert b.data.ptr == buf.ptr
    del a, b
    gc.collect()
    buf.free()


def test_pin_a_cupy_array_and_read_into_it(card):
    a = aligned_array(1 << 20)
    data = np.random.default_rng(5).integers(0, 256, 1 << 20, dtype=np.uint8)
    card.write_h2c(data, 0)
    with card.pin(a) as p:
        assert p.address == a.data.ptr
        p.read_c2h(0)
    assert bool((a == cp.asarray(data)).all())


def test_frame_lands_in_a_cupy_array_with_no_copy(st_card):
    ring = aligned_array(4 * (64 << 10), RING_ALIGN)
    with st_card.pin(ring) as p, \
            st_card.open_stream(buffers=4, buffer_size=64 << 10, pin=p) as s:
        src_start(st_card, 65536, 20)
        for i in range(20):
            f = s.wait(TMO)
            x = cp.from_dlpack(f)
            assert x.data.ptr == ring.data.ptr + f.gpu_offset
            assert bool((x == cp.asarray(pattern.make(i, f.length))).all())
            del x
            f.release()


def test_frame_after_a_gpu_side_wait_on_a_cupy_stream(st_card):
    n, size = 20, 64 << 10
    ring = aligned_array(4 * size, RING_ALIGN)
    side = cp.cuda.Stream(non_blocking=True)
    want = [cp.asarray(pattern.make(i, size)) for i in range(n)]
    cp.cuda.runtime.deviceSynchronize()
    oks = []
    with st_card.pin(ring) as p, \
            st_card.open_stream(buffers=4, buffer_size=size, pin=p) as s:
        src_start(st_card, size, n)
        for i in range(n):
            w = wait_on_gpu_in_window(s, side)      # the GPU waits
            assert w.sequence == i
            x = ring[w.gpu_offset:w.gpu_offset + size]
            assert x.data.ptr == ring.data.ptr + w.gpu_offset == w.address
            with side:
                oks.append((x == want[i]).all())
            f = s.wait(TMO)
            s.release_on_gpu(side, f)
        side.synchronize()
        assert [bool(ok) for ok in oks] == [True] * n
        assert s.stats().held == 0


def test_cupy_stream_handle():
    s = cp.cuda.Stream()
    assert hellofpga.cuda_stream_handle(s) == s.ptr != 0
