#!/bin/sh
# SPDX-License-Identifier: MIT
# stop64.sh - a 64 MiB one-descriptor transfer that times out, or whose
# process is killed, on a card with a slow link (xdma-sim link=gen1x1: the
# descriptor takes ~290 ms; card 1 of the twocards configuration, under the
# vIOMMU): the driver proves the engine idle before it gives the memory
# back, so nothing is written after UNPIN / exit and the vIOMMU sees no
# fault (hf_stop -m timeout, -m kill; docs/driver-stop.md).  Meanwhile
# another file's XFER on the held channel ends at its timeout with EBUSY
# (hf_stop -m busy).  XFER_WB runs whose writeback word says "done" long
# before the card is, forged by a thread or written by the card's own data
# (in MSI-X mode with stray interrupts as wake-ups), end only with the
# descriptor, and UNPIN right after lets the card write nothing (hf_stop -m
# wb; docs/driver-stop.md "Words a user or a GPU can write"), in the
# configuration's completion mode and, the module reloaded, in poll mode.
# The same with device_del during the transfer is in twocards.sh (hf_stop
# -m unplug).
# Skipped without a card on a Gen1 x1 link.
. "${HF_GUEST_LIB:-/tests/case-lib.sh}"
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
hf_prog stop64 120 hf_stop -d "$slow" -m timeout
hf_prog stop64 120 hf_stop -d "$slow" -m kill
hf_prog stop64 120 hf_stop -d "$slow" -m busy
hf_prog stop64 120 hf_stop -d "$slow" -m wb
if hf_reload poll_mode=1; then
	hf_prog stop64 120 hf_stop -d "$slow" -m wb
	hf_restore stop64
else
	echo "FAIL stop64/wb-poll-reload: $(head -c 200 /tmp/hf_reload.out)"
	hf_rc=1
	hf_restore stop64
fi
exit $hf_rc
