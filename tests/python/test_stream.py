# SPDX-License-Identifier: MIT
"""C2H AXI-Stream rings on emu:N,st, every frame verified against the
reference design's pattern (docs/xdma-model.md "Frames")."""
import errno
import gc
import mmap
import os
import time

import numpy as np
import pytest

import hellofpga
from hellofpga import pattern, regs
from conftest import ST_CARD
from helpers import child_ok, run_child, src_start

TMO = 5000


def test_pattern_matches_the_c_header():
    # the header's frame of sequence 0: header words, then the hash
    f = pattern.make(0, 32)
    assert bytes(f[:16]) == (b"\0" * 8 + (32).to_bytes(4, "little") +
                             pattern.MAGIC.to_bytes(4, "little"))
    assert pattern.verify(f) == 0
    f[20] ^= 1
    with pytest.raises(ValueError, match="byte 20"):
        pattern.verify(f)


def test_host_ring_frames_verified_with_no_copy(st_card):
    with st_card.open_stream(buffers=8, buffer_size=64 << 10) as s:
        src_start(st_card, 60000, 200)
        for i, f in enumerate(s.frames(200, TMO)):
            assert f.eop and f.length == 60000 and f.frame == i
            a = f.numpy()
            assert a.__array_interface__["data"][0] == f.host
            assert pattern.verify(a) == i
            del a
        st = s.stats()
        assert st.frames == 200 and st.source_sent == 200


def test_numpy_from_dlpack_views_a_frame(st_card):
    with st_card.open_stream(buffers=4, buffer_size=4096) as s:
        src_start(st_card, 4096, 1)
        f = s.wait(TMO)
        a = np.from_dlpack(f)
        assert a.__array_interface__["data"][0] == f.address == f.host
        assert f.__dlpack_device__() == (hellofpga.KDL_CPU, 0)
        assert pattern.verify(a) == 0
        del a
        gc.collect()
        f.release()


def test_frames_longer_than_a_buffer_span_buffers(st_card):
    with st_card.open_stream(buffers=8, buffer_size=4096) as s:
        src_start(st_card, 10000, 20)
        got = bytearray()
        seqs = []
        while len(seqs) < 20:
            with s.wait(TMO) as f:
                got += f.tobytes()
                if f.eop:
                    seqs.append(pattern.verify(bytes(got)))
                    got = bytearray()
        assert seqs == list(range(20))


def test_timeout_is_etimedout_and_the_stream_goes_on(st_card):
    with st_card.open_stream(buffers=4, buffer_size=4096) as s:
        with pytest.raises(hellofpga.HelloFPGAError) as ei:
            s.wait(10)
        assert ei.value.errno == errno.ETIMEDOUT
        assert s.poll() is None
        src_start(st_card, 100, 1)
        f = s.wait(TMO)
        assert pattern.verify(f.tobytes()) == 0
        f.release()


def test_release_while_viewed_is_ebusy_or_deferred(st_card):
    with st_card.open_stream(buffers=4, buffer_size=4096) as s:
        src_start(st_card, 4096, 2)
        f = s.wait(TMO)
        v = f.numpy()
        with pytest.raises(hellofpga.HelloFPGAError) as ei:
            f.release()
        assert ei.value.errno == errno.EBUSY and "release(deferred" in ei.value.text
        f.release(deferred=True)
        assert not f.released and s.stats().held == 1
        del v
        gc.collect()
        assert f.released and s.stats().held == 0


def test_close_while_a_host_ring_is_viewed_is_ebusy(st_card):
    s = st_card.open_stream(buffers=4, buffer_size=4096)
    src_start(st_card, 4096, 1)
    f = s.wait(TMO)
    v = f.numpy()
    with pytest.raises(hellofpga.HelloFPGAError) as ei:
        s.close()
    assert ei.value.errno == errno.EBUSY
    with pytest.raises(hellofpga.HelloFPGAError):
        st_card.close()         # the card refuses too: it would free it
    assert not st_card.closed
    del v
    gc.collect()
    s.close()
    assert f.released


@pytest.mark.parametrize("view", ["numpy.from_dlpack", "Frame.numpy"])
def test_view_of_a_host_ring_keeps_the_callers_buffer_after_close(view):
    # a host= ring is the caller's memory: close() stops the card and lets
    # go of the buffer only when the last view of a frame in it goes, so
    # the caller's mmap cannot close under a view (reading it would fault)
    p = run_child(f"""
import gc, mmap
import numpy as np
import hellofpga
from conftest import ST_CARD
from helpers import child_ok, run_child, src_start
c = hellofpga.Card({ST_CARD!r})
m = mmap.mmap(-1, 4 * 8192)
s = c.open_stream(buffers=4, buffer_size=8192, host=m)
src_start(c, 8000, 1)
f = s.wait({TMO})
a = np.from_dlpack(f) if {view!r} == "numpy.from_dlpack" else f.numpy()
first = bytes(a[:64])
s.close()
try:
    m.close()
    print("closed under a view")
except BufferError:
    print("held")
assert bytes(a[:64]) == first
del a, f
gc.collect()
m.close()
print("let go")
c.close()
""")
    child_ok(p, "held\nlet go\n")


def test_host_ring_without_views_is_let_go_at_close(st_card):
    m = mmap.mmap(-1, 4 * 8192)
    s = st_card.open_stream(buffers=4, buffer_size=8192, host=m)
    src_start(st_card, 8000, 1)
    s.wait(TMO).release()
    s.close()
    m.close()                   # no BufferError: nothing holds it


@pytest.mark.parametrize("view", ["capsule", "numpy.from_dlpack"])
def test_gpu_buffer_of_a_ring_is_not_freed_under_a_frame_view(st_card, gpu,
                                                              view):
    buf = hellofpga.gpu_alloc(1 << 20)
    p = st_card.pin(buf)
    s = st_card.open_stream(buffers=4, buffer_size=4096, pin=p)
    src_start(st_card, 4096, 1)
    f = s.wait(TMO)
    if view == "capsule":       # any DLPack consumer holds one (any device)
        v = f.__dlpack__()
    elif f.device[0] == hellofpga.KDL_CPU:
        v = np.from_dlpack(f)
    else:
        pytest.skip("GPU ring in device memory: NumPy cannot view it")
    s.close()
    p.unpin()
    with pytest.raises(hellofpga.HelloFPGAError) as ei:
        buf.free()              # the next gpu_alloc would reuse it
    assert ei.value.errno == errno.EBUSY and "stream frames" in ei.value.text
    assert not buf.freed and buf.exports == 1
    del v
    gc.collect()
    assert buf.exports == 0
    buf.free()
    assert buf.freed


def test_released_frame_exports_nothing(st_card):
    with st_card.open_stream(buffers=4, buffer_size=4096) as s:
        src_start(st_card, 4096, 1)
        f = s.wait(TMO)
        f.release()
        with pytest.raises(BufferError):
            f.__dlpack__()


def test_ring_in_callers_host_memory(st_card):
    m = mmap.mmap(-1, 4 * 8192)         # page aligned
    ring = np.frombuffer(m, dtype=np.uint8)
    base = ring.__array_interface__["data"][0]
    with st_card.open_stream(buffers=4, buffer_size=8192, host=ring) as s:
        src_start(st_card, 8000, 12)
        for i, f in enumerate(s.frames(12, TMO)):
            assert f.host == base + (i % 4) * 8192
            assert pattern.verify(ring[f.host - base:][:f.length]) == i
    del ring
    m.close()


def test_gpu_ring_in_a_pin(st_card, gpu):
    size = 1 << 20
    buf = hellofpga.gpu_alloc(size)
    with st_card.pin(buf) as p:
        with st_card.open_stream(buffers=8, buffer_size=64 << 10, pin=p,
                                 gpu_offset=256 << 10) as s:
            src_start(st_card, 60000, 40)
            for i in range(40):
                f = s.wait(TMO)
                assert f.host is None
                assert f.gpu_offset == (256 << 10) + (i % 8) * (64 << 10)
                assert f.address == buf.ptr + f.gpu_offset
                assert pattern.verify(f.tobytes()) == i
                f.release()
    buf.free()


def test_stream_on_a_memory_mapped_card_is_eopnotsupp(card):
    with pytest.raises(hellofpga.HelloFPGAError) as ei:
        card.open_stream(buffers=4, buffer_size=4096)
    assert ei.value.name == "EOPNOTSUPP"


def test_bad_buffer_size_is_einval_with_text(st_card):
    with pytest.raises(hellofpga.HelloFPGAError) as ei:
        st_card.open_stream(buffers=4, buffer_size=4000)
    assert ei.value.errno == errno.EINVAL and "4096" in ei.value.text


def test_second_stream_on_a_channel_is_ebusy(st_card):
    with st_card.open_stream(buffers=2, buffer_size=4096):
        with pytest.raises(hellofpga.HelloFPGAError) as ei:
            st_card.open_stream(buffers=2, buffer_size=4096)
        assert ei.value.errno == errno.EBUSY


def test_closed_stream_is_ebadf(st_card):
    s = st_card.open_stream(buffers=2, buffer_size=4096)
    s.close()
    s.close()
    with pytest.raises(hellofpga.HelloFPGAError) as ei:
        s.wait(0)
    assert ei.value.errno == errno.EBADF


def test_card_close_closes_its_streams():
    from conftest import ST_CARD
    c = hellofpga.Card(ST_CARD)
    s = c.open_stream(buffers=2, buffer_size=4096)
    c.close()
    assert s.closed


def test_stream_in_a_forked_child_is_echild(st_card):
    s = st_card.open_stream(buffers=2, buffer_size=4096)
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            s.wait(0)
        except hellofpga.HelloFPGAError as e:
            code = 0 if e.errno == errno.ECHILD else 2
        except BaseException:
            code = 3
        os.write(w, bytes([code]))
        os._exit(0)
    os.close(w)
    got = os.read(r, 1)
    os.waitpid(pid, 0)
    assert got == b"\0"
    s.close()


def test_dropped_frames_are_counted(st_card):
    # What is promised (include/hellofpga.h HELLOFPGA_FRAME.dropped,
    # docs/xdma-model.md "Pace"): each of the source's COUNT frames is sent
    # or dropped; a frame's `dropped` is the source's DROPPED counter's
    # growth since the previous frame handed out, read when Stream.wait()
    # hands it out.  So the drops seen through frames never exceed
    # stats().source_dropped, and equal it once a frame was handed out
    # after the last drop; drops after the last frame reach none.
    n = 50
    with st_card.open_stream(buffers=2, buffer_size=4096) as s:
        src_start(st_card, 4096, n, 20000, regs.ST_SRC_CTRL_DROP)
        f = s.wait(TMO)         # hold one of the 2 buffers: frames drop
        seen = f.dropped
        # hold it until the source generated all n (each sent or dropped:
        # SEQ counts both), so that no frame drops after this point
        deadline = time.monotonic() + 60
        while st_card.user_read32(regs.ST_SRC(0) + regs.ST_SRC_SEQ_LO) < n:
            assert time.monotonic() < deadline, "the source never finished"
            time.sleep(0.001)
        f.release()
        got = 0
        while True:             # drain: until the source is DONE, ring empty
            g = s.poll()
            if g is None:
                st = st_card.user_read32(regs.ST_SRC(0) + regs.ST_SRC_STATUS)
                if st & regs.ST_SRC_STS_DONE:
                    g = s.poll()
                    if g is None:
                        break
                else:
                    assert time.monotonic() < deadline, "never drained"
                    time.sleep(0.001)
                    continue
            seen += g.dropped
            got += 1
            assert seen <= s.stats().source_dropped
            pattern.verify(g.tobytes())
            g.release()
        st = s.stats()
        assert got >= 1                 # a frame came after the last drop
        assert st.source_sent + st.source_dropped == n
        assert st.source_dropped > 0
        assert seen == st.source_dropped


def test_release_from_another_thread_while_waiting(st_card):
    import queue
    import threading
    q = queue.Queue()

    def releaser():
        while True:
            f = q.get()
            if f is None:
                return
            pattern.verify(f.tobytes())
            f.release()
    th = threading.Thread(target=releaser)
    th.start()
    try:
        with st_card.open_stream(buffers=4, buffer_size=4096) as s:
            src_start(st_card, 4000, 300)
            seqs = []
            for _ in range(300):
                f = s.wait(TMO)         # the GIL is free: the releaser runs
                seqs.append(f.sequence)
                q.put(f)
            q.put(None)
            th.join(10)
            assert seqs == list(range(300))
            assert s.stats().held == 0
    finally:
        q.put(None)
        th.join(10)


def test_unpin_of_a_pin_under_a_gpu_ring_is_ebusy_and_keeps_the_pin(st_card,
                                                                    gpu):
    buf = hellofpga.gpu_alloc(1 << 20)
    p = st_card.pin(buf)
    s = st_card.open_stream(buffers=4, buffer_size=64 << 10, pin=p)
    with pytest.raises(hellofpga.HelloFPGAError) as e:
        p.unpin()
    assert e.value.errno == errno.EBUSY
    assert p.handle != 0
    s.close()
    p.unpin()
    assert p.handle == 0
    buf.free()
