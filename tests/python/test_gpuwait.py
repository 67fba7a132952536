# SPDX-License-Identifier: MIT
"""GPU-side completion (Stream.wait_on_gpu, Stream.release_on_gpu,
GPUStream) on emu:N,st and the emulated GPU, whose streams are threads
that run their work in order: a host function queued after a wait is the
consumer "kernel" (tests/lib/test_gpuwait.c does the same in C).  On the
GPU machine (HF_PY_GPU=cuda) the same cases run on CUDA streams."""
import ctypes
import errno
import gc
import threading
import weakref

import pytest

import hellofpga
from hellofpga import _capi, pattern
from helpers import src_start, wait_on_gpu_in_window

TMO = 5000
SHORT = 100


@pytest.fixture
def gs(gpu):
    s = hellofpga.GPUStream()
    yield s
    s.destroy()


class Consumer:
    """A host function that records what it saw of a GPUWait's buffer."""

    def __init__(self, w, log=None, name=None):
        self.w = w
        self.ran = False
        self.result = None
        self.seq = None
        self.log = log
        self.name = name

    def __call__(self):
        r = self.w.read()
        self.result = r
        if r.completed and not r.error:
            self.seq = pattern.verify(ctypes.string_at(self.w.host, r.length))
        if self.log is not None:
            self.log.append(self.name)
        self.ran = True


def emulated():
    return hellofpga.gpu_status().emulated


def test_host_function_after_the_wait_runs_only_once_the_frame_landed(
        st_card, gs):
    log = []
    with st_card.open_stream(buffers=4, buffer_size=4096) as s:
        w = s.wait_on_gpu(gs)
        assert (w.index, w.sequence) == (0, 0) and w.host
        c = Consumer(w, log, "consumer")
        gs.launch_host_func(c)
        with pytest.raises(hellofpga.HelloFPGAError) as ei:
            gs.synchronize(SHORT)
        assert ei.value.name == "ETIMEDOUT"
        assert not c.ran and w.read().status == 0
        log.append("card")
        src_start(st_card, 1000, 1)
        gs.synchronize(TMO)
        assert log == ["card", "consumer"]
        assert c.result.completed and c.result.eop and not c.result.error
        assert c.result.length == 1000 and w.check() == 1000
        assert c.seq == 0                     # the frame's own bytes
        assert w.status_view[1] == 1000
        assert w.status_view[0] & hellofpga.STREAM_WB_MAGIC_MASK == \
            hellofpga.STREAM_WB_MAGIC
        # the CPU takes it after the GPU saw it: the same buffer
        f = s.wait(TMO)
        assert (f.index, f.sequence, f.host) == (w.index, 0, w.host)
        f.release()


def test_stale_writeback_of_the_last_round_does_not_satisfy(st_card, gs):
    with st_card.open_stream(buffers=2, buffer_size=4096) as s:
        src_start(st_card, 4096, 2)
        for _ in range(2):
            s.wait(TMO).release()
        w = s.wait_on_gpu(gs)              # sequence 2: buffer 0 again
        assert (w.sequence, w.index) == (2, 0)
        c = Consumer(w)
        gs.launch_host_func(c)
        with pytest.raises(hellofpga.HelloFPGAError):
            gs.synchronize(SHORT)
        assert not c.ran
        src_start(st_card, 4096, 1)         # its frames count from 0 again
        gs.synchronize(TMO)
        assert c.ran and c.result.completed and not c.result.error
        assert c.seq == 0 and c.result.length == 4096


def test_next_sequence_follows_the_cpu_and_the_gpu_waits(st_card, gs):
    with st_card.open_stream(buffers=4, buffer_size=4096) as s:
        assert s.next_sequence == 0
        assert s.wait_on_gpu(gs).sequence == 0
        assert s.wait_on_gpu(gs).sequence == 1
        assert s.wait_on_gpu(gs, sequence=0).sequence == 0   # again: allowed
        assert s.next_sequence == 2
        src_start(st_card, 4096, 3)
        fs = [s.wait(TMO) for _ in range(3)]    # the CPU took 0..2
        assert s.next_sequence == 3
        gs.synchronize(TMO)     # the GPU passed its waits before the releases
        w = s.wait_on_gpu(gs)
        assert (w.sequence, w.index) == (3, 3)
        gs.launch_host_func(lambda: None)
        for f in fs:
            f.release()
        src_start(st_card, 4096, 1)
        gs.synchronize(TMO)
        assert w.check() == 4096


def test_stream_close_marks_the_slot_and_the_waiting_gpu_goes_on(st_card, gs):
    s = st_card.open_stream(buffers=4, buffer_size=4096)
    w = s.wait_on_gpu(gs)
    c = Consumer(w)
    gs.launch_host_func(c)
    s.close()                           # no frame ever came
    gs.synchronize(TMO)
    assert c.ran and c.result.completed and c.result.error
    assert c.result.status == hellofpga.STREAM_WB_MAGIC | \
        hellofpga.STREAM_WB_ERROR
    assert w.read().length == 0
    with pytest.raises(hellofpga.HelloFPGAError) as ei:
        w.check()
    assert ei.value.name == "ENODATA" and "stream stopped" in ei.value.text


def test_check_before_the_gpu_passed_is_eagain(st_card, gs):
    with st_card.open_stream(buffers=4, buffer_size=4096) as s:
        w = s.wait_on_gpu(gs)
        with pytest.raises(hellofpga.HelloFPGAError) as ei:
            w.check()
        assert ei.value.name == "EAGAIN"
        assert not w.read().completed


def test_release_on_gpu_gives_the_buffer_back_only_when_the_stream_gets_there(
        st_card, gs):
    gate = threading.Event()
    with st_card.open_stream(buffers=2, buffer_size=4096) as s:
        src_start(st_card, 4096, 3)
        f0, f1 = s.wait(TMO), s.wait(TMO)
        gs.launch_host_func(gate.wait, 10)      # a "kernel" still running
        s.release_on_gpu(gs, f0)
        assert f0.released and f0 not in s.held
        with pytest.raises(hellofpga.HelloFPGAError) as ei:
            s.release(f0.index)             # the GPU's to give back now
        assert ei.value.name == "EINVAL"
        with pytest.raises(hellofpga.HelloFPGAError):
            s.wait(SHORT)                   # the card has no free buffer
        assert s.stats().held == 2
        gate.set()
        n = s.wait(TMO)                     # a blocked wait sees the doorbell
        assert (n.sequence, n.index) == (2, f0.index)
        assert pattern.verify(n.tobytes()) == 2
        f1.release()
        n.release()
        gs.synchronize(TMO)


def test_release_on_gpu_of_a_viewed_frame_is_ebusy(st_card, gs):
    with st_card.open_stream(buffers=2, buffer_size=4096) as s:
        src_start(st_card, 4096, 1)
        f = s.wait(TMO)
        v = f.numpy()
        with pytest.raises(hellofpga.HelloFPGAError) as ei:
            s.release_on_gpu(gs, f)
        assert ei.value.name == "EBUSY" and not f.released
        del v
        gc.collect()
        s.release_on_gpu(gs, f.index)       # by index too
        assert f.released
        gs.synchronize(TMO)
        assert s.stats().held == 0


def test_bad_arguments_raise_named_errors(st_card, gs):
    with st_card.open_stream(buffers=4, buffer_size=4096) as s:
        with pytest.raises(hellofpga.HelloFPGAError) as ei:
            s.wait_on_gpu(gs, sequence=4)   # a whole ring ahead
        assert ei.value.name == "ERANGE" and "whole ring" in ei.value.text
        with pytest.raises(hellofpga.HelloFPGAError) as ei:
            s.wait_on_gpu(gs, sequence=-1)
        assert ei.value.name == "ERANGE"
        with pytest.raises(hellofpga.HelloFPGAError) as ei:
            s.release_on_gpu(gs, 0)         # not held
        assert ei.value.name == "EINVAL"
        with pytest.raises(TypeError):
            s.wait_on_gpu("stream 0")
        if emulated():
            for bad in (None, 0x777):       # not the emulated GPU's streams
                with pytest.raises(hellofpga.HelloFPGAError) as ei:
                    s.wait_on_gpu(bad)
                assert ei.value.name == "EINVAL"
        with pytest.raises(hellofpga.HelloFPGAError) as ei:
            gs.synchronize(3600001)
        assert ei.value.name == "EINVAL"
    with pytest.raises(hellofpga.HelloFPGAError) as ei:
        s.wait_on_gpu(gs)                   # the stream is closed
    assert ei.value.name == "EBADF"
    g = hellofpga.GPUStream()
    g.destroy()
    g.destroy()
    with pytest.raises(hellofpga.HelloFPGAError) as ei:
        g.launch_host_func(print)
    assert ei.value.name == "EBADF"
    with pytest.raises(TypeError):
        gs.launch_host_func(42)


def test_host_function_that_raises_is_reported_at_synchronize(gs):
    ran = []
    gs.launch_host_func(ran.append, 1)
    gs.launch_host_func(lambda: 1 / 0)
    gs.launch_host_func(ran.append, 2)      # the stream goes on
    with pytest.raises(ZeroDivisionError):
        gs.synchronize(TMO)
    assert ran == [1, 2]
    gs.synchronize(TMO)                     # raised once
    gs.launch_host_func(lambda: [][1])
    gs.launch_host_func(lambda: {}["k"])
    with pytest.raises(IndexError) as ei:
        gs.synchronize(TMO)
    assert "1 more" in "".join(getattr(ei.value, "__notes__", ["1 more"]))


def test_host_function_of_a_destroyed_stream_that_raises_is_printed(gpu,
                                                                  capfd):
    g = hellofpga.GPUStream()
    gate = threading.Event()
    printed = threading.Event()

    def boom():
        raise RuntimeError("raised in a host function")
    g.launch_host_func(gate.wait, 60)
    g.launch_host_func(boom)
    # a stream runs its work in order, each item once the one before
    # returned: this one runs after boom's exception was printed
    g.launch_host_func(printed.set)
    g.destroy()                              # the work still runs
    gate.set()
    assert printed.wait(60)
    err = capfd.readouterr().err
    assert "destroyed GPUStream" in err and "RuntimeError" in err
    assert "raised in a host function" in err


def test_host_function_is_kept_alive_until_it_ran(gs):
    gate = threading.Event()

    class Fn:
        called = False

        def __call__(self):
            Fn.called = True
    fn = Fn()
    ref = weakref.ref(fn)
    gs.launch_host_func(gate.wait, 10)
    gs.launch_host_func(fn)
    del fn
    gc.collect()
    assert ref() is not None and not Fn.called
    gate.set()
    gs.synchronize(TMO)
    gc.collect()
    assert Fn.called and ref() is None


def test_library_without_gpu_side_completion_is_eopnotsupp(st_card,
                                                           monkeypatch):
    for name in list(_capi.OPTIONAL):
        monkeypatch.setitem(_capi.OPTIONAL, name, None)
    assert not hellofpga.has_wait_on_gpu()
    with st_card.open_stream(buffers=2, buffer_size=4096) as s:
        for call in (lambda: s.wait_on_gpu(None),
                     lambda: s.release_on_gpu(None, 0),
                     hellofpga.GPUStream):
            with pytest.raises(hellofpga.HelloFPGAError) as ei:
                call()
            assert ei.value.errno == errno.EOPNOTSUPP
            assert ei.value.name == "EOPNOTSUPP"
            assert "HELLOFPGA_1.3" in ei.value.text
            assert "Stream.wait()" in ei.value.text


def test_pipeline_of_frames_with_gpu_waits_and_gpu_releases(st_card, gs):
    """The frame loop: waits queued ahead, a consumer after each, every
    buffer given back by the GPU stream; the CPU only takes buffers."""
    n, ring = 200, 8
    cons = {}
    with st_card.open_stream(buffers=ring, buffer_size=4096) as s:
        src_start(st_card, 4000, n)
        queued = 0
        for k in range(n):
            while queued < n and queued < k + ring // 2:
                w = wait_on_gpu_in_window(s, gs)
                cons[w.sequence] = Consumer(w)
                gs.launch_host_func(cons[w.sequence])
                queued += 1
            f = s.wait(TMO)
            assert f.sequence == k
            s.release_on_gpu(gs, f)
        gs.synchronize(TMO)
        assert [cons[k].seq for k in range(n)] == list(range(n))
        assert s.stats().held == 0
