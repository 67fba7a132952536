#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# man_test.sh - the manual pages the build makes (tools/man/): one per
# command, each with every option its --help prints, and hellofpga(3)
# with every function of the header and every errno they document.
#
#	man_test.sh CLI CASE     run one case (exit 0 pass, 1 fail, 77 skip)
#	man_test.sh CLI --list   print the case names
#
# Environment (set by CTest): HF_MAN_DIR, where the pages are; HF_MAN1=1
# when the build had help2man (else the section 1 cases skip); HF_HEADER,
# include/hellofpga.h.
set -u

CLI=$1
CASE=$2
. "$(dirname "$(readlink -f "$0")")/case-lib.sh"

need_man1() {
	[ "${HF_MAN1:-0}" = 1 ] || skip "the build had no help2man"
}

# page_text PAGE: the page's troff with the escapes of its words removed.
page_text() {
	[ -s "$HF_MAN_DIR/$1" ] || fail "no page $HF_MAN_DIR/$1"
	sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' -e 's/\\[,\/&]//g' \
		"$HF_MAN_DIR/$1" >"$T/page"
}

# page_has_options PAGE [COMMAND]: PAGE names every long option of
# "COMMAND --help".
page_has_options() {
	local o

	page_text "$1"
	for o in $(long_options ${2:+"$2"}); do
		grep -Eq -- "$o([^a-z0-9-]|\$)" "$T/page" ||
			fail "$1 does not mention $o"
	done
}

case_man1_has_a_page_per_command() {
	local c

	need_man1
	for c in $(commands); do
		[ "$c" = help ] && continue
		page_text "hellofpga-$c.1"
		grep -q "^\.TH HELLOFPGA-${c^^} \"1\"" "$T/page" ||
			fail "hellofpga-$c.1 has no title HELLOFPGA-${c^^}(1)"
		grep -q "^hellofpga-$c - " "$T/page" ||
			fail "hellofpga-$c.1 has no NAME line"
	done
}

case_man1_pages_have_every_option_of_help() {
	local c

	need_man1
	long_options bench | grep -q -- --soak-size ||
		fail "no long options found in 'bench --help'"
	page_has_options hellofpga.1
	for c in $(commands); do
		[ "$c" = help ] && continue
		page_has_options "hellofpga-$c.1" "$c"
	done
}

case_man1_main_page_lists_every_command() {
	local c

	need_man1
	page_text hellofpga.1
	for c in $(commands); do
		grep -q "^$c\$" "$T/page" || fail "hellofpga.1 does not list $c"
		[ "$c" = help ] ||
			grep -q "hellofpga-$c (1)" "$T/page" ||
			fail "hellofpga.1 does not refer to hellofpga-$c(1)"
	done
}

# the functions the header declares, one a line
header_functions() {
	grep -Eo '^[a-z][a-z_ ]*\*?(HelloFPGA_[A-Za-z0-9_]+)\(' "$HF_HEADER" |
		grep -Eo 'HelloFPGA_[A-Za-z0-9_]+'
}

case_man3_documents_every_function() {
	local f n=0

	page_text hellofpga.3
	for f in $(header_functions); do
		grep -q "^\.SS \"$f()\"" "$T/page" || fail "hellofpga.3 has no $f()"
		n=$((n + 1))
	done
	[ "$n" -ge 20 ] || fail "only $n functions found in $HF_HEADER"
}

case_man3_errors_list_every_documented_errno() {
	local e

	page_text hellofpga.3
	sed -n '/^\.SH ERRORS/,/^\.SH /p' "$T/page" >"$T/errors"
	for e in $(sed -n '/Return:/,/\*\//p' "$HF_HEADER" |
		   grep -Eo -- '-E[A-Z0-9]+\b' | sort -u); do
		grep -Eq -- "^$e( |\$)" "$T/errors" ||
			fail "ERRORS of hellofpga.3 has no $e"
	done
	grep -q -- '^-ECHRNG (' "$T/errors" || fail "no -ECHRNG entry"
}

cases_main man
