#!/bin/sh
# SPDX-License-Identifier: MIT
# stuck.sh - SIGKILL ends a transfer stuck on the card (stall fault) at
# once, whatever the completion mode (in poll mode the wait looks for fatal
# signals at least every 100 us): hf_stop -m stuck, with hellofpga.ko
# reloaded with timeout_ms=30000 so that only the signal can end it in time
# (docs/driver-stop.md); then the configuration's parameters again.
. "${HF_GUEST_LIB:-/tests/case-lib.sh}"
if ! hf_reload timeout_ms=30000; then
	echo "FAIL stuck/reload: $(head -c 200 /tmp/hf_reload.out)"
	hf_restore stuck
	exit 1
fi
hf_prog stuck 120 hf_stop -d "$CARD" -m stuck
# the stall ends even if the program did not end it
printf '\000\000\000\000' | dd of="${CARD}_user" bs=4 seek=$((0xf000 / 4)) count=1 conv=notrunc 2>/dev/null
hf_restore stuck
exit $hf_rc
