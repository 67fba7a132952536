#!/bin/sh
# SPDX-License-Identifier: MIT
# xilinx-compat.sh - as root, what Xilinx's reference tools (dma_ip_drivers,
# XDMA/linux-kernel/tools) do with hellofpga.ko's nodes, through programs
# of our own that do the same: reg_rw (hf_regrw: mmap of the control and
# user nodes, byte/halfword/word reads and writes at an offset) and
# dma_to_device -k / dma_from_device -k (hf_aperture: IOCTL_XDMA_APERTURE_W
# and _R), with the data checked; then hf_aperture check: the aperture
# semantics and every refusal.  (dma_to_device/dma_from_device without -k
# are dd on the h2c/c2h nodes: cases/faults.sh.)
CARD=${HF_GUEST_CARD:-/dev/hellofpga0}
C=${CARD}_control
U=${CARD}_user
. "${HF_GUEST_LIB:-/tests/case-lib.sh}"
HF_GROUP=xilinx
# rr NAME EXPECT ARGS...: hf_regrw ARGS prints "... = EXPECT"
rr() {
	n=$1 want=$2
	shift 2
	out=$(hf_regrw "$@" 2>&1)
	got=${out##*= }
	if [ "$got" = "$want" ]; then
		pass "$n" "$out"
	else
		fail "$n" "hf_regrw $*: '$out', expected $want"
	fi
}
# rr_match NAME PATTERN ARGS...: the value printed matches PATTERN (case)
rr_match() {
	n=$1 pat=$2
	shift 2
	out=$(hf_regrw "$@" 2>&1)
	# shellcheck disable=SC2254
	case ${out##*= } in
	$pat) pass "$n" "$out" ;;
	*) fail "$n" "hf_regrw $*: '$out', expected $pat" ;;
	esac
}

for p in hf_regrw hf_aperture; do
	command -v $p >/dev/null || { echo "FAIL xilinx/progs: $p missing from /tests/bin"; exit 1; }
done

# ------------------------------------------------ reg_rw: control node --
rr_match regrw-control-read32 '0x1fc0????' "$C" 0x0 w
rr regrw-control-read16 0x1fc0 "$C" 0x2 h
rr regrw-control-read8 0x1f "$C" 0x3 b
hf_regrw "$C" 0x3060 w 0x15 >/dev/null
rr regrw-control-write32 0x15 "$C" 0x3060 w
hf_regrw "$C" 0x3060 b 0x0a >/dev/null
rr regrw-control-write8 0xa "$C" 0x3060 b
hf_regrw "$C" 0x3060 w 0 >/dev/null
# the MSI-X table at 0x8000 is not mapped
out=$(hf_regrw "$C" 0x8000 w 2>&1)
case $out in
*"mmap"*"Invalid argument"*) pass regrw-control-msix-table-refused "$out" ;;
*) fail regrw-control-msix-table-refused "hf_regrw $C 0x8000: '$out'" ;;
esac

# --------------------------------------------------- reg_rw: user node --
rr regrw-user-read32-id 0x48465047 "$U" 0x0 w
hf_regrw "$U" 0x1004 w 0x11223344 >/dev/null
rr regrw-user-write32 0x11223344 "$U" 0x1004 w
rr regrw-user-read8 0x44 "$U" 0x1004 b
rr regrw-user-read8-odd 0x33 "$U" 0x1005 b
rr regrw-user-read16 0x1122 "$U" 0x1006 h
hf_regrw "$U" 0x1009 b 0x5a >/dev/null
rr regrw-user-write8-odd 0x5a "$U" 0x1009 b
hf_regrw "$U" 0x100a h 0xbeef >/dev/null
rr regrw-user-write16 0xbeef "$U" 0x100a h
rr regrw-user-second-page 0x0 "$U" 0x2ffc w

# ------------------------------- dma_to_device -k / dma_from_device -k --
# 128 KiB through a 64 KiB window: the window holds the second half
A=$((0x6000000)) K=$((0x10000))
dd if=/dev/urandom of=/tmp/x.src bs=65536 count=2 2>/dev/null
dd if=/tmp/x.src of=/tmp/x.want bs=65536 skip=1 count=1 2>/dev/null
if hf_aperture write -d "${CARD}_h2c_0" -a $A -k $K -s 0x20000 -f /tmp/x.src >/tmp/x.out 2>&1 &&
	dd if="${CARD}_c2h_0" of=/tmp/x.win bs=65536 skip=$A iflag=skip_bytes count=1 2>/dev/null &&
	cmp -s /tmp/x.want /tmp/x.win; then
	pass dma_to_device-k "$(cat /tmp/x.out)"
else
	fail dma_to_device-k "$(tr '\n' ' ' </tmp/x.out | head -c 200); window differs from the data's second half"
fi
# 192 KiB back through it, into a buffer 100 bytes into a page (-o)
cat /tmp/x.want /tmp/x.want /tmp/x.want >/tmp/x.want3
if hf_aperture read -d "${CARD}_c2h_1" -a $A -k $K -s 0x30000 -o 100 -w /tmp/x.got >/tmp/x.out 2>&1 &&
	cmp -s /tmp/x.want3 /tmp/x.got; then
	pass dma_from_device-k "$(cat /tmp/x.out)"
else
	fail dma_from_device-k "$(tr '\n' ' ' </tmp/x.out | head -c 200); not the window three times"
fi

# ----------------------------------------------- semantics, refusals --
timeout 120 hf_aperture check -d "$CARD" >/tmp/x.out 2>&1
r=$?
grep -E '^(PASS|FAIL|SKIP) ' /tmp/x.out
grep -q '^FAIL ' /tmp/x.out && rc=1
if [ $r != 0 ] && ! grep -q '^FAIL ' /tmp/x.out; then
	fail aperture-check "exit $r: $(tail -n 2 /tmp/x.out | tr '\n' ' ')"
fi
exit $rc
