#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# run-config.sh NAME - boot the test guest in one configuration and report.
#
# Needs what guest-ci.sh built (it writes $HF_GUEST_OUT/guest.env: the QEMU
# binary, the kernel, the initramfs); `./run guest NAME` builds and runs one
# configuration.  Prints one line per guest test, "PASS NAME/test",
# "FAIL NAME/test: reason" or "SKIP NAME/test: reason"; a guest that does
# not end through isa-debug-exit with its GUEST-SUMMARY line (hang, panic,
# timeout) adds "FAIL NAME/guest-exit: ...".  Exit status 0 only when
# nothing failed.  The serial console goes to $HF_GUEST_OUT/logs/NAME.log.
#
# Environment: HF_GUEST_OUT (default build-guest/ of the repository),
# HF_GUEST_TIMEOUT (seconds, default per configuration), HF_GUEST_DEVICE
# (the card's -device argument, default xdma-sim), HF_GUEST_APPEND (more
# kernel command line, e.g. hf_doctor_dump=1 for cases/doctor.sh).  A
# CFG_HOTPLUG, CFG_CARD2 or CFG_QMP configuration also gets a QMP socket
# ($HF_GUEST_OUT/logs/NAME.qmp) and runs the QMP commands the guest asks
# for with console lines "HF-QMP TAG {json}", or "HF-QMP TAG readd ID":
# device_add of the card with QMP id ID (card, card1) as configured (QMP
# output: logs/NAME.log.qmp.out); CFG_HOTPLUG adds the host half of
# faults.sh's hotplug test.  CFG_PLUGIN=insn (HF_GUEST_PLUGIN) loads the
# TCG plugin hf_insn.so (HF_PLUGIN_INSN of guest.env) with -plugin, its
# output (-d plugin -D) in logs/NAME.log.plugin, and tells the guest
# (hf_insn=1); after the run insn-table.py joins the counts with the
# guest's legend into logs/NAME.log.insn (also on stderr) and checks them
# ("PASS NAME/insn/counts").
set -uo pipefail
here=$(cd "$(dirname "$(readlink -f "$0")")" && pwd)
repo=$(cd "$here/../../.." && pwd)
out=${HF_GUEST_OUT:-$repo/build-guest}
. "$here/configs.sh"
name=${1:?usage: run-config.sh NAME (one of: ${HF_CONFIGS[*]})}
if ! hf_config "$name"; then
	echo "run-config.sh: unknown configuration '$name' (known: ${HF_CONFIGS[*]})" >&2
	exit 2
fi
if [ ! -f "$out/guest.env" ]; then
	echo "run-config.sh: no $out/guest.env: run tests/guest/harness/guest-ci.sh first" >&2
	exit 2
fi
. "$out/guest.env"	# HF_QEMU HF_QEMU_DATA HF_KERNEL HF_INITRD (+ _AARCH64, _6_12)
export HF_RTL_PLUGIN	# for xdma-sim,rtl=on (refdesign/hf_rtl_load.h)
			# HF_PLUGIN_INSN
# The architecture's QEMU, kernel and initramfs, console and exit: x86_64
# leaves through isa-debug-exit (rc (r << 1) | 1); aarch64 has none and
# powers off through PSCI (rc 0): its result is the GUEST-SUMMARY line.
if [ "$CFG_ARCH" = aarch64 ]; then
	HF_QEMU=${HF_QEMU_AARCH64:-} HF_KERNEL=${HF_KERNEL_AARCH64:-}
	HF_INITRD=${HF_INITRD_AARCH64:-}
	console=ttyAMA0 exit_dev=()
	# max: every feature TCG has (LSE atomics, ...); the IMPDEF pointer
	# authentication algorithm, as fast as no pauth (QARMA is slow in TCG)
	cpu=max,pauth-impdef=on
else
	console=ttyS0 exit_dev=(-device isa-debug-exit,iobase=0xf4,iosize=0x04)
	cpu=max
fi
# another kernel (CFG_KERNEL): its vmlinux and initramfs (its modules)
if [ -n "$CFG_KERNEL" ]; then
	v=HF_KERNEL_${CFG_KERNEL//./_} i=HF_INITRD_${CFG_KERNEL//./_}
	HF_KERNEL=${!v:-} HF_INITRD=${!i:-}
fi
if [ -z "$HF_QEMU" ] || [ -z "$HF_KERNEL" ] || [ -z "$HF_INITRD" ]; then
	echo "run-config.sh: $out/guest.env has no $CFG_ARCH${CFG_KERNEL:+ $CFG_KERNEL} guest: run guest-ci.sh $name first" >&2
	exit 2
fi
mkdir -p "$out/logs"
log=$out/logs/$name.log
: >"$log"

data=()
for d in $HF_QEMU_DATA; do data+=(-L "$d"); done
append="console=$console panic=-1 oops=panic loglevel=4 rdinit=/init"
append+=" hf_config=$name hf_irq=$CFG_IRQ"
[ -n "$CFG_MODPARAMS" ] && append+=" hf_modparams=$CFG_MODPARAMS"
[ -n "$CFG_CASES" ] && append+=" hf_cases=$CFG_CASES"
[ -n "$CFG_ONLY" ] && append+=" hf_only=$CFG_ONLY"
[ -n "$CFG_APPEND" ] && append+=" $CFG_APPEND"
[ -n "${HF_GUEST_APPEND:-}" ] && append+=" $HF_GUEST_APPEND"

# Hot-unplug, two-card and QMP configurations: each card behind a PCIe
# root port (pciehp, AER), with an id for QMP device_del / device_add.
card=(-device "$CFG_DEVICE")
qmp_sock=
host_res=$log.host
: >"$host_res"
if [ -n "$CFG_HOTPLUG$CFG_CARD2$CFG_QMP" ]; then
	qmp_sock=$out/logs/$name.qmp
	rm -f "$qmp_sock"
	append+=" hf_qmp=1"
	[ -n "$CFG_HOTPLUG" ] && append+=" hf_hotplug=1"
	card=(-qmp "unix:$qmp_sock,server=on,wait=off"
		-device pcie-root-port,id=rp0,chassis=1,slot=1
		-device "$CFG_DEVICE,bus=rp0,id=card")
	if [ -n "$CFG_CARD2" ]; then
		# the guest learns what the cards are from its command line
		append+=" hf_card0=$CFG_DEVICE hf_card1=$CFG_CARD2"
		card+=(-device pcie-root-port,id=rp1,chassis=2,slot=2
			-device "$CFG_CARD2,bus=rp1,id=card1")
	fi
fi

# TCG plugin: insn[,ARG=VAL...] -> -plugin file=hf_insn.so[,ARG=VAL...];
# what it prints (qemu_plugin_outs) is log category "plugin", into its file
plugin=()
plugin_log=$log.plugin
rm -f "$plugin_log" "$log.insn"
case $CFG_PLUGIN in
"") ;;
insn | insn,*)
	if [ "$CFG_ARCH" != x86_64 ]; then
		echo "SKIP host/insn-plugin: hf_insn counts x86_64 guests only" >>"$host_res"
	elif [ -n "${HF_PLUGIN_INSN:-}" ] && [ -f "$HF_PLUGIN_INSN" ]; then
		plugin=(-plugin "file=$HF_PLUGIN_INSN${CFG_PLUGIN#insn}"
			-d plugin -D "$plugin_log")
		append+=" hf_insn=1"
	else
		echo "SKIP host/insn-plugin: no hf_insn.so (HF_PLUGIN_INSN in $out/guest.env; scripts/build-qemu.sh --plugin builds it)" >>"$host_res"
	fi
	;;
*)
	echo "run-config.sh: unknown CFG_PLUGIN '$CFG_PLUGIN' (insn[,ARGS] or none)" >&2
	exit 2
	;;
esac

cmd=("$HF_QEMU" "${data[@]}" -machine "$CFG_MACHINE" -accel tcg -cpu "$cpu"
	-smp "$CFG_SMP" -m "$CFG_MEM" -kernel "$HF_KERNEL" -initrd "$HF_INITRD"
	-append "$append" -display none -monitor none -serial "file:$log"
	-no-reboot -nic none "${exit_dev[@]}"
	-action panic=exit-failure "${plugin[@]}" "${CFG_QEMU[@]}" "${card[@]}")
printf '%s\n' "# ${cmd[*]}" >"$log.cmd"

# qmp SOCKET CMD-JSON [@EVENT]: one QMP command (after qmp_capabilities);
# with @EVENT, waits for that event too.  Every step times out (30 s).
qmp() {
	timeout -k 2 40 python3 -c '
import json, socket, sys
s = socket.socket(socket.AF_UNIX)
s.settimeout(30)
s.connect(sys.argv[1])
f = s.makefile("rw")
json.loads(f.readline())
ev = sys.argv[3][1:] if len(sys.argv) > 3 else None
seen = []
def reply(cmd):
    f.write(cmd + "\n"); f.flush()
    while True:
        r = json.loads(f.readline())
        if "event" in r:
            seen.append(r); continue
        return r
reply("{\"execute\":\"qmp_capabilities\"}")
r = reply(sys.argv[2])
print("qmp:", sys.argv[2], "->", json.dumps(r))
if "error" in r:
    sys.exit(1)
if ev:
    while not any(e["event"] == ev for e in seen):
        seen.append(json.loads(f.readline()))
    print("qmp event:", json.dumps([e for e in seen if e["event"] == ev][0]))
' "$@"
}
# wait_line PATTERN SECONDS: until the console log has PATTERN (QEMU alive)
wait_line() {
	local i=0
	until tr -d '\r' <"$log" | grep -a -q "^$1"; do
		kill -0 "$qpid" 2>/dev/null || return 1
		sleep 0.2
		i=$((i + 1))
		[ $i -lt $(($2 * 5)) ] || return 1
	done
}
# device_add_json ID: the QMP device_add of card ID (card: CFG_DEVICE on
# rp0, card1: CFG_CARD2 on rp1) as configured, so that a card the guest
# had removed comes back the same: xdma-sim,prop=val,... -> arguments
device_add_json() {
	local dev bus
	case $1 in
	card) dev=$CFG_DEVICE bus=rp0 ;;
	card1) dev=$CFG_CARD2 bus=rp1 ;;
	*) return 1 ;;
	esac
	[ -n "$dev" ] || return 1
	python3 -c 'import json,sys
d = sys.argv[1].split(",")
a = {"driver": d[0], "bus": sys.argv[2], "id": sys.argv[3]}
a.update(kv.split("=", 1) for kv in d[1:] if "=" in kv)
print(json.dumps({"execute": "device_add", "arguments": a}))' "$dev" "$bus" "$1"
}
# hotplug_host: the host half of cases/faults.sh's hotplug test.  The guest
# prints HF-HOTPLUG-NOW while a transfer is stalled on the card: device_del
# (the guest's pciehp removes it; DEVICE_DELETED); then HF-HOTPLUG-READD:
# device_add of the same card, so the later cases and the unload run on a
# card again.  Results as PASS/FAIL lines in $host_res.
hotplug_host() {
	local props
	wait_line HF-HOTPLUG-NOW "$CFG_TIMEOUT" || return
	if qmp "$qmp_sock" '{"execute":"device_del","arguments":{"id":"card"}}' \
		@DEVICE_DELETED >>"$log.qmp.out" 2>&1; then
		echo "PASS hotplug/host-device_del" >>"$host_res"
	else
		echo "FAIL hotplug/host-device_del: QMP device_del or its DEVICE_DELETED event failed: $(tail -n 1 "$log.qmp.out" | head -c 200)" >>"$host_res"
	fi
	wait_line HF-HOTPLUG-READD 120 || return
	props=$(device_add_json card) || return
	if qmp "$qmp_sock" "$props" >>"$log.qmp.out" 2>&1; then
		echo "PASS hotplug/host-device_add" >>"$host_res"
	else
		echo "FAIL hotplug/host-device_add: QMP device_add failed: $(tail -n 1 "$log.qmp.out" | head -c 200)" >>"$host_res"
	fi
}

# qmp_requests: QMP commands the guest asks for on its console, one line
# each, "HF-QMP TAG {json}" or "HF-QMP TAG readd ID" (device_add of card ID
# as configured; cases print them through /dev/console): run in order,
# each once; the reply goes to $log.qmp.out, and a command QMP refuses
# becomes "FAIL host/qmp-TAG: ..." (tests/guest/README.md).  The guest
# waits for the effect it asked for (a device gone, an AER message).
# qmp_lines: the whole "HF-QMP" lines of the console log so far; a line
# the guest is still writing (no newline yet) waits for the next look, so
# that a command is never sent cut short.
qmp_lines() {
	local size
	size=$(stat -c %s "$log" 2>/dev/null) || return 0
	[ "$size" -gt 0 ] || return 0
	if [ "$(head -c "$size" "$log" | tail -c 1 | od -An -tx1 | tr -d ' ')" = 0a ]; then
		head -c "$size" "$log"
	else
		head -c "$size" "$log" | sed '$d'
	fi | tr -d '\r' | grep -a -E '^HF-QMP [A-Za-z0-9_.-]+ (\{|readd [a-z0-9]+$)'
}

qmp_requests() {
	local done=0 lines n tag json
	while kill -0 "$qpid" 2>/dev/null; do
		lines=$(qmp_lines)
		n=$(printf '%s' "$lines" | grep -c '^HF-QMP' || true)
		while [ "$done" -lt "$n" ]; do
			done=$((done + 1))
			tag=$(printf '%s\n' "$lines" | sed -n "${done}p" | cut -d' ' -f2)
			json=$(printf '%s\n' "$lines" | sed -n "${done}p" | cut -d' ' -f3-)
			case $json in
			"readd "*)
				json=$(device_add_json "${json#readd }") ||
					json="(no card ${json#readd } configured)"
				;;
			esac
			if ! qmp "$qmp_sock" "$json" >>"$log.qmp.out" 2>&1; then
				echo "FAIL host/qmp-$tag: QMP refused $json: $(tail -n 1 "$log.qmp.out" | head -c 200)" >>"$host_res"
			fi
		done
		sleep 0.2
	done
}

start=$(date +%s%N)
timeout -k 5 "$CFG_TIMEOUT" "${cmd[@]}" </dev/null >"$log.qemu" 2>&1 &
qpid=$!
hpid= rpid=
if [ -n "$qmp_sock" ]; then
	: >"$log.qmp.out"
	if [ -n "$CFG_HOTPLUG" ]; then
		hotplug_host &
		hpid=$!
	fi
	qmp_requests &
	rpid=$!
fi
wait "$qpid"
qrc=$?
if [ -n "$rpid" ]; then
	kill "$rpid" 2>/dev/null
	wait "$rpid" 2>/dev/null
fi
if [ -n "$hpid" ]; then
	kill "$hpid" 2>/dev/null
	wait "$hpid" 2>/dev/null
	grep -q 'hotplug/host-device_del' "$host_res" ||
		echo "FAIL hotplug/host-device_del: the guest never printed HF-HOTPLUG-NOW (cases/faults.sh did not get there)" >>"$host_res"
fi
# the plugin's counts with the guest's legend: the table, its check
if [ ${#plugin[@]} -gt 0 ]; then
	python3 "$here/insn-table.py" "$log" "$plugin_log" "$log.insn" >>"$host_res" 2>&1
	[ -s "$log.insn" ] && { echo "---- $name: guest instructions per transfer (hf_insn) ----"; cat "$log.insn"; } >&2
fi
secs=$(( ($(date +%s%N) - start) / 1000000 ))
secs=$((secs / 1000)).$(( (secs % 1000) / 100 ))

# Result lines of the guest (the console adds \r; kernel messages may
# share the log: only whole lines that start with a result count).
tr -d '\r' <"$log" | sed -n -E "s#^(PASS|FAIL|SKIP) ([^ :]+)(: .*)?\$#\1 $name/\2\3#p"
# and the host side's (hotplug)
sed -n -E "s#^(PASS|FAIL|SKIP) ([^ :]+)(: .*)?\$#\1 $name/\2\3#p" "$host_res"
summary=$(tr -d '\r' <"$log" | grep -a '^GUEST-SUMMARY' | tail -n 1)
guest_ok=
if [ "$qrc" = 1 ] || [ "$qrc" = 3 ] || { [ "$CFG_ARCH" = aarch64 ] && [ "$qrc" = 0 ]; }; then
	[ -n "$summary" ] && guest_ok=1
fi
if [ -z "$guest_ok" ]; then
	case $qrc in
	124 | 137) why="timed out after $CFG_TIMEOUT s" ;;
	0) why="guest rebooted or panicked (QEMU rc 0)" ;;
	*) why="QEMU exit status $qrc" ;;
	esac
	[ -z "$summary" ] && why="$why, no GUEST-SUMMARY"
	echo "FAIL $name/guest-exit: $why (log: $log)"
	{
		echo "---- $name: tail of $log ----"
		tr -d '\r' <"$log" | tail -n 25
		[ -s "$log.qemu" ] && { echo "---- QEMU said ----"; tail -n 5 "$log.qemu"; }
	} >&2
fi
failed=$(tr -d '\r' <"$log" | cat - "$host_res" | grep -c -E '^FAIL ')
echo "guest $name: ${secs}s, QEMU rc $qrc, ${summary:-no summary}" >&2
[ -n "$guest_ok" ] && [ "$failed" = 0 ]
