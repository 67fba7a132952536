#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# gpu_test.sh - tests of "hellofpga test", the GPU Direct test program, on
# the emulated card and the library's emulated GPU (HELLOFPGA_GPU=emu,
# emu-tegra, none).
#
#	gpu_test.sh CLI CASE     run one case (exit 0 pass, 1 fail, 77 skip)
#	gpu_test.sh CLI --list   print the case names
#
# Every case runs in a fresh temporary directory that is also
# HELLOFPGA_EMU_DIR.
set -u

CLI=$1
CASE=$2
. "$(dirname "$(readlink -f "$0")")/case-lib.sh"

NAMES="get_status pin read_c2h write_h2c unpin data_correctness batch_10x_read
addr_space_2g_7pts stress_2g_6offs boundary_2g_6pts transfer_mode_switch
cpu_path_unchanged pin_misuse handle_reuse multi_buffer_rotation"

# expect_all_cases RESULT: every one of the 15 cases, numbered in order,
# has RESULT.
expect_all_cases() {
	local n=0 c

	for c in $NAMES; do
		n=$((n + 1))
		expect_in out "^\[ ?$n/15\] $c \.+ $1 \("
	done
}

# --- quick mode -------------------------------------------------------------

case_quick_emu_desktop_passes() {
	HELLOFPGA_GPU=emu run -d emu,private test
	expect_rc 0
	expect_in out '^GPU: +Desktop, emulated: .*GPU Direct supported$'
	expect_in out '^card: +emu,private '
	expect_all_cases PASS
	expect_count out '^\[ ?[0-9]+/15\] ' 15
	expect_last "15 passed, 0 failed"
}

case_quick_emu_tegra_passes() {
	HELLOFPGA_GPU=emu-tegra run -d emu,private test
	expect_rc 0
	expect_in out '^GPU: +Tegra, emulated: .*page 4 KiB; GPU Direct supported$'
	expect_all_cases PASS
	expect_in out 'pin_misuse .* host-memory check skipped: on Tegra'
	expect_last "15 passed, 0 failed"
}

case_quick_small_card_and_size() {
	# 16 MiB of card memory: the 2^28 point moves to the middle and the
	# stress size shrinks to fit.
	HELLOFPGA_GPU=emu run -d emu,private,ddr=16M test -s 64K
	expect_rc 0
	expect_in out '^sizes: +64 KiB per transfer, 2 MiB per stress transfer$'
	expect_in out 'boundary_2g_6pts .* PASS .*2\^28 boundary 0x800000,'
	expect_last "15 passed, 0 failed"
}

case_only_and_channel() {
	HELLOFPGA_GPU=emu run -d emu,private,h2c=2,c2h=2 test -c 1 \
		--only read_c2h,4,cpu_path_unchanged
	expect_rc 0
	expect_count out '^\[ ?[0-9]+/15\] ' 3
	expect_in out '^\[ 3/15\] read_c2h \.+ PASS'
	expect_in out '^\[ 4/15\] write_h2c \.+ PASS'
	expect_in out '^\[12/15\] cpu_path_unchanged \.+ PASS .*beside it on channel 0'
	expect_in out '; channel 1$'
	expect_last "3 passed, 0 failed"
}

case_no_gpu_skips_and_fails() {
	HELLOFPGA_GPU=none run -d emu,private test
	expect_rc 1
	expect_in out '^GPU: +none: '
	expect_in out '^\[ 1/15\] get_status \.+ PASS \(.*platform none'
	expect_in out '^\[12/15\] cpu_path_unchanged \.+ PASS \(.*CPU path alone verified'
	expect_count out '^\[ ?[0-9]+/15\] [a-z0-9_]+ \.+ SKIP \(no GPU: .+\)$' 13
	expect_in out '^GPU Direct was not tested: no GPU'
	expect_last "2 passed, 0 failed, 13 skipped"
}

# --- soak -------------------------------------------------------------------

case_soak_samples_and_drift() {
	HELLOFPGA_GPU=emu run -d emu,private test --only get_status \
		--soak 3s --interval 1s --json "$T/r.json"
	expect_rc 0
	expect_in out '^soak: 3s, a sample every 1s \(3 samples\)'
	expect_count out '^ +[1-3] +00:00:0[0-3] +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9]+$' 3
	expect_in out '^soak summary: 3 samples over [0-9]s, [0-9]+ GPU Direct transfers, .* every verified transfer matched$'
	expect_in out '^ +dir +mean us +mean GB/s .*drift latency +drift bandwidth$'
	expect_in out '^ +read +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[-+][0-9.]+ % +[-+][0-9.]+ %$'
	expect_in out '^ +write +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[-+][0-9.]+ % +[-+][0-9.]+ %$'
	expect_in out '^\[soak\] +soak \.+ PASS \([0-9.]+ s, 3 samples, drift read [-+][0-9.]+ % / write [-+][0-9.]+ %'
	expect_in err '^soak: 00:00:0[0-9]/00:00:03, (first sample|sample [1-3]: read [0-9.]+ us)'
	expect_last "2 passed, 0 failed"
	python3 - "$T/r.json" <<'EOF' || fail "unexpected JSON content"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["tool"] == "hellofpga test"
assert [c["name"] for c in d["cases"]] == ["get_status"], d["cases"]
assert d["cases"][0]["result"] == "PASS"
s = d["soak"]
assert s["result"] == "PASS" and s["duration_s"] == 3 and s["interval_s"] == 1
assert len(s["samples"]) == 3, s["samples"]
for x in s["samples"]:
    assert x["read_ns"] > 0 and x["write_ns"] > 0 and x["verified"]
assert s["read"]["drift_bandwidth_pct"] is not None
assert s["write"]["drift_latency_pct"] is not None
assert d["passed"] == 2 and d["failed"] == 0
assert d["gpu"]["platform"] == "Desktop" and d["gpu"]["emulated"] == 1
EOF
}

case_soak_without_gpu_skips() {
	HELLOFPGA_GPU=none run -d emu,private test --only get_status --soak 1s
	expect_rc 1
	expect_in out '^\[soak\] +soak \.+ SKIP \(no GPU: '
	expect_last "1 passed, 0 failed, 1 skipped"
}

# --- command line -----------------------------------------------------------

case_list_prints_15_names() {
	run test --list
	expect_rc 0
	[ "$(wc -l <"$T/out")" -eq 15 ] || fail "expected 15 lines"
	local n=0 c

	for c in $NAMES; do
		n=$((n + 1))
		expect_in out "^ ?$n  $c +[A-Za-z]"
	done
}

case_bad_soak_fails() {
	expect_refused "^hellofpga: test: --soak: bad duration '12x' \(expected e\.g\. 90s, 10m, 12h" \
		-d emu,private test --soak 12x
	expect_refused "--soak: duration '0s' is shorter than 1s" \
		-d emu,private test --soak 0s
	expect_refused "--soak: duration '31d' is too long" \
		-d emu,private test --soak 31d
	expect_refused '--interval needs --soak' \
		-d emu,private test --interval 1s
	expect_refused '--interval is longer than --soak' \
		-d emu,private test --soak 2s --interval 1m
}

case_bad_only_and_size_fail() {
	expect_refused "--only: no case 'frobnicate'" \
		-d emu,private test --only pin,frobnicate
	expect_refused '--size: .* is not a multiple of 4 KiB from 64 KiB to 1 GiB' \
		-d emu,private test -s 100000
	run -d emu,private,ddr=8M test
	expect_rc 1
	expect_in err 'too little for --size 4 MiB'
	run -d emu,private test -c 4
	expect_rc 1
	expect_in err '^hellofpga: channel 4 out of range'
}

case_help() {
	run test --help
	expect_rc 0
	expect_in out '^Usage: hellofpga \[-d DEVICE\] test \[--soak DURATION\]'
	run help
	expect_in out '^  test +the GPU Direct test program'
}

# --- which GPU a report is of -------------------------------------------------

case_hardware_card_without_cuda_refuses_the_emulated_gpu() {
	need_no_cuda
	run_hw test --only get_status
	expect_rc 3
	expect_in err '^hellofpga: test: /dev/hellofpga0 is a hardware card and there is no real GPU \(CUDA is not usable: .*(libcuda|cuInit|CUDA device).*HELLOFPGA_GPU=emu'
	! grep -q 'passed' "$T/out" || fail "a result without a real GPU"
}

case_hardware_card_runs_on_the_emulated_gpu_when_asked() {
	HELLOFPGA_GPU=emu run_hw test --only get_status,pin
	expect_rc 0
	expect_in out '^GPU: +Desktop, emulated: '
	expect_last "2 passed, 0 failed"
}

case_emulated_card_takes_the_gpu_auto_gives() {
	need_no_cuda
	run -d emu,private test --only get_status
	expect_rc 0
	expect_in out '^GPU: +Desktop, emulated: '
}

case_report_names_the_card_and_the_gpu_first() {
	HELLOFPGA_GPU=emu-tegra run -d emu,private test --only get_status \
		--json "$T/r.json"
	expect_rc 0
	sed -n 2p "$T/out" | grep -Eq '^card: +emu,private \(emulated card' ||
		fail "line 2 is not the card"
	sed -n 3p "$T/out" | grep -Eq '^GPU: +Tegra, emulated: .*emulated Tegra GPU' ||
		fail "line 3 is not the GPU"
	python3 - "$T/r.json" <<-'EOF' || fail "JSON: card and GPU are not first"
	import json, sys
	d = json.load(open(sys.argv[1]))
	assert list(d)[:3] == ["tool", "card", "gpu"], list(d)
	g = d["gpu"]
	assert g["platform"] == "Tegra" and g["emulated"] == 1 and g["name"], g
	EOF
}

cases_main gpu HELLOFPGA_GPU
