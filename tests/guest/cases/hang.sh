#!/bin/sh
# hang.sh - hang, then recover (hf_wedge, docs/driver-stop.md "Wedged
# channels"): the card's hang fault (fault window bit 4) holds every engine,
# so stopped runs cannot be proven idle and their channels wedge; refused at
# once meanwhile, they work again once the hang is over and the kept memory
# is released.  hellofpga.ko is reloaded with timeout_ms=1000 and
# stop_wait_ms=100 for it, then with the configuration's parameters again.
# With a second card (twocards) it must work during card 0's hang.
CARD=${HF_GUEST_CARD:-/dev/hellofpga0}
CARDS=${HF_GUEST_CARDS:-$CARD}
MODS=${HF_GUEST_MODULES:-/lib/modules-extra}
MODPARAMS=$(sed -n 's/.*hf_modparams=\([^ ]*\).*/\1/p' /proc/cmdline | tr , ' ')
rc=0
wait_nodes() {
	for c in $CARDS; do
		i=0
		while [ ! -e "${c}_c2h_0" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
		[ -e "${c}_c2h_0" ] || return 1
	done
}
reload() {	# reload EXTRA-PARAMS...: the module again, the config's parameters
	# a process of the case before may still be closing its files
	i=0
	until rmmod hellofpga >/tmp/hang.rm 2>&1; do
		i=$((i + 1))
		[ $i -lt 50 ] || return 1
		sleep 0.2
	done
	insmod "$MODS/hellofpga.ko" $MODPARAMS "$@" >>/tmp/hang.rm 2>&1 || return 1
	wait_nodes
}
if ! reload timeout_ms=1000 stop_wait_ms=100; then
	echo "FAIL hang/reload: $(head -c 200 /tmp/hang.rm)"
	wait_nodes || { insmod "$MODS/hellofpga.ko" $MODPARAMS; wait_nodes; }
	exit 1
fi
echo HF-HANG-MARK >/dev/kmsg
other=
for c in $CARDS; do [ "$c" != "$CARD" ] && other="-o $c"; done
timeout 120 hf_wedge -d "$CARD" $other -t 1000 >/tmp/hang.out 2>&1
r=$?
cat /tmp/hang.out
if ! grep -q -E '^(PASS|FAIL|SKIP) ' /tmp/hang.out; then
	echo "FAIL hang/prog: hf_wedge exit $r without a result line"
	rc=1
elif [ $r != 0 ]; then
	rc=1
fi
# the hang ends if the program did not end it
printf '\000\000\000\000' | dd of="${CARD}_user" bs=4 seek=$((0xf000 / 4)) count=1 conv=notrunc 2>/dev/null
if reload; then
	echo "PASS hang/reload-after"
else
	echo "FAIL hang/reload-after: $(head -c 200 /tmp/hang.rm)"
	rc=1
	wait_nodes || { insmod "$MODS/hellofpga.ko" $MODPARAMS; wait_nodes; }
fi
k=$(dmesg | sed -n '/HF-HANG-MARK$/,$p' | grep -E 'BUG:|WARNING:|Oops|Call Trace|general protection|DMAR:.*[Ff]ault' | head -n 1)
if [ -z "$k" ]; then echo "PASS hang/dmesg-clean"; else echo "FAIL hang/dmesg-clean: $k"; rc=1; fi
exit $rc
