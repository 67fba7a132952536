# SPDX-License-Identifier: MIT
# shellcheck shell=sh
# results.sh - the one result format of the test scripts, sourced by
# scripts/kernel-ci.sh, tests/guest/harness/guest-ci.sh and, in the guest,
# tests/guest/harness/case-lib.sh (POSIX sh: busybox runs it there).
#
# A result is a line "PASS NAME", "FAIL NAME: REASON" or "SKIP NAME: WHY";
# a script ends with "N passed, N failed, N skipped", which ./run reads.
#
#   hf_result PASS|FAIL|SKIP NAME [TEXT]   print one, count it
#   hf_count FILE                          count the result lines of FILE
#   hf_summary                             the last line; status 1 when
#                                          anything failed
HF_PASSED=0
HF_FAILED=0
HF_SKIPPED=0

hf_result() {
	echo "$1 $2${3:+: $3}"
	case $1 in
	PASS) HF_PASSED=$((HF_PASSED + 1)) ;;
	FAIL) HF_FAILED=$((HF_FAILED + 1)) ;;
	SKIP) HF_SKIPPED=$((HF_SKIPPED + 1)) ;;
	esac
}

hf_count() {
	HF_PASSED=$((HF_PASSED + $(grep -c '^PASS ' "$1")))
	HF_FAILED=$((HF_FAILED + $(grep -c '^FAIL ' "$1")))
	HF_SKIPPED=$((HF_SKIPPED + $(grep -c '^SKIP ' "$1")))
}

hf_summary() {
	echo "$HF_PASSED passed, $HF_FAILED failed, $HF_SKIPPED skipped"
	[ "$HF_FAILED" = 0 ]
}
