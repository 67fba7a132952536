# SPDX-License-Identifier: MIT
"""What several test files share: the reference design's stream source."""
from hellofpga import regs


def src_start(card, size, count, interval_ns=0, ctrl=0, ch=0):
    """Start the stream source of C2H channel @ch: @count frames of @size
    bytes (0: without end), @interval_ns apart."""
    base = regs.ST_SRC(ch)
    card.user_write32(base + regs.ST_SRC_CTRL, regs.ST_SRC_CTRL_CLEAR)
    card.user_write32(base + regs.ST_SRC_FRAME_SIZE, size)
    card.user_write32(base + regs.ST_SRC_COUNT, count)
    card.user_write32(base + regs.ST_SRC_INTERVAL_NS, interval_ns)
    card.user_write32(base + regs.ST_SRC_CTRL, regs.ST_SRC_CTRL_ENABLE | ctrl)


def src_stop(card, ch=0):
    card.user_write32(regs.ST_SRC(ch) + regs.ST_SRC_CTRL, 0)
