#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# guest-ci.sh [CONFIG...] - the real hellofpga.ko against the xdma-sim card
# inside QEMU (Debian's kernel under TCG), in every configuration of the
# matrix (configs.sh; default: all of them).
#
# Steps: apt-get what is missing (busybox-static, cpio, kmod, python3, the
# linux-image matching linux-headers-amd64); the QEMU with xdma-sim
# (scripts/build-qemu.sh, cached); hellofpga.ko and tests/guest/kmod/*/
# against those headers; a static build of the CLI and the library tests
# (CMake, -static) and tests/guest/progs/*.c; the initramfs; then one guest
# per configuration (run-config.sh).
#
# Output: one line per guest test, "PASS config/test", "FAIL config/test:
# reason", "SKIP config/test: reason" (setup steps report as "setup/..."),
# and last "N passed, N failed, N skipped".  Exit status 1 when anything
# failed.  Progress on stderr; serial console logs in build-guest/logs/.
#
# Environment:
#   HF_GUEST_OUT    build directory (default build-guest/)
#   HF_GUEST_QEMU   a qemu-system-x86_64 with -device xdma-sim to use
#                   instead of scripts/build-qemu.sh
#   HF_GUEST_JOBS   guests run at once (default: nproc; a 1-vCPU TCG
#                   guest keeps about one core busy, and on the 2-core CI
#                   machine two at once took the 9 guests from 1258 s of
#                   guest time to 643 s of wall time, see
#                   tests/guest/README.md, "Time")
#   HF_GUEST_TIMEOUT  per-guest timeout in seconds (default 300)
#   HF_GUEST_DRIVER_SRC  a tree whose driver/ core/ include/ build the
#                   hellofpga.ko under test (default: this one), e.g. a
#                   worktree of an older commit, to see the tests fail
#                   against a driver without what they test
#   JOBS            make/cmake -j (default nproc)
set -uo pipefail
here=$(cd "$(dirname "$(readlink -f "$0")")" && pwd)
repo=$(cd "$here/../../.." && pwd)
out=${HF_GUEST_OUT:-$repo/build-guest}
mkdir -p "$out/logs" || exit 2
out=$(cd "$out" && pwd)
export HF_GUEST_OUT=$out
JOBS=${JOBS:-$(nproc)}
. "$here/configs.sh"

configs=("$@")
[ ${#configs[@]} = 0 ] && configs=("${HF_CONFIGS[@]}")
for c in "${configs[@]}"; do
	hf_config "$c" || {
		echo "guest-ci.sh: unknown configuration '$c' (known: ${HF_CONFIGS[*]})" >&2
		exit 2
	}
done

sudo=()
[ "$(id -u)" = 0 ] || sudo=(sudo)
log() { printf '\033[1m--> guest [%3ss]: %s\033[0m\n' "$SECONDS" "$*" >&2; }
# shellcheck source=../../results.sh
. "$here/../../results.sh"
setup_fail() {	# setup_fail NAME REASON [LOG]
	hf_result FAIL "setup/$1" "$2${3:+ (log: $3)}"
	[ -n "${3:-}" ] && [ -s "$3" ] && tail -n 15 "$3" | sed 's/^/    /'
}
finish() {
	log "done in ${SECONDS} s; logs in $out/logs"
	hf_summary
	exit
}

# ---------------------------------------------------------------- deps --
need_pkgs() {	# need_pkgs LOG PKG...
	local logf=$1 missing=() p
	shift
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q 'install ok installed' || missing+=("$p")
	done
	((${#missing[@]} == 0)) && return 0
	log "installing ${missing[*]}"
	{ "${sudo[@]}" apt-get update -qq &&
		DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq \
			--no-install-recommends "${missing[@]}"; } >>"$logf" 2>&1
}
deps_log=$out/logs/setup-deps.log
: >"$deps_log"
if ! need_pkgs "$deps_log" linux-headers-amd64 build-essential cmake make \
	busybox-static cpio kmod python3; then
	setup_fail deps "apt-get install failed" "$deps_log"
	finish
fi
# The kernel the headers meta-package points at (as scripts/kernel-ci.sh)
KVER=$(dpkg-query -W -f='${Depends}' linux-headers-amd64 |
	grep -o 'linux-headers-[^ ,]*-amd64' | head -n 1)
KVER=${KVER#linux-headers-}
KDIR=/usr/src/linux-headers-$KVER
if [ -z "$KVER" ] || [ ! -f "$KDIR/Makefile" ]; then
	setup_fail deps "no linux-headers-<ver>-amd64 behind linux-headers-amd64"
	finish
fi
# The matching kernel image, so the module built against KDIR loads (its
# postinst runs initramfs-tools for the host: harmless, ~30 s, once).
if ! need_pkgs "$deps_log" "linux-image-$KVER" || [ ! -f "/boot/vmlinuz-$KVER" ]; then
	setup_fail deps "apt-get install linux-image-$KVER failed" "$deps_log"
	finish
fi
log "KVER=$KVER"

# ---------------------------------------------------------------- QEMU --
# Started first, in the background: the cold build (minutes) overlaps the
# module and user-space builds.
qemu_log=$out/logs/setup-qemu.log
if [ -n "${HF_GUEST_QEMU:-}" ]; then
	echo "$HF_GUEST_QEMU" >"$out/qemu.path"
	qemu_pid=
else
	log "QEMU with xdma-sim: scripts/build-qemu.sh (cached; cold: minutes)"
	"$repo/scripts/build-qemu.sh" >"$out/qemu.path" 2>"$qemu_log" &
	qemu_pid=$!
fi

# ------------------------------------------------------ kernel modules --
stage=$out/stage
rm -rf "$stage" "$out/src"
mkdir -p "$stage/lib/modules-extra" "$stage/tests/bin" "$stage/tests/libtests" \
	"$stage/tests/cases" "$out/src"
# A copy of the sources without in-place build outputs (driver/ includes
# ../core and ../include; kmods may include ../../../../include/...).
drv_src=${HF_GUEST_DRIVER_SRC:-$repo}
(cd "$drv_src" && tar -cf - --exclude='*.o' --exclude='*.ko' --exclude='*.cmd' \
	--exclude='*.mod' --exclude='*.mod.c' --exclude='Module.symvers' \
	--exclude='modules.order' CMakeLists.txt driver core include) |
	tar -xf - -C "$out/src"
[ -d "$repo/tests/guest/kmod" ] && (cd "$repo" && tar -cf - --exclude='*.o' \
	--exclude='*.ko' --exclude='*.cmd' --exclude='*.mod' --exclude='*.mod.c' \
	--exclude='Module.symvers' --exclude='modules.order' \
	--exclude='tests/guest/kmod/*/build' tests/guest/kmod) | tar -xf - -C "$out/src"
[ "$drv_src" = "$repo" ] || log "hellofpga.ko from $drv_src (HF_GUEST_DRIVER_SRC)"
klog=$out/logs/setup-driver.log
log "build hellofpga.ko against $KDIR"
if make -C "$KDIR" M="$out/src/driver" -j "$JOBS" modules >"$klog" 2>&1 &&
	[ -f "$out/src/driver/hellofpga.ko" ]; then
	cp "$out/src/driver/hellofpga.ko" "$stage/lib/modules-extra/"
else
	setup_fail driver-build "make hellofpga.ko failed" "$klog"
fi
# tests/guest/kmod/NAME/: with a Makefile, "make install" into
# /lib/modules-extra/NAME/ once per flavor (default, then TEGRA=1: the two
# nvidia_p2p APIs), given KDIR, HF_SYMVERS, NVIDIA_SRC_DIR, OUT, DESTDIR;
# Kbuild only: built with kbuild against hellofpga's Module.symvers, the
# .ko files into /lib/modules-extra/.
nv_src=
for d in "$out"/src/tests/guest/kmod/*/; do
	d=${d%/}
	n=$(basename "$d")
	l=$out/logs/setup-kmod-$n.log
	: >"$l"
	if [ -f "$d/Makefile" ]; then
		if [ -z "$nv_src" ]; then
			cache=${HF_CACHE:-/var/cache/hellofpga}
			[ "$(id -u)" = 0 ] || cache=${HF_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/hellofpga}
			mkdir -p "$cache"
			nv_src=$(exec 9>"$cache/.lock.nv"; flock 9
				bash "$repo/scripts/fetch-nv-p2p.sh" "$cache/nvidia-open" 2>>"$l" | tail -n 1)
		fi
		for fl in default tegra; do
			args=()
			if [ $fl = tegra ]; then
				args=(TEGRA=1)
			elif [ -n "$nv_src" ]; then
				args=(NVIDIA_SRC_DIR="$nv_src")
			fi
			log "build test module $n ($fl flavor)"
			if ! make -C "$d" KDIR="$KDIR" HF_SYMVERS="$out/src/driver/Module.symvers" \
				"${args[@]}" OUT="$out/kmod/$n/$fl" \
				DESTDIR="$stage/lib/modules-extra/$n" install >>"$l" 2>&1; then
				setup_fail "kmod-$n-$fl" "make install of tests/guest/kmod/$n (${args[*]}) failed" "$l"
			fi
		done
	elif [ -f "$d/Kbuild" ]; then
		log "build test module $n"
		if make -C "$KDIR" M="$d" -j "$JOBS" \
			KBUILD_EXTRA_SYMBOLS="$out/src/driver/Module.symvers" modules >"$l" 2>&1 &&
			ls "$d"/*.ko >/dev/null 2>&1; then
			cp "$d"/*.ko "$stage/lib/modules-extra/"
		else
			setup_fail "kmod-$n" "Kbuild of tests/guest/kmod/$n failed" "$l"
		fi
	fi
done
# dma-buf exporter stand-in of Debian's kernel (no udmabuf there): vgem
for m in drm drm_shmem_helper vgem/vgem; do
	f=/lib/modules/$KVER/kernel/drivers/gpu/drm/$m.ko
	[ -f "$f" ] && cp "$f" "$stage/lib/modules-extra/"
done

# ---------------------------------------------------- static user space --
ulog=$out/logs/setup-userspace.log
libtests=(test_xfer test_badinput test_open test_gpudirect)
log "static build of the CLI and ${libtests[*]}"
if cmake -S "$repo" -B "$out/static" -DCMAKE_BUILD_TYPE=Release \
	-DCMAKE_EXE_LINKER_FLAGS=-static -DHF_BUILD_TESTS=ON >"$ulog" 2>&1 &&
	cmake --build "$out/static" -j "$JOBS" --target hellofpga_cli \
		"${libtests[@]}" >>"$ulog" 2>&1; then
	cp "$out/static/bin/hellofpga" "$stage/tests/bin/"
	for t in "${libtests[@]}"; do cp "$out/static/bin/$t" "$stage/tests/libtests/"; done
else
	setup_fail userspace-build "static CMake build failed" "$ulog"
fi
for p in "$repo"/tests/guest/progs/*.c; do
	[ -f "$p" ] || continue
	n=$(basename "$p" .c)
	l=$out/logs/setup-prog-$n.log
	if ! gcc -O2 -g -Wall -static -pthread -I"$repo/include" \
		-I"$out/static/include" -I"$repo/lib" \
		-I"$repo/tests" -I"$repo/core" -o "$stage/tests/bin/$n" "$p" \
		"$out/static/lib/libhellofpga.a" -ldl >"$l" 2>&1; then
		setup_fail "prog-$n" "gcc -static tests/guest/progs/$n.c failed" "$l"
	fi
done
for c in "$repo"/tests/guest/cases/*.sh; do
	[ -f "$c" ] && install -m 755 "$c" "$stage/tests/cases/"
done
install -m 644 "$here/case-lib.sh" "$stage/tests/case-lib.sh"
# the packages' udev rule, applied by the udev built-in case (init)
install -m 644 "$repo/packaging/udev/60-hellofpga.rules" "$stage/tests/"
install -m 644 "$here/../../results.sh" "$stage/tests/results.sh"

# --------------------------------------------------- kernel + initramfs --
# The ELF vmlinux inside the bzImage: PVH entry skips the xz decompressor,
# about 4 s of every TCG boot.
kernel=$out/vmlinux-$KVER
if [ ! -s "$kernel" ]; then
	log "extracting vmlinux from /boot/vmlinuz-$KVER"
	if ! python3 - "/boot/vmlinuz-$KVER" "$kernel.tmp" >"$out/logs/setup-vmlinux.log" 2>&1 <<'PY'
import lzma, sys
d = open(sys.argv[1], 'rb').read()
i = d.find(b'\xfd7zXZ\x00')            # Debian amd64 kernels are xz-compressed
out = lzma.LZMADecompressor().decompress(d[i:])
assert out[:4] == b'\x7fELF', 'no ELF inside the bzImage'
open(sys.argv[2], 'wb').write(out)
PY
	then
		setup_fail vmlinux "cannot extract vmlinux from /boot/vmlinuz-$KVER" \
			"$out/logs/setup-vmlinux.log"
		kernel=/boot/vmlinuz-$KVER
	else
		mv "$kernel.tmp" "$kernel"
	fi
fi
if ! "$here/mkinitramfs.sh" "$stage" "$out/initramfs.cpio.gz" >"$out/logs/setup-initramfs.log" 2>&1; then
	setup_fail initramfs "mkinitramfs.sh failed" "$out/logs/setup-initramfs.log"
	finish
fi

if [ -n "$qemu_pid" ]; then
	if ! wait "$qemu_pid"; then
		setup_fail qemu-build "scripts/build-qemu.sh failed" "$qemu_log"
		finish
	fi
fi
qemu=$(tail -n 1 "$out/qemu.path")
if [ ! -x "$qemu" ] || ! "$qemu" -device help 2>/dev/null | grep -q '"xdma-sim"'; then
	setup_fail qemu-build "'$qemu' is not a qemu-system-x86_64 with -device xdma-sim" "$qemu_log"
	finish
fi
cat >"$out/guest.env" <<ENV
HF_QEMU='$qemu'
HF_QEMU_DATA='${HF_GUEST_QEMU_DATA:-}'
HF_KERNEL='$kernel'
HF_INITRD='$out/initramfs.cpio.gz'
ENV
log "setup done: QEMU $qemu"
if [ "$HF_FAILED" != 0 ]; then
	log "setup failed: no guest runs"
	finish
fi

# -------------------------------------------------------------- guests --
jobs_max=${HF_GUEST_JOBS:-$(nproc)}
((jobs_max < 1)) && jobs_max=1
res=$out/results
rm -rf "$res" && mkdir -p "$res"
running=()
report() {	# report CONFIG: its lines, and the counts
	local c=$1
	cat "$res/$c.out"
	hf_count "$res/$c.out"
	sed 's/^/    /' "$res/$c.err" >&2
}
# Run the configurations HF_GUEST_JOBS at a time; report each in matrix
# order as soon as it and those before it are done.
reported=0
report_done() {
	while ((reported < ${#configs[@]})) && [ -f "$res/${configs[$reported]}.rc" ]; do
		report "${configs[$reported]}"
		reported=$((reported + 1))
	done
}
for c in "${configs[@]}"; do
	while (($(jobs -rp | wc -l) >= jobs_max)); do
		wait -n 2>/dev/null || true
		report_done
	done
	hf_config "$c"
	log "guest $c: $CFG_DESC"
	("$here/run-config.sh" "$c" >"$res/$c.out" 2>"$res/$c.err"
	 echo $? >"$res/$c.rc") &
done
wait
report_done
finish
