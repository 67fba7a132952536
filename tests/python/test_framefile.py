# SPDX-License-Identifier: MIT
"""hellofpga.framefile: frames saved to a file and read back, by Python
and by "hellofpga stream --raw --save" (the CLI's file, read here)."""
import os
import subprocess

import numpy as np
import pytest

from hellofpga import framefile, pattern
from helpers import src_start

TMO = 5000


@pytest.mark.parametrize("size,buffer_size", [(1000, 4096), (10000, 4096)],
                         ids=["one_buffer", "spanning_buffers"])
def test_saved_frames_read_back_whole(st_card, tmp_path, size, buffer_size):
    path = tmp_path / "f.bin"
    with st_card.open_stream(buffers=8, buffer_size=buffer_size) as s:
        src_start(st_card, size, 12)
        assert framefile.save(s, path, 12, TMO) == 12
    frames = list(framefile.read(path))
    assert [f.index for f in frames] == list(range(12))
    assert all(a.timestamp_ns <= b.timestamp_ns
               for a, b in zip(frames, frames[1:]))
    for f in frames:
        assert len(f.data) == size
        assert pattern.verify(np.frombuffer(f.data, np.uint8)) == f.index


@pytest.mark.parametrize("cut,match", [
    (lambda d: b"\0" + d[1:], "magic 0x52464600"),
    (lambda d: d[:10], "inside the header"),
    (lambda d: d[:-1], "frame 1 at 27: 2 of its 3 bytes"),
], ids=["bad_magic", "short_header", "short_frame"])
def test_read_refuses_a_damaged_file(tmp_path, cut, match):
    path = tmp_path / "f.bin"
    with open(path, "wb") as f:
        framefile.write(f, 0, 5, b"abc")
        framefile.write(f, 1, 6, b"def")
    path.write_bytes(cut(path.read_bytes()))
    with pytest.raises(ValueError, match=match):
        list(framefile.read(path))


def test_reads_what_the_cli_saved(tmp_path):
    """The CLI's --save of a design other than the reference design
    (tests/other_design.h, behind the driver's test double)."""
    build = os.environ.get("HF_BUILD_DIR", "")
    cli = os.path.join(build, "bin", "hellofpga")
    fake = os.path.join(build, "tests", "fakedev", "libhf_fakedev.so")
    if not (os.path.exists(cli) and os.path.exists(fake)):
        pytest.skip("no CLI or driver test double in HF_BUILD_DIR")
    path = tmp_path / "f.bin"
    env = dict(os.environ, LD_PRELOAD=fake, HF_FAKEDEV_DESIGN="other",
               HF_FAKEDEV_CARD="emu,private,st,ddr=16M")
    subprocess.run([cli, "-d", "/dev/hellofpga0", "stream", "--raw",
                    "--frames", "7", "--save", str(path)], env=env,
                   check=True, stdout=subprocess.DEVNULL)
    lens = [1000, 17, 4096, 9000, 64]
    frames = list(framefile.read(path))
    assert [f.index for f in frames] == list(range(7))
    for k, f in enumerate(frames):
        assert f.data == bytes((k * 31 + i) & 0xff
                               for i in range(lens[k % 5])), k
