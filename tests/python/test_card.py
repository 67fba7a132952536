# SPDX-License-Identifier: MIT
"""Opening, closing and memory-mapped transfers of the emulated card."""
import errno
import os

import numpy as np
import pytest

import hellofpga
from conftest import MM_CARD
from helpers import child_ok, run_child


def test_open_names_the_card_and_the_version():
    with hellofpga.Card(MM_CARD) as c:
        info = c.info()
        assert info.name == MM_CARD
        assert info.backend == hellofpga.Backend.EMULATED
        assert info.ddr_size == 64 << 20
        assert info.lib_version == hellofpga.library_version()
        assert hellofpga.__version__ == info.lib_version


def test_context_manager_closes():
    with hellofpga.Card(MM_CARD) as c:
        pass
    assert c.closed
    with pytest.raises(hellofpga.HelloFPGAError) as ei:
        c.info()
    assert ei.value.errno == errno.EBADF


def test_close_twice_is_a_noop():
    c = hellofpga.open(MM_CARD)
    c.close()
    c.close()


def test_default_card_from_environment(monkeypatch):
    monkeypatch.setenv("HELLOFPGA_DEVICE", MM_CARD)
    with hellofpga.Card() as c:
        assert c.name == MM_CARD


def test_bytes_roundtrip(card):
    card.write_h2c(b"hello, card", 0x1000)
    assert card.read(0x1000, 11) == b"hello, card"


def test_numpy_roundtrip_into_an_array(card):
    a = np.arange(1 << 16, dtype=np.uint32)
    assert card.write_h2c(a, 0x10000) == a.nbytes
    b = card.read_array(0x10000, a.shape, np.uint32)
    assert b.dtype == np.uint32 and np.array_equal(a, b)


def test_read_into_a_numpy_array_in_place(card):
    a = np.arange(4096, dtype=np.uint8)
    card.write_h2c(a, 0)
    out = np.zeros(8192, dtype=np.uint8)
    ptr = out.__array_interface__["data"][0]
    assert card.read_c2h(out[100:], 0, size=4096) == 4096
    assert out.__array_interface__["data"][0] == ptr
    assert np.array_equal(out[100:4196], a)


def test_memoryview_and_channels(card):
    buf = bytearray(os.urandom(3000))
    for ch in range(card.info().num_h2c):
        card.write_h2c(memoryview(buf), 0x2000 * ch, channel=ch)
    for ch in range(card.info().num_c2h):
        assert card.read(0x2000 * ch, 3000, channel=ch) == buf


def test_non_contiguous_array_is_einval(card):
    a = np.zeros((64, 64), dtype=np.uint8)[:, ::2]
    with pytest.raises(hellofpga.HelloFPGAError) as ei:
        card.write_h2c(a, 0)
    assert ei.value.errno == errno.EINVAL


def test_counters_count_the_transfers(card):
    before = card.counters()["transfers"]
    card.write_h2c(b"x" * 10, 0)
    card.read(0, 10)
    assert card.counters()["transfers"] == before + 2


def test_user_registers_scratch(card):
    card.user_write32(hellofpga.regs.USER_SCRATCH, 0xdeadbeef)
    assert card.user_read32(hellofpga.regs.USER_SCRATCH) == 0xdeadbeef
    assert card.user_read32(hellofpga.regs.USER_ID) == hellofpga.regs.USER_ID_VALUE


def test_forked_child_gets_echild():
    c = hellofpga.Card(MM_CARD)
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            c.read(0, 16)
        except hellofpga.HelloFPGAError as e:
            code = 0 if e.errno == errno.ECHILD else 2
        except BaseException:
            code = 3
        try:
            c.close()       # only forgets it
        except BaseException:
            code = 4
        os.write(w, bytes([code]))
        os._exit(0)
    os.close(w)
    got = os.read(r, 1)
    os.waitpid(pid, 0)
    assert got == b"\0"
    assert c.read(0, 4) is not None     # the parent's handle goes on
    c.close()


def test_timeout_range(card):
    card.set_timeout(100)
    assert card.info().timeout_ms == 100
    with pytest.raises(hellofpga.HelloFPGAError):
        card.set_timeout(3600001)


def test_link_model_and_faults(card):
    assert card.link_model()["enabled"] == 0
    assert card.dma_faults()["faults"] == 0
    assert card.pci_info()["valid"] == 0


@pytest.mark.parametrize("what", [
    "read_array(0, (4,), object)",
    "read_array(0, 2, [('p', object), ('n', 'i4')])",
    "read_c2h(np.empty(4, object), 0)",
    "read_c2h(np.empty(2, [('p', object), ('n', 'i4')]), 0)",
])
def test_reading_card_bytes_into_python_objects_is_refused(what):
    # card bytes would become PyObject pointers: printing them segfaults
    p = run_child(f"""
import numpy as np
import hellofpga
c = hellofpga.Card({MM_CARD!r})
c.write_h2c(b"\\x41" * 64, 0)
try:
    a = c.{what}
    print(a)
except TypeError as e:
    print("TypeError", "object" in str(e) or "numeric" in str(e))
c.close()
""")
    child_ok(p, "TypeError True\n")


@pytest.mark.parametrize("dtype", [bool, "U4", "M8[s]", [("a", "<i4")]])
def test_read_array_takes_plain_numeric_dtypes_only(card, dtype):
    with pytest.raises(TypeError, match="plain numeric"):
        card.read_array(0, 2, dtype)


def test_writing_python_objects_to_the_card_is_refused(card):
    with pytest.raises(TypeError, match="Python objects"):
        card.write_h2c(np.array([object(), object()]), 0)   # pointers


def test_plain_numeric_buffers_still_move(card):
    a = np.arange(6, dtype=">u2").reshape(2, 3)
    card.write_h2c(a, 0x1000)
    assert np.array_equal(card.read_array(0x1000, (2, 3), ">u2"), a)
    rec = np.zeros(2, [("Offset", "<u4"), ("v", "<f8")])   # no objects
    rec["Offset"] = [7, 9]
    card.write_h2c(rec, 0x2000)
    back = np.zeros_like(rec)
    card.read_c2h(back, 0x2000)
    assert np.array_equal(back, rec)
