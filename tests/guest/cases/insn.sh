#!/bin/sh
# SPDX-License-Identifier: MIT
# insn.sh - guest kernel instructions per transfer (issue 13): write() on
# h2c_0, read() on c2h_0 and GPUDirect_Xfer H2C / C2H on emulated GPU
# memory, 4 KiB and 4 MiB, each N times between two marker instructions
# (hf_insn, tests/guest/progs/hf_insn.c) that the TCG plugin
# tests/guest/plugin/hf_insn.c counts between.  Needs the plugin: the
# configurations with CFG_PLUGIN=insn (insn-msix, insn-poll) load it and put
# hf_insn=1 on the kernel command line; elsewhere this is skipped.
#
# The plugin writes the counts into QEMU's log on the host, which the
# guest cannot read: this case only runs the transfers (PASS insn/NAME
# when they all worked) and writes hf_insn's legend ("# HF-INSN-LEGEND
# label=L name=..." lines) to the console; run-config.sh joins the two
# into logs/CONFIG.log.insn and checks that every label got its counts
# (host/insn-*).
CARD=${HF_GUEST_CARD:-/dev/hellofpga0}
if ! grep -q -w 'hf_insn=1' /proc/cmdline; then
	echo "SKIP insn/all: the hf_insn TCG plugin is not loaded (CFG_PLUGIN=insn: insn-msix, insn-poll; this is ${HF_GUEST_CONFIG:-?})"
	exit 0
fi
if ! command -v hf_insn >/dev/null 2>&1; then
	echo "FAIL insn/prog: hf_insn missing from /tests/bin"
	exit 1
fi
HELLOFPGA_GPU=emu timeout 300 hf_insn -d "$CARD" 4K 4M >/tmp/insn.out 2>&1
rc=$?
cat /tmp/insn.out
# the legend is not a result line: straight to the console (the host log)
grep '^# HF-INSN-LEGEND' /tmp/insn.out >/dev/console 2>/dev/null
if ! grep -q -E '^(PASS|FAIL|SKIP) ' /tmp/insn.out; then
	echo "FAIL insn/hf_insn: exit $rc without a result line"
	exit 1
fi
if [ $rc != 0 ] && ! grep -q '^FAIL ' /tmp/insn.out; then
	echo "FAIL insn/hf_insn: exit $rc"
fi
exit $rc
