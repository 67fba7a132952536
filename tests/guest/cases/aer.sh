#!/bin/sh
# SPDX-License-Identifier: MIT
# aer.sh - PCIe error recovery (AER) through the driver's error handlers, in
# a configuration with a QMP socket (CFG_HOTPLUG: msix): the guest asks the
# host, by an "HF-QMP" console line (run-config.sh), to inject an error with
# HMP pcie_aer_inject_error into the card (id=card, AER capability of
# xdma-sim) behind its root port; the guest's AER driver calls
# error_detected / slot_reset / resume of hellofpga.ko.
#   non-fatal (UNSUP)   the driver stops the engines and sets them up again;
#                       a round trip works afterwards
#   fatal (MALF_TLP)    with a transfer stuck on the card (stall fault; the
#                       module reloaded with timeout_ms=30000): the link is
#                       reset, the stuck transfer ends at once with EIO (the
#                       recovery's, not a removal's ENODEV), a round trip
#                       works afterwards
# Each must show our handlers' messages in dmesg and no kernel problem.
# Then hf_recover (progs/hf_recover.c): a non-fatal error while C2H0's
# engine hangs (the fault window's hang, limited to it): bus mastering off
# throughout slot_reset, the recovery ends, the other channels work, C2H0
# keeps its memory and refuses transfers (twice, a second error too) until
# the hang ends, then works and releases it once; and a function reset
# behind the driver's back (sysfs reset: reset_prepare / reset_done)
# between runs of the same chains, which must move the new data, then a
# fatal error (the saved config space must have survived the reset).
CARD=${HF_GUEST_CARD:-/dev/hellofpga0}
MODS=${HF_GUEST_MODULES:-/lib/modules-extra}
U=${CARD}_user
MODPARAMS=$(sed -n 's/.*hf_modparams=\([^ ]*\).*/\1/p' /proc/cmdline | tr , ' ')
. "${HF_GUEST_LIB:-/tests/case-lib.sh}"
HF_GROUP=aer
grep -q 'hf_hotplug=1' /proc/cmdline || {
	skip all "needs the QMP socket of a CFG_HOTPLUG configuration"
	exit 0
}
if ! ls /sys/bus/pci_express/devices 2>/dev/null | grep -q 'pcie002'; then
	skip all "no AER service on a root port (the kernel did not get AER control)"
	exit 0
fi
fault() { hf_w32 "$U" $((0xf000)) "$1"; }
mark=0
dmark() { mark=$((mark + 1)); echo "HF-AER-MARK-$mark" >/dev/kmsg; }
since() { dmesg | sed -n "/HF-AER-MARK-$mark\$/,\$p"; }
# wait_msg PATTERN SECONDS: until dmesg since the mark has PATTERN
wait_msg() {
	i=0
	while ! since | grep -q -E "$1"; do
		[ $i -ge $(($2 * 10)) ] && return 1
		sleep 0.1
		i=$((i + 1))
	done
}
inject() {	# inject TAG [-c] ERROR
	tag=$1
	shift
	echo "HF-QMP aer-$tag {\"execute\":\"human-monitor-command\",\"arguments\":{\"command-line\":\"pcie_aer_inject_error card $*\"}}" >/dev/console
}
rt() {	# round trip h2c_0 -> card -> c2h_1, compared
	dd if=/dev/urandom of=/tmp/aer.a bs=65536 count=1 2>/dev/null
	timeout 30 dd if=/tmp/aer.a of="${CARD}_h2c_0" bs=65536 seek=16 count=1 conv=notrunc 2>/tmp/aer.err &&
		timeout 30 dd if="${CARD}_c2h_1" of=/tmp/aer.b bs=65536 skip=16 count=1 2>>/tmp/aer.err &&
		cmp -s /tmp/aer.a /tmp/aer.b
}
kbad() { since | grep -E 'BUG:|WARNING:|Oops|Call Trace|general protection' | head -n 1; }
reload() {	# reload EXTRA-PARAMS...: the module again, the config's parameters
	rmmod hellofpga >/tmp/aer.rm 2>&1 || return 1
	insmod "$MODS/hellofpga.ko" $MODPARAMS "$@" >>/tmp/aer.rm 2>&1 || return 1
	i=0
	while [ ! -e "${CARD}_c2h_1" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	[ -e "${CARD}_c2h_1" ]
}
# handled KIND SECONDS: in dmesg since the mark, the handlers' message of
# the error ("PCIe error (" then the egrep pattern KIND) within 20 s, then
# the recovery's within SECONDS
handled() {
	wait_msg "hellofpga0: PCIe error \\($1" 20 &&
		wait_msg 'hellofpga0: recovered from the PCIe error' "$2"
}
# after NAME: a round trip works (NAME-roundtrip) and dmesg has no kernel
# problem since the mark (NAME-dmesg-clean)
after() {
	if rt; then pass "$1-roundtrip"; else fail "$1-roundtrip" "$(head -c 200 /tmp/aer.err)"; fi
	k=$(kbad)
	[ -z "$k" ] && pass "$1-dmesg-clean" || fail "$1-dmesg-clean" "$k"
}
# a transfer stuck on the card must not end by its own timeout
reload timeout_ms=30000 || fail reload "$(head -c 200 /tmp/aer.rm)"

# ------------------------------------------------------------ non-fatal --
dmark
inject nonfatal UNSUP
if handled 'non-fatal\)' 20; then
	pass nonfatal-handlers "error_detected, slot_reset, resume ran"
else
	fail nonfatal-handlers "no error_detected/resume messages within 20 s: $(since | grep -i -E 'aer|hellofpga' | tail -n 3 | tr '\n' ' ' | head -c 300)"
fi
after nonfatal

# ---------------------------------------------------------------- fatal --
dmark
fault 2
t0=$(hf_ms)
(timeout 60 dd if="${CARD}_c2h_0" of=/tmp/aer.c bs=65536 skip=16 count=1 >/tmp/aer.cli 2>&1
	echo "rc=$? ms=$(($(hf_ms) - t0))" >>/tmp/aer.cli) &
sleep 1
inject fatal MALF_TLP
if handled fatal 30; then
	pass fatal-handlers "error_detected (link reset), slot_reset, resume ran"
else
	fail fatal-handlers "no error_detected/resume messages: $(since | grep -i -E 'aer|hellofpga' | tail -n 4 | tr '\n' ' ' | head -c 300)"
fi
wait
r=$(sed -n 's/^rc=\([0-9]*\) .*/\1/p' /tmp/aer.cli)
t=$(sed -n 's/.* ms=\([0-9]*\)$/\1/p' /tmp/aer.cli)
if [ "$r" != 0 ] && [ "${t:-99999}" -lt 20000 ]; then
	pass fatal-stuck-transfer-ends "exit $r after $t ms: $(grep -v '^rc=' /tmp/aer.cli | tail -n 1 | head -c 160)"
else
	fail fatal-stuck-transfer-ends "exit ${r:-?} after ${t:-?} ms (timeout 30 s): $(grep -v '^rc=' /tmp/aer.cli | tail -n 1 | head -c 160)"
fi
# the recovery cut it short, the card stays: EIO, not a removal's ENODEV
if grep -q 'Input/output error' /tmp/aer.cli; then
	pass fatal-stuck-transfer-eio
else
	fail fatal-stuck-transfer-eio "not EIO: $(grep -v '^rc=' /tmp/aer.cli | tail -n 1 | head -c 160)"
fi
fault 0
after fatal

# ------------------------------- one engine that does not stop; a reset --
hf_prog aer 180 hf_recover -d "$CARD" -m hang
[ $hf_rc = 0 ] || rc=1
hf_prog aer 120 hf_recover -d "$CARD" -m reset
[ $hf_rc = 0 ] || rc=1
k=$(kbad)
[ -z "$k" ] && pass recover-dmesg-clean || fail recover-dmesg-clean "$k"
reload || fail reload-after "$(head -c 200 /tmp/aer.rm)"
exit $rc
