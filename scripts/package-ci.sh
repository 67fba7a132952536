#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# package-ci.sh - the Debian packages the way CI checks them (./run test;
# docs/packages.md): build them (scripts/build-packages.sh), lintian,
# install them on this machine with apt-get, let DKMS build the modules for
# the installed kernel headers (linux-headers-<arch>'s kernel, not uname -r:
# CI's running kernel has no headers), check what landed, then purge them
# and check that it is gone.  Nothing is loaded.
#
# Checks: package/deps, package/build, package/lintian, package/install,
# package/dkms-module, package/nvp2p-skipped, package/udev-rule,
# package/group, package/tools, package/dev-pkgconfig,
# package/python (python3-hellofpga imports with Debian's python3, finds
# libhellofpga.so.1 by its soname and moves data through an emulated
# card), package/dev-seed-name, package/dev-cmake, package/nvp2p-trigger (an NVIDIA
# nv-p2p.h arriving under /usr/src by dpkg makes DKMS rebuild with
# hellofpga-nvp2p.ko), package/nvp2p-trigger-gone (and leaving drops it),
# package/purge, package/purged.
#
# Each check prints "PASS name", "FAIL name: reason" or "SKIP name: why"
# (tests/results.sh); the last line is "N passed, N failed, N skipped".
# Idempotent: what a run (also a failed one) installed is purged on exit;
# the hellofpga group, which Debian's purge keeps (it may own files), is
# deleted again when this run created it.  When the packages are installed
# on this machine by someone else (no marker of ours), nothing is touched
# and the stage is skipped.
#
# Environment: HF_PACKAGE_OUT (default build-package/), HF_CACHE (as
# scripts/kernel-ci.sh: where the NVIDIA sources are cached),
# NVIDIA_SRC_DIR (NVIDIA's source for the trigger check, instead of
# scripts/fetch-nv-p2p.sh), JOBS.
set -uo pipefail

repo=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
out=${HF_PACKAGE_OUT:-$repo/build-package}
if [ -z "${HF_CACHE:-}" ]; then
	if [ "$(id -u)" = 0 ]; then
		HF_CACHE=/var/cache/hellofpga
	else
		HF_CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/hellofpga
	fi
fi
export HF_CACHE
mkdir -p "$out/ci-logs" "$HF_CACHE" || exit 2
out=$(cd "$out" && pwd)
logs=$out/ci-logs
marker=$HF_CACHE/package-ci.installed
PKGS=(hellofpga-dkms hellofpga-tools libhellofpga-dev python3-hellofpga libhellofpga1)
FAKE_NV=hellofpga-ci-nvidia-source
FAKE_NV_DIR=/usr/src/nvidia-hfci-0.0

sudo=()
[ "$(id -u)" = 0 ] || sudo=(sudo)
export DEBIAN_FRONTEND=noninteractive

log() { printf '\033[1m--> package [%3ss]: %s\033[0m\n' "$SECONDS" "$*" >&2; }

# shellcheck source=../tests/results.sh
. "$repo/tests/results.sh"
pass() { hf_result PASS "package/$1"; }
skip() { hf_result SKIP "package/$1" "$2"; }
fail() {	# fail NAME REASON [LOG]
	hf_result FAIL "package/$1" "$2"
	[ -n "${3:-}" ] && [ -s "$3" ] || return 0
	tail -n 12 "$3" | sed 's/^/    /'
	echo "    (log: $3)"
}
finish() { hf_summary; exit $?; }

installed() { dpkg-query -W -f='${Status}\n' "$1" 2>/dev/null | grep -q ' installed$'; }
any_installed() {
	local p
	for p in "${PKGS[@]}" "$FAKE_NV"; do
		installed "$p" && return 0
	done
	return 1
}

hf_lparen='('
VERSION=$(sed -n "s/^project${hf_lparen}hellofpga VERSION \([0-9][0-9.]*\) .*/\1/p" "$repo/CMakeLists.txt")

# ------------------------------------------------------------ cleanup --

group_before='' ours=''
cleanup() {
	local p del=()
	if [ -f "$marker" ]; then
		for p in "$FAKE_NV" "${PKGS[@]}"; do
			installed "$p" && del+=("$p")
		done
	fi
	if ((${#del[@]})); then
		log "cleanup: purging ${del[*]}"
		"${sudo[@]}" apt-get purge -y -q "${del[@]}" >"$logs/cleanup.log" 2>&1 ||
			echo "package-ci: purging ${del[*]} failed (log: $logs/cleanup.log)" >&2
	fi
	rm -f "$marker"
	# Debian's purge keeps the group; one this run created goes again
	if [ -n "$ours" ] && [ -z "$group_before" ] && getent group hellofpga >/dev/null; then
		"${sudo[@]}" delgroup --system --quiet hellofpga >/dev/null 2>&1 ||
			"${sudo[@]}" groupdel hellofpga || true
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --------------------------------------------------------------- deps --

step_deps() {
	local missing=() p arch hdr
	arch=$(dpkg --print-architecture)
	hdr=linux-headers-$arch
	for p in build-essential cmake pkg-config debhelper dh-dkms dh-python dkms \
		help2man lintian "$hdr"; do
		installed "$p" || missing+=("$p")
	done
	if ((${#missing[@]})); then
		log "installing ${missing[*]}"
		if ! { "${sudo[@]}" apt-get update -qq &&
			"${sudo[@]}" apt-get install -y -qq --no-install-recommends \
				"${missing[@]}"; } >"$logs/deps.log" 2>&1; then
			fail deps "apt-get install ${missing[*]} failed" "$logs/deps.log"
			return 1
		fi
	fi
	# The kernel the headers meta-package points at (scripts/kernel-ci.sh)
	KVER=$(dpkg-query -W -f='${Depends}' "$hdr" |
		grep -o "linux-headers-[^ ,]*-$arch" | head -n 1)
	KVER=${KVER#linux-headers-}
	if [ -z "$KVER" ] || [ ! -e "/lib/modules/$KVER/build/Makefile" ]; then
		fail deps "no installed kernel headers behind $hdr (/lib/modules/$KVER/build)"
		return 1
	fi
	log "KVER=$KVER, version $VERSION"
	pass deps
}

# ------------------------------------------------------ build, lintian --

step_build() {
	log "building the packages (scripts/build-packages.sh)"
	if ! HF_LINTIAN=0 "$repo/scripts/build-packages.sh" "$out" \
		>"$logs/build-packages.out" 2>"$logs/build-packages.err"; then
		fail build "$(tail -n 1 "$logs/build-packages.err")" "$logs/build.log"
		return 1
	fi
	DEBS=()
	mapfile -t DEBS <"$logs/build-packages.out"
	if [ "${#DEBS[@]}" != 5 ]; then
		fail build "expected 5 .deb files, got ${#DEBS[@]}: ${DEBS[*]}"
		return 1
	fi
	pass build
}

step_lintian() {
	log "lintian"
	if lintian --fail-on error,warning --tag-display-limit 0 \
		"$out"/hellofpga_"$VERSION"_*.changes >"$logs/lintian.log" 2>&1; then
		pass lintian
	else
		fail lintian "$(grep -c -E '^[EW]: ' "$logs/lintian.log") error/warning tag(s): $(grep -m 1 -E '^[EW]: ' "$logs/lintian.log")" \
			"$logs/lintian.log"
	fi
}

# ------------------------------------------------------------ install --

step_install() {
	log "apt-get install ${DEBS[*]##*/} (DKMS builds the module)"
	touch "$marker"
	ours=1
	if ! "${sudo[@]}" apt-get install -y -q --no-install-recommends "${DEBS[@]}" \
		>"$logs/install.log" 2>&1; then
		fail install "apt-get install of the packages failed" "$logs/install.log"
		return 1
	fi
	pass install
}

dkms_log() { echo "/var/lib/dkms/hellofpga/$VERSION/$KVER/$(uname -m)/log/make.log"; }
ko() { echo "/lib/modules/$KVER/updates/dkms/$1.ko"; }

step_dkms_module() {
	local f v vm
	# The package's postinst builds for the kernels whose headers are in
	# /lib/modules; make sure of KVER's.
	if ! dkms status -m hellofpga -v "$VERSION" -k "$KVER" 2>/dev/null | grep -q ': installed'; then
		log "dkms install -k $KVER"
		"${sudo[@]}" dkms install -m hellofpga -v "$VERSION" -k "$KVER" \
			>"$logs/dkms-install.log" 2>&1
	fi
	f=$(ko hellofpga)
	if [ ! -f "$f" ]; then
		fail dkms-module "no $f after the install ($(dkms status -m hellofpga 2>&1 | head -n 1))" \
			"$(dkms_log)"
		return 1
	fi
	v=$(modinfo -F version "$f" 2>/dev/null)
	vm=$(modinfo -F vermagic "$f" 2>/dev/null)
	if [ "$v" != "$VERSION" ]; then
		fail dkms-module "modinfo -F version of $f is '$v', not $VERSION"
	elif [ "${vm%% *}" != "$KVER" ]; then
		fail dkms-module "$f is built for '${vm%% *}', not $KVER"
	else
		pass dkms-module
	fi
}

step_nvp2p_skipped() {
	local l
	l=$(dkms_log)
	if [ -n "$(sh "/usr/src/hellofpga-$VERSION/dkms-build.sh" nvidia "$KVER" "/lib/modules/$KVER/build")" ]; then
		skip nvp2p-skipped "this machine has NVIDIA kernel source under /usr/src"
	elif ! grep -q '^hellofpga-nvp2p: skipped: no NVIDIA kernel driver source' "$l" 2>/dev/null; then
		fail nvp2p-skipped "DKMS's make.log does not say that hellofpga-nvp2p was skipped" "$l"
	elif [ -e "$(ko hellofpga-nvp2p)" ]; then
		fail nvp2p-skipped "$(ko hellofpga-nvp2p) exists without NVIDIA source"
	else
		pass nvp2p-skipped
	fi
}

step_udev_rule() {
	local r=/usr/lib/udev/rules.d/60-hellofpga.rules
	if [ ! -f "$r" ]; then
		fail udev-rule "$r is not installed"
	elif ! cmp -s "$r" "$repo/packaging/udev/60-hellofpga.rules"; then
		fail udev-rule "$r differs from packaging/udev/60-hellofpga.rules"
	elif ! grep -q '^SUBSYSTEM=="hellofpga", KERNEL=="hellofpga\[0-9\]\*_\*", GROUP="hellofpga", MODE="0660"$' "$r"; then
		fail udev-rule "$r does not give the nodes to hellofpga 0660"
	elif command -v udevadm >/dev/null && ! udevadm verify "$r" >/dev/null 2>&1 &&
		udevadm verify --help >/dev/null 2>&1; then
		fail udev-rule "udevadm verify $r: $(udevadm verify "$r" 2>&1 | head -n 1)"
	else
		pass udev-rule
	fi
}

step_group() {
	local gid
	gid=$(getent group hellofpga | cut -d: -f3)
	if [ -z "$gid" ]; then
		fail group "no group hellofpga after the install"
	elif [ "$gid" -ge 1000 ]; then
		fail group "group hellofpga has gid $gid, not a system group"
	else
		pass group
	fi
}

step_python() {
	local out
	if ! out=$(cd / && HELLOFPGA_EMU_DIR=$(mktemp -d) /usr/bin/python3 -c '
import hellofpga
assert hellofpga.__version__ == "'"$VERSION"'", hellofpga.__version__
assert hellofpga.library_path() == "libhellofpga.so.1", hellofpga.library_path()
with hellofpga.Card("emu:0,ddr=4M,private") as c:
    c.write_h2c(b"python3-hellofpga", 0x100)
    assert c.read(0x100, 17) == b"python3-hellofpga"
print(hellofpga.__file__)
' 2>&1); then
		fail python "python3 -c 'import hellofpga ...' failed: $(printf '%s' "$out" | tail -n 1)"
	elif [ "$out" != /usr/lib/python3/dist-packages/hellofpga/__init__.py ]; then
		fail python "hellofpga imported from $out"
	else
		pass python
	fi
}

step_tools() {
	local v t
	v=$(hellofpga version 2>&1)
	t=$(mktemp -d)
	if [ "$v" != "hellofpga $VERSION (libhellofpga $VERSION)" ]; then
		fail tools "hellofpga version says '$v'"
	elif ! hellofpga test --list 2>/dev/null | grep -q '^ 1  get_status '; then
		fail tools "hellofpga test --list: no hellofpga-test in /usr/libexec/hellofpga"
	elif ! HELLOFPGA_GPU=emu hellofpga -d emu:0,private bench --sections sweep \
		--max 4K --iters 1 --repeats 1 --csv "$t/b.csv" >/dev/null 2>"$logs/tools.log" ||
		! head -1 "$t/b.csv" | grep -q '^section,name,size,direction,'; then
		fail tools "hellofpga bench --csv: no CSV from /usr/libexec/hellofpga/hellofpga-bench and /usr/share/hellofpga/bench_render.py" "$logs/tools.log"
	elif ! man -w hellofpga 2>/dev/null | grep -q '/usr/share/man/man1/hellofpga.1'; then
		fail tools "no man page hellofpga(1)"
	elif ! zcat /usr/share/man/man1/hellofpga.1.gz | grep -q -e 'demo'; then
		fail tools "hellofpga(1) does not describe the commands"
	else
		pass tools
	fi
	rm -rf "$t"
}

# build_example NAME CC-ARGS...: examples/cpu_roundtrip.c against the
# installed -dev package, run on a private emulated card
build_example() {
	local name=$1 t
	shift
	t=$(mktemp -d)
	if ! cc -std=c11 -Wall -Werror "$repo/examples/cpu_roundtrip.c" "$@" -o "$t/ex" \
		>"$logs/$name.log" 2>&1; then
		fail "$name" "cc $* failed" "$logs/$name.log"
	elif ! readelf -d "$t/ex" | grep -q 'NEEDED.*libhellofpga.so.1'; then
		fail "$name" "the program does not need libhellofpga.so.1"
	elif ! HELLOFPGA_DEVICE=emu:0,private "$t/ex" >>"$logs/$name.log" 2>&1; then
		fail "$name" "the program failed on the emulated card" "$logs/$name.log"
	else
		pass "$name"
	fi
	rm -rf "$t"
}

step_dev() {
	local v t
	v=$(pkg-config --modversion hellofpga 2>/dev/null)
	if [ "$v" != "$VERSION" ]; then
		fail dev-pkgconfig "pkg-config --modversion hellofpga says '$v'"
	else
		# shellcheck disable=SC2046
		build_example dev-pkgconfig $(pkg-config --cflags --libs hellofpga)
	fi
	build_example dev-seed-name -lHelloFPGACore

	t=$(mktemp -d)
	cat >"$t/CMakeLists.txt" <<-'EOF'
	cmake_minimum_required(VERSION 3.18)
	project(pkgtest C)
	find_package(hellofpga 1 CONFIG REQUIRED)
	add_executable(ex ex.c)
	target_link_libraries(ex PRIVATE hellofpga::hellofpga)
	EOF
	cp "$repo/examples/cpu_roundtrip.c" "$t/ex.c"
	if ! { cmake -S "$t" -B "$t/b" && cmake --build "$t/b"; } >"$logs/dev-cmake.log" 2>&1; then
		fail dev-cmake "find_package(hellofpga 1 CONFIG) project did not build" "$logs/dev-cmake.log"
	elif ! grep -q "hellofpga_DIR:PATH=/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)/cmake/hellofpga" \
		"$t/b/CMakeCache.txt"; then
		fail dev-cmake "CMake found hellofpga elsewhere: $(grep hellofpga_DIR "$t/b/CMakeCache.txt")"
	elif ! HELLOFPGA_DEVICE=emu:0,private "$t/b/ex" >>"$logs/dev-cmake.log" 2>&1; then
		fail dev-cmake "the CMake-built program failed" "$logs/dev-cmake.log"
	else
		pass dev-cmake
	fi
	rm -rf "$t"
}

# --------------------------------------------------- NVIDIA's trigger --

# A stand-in package of NVIDIA's kernel source: nv-p2p.h alone under
# /usr/src/nvidia-hfci-0.0/nvidia/ (all that hellofpga-nvp2p.ko's build
# reads), so that dpkg fires hellofpga-dkms's trigger on /usr/src.
fake_nvidia_deb() {
	local nv h t=$out/fake-nvidia
	nv=${NVIDIA_SRC_DIR:-}
	if [ -z "$nv" ]; then
		nv=$("$repo/scripts/fetch-nv-p2p.sh" "$HF_CACHE/nvidia-open" 2>"$logs/fetch-nv-p2p.log") ||
			return 1
	fi
	h=$nv/nvidia/nv-p2p.h
	[ -f "$h" ] || h=$nv/kernel-open/nvidia/nv-p2p.h
	[ -f "$h" ] || return 1
	rm -rf "$t" && mkdir -p "$t/root/DEBIAN" "$t/root$FAKE_NV_DIR/nvidia" || return 1
	cp "$h" "$t/root$FAKE_NV_DIR/nvidia/" || return 1
	cat >"$t/root/DEBIAN/control" <<-EOF
	Package: $FAKE_NV
	Version: 0.0
	Architecture: all
	Maintainer: hellofpga CI <ci@invalid>
	Description: stand-in for NVIDIA's kernel source (scripts/package-ci.sh)
	EOF
	dpkg-deb --root-owner-group -b "$t/root" "$t/$FAKE_NV.deb" >/dev/null || return 1
	FAKE_DEB=$t/$FAKE_NV.deb
}

step_nvp2p_trigger() {
	local f dep
	if [ -n "$(sh "/usr/src/hellofpga-$VERSION/dkms-build.sh" nvidia "$KVER" "/lib/modules/$KVER/build")" ]; then
		skip nvp2p-trigger "this machine has NVIDIA kernel source under /usr/src"
		skip nvp2p-trigger-gone "likewise"
		return 0
	fi
	if ! fake_nvidia_deb; then
		fail nvp2p-trigger "no nv-p2p.h for the stand-in package (scripts/fetch-nv-p2p.sh)" \
			"$logs/fetch-nv-p2p.log"
		return 1
	fi
	log "dpkg -i the stand-in NVIDIA source: the trigger rebuilds with hellofpga-nvp2p.ko"
	"${sudo[@]}" dpkg -i "$FAKE_DEB" >"$logs/nvp2p-trigger.log" 2>&1
	f=$(ko hellofpga-nvp2p)
	dep=$(modinfo -F depends "$f" 2>/dev/null)
	if [ ! -f "$f" ]; then
		fail nvp2p-trigger "no $f after NVIDIA's source arrived" "$logs/nvp2p-trigger.log"
	# (modinfo's depends also names nv-p2p-stub, whose Module.symvers
	# modpost took the nvidia_p2p_* symbols from; modprobe goes by
	# modules.dep, which depmod computes from the symbols: nvidia.ko)
	elif ! echo ",$dep," | grep -q ',hellofpga,' ||
		[ "$(modinfo -F version "$f" 2>/dev/null)" != "$VERSION" ]; then
		fail nvp2p-trigger "$f: depends '$dep', version '$(modinfo -F version "$f")'"
	elif ! grep -q "^hellofpga-nvp2p: building against $FAKE_NV_DIR/nvidia/nv-p2p.h" "$(dkms_log)"; then
		fail nvp2p-trigger "make.log does not name $FAKE_NV_DIR" "$(dkms_log)"
	elif ! dkms status -m hellofpga -v "$VERSION" -k "$KVER" | grep -q ': installed$'; then
		fail nvp2p-trigger "dkms status: $(dkms status -m hellofpga -v "$VERSION" -k "$KVER")"
	elif ! grep -q "^updates/dkms/hellofpga-nvp2p.ko: updates/dkms/hellofpga.ko" \
		"/lib/modules/$KVER/modules.dep"; then
		fail nvp2p-trigger "modules.dep: $(grep hellofpga-nvp2p "/lib/modules/$KVER/modules.dep")"
	else
		pass nvp2p-trigger
	fi

	log "dpkg --purge the stand-in: the trigger rebuilds without it"
	"${sudo[@]}" dpkg --purge "$FAKE_NV" >"$logs/nvp2p-trigger-gone.log" 2>&1
	if [ -e "$f" ]; then
		fail nvp2p-trigger-gone "$f is still there after NVIDIA's source left" "$logs/nvp2p-trigger-gone.log"
	elif [ ! -f "$(ko hellofpga)" ]; then
		fail nvp2p-trigger-gone "$(ko hellofpga) is gone too" "$logs/nvp2p-trigger-gone.log"
	elif ! grep -q '^hellofpga-nvp2p: nvidia=none' "$(dkms_log)"; then
		fail nvp2p-trigger-gone "the module was not rebuilt" "$(dkms_log)"
	else
		pass nvp2p-trigger-gone
	fi
}

# -------------------------------------------------------------- purge --

step_purge() {
	local left=() f
	log "apt-get purge ${PKGS[*]}"
	if ! "${sudo[@]}" apt-get purge -y -q "${PKGS[@]}" >"$logs/purge.log" 2>&1; then
		fail purge "apt-get purge failed" "$logs/purge.log"
		return 1
	fi
	pass purge
	for f in "/usr/src/hellofpga-$VERSION" "/var/lib/dkms/hellofpga" \
		"$(ko hellofpga)" "$(ko hellofpga-nvp2p)" \
		/usr/lib/udev/rules.d/60-hellofpga.rules /usr/bin/hellofpga \
		/usr/libexec/hellofpga /usr/share/hellofpga \
		/usr/share/man/man1/hellofpga.1.gz /usr/include/hellofpga.h \
		/usr/lib/*/libhellofpga.so* /usr/lib/*/libHelloFPGACore.so \
		/usr/lib/*/pkgconfig/hellofpga.pc /usr/lib/*/cmake/hellofpga \
		/usr/lib/python3/dist-packages/hellofpga; do
		[ -e "$f" ] || [ -L "$f" ] && left+=("$f")
	done
	if ((${#left[@]})); then
		fail purged "left after the purge: ${left[*]}"
	elif modinfo -k "$KVER" hellofpga >/dev/null 2>&1; then
		fail purged "modinfo -k $KVER hellofpga still finds a module (depmod not rerun?)"
	else
		pass purged
	fi
	rm -f "$marker"
}

# --------------------------------------------------------------- main --

if any_installed; then
	if [ -f "$marker" ]; then
		log "a previous run left its packages installed: purging them first"
		cleanup
	else
		skip all "hellofpga packages are installed on this machine and not by this script: not touching them"
		finish
	fi
fi
getent group hellofpga >/dev/null && group_before=1

step_deps || finish
step_build || finish
step_lintian
step_install || finish
step_dkms_module
step_nvp2p_skipped
step_udev_rule
step_group
step_tools
step_python
step_dev
step_nvp2p_trigger
step_purge
finish
