#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# deps.sh SOURCE_DIR - no import cycle between the C files of a folder
# (scripts/driver-deps.py): lib/ with lib/emu/ in the layers written in
# lib/hf_layers.h, every folder of tools/ on its own, and driver/.  Skips
# (77) without python3.
set -euo pipefail
src=$1
cd "$src"
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
deps=scripts/driver-deps.py

bad=0
check() {	# check LABEL ARGS...: run the checker, show its verdict
	local label=$1 out rc=0
	shift
	out=$(python3 "$deps" "$@" 2>&1) || rc=$?
	if [ "$rc" != 0 ]; then
		printf '%s\n' "$out" | sed -n '/^$/,$p'
		echo "FAIL $label"
		bad=1
	else
		echo "ok $label: $(printf '%s\n' "$out" | tail -1)"
	fi
}

check lib -r --layers lib/hf_layers.h lib
check driver driver
while IFS= read -r d; do
	check "$d" "$d"
done < <(find tools -name '*.c' -printf '%h\n' | sort -u)
exit "$bad"
