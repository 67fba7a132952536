#!/bin/sh
# stop64.sh - a 64 MiB one-descriptor transfer that times out, or whose
# process is killed, on a card with a slow link (xdma-sim link=gen1x1: the
# descriptor takes ~290 ms; card 1 of the twocards configuration, under the
# vIOMMU): the driver proves the engine idle before it gives the memory
# back, so nothing is written after UNPIN / exit and the vIOMMU sees no
# fault (hf_stop -m timeout, -m kill; docs/driver-stop.md).  The same with
# device_del during the transfer is in twocards.sh (hf_stop -m unplug).
# Skipped without a card on a Gen1 x1 link.
CARDS=${HF_GUEST_CARDS:-${HF_GUEST_CARD:-/dev/hellofpga0}}
rc=0
slow=
for c in $CARDS; do
	d=/sys/class/hellofpga/${c##*/}_control/device
	if [ "$(cat "$d/current_link_speed" 2>/dev/null)" = "2.5 GT/s PCIe" ] &&
		[ "$(cat "$d/current_link_width" 2>/dev/null)" = 1 ]; then
		slow=$c
		break
	fi
done
if [ -z "$slow" ]; then
	echo "SKIP stop64/all: no card on a PCIe Gen1 x1 link here (the twocards configuration has one)"
	exit 0
fi
for m in timeout kill; do
	timeout 120 hf_stop -d "$slow" -m $m >/tmp/stop64.out 2>&1
	r=$?
	cat /tmp/stop64.out
	if ! grep -q -E '^(PASS|FAIL|SKIP) ' /tmp/stop64.out; then
		echo "FAIL stop64/$m: hf_stop exit $r without a result line"
		rc=1
	elif [ $r != 0 ]; then
		rc=1
	fi
done
exit $rc
