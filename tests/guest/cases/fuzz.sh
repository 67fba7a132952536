#!/bin/sh
# SPDX-License-Identifier: MIT
# fuzz.sh - the bounded random fuzzer of the driver's nodes and ioctls
# (hf_fuzz, progs/hf_fuzz.c: what it calls and which errnos each call may
# return), on every node of every card, for hf_fuzz=SECONDS of the kernel
# command line (the twocards configuration: under slub_debug and the
# vIOMMU); skipped in configurations without it.  It runs as root without
# capabilities (hf_runas -u 0: raw register access refused, pins count
# against RLIMIT_MEMLOCK, 256 MiB), prints its seed first (hf_fuzz_seed=N
# on the kernel command line, or hf_fuzz -S N by hand, replays it), and
# checks at the end that no pin is left and every channel still works;
# the harness's dmesg scan afterwards is the check for kernel splats.
# hellofpga.ko is reloaded afterwards, so later cases find it as loaded.
. "${HF_GUEST_LIB:-/tests/case-lib.sh}"
secs=$(sed -n 's/.*hf_fuzz=\([0-9]*\).*/\1/p' /proc/cmdline)
seed=$(sed -n 's/.*hf_fuzz_seed=\([0-9]*\).*/\1/p' /proc/cmdline)
if [ -z "$secs" ]; then
	echo "SKIP fuzz/all: no hf_fuzz=SECONDS in this configuration (twocards has it)"
	exit 0
fi
rc=0
hf_kmark fuzz
timeout $((secs + 120)) hf_runas -u 0 -g 0 -m 256M -- \
	hf_fuzz -s "$secs" -t 4 ${seed:+-S "$seed"} $CARDS >/tmp/fuzz.out 2>&1
r=$?
cat /tmp/fuzz.out
# the seed and the calls per operation, for the host log (not result lines)
grep -E '^seed |^# ' /tmp/fuzz.out | sed 's/^/# FUZZ /' >/dev/console 2>/dev/null
if ! grep -q -E '^(PASS|FAIL|SKIP) fuzz/errnos' /tmp/fuzz.out; then
	echo "FAIL fuzz/run: hf_fuzz exit $r before its verdict ($(grep '^seed' /tmp/fuzz.out)): $(tail -n 2 /tmp/fuzz.out | tr '\n' ' ' | head -c 200)"
	rc=1
elif [ $r != 0 ]; then
	rc=1
fi
k=$(hf_kbad fuzz)
if [ -z "$k" ]; then
	echo "PASS fuzz/dmesg-clean"
else
	echo "FAIL fuzz/dmesg-clean: $(grep '^seed' /tmp/fuzz.out): $k"
	rc=1
fi
# a fresh module for what follows (user interrupts, file positions, ...)
hf_restore fuzz && echo "PASS fuzz/reload-after"
[ $hf_rc = 0 ] || rc=1
exit $rc
