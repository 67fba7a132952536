#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# fetch-nv-p2p.sh [DIR] - fetch NVIDIA's open kernel sources (for nv-p2p.h)
# from Debian's non-free component WITHOUT installing the package, and print
# the directory to use as NVIDIA_SRC_DIR (the one holding nvidia/nv-p2p.h).
#
#   make -C driver/nvp2p NVIDIA_SRC_DIR="$(scripts/fetch-nv-p2p.sh)"
#
# DIR defaults to ${XDG_CACHE_HOME:-$HOME/.cache}/hellofpga/nvidia-open.
# Cached: when DIR already holds an unpacked tree nothing is downloaded.
#
# How: a separate apt sources file for bookworm contrib non-free (same
# mirror as /etc/apt/sources.list.d/debian.sources, Debian archive keyring)
# is written, apt-get update, `apt-get download nvidia-open-kernel-source`,
# then the sources file is removed (also on failure) and apt-get update runs
# again.  The .deb is unpacked with dpkg-deb -x and its
# /usr/src/nvidia-open-kernel.tar.xz untarred.  The package is never
# installed: its DKMS trigger would build nvidia.ko.
#
# Environment: NV_P2P_PACKAGE (default nvidia-open-kernel-source; append
# =VERSION to pin one), NV_P2P_SUITE (default bookworm).
# Needs root or sudo for the apt steps only.  Messages go to stderr; stdout
# carries only the directory.
set -euo pipefail

pkg=${NV_P2P_PACKAGE:-nvidia-open-kernel-source}
suite=${NV_P2P_SUITE:-bookworm}
dir=${1:-${XDG_CACHE_HOME:-$HOME/.cache}/hellofpga/nvidia-open}
srcfile=/etc/apt/sources.list.d/hellofpga-nonfree.sources
keyring=/usr/share/keyrings/debian-archive-keyring.gpg

msg() { printf 'fetch-nv-p2p: %s\n' "$*" >&2; }
die() { msg "$*"; exit 1; }

# The directory of an unpacked tree holding nvidia/nv-p2p.h, if any.
find_src() {
	local h
	h=$(find "$dir/src" -path '*/nvidia/nv-p2p.h' -print -quit 2>/dev/null) || true
	[ -n "$h" ] && dirname "$(dirname "$h")"
}

if src=$(find_src) && [ -n "$src" ]; then
	msg "cached: $src"
	printf '%s\n' "$src"
	exit 0
fi

# Download the .deb into $dir/deb (sets deb, dl, mirror, sudo).
download() {
	if [ "$(id -u)" -eq 0 ]; then
		sudo=()
	elif command -v sudo >/dev/null; then
		sudo=(sudo)
	else
		die "needs root or sudo for apt-get"
	fi

	# The Debian mirror the machine already uses (deb822 first, then one-line).
	mirror=
	if [ -r /etc/apt/sources.list.d/debian.sources ]; then
		mirror=$(awk '/^URIs:/ && $2 !~ /security/ { print $2; exit }' \
			/etc/apt/sources.list.d/debian.sources)
	fi
	if [ -z "$mirror" ] && [ -r /etc/apt/sources.list ]; then
		mirror=$(awk '$1 == "deb" && $0 !~ /security/ {
			for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { print $i; exit } }' \
			/etc/apt/sources.list)
	fi
	mirror=${mirror:-http://deb.debian.org/debian}
	[ -r "$keyring" ] || die "$keyring missing (package debian-archive-keyring)"
	[ -e "$srcfile" ] && die "$srcfile exists already (another run?); remove it first"

	dl=$(mktemp -d "$dir/deb/.dl.XXXXXX")
	chmod 0755 "$dl"	# apt-get download runs as _apt where it can

	cleanup() {
		if [ -e "$srcfile" ]; then
			"${sudo[@]}" rm -f "$srcfile"
			msg "removed $srcfile; apt-get update"
			"${sudo[@]}" apt-get -qq update >&2 || msg "apt-get update failed"
		fi
		rm -rf "$dl"
	}
	trap cleanup EXIT

	msg "adding $srcfile ($mirror $suite contrib non-free)"
	"${sudo[@]}" tee "$srcfile" >/dev/null <<-EOF
	# Written by hellofpga scripts/fetch-nv-p2p.sh; removed when it ends.
	Types: deb
	URIs: $mirror
	Suites: $suite
	Components: contrib non-free
	Signed-By: $keyring
	EOF
	msg "apt-get update"
	"${sudo[@]}" apt-get -qq update >&2
	msg "apt-get download $pkg"
	(cd "$dl" && "${sudo[@]}" apt-get -qq download "$pkg" >&2)
	deb=$(find "$dl" -maxdepth 1 -name '*.deb' -print -quit)
	[ -n "$deb" ] || die "apt-get download left no .deb"
	rm -f "$dir"/deb/*.deb
	mv "$deb" "$dir/deb/"
	deb=$dir/deb/$(basename "$deb")
	cleanup
	trap - EXIT
}

mkdir -p "$dir/deb"
deb=$(find "$dir/deb" -maxdepth 1 -name '*.deb' -print -quit)
if [ -n "$deb" ]; then
	msg "cached: $deb"
else
	download
fi

msg "unpacking $(basename "$deb")"
rm -rf "$dir/pkg" "$dir/src"
mkdir -p "$dir/pkg" "$dir/src"
dpkg-deb -x "$deb" "$dir/pkg"
tarball=$(find "$dir/pkg/usr/src" -maxdepth 1 -name 'nvidia-open-kernel*.tar.*' -print -quit)
[ -n "$tarball" ] || die "no /usr/src/nvidia-open-kernel.tar.* in $(basename "$deb")"
tar -xf "$tarball" -C "$dir/src"
rm -rf "$dir/pkg"
src=$(find_src) || true
[ -n "$src" ] || die "no nvidia/nv-p2p.h in $(basename "$tarball")"
msg "NVIDIA_SRC_DIR=$src"
printf '%s\n' "$src"
