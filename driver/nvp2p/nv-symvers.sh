#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
# nv-symvers.sh - a Module.symvers of the nvidia_p2p_* symbols that a built
# module exports, with the symbol versions (CRCs) in that module.
#
#	nv-symvers.sh MODULE OUT
#
# MODULE: a .ko (also .ko.xz, .ko.zst, .ko.gz), normally the installed
# nvidia.ko (modinfo -k KVER -n nvidia).  OUT: the Module.symvers to write,
# for NVIDIA_SYMVERS= of driver/nvp2p/Makefile, so that the CRCs
# hellofpga-nvp2p.ko records are nvidia.ko's own rather than the stub's.
# Reads the CRCs both ways kernels store them: absolute __crc_SYM symbols
# (up to 5.18) and __crc_SYM data in a __kcrctab section (5.19 on); a
# module built without CONFIG_MODVERSIONS has none (CRC 0, as modpost
# writes then).
#
# Exit status: 0 written; 1 MODULE exports no nvidia_p2p_* symbol or cannot
# be read (OUT is not written); 2 bad command line.  Needs binutils (nm,
# objdump, readelf) and od; xz, zstd or gzip for a compressed module.
set -eu

[ $# -eq 2 ] || { echo "usage: $0 MODULE OUT" >&2; exit 2; }
ko=$1 out=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nv-symvers.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

case $ko in
*.xz) xz -dc <"$ko" >"$tmp/m.ko" ;;
*.zst) zstd -qdc <"$ko" >"$tmp/m.ko" ;;
*.gz) gzip -dc <"$ko" >"$tmp/m.ko" ;;
*) cp "$ko" "$tmp/m.ko" ;;
esac || { echo "$0: cannot read $ko" >&2; exit 1; }

# the exported nvidia_p2p_* symbols (__ksymtab_SYM, each export has one)
nm "$tmp/m.ko" 2>/dev/null | sed -n 's/.* __ksymtab_\(nvidia_p2p_[A-Za-z0-9_]*\)$/\1/p' |
	sort -u >"$tmp/syms"
if [ ! -s "$tmp/syms" ]; then
	echo "$0: $ko exports no nvidia_p2p_* symbol" >&2
	exit 1
fi
# objdump -t: VALUE FLAGS SECTION SIZE NAME, for the __crc_ symbols
objdump -t "$tmp/m.ko" | awk '$NF ~ /^__crc_nvidia_p2p_/ {
	print substr($NF, 7), $1, $(NF - 2) }' >"$tmp/crcs"
mod=$(basename "$ko")
mod=${mod%%.ko*}
: >"$tmp/out"
while read -r sym; do
	crc=0x00000000
	# shellcheck disable=SC2034 # the name field, read to skip it
	while read -r name value section; do
		[ "$name" = "$sym" ] || continue
		if [ "$section" = "*ABS*" ]; then
			crc=0x$(printf '%s' "$value" | tail -c 8)
		else
			# the section's file offset (readelf reads any
			# architecture's ELF), the CRC at VALUE in it
			off=$(readelf -SW "$tmp/m.ko" | sed 's/^ *\[ *[0-9]*\]//' |
				awk -v s="$section" '$1 == s { print $4 }')
			v=
			[ -z "$off" ] || v=$(od -An -tx4 -j $((0x$off + 0x$value)) -N4 "$tmp/m.ko" | tr -d ' ')
			[ -n "$v" ] || { echo "$0: no CRC of $sym in $section" >&2; exit 1; }
			crc=0x$v
		fi
	done <"$tmp/crcs"
	printf '%s\t%s\t%s\tEXPORT_SYMBOL\t\n' "$crc" "$sym" "$mod" >>"$tmp/out"
done <"$tmp/syms"
mv "$tmp/out" "$out"
