#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# synth.sh [DATA_W [NUM_C2H NUM_H2C]] - synthesis of the reference design's
# RTL (refdesign/rtl, top hf_refdesign, default 256 bits, 4 + 4 channels)
# with yosys for AMD/Xilinx UltraScale (synth_xilinx -family xcu) and
# UltraScale+ (-family xcup), flattened, no I/O buffers (a core, not a
# chip): prints LUT, FF, BRAM (36 Kb blocks; an 18 Kb one counts half),
# DSP, and the LUTs used as memory (LUTRAM, SRL) and carry chains.  Yosys
# takes minutes per family, so the figures are kept under
# ${HF_CACHE:-/var/cache/hellofpga}/yosys, keyed by a hash of the RTL, this
# script, the yosys version and the parameters: an unchanged RTL prints
# them again without running yosys.  Exit 77 (skip) without yosys.
set -euo pipefail
self=$(readlink -f "$0")
here=$(dirname "$self")
w=${1:-256} nc=${2:-4} nh=${3:-4}
command -v yosys >/dev/null || { echo "SKIP: no yosys"; exit 77; }

cache=${HF_CACHE:-}
if [ -z "$cache" ]; then
	if [ "$(id -u)" = 0 ]; then
		cache=/var/cache/hellofpga
	else
		cache=${XDG_CACHE_HOME:-$HOME/.cache}/hellofpga
	fi
fi
cache=$cache/yosys
mkdir -p "$cache"
srcs=(hf_refdesign.sv hf_axil_regs.sv hf_usr_irq.sv hf_st_src.sv
      hf_st_sink.sv hf_st_loop.sv hf_ram.sv)
key=$( { cd "$here" && cat "${srcs[@]}" hf_pattern.svh "$self"; yosys -V;
	 echo "$w $nc $nh"; } | sha256sum | cut -c1-16)
out=$cache/synth-$w-$nc-$nh-$key.txt
if [ -f "$out" ]; then
	echo "(cached: $out)"
	cat "$out"
	exit 0
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# count STAT CELL...: the sum of those cells in yosys' stat output
count() {
	local f=$1
	shift
	awk -v cells="$*" 'BEGIN { n = split(cells, c, " "); for (i = 1; i <= n; i++) want[c[i]] = 1 }
		$1 in want { s += $2 } END { print s + 0 }' "$f"
}
{
	printf 'hf_refdesign DATA_W=%s NUM_C2H=%s NUM_H2C=%s, %s\n' "$w" "$nc" "$nh" "$(yosys -V)"
	printf '%-6s %7s %7s %6s %5s %7s %6s %6s\n' family LUT FF BRAM DSP LUTRAM SRL CARRY
} >"$tmp/table"
for fam in xcu xcup; do
	(cd "$here" && yosys -q -l "$tmp/$fam.log" -p "
		read_verilog -sv ${srcs[*]}
		hierarchy -top hf_refdesign -chparam DATA_W $w -chparam NUM_C2H $nc -chparam NUM_H2C $nh
		synth_xilinx -family $fam -flatten -noiopad
		tee -q -o $tmp/$fam.stat stat") >/dev/null 2>&1 || {
		echo "FAIL: yosys ($fam), log:"
		tail -n 30 "$tmp/$fam.log"
		exit 1
	}
	s=$tmp/$fam.stat
	b36=$(count "$s" RAMB36E2)
	b18=$(count "$s" RAMB18E2)
	printf '%-6s %7s %7s %6s %5s %7s %6s %6s\n' "$fam" \
		"$(count "$s" LUT1 LUT2 LUT3 LUT4 LUT5 LUT6)" \
		"$(count "$s" FDRE FDSE FDCE FDPE)" \
		"$(awk -v a="$b36" -v b="$b18" 'BEGIN { print a + b / 2 }')" \
		"$(count "$s" DSP48E2)" \
		"$(count "$s" RAM32M RAM64M RAM32M16 RAM64M8 RAM32X1D RAM64X1D RAM128X1D RAM256X1D RAM512X1S RAM32X1S RAM64X1S RAM128X1S RAM256X1S)" \
		"$(count "$s" SRL16E SRLC32E)" \
		"$(count "$s" CARRY4 CARRY8)" >>"$tmp/table"
done
cp "$tmp/table" "$out.tmp.$$" && mv "$out.tmp.$$" "$out"
cat "$out"
