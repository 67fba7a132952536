#!/bin/sh
# SPDX-License-Identifier: MIT
# rebind.sh - an engine left running by an earlier driver must be stopped
# before hellofpga.ko turns bus mastering on (viommu configurations: a
# stale fetch would also be a DMAR fault).
#
# With the driver unbound (remove() leaves bus mastering off) the test
# plays the earlier driver through the PCI sysfs resource files: it points
# H2C0's descriptor address at 0xdead0000, where nothing is mapped, and sets
# Run.  A function with bus mastering off issues no request, so the engine
# waits at its descriptor fetch, busy (xdma-sim: counter dma_blocked).
# Binding the driver again must stop that engine first: no descriptor fetch
# may go out (counter desc_fetched unchanged, and no DMAR fault: the stale
# address is mapped for nothing), the engine is idle afterwards and the card
# works.  A driver that enables bus
# mastering before it stops the engines lets the stale fetch out.
CARD=${HF_GUEST_CARD:-/dev/hellofpga0}
. "${HF_GUEST_LIB:-/tests/case-lib.sh}"
HF_GROUP=rebind
case " $(cat /proc/cmdline) " in
*" hf_config=viommu "* | *" hf_config=k6.12-viommu "*) ;;
*) skip all "runs in the viommu configurations"; exit 0 ;;
esac
drv=/sys/bus/pci/drivers/hellofpga
dev=
for d in "$drv"/0000:*; do [ -e "$d" ] && dev=$(readlink -f "$d") && break; done
if [ -z "$dev" ]; then
	fail find "no device bound to hellofpga"
	exit 1
fi
bdf=${dev##*/}
rd() { hf_regrw "$1" "$2" w | sed -n 's/.* = //p'; }	# rd FILE OFFSET
wr() { hf_regrw "$1" "$2" w "$3" >/dev/null; }		# wr FILE OFFSET VALUE
u0=$dev/resource0 u1=$dev/resource1
# counter OFFSET [FILE]: the low half of a fault-window counter, in decimal,
# through FILE (default the sysfs resource0: with the driver bound the
# kernel refuses to map it, CONFIG_IO_STRICT_DEVMEM, so read the user node
# then); an unreadable counter is reported as such (the caller must not take
# an empty read for 0), after a few tries
counter() {
	_n=0
	while [ $_n -lt 20 ]; do
		_v=$(hf_regrw "${2:-$u0}" "$1" w 2>&1)
		case $_v in
		*" = 0x"*) printf '%d' "${_v##* = }"; return 0 ;;
		esac
		_n=$((_n + 1))
		sleep 0.1
	done
	echo "unreadable counter $1: $_v" >&2
	printf 'x'
	return 1
}
wait_nodes() {
	i=0
	while [ ! -e "${CARD}_c2h_1" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	[ -e "${CARD}_c2h_1" ]
}

# A PIN on a control node kept open across the removal fails before
# anything is pinned (hf_pin_gone).
rm -f /tmp/rb.go
hf_pin_gone -d "$CARD" -g /tmp/rb.go >/tmp/rb.gone 2>&1 &
gone_pid=$!
i=0
while ! grep -q ready /tmp/rb.gone && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
echo "$bdf" >"$drv/unbind" 2>/tmp/rb.err || { fail unbind "$(cat /tmp/rb.err)"; exit 1; }
: >/tmp/rb.go
wait $gone_pid || rc=1
grep -E '^(PASS|FAIL|SKIP) ' /tmp/rb.gone
id=$(rd "$u1" 0x0)
case $id in
0x1fc0*) pass unbound "H2C0 identifier $id through $u1" ;;
*) fail unbound "H2C0 identifier reads '$id' through $u1"; echo "$bdf" >"$drv/bind"; exit 1 ;;
esac
echo "HF-REBIND-MARK" >/dev/kmsg
f0=$(counter 0xf020)
b0=$(counter 0xf060)
wr "$u1" 0x4080 0xdead0000	# H2C0 SGDMA descriptor address, low
wr "$u1" 0x4084 0
wr "$u1" 0x4088 0
wr "$u1" 0x0004 1		# H2C0 Control: Run
st=$(rd "$u1" 0x40)
b1=$(counter 0xf060)
if [ $((st & 1)) = 1 ] && [ "$b1" -gt "$b0" ]; then
	pass left-running "H2C0 busy (status $st), its fetch held back ($b0 -> $b1 blocked accesses)"
else
	fail left-running "H2C0 status $st, blocked accesses $b0 -> $b1"
fi
echo "$bdf" >"$drv/bind" 2>/tmp/rb.err || fail bind "$(cat /tmp/rb.err)"
if wait_nodes; then pass probe; else fail probe "no ${CARD}_c2h_1 after bind"; fi
f1=$(counter 0xf020 "${CARD}_user")
dmar=$(dmesg | sed -n '/HF-REBIND-MARK/,$p' | grep -c 'DMAR:.*[Ff]ault')
if [ "$f0" = x ] || [ "$f1" = x ]; then
	fail no-stale-fetch "counter desc_fetched unreadable (before $f0, after $f1)"
elif [ "$f1" = "$f0" ] && [ "$dmar" = 0 ]; then
	pass no-stale-fetch "no descriptor fetched ($f0 -> $f1), no DMAR fault: the engine was stopped before bus mastering"
else
	fail no-stale-fetch "$f0 -> $f1 descriptors fetched, $dmar DMAR fault lines: the left-running engine fetched its stale descriptor once bus mastering was on"
fi
st=$(hf_regrw "${CARD}_control" 0x40 w | sed -n 's/.* = //p')
if [ $((st & 1)) = 0 ]; then pass idle "H2C0 status $st"; else fail idle "H2C0 status $st"; fi
dd if=/dev/urandom of=/tmp/rb.a bs=65536 count=1 2>/dev/null
if timeout 30 dd if=/tmp/rb.a of="${CARD}_h2c_0" bs=65536 seek=8 count=1 conv=notrunc 2>/tmp/rb.err &&
	timeout 30 dd if="${CARD}_c2h_1" of=/tmp/rb.b bs=65536 skip=8 count=1 2>>/tmp/rb.err &&
	cmp -s /tmp/rb.a /tmp/rb.b; then
	pass roundtrip
else
	fail roundtrip "$(head -c 200 /tmp/rb.err)"
fi

# An engine that does not stop (the hang fault holds it busy longer than
# stop_wait_ms, 2 s): probe refuses the card, bus mastering stays off, the
# error path frees the interrupts before the engines; once the hang is over
# a bind works.
echo "$bdf" >"$drv/unbind" 2>/tmp/rb.err || fail unbind-2 "$(cat /tmp/rb.err)"
wr "$u0" 0xf0f0 6000000		# hang duration, us
wr "$u0" 0xf000 16		# fault: hang
wr "$u1" 0x4080 0xdead0000
wr "$u1" 0x4084 0
wr "$u1" 0x0004 1
echo "HF-REBIND-MARK-2" >/dev/kmsg
if echo "$bdf" >"$drv/bind" 2>/tmp/rb.err; then
	fail probe-refuses-busy-engine "bind succeeded with H2C0 busy"
elif dmesg | sed -n '/HF-REBIND-MARK-2/,$p' | grep -q 'left running, not stopping'; then
	pass probe-refuses-busy-engine "$(dmesg | sed -n '/HF-REBIND-MARK-2/,$p' | grep 'engine init failed' | tail -n 1 | sed 's/^\[[^]]*\] //' | head -c 160)"
else
	fail probe-refuses-busy-engine "bind failed, but not for the busy engine: $(dmesg | tail -n 2 | tr '\n' ' ' | head -c 200)"
fi
i=0
while [ $(($(rd "$u0" 0xf0f4))) != 0 ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
wr "$u0" 0xf000 0
if echo "$bdf" >"$drv/bind" 2>/tmp/rb.err && wait_nodes; then
	pass bind-after-hang
else
	fail bind-after-hang "$(cat /tmp/rb.err) $(dmesg | tail -n 2 | tr '\n' ' ' | head -c 200)"
fi
exit $rc
