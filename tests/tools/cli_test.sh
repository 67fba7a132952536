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
. "$(dirname "$(readlink -f "$0")")/case-lib.sh"
# this project's view of a bench result (targets, the seed's figures)
JUDGE=$(dirname "$(readlink -f "$0")")/../../scripts/bench-judge.py

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

case_info_prints_user_bar_and_no_pci_address_for_emu() {
	run -d emu:0,private info
	expect_ok
	expect_in out '^user BAR: +64 KiB \(0x10000 bytes\)$'
	! grep -Eq '^PCI device:' "$T/out" || fail "a PCI address for the emulated card"
}

case_info_prints_the_link_model() {
	run -d emu:0,private,link=gen3x4 info
	expect_ok
	expect_in out '^link model: +PCIe Gen3 x4, MPS 256, 1000 ns/descriptor \(3\.[0-9]+ GB/s\)$'
	run -d emu:0,private info
	expect_ok
	! grep -q '^link model:' "$T/out" || fail "a link model without link="
}

case_info_prints_model_counters() {
	run -d emu:0,private info
	expect_ok
	expect_in out '^emulated card counters:'
	expect_in out 'MMIO reads: +[0-9]+'
}

case_info_prints_dma_faults() {
	run -d emu:0,private,link=gen1x1 info
	expect_ok
	expect_in out '^  DMA faults: +0$'
	expect_in out '^  DMA errors: +0$'
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
	expect_refused '-s SIZE\) are required' \
		-d emu:0,private read -a 0 "$T/back"
}

# --- bad command lines ----------------------------------------------------

case_unknown_command_fails() {
	expect_refused "^hellofpga: unknown command 'frobnicate'" frobnicate
}

case_bad_size_fails() {
	random_file "$T/in" 10
	expect_refused "^hellofpga: write: -s: bad size '12Q'" \
		-d emu:0,private write -a 0 -s 12Q "$T/in"
}

case_negative_size_fails() {
	expect_refused "bad size '-5'" \
		-d emu:0,private read -a 0 -s -5 "$T/back"
}

# Numbers have one grammar (README.md, "Numbers"): K/M/G/T only, no
# KiB, KB or lower case, no leading zeros; hex and decimal everywhere.
case_size_with_kib_suffix_fails() {
	expect_refused "bad size '4KiB'" \
		-d emu:0,private read -a 0 -s 4KiB "$T/back"
}

case_size_with_lower_case_suffix_fails() {
	expect_refused "bad size '4k'" \
		-d emu:0,private read -a 0 -s 4k "$T/back"
}

case_address_with_leading_zero_fails() {
	expect_refused "bad size '010'" \
		-d emu:0,private read -a 010 -s 16 "$T/back"
}

case_size_overflow_fails() {
	expect_refused "size '16777216T' is too large" \
		-d emu:0,private read -a 0 -s 16777216T "$T/back"
}

case_reg_offset_with_leading_zero_fails() {
	expect_refused "bad register offset '010'" -d emu:0,private reg 010
}

case_count_in_hex_is_accepted() {
	run -d emu:0,private demo -s 64K -r 0x2
	expect_ok
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

# --- events ---------------------------------------------------------------

case_events_raise_and_wait_prints_each_interrupt() {
	local m

	for m in msix msi legacy; do
		run -d "emu:0,private,irq=$m" events --irq 3,4 --raise 3,4 --count 2
		expect_ok
		expect_in out '^[0-9]+\.[0-9]{6} irq=3 count=1$'
		expect_in out '^[0-9]+\.[0-9]{6} irq=4 count=1$'
		[ "$(wc -l <"$T/out")" -eq 2 ] || fail "$m: not 2 lines"
		expect_in err '^raised user interrupt 3$'
	done
}

case_events_json_is_one_object_per_line() {
	run -d emu:0,private events --all --raise 0,15 --count 2 --json
	expect_ok
	expect_in out '^\{"time_s":[0-9]+\.[0-9]{6},"irq":0,"count":1\}$'
	expect_in out '^\{"time_s":[0-9]+\.[0-9]{6},"irq":15,"count":1\}$'
	python3 -c 'import json, sys
for l in open(sys.argv[1]): json.loads(l)' "$T/out" 2>/dev/null ||
		{ command -v python3 >/dev/null && fail "not JSON Lines"; }
}

case_events_wait_only_for_the_named_interrupts() {
	run -d emu:0,private events --irq 2 --raise 5 --timeout 100
	expect_ok
	[ ! -s "$T/out" ] || fail "an interrupt that was not waited for was printed"
}

case_events_count_not_reached_by_the_timeout_fails() {
	run -d emu:0,private events --irq 1 --count 1 --timeout 100
	expect_rc 1
	expect_in err '^hellofpga: 0 of 1 user interrupt arrived \(none arrived for the --timeout\)$'
}

case_events_raise_alone_raises_and_exits() {
	run -d emu:0,private events --raise 7,9
	expect_ok
	expect_in out '^raised user interrupt 7$'
	expect_in out '^raised user interrupt 9$'
}

case_events_poll_mode_has_no_user_interrupts() {
	run -d emu:0,private,irq=poll events --timeout 10
	expect_rc 1
	expect_in err '^hellofpga: cannot wait for user interrupt 0: EOPNOTSUPP: .*poll mode'
}

case_events_bad_arguments_are_refused() {
	expect_refused "bad --irq '16'" -d emu:0,private events --irq 16
	expect_refused "bad --irq '1,,2'" -d emu:0,private events --irq 1,,2
	expect_refused "bad --irq '3,'" -d emu:0,private events --irq 3,
	expect_refused "bad --irq ''" -d emu:0,private events --irq ''
	expect_refused "bad --irq '03'" -d emu:0,private events --irq 03
	expect_refused "bad --count '0'" -d emu:0,private events --count 0
	expect_refused "bad --timeout '-1'" -d emu:0,private events --timeout -1
	expect_refused "bad --raise 'x'" -d emu:0,private events --raise x
	expect_refused "unexpected argument 'now'" -d emu:0,private events now
}

case_events_sigint_ends_the_wait() {
	local pid i

	"$CLI" -d emu:0,private events >"$T/out" 2>"$T/err" &
	pid=$!
	sleep 0.3
	kill -INT "$pid"
	for i in $(seq 50); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$pid" 2>/dev/null; then
		kill -KILL "$pid"
		fail "SIGINT did not end the wait"
	fi
	wait "$pid"
	rc=$?
	expect_ok
}

case_events_through_the_kernel_backend() {
	run_hw events --irq 6 --raise 6 --count 1 --timeout 2000
	expect_ok
	expect_in out '^[0-9]+\.[0-9]{6} irq=6 count=1$'
}

# --- stream ---------------------------------------------------------------

case_stream_verifies_every_frame_in_each_mode() {
	local m

	for m in poll msix msi legacy; do
		run -d "emu:0,private,st,irq=$m" stream --frames 3000 --buffers 16
		expect_ok
		expect_in out '^frames: +3000 '
		expect_in out '^dropped: +0 \(source\), 0 \(sequence gaps\)$'
		expect_in out '^corrupt: +0$'
		expect_in out '^latency \(between frames\): p50 [0-9.]+ us, p99 [0-9.]+ us, max [0-9.]+ us$'
	done
}

case_stream_records_spanning_buffers() {
	run -d emu:0,private,st stream --records 16-40000 --buffer-size 4K \
		--buffers 8 --frames 500
	expect_ok
	expect_in out '^stream: C2H0, 8 buffers of 4096 bytes in host memory$'
	expect_in out '^corrupt: +0$'
}

case_stream_json_has_the_summary() {
	run -d emu:0,private,st stream --frames 200 --rate 20000 --json "$T/s.json"
	expect_ok
	python3 - "$T/s.json" <<'PY' || fail "JSON lacks a field"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["frames"] == 200 and d["dropped"] == 0 and d["corrupt"] == 0
assert d["fps"] > 0 and d["gbps"] > 0
assert d["latency_us"]["meaning"] == "from the due time"
for k in ("p50", "p99", "max"):
    assert d["latency_us"][k] >= 0
PY
}

case_stream_drop_mode_reports_drops_and_succeeds() {
	run -d emu:0,private,st stream --rate 50000 --drop --buffers 2 \
		--duration 200ms
	expect_ok
	expect_in out '^corrupt: +0$'
	expect_in out '^dropped: +[0-9]+ \(source\)'
}

case_stream_gpu_ring_on_the_emulated_gpu() {
	HELLOFPGA_GPU=emu run -d emu:0,private,st stream --gpu \
		--frame-size 100000 --buffer-size 64K --frames 300
	expect_ok
	expect_in out 'in GPU memory$'
	expect_in out '^corrupt: +0$'
}

# --duration: the progress line counts the duration, not frames
case_stream_duration_progress_is_of_the_duration() {
	run -d emu:0,private,st stream --duration 1500ms --frame-size 64K \
		--buffers 8
	expect_ok
	expect_in err '^stream: C2H0 +[0-9]{1,2}\.[0-9]% \(1\.[0-9] s\)'
}

case_stream_on_a_memory_mapped_card_fails() {
	run -d emu:0,private stream --frames 3
	expect_rc 1
	expect_in err 'not AXI-Stream'
}

case_stream_bad_options_are_refused() {
	expect_refused 'needs --rate' -d emu:0,private,st stream --drop
	expect_refused 'give one' -d emu:0,private,st stream --frames 3 \
		--duration 1s
	expect_refused 'bad --buffers' -d emu:0,private,st stream --buffers 1
	expect_refused 'multiple of 4096' -d emu:0,private,st stream \
		--buffer-size 1000
	expect_refused 'bad --records' -d emu:0,private,st stream --records 9-5
	local o

	for o in "--frame-size 4K" "--records 64-128" "--rate 100" \
		"--rate 100 --drop"; do
		expect_refused "^hellofpga: stream: --raw and ${o%% *}:" \
			-d emu:0,private,st stream --raw $o
	done
	expect_refused 'bad --save' -d emu:0,private,st stream --raw --save -
	expect_refused 'bad --timeout' -d emu:0,private,st stream --timeout 0
}

# --- stream --raw: a card of another design (tests/other_design.h) ---------

case_stream_raw_reports_the_designs_frames() {
	run_other stream --raw --frames 50
	expect_ok
	expect_in out '^stream: C2H0, 64 buffers of 65536 bytes in host memory, raw '
	expect_in out '^frames: +50 \(141770 bytes, 50 buffers\)$'
	expect_in out '^lengths: +min 17, mean 2835\.4, max 9000 bytes$'
	expect_in out '^rate: +[0-9.]+ frames/s, [0-9.]+ MB/s$'
	expect_in out '^dropped: +0 '
	expect_in out '^ring full: +[0-9]+ times$'
	expect_in out '^gaps: +min [0-9.]+ us, median [0-9.]+ us, max [0-9.]+ us; [0-9]+ over twice the median$'
	expect_in err '^hf_fakedev: card 0: 0 user register writes$'
}

case_stream_raw_json_has_the_summary() {
	run_other stream --raw --frames 20 --json "$T/s.json"
	expect_ok
	python3 - "$T/s.json" <<'PY' || fail "JSON lacks a field"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["raw"] is True and d["frames"] == 20 and d["bytes"] == 56708
assert d["length"] == {"min": 17, "mean": 2835.4, "max": 9000}, d["length"]
assert d["fps"] > 0 and d["mbps"] > 0 and d["dropped"] == 0
assert d["ring_full"] >= 0
g = d["gaps_us"]
assert 0 <= g["min"] <= g["median"] <= g["max"] and g["over_twice_median"] >= 0
PY
}

# each frame whole, also one spanning buffers (4K), in the layout of
# stream_run.h: header <IIQQ (magic, length, index, timestamp), bytes
case_stream_raw_save_writes_every_frame() {
	local b

	for b in 64K 4K; do
		run_other stream --raw --frames 20 --buffer-size "$b" \
			--save "$T/f.bin"
		expect_ok
		expect_in out "^saved: +20 frames to $T/f\.bin$"
		python3 - "$T/f.bin" <<'PY' || fail "--buffer-size $b: the file is not the frames"
import struct, sys
lens = [1000, 17, 4096, 9000, 64]
d = open(sys.argv[1], "rb").read()
pos = k = last = 0
while pos < len(d):
    magic, n, idx, ts = struct.unpack_from("<IIQQ", d, pos)
    pos += 24
    assert magic == 0x52464648 and idx == k and n == lens[k % 5], (k, n)
    assert ts >= last, k
    assert d[pos:pos + n] == bytes((k * 31 + i) & 0xff for i in range(n)), k
    pos, k, last = pos + n, k + 1, ts
assert k == 20 and pos == len(d), (k, pos, len(d))
PY
	done
}

# the reference design's source is left alone: nothing comes
case_stream_raw_programs_nothing() {
	run -d emu:0,private,st stream --raw --duration 200ms
	expect_ok
	expect_in out '^frames: +0 \(0 bytes, 0 buffers\)$'
}

case_stream_timeout_ends_a_wait_for_frames() {
	run -d emu:0,private,st stream --raw --frames 1 --timeout 100
	expect_rc 1
	expect_in err '^hellofpga: no frame for 100 ms after 0 frames: ETIMEDOUT'
}

# what writes the reference design's registers refuses another design, and
# writes none of its registers
case_refdesign_commands_refuse_another_design() {
	local c

	for c in "stream --frames 3" "events --raise 3" \
		"bench --sections stream --quick --max 4K" \
		"bench --sections gpuwait --iters 2"; do
		HELLOFPGA_GPU=emu run_other $c
		expect_rc 1
		expect_in err "^hellofpga: [a-z :-]+: EOPNOTSUPP: [^:]+: the card's user BAR does not identify as the hellofpga reference design \(HF_USER_ID 0x55534552 != 0x48465047\)"
		expect_in err '^hf_fakedev: card 0: 0 user register writes$'
	done
	run_other stream --frames 3
	expect_in err '; use --raw for the frames of another design$'
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
# On the emulated card and the emulated GPU (HELLOFPGA_GPU=emu), except
# bench_quick_default_gpu, which takes whatever GPU the machine has (a real
# one on a GPU machine: the CUDA paths of the bench).

# check_bench_json FILE SIZES...: every section of "hellofpga bench" JSON.
check_bench_json() {
	python3 - "$@" <<'EOF' || fail "unexpected JSON content"
import json, sys
d = json.load(open(sys.argv[1]))
sizes = [int(x) for x in sys.argv[2:]]
env = d["environment"]
for k in ("date", "cpu", "kernel", "library", "card", "backend", "gpu", "link_model"):
    assert k in env, k
assert env["emulated_card"] is True
assert [x["size"] for x in d["sweep"]] == sizes, d["sweep"]
paths = ("ceiling", "direct", "trad_pageable", "trad_pinned", "transfer_mode", "cpu_mode", "memcpy")
for p in paths:
    assert d["paths"][p]["measured"], p
for x in d["sweep"]:
    assert x["verified"] is True
    for dr in ("h2c", "c2h"):
        for p in paths:
            t = x[dr][p]
            assert t["iterations"] >= 1, (p, t)
            assert 0 < t["min_ns"] <= t["median_ns"] <= t["p99_ns"] <= t["max_ns"], (p, t)
            assert t["gbps"] > 0
        sp = x["speedup"][dr]
        assert sp["trad_pageable"] > 0 and sp["trad_pinned"] > 0 and sp["transfer_mode_vs_cpu"] > 0
        assert "direct" in x["overhead_ns"][dr]
fr = d["frames"]["runs"]
assert [r["buffers"] for r in fr] == list(range(1, len(fr) + 1)) and len(fr) >= 4, fr
for r in fr:
    assert r["frames"] > 0 and r["fps"] > 0 and r["dropped"] == 0 and r["corrupt"] == 0, r
pin = d["pin"]
assert pin["first_pin_ns"] > 0 and len(pin["sizes"]) >= 3
for r in pin["sizes"]:
    assert r["pin"]["median_ns"] > 0 and r["unpin"]["median_ns"] > 0
assert "targets" not in d and "seed" not in d
EOF
}

case_bench_json_has_every_section() {
	HELLOFPGA_GPU=emu run -d emu:0,private bench --quick --max 64K \
		--buffers 4 --pin-max 64K --json "$T/x.json"
	expect_ok
	python3 -m json.tool "$T/x.json" >/dev/null || fail "invalid JSON"
	check_bench_json "$T/x.json" 4096 8192 16384 32768 65536
}

# check_stream_json FILE: the stream section of "hellofpga bench" JSON, run
# with --max 64K --buffers 4 on the emulated GPU: both tables, both rings
check_stream_json() {
	python3 - "$1" <<'EOF' || fail "unexpected stream JSON"
import json, sys
d = json.load(open(sys.argv[1]))
st = d["stream"]
fs = [(x["frame_size"], x["ring"]) for x in st if x["table"] == "frame_size"]
assert fs == [(4096, "host"), (4096, "gpu"), (65536, "host"), (65536, "gpu")], fs
fr = [(x["buffers"], x["ring"]) for x in st if x["table"] == "frame_rate"]
assert fr == [(2, "host"), (2, "gpu"), (4, "host"), (4, "gpu")], fr
for x in st:
    assert x["frames"] >= 16 and x["fps"] > 0 and x["gbps"] > 0, x
    assert x["corrupt"] == 0 and x["dropped"] == 0, x
    assert 0 < x["between_p50_us"] <= x["between_p99_us"], x
    assert x["ceiling_cpu_gbps"] > 0, x
EOF
}

case_bench_stream_section_verifies_every_frame() {
	HELLOFPGA_GPU=emu run -d emu:0,private,st bench --sections stream \
		--quick --max 64K --buffers 4 --frame-size 64K --json "$T/s.json"
	expect_ok
	expect_in out '^## 7\. Stream'
	expect_in out '^## 8\. Frame rate over AXI-Stream'
	expect_in out '^ +64 KiB +4 +64 KiB +GPU +[0-9]+ '
	check_stream_json "$T/s.json"
}

# a frame over 1 MiB spans 1 MiB buffers: a GPU pin is mapped in 2 MiB
# pieces, and a buffer must lie in one
case_bench_stream_large_frames_span_buffers() {
	HELLOFPGA_GPU=emu run -d emu:0,private,st bench --sections stream \
		--quick --min 4M --max 4M --buffers 2 --frame-size 64K
	expect_ok
	expect_in out '^ +4 MiB +8 +1 MiB +GPU +[0-9]+ .* 0 +0 +[0-9.]+$'
}

case_bench_stream_with_a_link_model_shows_its_rate() {
	HELLOFPGA_GPU=emu run -d emu:0,private,st,link=gen3x8 bench \
		--sections stream --quick --max 4K --buffers 2 --frame-size 4K
	expect_ok
	expect_in out 'model GB/s$'
	expect_in out '^ +4 KiB +2 +4 KiB +host .* [0-9]+\.[0-9]{3} +[0-9]+\.[0-9]{3}$'
}

case_bench_stream_runs_alone() {
	expect_refused 'stream and gpuwait run alone' -d emu:0,private,st bench \
		--sections stream,sweep
}

case_bench_stream_on_a_memory_mapped_card_fails() {
	HELLOFPGA_GPU=emu run -d emu:0,private bench --sections stream --quick
	expect_rc 1
	expect_in err 'not AXI-Stream'
}

# check_gpuwait_json FILE N: the gpuwait section of "hellofpga bench" JSON
check_gpuwait_json() {
	python3 - "$1" "$2" <<'EOF' || fail "unexpected gpuwait JSON"
import json, sys
g = json.load(open(sys.argv[1]))["gpuwait"]
assert g["gpu"] == "emulated" and g["frame_size"] == 4096, g
assert g["kind"] == "stream", g
for k in ("gpu_wait", "cpu_wait", "ceiling_unblocked_launch"):
    w = g[k]
    assert w["samples"] == int(sys.argv[2]), w
    assert 0 <= w["min_us"] <= w["median_us"] <= w["p99_us"] <= w["max_us"], w
EOF
}

case_bench_gpuwait_section_on_the_emulated_gpu() {
	HELLOFPGA_GPU=emu run -d emu:0,private,st bench --sections gpuwait \
		--iters 20 --json "$T/g.json"
	expect_ok
	expect_in out '^## 9\. GPU-side completion'
	expect_in out '^gpu-wait +20 +[0-9.]+ +[0-9.]+ +[0-9.]+$'
	expect_in out '^cpu-wait +20 '
	expect_in out '^ceiling +20 '
	check_gpuwait_json "$T/g.json" 20
}

case_bench_gpuwait_after_the_stream_section() {
	HELLOFPGA_GPU=emu run -d emu:0,private,st bench --sections stream,gpuwait \
		--quick --max 4K --buffers 2 --frame-size 4K --iters 5
	expect_ok
	expect_in out '^## 7\. Stream'
	expect_in out '^## 9\. GPU-side completion'
}

case_bench_gpuwait_runs_alone() {
	expect_refused 'stream and gpuwait run alone' -d emu:0,private,st bench \
		--sections gpuwait,sweep
}

case_bench_gpuwait_on_a_memory_mapped_card_measures_gpudirect() {
	HELLOFPGA_GPU=emu run -d emu:0,private bench --sections gpuwait \
		--iters 20 --json "$T/g.json"
	expect_ok
	expect_in out '^## 9\. GPU-side completion of GPU Direct transfers'
	expect_in out '^gpu-wait +20 +[0-9.]+ +[0-9.]+ +[0-9.]+$'
	expect_in out '^gpu-start +20 '
	expect_in out '^xfer +20 '
	python3 - "$T/g.json" <<'EOF' || fail "unexpected gpuwait JSON"
import json, sys
g = json.load(open(sys.argv[1]))["gpuwait"]
assert g["kind"] == "gpudirect" and g["transfer_size"] == 4096, g
for k in ("gpu_wait", "cpu_wait", "ceiling_unblocked_launch", "gpu_start",
          "ceiling_one_transfer"):
    w = g[k]
    assert w["samples"] == 20, w
    assert 0 <= w["min_us"] <= w["median_us"] <= w["p99_us"] <= w["max_us"], w
EOF
}

case_bench_gpuwait_without_a_gpu_fails() {
	HELLOFPGA_GPU=none run -d emu:0,private,st bench --sections gpuwait \
		--iters 2
	expect_rc 1
	expect_in err 'gpuwait: no GPU'
}

case_bench_on_a_hardware_card_without_cuda_refuses() {
	need_no_cuda
	run_hw bench --sections sweep --max 8K --iters 2
	expect_rc 3
	expect_in err '^hellofpga: bench: /dev/hellofpga0 is a hardware card and there is no real GPU \(CUDA is not usable: .*HELLOFPGA_GPU=none'
	! grep -q '^## ' "$T/out" || fail "figures without a real GPU"
}

case_bench_on_a_hardware_card_without_a_gpu_when_asked() {
	HELLOFPGA_GPU=none run_hw bench --sections sweep --max 8K --iters 2
	expect_ok
	expect_in out '^# gpu: +none '
}

case_bench_reports_name_the_card_and_the_gpu_first() {
	HELLOFPGA_GPU=emu-tegra run -d emu:0,private bench --sections sweep \
		--max 8K --iters 2 --json "$T/x.json" --markdown "$T/x.md"
	expect_ok
	sed -n 2p "$T/out" | grep -Eq '^# card: +emu:0,private, emulated card' ||
		fail "line 2 is not the card"
	sed -n 3p "$T/out" | grep -Eq '^# gpu: +emulated Tegra GPU .*\(emulated, Tegra' ||
		fail "line 3 is not the GPU"
	sed -n 3,4p "$T/x.md" | tr '\n' ' ' |
		grep -Eq '^- card: .*- gpu: .*\(emulated, Tegra' ||
		fail "the Markdown does not start with the card and the GPU"
	python3 - "$T/x.json" <<'EOF' || fail "JSON: card and GPU are not first"
import json, sys
env = json.load(open(sys.argv[1]))["environment"]
keys = list(env)
assert keys[0] == "card" and keys.index("gpu") < keys.index("date"), keys
g = env["gpu"]
assert g["platform"] == "tegra" and g["emulated"] is True and g["name"], g
EOF
}

case_bench_iters_fixes_the_rounds() {
	HELLOFPGA_GPU=emu run -d emu:0,private bench --sections sweep \
		--max 8K --iters 7 --json "$T/x.json"
	expect_ok
	python3 - "$T/x.json" <<'EOF' || fail "unexpected iterations"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["config"]["repeats"] == 3
for x in d["sweep"]:
    for dr in ("h2c", "c2h"):
        for p, t in x[dr].items():
            assert t["iterations"] == 7 * 3, (p, t)
assert d["frames"]["runs"] == [] and d["pin"]["sizes"] == []
EOF
}

# the order of the paths changes per round: over whole periods of the
# order each path runs first equally often, and follows each other path
# equally often
case_bench_order_rotates_per_round() {
	HELLOFPGA_GPU=emu run -d emu:0,private bench --sections sweep \
		--max 8K --iters 14 --seed 1 --json "$T/x.json"
	expect_ok
	python3 - "$T/x.json" <<'EOF' || fail "the order does not rotate"
import collections, json, sys
d = json.load(open(sys.argv[1]))
o = d["config"]["order"]
rows = o["rounds"]
paths = [p for p, v in d["paths"].items() if v["measured"]]
assert len(paths) == 7 and o["period"] == 14 == len(rows), o
first = collections.Counter(r[0] for r in rows)
assert set(first) == set(paths) and set(first.values()) == {2}, first
pairs = collections.Counter((r[k], r[k + 1]) for r in rows for k in range(6))
assert len(pairs) == 42 and set(pairs.values()) == {2}, pairs
for x in d["sweep"]:
    for dr in ("h2c", "c2h"):
        f = x["first"][dr]
        n = x[dr]["direct"]["iterations"]
        assert set(f) == set(paths) and sum(f.values()) == n, (f, n)
        assert len(set(f.values())) == 1, f
EOF
}

# --paths measures only the paths it names, with the ceilings they are
# compared with; the order rotates over those alone
case_bench_paths_measures_only_those_paths() {
	HELLOFPGA_GPU=emu run -d emu:0,private bench --sections sweep \
		--max 8K --iters 4 --seed 1 --paths direct,cpu --json "$T/x.json"
	expect_ok
	expect_in out '^# traditional, pinned: not measured: not in --paths'
	python3 - "$T/x.json" <<'EOF' || fail "--paths measured other paths"
import json, sys
d = json.load(open(sys.argv[1]))
m = sorted(p for p, v in d["paths"].items() if v["measured"])
assert m == ["ceiling", "cpu_mode", "direct", "memcpy"], m
rows = d["config"]["order"]["rounds"]
assert all(sorted(r) == m for r in rows), rows
EOF
}

case_bench_paths_rejects_an_unknown_path() {
	expect_refused "--paths: 'direct,warp'" bench --paths direct,warp
}

# the seed is printed and reproduces the order; another seed gives another
case_bench_seed_reproduces_the_order() {
	local s i=0
	for s in 42 42 43; do
		i=$((i + 1))
		HELLOFPGA_GPU=emu run -d emu:0,private bench --sections sweep \
			--max 4K --iters 2 --seed $s --json "$T/$i.json" \
			--csv "$T/x.csv"
		expect_ok
		expect_in out "^# seed: +$s "
		grep -qx "environment,seed,,,,,,,,,,,,,\"$s\"" "$T/x.csv" ||
			fail "no seed row in the CSV"
	done
	python3 - "$T"/1.json "$T"/2.json "$T"/3.json <<'EOF' || fail "the seed does not fix the order"
import json, sys
a, b, c = (json.load(open(f)) for f in sys.argv[1:4])
assert a["environment"]["seed"] == 42 and c["environment"]["seed"] == 43
assert a["config"]["order"]["rounds"] == b["config"]["order"]["rounds"]
assert a["config"]["order"]["rounds"] != c["config"]["order"]["rounds"]
EOF
	# without --seed: one is drawn and printed
	HELLOFPGA_GPU=emu run -d emu:0,private bench --sections sweep \
		--max 4K --iters 1
	expect_ok
	expect_in out '^# seed: +[0-9]+ '
}

# the sweep runs three times over by default: each figure says how much
# it moved between the repeats (text, JSON, CSV, Markdown)
case_bench_repeats_report_the_spread() {
	HELLOFPGA_GPU=emu run -d emu:0,private bench --sections sweep \
		--min 4K --max 8K --iters 3 --json "$T/x.json" --csv "$T/x.csv" \
		--markdown "$T/x.md"
	expect_ok
	expect_in out '^## 1b\. Stability across 3 repeats'
	expect_in out '^ +8 KiB write +[0-9.]+% +[0-9.]+% .* \| [0-9.]+\.\.[0-9.]+$'
	grep -q '^## Stability across 3 repeats' "$T/x.md" || fail "no stability table in the Markdown"
	grep -Eq '^\| 4 KiB \| read \| [0-9.]+% \| [0-9.]+% \| [0-9.]+\.\.[0-9.]+% \|' "$T/x.md" ||
		fail "no stability row in the Markdown"
	python3 - "$T/x.json" "$T/x.csv" <<'EOF' || fail "unexpected repeats or spread"
import csv, json, sys
d = json.load(open(sys.argv[1]))
assert d["config"]["repeats"] == 3
rows = list(csv.reader(open(sys.argv[2])))
hdr = rows[0]
rows = [dict(zip(hdr, r)) for r in rows[1:]]
for x in d["sweep"]:
    for dr in ("h2c", "c2h"):
        for p, t in x[dr].items():
            m = t["repeat_median_ns"]
            assert len(m) == 3 and t["iterations"] == 9, (p, t)
            assert all(t["min_ns"] <= v <= t["max_ns"] for v in m), (p, t)
            want = (max(m) - min(m)) / t["median_ns"] * 100
            assert abs(t["spread_pct"] - want) < 0.01, (p, t, want)
            rep = [r for r in rows if r["section"] == "repeat" and r["name"] == p
                   and r["size"] == str(x["size"]) and r["direction"] == dr]
            assert [int(float(r["value"])) for r in rep] == [1, 2, 3], rep
            assert [int(r["median_ns"]) for r in rep] == m, (rep, m)
            sp = [r for r in rows if r["section"] == "spread" and r["name"] == p
                  and r["size"] == str(x["size"]) and r["direction"] == dr]
            assert len(sp) == 1 and int(sp[0]["min_ns"]) == min(m), sp
            assert int(sp[0]["max_ns"]) == max(m), sp
            assert abs(float(sp[0]["value"]) - t["spread_pct"]) < 0.01, sp
        s = x["speedup"][dr]
        assert s["direct_pct_of_ceiling_lo"] <= s["direct_pct_of_ceiling_hi"], s
        pc = [r for r in rows if r["section"] == "spread" and
              r["name"] == "direct_pct_of_ceiling" and r["size"] == str(x["size"])
              and r["direction"] == dr]
        lo, hi = (float(v) for v in pc[0]["text"].split(".."))
        assert abs(lo - s["direct_pct_of_ceiling_lo"]) < 0.01, (pc, s)
        assert abs(hi - s["direct_pct_of_ceiling_hi"]) < 0.01, (pc, s)
EOF
}

# one repeat (quick runs may ask for it): the figures, no spread
case_bench_one_repeat_has_no_spread() {
	HELLOFPGA_GPU=emu run -d emu:0,private bench --quick --sections sweep \
		--max 4K --repeats 1 --json "$T/x.json" --csv "$T/x.csv"
	expect_ok
	expect_in out '^# one repeat: no spread'
	! grep -q '^spread,' "$T/x.csv" || fail "spread rows of one repeat"
	python3 - "$T/x.json" <<'EOF' || fail "unexpected JSON content"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["config"]["repeats"] == 1
t = d["sweep"][0]["c2h"]["direct"]
assert len(t["repeat_median_ns"]) == 1 and t["spread_pct"] is None, t
assert t["repeat_median_ns"][0] == t["median_ns"], t
EOF
}

case_bench_prints_every_table() {
	HELLOFPGA_GPU=emu run -d emu:0,private bench --quick --min 4K --max 8K \
		--buffers 4 --pin-max 8K
	expect_ok
	expect_in out '^# cpu: '
	expect_in out '^# gpu: .*emulated'
	expect_in out '^# link: +none'
	expect_in out '^## 1\. Bandwidth'
	expect_in out '^ +8 KiB read +[0-9.]+ +[0-9.]+ +[0-9.]+ '
	expect_in out '^## 2\. Latency'
	expect_in out '^## 2b\. Speedup'
	expect_in out '^## 2c\. TransferMode speedup'
	expect_in out '^## 3\. Frame rate'
	expect_in out '^ +4 +[0-9]+ +[0-9]+ +[0-9.]+ +[0-9.]+% +0 +0$'
	expect_in out '^## 4\. Pin and unpin'
	expect_in out '^## 4b\. Software overhead'
}

case_bench_quick_default_gpu() {
	run -d emu:0,private bench --quick --max 64K --buffers 4 --pin-max 1M \
		--json "$T/x.json"
	expect_ok
	check_bench_json "$T/x.json" 4096 8192 16384 32768 65536
}

case_bench_csv_has_every_section() {
	HELLOFPGA_GPU=emu run -d emu:0,private bench --quick --min 4K --max 16K \
		--buffers 2 --pin-max 8K --csv "$T/x.csv"
	expect_ok
	head -1 "$T/x.csv" | grep -qx 'section,name,size,direction,iterations,min_ns,median_ns,p99_ns,max_ns,mean_ns,gbps,value,dropped,corrupt,text' ||
		fail "bad CSV header"
	# 3 sizes x 2 directions x 7 paths
	[ "$(grep -c '^sweep,' "$T/x.csv")" -eq 42 ] || fail "expected 42 sweep rows"
	for s in speedup transfer_mode overhead frames pin; do
		grep -q "^$s," "$T/x.csv" || fail "no $s rows"
	done
	grep -q '^frames,buffers=2,1048576,c2h,' "$T/x.csv" || fail "no 2-buffer frame row"
}

# the CSV says what it ran on before its measurements, every row of the
# same width (CSV quoting: a CPU name may hold commas)
case_bench_csv_starts_with_the_environment() {
	HELLOFPGA_GPU=emu run -d emu:0,private bench --quick --min 4K --max 4K \
		--buffers 2 --pin-max 8K --csv "$T/x.csv"
	expect_ok
	sed -n 2p "$T/x.csv" | grep -q '^environment,card,' || fail "row 2 is not the card: $(sed -n 2p "$T/x.csv")"
	grep -qx 'environment,emulated_card,,,,,,,,,,,,,"yes"' "$T/x.csv" || fail "no emulated_card row"
	grep -qx 'environment,gpu_emulated,,,,,,,,,,,,,"yes"' "$T/x.csv" || fail "no gpu_emulated row"
	for k in gpu date cpu kernel library; do
		grep -q "^environment,$k,,,,,,,,,,,,,\"..*\"$" "$T/x.csv" || fail "no $k row"
	done
	[ "$(grep -n '^environment,' "$T/x.csv" | tail -n 1 | cut -d: -f1)" -lt \
		"$(grep -n '^sweep,' "$T/x.csv" | head -n 1 | cut -d: -f1)" ] ||
		fail "environment rows after the measurements"
	python3 -c 'import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
bad = [r for r in rows if len(r) != len(rows[0])]
sys.exit("rows of another width: %r" % bad[:2] if bad else 0)' "$T/x.csv" || fail "ragged CSV"
}

case_bench_markdown_has_the_headline() {
	HELLOFPGA_GPU=emu run -d emu:0,private bench --quick --max 4M \
		--buffers 4 --pin-max 8K --markdown "$T/x.md"
	expect_ok
	grep -q '^| 4 MiB | read |' "$T/x.md" || fail "no headline row"
	! grep -q '^## Targets' "$T/x.md" || fail "targets in the tool's output"
}

case_bench_judge_states_the_targets() {
	HELLOFPGA_GPU=emu run -d emu:0,private bench --quick --max 4M \
		--buffers 4 --pin-max 8K --json "$T/x.json"
	expect_ok
	python3 "$JUDGE" "$T/x.json" --markdown > "$T/out" ||
		fail "bench-judge.py failed"
	expect_in out '^## Targets'
	expect_in out 'speedup over the traditional pageable path >= 3.2x at 4 MiB.*not evaluated'
	expect_in out 'not a target run'
	expect_in out 'rotation over 4 buffers.*\| not evaluated \| [0-9.]+%'
}

case_bench_plot_writes_png_and_svg() {
	command -v gnuplot >/dev/null || skip "gnuplot is not installed"
	HELLOFPGA_GPU=emu run -d emu:0,private bench --sections sweep --max 16K \
		--iters 5 --plot "$T/bw.png" --plot-dir "$T/plots"
	expect_ok
	for f in bw.png plots/bandwidth.png plots/latency.png; do
		[ "$(head -c 4 "$T/$f" | od -An -tx1 | tr -d ' ')" = 89504e47 ] ||
			fail "$f is not a PNG"
	done
	for f in bw.svg plots/bandwidth.svg plots/latency.svg; do
		grep -q '<svg' "$T/$f" || fail "$f is not an SVG"
	done
}

case_bench_plot_without_gnuplot_says_so() {
	PATH=/nonexistent HELLOFPGA_GPU=emu run -d emu:0,private bench \
		--sections sweep --max 8K --iters 3 --plot "$T/bw.png"
	expect_ok
	expect_in err 'gnuplot is not on PATH, so no plot was written'
	[ ! -e "$T/bw.png" ] || fail "a plot appeared without gnuplot"
}

case_bench_plot_dir_without_gnuplot_writes_the_scripts() {
	PATH=/nonexistent HELLOFPGA_GPU=emu run -d emu:0,private bench \
		--sections sweep --max 8K --iters 3 --plot-dir "$T/plots"
	expect_ok
	expect_in err 'gnuplot bandwidth.gp latency.gp'
	for f in bandwidth latency; do
		grep -q '^\$data << EOD' "$T/plots/$f.gp" ||
			fail "$f.gp has no data"
		grep -q "set output '$f.png'" "$T/plots/$f.gp" ||
			fail "$f.gp does not draw $f.png beside itself"
		[ ! -e "$T/plots/$f.png" ] || fail "a plot appeared without gnuplot"
	done
	command -v gnuplot >/dev/null || return 0
	(cd "$T/plots" && gnuplot bandwidth.gp) || fail "gnuplot bandwidth.gp failed"
	grep -q '<svg' "$T/plots/bandwidth.svg" || fail "no SVG from the script"
}

case_bench_without_gpu_measures_cpu_mode() {
	HELLOFPGA_GPU=none run -d emu:0,private bench --quick --max 8K \
		--json "$T/x.json"
	expect_ok
	expect_in err 'no GPU Direct'
	python3 - "$T/x.json" <<'EOF' || fail "unexpected JSON content"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["environment"]["gpu"] is None
assert d["paths"]["cpu_mode"]["measured"] and d["paths"]["memcpy"]["measured"]
assert not d["paths"]["direct"]["measured"] and d["paths"]["direct"]["why"]
assert d["sweep"][0]["c2h"]["cpu_mode"]["median_ns"] > 0
EOF
}

case_bench_link_model_shows_the_seed() {
	HELLOFPGA_GPU=emu run -d emu:0,private,link=gen3x8 bench --sections sweep \
		--min 1M --max 1M --iters 3 --json "$T/x.json"
	expect_ok
	expect_in out '^# link: +PCIe Gen3 x8, MPS 256, 1000 ns/descriptor \(7\.[0-9]+ GB/s\)'
	python3 "$JUDGE" "$T/x.json" > "$T/out" || fail "bench-judge.py failed"
	expect_in out "^## The seed's H100 PCIe, Gen3 x8"
	expect_in out '^1 MiB read us +152\.2 +[0-9.]+ +14[0-9]\.[0-9]$'
	! grep -q "Jetson\|A4000" "$T/out" || fail "seed platforms of other links shown"
	python3 - "$T/x.json" <<'EOF' || fail "unexpected JSON content"
import json, sys
d = json.load(open(sys.argv[1]))
l = d["environment"]["link_model"]
assert (l["gen"], l["lanes"], l["mps"], l["desc_ns"]) == (3, 8, 256, 1000), l
# 1 MiB at ~7.3 GB/s: ~144 us + 1 us; every path moving card data takes
# at least the model's time (the model is a floor, never a speed-up)
m = d["sweep"][0]["model_ns"]
assert 140000 < m < 150000, m
for dr in ("h2c", "c2h"):
    assert d["sweep"][0][dr]["direct"]["min_ns"] >= m * 0.99, d["sweep"][0][dr]
    assert d["sweep"][0][dr]["cpu_mode"]["min_ns"] >= m * 0.99
EOF
}

# with a link model the bench predicts a transfer's time on real hardware
# from the accesses it counted, and the reference driver's on the same
# assumptions (tools/bench/bench_predict.c)
case_bench_link_model_predicts_the_cost() {
	HELLOFPGA_GPU=emu run -d emu:0,private,link=gen3x4 bench --sections sweep \
		--min 4K --max 4M --iters 1 --repeats 1 --json "$T/x.json" \
		--csv "$T/x.csv" --markdown "$T/x.md"
	expect_ok
	expect_in out '^## 6\. Predicted time per transfer on real hardware'
	# the reference's 4 KiB: 5 x 1000 + 7 x 100 + 1000 + 32 / 3.65 + 2000
	# + 4096 / 3.65 ns = 9.83 us
	expect_in out '^ +4 KiB read +\| +[0-9.]+ +[0-9.]+ +[0-9.]+ +1 +[0-9.]+ +[0-9.]+ \| +5 +7 +1 +1 +9\.83 +0\.417 \| +[0-9.]+$'
	expect_in out '^ +4 MiB write .*\| +7 +10 +1024 +1 +[0-9.]+ +[0-9.]+ \|'
	grep -q '^## Predicted time per transfer on real hardware' "$T/x.md" ||
		fail "no prediction in the Markdown"
	grep -q '^| 64 KiB | read | [0-9.]* / [0-9.]* / [0-9.]* / 1 | [0-9.]* | [0-9.]* | 5 / 7 / 16 / 1 |' "$T/x.md" ||
		fail "no 64 KiB prediction row in the Markdown"
	[ "$(grep -c '^predict,' "$T/x.csv")" -eq 12 ] || fail "expected 12 predict rows"
	python3 - "$T/x.json" <<'EOF' || fail "unexpected prediction"
import json, sys
d = json.load(open(sys.argv[1]))
p = d["prediction"]
k = p["constants"]
assert (k["mmio_read_ns"], k["mmio_write_ns"], k["irq_ns"], k["fetch_ns"]) == (1000, 100, 2000, 1000), k
assert p["path"] == "direct"
ref = {4096: (5, 7, 1), 65536: (5, 7, 16), 4194304: (7, 10, 1024)}
assert [x["size"] for x in p["sizes"]] == list(ref)
def predict(c):
    g, f = k["gbps"], k["fetch_ns"]
    per = c["bytes"] / c["descriptors"] / g
    fetch = f + (c["descriptors"] - 1) * max(0, f - per) + c["descriptors"] * 32 / g
    return (c["mmio_reads"] * 1000 + c["mmio_writes"] * 100 + fetch +
            c["irqs"] * 2000 + c["bytes"] / g)
for x in p["sizes"]:
    for dr in ("h2c", "c2h"):
        h, r = x[dr]["hellofpga"], x[dr]["reference"]
        assert (r["mmio_reads"], r["mmio_writes"], r["descriptors"], r["irqs"]) == ref[x["size"]] + (1,), r
        # counted on the emulated card, a reused chain, MSI-X: no register
        # read, two writes (Run set and cleared), one interrupt, never
        # more descriptors than 4 KiB pages
        assert h["mmio_reads"] == 0 and h["mmio_writes"] == 2 and h["irqs"] == 1, h
        assert 1 <= h["descriptors"] <= x["size"] // 4096, h
        for c in (h, r):
            assert c["bytes"] == x["size"]
            # (the JSON's rate has 4 decimals)
            assert abs(c["ns"] - predict(c)) <= 1e-4 * c["ns"], (c, predict(c))
            assert abs(c["gbps"] - x["size"] / c["ns"]) < 1e-3, c
        assert x[dr]["measured_ns"] > 0, x[dr]
EOF
}

# without a link model there is nothing to predict over: no table 6
case_bench_without_link_model_predicts_nothing() {
	HELLOFPGA_GPU=emu run -d emu:0,private bench --sections sweep \
		--min 4K --max 64K --iters 1 --repeats 1 --json "$T/x.json" \
		--csv "$T/x.csv" --markdown "$T/x.md"
	expect_ok
	! grep -q 'Predicted' "$T/out" "$T/x.md" || fail "a prediction without a link model"
	! grep -q '^predict,' "$T/x.csv" || fail "predict rows without a link model"
	python3 -c 'import json, sys
assert json.load(open(sys.argv[1]))["prediction"] is None' "$T/x.json" ||
		fail "a JSON prediction without a link model"
}

# bench-judge.py puts the seed's published figures beside the prediction
case_bench_judge_puts_the_prediction_beside_the_seed() {
	HELLOFPGA_GPU=emu run -d emu:0,private,link=gen3x4 bench --sections sweep \
		--min 4K --max 64K --iters 1 --repeats 1 --json "$T/x.json"
	expect_ok
	python3 "$JUDGE" "$T/x.json" > "$T/out" || fail "bench-judge.py failed"
	expect_in out "^## Predicted on real hardware beside the seed's RTX A4000, Gen3 x4"
	expect_in out '^4 KiB read us +41\.2 +[0-9.]+ +9\.8 +[0-9.]+$'
	expect_in out '^64 KiB write us +39\.8 +[0-9.]+ +26\.8 +[0-9.]+$'
	# the Orin has only its 4 MiB soak means: the reference's prediction
	# beside them, hellofpga's not counted (the sweep stopped at 64 KiB)
	expect_in out "^## Predicted on real hardware beside the seed's Jetson Orin"
	expect_in out '^4 MiB read us +1489\.0 +- +1168\.1 +-$'
}

case_bench_soak_samples_and_drift() {
	# 2 s of samples every 0.2 s: at most 11, at least the 3 a drift needs
	# however slow a loaded machine takes them
	HELLOFPGA_GPU=emu run -d emu:0,private bench --soak 2s --interval 0.2s \
		--soak-size 64K --json "$T/x.json"
	expect_ok
	expect_in out '^## Soak: GPU Direct, 64 KiB per transfer'
	expect_in out '^soak: drift, last third vs first third'
	python3 - "$T/x.json" <<'EOF' || fail "unexpected JSON content"
import json, sys
d = json.load(open(sys.argv[1]))
s = d["soak"]
assert 3 <= len(s["samples"]) <= 11, len(s["samples"])
assert all(x["verified"] and x["c2h"]["median_ns"] > 0 for x in s["samples"])
assert s["drift_pct"]["c2h"] is not None
assert d["sweep"] == []
EOF
}

case_bench_bad_range_fails() {
	expect_refused 'need 0 < --min <= --max' \
		-d emu:0,private bench --min 64K --max 4K
}

case_bench_bad_options_fail() {
	run -d emu:0,private bench --sections sweep,bogus
	[ "$rc" -eq 2 ] || fail "--sections: exit status $rc, expected 2"
	expect_in err "sections: 'sweep,bogus'"
	run -d emu:0,private bench --soak 10x
	[ "$rc" -eq 2 ] || fail "--soak: exit status $rc, expected 2"
	expect_in err "soak: bad duration '10x'"
	run -d emu:0,private bench --interval 1s
	[ "$rc" -eq 2 ] || fail "--interval: exit status $rc, expected 2"
	expect_in err 'interval needs --soak'
	run -d emu:0,private bench --buffers 0
	[ "$rc" -eq 2 ] || fail "--buffers: exit status $rc, expected 2"
	run -d emu:0,private bench --frame-size 1000
	[ "$rc" -eq 2 ] || fail "--frame-size: exit status $rc, expected 2"
	run -d emu:0,private bench --seed -1
	[ "$rc" -eq 2 ] || fail "--seed: exit status $rc, expected 2"
	expect_in err "seed: bad number '-1'"
	run -d emu:0,private bench --repeats 0
	[ "$rc" -eq 2 ] || fail "--repeats: exit status $rc, expected 2"
	expect_in err "repeats: bad count '0' \(1\.\.10\)"
}

# The bench reads the card name's link options as the card does: hex and
# suffixes of the one number grammar too.
case_bench_link_model_reads_numbers_as_the_card() {
	HELLOFPGA_GPU=emu run -d emu:0,private,link=gen3x8,mps=0x200,desc_ns=0x1F4 \
		bench --sections sweep --min 64K --max 64K --iters 1
	expect_ok
	expect_in out '^# link: +PCIe Gen3 x8, MPS 512, 500 ns/descriptor '
}

case_bench_bad_link_option_fails() {
	for opt in link=gen6x8 link=gen3x3 link=pcie link=gen3x4,mps=300 \
		   link=gen3x4,desc_ns=-1 mps=256; do
		run -d "emu:0,private,$opt" bench --sections sweep --max 4K --iters 1
		[ "$rc" -ne 0 ] || fail "$opt: accepted"
		expect_in err 'link|mps|desc_ns'
	done
}

# --- help, version --------------------------------------------------------

case_every_command_has_help() {
	for c in info write read reg events demo bench version; do
		run "$c" --help
		expect_ok
		expect_in out "^Usage: hellofpga .*$c"
	done
}

case_help_cmd_is_cmd_help() {
	local c=

	for c in $(commands); do
		"$CLI" "$c" --help >"$T/want" 2>&1 || fail "$c --help failed"
		run help "$c"
		expect_ok
		cmp -s "$T/want" "$T/out" ||
			fail "'help $c' differs from '$c --help'"
	done
	[ -n "$c" ] || fail "no commands in the global help"
}

case_help_of_an_unknown_command_is_refused() {
	expect_refused "unknown command 'nosuch'" help nosuch
}

case_help_without_a_command_is_the_global_help() {
	"$CLI" --help >"$T/want"
	run help
	expect_ok
	cmp -s "$T/want" "$T/out" || fail "'help' differs from '--help'"
}

case_version_prints_library_version() {
	run version
	expect_ok
	expect_in out '^hellofpga [0-9]+\.[0-9]+\.[0-9]+ \(libhellofpga [0-9]+\.[0-9]+\.[0-9]+\)$'
}

cases_main cli
