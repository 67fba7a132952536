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


def wait_on_gpu_in_window(stream, cuda_stream, tries=50000):
    """stream.wait_on_gpu(cuda_stream) of the next sequence.  While that is
    ERANGE (the GPU stream has not yet given enough buffers back through
    release_on_gpu: a ring ahead), let the library look at the GPU's
    releases (any call on the stream does) and try again."""
    import time

    from hellofpga import HelloFPGAError
    for _ in range(tries):
        try:
            return stream.wait_on_gpu(cuda_stream)
        except HelloFPGAError as e:
            if e.name != "ERANGE":
                raise
        stream.stats()
        time.sleep(0.0001)
    raise AssertionError("the GPU stream never gave the buffers back")
