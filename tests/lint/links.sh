#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# links.sh SOURCE_DIR [FILE.md...] - every relative link of the Markdown
# files git tracks (README.md, docs/, the folders' READMEs; or the FILEs
# named) names a file git tracks, or a folder that holds one: [text](path),
# ![alt](path) and "[label]: path" lines, outside fenced code blocks and
# `code spans`.  Addresses with a scheme (https:, mailto:) and links within
# a page (#...) are not checked; a #fragment after a path is dropped.  Skips
# (77) outside a git checkout.
set -euo pipefail
src=$1
shift
cd "$src"
git rev-parse --is-inside-work-tree >/dev/null 2>&1 || { echo "SKIP: not a git checkout"; exit 77; }

declare -A tracked=() dirs=()
while IFS= read -r -d '' f; do
	tracked[$f]=1
	d=$f
	while [ "${d%/*}" != "$d" ]; do
		d=${d%/*}
		dirs[$d]=1
	done
done < <(git ls-files -z)

if [ $# = 0 ]; then
	mapfile -t files < <(git ls-files '*.md')
else
	files=("$@")
fi

# the link targets of one Markdown file, one a line: "LINE TARGET"
targets() {
	awk '
	/^[ \t]*(```|~~~)/ { fence = !fence; next }
	fence { next }
	{
		line = $0
		gsub(/`[^`]*`/, "", line)
		if (match(line, /^[ \t]*\[[^]]+\]:[ \t]+[^ \t]+/)) {
			t = substr(line, RSTART, RLENGTH)
			sub(/^[ \t]*\[[^]]+\]:[ \t]+/, "", t)
			print NR, t
		}
		while (match(line, /\]\([^)]*\)/)) {
			t = substr(line, RSTART + 2, RLENGTH - 3)
			line = substr(line, RSTART + RLENGTH)
			sub(/^[ \t]*</, "", t); sub(/>[ \t]*$/, "", t)
			sub(/[ \t]+".*$/, "", t)
			print NR, t
		}
	}' "$1"
}

bad=0
n=0
for f in "${files[@]}"; do
	base=$(dirname "$f")
	while read -r ln t; do
		case $t in '' | '#'*) continue ;; esac
		[[ $t =~ ^[a-zA-Z][a-zA-Z0-9+.-]*: ]] && continue
		t=${t%%#*}
		p=$(realpath -m -s --relative-to=. "$base/$t")
		n=$((n + 1))
		if [ -z "${tracked[$p]:-}" ] && [ -z "${dirs[$p]:-}" ]; then
			echo "$f:$ln: $t: no such tracked file or folder"
			bad=1
		fi
	done < <(targets "$f")
done
[ $bad = 0 ] && echo "all $n relative links of ${#files[@]} Markdown files resolve"
exit $bad
