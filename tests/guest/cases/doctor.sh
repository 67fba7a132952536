#!/bin/sh
# SPDX-License-Identifier: MIT
# doctor.sh - "hellofpga doctor" on a machine with the driver and a card
# (docs/doctor.md): the verdicts the guest's facts call for, and
# scripts/doctor-record.sh's tree of this guest giving the same verdicts
# through --root as the live run.
#
#   doctor/driver, abi, card          ok: hellofpga.ko loaded, its ABI the
#                                     library's, the card bound to it
#   doctor/nodes-root                 ok for root
#   doctor/nodes-outsider             fail for a user outside the nodes'
#                                     group
#   doctor/iommu                      translating (warn) under intel_iommu=on
#                                     or an SMMU, else off (ok)
#   doctor/mps                        read from the card's config space (ok,
#                                     or warn when set below what the path
#                                     supports)
#   doctor/exit-status                1: the guest has no GPU (nvidia fails)
#   doctor/record                     doctor-record.sh (bash) records a tree
#   doctor/recorded-tree-gives-live-verdicts
#
# With hf_doctor_dump=1 on the kernel command line (HF_GUEST_APPEND, see
# tests/guest/README.md) the tree, recorded with --hex, goes to the console
# as a base64 tar.gz between HF-DOCTOR-TREE-BEGIN and HF-DOCTOR-TREE-END:
# tests/tools/doctor/fixtures/qemu-guest was made that way.
CARD=${HF_GUEST_CARD:-/dev/hellofpga0}
. "${HF_GUEST_LIB:-/tests/case-lib.sh}"
HF_GROUP=doctor
BASH=/tests/bin/bash
RECORD=/tests/doctor-record.sh

# verdicts FILE: "ID VERDICT" of every check of a --json report
verdicts() {
	sed -n 's/^ *{"id": "\([^"]*\)", .*"verdict": "\([^"]*\)".*/\1 \2/p' "$1"
}
# result FILE ID: the result text of check ID
result_of() {
	sed -n "s/^ *{\"id\": \"$2\", .*\"result\": \"\\([^\"]*\\)\".*/\\1/p" "$1"
}
# expect NAME FILE ID VERDICTS [TEXT]: result line NAME: check ID of
# report FILE has one of VERDICTS (words), and its result says TEXT
expect() {
	_v=$(verdicts "$2" | sed -n "s/^$3 //p")
	_r=$(result_of "$2" "$3")
	case " $4 " in
	*" ${_v:-none} "*) ;;
	*) fail "$1" "verdict ${_v:-none}, not $4: $_r"; return ;;
	esac
	case $_r in
	*"${5:-}"*) pass "$1" "$_v: $_r" ;;
	*) fail "$1" "$_v, but the result does not say \"$5\": $_r" ;;
	esac
}

hellofpga -d "$CARD" doctor --json /tmp/doc.json >/tmp/doc.err 2>&1
st=$?
if [ ! -s /tmp/doc.json ]; then
	fail run "exit $st, no report: $(head -c 200 /tmp/doc.err)"
	exit 1
fi
expect driver /tmp/doc.json driver ok
expect abi /tmp/doc.json abi ok
expect card /tmp/doc.json card ok "bound to hellofpga"
expect nodes-root /tmp/doc.json nodes ok
case " $(cat /proc/cmdline) " in
*" intel_iommu=on "*) expect iommu /tmp/doc.json iommu warn translating ;;
*)
	if [ -n "$(ls /sys/class/iommu 2>/dev/null)" ]; then
		expect iommu /tmp/doc.json iommu warn translating
	else
		expect iommu /tmp/doc.json iommu ok off
	fi
	;;
esac
# ok when the MPS is the most the path supports, warn when the firmware
# left it lower (the card on q35's root bus: 128 of 256)
expect mps /tmp/doc.json mps "ok warn" MPS
# no GPU in the guest: nvidia fails, so the whole report does
if [ $st = 1 ] && verdicts /tmp/doc.json | grep -qx 'nvidia fail'; then
	pass exit-status "1, the guest has no NVIDIA module"
else
	fail exit-status "exit $st: $(verdicts /tmp/doc.json | tr '\n' ' ')"
fi

# a user outside the nodes' group (hf_runas: uid 4243, gid 4244)
hf_runas -u 4243 -g 4244 hellofpga -d "$CARD" doctor --json - >/tmp/doc-out.json 2>/dev/null
node=$(ls "$CARD"* 2>/dev/null | head -n 1)
if [ "$(stat -c %a "$node" 2>/dev/null)" = 666 ]; then
	skip nodes-outsider "$node is open to everyone"
else
	expect nodes-outsider /tmp/doc-out.json nodes fail "cannot be opened"
fi

# the recorder (bash) and the recorded tree
if [ ! -x "$BASH" ] || [ ! -f "$RECORD" ]; then
	skip record "no $BASH or $RECORD in this guest"
	exit $rc
fi
rm -rf /tmp/rec
if HELLOFPGA_CLI=/tests/bin/hellofpga "$BASH" "$RECORD" /tmp/rec >/tmp/rec.out 2>&1 &&
	[ -f /tmp/rec/doctor-env ]; then
	pass record "$(find /tmp/rec -type f | wc -l) files"
else
	fail record "$(tail -n 2 /tmp/rec.out | tr '\n' ' ')"
	exit 1
fi
hellofpga -d "$CARD" doctor --root /tmp/rec --json /tmp/doc-rec.json >/dev/null 2>&1
verdicts /tmp/doc.json >/tmp/v-live
verdicts /tmp/doc-rec.json >/tmp/v-rec
if [ "$(wc -l </tmp/v-live)" -gt 10 ] && cmp -s /tmp/v-live /tmp/v-rec; then
	pass recorded-tree-gives-live-verdicts "$(wc -l </tmp/v-live) checks"
else
	fail recorded-tree-gives-live-verdicts "$(diff /tmp/v-live /tmp/v-rec | grep '^[-+][a-z]' | tr '\n' ' ')"
fi

case " $(cat /proc/cmdline) " in
*" hf_doctor_dump=1 "*)
	rm -rf /tmp/rec-hex
	HELLOFPGA_CLI=/tests/bin/hellofpga "$BASH" "$RECORD" --hex /tmp/rec-hex >/dev/null 2>&1
	{
		echo HF-DOCTOR-TREE-BEGIN
		tar -C /tmp/rec-hex -cf - . | gzip -9 | base64
		echo HF-DOCTOR-TREE-END
	} >/dev/console
	;;
esac
exit $rc
