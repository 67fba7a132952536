#!/bin/sh
# SPDX-License-Identifier: MIT
# privsep.sh - the privilege split of hellofpga.ko (docs/security.md): the
# card's nodes are given to a group the obvious way (chgrp + chmod g+rw),
# and a member of it with no capabilities (hf_runas: uid 4243, gid 4244,
# groups 4242) may do everything an application needs and nothing with the
# DMA/config registers; CAP_SYS_RAWIO at open, not the user ID, decides,
# and the answer stays with the open file.
#
#   privsep/outsider-cannot-open       not in the group: no node opens
#   privsep/...                        hf_privsep unpriv: registers through
#                                      _control refused (EPERM + text),
#                                      ioctls, h2c/c2h, user BAR, events work
#   privsep/cli-info, cli-demo         the library and CLI as that user
#   privsep/root-without-caps/...      uid 0 without capabilities: refused
#   privsep/user-with-cap_sys_rawio/...  the user with CAP_SYS_RAWIO: allowed
#   privsep/fd-opened-by-root/...      root's open, inherited by the user
#   privsep/deputy-...                 a setuid-root program given the
#                                      user's descriptor: refused through it
#   privsep/mmap-...                   (root) MAP_PRIVATE, ranges, nodes
#   info/...                           GET_INFO's ABI 1.1 fields vs sysfs,
#                                      and what hellofpga info prints
CARD=${HF_GUEST_CARD:-/dev/hellofpga0}
GRP=4242
USR="-u 4243 -g 4244"
. "${HF_GUEST_LIB:-/tests/case-lib.sh}"
HF_GROUP=privsep
# run NAME CMD...: CMD prints its own result lines; a failure without a
# FAIL line (hf_runas could not switch, a crash) is NAME's FAIL
run() {
	n=$1
	shift
	timeout 120 "$@" >/tmp/ps.out 2>&1
	r=$?
	grep -E '^(PASS|FAIL|SKIP) ' /tmp/ps.out
	if [ $r != 0 ] && ! grep -q '^FAIL ' /tmp/ps.out; then
		fail "$n" "exit $r: $(grep -v -E '^(PASS|SKIP) ' /tmp/ps.out | tail -n 2 | tr '\n' ' ' | head -c 200)"
	fi
	grep -q '^FAIL ' /tmp/ps.out && rc=1
	return 0
}
# ok NAME CMD...: NAME passes when CMD succeeds
ok() {
	n=$1
	shift
	if timeout 120 "$@" >/tmp/ps.out 2>&1; then
		pass "$n"
	else
		fail "$n" "exit $?: $(tail -n 2 /tmp/ps.out | tr '\n' ' ' | head -c 200)"
	fi
}

if ! command -v hf_runas >/dev/null || ! command -v hf_privsep >/dev/null; then
	echo "FAIL privsep/progs: hf_runas or hf_privsep missing from /tests/bin"
	exit 1
fi
# the obvious way to let a group use a card
chgrp "$GRP" "$CARD"_* && chmod g+rw "$CARD"_* ||
	{ echo "FAIL privsep/chgrp: cannot give $CARD""_* to group $GRP"; exit 1; }

# outside the group the nodes do not open (the modes decide who may use it)
if hf_runas $USR -- sh -c "exec 3<>${CARD}_control" 2>/dev/null; then
	fail outsider-cannot-open "uid 4243 outside group $GRP opened ${CARD}_control"
else
	pass outsider-cannot-open
fi

# a member of the group, no capabilities
run unpriv hf_runas $USR -G $GRP -- hf_privsep -d "$CARD" unpriv
ok cli-info hf_runas $USR -G $GRP -- hellofpga -d "$CARD" info
ok cli-demo hf_runas $USR -G $GRP -- hellofpga -d "$CARD" demo -s 1M

# capabilities decide, not the user ID
run root-without-caps hf_runas -u 0 -g 0 -- \
	hf_privsep -d "$CARD" -p privsep/root-without-caps refused
run user-with-cap_sys_rawio hf_runas $USR -G $GRP -c 17 -- \
	hf_privsep -d "$CARD" -p privsep/user-with-cap_sys_rawio raw

# the answer belongs to the open file: root's open handed to the user...
run fd-opened-by-root hf_runas $USR -G $GRP -- \
	hf_privsep -d "$CARD" -p privsep/fd-opened-by-root raw 3 3<>"${CARD}_control"
# ...and the user's open handed to a setuid-root program (confused deputy)
cp /tests/bin/hf_privsep /tmp/hf_privsep_suid && chmod 4755 /tmp/hf_privsep_suid
run deputy hf_runas $USR -G $GRP -b -- \
	sh -c "exec 3<>${CARD}_control; exec /tmp/hf_privsep_suid -d $CARD deputy 3"
rm -f /tmp/hf_privsep_suid

# root: MAP_PRIVATE, ranges beyond the window, nodes without mmap
run mmap-rules hf_privsep -d "$CARD" mmap-rules

# GET_INFO's ABI 1.1 fields (needs no privilege either), and the CLI's view
run info hf_runas $USR -G $GRP -- hf_privsep -d "$CARD" info
dev=$(basename "$(readlink "/sys/class/hellofpga/$(basename "$CARD")_control/device")")
bar=
while read -r s e f; do	# the first memory BAR: the user BAR
	if [ $((f & 0x200)) != 0 ] && [ $((e)) -gt $((s)) ]; then
		bar=$(printf 0x%x $((e - s + 1)))
		break
	fi
done <"/sys/class/hellofpga/$(basename "$CARD")_control/device/resource"
hellofpga -d "$CARD" info >/tmp/ps.info 2>&1
if grep -q "^PCI device: *$dev (10ee:9038)$" /tmp/ps.info &&
	grep -q "^user BAR: .*($bar bytes)$" /tmp/ps.info; then
	echo "PASS info/cli-pci-and-user-bar: $dev, $(sed -n 's/^user BAR: *//p' /tmp/ps.info)"
else
	echo "FAIL info/cli-pci-and-user-bar: sysfs $dev, BAR $bar; hellofpga info: $(grep -E '^(PCI device|user BAR):' /tmp/ps.info | tr '\n' ' ')"
	rc=1
fi

chgrp 0 "$CARD"_* && chmod g-rw "$CARD"_*
exit $rc
