# SPDX-License-Identifier: MIT
"""GPU Direct: GetGPUStatus, pin / transfer / unpin, alignment, TransferMode
(the emulated GPU in CI; the real one with HF_PY_GPU=cuda)."""
import errno
import gc
import os

import numpy as np
import pytest

import hellofpga


def test_gpu_status_fields():
    st = hellofpga.gpu_status()
    assert isinstance(st.platform, hellofpga.Platform)
    if os.environ.get("HELLOFPGA_GPU", "").startswith("emu"):
        assert st.emulated and st.supported and st.reason == ""
        assert "emulated" in st.name


def test_four_steps_roundtrip(card, gpu):
    size = 1 << 20
    pattern = np.random.default_rng(1).integers(0, 256, size, dtype=np.uint8)
    card.write_h2c(pattern, 0x100000)
    buf = hellofpga.gpu_alloc(size)                       # 1. allocate
    with card.pin(buf) as p:                              # 2. pin once
        p.read_c2h(0x100000, size, timeout_ms=1000)       # 3. card -> GPU
        host = np.empty(size, dtype=np.uint8)
        buf.copy_to_host(host)
        assert np.array_equal(host, pattern)
        p.write_h2c(0x300000, size)                       #    GPU -> card
        assert np.array_equal(card.read_array(0x300000, size), pattern)
    assert p.handle == 0                                  # 4. unpinned
    buf.free()


def test_xfer_of_a_sub_range(card, gpu):
    buf = hellofpga.gpu_alloc(1 << 20)
    data = os.urandom(8192)
    card.write_h2c(data, 0x4000)
    with card.pin(buf) as p:
        assert p.xfer(0x10000, 0x4000, 8192, hellofpga.Direction.C2H) == 8192
        out = bytearray(8192)
        buf.copy_to_host(out, 0x10000)
        assert out == data
        with pytest.raises(hellofpga.HelloFPGAError) as ei:
            p.xfer((1 << 20) - 4096, 0, 8192, hellofpga.Direction.C2H)
        assert ei.value.errno == errno.EINVAL
    buf.free()


def test_unaligned_address_is_einval_and_says_how_to_align(card, gpu):
    buf = hellofpga.gpu_alloc(1 << 20)
    with pytest.raises(hellofpga.HelloFPGAError) as ei:
        card.pin(buf.ptr + 512, 4096)
    e = ei.value
    assert e.errno == errno.EINVAL
    assert "512 bytes past a 4096-byte boundary" in e.text
    assert "align_offset" in e.text
    assert hellofpga.align_offset(buf.ptr + 512) == 4096 - 512
    buf.free()


def test_unaligned_size_is_einval_with_the_size_to_use(card, gpu):
    buf = hellofpga.gpu_alloc(1 << 20)
    with pytest.raises(hellofpga.HelloFPGAError) as ei:
        card.pin(buf, 5000)
    assert ei.value.errno == errno.EINVAL and "8192" in ei.value.text
    buf.free()


def test_host_memory_is_not_gpu_memory(card, gpu):
    if gpu.platform != hellofpga.Platform.DESKTOP:
        pytest.skip("Tegra pins host memory")
    import mmap
    m = mmap.mmap(-1, 1 << 16)
    a = np.frombuffer(m, dtype=np.uint8)
    with pytest.raises(hellofpga.HelloFPGAError) as ei:
        card.pin(a.__array_interface__["data"][0], 1 << 16)
    assert ei.value.errno == errno.EINVAL
    del a


def test_transfer_of_an_unpinned_pin_is_enoent(card, gpu):
    buf = hellofpga.gpu_alloc(1 << 16)
    p = card.pin(buf)
    h = p.handle
    p.unpin()
    p.unpin()
    with pytest.raises(hellofpga.HelloFPGAError) as ei:
        p.read_c2h(0)
    assert ei.value.errno == errno.ENOENT
    from hellofpga import _capi
    r = _capi.lib.HelloFPGA_GPUDirect_Unpin(card.handle, h)
    assert r == -errno.ENOENT
    buf.free()


def test_pin_holds_the_pinned_object(card, gpu):
    buf = hellofpga.gpu_alloc(1 << 16)
    p = card.pin(buf)
    del buf
    gc.collect()
    p.read_c2h(0)           # memory still there
    p.unpin()


def test_close_of_the_card_ends_its_pins(gpu):
    from conftest import MM_CARD
    buf = hellofpga.gpu_alloc(1 << 16)
    c = hellofpga.Card(MM_CARD)
    p = c.pin(buf)
    c.close()
    assert p.handle == 0
    p.unpin()
    buf.free()


def test_transfer_mode_sends_dma_mm_to_the_gpu_buffer(card, gpu):
    size = 1 << 20
    buf = hellofpga.gpu_alloc(size)
    data = np.random.default_rng(2).integers(0, 256, 65536, dtype=np.uint8)
    card.write_h2c(data, 0x20000)
    card.set_gpu_buffer(buf)
    card.set_transfer_mode(hellofpga.TransferMode.GPU_PINNED)
    # the existing call, unchanged, with a pointer inside the GPU buffer
    assert card.read_c2h(buf.ptr + 0x10000, 0x20000, size=65536) == 65536
    out = np.empty(65536, dtype=np.uint8)
    buf.copy_to_host(out, 0x10000)
    assert np.array_equal(out, data)
    # and a GPUBuffer as the buffer
    assert card.read_c2h(buf, 0x20000, size=65536) == 65536
    card.set_transfer_mode(hellofpga.TransferMode.CPU)
    card.set_gpu_buffer(None)
    buf.free()


def test_gpu_pinned_without_a_buffer_is_einval(card):
    with pytest.raises(hellofpga.HelloFPGAError) as ei:
        card.set_transfer_mode(hellofpga.TransferMode.GPU_PINNED)
    assert ei.value.errno == errno.EINVAL


def test_freeing_the_gpu_memory_revokes_the_pin(card, gpu):
    buf = hellofpga.gpu_alloc(1 << 16)
    p = card.pin(buf)
    buf.free()
    with pytest.raises(hellofpga.HelloFPGAError) as ei:
        p.read_c2h(0)
    assert ei.value.errno == errno.ENXIO
    p.unpin()
