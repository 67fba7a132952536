# SPDX-License-Identifier: MIT
# shellcheck shell=sh
# case-lib.sh - what case scripts share, in the guest at /tests/case-lib.sh
# (busybox sh): . "${HF_GUEST_LIB:-/tests/case-lib.sh}"
#
#   CARD CARDS MODS MODPARAMS   the first card's node prefix, every card's,
#                               the modules' folder, the configuration's
#                               hellofpga.ko parameters (space separated)
#   hf_wait_nodes               until every card's _c2h_0 is there (10 s)
#   hf_reload [PARAM...]        rmmod hellofpga (waiting up to 10 s for it
#                               to be free: a process of a case before may
#                               still be closing its files), insmod with
#                               MODPARAMS and PARAM..., hf_wait_nodes;
#                               status 1 with the reason in /tmp/hf_reload.out
#   hf_restore GROUP            hf_reload with MODPARAMS alone; a failure is
#                               "FAIL GROUP/reload-after", and the module is
#                               loaded anyway when it is missing
#   hf_kmark NAME, hf_kbad NAME  a mark line in the kernel log; the first
#                               kernel problem after it (BUG, WARNING, Oops,
#                               Call Trace, general protection, DMAR fault)
#   HF_GROUP; pass|fail|skip NAME [TEXT]
#                               one result line, "PASS HF_GROUP/NAME: TEXT";
#                               fail also sets rc=1 (a case ends: exit $rc)
#   hf_ms                       milliseconds since boot
#   hf_console TEXT             TEXT on the console (where the host reads
#                               "HF-..." requests) and on standard output
#   hf_w32 FILE OFFSET VALUE    a 32-bit little-endian write (a BAR's node)
#   hf_prog GROUP TIMEOUT CMD...  runs a program that prints result lines
#                               and shows them; one without any, or a
#                               failure, sets hf_rc=1 (and the first adds
#                               "FAIL GROUP/PROGRAM")
CARD=${HF_GUEST_CARD:-/dev/hellofpga0}
CARDS=${HF_GUEST_CARDS:-$CARD}
MODS=${HF_GUEST_MODULES:-/lib/modules-extra}
MODPARAMS=$(sed -n 's/.*hf_modparams=\([^ ]*\).*/\1/p' /proc/cmdline | tr , ' ')
hf_rc=0
rc=0
HF_GROUP=${HF_GROUP:-guest}

# shellcheck source=../../results.sh
_hf_lib=${HF_GUEST_LIB:-/tests/case-lib.sh}
. "${_hf_lib%/*}/results.sh"
pass() { hf_result PASS "$HF_GROUP/$1" "${2:-}"; }
fail() { hf_result FAIL "$HF_GROUP/$1" "${2:-}"; rc=1; }
skip() { hf_result SKIP "$HF_GROUP/$1" "${2:-}"; }

hf_wait_nodes() {
	for _c in $CARDS; do
		_i=0
		while [ ! -e "${_c}_c2h_0" ] && [ $_i -lt 100 ]; do
			sleep 0.1
			_i=$((_i + 1))
		done
		[ -e "${_c}_c2h_0" ] || return 1
	done
}

hf_reload() {
	_i=0
	until rmmod hellofpga >/tmp/hf_reload.out 2>&1; do
		_i=$((_i + 1))
		[ $_i -lt 50 ] || return 1
		sleep 0.2
	done
	# shellcheck disable=SC2086 # MODPARAMS: one word per parameter
	insmod "$MODS/hellofpga.ko" $MODPARAMS "$@" >>/tmp/hf_reload.out 2>&1 ||
		return 1
	hf_wait_nodes || { echo "no ${CARD}_c2h_0 after insmod" >>/tmp/hf_reload.out; return 1; }
}

hf_restore() {
	hf_reload && return 0
	echo "FAIL $1/reload-after: $(head -c 200 /tmp/hf_reload.out)"
	hf_rc=1
	if ! grep -q '^hellofpga ' /proc/modules; then
		# shellcheck disable=SC2086
		insmod "$MODS/hellofpga.ko" $MODPARAMS
		hf_wait_nodes
	fi
	return 1
}

hf_ms() { awk '{printf "%d", $1 * 1000}' /proc/uptime; }
hf_console() { echo "$*" >/dev/console 2>/dev/null; echo "$*"; }
hf_w32() {
	_v=$3
	printf "\\$(printf %03o $((_v & 255)))\\$(printf %03o $(((_v >> 8) & 255)))\\$(printf %03o $(((_v >> 16) & 255)))\\$(printf %03o $(((_v >> 24) & 255)))" |
		dd of="$1" bs=4 seek=$(($2 / 4)) count=1 conv=notrunc 2>/dev/null
}

hf_kmark() { echo "HF-MARK-$1" >/dev/kmsg; }
hf_kbad() {
	dmesg | sed -n "/HF-MARK-$1\$/,\$p" |
		grep -E 'BUG:|WARNING:|Oops|Call Trace|general protection|DMAR:.*[Ff]ault' |
		head -n 1
}

hf_prog() {
	_g=$1 _t=$2
	shift 2
	timeout "$_t" "$@" >/tmp/hf_prog.out 2>&1
	_r=$?
	cat /tmp/hf_prog.out
	if ! grep -q -E '^(PASS|FAIL|SKIP) ' /tmp/hf_prog.out; then
		echo "FAIL $_g/$1: exit $_r without a result line"
		hf_rc=1
	elif [ $_r != 0 ]; then
		hf_rc=1
	fi
	return $_r
}
