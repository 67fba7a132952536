#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# board_rtl.sh SOURCE_DIR - refdesign/board/hf_refdesign_bd.v, the wrapper a
# Vivado block design instantiates, is Verilog-2001 (a module reference
# cannot have a SystemVerilog top) and elaborates with the design's RTL
# (refdesign/rtl/*.sv) under verilator --lint-only -Wall, clean, for an
# AXI-Stream card at 256 bits (KCU105, KCU116) and a memory-mapped card at
# 64 bits with fewer channels (the tie-offs).  Skips (77) without the RTL
# or without Verilator.
set -euo pipefail
src=$1
rtl=$src/refdesign/rtl
[ -f "$rtl/hf_refdesign.sv" ] || { echo "SKIP: no $rtl/hf_refdesign.sv (the RTL)"; exit 77; }
command -v verilator >/dev/null || { echo "SKIP: no verilator"; exit 77; }

shopt -s nullglob
files=("$src/refdesign/board/hf_refdesign_bd.v" "$rtl"/*.sv)
fail=0
for params in "-GDATA_W=256 -GST=1" "-GDATA_W=64 -GST=0 -GNUM_C2H=2 -GNUM_H2C=1"; do
	# +1364-2001ext+v: .v files are Verilog-2001, SystemVerilog in the
	# wrapper is an error
	# shellcheck disable=SC2086
	if ! verilator --lint-only -Wall +1364-2001ext+v -I"$rtl" \
		--top-module hf_refdesign_bd $params "${files[@]}"; then
		echo "FAIL: hf_refdesign_bd $params"
		fail=1
	fi
done
[ $fail = 0 ] && echo "PASS: hf_refdesign_bd.v lints clean with refdesign/rtl/*.sv"
exit $fail
