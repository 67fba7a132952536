# SPDX-License-Identifier: MIT
"""User interrupts: wait with a timeout, the pollable descriptor."""
import errno
import select
import threading
import time

import pytest

import hellofpga
from hellofpga import regs


def test_wait_times_out(card):
    t = time.monotonic()
    with pytest.raises(hellofpga.HelloFPGAError) as ei:
        card.irq_wait(3, 50)
    assert ei.value.errno == errno.ETIMEDOUT
    assert time.monotonic() - t >= 0.04


def test_pulse_is_one_interrupt(card):
    with pytest.raises(hellofpga.HelloFPGAError):
        card.irq_wait(5, 0)             # arms it
    card.user_write32(regs.USER_IRQ_PULSE, 1 << 5)
    assert card.irq_wait(5, 1000) >= 1
    with pytest.raises(hellofpga.HelloFPGAError):
        card.irq_wait(5, 0)


def test_wait_releases_the_gil(card):
    with pytest.raises(hellofpga.HelloFPGAError):
        card.irq_wait(2, 0)
    got = []
    th = threading.Thread(target=lambda: got.append(card.irq_wait(2, 5000)))
    th.start()
    time.sleep(0.05)                    # this thread runs while it waits
    card.user_write32(regs.USER_IRQ_PULSE, 1 << 2)
    th.join(5)
    assert got and got[0] >= 1


def test_fd_is_readable_when_it_fired(card):
    fd = card.irq_fd(7)
    assert select.select([fd], [], [], 0)[0] == []
    card.user_write32(regs.USER_IRQ_SET, 1 << 7)
    assert select.select([fd], [], [], 1)[0] == [fd]
    card.user_write32(regs.USER_IRQ_CLEAR, 1 << 7)
    assert card.irq_wait(7, 0) >= 1
    assert select.select([fd], [], [], 0)[0] == []
    assert card.irq_fd(7) == fd


def test_irq_out_of_range_is_einval(card):
    with pytest.raises(hellofpga.HelloFPGAError) as ei:
        card.irq_wait(hellofpga.USER_IRQS, 0)
    assert ei.value.errno == errno.EINVAL


def test_poll_mode_card_has_none():
    with hellofpga.Card("emu:2,irq=poll,ddr=4M,private") as c:
        with pytest.raises(hellofpga.HelloFPGAError) as ei:
            c.irq_wait(0, 0)
        assert ei.value.name == "EOPNOTSUPP"


def test_close_wakes_a_waiter():
    from conftest import MM_CARD
    c = hellofpga.Card(MM_CARD)
    err = []

    def waiter():
        try:
            c.irq_wait(1, 10000)
        except hellofpga.HelloFPGAError as e:
            err.append(e.errno)
    th = threading.Thread(target=waiter)
    th.start()
    time.sleep(0.1)
    c.close()
    th.join(5)
    assert err == [errno.EBADF]
