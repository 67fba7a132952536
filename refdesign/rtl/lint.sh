#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# lint.sh - verilator --lint-only -Wall over the reference design's RTL
# (refdesign/rtl): the top hf_refdesign at every data width (64, 128, 256,
# 512), as an AXI-Stream card (ST=1) and a memory-mapped one (ST=0), with
# 4/4, 1/3 and 3/1 channels, and hf_timer (a board's, not in the top).
# Prints each configuration that is not clean; exit 1 if any, 77 (skip)
# without verilator.
set -euo pipefail
cd "$(dirname "$(readlink -f "$0")")"
command -v verilator >/dev/null || { echo "SKIP: no verilator"; exit 77; }

srcs=(hf_refdesign.sv hf_axil_regs.sv hf_usr_irq.sv hf_st_src.sv
      hf_st_sink.sv hf_st_loop.sv hf_ram.sv)
fail=0 n=0
# lint ARGS...: one configuration
lint() {
	n=$((n + 1))
	if ! out=$(verilator --lint-only -Wall "$@" 2>&1); then
		echo "FAIL: verilator --lint-only -Wall $*"
		echo "$out"
		fail=1
	fi
}
for w in 64 128 256 512; do
	for st in 1 0; do
		lint --top-module hf_refdesign -GDATA_W=$w "-GST=1'b$st" "${srcs[@]}"
	done
done
for ch in "1 3" "3 1"; do
	set -- $ch
	lint --top-module hf_refdesign -GNUM_C2H=$1 -GNUM_H2C=$2 "${srcs[@]}"
done
lint --top-module hf_timer hf_timer.sv
[ $fail = 0 ] && echo "PASS: verilator --lint-only -Wall clean in $n configurations"
exit $fail
