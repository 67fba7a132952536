#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# arch-names.sh SOURCE_DIR [MAP.md] - docs/ARCHITECTURE.md (or MAP.md) names
# every file git tracks under the product's folders (core/ lib/ model/
# driver/ tools/ refdesign/), so that a newcomer finds each one on the map.
# A file counts as named when the page has its base name ("hf_stop.c"), its
# stem with both suffixes ("xdma_link.{c,h}"), its path, or "FOLDER/*" for
# its folder (a folder of many small files of one kind: driver/probes/*).
# Dot files (.gitignore) do not count.  Prints each file that is not
# named; exit 1 if any.  Skips (77) outside a
# git checkout.
set -euo pipefail
src=$1
map=${2:-docs/ARCHITECTURE.md}
cd "$src"
git rev-parse --is-inside-work-tree >/dev/null 2>&1 || { echo "SKIP: not a git checkout"; exit 77; }
[ -f "$map" ] || { echo "FAIL: no $map"; exit 1; }

text=$(cat "$map")
missing=0 n=0
while IFS= read -r f; do
	base=${f##*/} dir=${f%/*} stem=${base%.*}
	[ "${base#.}" = "$base" ] || continue	# .gitignore and the like
	n=$((n + 1))
	case $text in
	*"$base"* | *"$stem.{c,h}"* | *"$f"* | *"$dir/*"*) continue ;;
	esac
	echo "not named in $map: $f"
	missing=$((missing + 1))
done < <(git ls-files core lib model driver tools refdesign)
if [ "$missing" != 0 ]; then
	echo "FAIL: $missing of $n files under core/ lib/ model/ driver/ tools/ refdesign/ not named in $map"
	exit 1
fi
echo "PASS: $map names all $n files under core/ lib/ model/ driver/ tools/ refdesign/"
