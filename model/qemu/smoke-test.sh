#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# smoke-test.sh [MODE...] - boot Debian's kernel under TCG with the xdma-sim
# card behind a PCIe root port and run the real hellofpga.ko against it.
#
# MODE (default: msix msi legacy):
#   msix | msi | legacy | poll   irq_mode=/poll_mode= of hellofpga.ko; each:
#       insmod, dmesg probe line, /dev nodes, user BAR ID (dd + devmem),
#       1 MiB + unaligned h2c/c2h round trips (cmp), interrupt count, rmmod
#   faults    fault-regs=on window at BAR0+0xf000 from inside the guest
#             (desc_read -> EIO, stall -> timeout, lost_irq -> timeout or
#             recovered, dead -> all ones, hang -> a late but whole
#             transfer) and the host chardev protocol
#   link      link=gen1x1 (the link model on QEMU's virtual clock): PCIe
#             link status Gen1 x1 in sysfs, 64 MiB each way takes at least
#             the link's time (printed), a hang shorter than the timeout
#             delays a transfer that then completes
#   unplug    QMP device_del of the card while transfers run
#   viommu    msix mode behind an emulated VT-d (intel-iommu, strict)
#
# Environment:
#   QEMU      qemu-system-x86_64 with xdma-sim (default: scripts/build-qemu.sh)
#   KVER      guest kernel (default: the newest /lib/modules/*-amd64 with
#             /boot/vmlinuz-$KVER and headers)
#   WORK      scratch directory (default: a fresh mktemp -d, removed unless
#             KEEP=1)
#   TIMEOUT   seconds per boot (default 180)
# Prints one "PASS mode" / "FAIL mode" line per mode and "N passed, N failed".
# Needs: busybox-static, cpio, python3, linux-image-$KVER, linux-headers-$KVER.
set -uo pipefail

repo=$(cd "$(dirname "$(realpath "$0")")/../.." && pwd)
modes=("$@")
[ ${#modes[@]} -gt 0 ] || modes=(msix msi legacy)
: "${TIMEOUT:=180}"
if [ -z "${KVER:-}" ]; then
	for k in $(ls /lib/modules | sort -rV); do
		if [ -e "/boot/vmlinuz-$k" ] && [ -d "/lib/modules/$k/build" ]; then
			KVER=$k
			break
		fi
	done
fi
[ -n "${KVER:-}" ] || { echo "smoke-test: no kernel with image and headers" >&2; exit 2; }
if [ -z "${WORK:-}" ]; then
	WORK=$(mktemp -d /tmp/xdma-smoke.XXXXXX)
	[ -n "${KEEP:-}" ] || trap 'rm -rf "$WORK"' EXIT
fi
mkdir -p "$WORK"
busybox=${BUSYBOX:-/bin/busybox}
file "$busybox" 2>/dev/null | grep -q 'statically linked' ||
	{ echo "smoke-test: $busybox is not busybox-static" >&2; exit 2; }

if [ -z "${QEMU:-}" ]; then
	QEMU=$("$repo/scripts/build-qemu.sh") || exit 2
fi

# ---- driver (built in a copy: the source tree stays clean) ----
rm -rf "$WORK/driver"
cp -r "$repo/driver" "$WORK/driver"
cp -r "$repo/core" "$repo/include" "$WORK/" 2>/dev/null
if ! make -s -C "$WORK/driver" KVER="$KVER" >"$WORK/driver-build.log" 2>&1; then
	cat "$WORK/driver-build.log" >&2
	echo "smoke-test: driver build failed" >&2
	exit 2
fi
ko=$WORK/driver/hellofpga.ko

# ---- kernel: the ELF vmlinux inside the bzImage (PVH boot, no xz under TCG)
vmlinux=$WORK/vmlinux-$KVER
python3 - "/boot/vmlinuz-$KVER" "$vmlinux" <<'PY' || exit 2
import lzma, sys
d = open(sys.argv[1], 'rb').read()
i = d.find(b'\xfd7zXZ\x00')
out = lzma.LZMADecompressor().decompress(d[i:])
assert out[:4] == b'\x7fELF'
open(sys.argv[2], 'wb').write(out)
PY

# ---- guest side ----
cat > "$WORK/init" <<'EOF'
#!/bin/sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
rc=0
/test/run.sh || rc=$?
if dmesg | grep -qE 'BUG:|WARNING:|Oops|general protection|Call Trace'; then
	echo "GUEST-KERNEL-PROBLEM"; dmesg | tail -80; [ $rc = 0 ] && rc=98
fi
echo "GUEST-EXIT rc=$rc"
sleep 0.5	# let the UART drain before QEMU exits
printf "\\$(printf %03o $((rc & 0x7f)))" | dd of=/dev/port bs=1 seek=244 count=1 conv=notrunc 2>/dev/null
poweroff -f
EOF

cat > "$WORK/run.sh" <<'EOF'
#!/bin/sh
# /test/run.sh: MODE and PARAMS come from the kernel command line.
MODE=$(sed -n 's/.*hf_mode=\([a-z]*\).*/\1/p' /proc/cmdline)
PARAMS=$(sed -n 's/.*hf_params=\([^ ]*\).*/\1/p' /proc/cmdline | tr , ' ')
fails=0
ok()   { echo "ok - $*"; }
bad()  { echo "not ok - $*"; fails=$((fails + 1)); }
check() { d=$1; shift; if "$@"; then ok "$d"; else bad "$d"; fi; }
u32le() { # file offset -> 32-bit value (hex) read with dd
	dd if="$1" bs=4 skip=$(($2 / 4)) count=1 2>/dev/null | od -An -tx4 | tr -d ' '
}
w32le() { # file offset value: 32-bit write with dd
	v=$3
	printf "\\$(printf %03o $((v & 255)))\\$(printf %03o $(((v >> 8) & 255)))\\$(printf %03o $(((v >> 16) & 255)))\\$(printf %03o $(((v >> 24) & 255)))" |
		dd of="$1" bs=4 seek=$(($2 / 4)) count=1 conv=notrunc 2>/dev/null
}
ms() { awk '{printf "%d", $1 * 1000}' /proc/uptime; }
irqs() { grep hellofpga /proc/interrupts | awk '{s=0; for (i=2;i<=NF;i++) if ($i ~ /^[0-9]+$/) s+=$i; t+=s} END {print t+0}'; }
roundtrip() { # name bytes card-offset
	n=$2; off=$3
	dd if=/dev/urandom of=/tmp/a bs=$n count=1 2>/dev/null
	dd if=/tmp/a of=/dev/hellofpga0_h2c_0 bs=$n seek=$off oflag=seek_bytes conv=notrunc count=1 2>/tmp/err || { cat /tmp/err; return 1; }
	dd if=/dev/hellofpga0_c2h_1 of=/tmp/b bs=$n skip=$off iflag=skip_bytes count=1 2>/tmp/err || { cat /tmp/err; return 1; }
	cmp /tmp/a /tmp/b
}

lspci_dev=$(grep -l 0x10ee /sys/bus/pci/devices/*/vendor | head -1)
check "card on the PCI bus (10ee:9038)" grep -q 0x9038 "${lspci_dev%/vendor}/device"
# PCIe Link Status: the link model's generation and width, Gen3 x8 without
if [ "$MODE" = link ]; then want_speed="2.5 GT/s" want_width=1; else want_speed="8.0 GT/s" want_width=8; fi
speed=$(cat "${lspci_dev%/vendor}/current_link_speed" 2>/dev/null)
width=$(cat "${lspci_dev%/vendor}/current_link_width" 2>/dev/null)
check "link status $want_speed x$want_width ($speed x$width)" sh -c "echo '$speed' | grep -q '^$want_speed' && test '$width' = $want_width"
# /dev/mem before the driver claims the BAR (CONFIG_IO_STRICT_DEVMEM)
bar0=$(awk '{print $1; exit}' "${lspci_dev%/vendor}/resource")
if [ -n "$bar0" ]; then
	id2=$(devmem $((bar0)) 32)
	check "user BAR ID via devmem = 0x48465047 ($id2)" test "$id2" = 0x48465047
fi
if [ "$MODE" = viommu ]; then
	check "card behind the vIOMMU (iommu_group, DMAR translation)" \
		sh -c "test -e ${lspci_dev%/vendor}/iommu_group && dmesg | grep -q 'DMAR: Intel(R) Virtualization Technology'"
fi
echo "== mode $MODE: insmod hellofpga.ko $PARAMS"
check "insmod" insmod /test/hellofpga.ko $PARAMS
dmesg | grep -iE 'hellofpga|xdma' | tail -8
check "probe line" sh -c 'dmesg | grep -q "hellofpga0: XDMA IP version"'
ls -l /dev/hellofpga0_* 2>&1 | head -20
check "nodes" test -c /dev/hellofpga0_user -a -c /dev/hellofpga0_h2c_0 -a -c /dev/hellofpga0_c2h_3
case $MODE in
msix|unplug|viommu|faults) want="MSI-X interrupts";;
msi) want="MSI interrupts";;
legacy) want="legacy interrupts";;
poll) want="poll-mode completion";;
*) want="interrupts";;
esac
check "probe reports $want" sh -c "dmesg | grep 'hellofpga0: XDMA' | grep -q '$want'"
nv=$(grep -c hellofpga /proc/interrupts)
case $MODE in
msix|unplug|viommu|faults) check "24 MSI-X vectors requested (8 engines + 16 user): $nv" test "$nv" = 24 ;;
msi|legacy) check "one shared vector requested: $nv" test "$nv" = 1 ;;
esac
id=$(u32le /dev/hellofpga0_user 0)
check "user BAR ID via dd = 48465047 ($id)" test "$id" = 48465047
w32le /dev/hellofpga0_user 8 0x12345678
check "user scratch write/read" test "$(u32le /dev/hellofpga0_user 8)" = 12345678

i0=$(irqs)
check "h2c_0 -> c2h_1 round trip, 1 MiB at 0" roundtrip big 1048576 0
check "round trip, 4113 B at card 0x12345" roundtrip odd 4113 74565
check "round trip, 3 MiB at card 1 GiB" roundtrip high 3145728 1073741824
check "round trip, 1 B at the last byte of the card" roundtrip last 1 2147483647
i1=$(irqs)
echo "interrupts during the transfers: $((i1 - i0))"
if [ "$MODE" != poll ]; then
	check "interrupts were delivered" test $((i1 - i0)) -gt 0
fi

if [ "$MODE" = link ] || [ "$MODE" = msix ]; then
	# 64 MiB each way (16 read()/write() chunks of 4 MiB in the driver);
	# Gen1 x1, MPS 256: 0.232 GB/s, at least 289 ms each way
	dd if=/dev/urandom of=/tmp/a bs=1048576 count=64 2>/dev/null
	t0=$(ms)
	dd if=/tmp/a of=/dev/hellofpga0_h2c_0 bs=64M count=1 conv=notrunc 2>/tmp/err || cat /tmp/err
	t1=$(ms)
	dd if=/dev/hellofpga0_c2h_1 of=/tmp/b bs=64M count=1 2>/tmp/err || cat /tmp/err
	t2=$(ms)
	echo "64 MiB ($MODE): h2c $((t1 - t0)) ms, c2h $((t2 - t1)) ms"
	check "64 MiB round trip data" cmp /tmp/a /tmp/b
fi
if [ "$MODE" = link ]; then
	check "64 MiB h2c took the link's time ($((t1 - t0)) ms >= 289)" test $((t1 - t0)) -ge 289
	check "64 MiB c2h took the link's time ($((t2 - t1)) ms >= 289)" test $((t2 - t1)) -ge 289
	# a 300 ms hang (fault window bit 4, duration at 0xf0f0) delays a transfer
	FW=$((0xf000))
	w32le /dev/hellofpga0_user $((FW + 0xf0)) 300000
	w32le /dev/hellofpga0_user $FW 16
	check "hang in force (fault bits 0x10)" test "$(u32le /dev/hellofpga0_user $FW)" = 00000010
	t0=$(ms)
	check "a transfer during a 300 ms hang completes" roundtrip hang 65536 0
	check "... after the hang ($(( $(ms) - t0 )) ms >= 250)" test $(( $(ms) - t0 )) -ge 250
	check "the hang is over (fault bits 0)" test "$(u32le /dev/hellofpga0_user $FW)" = 00000000
fi

if [ "$MODE" = faults ]; then
	FW=$((0xf000))
	check "fault window magic FAUT" test "$(u32le /dev/hellofpga0_user $((FW + 4)))" = 46415554
	w32le /dev/hellofpga0_user $((FW + 8)) 1
	c0=$(u32le /dev/hellofpga0_user $((FW + 0x20)))
	roundtrip fw 65536 0 >/dev/null
	c1=$(u32le /dev/hellofpga0_user $((FW + 0x20)))
	check "desc_fetched counter advances ($c0 -> $c1)" test "$c0" != "$c1"
	b=$(u32le /dev/hellofpga0_user $((FW + 0x40)))
	check "bytes_c2h counter = 65536 (0x$b)" test "$b" = 00010000
	# fault BITS: the fault bits; put4k: one 4 KiB write on h2c_0, errtext
	# its error; cleared NAME: no fault, and transfers work again
	fault() { w32le /dev/hellofpga0_user $FW "$1"; }
	put4k() { dd if=/tmp/a of=/dev/hellofpga0_h2c_0 bs=4096 count=1 conv=notrunc 2>/tmp/err; }
	errtext() { grep -m1 -v records /tmp/err; }
	cleared() { fault 0; check "transfers work after $1" roundtrip after 8192 0; }
	# desc_read: the next descriptor fetch fails -> EIO
	fault 1
	if put4k; then
		bad "desc_read fault fails the transfer"
	else
		ok "desc_read fault fails the transfer: $(errtext)"
	fi
	check "desc_read is one-shot" test "$(u32le /dev/hellofpga0_user $FW)" = 00000000
	check "transfers work after desc_read" roundtrip after 8192 0
	# stall: the engine stays busy -> the driver's timeout path
	fault 2
	t0=$(ms)
	if put4k; then
		bad "stall fault times out"
	else
		ok "stall fault times out after $(( $(ms) - t0 )) ms: $(errtext)"
	fi
	cleared stall
	# lost_irq: completion interrupts vanish
	fault 4
	t0=$(ms)
	if put4k; then
		ok "lost_irq: the transfer completed anyway after $(( $(ms) - t0 )) ms (engine status checked on timeout)"
	else
		ok "lost_irq: the transfer failed after $(( $(ms) - t0 )) ms: $(errtext)"
	fi
	cleared lost_irq
	# dead: all registers read all ones (surprise removal)
	fault 8
	check "dead: user BAR ID reads ffffffff" test "$(u32le /dev/hellofpga0_user 0)" = ffffffff
	if put4k; then
		bad "dead card fails transfers"
	else
		ok "dead card fails transfers: $(errtext)"
	fi
	cleared "dead is cleared"
	# hang: no duration set -> no hang; 200 ms -> a late but whole transfer
	w32le /dev/hellofpga0_user $FW 16
	check "hang bit without a duration does nothing" test "$(u32le /dev/hellofpga0_user $FW)" = 00000000
	w32le /dev/hellofpga0_user $((FW + 0xf0)) 200000
	w32le /dev/hellofpga0_user $FW 16
	left=$((0x$(u32le /dev/hellofpga0_user $((FW + 0xf4)))))
	check "hang left ($left us) <= 200000" test $left -gt 0 -a $left -le 200000
	t0=$(ms)
	check "a transfer during a 200 ms hang completes" roundtrip hang 8192 0
	check "... after the hang ($(( $(ms) - t0 )) ms >= 150)" test $(( $(ms) - t0 )) -ge 150
	# host control channel (smoke-test.sh watches for this line)
	echo "HOST-FAULT-REQUEST stall"
	i=0
	while [ "$(u32le /dev/hellofpga0_user $FW)" != 00000002 ] && [ $i -lt 100 ]; do
		sleep 0.2; i=$((i + 1))
	done
	check "host chardev injected stall (fault window reads 2)" test "$(u32le /dev/hellofpga0_user $FW)" = 00000002
	# leave the card dead: rmmod below must cope with all-ones registers
	w32le /dev/hellofpga0_user $FW 8
fi

if [ "$MODE" = unplug ]; then
	# A transfer that is certainly in flight: the engine is stalled.
	FW=$((0xf000))
	dd if=/dev/urandom of=/tmp/a bs=1048576 count=1 2>/dev/null
	w32le /dev/hellofpga0_user $FW 2
	( dd if=/tmp/a of=/dev/hellofpga0_h2c_0 bs=1048576 count=1 conv=notrunc 2>/tmp/err1; echo "stalled transfer: rc=$? $(grep -m1 -v records /tmp/err1)" ) &
	( while roundtrip loop 1048576 1048576 >/dev/null 2>&1; do :; done; echo "transfer loop ended" ) &
	sleep 1
	t0=$(ms)
	echo "HOST-UNPLUG-REQUEST"
	i=0
	while [ -e /dev/hellofpga0_h2c_0 ] && [ $i -lt 60 ]; do sleep 1; i=$((i + 1)); done
	check "card removed during a transfer (nodes gone after $(( $(ms) - t0 )) ms)" test ! -e /dev/hellofpga0_h2c_0
	wait
	check "remove logged" sh -c 'dmesg | grep -q "hellofpga0 removed"'
	check "card gone from the PCI bus" sh -c '! grep -q 0x10ee /sys/bus/pci/devices/*/vendor'
	dmesg | grep -iE "hellofpga|pci.*01:00" | tail -8
fi

check "rmmod" rmmod hellofpga
dmesg | tail -3
echo "RESULT mode=$MODE fails=$fails"
exit $fails
EOF
chmod +x "$WORK/init" "$WORK/run.sh"

root=$WORK/root
rm -rf "$root"
mkdir -p "$root"/{bin,proc,sys,dev,tmp,test}
cp "$busybox" "$root/bin/busybox"
ln -s busybox "$root/bin/sh"
cp "$WORK/init" "$root/init"
cp "$WORK/run.sh" "$ko" "$root/test/"
(cd "$root" && find . -print0 | cpio --null -o -H newc --quiet | gzip -1) > "$WORK/initrd.gz"

# ---- host side: one boot per mode ----
qmp() { # socket command-json|@EVENT...: after qmp_capabilities; @EVENT waits
	python3 - "$@" <<'PY'
import json, socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1]); s.settimeout(60); f = s.makefile('rw')
f.readline()
events = []
for cmd in ['{"execute":"qmp_capabilities"}'] + sys.argv[2:]:
    if cmd.startswith('@'):
        while cmd[1:] not in events:
            r = json.loads(f.readline())
            if 'event' in r:
                events.append(r['event']); print("qmp event:", json.dumps(r))
        continue
    f.write(cmd + "\n"); f.flush()
    while True:
        r = json.loads(f.readline())
        if 'event' in r:
            events.append(r['event']); print("qmp event:", json.dumps(r)); continue
        print("qmp:", json.dumps(r)); break
PY
}

# wait_line LOG PATTERN SECONDS PID
wait_line() {
	local i=0
	while ! grep -q "$2" "$1" 2>/dev/null; do
		kill -0 "$4" 2>/dev/null || return 1
		sleep 0.2
		i=$((i + 1))
		[ $i -lt $(($3 * 5)) ] || return 1
	done
}

pass=0 fail=0
for mode in "${modes[@]}"; do
	params= extra=() dev="xdma-sim,bus=rp0,id=card" append=
	case $mode in
	msix) params=irq_mode=msix ;;
	msi) params=irq_mode=msi ;;
	legacy) params=irq_mode=legacy ;;
	poll) params=poll_mode=1 ;;
	faults) params=irq_mode=msix,timeout_ms=2000
		dev+=",fault-regs=on,chardev=fault0"
		extra=(-chardev "socket,id=fault0,path=$WORK/fault.sock,server=on,wait=off") ;;
	link) params=irq_mode=msix
		dev+=",fault-regs=on,link=gen1x1,chardev=fault0"
		extra=(-chardev "socket,id=fault0,path=$WORK/fault.sock,server=on,wait=off") ;;
	unplug) params=irq_mode=msix,timeout_ms=3000
		dev+=",fault-regs=on" ;;
	viommu) params=irq_mode=msix
		extra=(-device intel-iommu,intremap=off)
		append="intel_iommu=on iommu.strict=1" ;;
	*) echo "smoke-test: unknown mode $mode" >&2; fail=$((fail + 1)); continue ;;
	esac
	log=$WORK/console-$mode.log
	rm -f "$log" "$WORK/qmp.sock" "$WORK/fault.sock"
	start=$(date +%s.%N)
	timeout -k 5 "$TIMEOUT" "$QEMU" -machine q35 -accel tcg -cpu max \
		-smp 2 -m 3G -kernel "$vmlinux" -initrd "$WORK/initrd.gz" \
		-append "console=ttyS0 panic=-1 oops=panic loglevel=4 rdinit=/init hf_mode=$mode hf_params=$params $append" \
		-display none -monitor none -serial "file:$log" -no-reboot \
		-nic none -device isa-debug-exit,iobase=0xf4,iosize=0x04 \
		-action panic=exit-failure \
		-qmp "unix:$WORK/qmp.sock,server=on,wait=off" \
		"${extra[@]}" \
		-device pcie-root-port,id=rp0,chassis=1,slot=1 -device "$dev" \
		>"$WORK/qemu-$mode.log" 2>&1 &
	qpid=$!
	if [ "$mode" = link ]; then
		if wait_line "$log" '== mode' 120 $qpid; then
			python3 - "$WORK/fault.sock" <<'PY' >>"$WORK/qemu-$mode.log" 2>&1
import socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); f = s.makefile('rw')
for c in ["link", "counters"]:
    f.write(c + "\n"); f.flush(); print("chardev:", c, "->", f.readline().strip())
PY
		fi
	fi
	if [ "$mode" = faults ]; then
		if wait_line "$log" HOST-FAULT-REQUEST 120 $qpid; then
			python3 - "$WORK/fault.sock" <<'PY' >>"$WORK/qemu-$mode.log" 2>&1
import socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); f = s.makefile('rw')
for c in ["counters", "bogus", "link", "fault hang", "fault hang 50", "faults", "fault none", "fault stall", "faults"]:
    f.write(c + "\n"); f.flush(); print("chardev:", c, "->", f.readline().strip())
PY
		fi
	fi
	if [ "$mode" = unplug ]; then
		if wait_line "$log" HOST-UNPLUG-REQUEST 120 $qpid; then
			qmp "$WORK/qmp.sock" '{"execute":"device_del","arguments":{"id":"card"}}' \
				@DEVICE_DELETED \
				'{"execute":"qom-list","arguments":{"path":"/machine/peripheral/card"}}' \
				>>"$WORK/qemu-$mode.log" 2>&1
		fi
	fi
	wait $qpid
	qrc=$?
	wall=$(echo "$(date +%s.%N) - $start" | bc)
	grep -E '^(ok|not ok|==|interrupts|RESULT|GUEST-|hellofpga|64 MiB|\[)' "$log" |
		grep -vE '^\[ *[0-9.]+\] (ACPI|PCI|pci |clock|smpboot|x86)' | sed "s/^/  [$mode] /" | head -80
	[ -s "$WORK/qemu-$mode.log" ] && sed "s/^/  [$mode] qemu: /" "$WORK/qemu-$mode.log" | head -20
	host_ok=1
	case $mode in
	faults) grep -q 'chardev: fault stall -> ok' "$WORK/qemu-$mode.log" &&
		grep -q 'chardev: fault hang -> error' "$WORK/qemu-$mode.log" &&
		grep -q 'chardev: fault hang 50 -> ok' "$WORK/qemu-$mode.log" &&
		grep -q 'chardev: link -> ok none' "$WORK/qemu-$mode.log" || host_ok=0 ;;
	link) grep -q 'chardev: link -> ok PCIe Gen1 x1, MPS 256, 1000 ns/descriptor (0.23 GB/s)' "$WORK/qemu-$mode.log" || host_ok=0 ;;
	unplug) grep -q 'event: {"timestamp.*DEVICE_DELETED.*/machine/peripheral/card' "$WORK/qemu-$mode.log" &&
		grep -q 'DeviceNotFound' "$WORK/qemu-$mode.log" || host_ok=0 ;;
	esac
	if [ $qrc = 1 ] && [ $host_ok = 1 ] && grep -q '^GUEST-EXIT rc=0' "$log"; then
		printf 'PASS %s (%.1f s)\n' "$mode" "$wall"
		pass=$((pass + 1))
	else
		printf 'FAIL %s (qemu rc=%d, %.1f s)\n' "$mode" "$qrc" "$wall"
		tail -30 "$log" | sed "s/^/  [$mode] console: /"
		fail=$((fail + 1))
	fi
done
echo "$pass passed, $fail failed"
[ $fail = 0 ]
