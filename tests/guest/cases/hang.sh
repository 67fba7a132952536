#!/bin/sh
# SPDX-License-Identifier: MIT
# hang.sh - hang, then recover (hf_wedge, docs/driver-stop.md "Wedged
# channels"): the card's hang fault (fault window bit 4) holds every engine,
# so stopped runs cannot be proven idle and their channels wedge; refused at
# once meanwhile, they work again once the hang is over and the kept memory
# is released.  hellofpga.ko is reloaded with timeout_ms=1000 and
# stop_wait_ms=100 for it, then with the configuration's parameters again.
# With a second card (twocards) it must work during card 0's hang.
. "${HF_GUEST_LIB:-/tests/case-lib.sh}"
if ! hf_reload timeout_ms=1000 stop_wait_ms=100; then
	echo "FAIL hang/reload: $(head -c 200 /tmp/hf_reload.out)"
	hf_restore hang
	exit 1
fi
hf_kmark hang
other=
for c in $CARDS; do [ "$c" != "$CARD" ] && other="-o $c"; done
# shellcheck disable=SC2086 # $other: an option and its value, or nothing
hf_prog hang 120 hf_wedge -d "$CARD" $other -t 1000
# the hang ends if the program did not end it
printf '\000\000\000\000' | dd of="${CARD}_user" bs=4 seek=$((0xf000 / 4)) count=1 conv=notrunc 2>/dev/null
hf_restore hang && echo "PASS hang/reload-after"
k=$(hf_kbad hang)
if [ -z "$k" ]; then echo "PASS hang/dmesg-clean"; else echo "FAIL hang/dmesg-clean: $k"; hf_rc=1; fi
exit $hf_rc
