#!/bin/sh
# SPDX-License-Identifier: MIT
# stream.sh - C2H AXI-Stream rings through the real driver, on a card with
# xdma-sim,st=on (the configurations stream and stream-poll): hf_stream
# (tests/guest/progs/hf_stream.c, raw ioctls: refusals, a sustained host
# ring with every frame verified, frames spanning buffers, records of
# varying length, timeouts and poll(), backpressure and drop with a
# consumer that falls behind, stop and restart, close, SIGKILL and fork
# while running, a ring in a host pin and in an nvidia_p2p pin of
# nvp2p-standin.ko with UNPIN refused and the free callback mid-stream,
# the card's removal (unbind) under a waiting ring, and bind again, H2C
# packets checked by the design's sink, a ring wedged by the hang fault,
# a PCIe error recovery under a waiting ring, a STOP killed while a WAIT
# held the channel, a RELEASE while a WAIT that began before the ring
# holds it), the rings' locked memory under RLIMIT_MEMLOCK as nobody
# (hf_memlock -s: rings stopped but mapped stay counted, a ring in a pin
# gives its descriptor storage back at STOP), then "hellofpga stream"
# through the library's kernel backend (host and GPU rings, records, drop
# mode), and last rmmod with a channel that a ring left wedged (hf_stream
# -W).  First hf_wb (tests/guest/progs/hf_wb.c): a ring's writeback slots
# in a host pin (HELLOFPGA_STREAM_WB_PIN: the card's writebacks in user
# memory, cleared on release, the error mark at stop and close, the
# refusals) and HelloFPGA_Stream_WaitOnGPU() on the emulated GPU through
# the kernel backend.  On a memory-mapped card it skips.
#
# Prints PASS/FAIL/SKIP lines named stream/...
CARD=${HF_GUEST_CARD:-/dev/hellofpga0}
. "${HF_GUEST_LIB:-/tests/case-lib.sh}"
HF_GROUP=stream
SA=$MODS/nvp2p-standin/desktop
loaded() { grep -q "^$(echo "$1" | tr - _) " /proc/modules; }

gflag=
if [ -f "$SA/nvp2p-standin.ko" ] && [ -f "$SA/hellofpga-nvp2p.ko" ] &&
	insmod "$SA/nvp2p-standin.ko" >/tmp/st-sa.out 2>&1 &&
	insmod "$SA/hellofpga-nvp2p.ko" use_persistent=0 >>/tmp/st-sa.out 2>&1; then
	gflag=-g
else
	skip gpu-modules "nvp2p-standin.ko / hellofpga-nvp2p.ko: $(head -c 200 /tmp/st-sa.out 2>/dev/null)"
fi

unload_gpu() {
	[ -n "$gflag" ] || return 0
	rmmod hellofpga_nvp2p >/dev/null 2>&1
	rmmod nvp2p_standin >/dev/null 2>&1
	if loaded hellofpga-nvp2p || loaded nvp2p-standin; then
		fail gpu-unload "the stand-in or the provider stays loaded: a pin leaked"
	else
		pass gpu-unload
	fi
}

hf_kmark stream
hf_prog stream 120 hf_wb -s -d "$CARD"
hf_prog stream 600 hf_stream -d "$CARD" $gflag -u
[ $hf_rc = 0 ] || rc=1
if grep -q '^SKIP stream/all' /tmp/hf_prog.out; then
	unload_gpu
	exit 0
fi
# the rings' locked memory under RLIMIT_MEMLOCK, as nobody
hf_prog stream 60 hf_memlock -s -d "$CARD"
[ $hf_rc = 0 ] || rc=1

# the library's kernel backend: hellofpga stream (verifies every frame)
cli() {
	_n=$1
	shift
	if timeout 300 hellofpga -d "$CARD" stream "$@" >/tmp/st-cli.out 2>&1; then
		pass "cli/$_n" "$(grep -i 'frames' /tmp/st-cli.out | head -n 1)"
	else
		fail "cli/$_n" "hellofpga stream $*: $(grep -v '^latency' /tmp/st-cli.out | tr '\n' ' ' | head -c 600)"
	fi
}
cli host-4k --frames 2000 --buffers 16
cli host-wrap-spanning --frames 300 --frame-size 20000 --buffers 4 --buffer-size 8192
cli records --frames 1000 --records 16-30000 --buffers 32
cli drop --frames 300 --rate 2000 --drop --buffers 4
if [ -n "$gflag" ]; then
	HELLOFPGA_GPU=emu HELLOFPGA_PIN=cuda HELLOFPGA_EMU_GPU_DEV=/dev/nvp2p-standin \
		cli gpu --gpu --frames 500 --buffers 8 --buffer-size 64K --frame-size 60000
fi

unload_gpu

# A channel left wedged by a ring (hf_stream -W: the hang fault for 8 s,
# STOP refused with EIO), then rmmod while it is wedged: removal turns bus
# mastering off and releases the ring's memory (dmesg), nothing leaks
# (module-unload checks what is left); once the hang is over the module
# loads again and streams.
hf_kmark stream-wedge
t0=$(hf_ms)
hf_prog stream 60 hf_stream -d "$CARD" -W 8000000
[ $hf_rc = 0 ] || rc=1
if rmmod hellofpga >/tmp/st-rm.out 2>&1; then
	pass wedge-rmmod "$(($(hf_ms) - t0)) ms after the wedge began"
else
	fail wedge-rmmod "rmmod with C2H0 wedged: $(head -c 200 /tmp/st-rm.out)"
fi
if dmesg | sed -n '/HF-MARK-stream-wedge$/,$p' |
	grep -q "C2H0: wedged run's memory released"; then
	pass wedge-rmmod-releases
else
	fail wedge-rmmod-releases "no \"C2H0: wedged run's memory released\" in dmesg since the wedge"
fi
while [ $(($(hf_ms) - t0)) -lt 11000 ]; do sleep 0.5; done
# shellcheck disable=SC2086 # MODPARAMS: one word per parameter
if grep -q '^hellofpga ' /proc/modules ||
	{ insmod "$MODS/hellofpga.ko" $MODPARAMS >/tmp/st-rm.out 2>&1 && hf_wait_nodes; }; then
	pass wedge-reload
else
	fail wedge-reload "$(head -c 200 /tmp/st-rm.out)"
fi
cli after-wedge --frames 200 --buffers 8

bad=$(hf_kbad stream)
if [ -n "$bad" ]; then
	fail kernel-log "$bad"
else
	pass kernel-log
fi
exit $rc
