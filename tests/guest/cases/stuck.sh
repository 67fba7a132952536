#!/bin/sh
# stuck.sh - SIGKILL ends a transfer stuck on the card (stall fault) at
# once, whatever the completion mode (in poll mode the wait looks for fatal
# signals at least every 100 us): hf_stop -m stuck, with hellofpga.ko
# reloaded with timeout_ms=30000 so that only the signal can end it in time
# (docs/driver-stop.md); then the configuration's parameters again.
CARD=${HF_GUEST_CARD:-/dev/hellofpga0}
CARDS=${HF_GUEST_CARDS:-$CARD}
MODS=${HF_GUEST_MODULES:-/lib/modules-extra}
MODPARAMS=$(sed -n 's/.*hf_modparams=\([^ ]*\).*/\1/p' /proc/cmdline | tr , ' ')
rc=0
wait_nodes() {
	for c in $CARDS; do
		i=0
		while [ ! -e "${c}_c2h_0" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
		[ -e "${c}_c2h_0" ] || return 1
	done
}
reload() {
	# a process of the case before may still be closing its files
	i=0
	until rmmod hellofpga >/tmp/stuck.rm 2>&1; do
		i=$((i + 1))
		[ $i -lt 50 ] || return 1
		sleep 0.2
	done
	insmod "$MODS/hellofpga.ko" $MODPARAMS "$@" >>/tmp/stuck.rm 2>&1 || return 1
	wait_nodes
}
if ! reload timeout_ms=30000; then
	echo "FAIL stuck/reload: $(head -c 200 /tmp/stuck.rm)"
	wait_nodes || { insmod "$MODS/hellofpga.ko" $MODPARAMS; wait_nodes; }
	exit 1
fi
timeout 120 hf_stop -d "$CARD" -m stuck >/tmp/stuck.out 2>&1
r=$?
cat /tmp/stuck.out
if ! grep -q -E '^(PASS|FAIL|SKIP) ' /tmp/stuck.out; then
	echo "FAIL stuck/prog: hf_stop exit $r without a result line"
	rc=1
elif [ $r != 0 ]; then
	rc=1
fi
printf '\000\000\000\000' | dd of="${CARD}_user" bs=4 seek=$((0xf000 / 4)) count=1 conv=notrunc 2>/dev/null
if ! reload; then
	echo "FAIL stuck/reload-after: $(head -c 200 /tmp/stuck.rm)"
	rc=1
	wait_nodes || { insmod "$MODS/hellofpga.ko" $MODPARAMS; wait_nodes; }
fi
exit $rc
