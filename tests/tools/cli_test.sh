#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# cli_test.sh - tests of the hellofpga command-line tool on the emulated card.
#
#	cli_test.sh CLI CASE     run one case (exit 0 pass, 1 fail, 77 skip)
#	cli_test.sh CLI --list   print the case names
#
# Every case runs in a fresh temporary directory that is also
# HELLOFPGA_EMU_DIR, so the shared card memory of "emu:N" lives there and
# cases do not see each other's cards.
set -u

CLI=$1
CASE=$2

fail() {
	echo "FAIL: $*" >&2
	for f in out err; do
		if [ -s "$T/$f" ]; then
			echo "--- $f:" >&2
			head -c 4000 "$T/$f" >&2
		fi
	done
	exit 1
}

skip() {
	echo "SKIP: $*" >&2
	exit 77
}

# run ARGS...: run the CLI, output in $T/out and $T/err, status in $rc.
run() {
	"$CLI" "$@" >"$T/out" 2>"$T/err"
	rc=$?
}

expect_ok() {
	[ "$rc" -eq 0 ] || fail "exit status $rc, expected 0"
}

expect_fail() {
	[ "$rc" -ne 0 ] || fail "exit status 0, expected a failure"
}

# expect_in FILE REGEX: FILE (out or err) has a line matching REGEX.
expect_in() {
	grep -Eq -- "$2" "$T/$1" || fail "$1 does not match /$2/"
}

# random_file PATH BYTES
random_file() {
	head -c "$2" /dev/urandom >"$1" || fail "cannot make $1"
}

# --- info -----------------------------------------------------------------

case_info_prints_channels() {
	run -d emu:0,private,h2c=2,c2h=3 info
	expect_ok
	expect_in out '^H2C channels: +2$'
	expect_in out '^C2H channels: +3$'
	expect_in out '^backend: +emulated'
}

case_info_prints_model_counters() {
	run -d emu:0,private info
	expect_ok
	expect_in out '^emulated card counters:'
	expect_in out 'MMIO reads: +[0-9]+'
}

case_info_uses_HELLOFPGA_DEVICE() {
	HELLOFPGA_DEVICE=emu:0,private,h2c=1,c2h=1 run info
	expect_ok
	expect_in out '^H2C channels: +1$'
}

# --- write / read ---------------------------------------------------------

case_write_read_back_across_invocations() {
	random_file "$T/in" 1048699	# 1 MiB + 123: not a whole page
	run -d emu:0 write -a 0x10000 -c 1 "$T/in"
	expect_ok
	expect_in out '^wrote 1048699 bytes .* on H2C channel 1 .*GB/s'
	[ -f "$T/hellofpga-emu0.ddr" ] ||
		fail "card memory not in \$HELLOFPGA_EMU_DIR"
	run -d emu:0 read -a 64K -s 1048699 -c 2 "$T/back"
	expect_ok
	expect_in out '^read 1048699 bytes .* on C2H channel 2 .*GB/s'
	cmp "$T/in" "$T/back" || fail "data read back differs"
}

case_write_stdin_read_stdout() {
	random_file "$T/in" 300000
	"$CLI" -d emu:1 write -a 4K - <"$T/in" >"$T/out" 2>"$T/err"
	rc=$?
	expect_ok
	expect_in out '^wrote 300000 bytes'
	"$CLI" -d emu:1 read -a 4K -s 300000 - >"$T/back" 2>"$T/err"
	rc=$?
	expect_ok
	expect_in err '^read 300000 bytes'
	cmp "$T/in" "$T/back" || fail "data read back differs"
}

case_write_file_offset_and_size() {
	random_file "$T/in" 5000
	run -d emu:0 write -a 0 -o 100 -s 1000 "$T/in"
	expect_ok
	run -d emu:0 read -a 0 -s 1000 "$T/back"
	expect_ok
	tail -c +101 "$T/in" | head -c 1000 >"$T/want"
	cmp "$T/want" "$T/back" || fail "wrong part of the file written"
}

case_write_size_past_file_end_fails() {
	random_file "$T/in" 100
	run -d emu:0,private write -a 0 -s 200 "$T/in"
	expect_fail
	expect_in err 'has 100 bytes after offset 0, fewer than the 200'
}

case_read_past_card_end_fails() {
	run -d emu:0,private,ddr=1M read -a 1M -s 1 "$T/back"
	expect_fail
	expect_in err 'past the end of card memory'
	[ ! -e "$T/back" ] || fail "output file created for a failed read"
}

case_read_without_size_fails() {
	run -d emu:0,private read -a 0 "$T/back"
	[ "$rc" -eq 2 ] || fail "exit status $rc, expected 2"
	expect_in err '-s SIZE\) are required'
}

# --- bad command lines ----------------------------------------------------

case_unknown_command_fails() {
	run frobnicate
	[ "$rc" -eq 2 ] || fail "exit status $rc, expected 2"
	expect_in err "^hellofpga: unknown command 'frobnicate'"
}

case_bad_size_fails() {
	random_file "$T/in" 10
	run -d emu:0,private write -a 0 -s 12Q "$T/in"
	[ "$rc" -eq 2 ] || fail "exit status $rc, expected 2"
	expect_in err "^hellofpga: write: -s: bad size '12Q'"
}

case_negative_size_fails() {
	run -d emu:0,private read -a 0 -s -5 "$T/back"
	[ "$rc" -eq 2 ] || fail "exit status $rc, expected 2"
	expect_in err "bad size '-5'"
}

case_channel_out_of_range_fails() {
	random_file "$T/in" 10
	run -d emu:0,private,h2c=2 write -a 0 -c 2 "$T/in"
	expect_fail
	expect_in err '^hellofpga: channel 2 out of range: .* has 2 H2C channels \(0\.\.1\)'
}

case_bad_device_fails() {
	run -d emu:0,bogus=1 info
	expect_fail
	expect_in err "^hellofpga: cannot open card 'emu:0,bogus=1': E[A-Z]+: "
}

# --- reg ------------------------------------------------------------------

case_reg_reads_card_id() {
	run -d emu:0,private reg 0x0
	expect_ok
	expect_in out '^0x48465047$'	# "HFPG"
}

case_reg_scratch_write_reads_back() {
	run -d emu:0,private reg 0x8 0xdeadbeef
	expect_ok
	expect_in out '^0x0008: wrote 0xdeadbeef, read back 0xdeadbeef$'
}

case_reg_unaligned_offset_fails() {
	run -d emu:0,private reg 0x3
	expect_fail
	expect_in err '^hellofpga: cannot read user register 0x0003: EINVAL'
}

# --- demo -----------------------------------------------------------------

case_demo_small_passes() {
	run -d emu:0 demo -s 1M -r 2
	expect_ok
	expect_in out '^PASS: every byte verified on 4 channels'
	expect_in out '^ +all +8388608 +[0-9.]+ +[0-9.]+ +OK$'
	! grep -q FAIL "$T/out" || fail "a channel failed"
}

case_demo_without_card_uses_emu() {
	[ ! -e /dev/hellofpga0 ] || skip "a hardware card is present"
	unset HELLOFPGA_DEVICE
	run demo -s 1M
	expect_ok
	expect_in out '^no hardware card found; running on the emulated card \(emu\)$'
	expect_in out '^hellofpga demo on emu'
}

case_demo_too_large_fails() {
	run -d emu:0,private,ddr=4M demo -s 2M
	expect_fail
	expect_in err 'do not fit in the 4 MiB of card memory'
}

# --- bench ----------------------------------------------------------------

case_bench_json_is_valid() {
	run -d emu:0,private bench --max 64K --iters 20 --json "$T/x.json"
	expect_ok
	python3 -m json.tool "$T/x.json" >/dev/null || fail "invalid JSON"
	python3 - "$T/x.json" <<'EOF' || fail "unexpected JSON content"
import json, sys
d = json.load(open(sys.argv[1]))
r = d["results"]
assert [x["size"] for x in r] == [s for s in (4096, 8192, 16384, 32768, 65536) for _ in (0, 1)], r
assert {x["direction"] for x in r} == {"h2c", "c2h"}
for x in r:
    assert x["transfer"]["iterations"] == 20
    assert x["memcpy"]["iterations"] == 20
    t = x["transfer"]
    assert 0 < t["min_ns"] <= t["median_ns"] <= t["p99_ns"] <= t["max_ns"]
    assert t["gbps"] > 0 and x["memcpy"]["gbps"] > 0
assert d["overhead"]["h2c"]["median_ns"] > 0
assert d["environment"]["backend"].startswith("emulated")
EOF
}

case_bench_prints_table_with_memcpy() {
	run -d emu:0,private bench --min 4K --max 8K --iters 5
	expect_ok
	expect_in out '^# cpu: '
	expect_in out '^# overhead: median 4-byte transfer: H2C [0-9.]+ us'
	expect_in out '^ +8 KiB +C2H +5 .*\| +[0-9.]+ +[0-9.]+ \| +-?[0-9.]+$'
}

case_bench_csv_has_a_row_per_size_and_direction() {
	run -d emu:0,private bench --min 4K --max 16K --iters 5 --csv "$T/x.csv"
	expect_ok
	[ "$(wc -l <"$T/x.csv")" -eq 7 ] || fail "expected header + 6 rows"
	head -1 "$T/x.csv" | grep -q '^size,direction,iterations,min_ns,median_ns' ||
		fail "bad CSV header"
}

case_bench_plot_writes_png_and_svg() {
	command -v gnuplot >/dev/null || skip "gnuplot is not installed"
	run -d emu:0,private bench --max 16K --iters 5 --plot "$T/bw.png"
	expect_ok
	[ "$(head -c 4 "$T/bw.png" | od -An -tx1 | tr -d ' ')" = 89504e47 ] ||
		fail "bw.png is not a PNG"
	grep -q '<svg' "$T/bw.svg" || fail "bw.svg is not an SVG"
}

case_bench_plot_without_gnuplot_says_so() {
	PATH=/nonexistent run -d emu:0,private bench --max 8K --iters 3 --plot "$T/bw.png"
	expect_ok
	expect_in err 'gnuplot is not on PATH, so no plot was written'
	[ ! -e "$T/bw.png" ] || fail "a plot appeared without gnuplot"
}

case_bench_bad_range_fails() {
	run -d emu:0,private bench --min 64K --max 4K
	[ "$rc" -eq 2 ] || fail "exit status $rc, expected 2"
	expect_in err 'need 0 < --min <= --max'
}

# --- help, version --------------------------------------------------------

case_every_command_has_help() {
	for c in info write read reg demo bench version; do
		run "$c" --help
		expect_ok
		expect_in out "^Usage: hellofpga .*$c"
	done
}

case_version_prints_library_version() {
	run version
	expect_ok
	expect_in out '^hellofpga [0-9]+\.[0-9]+\.[0-9]+ \(libhellofpga [0-9]+\.[0-9]+\.[0-9]+\)$'
}

if [ "$CASE" = --list ]; then
	declare -F | sed -n 's/^declare -f case_//p'
	exit 0
fi
declare -F "case_$CASE" >/dev/null || { echo "no case '$CASE'" >&2; exit 1; }
[ -x "$CLI" ] || { echo "no CLI at '$CLI'" >&2; exit 1; }

T=$(mktemp -d "${TMPDIR:-/tmp}/hellofpga-cli.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
export HELLOFPGA_EMU_DIR=$T
unset HELLOFPGA_DEVICE
cd "$T" || exit 1
"case_$CASE"
echo "PASS: $CASE"
