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


def run_child(code, timeout=60):
    """Run @code (Python source) in a child python3 with this test run's
    environment (library, emulated card directory, GPU) and tests/python on
    its path, so that a crash (SIGSEGV) fails the calling test instead of
    killing pytest.  Returns the CompletedProcess (text stdout, stderr)."""
    import os
    import subprocess
    import sys
    here = os.path.dirname(os.path.abspath(__file__))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (here, env.get("PYTHONPATH", "")) if p)
    return subprocess.run([sys.executable, "-c", code], cwd=here, env=env,
                          capture_output=True, text=True, timeout=timeout)


def child_ok(p, expect_out):
    """Assert that the child of run_child() exited 0 (a signal: negative)
    and printed @expect_out."""
    assert p.returncode == 0 and p.stdout == expect_out, (
        f"child exited {p.returncode}, stdout {p.stdout!r}, stderr:\n"
        f"{p.stderr}")
