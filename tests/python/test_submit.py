# SPDX-License-Identifier: MIT
"""GPU Direct transfers queued on a channel (Pin.submit, Submission) with
GPU-side completion and start, on the emulated card and the emulated GPU
(a host function queued after the wait is the consumer "kernel";
tests/lib/test_submit.c does the same in C).  On the GPU machine
(HF_PY_GPU=cuda) the same cases run on CUDA streams."""
import errno
import os
import threading

import numpy as np
import pytest

import hellofpga

TMO = 5000
SIZE = 1 << 20


@pytest.fixture
def gs(gpu):
    if not hellofpga.has_submit():
        pytest.skip("the loaded library has no HelloFPGA_GPUDirect_Submit")
    s = hellofpga.GPUStream()
    yield s
    s.destroy()


def test_submit_then_complete_moves_the_bytes(card, gs):
    data = os.urandom(SIZE)
    card.write_h2c(data, 0x100000)
    buf = hellofpga.gpu_alloc(SIZE)
    with card.pin(buf) as p:
        sub = p.submit(0, 0x100000, SIZE, hellofpga.Direction.C2H)
        assert sub.ticket and sub.status_dev == 0
        assert sub.complete(TMO) == SIZE
        assert sub.status and not sub.status & hellofpga.XFER_WB_ERROR
        out = bytearray(SIZE)
        buf.copy_to_host(out)
        assert out == data
    buf.free()


def test_consumer_after_wait_on_gpu_sees_the_cards_completion(card, gs):
    data = os.urandom(SIZE)
    card.write_h2c(data, 0x100000)
    buf = hellofpga.gpu_alloc(SIZE)
    seen = {}
    with card.pin(buf) as p:
        sub = p.submit(0, 0x100000, SIZE, hellofpga.Direction.C2H,
                       cuda_stream=gs, wait_on_gpu=True)
        assert sub.status_dev
        gs.launch_host_func(lambda: seen.setdefault("status", sub.status))
        gs.synchronize(TMO)
        assert seen["status"] and not seen["status"] & hellofpga.XFER_WB_ERROR
        assert sub.complete(TMO) == SIZE
        out = bytearray(SIZE)
        buf.copy_to_host(out)
        assert out == data
    buf.free()


def test_start_on_gpu_holds_the_transfer_until_the_stream_gets_there(
        card, gs):
    card.write_h2c(bytes(4096), 0x200000)
    data = os.urandom(4096)
    buf = hellofpga.gpu_alloc(SIZE)
    buf.copy_from_host(data)
    gate = threading.Event()
    with card.pin(buf) as p:
        gs.launch_host_func(gate.wait)
        sub = p.submit(0, 0x200000, 4096, hellofpga.Direction.H2C,
                       cuda_stream=gs, start_on_gpu=True)
        with pytest.raises(hellofpga.HelloFPGAError) as ei:
            sub.complete(50)
        assert ei.value.errno == errno.EAGAIN
        assert bytes(card.read_array(0x200000, 4096)) == bytes(4096)
        gate.set()
        assert sub.complete(TMO) == 4096
        assert bytes(card.read_array(0x200000, 4096)) == data
        gs.synchronize(TMO)
    buf.free()


def test_bad_arguments_raise_with_the_text(card, gs):
    buf = hellofpga.gpu_alloc(SIZE)
    with card.pin(buf) as p:
        with pytest.raises(hellofpga.HelloFPGAError) as ei:
            p.submit(0, 0, 0, hellofpga.Direction.C2H)
        assert ei.value.errno == errno.EINVAL and "size 0" in ei.value.text
        with pytest.raises(hellofpga.HelloFPGAError) as ei:
            p.submit(0, 0, 4096, hellofpga.Direction.C2H, channel=9)
        assert ei.value.errno == errno.ECHRNG
    buf.free()


def test_status_after_close_without_a_gpu_map_is_ebadf(gs):
    with hellofpga.Card("emu:3,private") as c:
        buf = hellofpga.gpu_alloc(SIZE)
        p = c.pin(buf)
        sub = p.submit(0, 0, 4096, hellofpga.Direction.C2H)
        sub.complete(TMO)
        p.unpin()
    with pytest.raises(hellofpga.HelloFPGAError) as ei:
        sub.status
    assert ei.value.errno == errno.EBADF
    buf.free()
