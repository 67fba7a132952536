#!/bin/sh
# SPDX-License-Identifier: MIT
# twocards.sh - two cards at once (the twocards configuration: card 0 as
# everywhere, card 1 another xdma-sim with other channel counts and card
# memory, hf_card0= / hf_card1= on the kernel command line give both
# -device arguments):
#   twocards/probe-*          both probed, each with its own nodes: control,
#                             user, events, and exactly its h2c/c2h channels
#   twocards/info-*           hellofpga info (GET_INFO through the library)
#                             of each: its channel counts and card memory
#                             size as configured; the user BAR's memory
#                             size register agrees
#   twocards/parallel         round trips on every channel of both cards at
#                             once, data compared
#   stop64/unplug-*           hf_stop -m unplug: QMP device_del of card 1
#                             during a 64 MiB transfer on its slow link
#                             (docs/driver-stop.md, removal)
#   twocards/other-card-*     card 0 keeps working while card 1 goes: round
#                             trips all along, its nodes stay
#   twocards/readd-*          device_add brings card 1 back as it was
# Needs the QMP request channel (hf_qmp=1): "HF-QMP TAG {json}" and
# "HF-QMP TAG readd card1" console lines (harness/run-config.sh).
. "${HF_GUEST_LIB:-/tests/case-lib.sh}"
A=/dev/hellofpga0
B=/dev/hellofpga1
HF_GROUP=twocards
case $CARDS in
*"$B"*) ;;
*)
	echo "SKIP twocards/all: one card in this configuration (twocards has two)"
	exit 0
	;;
esac
cmdline=$(cat /proc/cmdline)
dev_of() { echo " $cmdline " | sed -n "s/.* hf_card$1=\([^ ]*\) .*/\1/p"; }
# prop DEVICE NAME DEFAULT: a property of an xdma-sim -device argument
prop() {
	v=$(echo ",$1," | sed -n "s/.*,$2=\([^,]*\),.*/\1/p")
	echo "${v:-$3}"
}
bytes_of() {	# 512M, 2G -> bytes
	case $1 in
	*G) echo $((${1%G} << 30)) ;;
	*M) echo $((${1%M} << 20)) ;;
	*K) echo $((${1%K} << 10)) ;;
	*) echo "$1" ;;
	esac
}
u32le() {	# u32le FILE OFFSET: a 32-bit value, decimal
	dd if="$1" bs=4 skip=$(($2 / 4)) count=1 2>/dev/null | od -An -tu4 | tr -d ' \n'
}
# rt CARD H2C C2H ADDR SIZE TAG: round trip, compared
rt() {
	f=/tmp/tc.$6
	head -c "$(bytes_of "$5")" /dev/urandom >"$f.a"
	timeout 60 hellofpga -d "$1" write -c "$2" -a "$4" "$f.a" >"$f.log" 2>&1 &&
		timeout 60 hellofpga -d "$1" read -c "$3" -a "$4" -s "$5" "$f.b" >>"$f.log" 2>&1 &&
		cmp -s "$f.a" "$f.b"
}

# ------------------------------------------------------ probe and info --
hf_kmark twocards
n=0
for c in 0 1; do
	d=$(dev_of $c)
	[ -n "$d" ] || d=xdma-sim
	h=$(prop "$d" h2c 4) k=$(prop "$d" c2h 4)
	mem=$(bytes_of "$(prop "$d" ddr-size 2G)")
	p=/dev/hellofpga$c
	missing= extra=
	for s in control user events_0 events_15; do
		[ -e "${p}_$s" ] || missing="$missing ${p}_$s"
	done
	i=0
	while [ $i -lt 4 ]; do
		if [ $i -lt "$h" ]; then
			[ -e "${p}_h2c_$i" ] || missing="$missing ${p}_h2c_$i"
		else
			[ -e "${p}_h2c_$i" ] && extra="$extra ${p}_h2c_$i"
		fi
		if [ $i -lt "$k" ]; then
			[ -e "${p}_c2h_$i" ] || missing="$missing ${p}_c2h_$i"
		else
			[ -e "${p}_c2h_$i" ] && extra="$extra ${p}_c2h_$i"
		fi
		i=$((i + 1))
	done
	if [ -z "$missing$extra" ]; then
		pass "probe-card$c" "$p: control, user, events, $h h2c and $k c2h nodes ($d)"
	else
		fail "probe-card$c" "$p: missing:${missing:- none}; not on this card:${extra:- none}"
	fi
	if ! timeout 60 hellofpga -d "$p" info >/tmp/tc.info 2>&1; then
		fail "info-card$c" "hellofpga -d $p info: $(tail -n 1 /tmp/tc.info)"
		continue
	fi
	gh=$(sed -n 's/^H2C channels: *//p' /tmp/tc.info)
	gc=$(sed -n 's/^C2H channels: *//p' /tmp/tc.info)
	gm=$(sed -n 's/^card memory:.*(0x\([0-9a-f]*\) bytes)/\1/p' /tmp/tc.info)
	gm=$((0x${gm:-0}))
	if [ "$gh" = "$h" ] && [ "$gc" = "$k" ]; then
		pass "info-card$c-channels" "$gh H2C, $gc C2H"
	else
		fail "info-card$c-channels" "GET_INFO says $gh H2C, $gc C2H; the card has $h, $k"
	fi
	reg=$(( $(u32le "${p}_user" $((0x18))) << 20 ))
	if [ "$gm" = "$mem" ] && [ "$reg" = "$mem" ]; then
		pass "info-card$c-memory" "$((mem >> 20)) MiB"
	else
		fail "info-card$c-memory" "GET_INFO says $((gm >> 20)) MiB, the card has $((mem >> 20)) MiB (its user BAR register HF_USER_DDR_SIZE_MB says $((reg >> 20)) MiB; the driver takes the size from its ddr_size parameter, one value for every card)"
	fi
	n=$((n + 1))
done
bdf0=$(readlink /sys/class/hellofpga/hellofpga0_control/device)
bdf1=$(readlink /sys/class/hellofpga/hellofpga1_control/device)
bdf1=${bdf1##*/}
if [ -n "$bdf1" ] && [ "${bdf0##*/}" != "$bdf1" ]; then
	pass probe-two-devices "${bdf0##*/} and $bdf1"
else
	fail probe-two-devices "the nodes of both cards belong to '${bdf0##*/}' / '$bdf1'"
fi

# --------------------------------------------------- both cards at once --
# every H2C channel of both cards, each with its own card region, read back
# through a C2H channel of the same card; 3 rounds each, all at once
worker() {	# worker CARD H2C C2H ADDR SIZE TAG
	r=0
	while [ $r -lt 3 ]; do
		rt "$@" || { echo "$1 h2c $2 c2h $3 round $r: $(tail -n 1 /tmp/tc.$6.log)"; return 1; }
		r=$((r + 1))
	done
}
pids=
for c in 0 1; do
	d=$(dev_of $c)
	[ -n "$d" ] || d=xdma-sim
	h=$(prop "$d" h2c 4) k=$(prop "$d" c2h 4)
	i=0
	while [ $i -lt "$h" ]; do
		worker /dev/hellofpga$c $i $((i % k)) $((i * 16 + 16))M 4M p$c$i >/tmp/tc.w$c$i 2>&1 &
		pids="$pids $!"
		i=$((i + 1))
	done
done
bad=0
for p in $pids; do wait "$p" || bad=$((bad + 1)); done
if [ $bad = 0 ]; then
	pass parallel "round trips of 4 MiB on every H2C channel of both cards at once, 3 rounds, data compared"
else
	fail parallel "$bad workers failed: $(cat /tmp/tc.w* | head -n 2 | tr '\n' ' ')"
fi

# ------------------------------------ card 1 goes, card 0 keeps working --
bdf=$(readlink -f /sys/class/hellofpga/hellofpga1_control/device)
rm -f /tmp/tc.stop
(
	r=0 bad=0
	while [ ! -e /tmp/tc.stop ]; do
		rt "$A" $((r % 4)) $(((r + 1) % 4)) 256M 1M a || { bad=$((bad + 1)); tail -n 1 /tmp/tc.a.log; }
		r=$((r + 1))
	done
	echo "rounds=$r bad=$bad"
) >/tmp/tc.bg 2>&1 &
bg=$!
t0=$(hf_ms)
timeout 150 hf_stop -d "$B" -m unplug \
	-q 'HF-QMP unplug-card1 {"execute":"device_del","arguments":{"id":"card1"}}' >/tmp/tc.stop.out 2>&1
r=$?
grep -E '^(PASS|FAIL|SKIP) ' /tmp/tc.stop.out
grep -q '^FAIL ' /tmp/tc.stop.out && rc=1
if ! grep -q 'unplug-file-after-removal' /tmp/tc.stop.out; then
	fail unplug "hf_stop -m unplug did not finish (exit $r): $(tail -n 2 /tmp/tc.stop.out | tr '\n' ' ')"
fi
i=0
while [ -e "${B}_control" ] && [ $i -lt 300 ]; do sleep 0.2; i=$((i + 1)); done
i=0
while [ -e "$bdf" ] && [ $i -lt 150 ]; do sleep 0.2; i=$((i + 1)); done
if [ ! -e "${B}_control" ] && [ ! -e "$bdf" ]; then
	pass removed "card 1's nodes and PCI device ${bdf##*/} gone after $(($(hf_ms) - t0)) ms"
else
	fail removed "${B}_control or $bdf still there 60 s after device_del"
fi
touch /tmp/tc.stop
wait $bg
res=$(tail -n 1 /tmp/tc.bg)
rounds=$(echo "$res" | sed -n 's/rounds=\([0-9]*\) .*/\1/p')
bad=$(echo "$res" | sed -n 's/.* bad=\([0-9]*\)$/\1/p')
if [ "${bad:-1}" = 0 ] && [ "${rounds:-0}" -gt 0 ]; then
	pass other-card-works-during-removal "$rounds round trips of 1 MiB on card 0 while card 1 went, all matched"
else
	fail other-card-works-during-removal "card 0: $res: $(head -n 2 /tmp/tc.bg | tr '\n' ' ')"
fi
if [ -e "${A}_control" ] && [ -e "${A}_c2h_3" ] && rt "$A" 3 0 512M 1M a2; then
	pass other-card-after-removal "card 0's nodes stay, a round trip works"
else
	fail other-card-after-removal "card 0 after card 1 went: $(tail -n 1 /tmp/tc.a2.log 2>/dev/null)"
fi

# ------------------------------------------------------- card 1 again --
hf_console "HF-QMP readd-card1 readd card1"
i=0
while [ ! -e "${B}_c2h_0" ] && [ $i -lt 300 ]; do sleep 0.2; i=$((i + 1)); done
if [ -e "${B}_c2h_0" ]; then
	pass readd-probe "${B} back"
	d=$(dev_of 1)
	if timeout 60 hellofpga -d "$B" info >/tmp/tc.info 2>&1 &&
		[ "$(sed -n 's/^H2C channels: *//p' /tmp/tc.info)" = "$(prop "$d" h2c 4)" ] &&
		[ "$(sed -n 's/^C2H channels: *//p' /tmp/tc.info)" = "$(prop "$d" c2h 4)" ]; then
		pass readd-info "the same channel counts"
	else
		fail readd-info "$(grep -i channels /tmp/tc.info | tr '\n' ' ')"
	fi
	if rt "$B" 0 0 0 1M b; then
		pass readd-roundtrip
	else
		fail readd-roundtrip "$(tail -n 1 /tmp/tc.b.log)"
	fi
else
	fail readd-probe "no ${B}_c2h_0 60 s after device_add"
fi
k=$(hf_kbad twocards)
[ -z "$k" ] && pass dmesg-clean || fail dmesg-clean "$k"
exit $rc
