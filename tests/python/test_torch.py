# SPDX-License-Identifier: MIT
"""PyTorch on a real CUDA GPU (the GPU machine: tests/python/h200.sh):
frames from the card land in torch tensors with no copy, a CUDA kernel
(a torch op) consumes them; skipped where torch or CUDA is missing."""
import gc

import numpy as np
import pytest

import hellofpga
from hellofpga import pattern
from helpers import src_start, wait_on_gpu_in_window

torch = pytest.importorskip("torch")
TMO = 5000
# a ring's buffers must each be contiguous in bus addresses: start rings on
# a large GPU page (examples/python/frame_loop_torch.py)
RING_ALIGN = 2 << 20


@pytest.fixture(autouse=True)
def _cuda():
    if not torch.cuda.is_available():
        pytest.skip("torch has no CUDA device here")
    st = hellofpga.gpu_status()
    if st.emulated or not st.supported:
        pytest.skip(f"not a real GPU with GPU Direct: {st.name} {st.reason}")


def expected(seq, length):
    return torch.from_numpy(pattern.make(seq, length)).cuda()


def aligned_tensor(nbytes, alignment=hellofpga.GPU_ALIGN):
    """A CUDA uint8 tensor of @nbytes whose start is @alignment aligned (a
    view into a slightly larger one: torch aligns blocks to 512 bytes)."""
    big = torch.empty(nbytes + alignment, dtype=torch.uint8, device="cuda")
    off = hellofpga.align_offset(big, alignment)
    t = big[off:off + nbytes]
    assert t.data_ptr() % alignment == 0
    return t


def test_gpu_buffer_is_a_torch_cuda_tensor_with_no_copy(card):
    buf = hellofpga.gpu_alloc(1 << 20)
    t = torch.from_dlpack(buf)
    assert t.is_cuda and t.data_ptr() == buf.ptr and t.numel() == buf.size
    data = np.random.default_rng(3).integers(0, 256, 1 << 20, dtype=np.uint8)
    card.write_h2c(data, 0)
    with card.pin(buf) as p:
        p.read_c2h(0)
    assert torch.equal(t, torch.from_numpy(data).cuda())   # a CUDA kernel
    with pytest.raises(hellofpga.HelloFPGAError):
        buf.free()                  # the tensor views it
    del t
    gc.collect()
    buf.free()


def test_unaligned_torch_tensor_is_einval_explained(card):
    big = torch.empty(1 << 20, dtype=torch.uint8, device="cuda")
    off = hellofpga.align_offset(big)
    t = big[off + 512:off + 512 + 65536]
    with pytest.raises(hellofpga.HelloFPGAError) as ei:
        card.pin(t)
    assert "512 bytes past a 4096-byte boundary" in ei.value.text
    assert "torch" in ei.value.text


def test_pin_a_torch_tensor_and_read_into_it(card):
    t = aligned_tensor(1 << 20)
    data = np.random.default_rng(4).integers(0, 256, 1 << 20, dtype=np.uint8)
    card.write_h2c(data, 0x100000)
    with card.pin(t) as p:
        assert p.address == t.data_ptr()
        p.read_c2h(0x100000)
    torch.cuda.synchronize()
    assert torch.equal(t, torch.from_numpy(data).cuda())


def test_frame_lands_in_a_torch_tensor_with_no_copy(st_card):
    ring = aligned_tensor(8 * (64 << 10), RING_ALIGN)
    with st_card.pin(ring) as p:
        with st_card.open_stream(buffers=8, buffer_size=64 << 10, pin=p) as s:
            src_start(st_card, 65536, 100)
            for i in range(100):
                f = s.wait(TMO)
                x = torch.from_dlpack(f)            # no copy
                assert x.is_cuda
                assert x.data_ptr() == ring.data_ptr() + f.gpu_offset
                assert x.data_ptr() == f.address
                # a CUDA kernel consumes it: compare with the pattern
                assert torch.equal(x, expected(i, f.length)), i
                del x
                f.release()


def test_torch_model_consumes_frames_after_the_cpu_wait(st_card):
    """The host-side completion path: wait() on the CPU, then launch on a
    side stream; the result is checked against the same op on the pattern."""
    ring = aligned_tensor(4 * (64 << 10), RING_ALIGN)
    side = torch.cuda.Stream()
    model = torch.nn.Linear(64, 8).cuda()
    with st_card.pin(ring) as p, \
            st_card.open_stream(buffers=4, buffer_size=64 << 10, pin=p) as s:
        src_start(st_card, 65536, 20)
        for i in range(20):
            f = s.wait(TMO)
            with torch.cuda.stream(side):
                x = torch.from_dlpack(f).view(-1, 64).float()
                y = model(x)
                ref = model(expected(i, f.length).view(-1, 64).float())
            side.synchronize()
            assert torch.allclose(y, ref, rtol=0, atol=1e-5), i
            del x
            f.release()


def test_torch_op_on_the_frame_after_a_gpu_side_wait(st_card):
    """GPU-side completion on torch.cuda.current_stream() (the legacy
    default stream: handle 0): each comparison is queued before its frame
    landed and starts when it did; the CPU only takes the buffers, and the
    GPU stream gives them back after the comparison."""
    n, size = 50, 64 << 10
    ring = aligned_tensor(8 * size, RING_ALIGN)
    cs = torch.cuda.current_stream()
    want = [expected(i, size) for i in range(n)]     # before the frames
    torch.cuda.synchronize()
    oks, waits = [], []
    with st_card.pin(ring) as p, \
            st_card.open_stream(buffers=8, buffer_size=size, pin=p) as s:
        src_start(st_card, size, n)
        for i in range(n):
            w = wait_on_gpu_in_window(s, cs)        # the GPU waits, not us
            assert w.sequence == i and w.host is None
            x = ring[w.gpu_offset:w.gpu_offset + size]
            assert x.data_ptr() == ring.data_ptr() + w.gpu_offset == w.address
            oks.append((x == want[i]).all())        # queued, not run yet
            waits.append(w)
            f = s.wait(TMO)                         # the CPU takes it
            assert (f.index, f.gpu_offset) == (w.index, w.gpu_offset)
            # the slot holds the completion until the buffer goes back
            # (release_on_gpu clears it once the GPU stream gets there, and
            # the ring reuses it 8 frames on): check it while we hold it
            assert w.check() == size
            s.release_on_gpu(cs, f)                 # after the comparison
        torch.cuda.synchronize()
        assert [bool(ok) for ok in oks] == [True] * n
        assert s.stats().held == 0


def test_torch_model_on_a_side_stream_after_a_gpu_side_wait(st_card):
    size = 64 << 10
    ring = aligned_tensor(4 * size, RING_ALIGN)
    side = torch.cuda.Stream()
    model = torch.nn.Linear(64, 8).cuda()
    refs = [model(expected(i, size).view(-1, 64).float()) for i in range(20)]
    torch.cuda.synchronize()
    with st_card.pin(ring) as p, \
            st_card.open_stream(buffers=4, buffer_size=size, pin=p) as s:
        src_start(st_card, size, 20)
        for i in range(20):
            w = wait_on_gpu_in_window(s, side)
            with torch.cuda.stream(side):
                x = ring[w.gpu_offset:w.gpu_offset + size]
                y = model(x.view(-1, 64).float())
            f = s.wait(TMO)
            s.release_on_gpu(side, f)
            side.synchronize()
            assert w.check() == size
            assert torch.allclose(y, refs[i], rtol=0, atol=1e-5), i


def test_torch_stream_handle():
    s = torch.cuda.Stream()
    assert hellofpga.cuda_stream_handle(s) == s.cuda_stream != 0
