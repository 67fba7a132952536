#!/bin/sh
# SPDX-License-Identifier: MIT
# efficiency.sh - per-transfer efficiency counts of the card model (its
# counter window at BAR0 + 0xf000, -device xdma-sim,fault-regs=on): MMIO
# reads, MMIO writes, descriptors fetched, interrupts and writebacks per
# transfer of 4 KiB, 64 KiB and 4 MiB, on the CPU path (pwrite/pread of the
# h2c_0/c2h_0 nodes) and the GPU path (GPUDirect_Xfer on emulated GPU
# memory pinned with PIN_HOST), averaged over N transfers (hf_eff,
# tests/guest/progs/hf_eff.c), each checked against the driver's targets
# for the interrupt mode (hf_eff's file comment: no MMIO read in msix and
# poll, at most 2 writes on a reused chain, one interrupt) and its
# descriptors against the buffer's physically contiguous runs.  Runs in
# the msix, msi, legacy and poll configurations (no IOMMU: bus addresses
# are physical); elsewhere it is skipped.
#
# Prints PASS eff/PATH-DIR-SIZE lines with the numbers, and "# EFF ..."
# lines straight to the console so the host log (build-guest/logs/CONFIG.log)
# keeps them; docs/results/2026-11-29-efficiency/ is made from them.
CARD=${HF_GUEST_CARD:-/dev/hellofpga0}
CFG=${HF_GUEST_CONFIG:-?}
case $CFG in
msix | msi | legacy | poll) ;;
*)
	echo "SKIP eff/all: measured in the msix, msi, legacy and poll configurations only; this is $CFG"
	exit 0
	;;
esac
if ! command -v hf_eff >/dev/null 2>&1; then
	echo "FAIL eff/prog: hf_eff missing from /tests/bin"
	exit 1
fi
HELLOFPGA_GPU=emu timeout 300 hf_eff -c -d "$CARD" -m "$CFG" 4K 64K 4M >/tmp/eff.out 2>&1
rc=$?
cat /tmp/eff.out
# the "# EFF" lines are not result lines: the harness keeps only those in
# its log unless something failed, so write them to the console as well
grep '^# EFF' /tmp/eff.out >/dev/console 2>/dev/null
if ! grep -q -E '^(PASS|FAIL|SKIP) ' /tmp/eff.out; then
	echo "FAIL eff/hf_eff: exit $rc without a result line"
	exit 1
fi
if [ $rc != 0 ] && ! grep -q '^FAIL ' /tmp/eff.out; then
	echo "FAIL eff/hf_eff: exit $rc"
fi
exit $rc
