#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# doctor_test.sh - tests of "hellofpga doctor" against recorded and
# synthetic trees (--root), so every verdict is tested on any machine.
#
#	doctor_test.sh CLI CASE     run one case (exit 0 pass, 1 fail, 77 skip)
#	doctor_test.sh CLI --list   print the case names
#
# Synthetic trees come from doctor/synth.py: a machine where every check
# is ok, and variants that change one thing.  Recorded trees are
# doctor/fixtures/NAME, made by scripts/doctor-record.sh --hex, each with
# the file "expected": the verdict of every check.
set -u

CLI=$1
CASE=$2
HERE=$(dirname "$(readlink -f "$0")")
. "$HERE/case-lib.sh"
SYNTH=$HERE/doctor/synth.py
RECORD=$HERE/../../scripts/doctor-record.sh

# synth [VARIANT...]: the synthetic tree $T/root.
synth() {
	rm -rf "$T/root"
	python3 "$SYNTH" "$T/root" "$@" || fail "synth.py $*"
}

# unhex DIR: each config.hex below DIR (od -tx1 text) becomes config.
unhex() {
	local h

	while IFS= read -r h; do
		python3 -c 'import sys; sys.stdout.buffer.write(bytes.fromhex(open(sys.argv[1]).read()))' \
			"$h" >"${h%.hex}" || fail "cannot unpack $h"
	done < <(find "$1" -name config.hex)
}

# doctor [ARGS...]: the report of $T/root as text ($T/out) and as JSON
# ($T/json, checked by python3 -m json.tool); $rc the text run's status.
doctor() {
	local jrc

	"$CLI" doctor --root "$T/root" --json - "$@" >"$T/json" 2>"$T/err"
	jrc=$?
	python3 -m json.tool "$T/json" >/dev/null || fail "--json is not JSON"
	run doctor --root "$T/root" "$@"
	[ "$rc" -eq "$jrc" ] || fail "exit status $rc as text, $jrc with --json"
}

# verdicts: "ID VERDICT" of every check of $T/json, one a line.
verdicts() {
	python3 -c 'import json, sys
for c in json.load(open(sys.argv[1]))["checks"]:
    print(c["id"], c["verdict"])' "$T/json"
}

# expect_check ID VERDICT [REGEX]: check ID has VERDICT in the JSON and in
# the text, and REGEX matches its block of the text.
expect_check() {
	local tag

	verdicts | grep -qx "$1 $2" || fail "check $1 is not $2: $(verdicts | grep "^$1 ")"
	case $2 in
	ok) tag='ok  ' ;;
	fail) tag=FAIL ;;
	*) tag=$2 ;;
	esac
	grep -q "^\[$tag\] $1 - " "$T/out" || fail "no line '[$tag] $1 - ' in the text"
	[ $# -lt 3 ] || sed -n "/^\[....\] $1 - /,/^$/p" "$T/out" | grep -Eq -- "$3" ||
		fail "check $1 does not match /$3/"
}

# expect_only ID VERDICT: check ID has VERDICT, every other check is ok.
expect_only() {
	local n

	expect_check "$1" "$2"
	n=$(verdicts | grep -vc " ok$")
	[ "$n" -eq 1 ] || fail "$n checks are not ok: $(verdicts | grep -v ' ok$' | tr '\n' ' ')"
}

# a_variant VARIANT ID VERDICT [REGEX]: the variant changes check ID only.
a_variant() {
	synth "$1"
	doctor
	expect_only "$2" "$3"
	[ $# -lt 4 ] || expect_check "$2" "$3" "$4"
	if [ "$3" = fail ]; then expect_rc 1; else expect_ok; fi
}

# fixture NAME: the recorded tree NAME gives the verdicts of its
# "expected" file, as text and as JSON, and the matching exit status.
fixture() {
	local dir=$HERE/doctor/fixtures/$1

	[ -f "$dir/expected" ] || fail "no $dir/expected"
	cp -a "$dir" "$T/root" && unhex "$T/root"
	doctor
	diff <(grep -v '^#' "$dir/expected") <(verdicts) >"$T/diff" ||
		fail "verdicts differ from $1/expected: $(tr '\n' ' ' <"$T/diff")"
	while read -r id v; do
		expect_check "$id" "$v"
	done < <(grep -v '^#' "$dir/expected")
	if grep -q ' fail$' "$dir/expected"; then expect_rc 1; else expect_ok; fi
}

# --- the whole report ----------------------------------------------------

case_ready_machine_every_check_ok() {
	synth
	doctor
	expect_ok
	[ "$(verdicts | grep -vc ' ok$')" -eq 0 ] || fail "not all ok: $(verdicts | tr '\n' ' ')"
	expect_last "summary: 15 ok, 0 warn, 0 fail, 0 skip"
}

case_json_has_evidence_and_fix_of_each_check() {
	synth no-driver
	doctor
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
assert d["tool"] == "hellofpga doctor" and d["live"] is False
assert sum(d["summary"].values()) == len(d["checks"]) == 15
for c in d["checks"]:
    assert set(c) == {"id", "title", "verdict", "result", "evidence", "fix"}, c
    assert c["verdict"] in ("ok", "warn", "fail", "skip"), c
    assert c["verdict"] not in ("warn", "fail") or c["fix"], c
    assert c["verdict"] != "ok" or c["evidence"], c
drv = [c for c in d["checks"] if c["id"] == "driver"][0]
assert drv["fix"].startswith("sudo modprobe hellofpga"), drv
assert "/sys/module/hellofpga: missing" in drv["evidence"], drv' "$T/json" ||
		fail "the JSON report is not as documented"
}

case_live_machine_reports_every_check() {
	run doctor
	[ "$rc" -le 1 ] || fail "exit status $rc"
	expect_count out '^\[(ok  |warn|FAIL|skip)\] [a-z0-9]+ - ' 15
	expect_in out '^summary: [0-9]+ ok, [0-9]+ warn, [0-9]+ fail, [0-9]+ skip$'
	"$CLI" doctor --json - >"$T/json" || [ $? -eq 1 ] || fail "--json failed"
	python3 -m json.tool "$T/json" >/dev/null || fail "--json is not JSON"
}

case_print_env_reads_back_the_same() {
	run doctor --print-env
	expect_ok
	expect_in out '^uid=[0-9]+$'
	expect_in out '^kernel='
	mkdir -p "$T/root" && cp "$T/out" "$T/root/doctor-env"
	run doctor --root "$T/root" --print-env
	expect_ok
	diff <(grep -v '^#' "$T/root/doctor-env") <(grep -v '^#' "$T/out") >/dev/null ||
		fail "doctor-env does not read back as written"
}

case_bad_doctor_env_line_fails() {
	synth
	echo "memlock=lots" >>"$T/root/doctor-env"
	run doctor --root "$T/root"
	expect_rc 1
	expect_in err 'doctor-env:[0-9]+: not KEY=VALUE'
}

# a number with text after it is a bad line too, not the number
case_doctor_env_number_with_trailing_text_fails() {
	local l
	for l in uid=0x1000z gids="0 27junk" features=0x3g "features= -1" node="/dev/hellofpga0 0660 0 0 x" \
		group="0 root extra"; do
		synth
		echo "$l" >>"$T/root/doctor-env"
		run doctor --root "$T/root"
		expect_rc 1
		expect_in err 'doctor-env:[0-9]+: not KEY=VALUE'
	done
}

case_bad_command_line_refused() {
	expect_refused "--root '$T/none' is not a directory" doctor --root "$T/none"
	expect_refused "unexpected argument" doctor extra
	expect_refused "unrecognized option|invalid option" doctor --bogus
}

case_help_describes_the_options() {
	run doctor --help
	expect_ok
	expect_in out '^Usage: hellofpga .*doctor'
	expect_in out '--root DIR'
	expect_in out '--json FILE'
	expect_in out 'Exit status: 0 when no check fails, 1 when one does'
}

# --- the recorder --------------------------------------------------------

case_recorded_tree_gives_the_same_report() {
	synth acs-redirect iommu-translated
	doctor
	cp "$T/json" "$T/json.orig"
	bash "$RECORD" --from "$T/root" "$T/rec" >/dev/null || fail "recorder failed"
	mv "$T/root" "$T/synth" && mv "$T/rec" "$T/root"
	doctor
	diff <(sed '/"root"/d' "$T/json.orig") <(sed '/"root"/d' "$T/json") >/dev/null ||
		fail "the recorded tree reports otherwise"
}

case_recorded_hex_tree_gives_the_same_report() {
	synth acs-redirect mps-low
	doctor
	cp "$T/json" "$T/json.orig"
	bash "$RECORD" --hex --from "$T/root" "$T/rec" >/dev/null || fail "recorder failed"
	[ -z "$(find "$T/rec" -name config)" ] || fail "--hex left a binary config"
	unhex "$T/rec"
	mv "$T/root" "$T/synth" && mv "$T/rec" "$T/root"
	doctor
	diff <(sed '/"root"/d' "$T/json.orig") <(sed '/"root"/d' "$T/json") >/dev/null ||
		fail "the recorded tree reports otherwise"
}

case_recorder_keeps_only_what_doctor_reads() {
	synth
	echo secret >"$T/root/sys/module/hellofpga/other"
	bash "$RECORD" --from "$T/root" "$T/rec" >/dev/null || fail "recorder failed"
	[ ! -e "$T/rec/sys/module/hellofpga/other" ] || fail "copied a file doctor does not read"
	[ -f "$T/rec/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0/0000:03:00.0/config" ] ||
		fail "no config space of the card"
	[ ! -e "$T/rec/sys/devices/pci0000:00/0000:00:00.0/config" ] ||
		fail "config space of a function off the card's and GPU's paths"
}

# --- recorded machines ---------------------------------------------------

case_fixture_build_machine() {
	fixture build-machine
}

case_fixture_h200_vm() {
	fixture h200-vm
}

case_fixture_qemu_guest() {
	fixture qemu-guest
}

# --- one check at a time -------------------------------------------------

case_driver_missing_fails_with_modprobe() {
	synth no-driver
	doctor
	expect_rc 1
	expect_check driver fail 'fix: +sudo modprobe hellofpga'
	expect_check abi skip
	expect_check nodes skip
}

case_abi_major_mismatch_fails() {
	a_variant abi-major abi fail 'driver ABI 2\.0, the library needs 1\.x'
}

case_abi_older_minor_warns() {
	a_variant abi-minor abi warn 'older than the library'
}

case_abi_eproto_from_library_fails() {
	a_variant abi-eproto abi fail 'HelloFPGA_Open\(\): /dev/hellofpga0: Protocol error'
}

case_card_missing_fails() {
	synth card-missing
	doctor
	expect_rc 1
	expect_check card fail 'no Xilinx function'
	expect_check topology skip
}

case_card_without_driver_fails() {
	a_variant card-unbound card fail 'has no driver'
}

case_card_bound_to_other_driver_fails_with_unbind() {
	a_variant card-xdma card fail 'drivers/xdma/unbind'
}

case_nodes_of_root_only_fail_with_udev_fix() {
	a_variant nodes-root-only nodes fail 'give the nodes to group hellofpga'
}

case_nodes_of_group_not_joined_fail_with_usermod() {
	a_variant nodes-not-member nodes fail 'usermod -aG hellofpga'
}

case_no_nodes_fail() {
	a_variant nodes-none nodes fail 'no /dev/hellofpga\* nodes'
}

case_memlock_below_pin_limit_warns() {
	a_variant memlock-low memlock warn 'RLIMIT_MEMLOCK 8 MiB: pins of host memory stop there.*32000 MiB'
}

case_memlock_of_root_is_ok() {
	synth memlock-low memlock-root
	doctor
	expect_check memlock ok 'root: CAP_IPC_LOCK'
}

case_memlock_against_pin_limit_parameter() {
	synth memlock-pin-limit
	doctor
	expect_check memlock ok 'RLIMIT_MEMLOCK 1 GiB reaches the driver.s pin limit \(512 MiB\)'
}

case_iommu_off_is_ok() {
	synth
	doctor
	expect_check iommu ok '^ +off: '
}

case_iommu_translated_warns() {
	a_variant iommu-translated iommu warn 'iommu_groups/5/type \(card 0000:03:00\.0\): DMA-FQ'
	expect_check iommu warn 'fix: +add iommu=pt'
}

case_iommu_passthrough_is_ok() {
	synth iommu-passthrough
	doctor
	expect_check iommu ok 'passthrough: DMA addresses'
}

case_acs_redirect_warns() {
	a_variant acs-redirect acs warn 'redirects peer-to-peer requests at 0000:02:00\.0'
	expect_check acs warn 'ReqRedir\+ CmpltRedir\+'
	expect_check acs warn 'pci=disable_acs_redir=0000:02:00\.0'
}

case_acs_source_validation_only_is_ok() {
	synth acs-source-valid
	doctor
	expect_check acs ok '2 bridge\(s\) on the path, none redirects'
}

case_config_space_without_root_skips() {
	synth config-64
	doctor
	expect_check acs skip 'run the doctor as root'
	expect_check mps skip
}

case_topology_same_switch_is_pxb() {
	synth
	doctor
	expect_check topology ok 'PXB: they meet at bridge 0000:01:00\.0'
}

case_topology_same_port_is_pix() {
	synth same-port
	doctor
	expect_check topology ok 'PIX'
}

case_topology_root_complex_warns() {
	a_variant root-complex topology warn 'PHB: they meet only at the root complex \(pci0000:00\)'
}

case_topology_across_sockets_warns() {
	a_variant cross-socket topology warn 'SYS: different host bridges \(pci0000:00, pci0000:80\) on different NUMA nodes'
}

case_topology_flat_vm_bus_says_so() {
	a_variant flat-vm topology warn 'in a virtual machine'
}

case_mps_below_path_warns() {
	a_variant mps-low mps warn 'MPS 128, while the card and every port above it support 512'
}

case_link_narrow_warns() {
	a_variant link-narrow link warn 'down-trained: card 8\.0 GT/s PCIe x4 of 8\.0 GT/s PCIe x8'
}

case_link_slow_warns() {
	a_variant link-slow link warn 'down-trained: card 2\.5 GT/s'
}

case_gpu_idle_link_speed_is_ok() {
	synth gpu-idle-speed
	doctor
	expect_check link ok 'lowers its link speed when idle'
}

case_bar1_second_memory_bar_of_h200() {
	synth
	doctor
	expect_check bar1 ok 'line 3 \(BAR1.*256 GiB'
}

case_bar1_small_warns() {
	a_variant bar1-small bar1 warn 'BAR1 256 MiB'
	expect_check bar1 warn 'line 2 \(BAR1'
}

case_no_gpu_skips_gpu_checks() {
	synth no-gpu
	doctor
	expect_check bar1 skip
	expect_check topology skip 'GPU missing'
}

case_nvidia_missing_fails() {
	synth no-nvidia
	doctor
	expect_rc 1
	expect_check nvidia fail 'fix: +install the NVIDIA driver'
	expect_check providers fail 'load the NVIDIA driver'
}

case_nvidia_open_module() {
	synth
	doctor
	expect_check nvidia ok '580\.95\.05, open kernel modules'
	expect_check providers ok 'nvidia_p2p \(desktop\), dma-buf'
}

case_nvidia_proprietary_has_no_dmabuf() {
	synth proprietary
	doctor
	expect_ok
	expect_check nvidia ok 'proprietary kernel module: nvidia_p2p only'
	expect_check providers ok '^ +nvidia_p2p \(desktop\)$'
}

case_providers_without_nvp2p_leave_dmabuf() {
	synth no-nvp2p
	doctor
	expect_check providers ok '^ +dma-buf$'
}

case_providers_none_fail_with_nvp2p_build() {
	synth no-nvp2p proprietary
	doctor
	expect_rc 1
	expect_check providers fail 'make -C driver/nvp2p'
}

case_cuda_neither_attribute_fails() {
	synth cuda-neither
	doctor
	expect_rc 1
	expect_check cuda fail 'supports neither'
}

case_cuda_rdma_only_warns() {
	a_variant cuda-rdma-only cuda warn 'GPU Direct RDMA \(nvidia_p2p\), not dma-buf'
}

case_cuda_missing_fails() {
	a_variant cuda-none cuda fail 'no CUDA GPU: libcuda\.so\.1 not found'
}

case_cuda_emulated_gpu_skips() {
	a_variant cuda-emulated cuda skip 'emulated GPU'
}

case_kconfig_without_p2pdma_warns() {
	a_variant no-p2pdma kconfig warn 'not set: PCI_P2PDMA'
}

case_kconfig_from_proc_config_gz() {
	command -v gzip >/dev/null || skip "no gzip"
	synth kconfig-gz
	doctor
	expect_check kconfig ok '/proc/config\.gz: CONFIG_PCI_P2PDMA=y'
}

case_kconfig_unreadable_skips() {
	a_variant no-kconfig kconfig skip 'cannot be read'
}

case_without_doctor_env_skips_its_checks() {
	synth no-env
	doctor
	expect_check nodes skip 'no environment facts'
	expect_check memlock skip
	expect_check cuda skip
}

cases_main doctor
