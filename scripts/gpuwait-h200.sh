#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# gpuwait-h200.sh [OUTDIR] - GPU-side completion (HelloFPGA_Stream_WaitOnGPU
# on an AXI-Stream card, HelloFPGA_GPUDirect_Submit on a memory-mapped one)
# on a machine with a real NVIDIA GPU and no kernel modules: the emulated
# card in shared memory, the real GPU through CUDA.  Builds into build-gpu/,
# runs the new tests on CUDA and on the emulated GPU, the stream tests,
# and "hellofpga bench --sections gpuwait" (MSI-X and poll mode, both
# kinds of card), saving
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
mmcard=${HF_GPUWAIT_MM_CARD:-emu:1,private}
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

for t in test_gpuwait test_submit; do
	step "$t on CUDA (HF_TEST_GPU=cuda)"
	HF_TEST_GPU=cuda $b/bin/$t > "$out/$t-cuda.txt" 2>&1 ||
		fail "$t on CUDA"
	tail -3 "$out/$t-cuda.txt"

	step "$t on the emulated GPU"
	$b/bin/$t > "$out/$t-emu.txt" 2>&1 ||
		fail "$t on the emulated GPU"
	tail -3 "$out/$t-emu.txt"
done

step "ctest: gpuwait, submit, stream, ring, gpu layer (GPU cases on CUDA)"
(cd $b && HF_TEST_GPU=cuda ctest -R 'gpuwait|submit|stream|ring|gpu_layer' -j8 \
	--output-on-failure) > "$out/ctest.txt" 2>&1 || fail "ctest (see ctest.txt)"
grep -E 'tests passed|tests failed' "$out/ctest.txt"

for kind in st mm; do
	for mode in msix poll; do
		dev=$card
		[ $kind = mm ] && dev=$mmcard
		[ $mode = poll ] && dev=$dev,irq=poll
		name=gpuwait-$mode
		[ $kind = mm ] && name=gpuwait-mm-$mode
		step "bench gpuwait, $dev"
		HELLOFPGA_GPU=cuda $b/bin/hellofpga -d "$dev" bench \
			--sections gpuwait --iters "$iters" \
			--json "$out/$name.json" \
			> "$out/$name.txt" 2> "$out/$name.err" ||
			fail "bench gpuwait ($kind, $mode), see $name.err"
		cat "$out/$name.txt"
		tail -5 "$out/$name.err"
	done
done

step done
echo "results in $out; exit status $rc"
exit $rc
