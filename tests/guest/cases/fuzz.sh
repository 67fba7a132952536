#!/bin/sh
# SPDX-License-Identifier: MIT
# fuzz.sh - the bounded random fuzzer of the driver's nodes and ioctls
# (hf_fuzz, progs/hf_fuzz.c: what it calls, from how many processes, and
# which errnos each call may return), on every node of every card, for
# hf_fuzz=SECONDS of the kernel command line (the fuzz configuration: a
# memory-mapped card on a slow link and an AXI-Stream card, under
# slub_debug and the strict vIOMMU); skipped in configurations without it.
# Two runs of half the time each: the module reloaded with poll_mode=1
# (results fuzz-poll/*), then in the configuration's completion mode
# (MSI-X: fuzz/*).  Each runs as root without capabilities but CAP_SYSLOG
# (hf_runas -u 0 -c 34: raw register access refused, pins count against
# RLIMIT_MEMLOCK, 256 MiB; /dev/kmsg readable, where it sees the driver's
# recoveries), prints its seed first (hf_fuzz_seed=N on the kernel command
# line replays both runs, the second with N+1; hf_fuzz -S N by hand),
# kills and replaces its worker processes at random times and, with the
# QMP channel (hf_qmp=1), asks the host for a non-fatal AER error into
# each card mid-run; it checks at the end that no pin or ring is left and
# every channel still works; the dmesg scan after each run is the check
# for kernel splats.  hellofpga.ko is reloaded afterwards, so later cases
# find it as loaded.
. "${HF_GUEST_LIB:-/tests/case-lib.sh}"
secs=$(sed -n 's/.*hf_fuzz=\([0-9]*\).*/\1/p' /proc/cmdline)
seed=$(sed -n 's/.*hf_fuzz_seed=\([0-9]*\).*/\1/p' /proc/cmdline)
if [ -z "$secs" ]; then
	echo "SKIP fuzz/all: no hf_fuzz=SECONDS in this configuration (the fuzz configuration has it)"
	exit 0
fi
# the cards' QMP ids (run-config.sh: card, card1) for the AER requests
aer=
if grep -q 'hf_qmp=1' /proc/cmdline; then
	n=0
	for c in $CARDS; do
		id=card
		[ $n -gt 0 ] && id=card$n
		aer="$aer -A $id:$n"
		n=$((n + 1))
	done
fi
rc=0
# run GROUP SECONDS [SEED]: one run of the fuzzer, its results, dmesg
run() {
	hf_kmark "$1"
	# shellcheck disable=SC2086 # $aer, $CARDS: several words
	timeout $(($2 + 150)) hf_runas -u 0 -g 0 -m 256M -c 34 -- \
		hf_fuzz -v -g "$1" -s "$2" ${3:+-S "$3"} $aer $CARDS >"/tmp/$1.out" 2>&1
	r=$?
	cat "/tmp/$1.out"
	# the seed and the calls per operation, for the host log (not result lines)
	grep -E '^seed |^# ' "/tmp/$1.out" | sed "s/^/# FUZZ $1 /" >/dev/console 2>/dev/null
	if ! grep -q -E "^(PASS|FAIL|SKIP) $1/errnos" "/tmp/$1.out"; then
		echo "FAIL $1/run: hf_fuzz exit $r before its verdict ($(grep '^seed' "/tmp/$1.out")): $(tail -n 2 "/tmp/$1.out" | tr '\n' ' ' | head -c 200)"
		rc=1
	elif [ $r != 0 ]; then
		rc=1
	fi
	k=$(hf_kbad "$1")
	if [ -z "$k" ]; then
		echo "PASS $1/dmesg-clean"
	else
		echo "FAIL $1/dmesg-clean: $(grep '^seed' "/tmp/$1.out"): $k"
		rc=1
	fi
}
half=$((secs / 2))
# poll mode first: where a forged writeback word would end an XFER early
case " $MODPARAMS " in
*" poll_mode=1 "*) half=0 ;;
*)
	if hf_reload poll_mode=1; then
		run fuzz-poll $half ${seed:+$((seed + 1))}
	else
		echo "FAIL fuzz-poll/reload: $(head -c 200 /tmp/hf_reload.out)"
		rc=1
	fi
	hf_restore fuzz-poll
	;;
esac
run fuzz $((secs - half)) $seed
# a fresh module for what follows (user interrupts, file positions, ...)
hf_restore fuzz && echo "PASS fuzz/reload-after"
[ $hf_rc = 0 ] || rc=1
exit $rc
