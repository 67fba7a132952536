#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# h200.sh [OUT] - the Python package's tests on a machine with a real NVIDIA
# GPU, PyTorch and CuPy (the H200 machine): build, then every test of
# tests/python against real CUDA (HELLOFPGA_GPU=cuda) with the emulated card
# in /dev/shm/hfe, the torch and CuPy cases included (they skip elsewhere),
# and the torch frame loop example.  Writes into OUT (default $OUT, else
# ./h200-python-out):
#   env.txt            machine, GPU, Python, torch, CuPy, NumPy, pytest
#   build.txt          the CMake build
#   pytest.xml         JUnit XML of the pytest run
#   pytest.txt         its log (-v -rs: every case, every skip's reason)
#   frame-loop.txt     examples/python/frame_loop_torch.py, 2000 x 1 MiB (torch
#                      after GPU-side waits, GPU releases)
#   summary.txt        the counts, and whether the torch and CuPy cases ran
# Exit status: 0 when everything passed, no torch / CuPy case skipped (the
# GPU-side completion ones included) and the frame loop ran on torch.
#
# Environment: PYTHON (default python3: the one with torch and CuPy; it
# needs pytest and numpy too), JOBS (default 16).
set -uo pipefail
cd "$(dirname "$(readlink -f "$0")")/../.."
out=${1:-${OUT:-$PWD/h200-python-out}}
mkdir -p "$out"
PY=${PYTHON:-python3}
JOBS=${JOBS:-16}
b=build-gpu
rc=0

{
	date -u; uname -a; nvidia-smi 2>&1 | head -15; command -v "$PY"
	"$PY" - <<'PYEOF'
import importlib, sys
print("python", sys.version.split()[0])
for m in ("numpy", "pytest", "torch", "cupy"):
    try:
        mod = importlib.import_module(m)
        extra = ""
        if m == "torch":
            extra = f" cuda={mod.version.cuda} available={mod.cuda.is_available()}"
        print(m, getattr(mod, "__version__", "?") + extra)
    except Exception as e:          # noqa: BLE001
        print(m, "MISSING:", e)
PYEOF
} >"$out/env.txt" 2>&1
cat "$out/env.txt"

echo "== build ($b)"
if ! { cmake -S . -B $b -DHF_WERROR=ON && cmake --build $b -j"$JOBS"; } \
	>"$out/build.txt" 2>&1; then
	tail -30 "$out/build.txt"
	echo "build failed" | tee "$out/summary.txt"
	exit 1
fi

export HELLOFPGA_EMU_DIR=/dev/shm/hfe
mkdir -p "$HELLOFPGA_EMU_DIR" && chmod 700 "$HELLOFPGA_EMU_DIR"
export HELLOFPGA_LIBRARY=$PWD/$b/lib/libhellofpga.so.1
export PYTHONPATH=$PWD/python${PYTHONPATH:+:$PYTHONPATH}
export PYTHONDONTWRITEBYTECODE=1
export HELLOFPGA_GPU=cuda HF_PY_GPU=cuda
export HF_PY_CARD=emu:0,private,ddr=64M
export HF_PY_ST_CARD=emu:1,private,st,ddr=16M

# The python3 with torch and CuPy may lack pytest: Debian's python3-pytest
# (pure Python) serves it then: its packages only, linked into a directory
# of their own (not all of dist-packages, whose NumPy would shadow the
# interpreter's)
if ! "$PY" -c 'import pytest' 2>/dev/null && [ -d /usr/lib/python3/dist-packages/pytest ]; then
	pt=$(mktemp -d)
	for m in pytest _pytest py.py pluggy iniconfig attr attrs packaging \
		exceptiongroup tomli; do
		[ -e "/usr/lib/python3/dist-packages/$m" ] &&
			ln -s "/usr/lib/python3/dist-packages/$m" "$pt/$m"
	done
	export PYTHONPATH=$PYTHONPATH:$pt
	echo "pytest: Debian's, linked in $pt" | tee -a "$out/env.txt"
fi

echo "== pytest tests/python (HELLOFPGA_GPU=cuda)"
"$PY" -m pytest -v -rs -p no:cacheprovider -o junit_family=xunit2 \
	--junitxml="$out/pytest.xml" tests/python 2>&1 | tee "$out/pytest.txt"
[ "${PIPESTATUS[0]}" = 0 ] || rc=1

echo "== examples/python/frame_loop_torch.py"
HELLOFPGA_DEVICE=emu:2,private,st,ddr=16M "$PY" examples/python/frame_loop_torch.py \
	--frames 2000 --frame-size 1048576 --verify 1 2>&1 | tee "$out/frame-loop.txt"
[ "${PIPESTATUS[0]}" = 0 ] || rc=1
# it must have run the torch model behind GPU-side waits
grep -q "torch after GPU-side waits" "$out/frame-loop.txt" || {
	echo "frame loop: not torch after GPU-side waits" | tee -a "$out/frame-loop.txt"
	rc=1
}

# the torch and CuPy cases must have run here: a skip of one is a failure
"$PY" - "$out/pytest.xml" >"$out/summary.txt" <<'PYEOF' || rc=1
import sys
import xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
cases = root.iter("testcase")
n = {"passed": 0, "failed": 0, "skipped": 0}
gpu_skips = []
for c in cases:
    kind = "passed"
    for child in c:
        if child.tag in ("failure", "error"):
            kind = "failed"
        elif child.tag == "skipped":
            kind = "skipped"
            # a module's collection skip has no classname, its name is the module
            mod = (c.get("classname") or c.get("name") or "").split(".")[-1]
            if mod in ("test_torch", "test_cupy"):
                why = child.get("message")
                if why == "collection skipped":
                    why = child.text    # the module's importorskip reason
                gpu_skips.append(f"{c.get('classname')}::{c.get('name')}: {why}")
    n[kind] += 1
print(f"{n['passed']} passed, {n['failed']} failed, {n['skipped']} skipped")
for s in gpu_skips:
    print("torch/CuPy case skipped:", s)
# every torch and CuPy case must run here, the GPU-side completion ones
# (HelloFPGA_Stream_WaitOnGPU, library ABI 1.3) included
sys.exit(1 if n["failed"] or gpu_skips else 0)
PYEOF
cat "$out/summary.txt"
exit $rc
