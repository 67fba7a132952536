#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# completion_test.sh - tools/completion/hellofpga.bash: its commands and
# option lists are what --help prints, and it completes commands, options,
# device specs and the commands after "help".
#
#	completion_test.sh CLI CASE     run one case (exit 0 pass, 1 fail, 77 skip)
#	completion_test.sh CLI --list   print the case names
set -u

CLI=$1
CASE=$2
. "$(dirname "$(readlink -f "$0")")/case-lib.sh"
COMPLETION=$(dirname "$(readlink -f "$0")")/../../tools/completion/hellofpga.bash

# complete WORD...: COMPREPLY for the command line "hellofpga WORD..."
# with the cursor at its end (as bash sets COMP_LINE and COMP_POINT), one
# a line in $T/out.
complete_words() {
	COMP_LINE="hellofpga $*"
	COMP_POINT=${#COMP_LINE}
	COMPREPLY=()
	_hellofpga
	printf '%s\n' "${COMPREPLY[@]}" >"$T/out"
}

# expect_words WORD...: $T/out is exactly WORD..., in any order.
expect_words() {
	local want got

	want=$(printf '%s\n' "$@" | sort)
	got=$(sort "$T/out" | sed '/^$/d')
	[ "$got" = "$want" ] ||
		fail "completed '$(echo $got)', expected '$(echo $want)'"
}

load() {
	# shellcheck source=../../tools/completion/hellofpga.bash
	. "$COMPLETION" || fail "cannot source $COMPLETION"
}

# words: the words of the text on standard input, sorted, without --help
words() {
	tr -s ' \t\n' '\n' | sed '/^$/d;/^--help$/d' | sort -u
}

case_completion_commands_are_those_of_help() {
	load
	[ "$(echo "$_hellofpga_commands" | words)" = "$(commands | words)" ] ||
		fail "commands '$_hellofpga_commands' are not '$(commands | tr '\n' ' ')'"
}

case_completion_options_are_those_of_each_help() {
	local c

	load
	[ "$(echo "${_hellofpga_opts[-]}" | words)" = "$(long_options | words)" ] ||
		fail "global options '${_hellofpga_opts[-]}' are not those of --help"
	for c in $(commands); do
		[[ " ${_hellofpga_opts[$c]-} " == *" --help "* ]] ||
			fail "$c: no --help"
		# "help --help" is the global help: help takes --help only
		[ "$c" = help ] && continue
		[ "$(echo "${_hellofpga_opts[$c]-}" | words)" = \
		  "$(long_options "$c" | words)" ] ||
			fail "$c: options '$(echo ${_hellofpga_opts[$c]-})' are not '$(long_options "$c" | tr '\n' ' ')' of '$c --help'"
	done
}

case_completion_completes_commands() {
	load
	complete_words be
	expect_words bench
	complete_words -d emu:0 re
	expect_words read reg
}

case_completion_completes_a_commands_options() {
	load
	complete_words -d emu:0 bench --soa
	expect_words --soak --soak-size
	complete_words test --o
	expect_words --only
	complete_words --d
	expect_words --device
}

case_completion_completes_device_specs() {
	load
	: >"$T/hellofpga0_control"
	: >"$T/hellofpga0_user"
	: >"$T/hellofpga3_control"
	_hellofpga_dev=$T
	complete_words -d ""
	expect_words emu emu:0 emu:1 emu:2 emu:3 "$T/hellofpga0" "$T/hellofpga3"
	complete_words --device emu:
	expect_words emu:0 emu:1 emu:2 emu:3
	complete_words -d emu:0 bench --csv x --soak-s
	expect_words --soak-size
}

case_completion_completes_commands_after_help() {
	load
	complete_words help de
	expect_words demo
}

cases_main completion
