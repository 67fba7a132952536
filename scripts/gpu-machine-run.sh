#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# gpu-machine-run.sh OUTDIR [STEPS...] - build and check hellofpga on a machine
# with a real NVIDIA GPU and CUDA, saving every log under OUTDIR.
# Steps (default: all): env build ctest test examples bench
#   env       nvidia-smi, driver and CUDA versions, CPU
#   build     CMake build into build-gpu/
#   ctest     the whole test suite (emulated card, emulated and real GPU)
#   test      hellofpga test (15 cases) on the emulated card with the real GPU
#   examples  install, compile examples/*.cu with nvcc, run them on emu
#   bench     hellofpga bench (CPU path) on the emulated card
set -uo pipefail
out=${1:?usage: $0 OUTDIR [STEPS...]}
shift
steps=${*:-env build ctest test examples bench}
mkdir -p "$out"
cd "$(dirname "$(readlink -f "$0")")/.."
export PATH=$PATH:/usr/local/cuda/bin
export HELLOFPGA_EMU_DIR=$(mktemp -d)
b=build-gpu
rc=0
step() { printf '\n===== %s (%s)\n' "$1" "$(date -u +%FT%TZ)"; }
for s in $steps; do
	case $s in
	env)
		step env
		{ date -u; uname -a; nvidia-smi; nvcc --version; \
		  grep -m1 'model name' /proc/cpuinfo; nproc; } > "$out/env.txt" 2>&1
		head -20 "$out/env.txt"
		;;
	build)
		step build
		{ cmake -S . -B $b -DHF_WERROR=ON && cmake --build $b -j"$(nproc)"; } \
			> "$out/build.txt" 2>&1 || { rc=1; tail -30 "$out/build.txt"; }
		;;
	ctest)
		step ctest
		(cd $b && ctest -j8 --output-on-failure) > "$out/ctest.txt" 2>&1 || rc=1
		grep -E 'tests passed|\*\*\*|Failed' "$out/ctest.txt" | head -30
		;;
	test)
		step "hellofpga test, real GPU"
		HELLOFPGA_GPU=cuda $b/bin/hellofpga -d emu:0,private test \
			--json "$out/test.json" > "$out/test.txt" 2>&1 || rc=1
		cat "$out/test.txt"
		;;
	examples)
		step examples
		{ cmake --install $b --prefix /tmp/hfprefix && \
		  for ex in gpudirect_four_steps transfer_mode frame_grabber gpu_pipeline; do \
			nvcc -I/tmp/hfprefix/include examples/$ex.cu \
				-L/tmp/hfprefix/lib -lHelloFPGACore -o /tmp/$ex && \
			echo "== $ex" && \
			dev=emu:0,private; \
			[ $ex = frame_grabber ] && dev=emu:0,private,st; \
			HELLOFPGA_DEVICE=$dev LD_LIBRARY_PATH=/tmp/hfprefix/lib \
				/tmp/$ex || exit 1; \
		  done; } > "$out/examples.txt" 2>&1 || rc=1
		cat "$out/examples.txt" | grep -v '^--' | tail -20
		;;
	bench)
		step bench
		$b/bin/hellofpga -d emu:0,private bench --json "$out/bench-cpu.json" \
			--csv "$out/bench-cpu.csv" > "$out/bench-cpu.txt" 2>&1 || rc=1
		cat "$out/bench-cpu.txt"
		;;
	esac
done
exit $rc
