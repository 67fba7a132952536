#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# guest-ci.sh [CONFIG...] - the real hellofpga.ko against the xdma-sim card
# inside QEMU (Debian's kernel under TCG), in every configuration of the
# matrix (configs.sh; default: all of them).
#
# Steps: apt-get what is missing (busybox-static, bash-static, cpio, kmod, python3,
# xz-utils, zstd, the linux-image matching linux-headers-amd64); the QEMU
# with xdma-sim (scripts/build-qemu.sh, cached); hellofpga.ko and tests/guest/kmod/*/
# against those headers; a static build of the CLI and the library tests
# (CMake, -static) and tests/guest/progs/*.c; the initramfs; then one guest
# per configuration (run-config.sh).  The arm64 configurations (CFG_ARCH
# aarch64) add the same cross-built for arm64 (gcc-aarch64-linux-gnu,
# cmake/toolchains/aarch64-linux-gnu.cmake) against Debian's arm64 headers,
# kernel and busybox (scripts/kernel-ci.sh arm64-headers arm64-guest), and
# scripts/build-qemu.sh --arch aarch64.  The configurations of another
# kernel (CFG_KERNEL 6.12) add hellofpga.ko and the test modules against
# that kernel's headers, and its initramfs (the same static user space),
# with Debian's image of the same version (scripts/kernel-ci.sh
# guest-image-SUITE).  Only what the configurations asked for is built.
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
#   HF_GUEST_QEMU_AARCH64  the same for the arm64 configurations
#                   (instead of scripts/build-qemu.sh --arch aarch64)
#   HF_GUEST_PLUGIN_INSN  the TCG plugin hf_insn.so for CFG_PLUGIN=insn
#                   (default: the one next to the QEMU launcher, which
#                   scripts/build-qemu.sh installs there; none: the
#                   configurations that ask for it run without it)
#   HF_GUEST_PLUGIN  CFG_PLUGIN of every configuration (configs.sh)
#   HF_GUEST_JOBS   guests run at once (default: nproc; a 1-vCPU TCG
#                   guest keeps about one core busy, and on the 2-core CI
#                   machine two at once took the 9 guests from 1258 s of
#                   guest time to 643 s of wall time, see
#                   tests/guest/README.md, "Time")
#   HF_GUEST_TIMEOUT  per-guest timeout in seconds (default 300)
#   HF_GUEST_DRIVER_SRC  a tree whose driver/ core/ refdesign/ include/ build the
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
# the architectures and kernels the configurations boot: only their
# builds run (want_x86: x86 QEMU and user space; want_k61: Debian 12's
# kernel; kernels: the other CFG_KERNELs)
want_x86='' want_arm='' want_k61='' want_rtl='' kernels=()
for c in "${configs[@]}"; do
	hf_config "$c" || {
		echo "guest-ci.sh: unknown configuration '$c' (known: ${HF_CONFIGS[*]})" >&2
		exit 2
	}
	case ,$CFG_DEVICE,$CFG_CARD2, in *,rtl=on,*) want_rtl=1 ;; esac
	if [ "$CFG_ARCH" = aarch64 ]; then
		want_arm=1
	else
		want_x86=1
		if [ -z "$CFG_KERNEL" ]; then
			want_k61=1
		elif [[ " ${kernels[*]} " != *" $CFG_KERNEL "* ]]; then
			kernels+=("$CFG_KERNEL")
		fi
	fi
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
arm_pkgs=()
[ -n "$want_arm" ] && arm_pkgs=(gcc-aarch64-linux-gnu libc6-dev-arm64-cross)
if ! need_pkgs "$deps_log" linux-headers-amd64 build-essential cmake make \
	busybox-static bash-static cpio kmod python3 xz-utils zstd "${arm_pkgs[@]}"; then
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
if [ -n "$want_k61" ] && { ! need_pkgs "$deps_log" "linux-image-$KVER" ||
	[ ! -f "/boot/vmlinuz-$KVER" ]; }; then
	setup_fail deps "apt-get install linux-image-$KVER failed" "$deps_log"
	finish
fi
log "KVER=$KVER"
hf_cache=${HF_CACHE:-/var/cache/hellofpga}
[ "$(id -u)" = 0 ] || hf_cache=${HF_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/hellofpga}
mkdir -p "$hf_cache"

# ---------------------------------------------------------------- QEMU --
# Started first, in the background: the cold build (minutes) overlaps the
# module and user-space builds.
qemu_log=$out/logs/setup-qemu.log
: >"$qemu_log"
rm -f "$out/qemu.path" "$out/qemu-aarch64.path"
qemu_pid=
[ -n "$want_x86" ] && [ -n "${HF_GUEST_QEMU:-}" ] && echo "$HF_GUEST_QEMU" >"$out/qemu.path"
[ -n "$want_arm" ] && [ -n "${HF_GUEST_QEMU_AARCH64:-}" ] &&
	echo "$HF_GUEST_QEMU_AARCH64" >"$out/qemu-aarch64.path"
if { [ -n "$want_x86" ] && [ ! -f "$out/qemu.path" ]; } ||
	{ [ -n "$want_arm" ] && [ ! -f "$out/qemu-aarch64.path" ]; }; then
	log "QEMU with xdma-sim: scripts/build-qemu.sh (cached; cold: minutes)"
	# one after the other: they share the build tree (and its lock)
	(
		if [ -n "$want_x86" ] && [ ! -f "$out/qemu.path" ]; then
			"$repo/scripts/build-qemu.sh" >"$out/qemu.path" || exit 1
		fi
		if [ -n "$want_arm" ] && [ ! -f "$out/qemu-aarch64.path" ]; then
			"$repo/scripts/build-qemu.sh" --arch aarch64 \
				>"$out/qemu-aarch64.path" || exit 1
		fi
	) 2>>"$qemu_log" &
	qemu_pid=$!
fi

# ------------------------------------------------- arm64 kernel, busybox --
# Debian's arm64 headers, linux-image and busybox-static, downloaded through
# scripts/kernel-ci.sh's private apt state and unpacked, never installed
# (never dpkg multiarch: it removes the native gcc); cached in $hf_cache.
ARM_KDIR='' ARM_ROOT='' ARM_KVER=${KVER%-amd64}-arm64
if [ -n "$want_arm" ]; then
	l=$out/logs/setup-arm64-kernel.log
	log "arm64: Debian's linux-headers, linux-image, busybox-static ($ARM_KVER, cached)"
	ARM_KDIR=$hf_cache/kernel/$KVER/arm64/usr/src/linux-headers-$ARM_KVER
	ARM_ROOT=$hf_cache/kernel/$KVER/arm64-guest
	if ! HF_CACHE=$hf_cache HF_KERNEL_OUT=$out/kernel-ci \
		"$repo/scripts/kernel-ci.sh" arm64-headers arm64-guest >"$l" 2>&1 ||
		[ ! -f "$ARM_KDIR/Makefile" ] || [ ! -f "$ARM_ROOT/boot/vmlinuz-$ARM_KVER" ]; then
		setup_fail arm64-kernel "scripts/kernel-ci.sh arm64-headers arm64-guest failed" "$l"
		finish
	fi
fi

# --------------------------------------- other kernels (CFG_KERNEL) --
# Each one's Debian headers and linux-image of the same version, through
# scripts/kernel-ci.sh (step_kernel_headers, guest-image-SUITE: the private
# apt state, dpkg-deb -x into $hf_cache/kernel/SUITE/, never installed).
declare -A K_KDIR=() K_KVER=() K_ROOT=()
if ((${#kernels[@]})); then
	l=$out/logs/setup-kernels.log
	ksteps=()
	for k in "${kernels[@]}"; do ksteps+=("guest-image-$(hf_kernel_suite "$k")"); done
	log "kernels ${kernels[*]}: Debian's linux-headers and linux-image (cached)"
	if ! HF_CACHE=$hf_cache HF_KERNEL_OUT=$out/kernel-ci-images \
		"$repo/scripts/kernel-ci.sh" "${ksteps[@]}" >"$l" 2>&1; then
		setup_fail kernels "scripts/kernel-ci.sh ${ksteps[*]} failed" "$l"
		finish
	fi
	for k in "${kernels[@]}"; do
		b=$hf_cache/kernel/$(hf_kernel_suite "$k")
		read -r abi _ <"$b/root/ABI"
		# the suite's kernel must still be the one the configuration says
		case $abi in
		"$k".*) ;;
		*)
			setup_fail "kernel-$k" "$(hf_kernel_suite "$k")'s kernel is now $abi, not $k: update configs.sh"
			finish
			;;
		esac
		K_KVER[$k]=$abi-amd64
		K_KDIR[$k]=$b/root/usr/src/linux-headers-$abi-amd64
		K_ROOT[$k]=$b/guest-amd64
	done
fi

# ------------------------------------------------------ kernel modules --
# build_modules SFX KDIR FLAVORS [MAKE ARGS...]: hellofpga.ko and the test
# modules of tests/guest/kmod/ against KDIR, from copies in $out/src$SFX,
# staged into $out/stage$SFX/lib/modules-extra.  SFX: "" (x86_64) or
# -arm64 (cross: ARCH=arm64 CROSS_COMPILE=...); FLAVORS: the flavors of a
# kmod with a Makefile (default tegra, or tegra only).
build_modules() {
	local sfx=$1 kdir=$2 flavors=$3 stage=$out/stage$1 src=$out/src$1
	local drv_src d n l fl args klog nv_src=
	shift 3
	local margs=("$@")
	rm -rf "$stage" "$src"
	mkdir -p "$stage/lib/modules-extra" "$stage/tests/bin" "$stage/tests/libtests" \
		"$stage/tests/cases" "$src"
	# A copy of the sources without in-place build outputs (driver/ includes
	# ../core, ../refdesign (a tree older than it: none) and ../include;
	# kmods may include ../../../../include/...).
	drv_src=${HF_GUEST_DRIVER_SRC:-$repo}
	(cd "$drv_src" && tar -cf - --exclude='*.o' --exclude='*.ko' --exclude='*.cmd' \
		--exclude='*.mod' --exclude='*.mod.c' --exclude='Module.symvers' \
		--exclude='modules.order' CMakeLists.txt driver core include \
		$(ls -d refdesign 2>/dev/null)) |
		tar -xf - -C "$src"
	[ -d "$repo/tests/guest/kmod" ] && (cd "$repo" && tar -cf - --exclude='*.o' \
		--exclude='*.ko' --exclude='*.cmd' --exclude='*.mod' --exclude='*.mod.c' \
		--exclude='Module.symvers' --exclude='modules.order' \
		--exclude='tests/guest/kmod/*/build' tests/guest/kmod) | tar -xf - -C "$src"
	[ "$drv_src" = "$repo" ] || log "hellofpga.ko from $drv_src (HF_GUEST_DRIVER_SRC)"
	klog=$out/logs/setup-driver$sfx.log
	log "build hellofpga.ko against $kdir"
	if make -C "$kdir" M="$src/driver" "${margs[@]}" -j "$JOBS" modules >"$klog" 2>&1 &&
		[ -f "$src/driver/hellofpga.ko" ]; then
		cp "$src/driver/hellofpga.ko" "$stage/lib/modules-extra/"
	else
		setup_fail "driver-build$sfx" "make hellofpga.ko failed" "$klog"
	fi
	# tests/guest/kmod/NAME/: with a Makefile, "make install" into
	# /lib/modules-extra/NAME/ once per flavor (default, then TEGRA=1: the
	# two nvidia_p2p APIs), given KDIR, HF_SYMVERS, NVIDIA_SRC_DIR, OUT,
	# DESTDIR; Kbuild only: built with kbuild against hellofpga's
	# Module.symvers, the .ko files into /lib/modules-extra/.
	for d in "$src"/tests/guest/kmod/*/; do
		d=${d%/}
		n=$(basename "$d")
		l=$out/logs/setup-kmod-$n$sfx.log
		: >"$l"
		if [ -f "$d/Makefile" ]; then
			if [ -z "$nv_src" ] && [ "$flavors" != tegra ]; then
				nv_src=$(exec 9>"$hf_cache/.lock.nv"; flock 9
					bash "$repo/scripts/fetch-nv-p2p.sh" "$hf_cache/nvidia-open" 2>>"$l" | tail -n 1)
			fi
			for fl in $flavors; do
				args=()
				if [ "$fl" = tegra ]; then
					args=(TEGRA=1)
				elif [ -n "$nv_src" ]; then
					args=(NVIDIA_SRC_DIR="$nv_src")
				fi
				log "build test module $n ($fl flavor${sfx:+, $sfx})"
				if ! make -C "$d" KDIR="$kdir" HF_SYMVERS="$src/driver/Module.symvers" \
					"${margs[@]}" "${args[@]}" OUT="$out/kmod$sfx/$n/$fl" \
					DESTDIR="$stage/lib/modules-extra/$n" install >>"$l" 2>&1; then
					setup_fail "kmod-$n-$fl$sfx" "make install of tests/guest/kmod/$n (${args[*]}) failed" "$l"
				fi
			done
		elif [ -f "$d/Kbuild" ]; then
			log "build test module $n${sfx:+ ($sfx)}"
			if make -C "$kdir" M="$d" "${margs[@]}" -j "$JOBS" \
				KBUILD_EXTRA_SYMBOLS="$src/driver/Module.symvers" modules >"$l" 2>&1 &&
				ls "$d"/*.ko >/dev/null 2>&1; then
				cp "$d"/*.ko "$stage/lib/modules-extra/"
			else
				setup_fail "kmod-$n$sfx" "Kbuild of tests/guest/kmod/$n failed" "$l"
			fi
		fi
	done
}
# stage_vgem MODULES DEST: the dma-buf exporter stand-in of Debian's
# kernel (no udmabuf there), vgem, and the modules it depends on (modinfo;
# 6.1: drm drm_shmem_helper, 6.12 also drm_kms_helper) from the kernel's
# /lib/modules/KVER into DEST, uncompressed (6.12 ships .ko.xz), with
# DEST/vgem.order, the order to load them in (cases/gpu_vgem.sh)
stage_vgem() {
	local mods=$1 dest=$2 order=()
	local -A seen=()
	visit() {
		local n=$1 f d
		[ -n "${seen[$n]:-}" ] && return 0
		seen[$n]=1
		f=$(find "$mods/kernel/drivers/gpu" -name "$n.ko" -o -name "$n.ko.xz" |
			head -n 1)
		[ -n "$f" ] || return 1
		for d in $(modinfo -F depends "$f" | tr , ' '); do visit "$d" || return 1; done
		case $f in
		*.xz) xz -dc "$f" >"$dest/$n.ko" || return 1 ;;
		*) cp "$f" "$dest/$n.ko" || return 1 ;;
		esac
		order+=("$n")
	}
	# without them cases/gpu_vgem.sh skips (as it did before)
	if visit vgem; then
		echo "${order[*]}" >"$dest/vgem.order"
	else
		log "vgem or a module it needs is not in $mods: cases/gpu_vgem.sh will skip"
	fi
}
if [ -n "$want_k61" ]; then
	build_modules "" "$KDIR" "default tegra"
	stage_vgem "/lib/modules/$KVER" "$out/stage/lib/modules-extra"
fi
for k in "${kernels[@]}"; do
	build_modules "-k$k" "${K_KDIR[$k]}" "default tegra"
	stage_vgem "${K_ROOT[$k]}/lib/modules/${K_KVER[$k]}" \
		"$out/stage-k$k/lib/modules-extra"
done
# arm64: only the Tegra flavor of the stand-in (what Jetson has; the arm64
# guests run cases/gpu_nvp2p_tegra.sh and no dma-buf case)
[ -n "$want_arm" ] && build_modules -arm64 "$ARM_KDIR" tegra \
	ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-

# ---------------------------------------------------- static user space --
# build_userspace SFX CC [CMAKE ARGS...]: a separate static CMake build
# ($out/static$SFX) of the CLI and the library tests, and progs/*.c with
# CC -static, into $out/stage$SFX; the case scripts and their helpers.
libtests=(test_xfer test_badinput test_open test_gpudirect test_user_irq)
build_userspace() {
	local sfx=$1 cc=$2 stage=$out/stage$1 bld=$out/static$1 ulog p n l c t
	shift 2
	ulog=$out/logs/setup-userspace$sfx.log
	log "static build of the CLI and ${libtests[*]}${sfx:+ ($sfx)}"
	if cmake -S "$repo" -B "$bld" -DCMAKE_BUILD_TYPE=Release "$@" \
		-DCMAKE_EXE_LINKER_FLAGS=-static -DHF_BUILD_TESTS=ON \
		-DHF_RTL=OFF >"$ulog" 2>&1 &&
		cmake --build "$bld" -j "$JOBS" --target hellofpga_cli \
			"${libtests[@]}" >>"$ulog" 2>&1; then
		# the CLI and the program of its "test" command, found beside it
		cp "$bld/bin/hellofpga" "$bld/bin/hellofpga-test" "$stage/tests/bin/"
		for t in "${libtests[@]}"; do cp "$bld/bin/$t" "$stage/tests/libtests/"; done
	else
		setup_fail "userspace-build$sfx" "static CMake build failed" "$ulog"
	fi
	for p in "$repo"/tests/guest/progs/*.c; do
		[ -f "$p" ] || continue
		n=$(basename "$p" .c)
		l=$out/logs/setup-prog-$n$sfx.log
		if ! "$cc" -O2 -g -Wall -static -pthread -I"$repo/include" \
			-I"$bld/include" -I"$repo/lib" \
			-I"$repo/tests" -I"$repo/core" -I"$repo/refdesign" \
			-o "$stage/tests/bin/$n" "$p" \
			"$bld/lib/libhellofpga.a" -ldl >"$l" 2>&1; then
			setup_fail "prog-$n$sfx" "$cc -static tests/guest/progs/$n.c failed" "$l"
		fi
	done
	for c in "$repo"/tests/guest/cases/*.sh; do
		[ -f "$c" ] && install -m 755 "$c" "$stage/tests/cases/"
	done
	install -m 644 "$here/case-lib.sh" "$stage/tests/case-lib.sh"
	# the packages' udev rule, applied by the udev built-in case (init)
	install -m 644 "$repo/packaging/udev/60-hellofpga.rules" "$stage/tests/"
	install -m 644 "$here/../../results.sh" "$stage/tests/results.sh"
	# cases/doctor.sh runs the recorder, a bash script: Debian's static
	# bash (x86 only; the arm64 guests do not run that case)
	install -m 644 "$repo/scripts/doctor-record.sh" "$stage/tests/"
	[ -n "$sfx" ] || install -m 755 /bin/bash-static "$stage/tests/bin/bash"
}
if [ -n "$want_x86" ]; then
	# the static user space is the same for every x86 kernel: built into
	# $out/stage once (which has no modules when no configuration boots
	# Debian 12's kernel), copied next to each other kernel's modules
	[ -n "$want_k61" ] || { rm -rf "$out/stage" && mkdir -p "$out/stage/tests/bin" \
		"$out/stage/tests/libtests" "$out/stage/tests/cases"; }
	build_userspace "" gcc
	for k in "${kernels[@]}"; do
		rm -rf "$out/stage-k$k/tests" && cp -a "$out/stage/tests" "$out/stage-k$k/"
	done
fi
[ -n "$want_arm" ] && build_userspace -arm64 aarch64-linux-gnu-gcc \
	-DCMAKE_TOOLCHAIN_FILE="$repo/cmake/toolchains/aarch64-linux-gnu.cmake"

# --------------------------------------------------- kernel + initramfs --
# vmlinux VMLINUZ KVER: sets VMLINUX to the kernel to boot, the ELF vmlinux
# inside the bzImage ($out/vmlinux-KVER, extracted once): PVH entry skips
# the decompressor, about 4 s of every TCG boot (6.1's payload is xz,
# 6.12's zstd: the zstd tool); the bzImage itself if that fails.
vmlinux() {
	local z=$1 k=$out/vmlinux-$2 l=$out/logs/setup-vmlinux-$2.log
	if [ ! -s "$k" ]; then
		log "extracting vmlinux from $z"
		if ! python3 - "$z" "$k.tmp" >"$l" 2>&1 <<'PY'
import gzip, lzma, struct, subprocess, sys
d = open(sys.argv[1], 'rb').read()
# the compressed kernel, found through the bzImage's setup header: the
# protected-mode code at (setup_sects + 1) * 512, payload_offset and
# payload_length from there; its last 4 bytes are the uncompressed size
code = ((d[0x1f1] or 4) + 1) * 512
off, length = struct.unpack_from('<II', d, 0x248)
p = d[code + off:code + off + length]
size, p = struct.unpack('<I', p[-4:])[0], p[:-4]
if p[:6] == b'\xfd7zXZ\x00':
    out = lzma.LZMADecompressor().decompress(p)
elif p[:4] == b'\x28\xb5\x2f\xfd':
    out = subprocess.run(['zstd', '-dc'], input=p, stdout=subprocess.PIPE,
                         check=True).stdout
elif p[:2] == b'\x1f\x8b':
    out = gzip.decompress(p)
else:
    sys.exit('unknown compression of the payload, magic ' + p[:6].hex())
assert out[:4] == b'\x7fELF', 'no ELF inside the bzImage'
assert len(out) == size, 'vmlinux of %d bytes, the bzImage says %d' % (len(out), size)
open(sys.argv[2], 'wb').write(out)
PY
		then
			setup_fail "vmlinux-$2" "cannot extract vmlinux from $z" "$l"
			VMLINUX=$z
			return
		fi
		mv "$k.tmp" "$k"
	fi
	VMLINUX=$k
}
kernel='' kernel_arm=''
declare -A K_KERNEL=()
if [ -n "$want_k61" ]; then
	vmlinux "/boot/vmlinuz-$KVER" "$KVER"
	kernel=$VMLINUX
	if ! "$here/mkinitramfs.sh" "$out/stage" "$out/initramfs.cpio.gz" >"$out/logs/setup-initramfs.log" 2>&1; then
		setup_fail initramfs "mkinitramfs.sh failed" "$out/logs/setup-initramfs.log"
		finish
	fi
fi
for k in "${kernels[@]}"; do
	vmlinux "${K_ROOT[$k]}/boot/vmlinuz-${K_KVER[$k]}" "${K_KVER[$k]}"
	K_KERNEL[$k]=$VMLINUX
	if ! "$here/mkinitramfs.sh" "$out/stage-k$k" "$out/initramfs-k$k.cpio.gz" \
		>"$out/logs/setup-initramfs-k$k.log" 2>&1; then
		setup_fail "initramfs-k$k" "mkinitramfs.sh failed" "$out/logs/setup-initramfs-k$k.log"
		finish
	fi
done
if [ -n "$want_arm" ]; then
	# Debian's arm64 vmlinuz is the plain Image (EFI stub inside; the
	# virt machine boots it directly with -kernel, no firmware); its
	# config has what the guests need built in (PCI_HOST_GENERIC,
	# ARM_GIC_V3_ITS, ARM_SMMU_V3, SERIAL_AMBA_PL011): no modules of
	# its own in the initramfs.
	kernel_arm=$ARM_ROOT/boot/vmlinuz-$ARM_KVER
	if ! BUSYBOX=$ARM_ROOT/bin/busybox "$here/mkinitramfs.sh" "$out/stage-arm64" \
		"$out/initramfs-arm64.cpio.gz" >"$out/logs/setup-initramfs-arm64.log" 2>&1; then
		setup_fail initramfs-arm64 "mkinitramfs.sh (arm64) failed" "$out/logs/setup-initramfs-arm64.log"
		finish
	fi
fi

if [ -n "$qemu_pid" ]; then
	if ! wait "$qemu_pid"; then
		setup_fail qemu-build "scripts/build-qemu.sh failed" "$qemu_log"
		finish
	fi
fi
qemu='' qemu_arm=''
check_qemu() {	# check_qemu PATHFILE: the QEMU it names, if it has xdma-sim
	local q
	q=$(tail -n 1 "$1" 2>/dev/null)
	[ -x "$q" ] && "$q" -device help 2>/dev/null | grep -q '"xdma-sim"' && echo "$q"
}
if [ -n "$want_x86" ] && ! qemu=$(check_qemu "$out/qemu.path"); then
	setup_fail qemu-build "'$(tail -n 1 "$out/qemu.path" 2>/dev/null)' is not a qemu-system-x86_64 with -device xdma-sim" "$qemu_log"
	finish
fi
if [ -n "$want_arm" ] && ! qemu_arm=$(check_qemu "$out/qemu-aarch64.path"); then
	setup_fail qemu-build-arm64 "'$(tail -n 1 "$out/qemu-aarch64.path" 2>/dev/null)' is not a qemu-system-aarch64 with -device xdma-sim" "$qemu_log"
	finish
fi
# the TCG plugin of CFG_PLUGIN=insn: the one scripts/build-qemu.sh put
# next to the launcher (bin/<key>/hf_insn.so, also build-qemu.sh --plugin)
plugin_insn=
if [ -n "$qemu" ]; then
	p=${HF_GUEST_PLUGIN_INSN:-$(dirname "$(readlink -f "$qemu")")/hf_insn.so}
	[ -f "$p" ] && plugin_insn=$p
fi
# xdma-sim,rtl=on: QEMU loads the RTL co-simulation plugin, built here for
# the host (refdesign/sim/, Verilator)
rtl_plugin=
if [ -n "$want_rtl" ]; then
	l=$out/logs/setup-rtl-plugin.log
	log "the RTL co-simulation plugin for QEMU (Verilator)"
	if cmake -S "$repo" -B "$out/rtl-host" -DCMAKE_BUILD_TYPE=Release \
		-DHF_BUILD_TESTS=OFF -DHF_PYTHON=OFF -DHF_RTL=ON >"$l" 2>&1 &&
		cmake --build "$out/rtl-host" -j "$JOBS" --target hf_refdesign_rtl >>"$l" 2>&1; then
		rtl_plugin=$out/rtl-host/lib/hellofpga/libhf_refdesign_rtl.so
	else
		setup_fail rtl-plugin "the RTL co-simulation plugin did not build" "$l"
	fi
fi
cat >"$out/guest.env" <<ENV
HF_QEMU='$qemu'
HF_RTL_PLUGIN='$rtl_plugin'
HF_PLUGIN_INSN='$plugin_insn'
HF_QEMU_DATA='${HF_GUEST_QEMU_DATA:-}'
HF_KERNEL='$kernel'
HF_INITRD='$([ -n "$want_k61" ] && echo "$out/initramfs.cpio.gz")'
HF_QEMU_AARCH64='$qemu_arm'
HF_KERNEL_AARCH64='$kernel_arm'
HF_INITRD_AARCH64='$([ -n "$want_arm" ] && echo "$out/initramfs-arm64.cpio.gz")'
ENV
# the other kernels' (run-config.sh: HF_KERNEL_<CFG_KERNEL, . as _>)
for k in "${kernels[@]}"; do
	printf "HF_KERNEL_%s='%s'\nHF_INITRD_%s='%s'\n" "${k//./_}" "${K_KERNEL[$k]}" \
		"${k//./_}" "$out/initramfs-k$k.cpio.gz"
done >>"$out/guest.env"
log "setup done: QEMU ${qemu}${qemu:+${qemu_arm:+ }}${qemu_arm}"
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
