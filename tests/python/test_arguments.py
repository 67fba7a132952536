# SPDX-License-Identifier: MIT
"""Every integer that crosses into C is range-checked, never truncated.

ctypes keeps the low bits of a Python int without a word: 2**32 + 100 ms
would set 100 ms, card address 1 << 64 would read address 0, -1 would be
0xffffffff, True would be 1.  The package refuses instead, before the
library is called (python/hellofpga/_capi.py: checked wrappers derived from
the prototypes): out of the C type's range, or negative for an unsigned
one, is OverflowError; a bool, a float or a str is TypeError.  The table
below lists every public method that takes an integer, each parameter
with its C type and a value that works; each is called with values that
wrap to that valid one (and the type's bounds + 1), and with non-integers.
"""
import errno

import numpy as np
import pytest

import hellofpga
from conftest import MM_CARD, ST_CARD
from hellofpga import regs

W32, W64 = 1 << 32, 1 << 64
I32, U32, U64 = "int32", "uint32", "uint64"     # U64: also size_t, void *
ERRNO = "int32 of either sign"                   # strerror(): -abs(err)


class Ctx:
    """What a case needs, made on first use, closed at the end."""

    def __init__(self):
        self._res = []

    def keep(self, obj):
        self._res.append(obj)
        return obj

    def close(self):
        for obj in reversed(self._res):
            for m in ("close", "unpin", "destroy", "free"):
                if hasattr(obj, m):
                    try:
                        getattr(obj, m)()
                    except Exception:
                        pass
                    break

    def _once(self, name, make):
        if name not in self.__dict__:
            self.__dict__[name] = make()
        return self.__dict__[name]

    @property
    def card(self):
        return self._once("_card", lambda: self.keep(hellofpga.Card(MM_CARD)))

    @property
    def st(self):
        return self._once("_st", lambda: self.keep(hellofpga.Card(ST_CARD)))

    @property
    def stream(self):
        return self._once("_stream", lambda: self.keep(
            self.st.open_stream(buffers=4, buffer_size=4096)))

    @property
    def host(self):                      # a host buffer by address
        return self._once("_host", lambda: np.zeros(4096, np.uint8))

    @property
    def host_addr(self):
        return self.host.__array_interface__["data"][0]

    def _need_gpu(self):
        st = hellofpga.gpu_status()
        if not st.supported:
            pytest.skip(f"no GPU Direct here: {st.reason}")

    @property
    def buf(self):
        self._need_gpu()
        return self._once("_buf", lambda: self.keep(
            hellofpga.gpu_alloc(1 << 20)))

    @property
    def pin(self):
        return self._once("_pin", lambda: self.keep(self.card.pin(self.buf)))

    @property
    def st_pin(self):
        return self._once("_st_pin", lambda: self.keep(self.st.pin(self.buf)))

    @property
    def gs(self):
        self._need_gpu()
        return self._once("_gs", lambda: self.keep(hellofpga.GPUStream()))

    @property
    def spin(self):                      # a pin, for Pin.submit
        if not hellofpga.has_submit():
            pytest.skip("the loaded library has no GPUDirect_Submit")
        return self.pin

    @property
    def sub(self):
        return self._once("_sub", lambda: self.spin.submit(
            0, 0, 4096, hellofpga.Direction.C2H))


C2H = hellofpga.Direction.C2H
SCRATCH = regs.USER_SCRATCH

# (method and parameter, its C type, a value that works, call(ctx, value),
#  errnos a HelloFPGAError may have where the Python side refused such a
#  value before already)
CASES = [
    ("Card.set_timeout timeout_ms", I32, 100,
     lambda c, v: c.card.set_timeout(v), ()),
    ("Card.read_c2h offset", U64, 0,
     lambda c, v: c.card.read_c2h(bytearray(16), v), ()),
    ("Card.read_c2h channel", I32, 0,
     lambda c, v: c.card.read_c2h(bytearray(16), 0, channel=v), ()),
    ("Card.read_c2h size", U64, 16,
     lambda c, v: c.card.read_c2h(c.host_addr, 0, size=v), ()),
    ("Card.write_h2c offset", U64, 0,
     lambda c, v: c.card.write_h2c(b"x" * 16, v), ()),
    ("Card.write_h2c channel", I32, 0,
     lambda c, v: c.card.write_h2c(b"x" * 16, 0, channel=v), ()),
    ("Card.write_h2c size", U64, 16,
     lambda c, v: c.card.write_h2c(c.host_addr, 0, size=v), ()),
    ("Card.read offset", U64, 0, lambda c, v: c.card.read(v, 16), ()),
    ("Card.read size", U64, 16, lambda c, v: c.card.read(0, v), ()),
    ("Card.read channel", I32, 0, lambda c, v: c.card.read(0, 16, v), ()),
    ("Card.read_array offset", U64, 0,
     lambda c, v: c.card.read_array(v, 4), ()),
    ("Card.read_array channel", I32, 0,
     lambda c, v: c.card.read_array(0, 4, channel=v), ()),
    ("Card.user_read32 offset", U32, SCRATCH,
     lambda c, v: c.card.user_read32(v), ()),
    ("Card.user_write32 offset", U32, SCRATCH,
     lambda c, v: c.card.user_write32(v, 5), ()),
    ("Card.user_write32 value", U32, 5,
     lambda c, v: c.card.user_write32(SCRATCH, v), ()),
    ("Card.irq_wait irq", I32, 3, lambda c, v: c.card.irq_wait(v, 0), ()),
    ("Card.irq_wait timeout_ms", I32, 0,
     lambda c, v: c.card.irq_wait(3, v), ()),
    ("Card.irq_fd irq", I32, 3, lambda c, v: c.card.irq_fd(v), ()),
    ("Card.set_transfer_mode mode", I32, 0,
     lambda c, v: c.card.set_transfer_mode(v), ()),
    ("Card.pin address", U64, None,
     lambda c, v: c.keep(c.card.pin(c.buf.ptr if v is None else v, 4096)),
     (errno.EINVAL,)),
    ("Card.pin size", U64, 4096,
     lambda c, v: c.keep(c.card.pin(c.buf.ptr, v)), (errno.EINVAL,)),
    ("Card.set_gpu_buffer address", U64, None,
     lambda c, v: c.card.set_gpu_buffer(c.buf.ptr if v is None else v,
                                        4096), (errno.EINVAL,)),
    ("Card.set_gpu_buffer size", U64, 4096,
     lambda c, v: c.card.set_gpu_buffer(c.buf.ptr, v), (errno.EINVAL,)),
    ("Card.open_stream channel", I32, 0,
     lambda c, v: c.keep(c.st.open_stream(v, 4, 4096)), ()),
    ("Card.open_stream buffers", U32, 4,
     lambda c, v: c.keep(c.st.open_stream(0, v, 4096)), ()),
    ("Card.open_stream buffer_size", U64, 4096,
     lambda c, v: c.keep(c.st.open_stream(0, 4, v)), ()),
    ("Card.open_stream gpu_offset", U64, 0,
     lambda c, v: c.keep(c.st.open_stream(0, 4, 4096, pin=c.st_pin,
                                          gpu_offset=v)), ()),
    ("Stream.wait timeout_ms", I32, 0, lambda c, v: c.stream.wait(v), ()),
    ("Stream.frames timeout_ms", I32, 0,
     lambda c, v: next(c.stream.frames(1, v)), ()),
    ("Stream.release index", U32, 0, lambda c, v: c.stream.release(v), ()),
    ("Stream.wait_on_gpu sequence", U64, 0,
     lambda c, v: c.stream.wait_on_gpu(c.gs, v), (errno.ERANGE,)),
    ("Stream.wait_on_gpu cuda_stream", U64, None,
     lambda c, v: c.stream.wait_on_gpu(c.gs if v is None else v, 0),
     (errno.EINVAL,)),
    ("Stream.release_on_gpu index", U32, 0,
     lambda c, v: c.stream.release_on_gpu(c.gs, v), (errno.EINVAL,)),
    ("gpu_alloc size", U64, 4096,
     lambda c, v: c.keep(hellofpga.gpu_alloc(v)), (errno.EINVAL,)),
    ("GPUBuffer.copy_from_host offset", U64, 0,
     lambda c, v: c.buf.copy_from_host(b"x" * 16, v), (errno.ERANGE,)),
    ("GPUBuffer.copy_to_host offset", U64, 0,
     lambda c, v: c.buf.copy_to_host(bytearray(16), v), (errno.ERANGE,)),
    ("GPUStream.synchronize timeout_ms", I32, 0,
     lambda c, v: c.gs.synchronize(v), ()),
    ("cuda_stream_handle stream", U64, 5,
     lambda c, v: hellofpga.cuda_stream_handle(v), (errno.EINVAL,)),
    ("Pin.read_c2h fpga_addr", U64, 0,
     lambda c, v: c.pin.read_c2h(v, 4096), ()),
    ("Pin.read_c2h size", U64, 4096, lambda c, v: c.pin.read_c2h(0, v), ()),
    ("Pin.read_c2h channel", I32, 0,
     lambda c, v: c.pin.read_c2h(0, 4096, channel=v), ()),
    ("Pin.read_c2h timeout_ms", I32, 0,
     lambda c, v: c.pin.read_c2h(0, 4096, timeout_ms=v), ()),
    ("Pin.write_h2c fpga_addr", U64, 0,
     lambda c, v: c.pin.write_h2c(v, 4096), ()),
    ("Pin.write_h2c size", U64, 4096, lambda c, v: c.pin.write_h2c(0, v), ()),
    ("Pin.write_h2c channel", I32, 0,
     lambda c, v: c.pin.write_h2c(0, 4096, channel=v), ()),
    ("Pin.write_h2c timeout_ms", I32, 0,
     lambda c, v: c.pin.write_h2c(0, 4096, timeout_ms=v), ()),
    ("Pin.xfer buf_offset", U64, 0,
     lambda c, v: c.pin.xfer(v, 0, 4096, C2H), ()),
    ("Pin.xfer fpga_addr", U64, 0,
     lambda c, v: c.pin.xfer(0, v, 4096, C2H), ()),
    ("Pin.xfer size", U64, 4096, lambda c, v: c.pin.xfer(0, 0, v, C2H), ()),
    ("Pin.xfer direction", I32, 1, lambda c, v: c.pin.xfer(0, 0, 4096, v), ()),
    ("Pin.xfer channel", I32, 0,
     lambda c, v: c.pin.xfer(0, 0, 4096, C2H, channel=v), ()),
    ("Pin.xfer timeout_ms", I32, 0,
     lambda c, v: c.pin.xfer(0, 0, 4096, C2H, timeout_ms=v), ()),
    ("Pin.submit buf_offset", U64, 0,
     lambda c, v: c.spin.submit(v, 0, 4096, C2H).complete(), ()),
    ("Pin.submit fpga_addr", U64, 0,
     lambda c, v: c.spin.submit(0, v, 4096, C2H).complete(), ()),
    ("Pin.submit size", U64, 4096,
     lambda c, v: c.spin.submit(0, 0, v, C2H).complete(), ()),
    ("Pin.submit direction", I32, 1,
     lambda c, v: c.spin.submit(0, 0, 4096, v).complete(), ()),
    ("Pin.submit channel", I32, 0,
     lambda c, v: c.spin.submit(0, 0, 4096, C2H,
                                         channel=v).complete(), ()),
    ("Pin.submit timeout_ms", I32, 0,
     lambda c, v: c.spin.submit(0, 0, 4096, C2H,
                                         timeout_ms=v).complete(), ()),
    ("Submission.complete timeout_ms", I32, 0,
     lambda c, v: c.sub.complete(v), ()),
    ("strerror err", ERRNO, 22, lambda c, v: hellofpga.strerror(v), ()),
]


def out_of_range(ctype, good):
    """Values C type @ctype cannot hold: the ones that wrap to @good (the
    silent kind) and the bounds + 1."""
    if ctype == I32:
        return [W32 + good, 1 << 31, -(1 << 31) - 1]
    if ctype == ERRNO:
        return [W32 + good, -(W32 + good), (1 << 31) + 1]
    if ctype == U32:
        return [W32 + good, -1]
    return [W64 + good, -1]


@pytest.fixture
def ctx():
    c = Ctx()
    yield c
    c.close()


def _good(c, case):
    _, _, good, _, _ = case
    if good is None:            # an address: the case's own (the GPU buffer)
        return None
    return good


def _wrapping(c, case):
    name, ctype, good, _, _ = case
    if good is None:            # an address: wrap it to the case's own
        good = c.gs.handle if "cuda_stream" in name else c.buf.ptr
    return out_of_range(ctype, good)


IDS = [c[0] for c in CASES]


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_a_value_that_fits_is_taken(ctx, case):
    # the harness is sound: the value that fits gets past the checks (to
    # the library, which may still say ETIMEDOUT or EINVAL of its own)
    try:
        case[3](ctx, _good(ctx, case))
    except hellofpga.HelloFPGAError:
        pass


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_out_of_range_is_overflowerror_not_truncated(ctx, case):
    name, ctype, _, call, pre = case
    for v in _wrapping(ctx, case):
        try:
            call(ctx, v)
        except OverflowError as e:
            assert "does not fit" in str(e), (name, v, e)
            continue
        except hellofpga.HelloFPGAError as e:
            # refused by a check of the Python side's that was there first
            assert e.errno in pre, (name, v, e)
            continue
        pytest.fail(f"{name} = {v:#x}: taken (truncated to C's "
                    f"{ctype}?) instead of OverflowError")


@pytest.mark.parametrize("bad", [True, 1.5, "1"], ids=["bool", "float", "str"])
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_non_integers_are_typeerror(ctx, case, bad):
    with pytest.raises(TypeError):
        case[3](ctx, bad)


def test_numpy_integers_and_intenums_are_integers(card):
    card.user_write32(np.uint32(SCRATCH), np.int64(0x12345678))
    assert card.user_read32(SCRATCH) == 0x12345678
    card.set_transfer_mode(hellofpga.TransferMode.CPU)
    assert card.read(np.int32(0), np.uint16(16)) == card.read(0, 16)


def test_user_write32_takes_the_whole_uint32_range(card):
    card.user_write32(SCRATCH, 0xffffffff)
    assert card.user_read32(SCRATCH) == 0xffffffff
    with pytest.raises(OverflowError):
        card.user_write32(SCRATCH, -1)      # was masked to 0xffffffff


def test_stream_config_fields_are_checked(st_card):
    # HELLOFPGA_STREAM_CONFIG is filled field by field: the same checks
    with pytest.raises(OverflowError, match="buffers"):
        st_card.open_stream(buffers=W32 + 4, buffer_size=4096)
    with st_card.open_stream(buffers=4, buffer_size=4096) as s:
        assert s.stats().buffers == 0 and s.buffers == 4

