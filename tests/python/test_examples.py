# SPDX-License-Identifier: MIT
"""examples/python/ run on the emulated card (and the emulated GPU)."""
import os
import subprocess
import sys

import pytest

EX = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "python")


def run(name, card, *args):
    env = dict(os.environ, HELLOFPGA_DEVICE=card)
    p = subprocess.run([sys.executable, os.path.join(EX, name), *args],
                       env=env, capture_output=True, text=True, timeout=240)
    assert p.returncode == 0, p.stdout + p.stderr
    return p.stdout


def test_cpu_roundtrip():
    assert "round trip: ok" in run("cpu_roundtrip.py", "emu:6,ddr=16M,private")


def test_four_steps(gpu):
    out = run("gpudirect_four_steps.py", "emu:6,ddr=32M,private")
    assert "card -> GPU: ok" in out and "GPU -> card: ok" in out


def test_transfer_mode(gpu):
    assert "card -> GPU: ok" in run("transfer_mode.py", "emu:6,ddr=16M,private")


def test_frame_loop(gpu):
    out = run("frame_loop_torch.py", "emu:7,st,ddr=16M,private",
              "--frames", "40", "--frame-size", "262144")
    assert "40 frames" in out and " 0 bad" in out
    assert "after GPU-side waits, released on the GPU" in out


@pytest.mark.parametrize("name", ["cpu_roundtrip.py", "gpudirect_four_steps.py",
                                  "transfer_mode.py", "frame_loop_torch.py"])
def test_example_has_a_docstring_and_spdx(name):
    text = open(os.path.join(EX, name)).read()
    assert "SPDX-License-Identifier: MIT" in text.splitlines()[1]
    assert '"""' in text
