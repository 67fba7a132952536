#!/bin/sh
# SPDX-License-Identifier: MIT
# gpu_nvp2p.sh - GPU Direct through the real nvidia_p2p provider in the
# guest: nvp2p-standin.ko (tests/guest/kmod/nvp2p-standin) plays nvidia.ko
# over guest memory, hellofpga-nvp2p.ko (built against it) pins for
# hellofpga.ko.  Runs "hellofpga test" (15 cases) through the kernel
# backend with PIN_CUDA pins, with persistent pins and with the callback
# API, and nvp2p_revoke (free callbacks in the middle of a stream, and
# exactly while PIN or UNPIN is inside an nvidia_p2p call); checks
# that the stand-in's counters end at zero and that both modules unload.
# gpu_nvp2p_tegra.sh runs this with TEGRA=1.
#
# Prints PASS/FAIL/SKIP lines named nvp2p/... (nvp2p-tegra/... for Tegra).
CARD=${HF_GUEST_CARD:-/dev/hellofpga0}
MODS=${HF_GUEST_MODULES:-/lib/modules-extra}
DBG=/sys/kernel/debug/nvp2p-standin
# The provider's pins, revocations and cancelled runs do not depend on how
# a completion is signalled beyond MSI-X (interrupt wait) and poll mode
# (writeback wait): msi and legacy wait and cancel exactly as msix does, so
# they skip these 45 s (tests/guest/README.md, "Time").
case ${HF_GUEST_CONFIG:-} in
msi | legacy)
	[ "${TEGRA:-0}" = 1 ] && n=nvp2p-tegra || n=nvp2p
	echo "SKIP $n/all: the provider's paths are those of msix here (interrupt wait); run in msix, poll and the DMA configurations"
	exit 0
	;;
esac
# tests/guest/kmod/nvp2p-standin installs one directory per flavor
SA=nvp2p-standin PROV=hellofpga-nvp2p
if [ "${TEGRA:-0}" = 1 ]; then
	P=nvp2p-tegra KO=$MODS/nvp2p-standin/tegra
	GPU=emu-tegra DEV='' FEAT=pin-tegra
else
	P=nvp2p KO=$MODS/nvp2p-standin/desktop
	GPU=emu DEV=/dev/nvp2p-standin FEAT=pin-nvp2p
fi
. "${HF_GUEST_LIB:-/tests/case-lib.sh}"
HF_GROUP=$P
loaded() { grep -q "^$(echo "$1" | tr - _) " /proc/modules; }

# counters NAME: the stand-in's page tables, mappings and allocations are 0
counters() {
	if [ ! -r "$DBG/counters" ]; then
		skip "$1" "no $DBG/counters (debugfs not mounted)"
		return
	fi
	left=$(awk '$1=="tables"||$1=="mappings"||$1=="allocs"{if($2!=0)printf "%s=%s ",$1,$2}' \
		"$DBG/counters")
	refused=$(awk '$1=="refused"{print $2}' "$DBG/counters")
	deadlocks=$(awk '$1=="deadlocks"{print $2}' "$DBG/counters")
	if [ -n "$left" ]; then
		fail "$1" "stand-in still holds: $left"
	elif [ "${deadlocks:-0}" != 0 ]; then
		fail "$1" "the stand-in counted $deadlocks deadlocks: a free callback waited for a caller of nvidia_p2p (see dmesg)"
	elif [ "${refused:-0}" != 0 ]; then
		fail "$1" "the stand-in refused $refused calls of the provider (see dmesg)"
	else
		pass "$1"
	fi
	sed 's/^/# /' "$DBG/counters" | tr '\n' ' '
	echo
}

# gputest TAG: "hellofpga test -s 1M" through PIN_CUDA, its 15 case lines
# as $P/TAG/NAME
gputest() {
	tag=$1
	HELLOFPGA_GPU=$GPU HELLOFPGA_PIN=cuda HELLOFPGA_EMU_GPU_DEV=$DEV \
		timeout 500 hellofpga -d "$CARD" test -s 1M >/tmp/nvt.out 2>&1
	rc=$?
	sed -n 's/^\[ *[0-9]*\/[0-9]*\] \([a-z0-9_]*\) \.* \(PASS\|FAIL\|SKIP\) (\(.*\))$/\2 \1 \3/p' \
		/tmp/nvt.out >/tmp/nvt.cases
	n=0
	while read -r r name rest; do
		n=$((n + 1))
		case $r in
		PASS) pass "$tag/$name" ;;
		FAIL) fail "$tag/$name" "$rest" ;;
		SKIP) skip "$tag/$name" "$rest" ;;
		esac
	done </tmp/nvt.cases
	if [ "$n" != 15 ] || { [ $rc != 0 ] && ! grep -q '^FAIL' /tmp/nvt.cases; }; then
		fail "$tag/test" "hellofpga test -s 1M: exit $rc, $n case lines (15 expected)"
	fi
	[ $rc = 0 ] || sed -n '1,60s/^/    | /p' /tmp/nvt.out
}

# revoke TAG: nvp2p_revoke, its lines as $P/TAG/...
revoke() {
	HELLOFPGA_GPU=$GPU HELLOFPGA_PIN=cuda HELLOFPGA_EMU_GPU_DEV=$DEV \
		timeout 300 nvp2p_revoke -d "$CARD" >/tmp/nvr.out 2>&1
	rc=$?
	grep '^#' /tmp/nvr.out
	sed -n "s#^\(PASS\|FAIL\|SKIP\) #\1 $P/$1/#p" /tmp/nvr.out
	grep -q '^FAIL' /tmp/nvr.out && rc=1
	if ! grep -q -E '^(PASS|FAIL|SKIP) ' /tmp/nvr.out || { [ $rc != 0 ] && ! grep -q '^FAIL' /tmp/nvr.out; }; then
		fail "$1/revoke" "nvp2p_revoke: exit $rc: $(tail -n 1 /tmp/nvr.out | head -c 200)"
	fi
}

# provider PARAMS...: (re)load the provider
provider() {
	loaded "$PROV" && rmmod "$(echo "$PROV" | tr - _)"
	insmod "$KO/$PROV.ko" "$@" >/tmp/nvi.out 2>&1
}

if [ ! -f "$KO/$SA.ko" ] || [ ! -f "$KO/$PROV.ko" ]; then
	skip all "$KO/$SA.ko or $PROV.ko not built (tests/guest/kmod/nvp2p-standin)"
	exit 0
fi
if ! insmod "$KO/$SA.ko" >/tmp/nvi.out 2>&1; then
	fail load "insmod $SA.ko: $(head -c 200 /tmp/nvi.out)"
	exit 1
fi
if ! provider; then
	fail load "insmod $PROV.ko: $(head -c 200 /tmp/nvi.out)"
	rmmod "$(echo "$SA" | tr - _)"
	exit 1
fi
pass load

hellofpga -d "$CARD" info >/tmp/nvinfo.out 2>&1
feat=$(sed -n 's/^driver features: *//p' /tmp/nvinfo.out)
case " $feat " in
*" $FEAT "*) pass feature ;;
*) fail feature "GET_INFO features '$feat' lack $FEAT" ;;
esac

if [ "${TEGRA:-0}" = 1 ]; then
	# Tegra: only the callback API.  Its streaming mapping is synced around
	# every run by the provider, so this also holds under swiotlb=force.
	gputest callback
	counters callback/counters
	revoke callback
	counters callback/counters-after-revoke
else
	case " $feat " in
	*" pin-nvp2p-persistent "*)
		gputest persistent
		counters persistent/counters
		revoke persistent
		counters persistent/counters-after-revoke
		;;
	*) skip persistent "the provider did not choose persistent pins" ;;
	esac
	if provider use_persistent=0; then
		gputest callback
		counters callback/counters
		revoke callback
		counters callback/counters-after-revoke
	else
		fail callback "insmod $PROV.ko use_persistent=0: $(head -c 200 /tmp/nvi.out)"
	fi
fi

rmmod "$(echo "$PROV" | tr - _)" >/tmp/nvu.out 2>&1 &&
	rmmod "$(echo "$SA" | tr - _)" >>/tmp/nvu.out 2>&1
if loaded "$PROV" || loaded "$SA"; then
	fail unload "rmmod: $(head -c 200 /tmp/nvu.out)"
else
	pass unload
fi
exit $rc
