# SPDX-License-Identifier: MIT
"""Errors: HelloFPGAError carries the errno, its name and the library's text."""
import errno

import pytest

import hellofpga
from conftest import MM_CARD


def test_error_is_an_oserror_with_errno_name_and_text(card):
    with pytest.raises(OSError) as ei:
        card.read_c2h(bytearray(16), 1 << 40)
    e = ei.value
    assert isinstance(e, hellofpga.HelloFPGAError)
    assert e.errno == errno.ERANGE
    assert e.name == "ERANGE"
    assert "past the end of card memory" in e.text
    assert e.function == "HelloFPGA_DMA_MM_ReadC2H"


def test_bad_channel_is_echrng_naming_the_channels(card):
    with pytest.raises(hellofpga.HelloFPGAError) as ei:
        card.write_h2c(b"x", 0, channel=7)
    assert ei.value.name == "ECHRNG"
    assert "channel 7" in ei.value.text


def test_malformed_card_name_is_einval_with_text():
    with pytest.raises(hellofpga.HelloFPGAError) as ei:
        hellofpga.Card("emu:0,ddr=010")
    assert ei.value.errno == errno.EINVAL
    assert ei.value.text     # the library says what is wrong


def test_str_names_function_errno_and_text(card):
    with pytest.raises(hellofpga.HelloFPGAError) as ei:
        card.set_timeout(0)
    s = str(ei.value)
    assert s.startswith("HelloFPGA_SetTimeout: EINVAL: ")
    assert s.count("HelloFPGA_SetTimeout") == 1


def test_eopnotsupp_is_named_as_the_library_names_it():
    assert hellofpga.HelloFPGAError(errno.EOPNOTSUPP).name == "EOPNOTSUPP"


def test_strerror_either_sign():
    assert hellofpga.strerror(errno.EINVAL).startswith("EINVAL")
    assert hellofpga.strerror(-errno.EINVAL).startswith("EINVAL")


def test_error_pickles():
    import pickle
    e = hellofpga.HelloFPGAError(errno.EBUSY, "busy text", "f")
    e2 = pickle.loads(pickle.dumps(e))
    assert (e2.errno, e2.name, e2.text, e2.function) == (16, "EBUSY",
                                                         "busy text", "f")


def test_non_buffer_is_typeerror(card):
    with pytest.raises(TypeError):
        card.write_h2c(object(), 0)


def test_readonly_buffer_for_a_read_is_einval(card):
    with pytest.raises(hellofpga.HelloFPGAError) as ei:
        card.read_c2h(b"read-only", 0)
    assert ei.value.errno == errno.EINVAL
    assert "writable" in ei.value.text


def test_size_larger_than_the_buffer_is_einval(card):
    with pytest.raises(hellofpga.HelloFPGAError) as ei:
        card.write_h2c(b"1234", 0, size=5)
    assert ei.value.errno == errno.EINVAL


def test_no_hardware_card_is_enodev_telling_how_to_emulate(monkeypatch):
    monkeypatch.delenv("HELLOFPGA_DEVICE", raising=False)
    import os
    if any(n.startswith("hellofpga") for n in os.listdir("/dev")):
        pytest.skip("a hardware card is present")
    with pytest.raises(hellofpga.HelloFPGAError) as ei:
        hellofpga.Card()
    assert ei.value.name == "ENODEV"
    assert "emu" in ei.value.text


def test_last_error_of_the_card(card):
    with pytest.raises(hellofpga.HelloFPGAError):
        card.user_read32(3)
    assert hellofpga.last_error(card)
    assert MM_CARD.split(",")[0] in card.name
