#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# build-packages.sh [OUT] - the Debian packages of the tree (./run package;
# docs/packages.md): hellofpga-dkms, libhellofpga1, libhellofpga-dev,
# hellofpga-tools, python3-hellofpga, with Debian's own tools, then lintian
# on them.
#
# The packages are built from a clean copy of the tree: the files git
# tracks and the untracked ones it does not ignore, as they are in the
# working tree (uncommitted changes included; build outputs, which
# .gitignore names, not), in OUT/src/hellofpga-VERSION,
# with dpkg-buildpackage -us -uc -b and DEB_BUILD_OPTIONS=nocheck (the
# tests run in ./run test) noddebs (no -dbgsym packages).  The .deb files, the .changes and .buildinfo
# land in OUT (default build-package/), the logs in OUT/logs/.
#
# Fails when dpkg-buildpackage fails (also when debian/changelog's version
# is not CMakeLists.txt's project(VERSION): debian/rules checks) or when
# lintian reports an error or a warning; overrides, each with its reason,
# are in debian/*.lintian-overrides.  Progress on stderr; stdout: the .deb
# files, one a line.
#
# Environment: JOBS (default nproc), HF_LINTIAN=0 skips lintian.
set -euo pipefail

repo=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
out=${1:-$repo/build-package}
JOBS=${JOBS:-$(nproc)}

log() { printf '\033[1m--> package [%3ss]: %s\033[0m\n' "$SECONDS" "$*" >&2; }
die() { printf 'build-packages: %s\n' "$*" >&2; exit 1; }

hf_lparen='('
version=$(sed -n "s/^project${hf_lparen}hellofpga VERSION \([0-9][0-9.]*\) .*/\1/p" "$repo/CMakeLists.txt")
[ -n "$version" ] || die "no project(hellofpga VERSION x.y.z ...) line in CMakeLists.txt"
cl=$(dpkg-parsechangelog -l "$repo/debian/changelog" -S Version)
[ "$cl" = "$version" ] ||
	die "debian/changelog's version is $cl, CMakeLists.txt's project(VERSION) is $version: add a changelog entry (dch -v $version)"
git -C "$repo" rev-parse --is-inside-work-tree >/dev/null 2>&1 ||
	die "$repo is not a git checkout: the packages are built from the files git knows"

mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -rf "$out/src" "$out/logs" "$out"/*.deb "$out"/*.changes "$out"/*.buildinfo
mkdir -p "$out/src/hellofpga-$version" "$out/logs"
src=$out/src/hellofpga-$version

log "copying the tree's files into ${src#"$repo"/}"
(cd "$repo" && git ls-files -z -c -o --exclude-standard |
	xargs -0 -r sh -c 'for f; do [ -e "$f" ] || [ -L "$f" ] && printf "%s\0" "$f"; done' sh |
	tar --null -T - -cf -) | tar -xf - -C "$src"

log "dpkg-buildpackage -us -uc -b (log: ${out#"$repo"/}/logs/build.log)"
if ! (cd "$src" && DEB_BUILD_OPTIONS="nocheck noddebs parallel=$JOBS" \
	dpkg-buildpackage -us -uc -b) >"$out/logs/build.log" 2>&1 </dev/null; then
	grep -E -i -e 'error|warning:' "$out/logs/build.log" | tail -n 20 >&2 || true
	echo "    last lines:" >&2
	tail -n 10 "$out/logs/build.log" | sed 's/^/    /' >&2
	die "dpkg-buildpackage failed (log: $out/logs/build.log)"
fi
# dpkg-buildpackage writes beside the source directory
mv "$out"/src/*.deb "$out"/src/*.changes "$out"/src/*.buildinfo "$out"/
changes=$(ls "$out"/hellofpga_"$version"_*.changes)

if [ "${HF_LINTIAN:-1}" != 0 ]; then
	log "lintian"
	rc=0
	lintian --fail-on error,warning --tag-display-limit 0 "$changes" \
		>"$out/logs/lintian.log" 2>&1 || rc=$?
	grep -v "running with root privileges" "$out/logs/lintian.log" | sed "s/^/    /" >&2 || true
	[ "$rc" = 0 ] || die "lintian reports errors or warnings (log: $out/logs/lintian.log)"
fi

ls "$out"/*.deb
