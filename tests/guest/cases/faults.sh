#!/bin/sh
# SPDX-License-Identifier: MIT
# faults.sh - fault injection through the card's guest fault window (BAR0 +
# 0xf000, -device xdma-sim,fault-regs=on; model/qemu/README.md), and, in a
# configuration with CFG_HOTPLUG (hf_hotplug=1 on the kernel command line:
# msix), QMP device_del of the card while transfers are stalled on it.
#
# Faults (the model's, docs/xdma-model.md "Faults"), one after another:
#   desc_read  one-shot descriptor fetch error     -> EIO
#   stall      the engines stay busy               -> ETIMEDOUT (timeout path)
#   lost_irq   completion interrupts vanish        -> success (status check)
#   dead       every register reads all ones       -> ENODEV (surprise removal)
# For each: busybox dd on CARD_h2c_0 and CARD_c2h_0 and the CLI (hellofpga
# write / read) get the error (exit status and error text); clearing the
# fault, a round trip h2c_0 -> card -> c2h_1 matches again (recovery); no
# BUG/WARNING/Oops in dmesg; nothing hangs (every transfer under timeout).
# hellofpga.ko is reloaded with timeout_ms=1000 for the faults (cheap
# stall and lost_irq) and at the end with the configuration's parameters:
# rmmod succeeding after the faults is the leak check (references, IRQs,
# iomem).
#
# Hotplug: the module is loaded with timeout_ms=10000, the engines are
# stalled, a dd write on h2c_0 and a CLI read on c2h_1 hang in the driver;
# "HF-HOTPLUG-NOW" on the console makes run-config.sh send QMP device_del;
# both transfers must end with ENODEV/EIO well before their timeout, the
# nodes disappear, remove() is logged, the card leaves the PCI bus; then
# "HF-HOTPLUG-READD": run-config.sh does device_add, pciehp probes the card
# again and a round trip works, so later cases have their card.  Mappings
# of the user and control nodes made before the removal (hf_mapprobe) fault
# to SIGBUS after it, and a new mmap() of their open files fails.
CARD=${HF_GUEST_CARD:-/dev/hellofpga0}
MODS=${HF_GUEST_MODULES:-/lib/modules-extra}
U=${CARD}_user
FW=$((0xf000))
MODPARAMS=
HOTPLUG=
for w in $(cat /proc/cmdline); do
	case $w in
	hf_modparams=*) MODPARAMS=$(echo "${w#*=}" | tr , ' ') ;;
	hf_hotplug=1) HOTPLUG=1 ;;
	esac
done
IRQ=$(sed -n 's/.*hf_irq=\([a-z]*\).*/\1/p' /proc/cmdline)
. "${HF_GUEST_LIB:-/tests/case-lib.sh}"
HF_GROUP=faults
hpass() { HF_GROUP=hotplug; pass "$@"; HF_GROUP=faults; }
hfail() { HF_GROUP=hotplug; fail "$@"; HF_GROUP=faults; }
u32le() {	# u32le FILE OFFSET: 32-bit value, hex
	dd if="$1" bs=4 skip=$(($2 / 4)) count=1 2>/dev/null | od -An -tx4 | tr -d ' \n'
}
fault() { hf_w32 "$U" $FW "$1"; }
wait_nodes() {	# wait_nodes SECONDS: until CARD_c2h_1 exists
	i=0
	while [ ! -e "${CARD}_c2h_1" ] && [ $i -lt $(($1 * 10)) ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ -e "${CARD}_c2h_1" ]
}
reload() {	# reload EXTRA-PARAMS...: rmmod + insmod with the config's params
	rmmod hellofpga >/tmp/f.rm 2>&1 || return 1
	insmod "$MODS/hellofpga.ko" $MODPARAMS "$@" >/tmp/f.rm 2>&1 || return 1
	wait_nodes 10
}
# loaded SECONDS: after a failed reload, the card's nodes within SECONDS,
# or the module loaded again with the config's params
loaded() {
	wait_nodes "$1" || { insmod "$MODS/hellofpga.ko" $MODPARAMS; wait_nodes 10; }
}
kbad() {	# kbad: kernel problem lines in dmesg since the last mark
	dmesg | sed -n "/HF-FAULTS-MARK-$mark\$/,\$p" |
		grep -E 'BUG:|WARNING:|Oops|Call Trace|general protection' | head -n 1
}
mark=0
dmark() { mark=$((mark + 1)); echo "HF-FAULTS-MARK-$mark" >/dev/kmsg; }
# rt NAME SIZE CARDADDR: round trip h2c_0 -> card -> c2h_1, compared
rt() {
	dd if=/dev/urandom of=/tmp/f.a bs="$2" count=1 2>/dev/null
	timeout 30 dd if=/tmp/f.a of="${CARD}_h2c_0" bs="$2" seek="$3" oflag=seek_bytes count=1 conv=notrunc 2>/tmp/f.err &&
		timeout 30 dd if="${CARD}_c2h_1" of=/tmp/f.b bs="$2" skip="$3" iflag=skip_bytes count=1 2>>/tmp/f.err &&
		cmp -s /tmp/f.a /tmp/f.b
}
# xfer_fails NAME PATTERN CMD: the shell command CMD must fail within 30 s,
# its output matching PATTERN (egrep, case-insensitive)
xfer_fails() {
	n=$1 pat=$2
	shift 2
	t0=$(hf_ms)
	timeout 30 sh -c "$*" >/tmp/f.out 2>&1
	r=$?
	dt=$(($(hf_ms) - t0))
	txt=$(grep -v -E 'records (in|out)|bytes .* copied' /tmp/f.out | tr '\n' ' ' | head -c 200)
	if [ $r = 143 ] || [ $r = 124 ]; then
		fail "$n" "hung: not done after 30 s"
	elif [ $r = 0 ]; then
		fail "$n" "succeeded under the fault (expected $pat)"
	elif grep -q -i -E "$pat" /tmp/f.out; then
		pass "$n" "exit $r after $dt ms: $txt"
	else
		fail "$n" "exit $r after $dt ms, but not $pat: $txt"
	fi
}
# recovered FAULT: with the fault cleared, a round trip works again
# (FAULT/recovery) and dmesg has no kernel problem since the mark
# (FAULT/dmesg-clean)
recovered() {
	fault 0
	if rt a 65536 1048576; then
		pass "$1/recovery"
	else
		fail "$1/recovery" "round trip after the fault: $(head -c 200 /tmp/f.err)"
	fi
	k=$(kbad)
	[ -z "$k" ] && pass "$1/dmesg-clean" || fail "$1/dmesg-clean" "$k"
}
dd_w="dd if=/tmp/f.src of=${CARD}_h2c_0 bs=65536 count=1 seek=1 conv=notrunc"
dd_r="dd if=${CARD}_c2h_0 of=/tmp/f.dst bs=65536 count=1 skip=1"
cli_w="hellofpga -d $CARD write -a 64K -s 64K /tmp/f.src"
cli_r="hellofpga -d $CARD read -a 64K -s 64K /tmp/f.dst"

if [ "$(u32le "$U" $((FW + 4)))" != 46415554 ]; then
	echo "SKIP faults/all: no fault window at ${U} + 0xf000 (needs -device xdma-sim,fault-regs=on)"
	exit 0
fi
dd if=/dev/urandom of=/tmp/f.src bs=65536 count=1 2>/dev/null
if reload timeout_ms=1000; then
	pass reload-timeout_ms=1000
else
	fail reload-timeout_ms=1000 "rmmod/insmod hellofpga.ko $MODPARAMS timeout_ms=1000: $(head -c 200 /tmp/f.rm)"
	loaded 10
fi

# ------------------------------------------------------------ desc_read --
EIO='EIO|Input/output error|I/O error'
dmark
for x in dd_w dd_r cli_w cli_r; do
	fault 1
	eval "xfer_fails desc_read/$x \"\$EIO\" \"\$$x\""
done
w=$(u32le "$U" $FW)
if [ "$w" = 00000000 ]; then pass desc_read/one-shot; else fail desc_read/one-shot "fault bits 0x$w after it fired"; fi
recovered desc_read

# ---------------------------------------------------------------- stall --
ETO='ETIMEDOUT|timed out'
dmark
fault 2
for x in dd_w dd_r cli_w cli_r; do
	eval "xfer_fails stall/$x \"\$ETO\" \"\$$x\""
done
recovered stall

# ------------------------------------------------------------- lost_irq --
dmark
fault 4
t0=$(hf_ms)
if rt a 65536 2097152; then
	pass lost_irq/dd-roundtrip "completed, data matches, $(($(hf_ms) - t0)) ms for 2 transfers ($([ "$IRQ" = poll ] && echo 'poll mode: no interrupts to lose' || echo "$IRQ: engine status checked on timeout"))"
else
	fail lost_irq/dd-roundtrip "$(head -c 200 /tmp/f.err)"
fi
t0=$(hf_ms)
if timeout 30 hellofpga -d "$CARD" write -a 2M -s 64K /tmp/f.src >/tmp/f.out 2>&1 &&
	timeout 30 hellofpga -d "$CARD" read -a 2M -s 64K /tmp/f.dst >>/tmp/f.out 2>&1 &&
	cmp -s /tmp/f.src /tmp/f.dst; then
	pass lost_irq/cli-roundtrip "$(($(hf_ms) - t0)) ms"
else
	fail lost_irq/cli-roundtrip "$(tail -n 1 /tmp/f.out | head -c 200)"
fi
recovered lost_irq

# ----------------------------------------------------------------- dead --
ENODEV='ENODEV|No such device'
dmark
fault 8
id=$(u32le "$U" 0)
if [ "$id" = ffffffff ]; then pass dead/bar-reads-ones; else fail dead/bar-reads-ones "user BAR ID reads $id"; fi
for x in dd_w dd_r cli_w cli_r; do
	eval "xfer_fails dead/$x \"\$ENODEV\" \"\$$x\""
done
recovered dead

# ------------------------------------------------- unload: leak check --
refs=$(awk '$1=="hellofpga"{print $3}' /proc/modules)
if [ -n "$HOTPLUG" ]; then
	extra=timeout_ms=10000
else
	extra=
fi
if reload $extra; then
	pass rmmod-after-faults "references were $refs"
else
	fail rmmod-after-faults "rmmod/insmod: $(head -c 200 /tmp/f.rm) (references $refs)"
	loaded 10
fi
[ -z "$HOTPLUG" ] && exit $rc

# -------------------------------------------------------------- hotplug --
dmark
fault 2
t0=$(hf_ms)
(timeout 90 dd if=/tmp/f.src of="${CARD}_h2c_0" bs=65536 count=1 conv=notrunc >/tmp/h.dd 2>&1
	echo "rc=$? ms=$(($(hf_ms) - t0))" >>/tmp/h.dd) &
(timeout 90 hellofpga -d "$CARD" read -c 1 -a 0 -s 64K /tmp/f.dst >/tmp/h.cli 2>&1
	echo "rc=$? ms=$(($(hf_ms) - t0))" >>/tmp/h.cli) &
# BAR mappings that must not outlive the card
rm -f /tmp/h.fifo && mkfifo /tmp/h.fifo
hf_mapprobe "${CARD}_user" "${CARD}_control" </tmp/h.fifo >/tmp/h.map 2>&1 &
exec 8<>/tmp/h.fifo	# read-write: never blocks, never SIGPIPE
i=0
while ! grep -q '^READY' /tmp/h.map && [ $i -lt 50 ]; do sleep 0.2; i=$((i + 1)); done
sleep 1
hf_console "HF-HOTPLUG-NOW"
i=0
while [ -e "${CARD}_h2c_0" ] && [ $i -lt 60 ]; do sleep 1; i=$((i + 1)); done
if [ ! -e "${CARD}_h2c_0" ]; then
	hpass nodes-gone "after $(($(hf_ms) - t0)) ms"
else
	hfail nodes-gone "${CARD}_h2c_0 still there 60 s after HF-HOTPLUG-NOW"
fi
echo go >&8
exec 8>&-
wait
grep -E '^(PASS|FAIL) ' /tmp/h.map
grep -q '^FAIL ' /tmp/h.map && rc=1
grep -q 'after-removal' /tmp/h.map ||
	hfail mmap "hf_mapprobe did not finish: $(tail -n 2 /tmp/h.map | tr '\n' ' ')"
for f in dd:/tmp/h.dd cli:/tmp/h.cli; do
	n=${f%%:*} o=${f#*:}
	r=$(sed -n 's/^rc=\([0-9]*\) .*/\1/p' "$o")
	t=$(sed -n 's/.* ms=\([0-9]*\)$/\1/p' "$o")
	txt=$(grep -v -E '^rc=|records (in|out)' "$o" | tr '\n' ' ' | head -c 200)
	if [ "$r" = 0 ]; then
		hfail "stalled-$n" "the stalled transfer succeeded"
	elif [ "$r" = 124 ] || [ "$r" = 143 ]; then
		hfail "stalled-$n" "hung: not done 90 s after the unplug"
	elif ! grep -q -i -E 'ENODEV|No such device|EIO|Input/output error' "$o"; then
		hfail "stalled-$n" "exit $r after $t ms, not ENODEV/EIO: $txt"
	elif [ "${t:-99999}" -ge 9000 ]; then
		hfail "stalled-$n" "exit $r only after $t ms (the 10 s engine timeout, not the removal, ended it; hf_remove() waits for runs in flight): $txt"
	else
		hpass "stalled-$n" "exit $r after $t ms: $txt"
	fi
done
if dmesg | grep -q 'hellofpga0 removed'; then hpass remove-logged; else hfail remove-logged "no 'hellofpga0 removed' in dmesg"; fi
if grep -q 0x9038 /sys/bus/pci/devices/*/device 2>/dev/null; then
	hfail off-the-bus "10ee:9038 still on the PCI bus"
else
	hpass off-the-bus
fi
k=$(kbad); [ -z "$k" ] && hpass dmesg-clean-unplug || hfail dmesg-clean-unplug "$k"
# the card comes back: later cases and the harness's unload need it
hf_console "HF-HOTPLUG-READD"
if wait_nodes 60; then
	hpass replug-probe
	if rt a 65536 1048576; then hpass replug-roundtrip; else hfail replug-roundtrip "$(head -c 200 /tmp/f.err)"; fi
else
	hfail replug-probe "no ${CARD}_c2h_1 60 s after device_add"
fi
if reload; then
	hpass rmmod-after-unplug
else
	hfail rmmod-after-unplug "$(head -c 200 /tmp/f.rm)"
	loaded 5
fi
k=$(kbad); [ -z "$k" ] && hpass dmesg-clean || hfail dmesg-clean "$k"
exit $rc
