#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
# dkms-build.sh - the DKMS build of hellofpga.ko and hellofpga-nvp2p.ko,
# in the DKMS source tree /usr/src/hellofpga-VERSION (package hellofpga-dkms,
# from packaging/dkms/ of the hellofpga tree).
#
#   dkms-build.sh build KVER KDIR VERSION   (dkms.conf's MAKE) hellofpga.ko
#       for kernel KVER with the headers in KDIR, then hellofpga-nvp2p.ko
#       against it where NVIDIA's kernel source is found, else a line in
#       make.log saying why it is skipped (not a failure)
#   dkms-build.sh nvidia KVER KDIR          (dkms.conf) the NVIDIA source
#       the build would use: "FLAVOR NV-P2P.H SHA256", nothing when none
#   dkms-build.sh retrigger VERSION         (the package's dpkg trigger on
#       /usr/src) rebuild hellofpga VERSION for every kernel it is built for
#       whose make.log names other NVIDIA source than is there now
#
# NVIDIA's source: $NVIDIA_SRC_DIR if set (a tree holding nvidia/nv-p2p.h,
# kernel-open/nvidia/nv-p2p.h or nv-p2p.h), else the newest
# /usr/src/nvidia-*/nvidia/nv-p2p.h (NVIDIA's DKMS trees: Debian's
# nvidia-kernel-dkms is /usr/src/nvidia-current-VER, nvidia-open-kernel-dkms
# /usr/src/nvidia-current-open-VER, NVIDIA's own packages and installer
# /usr/src/nvidia-VER) or .../kernel-open/nvidia/nv-p2p.h; on arm64 a
# Jetson's L4T header (/usr/src/nvidia/nvidia-oot/include/linux/nv-p2p.h
# or KDIR/include/linux/nv-p2p.h) builds the Tegra flavor.
# $NVIDIA_SYMVERS: NVIDIA's Module.symvers for modpost; default: one
# driver/nvp2p/nv-symvers.sh writes from the nvidia.ko installed for KVER
# (modinfo -k KVER -n nvidia), else the stub's (driver/nvp2p/Makefile).
set -eu

cd "$(dirname "$0")"

# The first nv-p2p.h of a tree, in the layouts driver/nvp2p/Makefile knows.
nv_p2p_in() {
	for h in "$1/nv-p2p.h" "$1/nvidia/nv-p2p.h" \
		"$1/kernel-open/nvidia/nv-p2p.h" "$1/include/linux/nv-p2p.h"; do
		if [ -f "$h" ]; then
			echo "$h"
			return 0
		fi
	done
	return 1
}

# nvidia KVER KDIR: "desktop|tegra HEADER SHA256" or nothing
nvidia() {
	kdir=$2
	flavor=desktop
	h=
	if [ -n "${NVIDIA_SRC_DIR:-}" ]; then
		h=$(nv_p2p_in "$NVIDIA_SRC_DIR") || h=
	else
		h=$(for f in /usr/src/nvidia-*/nvidia/nv-p2p.h \
			/usr/src/nvidia-*/kernel-open/nvidia/nv-p2p.h; do
			[ -f "$f" ] && echo "$f"
		done | sort -V | tail -n 1)
	fi
	if [ -z "$h" ] && [ -z "${NVIDIA_SRC_DIR:-}" ] &&
		grep -q '^CONFIG_ARM64=y' "$kdir/.config" 2>/dev/null; then
		for t in /usr/src/nvidia/nvidia-oot/include/linux/nv-p2p.h \
			"$kdir/include/linux/nv-p2p.h"; do
			if [ -f "$t" ]; then
				h=$t
				flavor=tegra
				break
			fi
		done
	fi
	[ -n "$h" ] || return 0
	echo "$flavor $h $(sha256sum <"$h" | cut -d' ' -f1)"
}

build() {
	kver=$1 kdir=$2 version=$3
	jobs=$(nproc 2>/dev/null || echo 1)
	echo "hellofpga $version for $kver (headers: $kdir)"
	make -j"$jobs" -C driver KVER="$kver" KDIR="$kdir" HF_VERSION="$version" modules

	nv=$(nvidia "$kver" "$kdir")
	if [ -z "$nv" ]; then
		echo "hellofpga-nvp2p: nvidia=none"
		echo "hellofpga-nvp2p: skipped: no NVIDIA kernel driver source (nvidia/nv-p2p.h under /usr/src/nvidia-*, or NVIDIA_SRC_DIR=...)."
		echo "hellofpga-nvp2p: hellofpga.ko works without it (host memory, dma-bufs); for GPU Direct with CUDA memory install NVIDIA's DKMS driver (Debian: nvidia-kernel-dkms or nvidia-open-kernel-dkms) and hellofpga is rebuilt."
		return 0
	fi
	# shellcheck disable=SC2086 # three words, none with spaces
	set -- $nv
	flavor=$1 h=$2
	echo "hellofpga-nvp2p: nvidia=$nv"
	if [ "$flavor" = tegra ]; then
		set -- TEGRA=1 NVIDIA_SRC_DIR="$(dirname "$(dirname "$(dirname "$h")")")"
	else
		d=$(dirname "$h")
		case $d in
		*/kernel-open/nvidia) d=${d%/kernel-open/nvidia} ;;
		*/nvidia) d=${d%/nvidia} ;;
		esac
		set -- NVIDIA_SRC_DIR="$d"
	fi
	# the symbol versions: NVIDIA_SYMVERS, else those of the nvidia.ko
	# installed for this kernel, else the stub's (the same header and
	# kernel headers, so the same CRCs; modpost needs some)
	sv=${NVIDIA_SYMVERS:-}
	nvko=
	if [ -z "$sv" ] && [ "$flavor" = desktop ]; then
		nvko=$(modinfo -k "$kver" -n nvidia 2>/dev/null) || nvko=
		if [ -f "$nvko" ] && sh driver/nvp2p/nv-symvers.sh "$nvko" "$PWD/nvidia.symvers"; then
			sv=$PWD/nvidia.symvers
		else
			nvko=
		fi
	fi
	if [ -n "$sv" ]; then
		echo "hellofpga-nvp2p: symbol versions from ${nvko:-$sv}"
		set -- "$@" NVIDIA_SYMVERS="$sv"
	else
		echo "hellofpga-nvp2p: symbol versions from the stub (no nvidia.ko for $kver yet)"
	fi
	echo "hellofpga-nvp2p: building against $h ($flavor)"
	make -j"$jobs" -C driver/nvp2p KVER="$kver" KDIR="$kdir" \
		HF_VERSION="$version" HF_SYMVERS="$PWD/driver/Module.symvers" "$@" modules
}

# retrigger VERSION: NVIDIA's source came, went or changed since a build
# (make.log's "hellofpga-nvp2p: nvidia=" line): unbuild (uninstalls what
# that build installed, dkms.conf reads its make.log) and install anew.
retrigger() {
	version=$1
	tree=/var/lib/dkms/hellofpga/$version
	for logf in "$tree"/*/*/log/make.log; do
		[ -f "$logf" ] || continue
		d=${logf%/log/make.log}
		arch=${d##*/}
		d=${d%/*}
		kver=${d##*/}
		was=$(sed -n 's/^hellofpga-nvp2p: nvidia=//p' "$logf" | tail -n 1)
		now=$(nvidia "$kver" "/lib/modules/$kver/build")
		[ "${now:-none}" != "${was:-none}" ] || continue
		echo "hellofpga-dkms: NVIDIA kernel source changed (${was:-none} -> ${now:-none}): rebuilding hellofpga $version for $kver"
		if ! dkms unbuild -m hellofpga -v "$version" -k "$kver/$arch" >/dev/null ||
			! dkms install -m hellofpga -v "$version" -k "$kver/$arch"; then
			echo "hellofpga-dkms: warning: rebuilding hellofpga $version for $kver failed: see $tree/build/make.log" >&2
		fi
	done
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case $cmd in
build) build "$@" ;;
nvidia) nvidia "$@" ;;
retrigger) retrigger "$@" ;;
*)
	echo "usage: dkms-build.sh build KVER KDIR VERSION | nvidia KVER KDIR | retrigger VERSION" >&2
	exit 2
	;;
esac
