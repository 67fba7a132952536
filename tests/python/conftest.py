# SPDX-License-Identifier: MIT
"""Fixtures of the Python tests (tests/python/README.md).

The tests import the package of the source tree (PYTHONPATH=python) over
the build tree's library (HELLOFPGA_LIBRARY); CTest sets both.  Emulated
cards keep their state in a directory of this run; the GPU is the emulated
one unless HF_PY_GPU=cuda (the GPU machine: tests/python/h200.sh).
"""
import os
import tempfile

import pytest

# before the library makes its first GPU call, and before any card opens
os.environ.setdefault("HELLOFPGA_GPU", os.environ.get("HF_PY_GPU", "emu"))
if "HELLOFPGA_EMU_DIR" not in os.environ or os.environ.get("HF_PY_OWN_EMU_DIR"):
    os.environ["HELLOFPGA_EMU_DIR"] = tempfile.mkdtemp(prefix="hf-py-")

import hellofpga  # noqa: E402

#: the memory-mapped card and the AXI-Stream card the tests open
MM_CARD = os.environ.get("HF_PY_CARD", "emu:0,ddr=64M,private")
ST_CARD = os.environ.get("HF_PY_ST_CARD", "emu:1,st,ddr=16M,private")


@pytest.fixture
def card():
    with hellofpga.Card(MM_CARD) as c:
        yield c


@pytest.fixture
def st_card():
    with hellofpga.Card(ST_CARD) as c:
        yield c


@pytest.fixture
def gpu():
    st = hellofpga.gpu_status()
    if not st.supported:
        pytest.skip(f"no GPU Direct here: {st.reason}")
    return st


# ---- CTest: a file whose tests all skip is reported as skipped ----
_counts = {"passed": 0, "failed": 0, "skipped": 0}


def pytest_runtest_logreport(report):
    if report.when == "call" or report.outcome != "passed":
        _counts[report.outcome] = _counts.get(report.outcome, 0) + 1


def pytest_collectreport(report):
    if report.outcome == "skipped":         # a module's importorskip
        _counts["skipped"] += 1


def pytest_sessionfinish(session, exitstatus):
    rc = os.environ.get("HF_PYTEST_SKIP_RC")
    # 5: nothing collected (the module skipped itself)
    if (rc and exitstatus in (0, 5) and _counts["skipped"]
            and not _counts["passed"] and not _counts["failed"]):
        session.exitstatus = int(rc)
