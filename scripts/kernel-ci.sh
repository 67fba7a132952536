#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# kernel-ci.sh [STEP...] - build and check the kernel modules the way CI does.
#
# Steps (default: all):
#   deps        apt-get install what is missing: linux-headers-amd64, sparse,
#               gcc-aarch64-linux-gnu, make, perl, xz-utils, python3
#   checkpatch  checkpatch.pl --no-tree --strict on the kernel sources
#   driver-deps scripts/driver-deps.py: no import cycle between driver/*.c
#   amd64       build hellofpga.ko and hellofpga-nvp2p.ko (desktop) with
#               KCFLAGS=-Werror W=1 against Debian 12's amd64 headers (6.1)
#   arm64       cross-build hellofpga.ko, hellofpga-nvp2p.ko TEGRA=1 and
#               desktop, against Debian's arm64 headers from a private apt
#               download (never dpkg multiarch: it removes the native gcc)
#   kernels     the same for the kernels of other Debian suites, amd64 and
#               arm64 (TEGRA=1 only), headers from a private apt state
#               (step_kernel_headers): 5.10 (bullseye, compiled with gcc-12:
#               its headers name gcc-10), 6.12 (bookworm-backports) and 7.2
#               (sid).  7.2's headers need gcc-16 (-fmin-function-alignment,
#               counted_by) and its kbuild host programs glibc 2.38, which
#               Debian 12 lacks: sid's gcc-16 (native and aarch64 cross),
#               binutils, sparse and glibc come from the same private apt
#               state into a root of their own, every program there and in
#               7.2's kbuild run through that root's dynamic loader
#               (step_suite_toolchain); nothing is installed
#   (nv-symvers, after the builds of amd64) driver/nvp2p/nv-symvers.sh
#               reads back each nv-p2p-stub.ko's CRCs as modpost wrote them
#   sparse      the trees again with C=2 CHECK=sparse: 6.1 amd64 and arm64
#               and the newest other kernel (7.2, with sid's sparse), amd64
#               (sparse on every tree would double the time of this script
#               for little: the same sources, and sparse's findings hardly
#               depend on the kernel)
#   arm64-guest linux-image-<abi>-arm64 and busybox-static:arm64 for the arm64
#               guests of tests/guest, from the same private download,
#               unpacked into $HF_CACHE/kernel/<KVER>/arm64-guest (not in
#               the default steps; guest-ci.sh asks for it)
# A step runs the steps it needs first (sparse builds, arm64 fetches headers).
# Every kernel's probes (driver/probes) run in its own build: the
# hf_features.h of two trees differ where the kernels' APIs do.
#
# Each check prints "PASS name" or "FAIL name: reason" (followed by indented
# diagnostics); the last line is "N passed, N failed, 0 skipped"
# (tests/results.sh, the format of every test script).  Exit status 1 when
# anything failed.  Progress goes to stderr, full logs to $HF_KERNEL_OUT/logs.
#
# Environment:
#   HF_CACHE      downloads, kept across runs (default /var/cache/hellofpga as
#                 root, else ${XDG_CACHE_HOME:-~/.cache}/hellofpga)
#   HF_KERNEL_OUT build trees, .ko files and logs (default build-kernel/)
#   HF_KERNEL_SRC_OVERRIDE  a directory laid out like the repository (driver/,
#                 driver/nvp2p/, core/, refdesign/, include/) to check
#                 instead of it
#   NVIDIA_SRC_DIR  NVIDIA kernel sources (holding nvidia/nv-p2p.h); default:
#                 scripts/fetch-nv-p2p.sh "$HF_CACHE/nvidia-open"
#   HF_KERNEL_REFRESH=1  look for newer headers (and sid's toolchain) in the
#                 other suites (cached ones are used as they are otherwise:
#                 a warm run downloads nothing)
#   JOBS          make -j (default nproc)
set -uo pipefail

repo=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
src=${HF_KERNEL_SRC_OVERRIDE:-$repo}
src=$(cd "$src" && pwd) || exit 2
if [ -z "${HF_CACHE:-}" ]; then
	if [ "$(id -u)" = 0 ]; then
		HF_CACHE=/var/cache/hellofpga
	else
		HF_CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/hellofpga
	fi
fi
out=${HF_KERNEL_OUT:-$repo/build-kernel}
JOBS=${JOBS:-$(nproc)}
CROSS=aarch64-linux-gnu-
mkdir -p "$HF_CACHE" "$out/logs" || exit 2
out=$(cd "$out" && pwd)
rm -f "$out"/logs/*.log

sudo=()
[ "$(id -u)" = 0 ] || sudo=(sudo)

log() { printf '\033[1m--> kernel [%3ss]: %s\033[0m\n' "$SECONDS" "$*" >&2; }

# shellcheck source=../tests/results.sh
. "$repo/tests/results.sh"
pass() { hf_result PASS "$1"; }
fail() {	# fail NAME REASON [LOGFILE]: diagnostics come from LOGFILE
	hf_result FAIL "$1" "$(printf '%s' "$2" | sed "s|$out/[^/]*/||g")"
	[ -n "${3:-}" ] && [ -s "$3" ] || return 0
	diagnostics "$3" | head -n 15 | sed "s|$out/[^/]*/||g; s/^/    /"
	if ! diagnostics "$3" | grep -q -i -E '(warning|error):'; then
		echo "    last lines:"
		grep -v -E -e '^make(\[[0-9]+\])?: (Entering|Leaving)' -e '\*\*\*' \
			-e '^  [A-Z]+ +(\[M\] +)?/' "$3" | tail -n 5 |
			sed 's/^/    /'
	fi
	echo "    (log: $3)"
}

# Lines of a build log that are diagnostics: compiler, modpost, sparse,
# make errors.  Anything here fails a check.
diagnostics() {
	grep -E -i -e '(^|[^[:alnum:]_])(warning|error|sparse):' \
		-e '^[^ :]+:[0-9]+:([0-9]+:)? ' -e '\*\*\*' "$1" |
		grep -v -e '^Skipping BTF generation'
}

# make_log LOG DIR ARGS...: make in DIR (through its Makefile, or kbuild
# directly for a Kbuild-only directory), appending to LOG; make's status.
# KPATH, when set, goes first in make's PATH (a suite's own toolchain).
KPATH=
make_log() {
	local logf=$1 dir=$2 a kdir='' rc=0
	shift 2
	local cmd
	if [ -f "$dir/Makefile" ]; then
		cmd=(make -C "$dir" -j "$JOBS" "$@")
	else
		for a in "$@"; do
			case $a in KDIR=*) kdir=${a#KDIR=} ;; esac
		done
		cmd=(make -C "$kdir" M="$dir" -j "$JOBS" "$@" modules)
	fi
	[ -n "$KPATH" ] && cmd=(env "PATH=$KPATH:$PATH" "${cmd[@]}")
	printf '$ %s\n' "${cmd[*]}" >>"$logf"
	timeout 900 "${cmd[@]}" >>"$logf" 2>&1 || rc=$?
	return "$rc"
}

# report NAME LOG RC: PASS when RC is 0 and LOG has no diagnostic.
report() {
	local name=$1 logf=$2 rc=$3 first n
	first=$(diagnostics "$logf" | head -n 1)
	if [ "$rc" = 0 ] && [ -z "$first" ]; then
		pass "$name"
		return 0
	elif [ -n "$first" ]; then
		n=$(diagnostics "$logf" | wc -l)
		fail "$name" "$n diagnostic line(s), rc=$rc: ${first:0:160}" "$logf"
	else
		fail "$name" "make exited $rc" "$logf"
	fi
	return 1
}

run_make() {	# run_make NAME LOG DIR ARGS...
	local name=$1 logf=$2 rc=0
	shift 2
	: >"$logf"
	make_log "$logf" "$@" || rc=$?
	report "$name" "$logf" "$rc"
}

# A fresh copy of the sources to build in (the repository stays clean, and
# the driver's relative includes of ../core, ../refdesign and ../include
# keep working), without the outputs of an in-place build.
kbuild_outputs='(^|/)(Module\.symvers|modules\.order|\.[^/]*\.cmd|\.[^/]*\.d|\.tmp_[^/]*)$|\.(o|ko|mod|mod\.c|a)$'
publish_root() {	# publish_root TMP ROOT [JUNK...]: TMP becomes ROOT, complete
	local tmp=$1 root=$2
	shift 2
	rm -rf "$root" "$@" && mv "$tmp" "$root" && touch "$root/.complete"
}

copy_tree() {	# copy_tree DEST
	rm -rf "$1" && mkdir -p "$1" || return 1
	if git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1 &&
		[ "$(git -C "$src" rev-parse --show-toplevel)" = "$src" ]; then
		(cd "$src" && git ls-files -z -c -o --exclude-standard |
			grep -z -v -E "$kbuild_outputs" |
			xargs -0 -r sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh |
			tar --null -T - -cf -) | tar -xf - -C "$1"
	else
		(cd "$src" && find . -path './build*' -prune -o -type f -print0 |
			grep -z -v -E "$kbuild_outputs" |
			tar --null -T - -cf -) | tar -xf - -C "$1"
	fi
}

# ---------------------------------------------------------------- deps --

KVER='' HVER=''
step_deps() {
	log "deps"
	local missing=() p
	for p in linux-headers-amd64 sparse gcc-aarch64-linux-gnu make perl kmod \
		xz-utils python3; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q 'install ok installed' || missing+=("$p")
	done
	if ((${#missing[@]})); then
		log "installing ${missing[*]}"
		if ! { "${sudo[@]}" apt-get update -qq &&
			DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install \
				-y -qq --no-install-recommends "${missing[@]}"; } \
			>"$out/logs/deps.log" 2>&1; then
			fail deps "apt-get install ${missing[*]} failed" "$out/logs/deps.log"
			return 1
		fi
	fi
	# The kernel the headers meta-package points at, not uname -r (CI runs
	# on another kernel).
	KVER=$(dpkg-query -W -f='${Depends}' linux-headers-amd64 |
		grep -o 'linux-headers-[^ ,]*-amd64' | head -n 1)
	KVER=${KVER#linux-headers-}
	HVER=$(dpkg-query -W -f='${Version}' "linux-headers-$KVER" 2>/dev/null)
	if [ -z "$KVER" ] || [ -z "$HVER" ] ||
		[ ! -f "/usr/src/linux-headers-$KVER/Makefile" ]; then
		fail deps "no installed linux-headers-<ver>-amd64 behind linux-headers-amd64"
		return 1
	fi
	log "KVER=$KVER ($HVER)"
	pass deps
}

# ------------------------------------------------- private apt (arm64) --
# Its own lists, an empty dpkg status and only Debian's sources: nothing of
# the system's apt or dpkg state changes, and no :arm64 package is
# installed.  Also used for the arch:all linux-source package.

apt_dir=$HF_CACHE/apt-arm64
apt_opts=(-o APT::Architecture=arm64 -o APT::Architectures::=arm64
	-o Dir::State::Lists="$apt_dir/lists" -o Dir::State::status="$apt_dir/status"
	-o Dir::Cache="$apt_dir/cache" -o Dir::Cache::pkgcache=
	-o Dir::Cache::srcpkgcache= -o Dir::Etc::SourceList="$apt_dir/sources.list"
	-o Dir::Etc::SourceParts="$apt_dir/sources.list.d"
	-o APT::Sandbox::User=root -o Debug::NoLocking=1)
apt_updated=
private_apt_update() {
	[ -n "$apt_updated" ] && return 0
	mkdir -p "$apt_dir"/{lists/partial,cache/archives/partial,sources.list.d} || return 1
	: >"$apt_dir/status"
	: >"$apt_dir/sources.list"
	rm -f "$apt_dir"/sources.list.d/*
	# Debian's own sources only (not third-party repositories, nor the
	# temporary non-free file of fetch-nv-p2p.sh).
	if [ -f /etc/apt/sources.list.d/debian.sources ]; then
		cp /etc/apt/sources.list.d/debian.sources "$apt_dir/sources.list.d/"
	fi
	if [ -f /etc/apt/sources.list ]; then
		grep -E '^deb .*(debian|security)' /etc/apt/sources.list \
			>"$apt_dir/sources.list" || true
	fi
	if [ ! -s "$apt_dir/sources.list" ] &&
		[ -z "$(ls "$apt_dir/sources.list.d")" ]; then
		echo "no Debian apt sources found in /etc/apt" >&2
		return 1
	fi
	apt-get "${apt_opts[@]}" -qq update && apt_updated=1
}

# private_download DIR PKG[=VER]...: .debs into DIR
private_download() {
	local dir=$1
	shift
	mkdir -p "$dir" && (cd "$dir" && apt-get "${apt_opts[@]}" -qq download "$@")
}

# ------------------------------------------------------ arm64 headers --

ARM_KDIR=
step_arm64_headers() {
	local abi=${KVER%-amd64} root base logf=$out/logs/arm64-headers.log
	base=$HF_CACHE/kernel/$KVER
	root=$base/arm64
	ARM_KDIR=$root/usr/src/linux-headers-$abi-arm64
	if [ -f "$root/.complete" ]; then
		log "arm64 headers: cached in $root"
		pass arm64-headers
		return 0
	fi
	log "arm64 headers: private apt download of linux-headers-$abi-arm64"
	if ! (
		set -e
		exec 9>"$HF_CACHE/.lock"
		flock 9
		[ -f "$root/.complete" ] && exit 0
		private_apt_update
		tmp=$base/arm64.tmp
		rm -rf "$tmp" "$base/debs"
		# The version of the installed amd64 headers: then their arch:all
		# linux-headers-<abi>-common, which the arm64 Makefile includes
		# from /usr/src, is the right one.
		if private_download "$base/debs" "linux-headers-$abi-arm64=$HVER"; then
			common=host
		else
			echo "linux-headers-$abi-arm64=$HVER not in the archive; taking the candidate with its own -common"
			rm -rf "$base/debs"
			private_download "$base/debs" "linux-headers-$abi-arm64" \
				"linux-headers-$abi-common"
			common=private
		fi
		for d in "$base"/debs/*.deb; do dpkg-deb -x "$d" "$tmp"; done
		kd=$tmp/usr/src/linux-headers-$abi-arm64
		[ -f "$kd/Makefile" ]
		if [ "$common" = private ]; then
			sed -i "s|^include /usr/src/|include $root/usr/src/|" "$kd/Makefile"
		fi
		# scripts -> ../../lib/linux-kbuild-X/scripts: the host's kbuild
		# (Multi-Arch: foreign host tools, same version).
		kb=$(readlink "$kd/scripts")
		kb=${kb#../../lib/}
		kb=${kb%/scripts}
		[ -d "/usr/lib/$kb" ] || { echo "/usr/lib/$kb missing"; exit 1; }
		mkdir -p "$tmp/usr/lib"
		ln -sfn "/usr/lib/$kb" "$tmp/usr/lib/$kb"
		publish_root "$tmp" "$root" "$base/debs"
	) >"$logf" 2>&1; then
		fail arm64-headers "private apt download/unpack of linux-headers-$abi-arm64 failed" "$logf"
		return 1
	fi
	pass arm64-headers
}

# ----------------------------------------- other kernels (private apt) --
# One more Debian kernel per suite (SUITES), amd64 and arm64 headers in one
# private root each, from a private apt state like the arm64 one above but
# with its own sources.list (these suites only, signed by the Debian
# archive keyring) and both architectures.  Cached: a root, once complete,
# is used as is (no apt-get update; HF_KERNEL_REFRESH=1 looks for newer).
#   bullseye            5.10: its last point release (bullseye-security's
#                       arm64 headers are missing on the mirror at times)
#   bookworm-backports  6.12, built with bookworm's gcc-12 and glibc, so
#                       its linux-kbuild host programs run here (trixie's
#                       need glibc 2.38)
#   sid                 7.2: compiled with sid's own gcc-16 and binutils,
#                       and its kbuild host programs run on sid's glibc,
#                       all from a private root (step_suite_toolchain)
SUITES=(bullseye bookworm-backports sid)
# The suites whose compiler and glibc are newer than Debian 12's: their
# toolchain comes from the suite too.
declare -A SUITE_TOOLCHAIN=([sid]=1)
deb_apt_dir=$HF_CACHE/apt-debian
deb_apt_opts=(-o APT::Architecture=amd64 -o APT::Architectures::=amd64
	-o APT::Architectures::=arm64
	-o Dir::State::Lists="$deb_apt_dir/lists" -o Dir::State::status="$deb_apt_dir/status"
	-o Dir::Cache="$deb_apt_dir/cache" -o Dir::Cache::pkgcache=
	-o Dir::Cache::srcpkgcache= -o Dir::Etc::SourceList="$deb_apt_dir/sources.list"
	-o Dir::Etc::SourceParts="$deb_apt_dir/sources.list.d"
	-o APT::Sandbox::User=root -o Debug::NoLocking=1)
deb_apt_updated=
deb_apt_update() {
	local s key=/usr/share/keyrings/debian-archive-keyring.gpg
	[ -n "$deb_apt_updated" ] && return 0
	mkdir -p "$deb_apt_dir"/{lists/partial,cache/archives/partial,sources.list.d} || return 1
	: >"$deb_apt_dir/status"
	for s in "${SUITES[@]}"; do
		echo "deb [signed-by=$key] http://deb.debian.org/debian $s main"
	done >"$deb_apt_dir/sources.list"
	apt-get "${deb_apt_opts[@]}" -qq update && deb_apt_updated=1
}

declare -A KDIR_OF=() KCC_OF=()	# [KERNEL:ARCH] build tree, [KERNEL] CC
declare -A KPATH_OF=()		# [KERNEL] PATH prefix of its builds
KERNELS=()			# the labels (5.10, ...) in order

# wrap_elfs LIBROOT FINAL TMP DIR...: every dynamically linked executable
# under TMP/DIR (DIRs relative to TMP) becomes a shell script that runs it
# through LIBROOT's dynamic loader and libraries (a glibc newer than the
# host's); the ELF moves to .hf-elf/ beside it.  The scripts name FINAL, the
# path TMP is moved to.  --argv0 keeps the program's own path in argv[0]:
# gcc finds cc1 and as from it, Debian's modpost and objtool their
# .real-<arch> binaries.
wrap_elfs() {
	local lroot=$1 final=$2 tmp=$3 rel d n files=()
	local lib=$lroot/usr/lib/x86_64-linux-gnu
	shift 3
	mapfile -d '' files < <(cd "$tmp" &&
		find "$@" -type f -perm -u+x ! -path '*/.hf-elf/*' -print0) || return 1
	for rel in "${files[@]}"; do
		LC_ALL=C readelf -l "$tmp/$rel" 2>/dev/null |
			grep -q 'program interpreter' || continue
		d=${rel%/*} n=${rel##*/}
		mkdir -p "$tmp/$d/.hf-elf" &&
			mv "$tmp/$rel" "$tmp/$d/.hf-elf/$n" || return 1
		printf '#!/bin/sh\nexec %q --library-path %q --argv0 %q %q "$@"\n' \
			"$lroot/usr/lib64/ld-linux-x86-64.so.2" "$lib:$lroot/lib/x86_64-linux-gnu" \
			"$final/$rel" "$final/$d/.hf-elf/$n" >"$tmp/$rel" &&
			chmod 755 "$tmp/$rel" || return 1
	done
}
# checker_valid ROOT ABI KBUILD: the Makefile of 6.13 and later runs
# scripts/checker-valid.sh CHECK CHECKFLAGS and turns C=2 off (with a
# warning) unless it prints 1; Debian's linux-kbuild (7.2's) does not ship
# it.  Then one of ours: 1 when CHECK parses __typeof_unqual__, which those
# headers give a checker unconditionally.
checker_valid() {
	local f=$1/usr/lib/$3/scripts/checker-valid.sh
	grep -q 'scripts/checker-valid\.sh' "$1/usr/src/linux-headers-$2-common/Makefile" ||
		return 0
	[ -e "$f" ] && return 0
	cat >"$f" <<'EOF'
#!/bin/sh
# checker-valid.sh CHECK [CHECKFLAGS...]: prints 1 when CHECK can check this
# kernel's sources.  Written by hellofpga's scripts/kernel-ci.sh: Debian's
# linux-kbuild lacks the kernel's own.
command -v "$1" >/dev/null 2>&1 || { echo 0; exit 0; }
t=$(mktemp) || exit 1
trap 'rm -f "$t"' EXIT
printf 'int f(const int *p) { __typeof_unqual__(*p) v = *p; return v; }\n' >"$t"
if "$@" "$t" 2>&1 | grep -q -i error; then echo 0; else echo 1; fi
EOF
	chmod 755 "$f"
}

# step_suite_toolchain SUITE GCC KBUILD: SUITE's GCC (gcc-16 for sid), native
# and the aarch64 cross compiler, its binutils for both and the libraries
# these and the KBUILD package's host programs need (glibc above all), in
# $HF_CACHE/kernel/SUITE-toolchain/root: the dependency closure apt computes
# against the empty dpkg status, less the runtime libraries nothing here
# runs (sanitizers, OpenMP, the arm64 libc, perl for sparse's cgcc),
# unpacked with dpkg-deb -x.  sparse is the suite's too: its headers need a
# sparse that knows __typeof_unqual__ (Debian 12's 0.6.4 does not).  Its
# executables are loader wrappers (wrap_elfs), gcc finds its assembler in
# usr/x86_64-linux-gnu/bin, and root/hf-bin holds the x86_64-linux-gnu- and
# aarch64-linux-gnu- tools, sparse and pahole (kbuild warns when its
# version is not the kernel's), first in PATH of that kernel's builds.
# Cached like the headers; fetched again when the headers name another GCC.
toolchain_skip='^lib(asan|lsan|tsan|hwasan|ubsan|gomp|itm|quadmath|atomic|gprofng)[0-9]'
toolchain_skip+='|^lib(c6|stdc\+\+6|gcc-s1)-arm64-cross=|^libc-gconv-modules-extra='
toolchain_skip+='|^perl|^libperl|^libdb5|^libgdbm|^libcrypt1='
step_suite_toolchain() {
	local suite=$1 gcc=$2 kb=$3 base root logf
	kb=${kb#../../lib/}
	kb=${kb%/scripts}
	base=$HF_CACHE/kernel/$suite-toolchain
	root=$base/root
	logf=$out/logs/toolchain-$suite.log
	if [ -z "$gcc" ]; then
		fail "toolchain-$suite" "the $suite headers' .kernelvariables name no gcc-N"
		return 1
	fi
	if [ -f "$root/.complete" ] && [ "$(cat "$root/GCC")" = "$gcc" ] &&
		[ -z "${HF_KERNEL_REFRESH:-}" ]; then
		log "$suite toolchain: cached in $root"
		pass "toolchain-$suite"
		return 0
	fi
	log "$suite toolchain: private apt download of $gcc, binutils, glibc"
	if ! (
		set -e
		exec 9>"$HF_CACHE/.lock"
		flock 9
		if [ -f "$root/.complete" ] && [ "$(cat "$root/GCC")" = "$gcc" ] &&
			[ -z "${HF_KERNEL_REFRESH:-}" ]; then
			exit 0
		fi
		deb_apt_update
		pkgs=$(apt-get "${deb_apt_opts[@]}" -t "$suite" -s \
			--no-install-recommends install "$gcc" "$gcc-aarch64-linux-gnu" \
			binutils-x86-64-linux-gnu binutils-aarch64-linux-gnu sparse "$kb" |
			sed -n 's/^Inst \([^ ]*\) (\([^ ]*\) .*/\1=\2/p' |
			grep -v -E -e "$toolchain_skip" | grep -v -F "$kb=" | sort)
		[ -n "$pkgs" ]
		echo "$pkgs"
		if [ -f "$root/.complete" ] && [ "$(cat "$root/GCC")" = "$gcc" ] &&
			[ "$(cat "$root/PACKAGES")" = "$pkgs" ]; then
			exit 0
		fi
		dl=$base/debs tmp=$base/root.tmp
		rm -rf "$dl" "$tmp"
		mkdir -p "$dl"
		# shellcheck disable=SC2086 # one name=version a word
		(cd "$dl" && apt-get "${deb_apt_opts[@]}" -qq download $pkgs)
		for d in "$dl"/*.deb; do dpkg-deb -x "$d" "$tmp"; done
		[ -e "$tmp/usr/lib64/ld-linux-x86-64.so.2" ]
		wrap_elfs "$root" "$root" "$tmp" usr/bin usr/libexec \
			usr/aarch64-linux-gnu/bin
		mkdir -p "$tmp/usr/x86_64-linux-gnu/bin" "$tmp/hf-bin"
		for t in as ld; do
			ln -s "../../bin/x86_64-linux-gnu-$t" "$tmp/usr/x86_64-linux-gnu/bin/$t"
		done
		for t in "$tmp"/usr/bin/x86_64-linux-gnu-* "$tmp"/usr/bin/aarch64-linux-gnu-* \
			"$tmp/usr/bin/pahole" "$tmp/usr/bin/sparse"; do
			ln -s "../usr/bin/${t##*/}" "$tmp/hf-bin/${t##*/}"
		done
		echo "$gcc" >"$tmp/GCC"
		echo "$pkgs" >"$tmp/PACKAGES"
		rm -rf "$root" "$dl"
		mv "$tmp" "$root"
		for t in x86_64 aarch64; do
			"$root/hf-bin/$t-linux-gnu-$gcc" --version | head -n 1
			echo 'int f(void) { return 0; }' |
				"$root/hf-bin/$t-linux-gnu-$gcc" -x c -c -o /dev/null -
		done
		touch "$root/.complete"
	) >"$logf" 2>&1; then
		fail "toolchain-$suite" "private apt download/unpack of $suite's $gcc failed" "$logf"
		return 1
	fi
	log "$suite toolchain: $root ($(grep -c . "$root/PACKAGES") packages)"
	pass "toolchain-$suite"
}

# step_kernel_headers SUITE: linux-headers-<abi>-{amd64,arm64}, their
# -common and linux-kbuild, extracted into $HF_CACHE/kernel/SUITE.
step_kernel_headers() {
	local suite=$1 base root abi label logf name tcroot
	base=$HF_CACHE/kernel/$suite
	root=$base/root
	tcroot=$HF_CACHE/kernel/$suite-toolchain/root
	logf=$out/logs/headers-$suite.log
	if [ ! -f "$root/.complete" ] || [ -n "${HF_KERNEL_REFRESH:-}" ]; then
		log "$suite headers: private apt download"
		if ! (
			set -e
			exec 9>"$HF_CACHE/.lock"
			flock 9
			if [ -f "$root/.complete" ] && [ -z "${HF_KERNEL_REFRESH:-}" ]; then
				exit 0
			fi
			deb_apt_update
			a=(apt-cache "${deb_apt_opts[@]}")
			abi=$("${a[@]}" show "linux-headers-amd64/$suite" |
				sed -n 's/^Depends:.*linux-headers-\([^ ,]*\)-amd64 .*/\1/p' |
				head -n 1)
			ver=$("${a[@]}" show "linux-headers-amd64/$suite" |
				sed -n 's/^Version: //p' | head -n 1)
			[ -n "$abi" ] && [ -n "$ver" ]
			echo "$suite: $abi ($ver)"
			if [ -f "$root/.complete" ] && [ "$(cat "$root/ABI")" = "$abi $ver" ]; then
				exit 0
			fi
			kb=$("${a[@]}" show "linux-headers-$abi-amd64=$ver" |
				sed -n 's/^Depends:.*\(linux-kbuild-[^ ,]*\).*/\1/p' |
				head -n 1)
			[ -n "$kb" ]
			dl=$base/debs tmp=$base/root.tmp
			rm -rf "$dl" "$tmp"
			mkdir -p "$dl"
			(cd "$dl" && apt-get "${deb_apt_opts[@]}" -qq download \
				"linux-headers-$abi-amd64=$ver" \
				"linux-headers-$abi-arm64:arm64=$ver" \
				"linux-headers-$abi-common=$ver" "$kb/$suite")
			for d in "$dl"/*.deb; do dpkg-deb -x "$d" "$tmp"; done
			if [ -n "${SUITE_TOOLCHAIN[$suite]:-}" ]; then
				# host programs on the suite's glibc
				wrap_elfs "$tcroot" "$root" "$tmp" "usr/lib/$kb"
			fi
			checker_valid "$tmp" "$abi" "$kb"
			for d in amd64 arm64; do
				kd=$tmp/usr/src/linux-headers-$abi-$d
				[ -f "$kd/Makefile" ]
				sed -i "s|/usr/src/|$root/usr/src/|g" "$kd/Makefile"
				# BTF of the module needs pahole of the kernel's
				# version; kbuild skips it without vmlinux.
				rm -f "$kd/vmlinux"
			done
			echo "$abi $ver" >"$tmp/ABI"
			publish_root "$tmp" "$root" "$dl"
		) >"$logf" 2>&1; then
			fail "headers-$suite" "private apt download/unpack failed" "$logf"
			return 1
		fi
	fi
	read -r abi _ <"$root/ABI"
	label=$(echo "$abi" | cut -d. -f1-2)
	label=${label%%-*}
	KERNELS+=("$label")
	KDIR_OF[$label:amd64]=$root/usr/src/linux-headers-$abi-amd64
	KDIR_OF[$label:arm64]=$root/usr/src/linux-headers-$abi-arm64
	# The compiler the headers name (gcc-10 for 5.10) is not Debian 12's:
	# then gcc-12, or the suite's own (SUITE_TOOLCHAIN).
	name=$(sed -n 's/^CC = .*(CROSS_COMPILE)\(gcc-[0-9]*\).*/\1/p' \
		"${KDIR_OF[$label:amd64]}/.kernelvariables" 2>/dev/null)
	KCC_OF[$label]=
	KPATH_OF[$label]=
	if [ -n "${SUITE_TOOLCHAIN[$suite]:-}" ]; then
		step_suite_toolchain "$suite" "$name" \
			"$(readlink "${KDIR_OF[$label:amd64]}/scripts")" || return 1
		KPATH_OF[$label]=$tcroot/hf-bin
	elif [ -n "$name" ] && ! command -v "$name" >/dev/null; then
		KCC_OF[$label]='gcc-12'
		log "$label: the headers name $name; building with gcc-12"
	fi
	log "$label headers: $root ($(cat "$root/ABI"))"
	pass "headers-$label"
}

# ---------------------------------------------- arm64 guest (image) --
# For the arm64 guests of tests/guest (guest-ci.sh): Debian's
# linux-image-<abi>-arm64 of the headers' version (the kernel the arm64
# modules are built against) and busybox-static:arm64, from the same private
# apt download, unpacked with dpkg-deb -x into
# $HF_CACHE/kernel/$KVER/arm64-guest (never installed).

step_arm64_guest() {
	local abi=${KVER%-amd64} base root logf=$out/logs/arm64-guest.log
	base=$HF_CACHE/kernel/$KVER
	root=$base/arm64-guest
	if [ -f "$root/.complete" ]; then
		log "arm64 guest image: cached in $root"
		pass arm64-guest
		return 0
	fi
	log "arm64 guest image: private apt download of linux-image-$abi-arm64, busybox-static"
	if ! (
		set -e
		exec 9>"$HF_CACHE/.lock"
		flock 9
		[ -f "$root/.complete" ] && exit 0
		private_apt_update
		tmp=$root.tmp dl=$base/guest-debs
		rm -rf "$tmp" "$dl"
		private_download "$dl" "linux-image-$abi-arm64=$HVER" ||
			private_download "$dl" "linux-image-$abi-arm64"
		private_download "$dl" busybox-static
		for d in "$dl"/*.deb; do dpkg-deb -x "$d" "$tmp"; done
		[ -f "$tmp/boot/vmlinuz-$abi-arm64" ] && [ -x "$tmp/bin/busybox" ]
		(cd "$dl" && ls -- *.deb) >"$tmp/DEBS"
		publish_root "$tmp" "$root" "$dl"
	) >"$logf" 2>&1; then
		fail arm64-guest "private apt download/unpack of linux-image-$abi-arm64 or busybox-static failed" "$logf"
		return 1
	fi
	pass arm64-guest
}

# ------------------------------------- guest kernel of a suite (image) --
# step_guest_image SUITE: for the guests of tests/guest that boot another
# kernel (configs.sh CFG_KERNEL): Debian's linux-image-<abi>-amd64 of the
# version of SUITE's headers (step_kernel_headers, so the modules built
# against them load), from the same private apt state, unpacked with
# dpkg-deb -x into $HF_CACHE/kernel/SUITE/guest-amd64 (never installed).
# Only what a guest uses is kept: boot/ and, of lib/modules, the
# modules.* files and drivers/gpu/drm (vgem and what it depends on).  The
# package lists of the headers' download are tried first, so a warm cache
# updates nothing.  Not in the default steps; guest-ci.sh asks for it as
# "guest-image-SUITE".
step_guest_image() {
	local suite=$1 base root abi ver logf
	base=$HF_CACHE/kernel/$suite
	root=$base/guest-amd64
	logf=$out/logs/guest-image-$suite.log
	step_kernel_headers "$suite" || return 1
	read -r abi ver <"$base/root/ABI"
	if [ -f "$root/.complete" ] && [ "$(cat "$root/ABI")" = "$abi $ver" ]; then
		log "$suite guest image: cached in $root"
		pass "guest-image-$suite"
		return 0
	fi
	log "$suite guest image: private apt download of linux-image-$abi-amd64=$ver"
	if ! (
		set -e
		exec 9>"$HF_CACHE/.lock"
		flock 9
		[ -f "$root/.complete" ] && [ "$(cat "$root/ABI")" = "$abi $ver" ] && exit 0
		tmp=$root.tmp dl=$base/guest-debs
		rm -rf "$tmp" "$dl"
		mkdir -p "$dl"
		get() { (cd "$dl" && apt-get "${deb_apt_opts[@]}" -qq download \
			"linux-image-$abi-amd64=$ver"); }
		get || { deb_apt_update && get; }
		for d in "$dl"/*.deb; do dpkg-deb -x "$d" "$tmp"; done
		m=$tmp/lib/modules/$abi-amd64
		test -f "$tmp/boot/vmlinuz-$abi-amd64"
		test -d "$m/kernel/drivers/gpu/drm"
		find "$m/kernel" -mindepth 1 -maxdepth 1 ! -name drivers -exec rm -rf {} +
		find "$m/kernel/drivers" -mindepth 1 -maxdepth 1 ! -name gpu -exec rm -rf {} +
		(cd "$dl" && ls -- *.deb) >"$tmp/DEBS"
		echo "$abi $ver" >"$tmp/ABI"
		publish_root "$tmp" "$root" "$dl"
	) >"$logf" 2>&1; then
		fail "guest-image-$suite" "private apt download/unpack of linux-image-$abi-amd64=$ver failed" "$logf"
		return 1
	fi
	pass "guest-image-$suite"
}

# --------------------------------------------------------- checkpatch --

CHECKPATCH=
get_checkpatch() {
	local dir=$HF_CACHE/checkpatch/$HVER
	CHECKPATCH=$dir/checkpatch.pl
	[ -f "$dir/.complete" ] && return 0
	log "checkpatch: downloading linux-source (Debian's, ~140 MB, once)"
	(
		set -e
		exec 9>"$HF_CACHE/.lock"
		flock 9
		[ -f "$dir/.complete" ] && exit 0
		private_apt_update
		dl=$HF_CACHE/checkpatch/dl
		rm -rf "$dl" "$dir.tmp"
		# The source package that made the headers; if the archive has
		# moved on, its current one.
		pkg=linux-source-${KVER%%.*}.$(echo "$KVER" | cut -d. -f2)
		private_download "$dl" "$pkg=$HVER" ||
			private_download "$dl" "$pkg"
		mkdir -p "$dir.tmp"
		deb=$(ls "$dl"/*.deb)
		dpkg-deb --fsys-tarfile "$deb" |
			tar -xO --wildcards './usr/src/linux-source-*.tar.xz' |
			tar -xJ -C "$dir.tmp" --strip-components=2 --wildcards \
				'*/scripts/checkpatch.pl' '*/scripts/spelling.txt' \
				'*/scripts/const_structs.checkpatch'
		basename "$deb" >"$dir.tmp/SOURCE"
		rm -rf "$dir" "$dl"
		mv "$dir.tmp" "$dir"
		touch "$dir/.complete"
	)
}

step_checkpatch() {
	local logf=$out/logs/checkpatch.log files=() f why n first
	log "checkpatch --strict"
	if ! get_checkpatch >"$out/logs/checkpatch-fetch.log" 2>&1; then
		fail checkpatch "could not get checkpatch.pl from linux-source" \
			"$out/logs/checkpatch-fetch.log"
		return 1
	fi
	: >"$logf"
	if [ ! -d "$src/driver" ]; then
		fail checkpatch "no driver/ in $src"
		return 1
	fi
	# A third-party declaration header may opt out with a line
	# "checkpatch-exclude: <why>" in its first 40 lines.
	while IFS= read -r -d '' f; do
		f=${f#./}
		why=$(head -n 40 "$src/$f" | sed -n 's/.*checkpatch-exclude: *\(..*\)/\1/p' |
			sed 's| *\*/ *$||' | head -n 1)
		if [ -n "$why" ]; then
			echo "excluded $f: $why" >>"$logf"
			log "checkpatch: excluded $f: $why"
			continue
		fi
		files+=("$f")
	done < <(cd "$src" && {
		find driver core -maxdepth 1 \( -name '*.c' -o -name '*.h' \) -print0
		find driver -mindepth 2 \( -name '*.c' -o -name '*.h' \) -print0
		for f in core/os/hf_os_kernel.h refdesign/hf_user_regs.h \
			refdesign/hf_stream_pattern.h include/uapi/*.h; do
			[ -f "$f" ] && printf '%s\0' "$f"
		done
	} 2>/dev/null | grep -z -v -E "$kbuild_outputs" | sort -z -u)
	if [ ${#files[@]} = 0 ]; then
		fail checkpatch "no .c or .h files under driver/ or core/"
		return 1
	fi
	(cd "$src" && perl "$CHECKPATCH" --no-tree --strict --terse --show-types \
		--no-summary -f "${files[@]}" </dev/null) >>"$logf" 2>&1
	n=$(grep -c -E ': (ERROR|WARNING|CHECK):' "$logf")
	first=$(grep -m 1 -E ': (ERROR|WARNING|CHECK):' "$logf")
	if [ "$n" = 0 ] && ! grep -q -v -e '^excluded ' "$logf"; then
		pass checkpatch
	else
		[ "$n" = 0 ] && first=$(grep -m 1 -v -e '^excluded ' "$logf")
		fail checkpatch "$n issue(s) in ${#files[@]} files: ${first:0:160}"
		grep -v -e '^excluded ' "$logf" | head -n 15 | sed 's/^/    /'
		echo "    (log: $logf)"
		return 1
	fi
}

# -------------------------------------------------------- driver-deps --

# The layering of hellofpga.ko's files (driver/hf_drv.h): no file calls
# into one that calls back into it, directly or around a circle.
step_driver_deps() {
	local logf=$out/logs/driver-deps.log script rc=0 last
	log "driver-deps"
	script=$src/scripts/driver-deps.py
	[ -f "$script" ] || script=$repo/scripts/driver-deps.py
	if [ ! -d "$src/driver" ]; then
		fail driver-deps "no driver/ in $src"
		return 1
	fi
	python3 "$script" "$src/driver" >"$logf" 2>&1 </dev/null || rc=$?
	if [ "$rc" = 0 ]; then
		pass driver-deps
		return 0
	fi
	last=$(tail -n 1 "$logf")
	last=${last#driver-deps: }
	if [ "$rc" = 1 ]; then
		fail driver-deps "$last"
		sed -n '/^files importing each other/,$p' "$logf" | head -n 15 |
			sed 's/^/    /'
	else
		fail driver-deps "scripts/driver-deps.py exited $rc: $last"
	fi
	echo "    (log: $logf)"
	return 1
}

# -------------------------------------------------------------- builds --

NV_SRC=
nvidia_src() {	# sets NV_SRC; the desktop flavour's NVIDIA_SRC_DIR
	[ -n "$NV_SRC" ] && return 0
	if [ -n "${NVIDIA_SRC_DIR:-}" ]; then
		NV_SRC=$NVIDIA_SRC_DIR
		return 0
	fi
	local fetch=$src/scripts/fetch-nv-p2p.sh
	[ -f "$fetch" ] || fetch=$repo/scripts/fetch-nv-p2p.sh
	[ -f "$fetch" ] || { echo "no scripts/fetch-nv-p2p.sh"; return 1; }
	NV_SRC=$(exec 9>"$HF_CACHE/.lock.nv"; flock 9;
		bash "$fetch" "$HF_CACHE/nvidia-open" | tail -n 1) || return 1
	[ -f "$NV_SRC/nvidia/nv-p2p.h" ] || {
		echo "fetch-nv-p2p.sh printed '$NV_SRC', which has no nvidia/nv-p2p.h"
		NV_SRC=
		return 1
	}
}

# kargs ARCH KDIR: the make arguments of a build for ARCH against KDIR,
# with KCC (the compiler: gcc-12 where the headers name another, see
# step_kernel_headers) when set.
kargs() {
	local arch=$1 kdir=$2
	KARGS=(KDIR="$kdir")
	[ "$arch" = arm64 ] && KARGS+=(ARCH=arm64 "CROSS_COMPILE=$CROSS")
	if [ -n "$KCC" ]; then
		if [ "$arch" = arm64 ]; then
			KARGS+=("CC=$CROSS$KCC")
		else
			KARGS+=("CC=$KCC")
		fi
	fi
	KARGS+=(KCFLAGS=-Werror W=1)
}

# build_arch [-k KERNEL KDIR] ARCH: main module, then nvp2p (desktop; TEGRA=1
# on arm64) in $out/ARCH, and for arm64 the desktop flavour in
# $out/arm64-desktop.  With -k: against KDIR, in $out/KERNEL-ARCH, the
# checks named build-KERNEL-ARCH..., and arm64 TEGRA=1 only.
declare -A built=()	# [TREE:DIR] built without a diagnostic
KCC=
build_arch() {
	local kernel='' kdir='' arch tree ok=1 nv tag
	if [ "$1" = -k ]; then
		kernel=$2 kdir=$3
		shift 3
	fi
	arch=$1
	tag=${kernel:+$kernel-}$arch
	tree=$out/$tag
	log "build $tag"
	if [ -z "$kdir" ]; then
		kdir=/usr/src/linux-headers-$KVER
		[ "$arch" = arm64 ] && kdir=$ARM_KDIR
	fi
	kargs "$arch" "$kdir"
	local args=("${KARGS[@]}")
	if ! copy_tree "$tree" 2>"$out/logs/copy-$tag.log"; then
		fail "build-$tag" "copying the sources failed" "$out/logs/copy-$tag.log"
		return 1
	fi
	if [ ! -f "$tree/driver/Makefile" ] && [ ! -f "$tree/driver/Kbuild" ]; then
		fail "build-$tag" "driver/ has no Makefile or Kbuild yet"
		ok=
	else
		if run_make "build-$tag" "$out/logs/build-$tag.log" \
			"$tree/driver" "${args[@]}"; then
			built[$tag:driver]=1
		else
			ok=
		fi
	fi
	local flavours=(desktop)
	if [ "$arch" = arm64 ]; then
		flavours=(tegra desktop)
		[ -n "$kernel" ] && flavours=(tegra)
	fi
	for nv in "${flavours[@]}"; do
		local name=build-$tag-nvp2p ntree=$tree fl=()
		[ "$arch" = arm64 ] && name=$name-$nv
		if [ ! -f "$tree/driver/nvp2p/Makefile" ] &&
			[ ! -f "$tree/driver/nvp2p/Kbuild" ]; then
			fail "$name" "driver/nvp2p/ has no Makefile or Kbuild yet"
			ok=
			continue
		fi
		if [ -z "${built[$tag:driver]:-}" ]; then
			fail "$name" "not built: it links against hellofpga.ko, and build-$tag failed"
			ok=
			continue
		fi
		if [ "$nv" = tegra ]; then
			fl=(TEGRA=1)
		else
			if ! nvidia_src >>"$out/logs/nvidia-src.log" 2>&1; then
				fail "$name" "no NVIDIA_SRC_DIR (scripts/fetch-nv-p2p.sh failed)" \
					"$out/logs/nvidia-src.log"
				ok=
				continue
			fi
			fl=(NVIDIA_SRC_DIR="$NV_SRC")
			if [ "$arch" = arm64 ]; then
				# second flavour: a copy of the tree with the main
				# module already built
				ntree=$out/arm64-desktop
				rm -rf "$ntree" && cp -a "$tree" "$ntree"
				rm -f "$ntree"/driver/nvp2p/*.ko
			fi
		fi
		if run_make "$name" "$out/logs/$name.log" "$ntree/driver/nvp2p" \
			"${args[@]}" "${fl[@]}"; then
			[ "$ntree" = "$tree" ] && built[$tag:driver/nvp2p]=1
		else
			ok=
		fi
	done
	[ -n "$ok" ]
}

# nv-symvers: driver/nvp2p/nv-symvers.sh (DKMS: the symbol versions of the
# installed nvidia.ko) reads from each built nv-p2p-stub.ko the CRCs modpost
# wrote into its Module.symvers: absolute __crc_ symbols (5.10), __kcrctab
# data (6.1 on), arm64 objects read on this amd64 machine.
step_nv_symvers() {
	local sv tree n=0 bad=
	for sv in "$out"/*/driver/nvp2p/stub/Module.symvers; do
		[ -f "$sv" ] || continue
		tree=${sv%/driver/nvp2p/stub/Module.symvers}
		n=$((n + 1))
		if ! bash "$src/driver/nvp2p/nv-symvers.sh" "${sv%/Module.symvers}/nv-p2p-stub.ko" \
			"$out/logs/nv-symvers-${tree##*/}" >>"$out/logs/nv-symvers.log" 2>&1; then
			bad="$bad ${tree##*/} (failed);"
		elif ! cmp -s <(cut -f1,2 "$sv" | sort) \
			<(cut -f1,2 "$out/logs/nv-symvers-${tree##*/}" | sort); then
			bad="$bad ${tree##*/} (other CRCs);"
		fi
	done
	if [ "$n" = 0 ]; then
		fail nv-symvers "no nv-p2p-stub.ko was built"
	elif [ -n "$bad" ]; then
		fail nv-symvers "of $n stubs:$bad" "$out/logs/nv-symvers.log"
	else
		pass nv-symvers
	fi
}

# module-version: both modules built for amd64 carry CMake's
# project(VERSION) as MODULE_VERSION (driver/version.mk), as the library does.
step_module_version() {
	local want got ko bad=
	want=$(sed -n 's/^project(hellofpga VERSION \([0-9][0-9.]*\) .*/\1/p' "$src/CMakeLists.txt")
	for ko in driver/hellofpga.ko driver/nvp2p/hellofpga-nvp2p.ko; do
		if [ ! -f "$out/amd64/$ko" ]; then
			bad="$bad $ko: not built;"
			continue
		fi
		got=$(modinfo -F version "$out/amd64/$ko")
		[ "$got" = "$want" ] || bad="$bad $ko: '$got';"
	done
	if [ -z "$want" ]; then
		fail module-version "no project(hellofpga VERSION ...) line in CMakeLists.txt"
	elif [ -n "$bad" ]; then
		fail module-version "CMakeLists.txt says $want;$bad"
	else
		pass module-version
	fi
}

# sparse ARCH: C=2 over what build_arch built cleanly in $out/ARCH (the main
# module, and nvp2p desktop on amd64, TEGRA=1 on arm64): nothing is
# recompiled, sparse checks every file.
step_sparse_arch() {
	local kernel='' kdir='' arch tree fl=() rc=0 d logf notrun=() tag
	if [ "$1" = -k ]; then
		kernel=$2 kdir=$3
		shift 3
	fi
	arch=$1
	tag=${kernel:+$kernel-}$arch
	tree=$out/$tag
	logf=$out/logs/sparse-$tag.log
	log "sparse $tag"
	if [ -z "$kdir" ]; then
		kdir=/usr/src/linux-headers-$KVER
		[ "$arch" = arm64 ] && kdir=$ARM_KDIR
	fi
	if [ "$arch" = amd64 ]; then
		fl=(NVIDIA_SRC_DIR="$NV_SRC")
	else
		fl=(TEGRA=1)
	fi
	kargs "$arch" "$kdir"
	local args=("${KARGS[@]}" C=2 CHECK=sparse)
	: >"$logf"
	for d in driver driver/nvp2p; do
		if [ -z "${built[$tag:$d]:-}" ]; then
			notrun+=("$d")
		elif [ "$d" = driver ]; then
			make_log "$logf" "$tree/$d" "${args[@]}" || rc=$?
		else
			make_log "$logf" "$tree/$d" "${args[@]}" "${fl[@]}" || rc=$?
		fi
	done
	if ((${#notrun[@]})) && ! diagnostics "$logf" | grep -q .; then
		fail "sparse-$tag" "not run on ${notrun[*]}: its $tag build failed"
		return 1
	fi
	report "sparse-$tag" "$logf" "$rc" || return 1
}

# ---------------------------------------------------------------- main --

want() { [ -n "${steps[$1]:-}" ]; }
declare -A steps=()
[ $# = 0 ] && set -- all
for s in "$@"; do
	case $s in
	all)
		steps[checkpatch]=1 steps[driver-deps]=1 steps[amd64]=1
		steps[arm64]=1 steps[kernels]=1 steps[sparse]=1
		;;
	deps | checkpatch | driver-deps | amd64 | arm64 | kernels) steps[$s]=1 ;;
	sparse) steps[sparse]=1 steps[amd64]=1 steps[arm64]=1 steps[kernels]=1 ;;
	arm64-headers) steps[arm64h]=1 ;;
	arm64-guest) steps[arm64g]=1 ;;
	guest-image-*) steps[gimg]+=" ${s#guest-image-}" ;;
	*)
		sed -n '3,/^# hf_features.h of two trees/p' "$0" | sed 's/^# \{0,1\}//' >&2
		exit 2
		;;
	esac
done
want arm64 && steps[arm64h]=1

[ "$src" != "$repo" ] && log "sources: $src (HF_KERNEL_SRC_OVERRIDE)"
start=$SECONDS
if step_deps; then
	want checkpatch && step_checkpatch
	want driver-deps && step_driver_deps
	if want amd64; then
		build_arch amd64
		step_module_version
	fi
	arm_ok=
	want arm64h && step_arm64_headers && arm_ok=1
	want arm64g && step_arm64_guest
	for suite in ${steps[gimg]:-}; do step_guest_image "$suite"; done
	if want arm64; then
		if [ -n "$arm_ok" ]; then
			build_arch arm64
		else
			fail build-arm64 "no arm64 headers"
		fi
	fi
	if want kernels; then
		for suite in "${SUITES[@]}"; do
			step_kernel_headers "$suite"
		done
		for k in "${KERNELS[@]}"; do
			KCC=${KCC_OF[$k]} KPATH=${KPATH_OF[$k]}
			build_arch -k "$k" "${KDIR_OF[$k:amd64]}" amd64
			build_arch -k "$k" "${KDIR_OF[$k:arm64]}" arm64
		done
		KCC='' KPATH=''
	fi
	if want sparse; then
		step_sparse_arch amd64
		if [ -n "$arm_ok" ]; then
			step_sparse_arch arm64
		else
			fail sparse-arm64 "no arm64 headers"
		fi
		# and the newest other kernel, amd64 (see the header)
		for k in "${KERNELS[@]: -1}"; do
			KCC=${KCC_OF[$k]} KPATH=${KPATH_OF[$k]}
			step_sparse_arch -k "$k" "${KDIR_OF[$k:amd64]}" amd64
		done
		KCC='' KPATH=''
	fi
	want amd64 && step_nv_symvers
fi
log "done in $((SECONDS - start)) s; logs in $out/logs"
hf_summary
