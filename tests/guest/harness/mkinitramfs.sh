#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# mkinitramfs.sh STAGE OUT.cpio.gz - the test guest's initramfs.
#
# A fresh root with busybox-static (/bin/busybox, /bin/sh), this directory's
# init as /init, the empty mount points, then everything under STAGE on top
# (guest-ci.sh stages /lib/modules-extra/*.ko, /tests/bin, /tests/libtests,
# /tests/cases).  gzip -1: the kernel unpacks it under TCG, and a smaller
# archive is not worth the compression time.
set -euo pipefail
here=$(cd "$(dirname "$(readlink -f "$0")")" && pwd)
stage=$(cd "$1" && pwd)
out=$(realpath -m "$2")
busybox=${BUSYBOX:-/bin/busybox}
[ -x "$busybox" ] && ! readelf -l "$busybox" | grep -q 'program interpreter' || {
	echo "mkinitramfs.sh: $busybox is not statically linked (apt-get install busybox-static)" >&2
	exit 1
}
root=$(mktemp -d "${TMPDIR:-/tmp}/hf-guest-root.XXXXXX")
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,sbin,proc,sys,dev,tmp,etc,root,lib/modules-extra,tests/bin,tests/libtests,tests/cases}
cp "$busybox" "$root/bin/busybox"
ln -s busybox "$root/bin/sh"
install -m 755 "$here/init" "$root/init"
cp -a "$stage"/. "$root"/
mkdir -p "$(dirname "$out")"
(cd "$root" && find . -print0 | LC_ALL=C sort -z |
	cpio --null -o -H newc --quiet -R 0:0 | gzip -1) >"$out.tmp"
mv "$out.tmp" "$out"
