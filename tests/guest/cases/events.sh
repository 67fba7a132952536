#!/bin/sh
# SPDX-License-Identifier: MIT
# events.sh - user interrupts through the real driver: xdma-sim's user BAR
# (BAR0, the reference design's HF_USER_IRQ_SET / CLEAR) raises
# usr_irq_req, the IRQ block delivers it (MSI-X vector, or the shared MSI /
# INTx vector), hellofpga.ko's events node counts it, and the library
# (HelloFPGA_UserIRQ_GetFd/Wait through the kernel backend) gives it to
# "hellofpga events".  One process waits and another raises, as on a
# hardware card; then the JSON output of two interrupts, two waiters of one
# interrupt (no spurious error for the one that comes second), and a level
# held across takes (delivered once per take, no storm).  Every interrupt
# configuration; the library's own cases run in the lib built-in
# (tests/lib/test_user_irq.c through HF_TEST_CARD).
CARD=${HF_GUEST_CARD:-/dev/hellofpga0}
. "${HF_GUEST_LIB:-/tests/case-lib.sh}"
HF_GROUP=events
U=${CARD}_user

if [ ! -e "${CARD}_events_0" ]; then
	skip all "no ${CARD}_events_0: the driver runs the card without interrupt vectors"
	exit 0
fi

# listen NAME ARGS...: "hellofpga events ARGS" in the background into
# /tmp/NAME.out; waits until it has armed its interrupts (a short sleep:
# it opens the events nodes before it waits)
listen() {
	_n=$1
	shift
	timeout 60 hellofpga -d "$CARD" events "$@" >/tmp/"$_n".out 2>/tmp/"$_n".err &
	_pid=$!
	sleep 1
}

# --- one process waits, another raises -------------------------------
listen wait3 --irq 3 --count 1 --timeout 20000
if hellofpga -d "$CARD" events --raise 3 >/tmp/raise.out 2>&1 &&
	grep -q '^raised user interrupt 3$' /tmp/raise.out; then
	pass raise "$(cat /tmp/raise.out)"
else
	fail raise "$(cat /tmp/raise.out)"
fi
wait $_pid
r=$?
if [ $r = 0 ] && grep -Eq '^[0-9]+\.[0-9]{6} irq=3 count=[12]$' /tmp/wait3.out; then
	pass wait-other-process "$(cat /tmp/wait3.out)"
else
	fail wait-other-process "exit $r: $(cat /tmp/wait3.out /tmp/wait3.err)"
fi

# --- raise and wait in one command, several interrupts, JSON -------------
out=$(timeout 60 hellofpga -d "$CARD" events --irq 0,15 --raise 0,15 --count 2 --timeout 20000 --json 2>/dev/null)
r=$?
if [ $r = 0 ] && echo "$out" | grep -q '"irq":0,"count":' &&
	echo "$out" | grep -q '"irq":15,"count":'; then
	pass json-two-irqs "$(echo "$out" | tr '\n' ' ')"
else
	fail json-two-irqs "exit $r: $out"
fi

# --- two waiters of one interrupt: whoever takes second waits on ------
# (a pulse from another process may be delivered more than once: the
# request is a level, held for the two register writes of --raise)
listen w1 --irq 9 --timeout 3000
listen w2 --irq 9 --timeout 3000
hellofpga -d "$CARD" events --raise 9 >/dev/null 2>&1
sleep 4
n=$(cat /tmp/w1.out /tmp/w2.out | grep -c 'irq=9')
if [ "$n" -ge 1 ] && ! grep -q . /tmp/w1.err /tmp/w2.err; then
	pass two-waiters "$n deliveries, no error"
else
	fail two-waiters "$n lines: $(cat /tmp/w1.err /tmp/w2.err)"
fi

# --- a level held across takes: once per take, never a storm ---------
# (line 10: no case armed it before; the driver keeps an armed one enabled)
hf_w32 "$U" 0x0c 0x400		# HF_USER_IRQ_SET, line 10
out=$(timeout 60 hellofpga -d "$CARD" events --irq 10 --count 3 --timeout 5000 2>&1)
r=$?
hf_w32 "$U" 0x10 0x400		# HF_USER_IRQ_CLEAR
if [ $r = 0 ] && [ "$(echo "$out" | grep -c 'irq=10 count=1')" = 3 ]; then
	pass held-level-once-per-take "$(echo "$out" | tr '\n' ' ')"
else
	fail held-level-once-per-take "exit $r: $out"
fi
# dropped: the delivery of the last take's re-enable, then nothing
out=$(timeout 60 hellofpga -d "$CARD" events --irq 10 --count 2 --timeout 1000 2>&1)
if [ "$(echo "$out" | grep -c 'irq=10')" = 1 ]; then
	pass held-level-dropped "$(echo "$out" | tr '\n' ' ')"
else
	fail held-level-dropped "$out"
fi
exit $rc
