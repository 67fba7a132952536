#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# gpuwait-h200.sh [OUTDIR] - GPU-side completion (HelloFPGA_Stream_WaitOnGPU)
# on a machine with a real NVIDIA GPU and no kernel modules: the emulated
# card in shared memory, the real GPU through CUDA.  Builds into build-gpu/,
# runs the new tests on CUDA and on the emulated GPU, the stream tests,
# and "hellofpga bench --sections gpuwait" (MSI-X and poll mode), saving
# every log and the JSON under OUTDIR (default $OUT, else ./out-gpuwait).
# Exit status: 0 when every step passed.
set -uo pipefail
out=${1:-${OUT:-$PWD/out-gpuwait}}
mkdir -p "$out"
out=$(readlink -f "$out")
cd "$(dirname "$(readlink -f "$0")")/.."
export PATH=$PATH:/usr/local/cuda/bin
# the emulated card's state: the user's own directory, made by the library
export HELLOFPGA_EMU_DIR=${HELLOFPGA_EMU_DIR:-/dev/shm/hfe}
card=${HF_GPUWAIT_CARD:-emu:0,private,st}
iters=${HF_GPUWAIT_ITERS:-2000}
b=build-gpu
rc=0
step() { printf '\n===== %s (%s)\n' "$1" "$(date -u +%FT%TZ)"; }
fail() { echo "FAIL: $*"; rc=1; }

step env
{ date -u; uname -a; nvidia-smi; git log --oneline -1; \
  grep -m1 'model name' /proc/cpuinfo; nproc; } > "$out/env.txt" 2>&1
head -20 "$out/env.txt"

step build
if ! { cmake -S . -B $b -DHF_WERROR=ON && cmake --build $b -j16; } \
	> "$out/build.log" 2>&1; then
	tail -30 "$out/build.log"
	echo "FAIL: build (see build.log)"
	exit 1
fi

step "test_gpuwait on CUDA (HF_TEST_GPU=cuda)"
HF_TEST_GPU=cuda $b/bin/test_gpuwait > "$out/test_gpuwait-cuda.txt" 2>&1 ||
	fail "test_gpuwait on CUDA"
tail -3 "$out/test_gpuwait-cuda.txt"

step "test_gpuwait on the emulated GPU"
$b/bin/test_gpuwait > "$out/test_gpuwait-emu.txt" 2>&1 ||
	fail "test_gpuwait on the emulated GPU"
tail -3 "$out/test_gpuwait-emu.txt"

step "ctest: gpuwait, stream, ring, gpu layer (stream's GPU cases on CUDA)"
(cd $b && HF_TEST_GPU=cuda ctest -R 'gpuwait|stream|ring|gpu_layer' -j8 \
	--output-on-failure) > "$out/ctest.txt" 2>&1 || fail "ctest (see ctest.txt)"
grep -E 'tests passed|tests failed' "$out/ctest.txt"

for mode in msix poll; do
	dev=$card
	[ $mode = poll ] && dev=$card,irq=poll
	step "bench gpuwait, $dev"
	HELLOFPGA_GPU=cuda $b/bin/hellofpga -d "$dev" bench --sections gpuwait \
		--iters "$iters" --json "$out/gpuwait-$mode.json" \
		> "$out/gpuwait-$mode.txt" 2> "$out/gpuwait-$mode.err" ||
		fail "bench gpuwait ($mode), see gpuwait-$mode.err"
	cat "$out/gpuwait-$mode.txt"
	tail -5 "$out/gpuwait-$mode.err"
done

step done
echo "results in $out; exit status $rc"
exit $rc
