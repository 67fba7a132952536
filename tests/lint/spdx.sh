#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# spdx.sh SOURCE_DIR - every source file git tracks names its licence in an
# SPDX-License-Identifier line near its top, and every licence or exception
# it names has its text in LICENSES/ (a Valid-License-Identifier or
# SPDX-Exception-Identifier line there).  Skips (77) outside a git checkout.
set -euo pipefail
src=$1
cd "$src"
git rev-parse --is-inside-work-tree >/dev/null 2>&1 || { echo "SKIP: not a git checkout"; exit 77; }

declare -A known=()
for f in LICENSES/*; do
	while read -r key id; do
		known[$id]=1
	done < <(grep -E '^(Valid-License-Identifier|SPDX-Exception-Identifier):' "$f")
done
bad=0
# results, data (recorded doctor trees) and prose carry no licence line of
# their own
while IFS= read -r -d '' f; do
	case $f in
	docs/results/* | tests/tools/doctor/fixtures/* | LICENSES/* | \
	*.md | *.json | *.csv | *.svg | *.png | \
	*.gitignore | *.gitattributes | .editorconfig | .clang-format) continue ;;
	# Debian's formats that take no comment line: the changelog (data),
	# the copyright file (it is the licence statement), the source format
	debian/changelog | debian/copyright | debian/source/format) continue ;;
	esac
	[ -f "$f" ] || continue
	line=$(head -n 5 "$f" | grep -m1 'SPDX-License-Identifier:' || true)
	if [ -z "$line" ]; then
		echo "$f: no SPDX-License-Identifier in its first 5 lines"
		bad=1
		continue
	fi
	expr=${line#*SPDX-License-Identifier:}
	expr=${expr%%\*/*}
	for tok in $(echo "$expr" | tr '()' '  '); do
		case $tok in OR | AND | WITH) continue ;; esac
		if [ -z "${known[$tok]:-}" ]; then
			echo "$f: '$tok' has no text in LICENSES/"
			bad=1
		fi
	done
done < <(git ls-files -z)
[ $bad = 0 ] && echo "every tracked source file has an SPDX line with its text in LICENSES/"
exit $bad
