# SPDX-License-Identifier: MIT
# case-lib.sh - what the CLI test scripts (cli_test.sh, gpu_test.sh) share;
# sourced after they set CLI and CASE.  A case is a function case_NAME
# that returns to pass, or calls fail (exit 1) or skip (exit 77), the
# results CTest reads.  cases_main runs the one named, in a fresh
# temporary directory that is also HELLOFPGA_EMU_DIR.

# the result lines of every test script (hf_result)
. "$(dirname "${BASH_SOURCE[0]}")/../results.sh"

# fail REASON...: the case fails; the end of its output follows the reason.
fail() {
	hf_result FAIL "$CASE" "$*" >&2
	for f in out err; do
		if [ -s "$T/$f" ]; then
			echo "--- $f:" >&2
			tail -c 6000 "$T/$f" >&2
		fi
	done
	exit 1
}

skip() {
	hf_result SKIP "$CASE" "$*" >&2
	exit 77
}

# run ARGS...: run the CLI, output in $T/out and $T/err, status in $rc.
run() {
	"$CLI" "$@" >"$T/out" 2>"$T/err"
	rc=$?
}

expect_rc() {
	[ "$rc" -eq "$1" ] || fail "exit status $rc, expected $1"
}

expect_ok() {
	expect_rc 0
}

expect_fail() {
	[ "$rc" -ne 0 ] || fail "exit status 0, expected a failure"
}

# expect_refused REGEX ARGS...: the CLI refuses ARGS as a bad command line:
# exit status 2, and a line of standard error matches REGEX.
expect_refused() {
	local re=$1

	shift
	run "$@"
	expect_rc 2
	expect_in err "$re"
}

# expect_in FILE REGEX: FILE (out or err) has a line matching REGEX.
expect_in() {
	grep -Eq -- "$2" "$T/$1" || fail "$1 does not match /$2/"
}

# expect_count FILE REGEX N: exactly N lines of FILE match REGEX.
expect_count() {
	local n

	n=$(grep -Ec -- "$2" "$T/$1")
	[ "$n" -eq "$3" ] || fail "$1: $n lines match /$2/, expected $3"
}

# expect_last LINE: the last line of standard output is exactly LINE.
expect_last() {
	local last

	last=$(tail -n 1 "$T/out")
	[ "$last" = "$1" ] || fail "last line is '$last', expected '$1'"
}

# run_hw ARGS...: run the CLI with the kernel driver's test double
# (tests/fakedev, $HF_FAKEDEV) preloaded, so that /dev/hellofpga0 is a
# hardware card to it (behind it a 64 MiB emulated card, or $HW_CARD).
run_hw() {
	[ -f "${HF_FAKEDEV:-}" ] || skip "no driver test double (HF_FAKEDEV)"
	HF_FAKEDEV_CARD=${HW_CARD:-emu,private,ddr=64M} \
	LD_PRELOAD=$HF_FAKEDEV${LD_PRELOAD:+:$LD_PRELOAD} \
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 \
		run -d /dev/hellofpga0 "$@"
}

# run_other ARGS...: as run_hw, on an AXI-Stream card whose user logic is
# not the hellofpga reference design (tests/other_design.h: its C2H
# channels send records of 1000, 17, 4096, 9000, 64 bytes in turn, byte i
# of record k (31 k + i) mod 256); the card's close reports on standard
# error the user register writes it saw.
run_other() {
	HW_CARD=emu,private,st,ddr=64M HF_FAKEDEV_DESIGN=other run_hw "$@"
}

# need_no_cuda: skip where CUDA is installed (a real GPU would be used).
need_no_cuda() {
	if ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; then
		skip "CUDA is installed here"
	fi
}

# commands: the commands of the global help's list, one a line.
commands() {
	"$CLI" --help | sed -n '/^Commands:$/,/^$/s/^  \([a-z]*\) .*/\1/p'
}

# long_options [COMMAND]: the long options "COMMAND --help" (without
# COMMAND: "--help") prints, one a line.
long_options() {
	"$CLI" ${1:+"$1"} --help | grep -Eo -- '--[a-z][a-z0-9-]*' | sort -u
}

# cases_main TAG [VARIABLE...]: --list prints the case names; else run case
# $CASE in a temporary directory hellofpga-TAG.*, with HELLOFPGA_DEVICE
# and the VARIABLEs unset.
cases_main() {
	local tag=$1

	shift
	if [ "$CASE" = --list ]; then
		declare -F | sed -n 's/^declare -f case_//p'
		exit 0
	fi
	declare -F "case_$CASE" >/dev/null || { echo "no case '$CASE'" >&2; exit 1; }
	[ -x "$CLI" ] || { echo "no CLI at '$CLI'" >&2; exit 1; }
	T=$(mktemp -d "${TMPDIR:-/tmp}/hellofpga-$tag.XXXXXX") || exit 1
	trap 'rm -rf "$T"' EXIT
	export HELLOFPGA_EMU_DIR=$T
	unset HELLOFPGA_DEVICE "$@"
	cd "$T" || exit 1
	"case_$CASE"
	hf_result PASS "$CASE"
}
