#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# build-qemu.sh [--arch x86_64|aarch64] [--plugin] [CACHEDIR] - print the
# path of a qemu-system-x86_64 (default) or qemu-system-aarch64 with the
# hellofpga "xdma-sim" PCIe device (model/qemu/) compiled in, built from
# Debian's own qemu source package (bookworm: QEMU 7.2).  On aarch64 the
# card sits on the virt machine's PCIe host bridge (GPEX), as on q35's.
# --plugin: print the path of the TCG plugin hf_insn.so instead
# (tests/guest/plugin/hf_insn.c, guest kernel/user instruction counts
# between markers; built against this QEMU's include/qemu/qemu-plugin.h,
# QEMU is configured with --enable-plugins), next to the binary.
#
# The printed path is a small launcher that adds the firmware search paths
# (-L /usr/share/qemu -L /usr/share/seabios: Debian's dfsg source has no
# pc-bios blobs) and execs the real binary next to it.  The aarch64 guests
# boot with -kernel on virt (direct kernel boot): no firmware is needed.
#
# Cache (CACHEDIR, else $HF_QEMU_CACHE, else /var/cache/hellofpga/qemu as
# root, else ~/.cache/hellofpga/qemu):
#   src/<debver>/          apt-get source qemu (unpacked, Debian patches applied)
#   build/<debver>/        the configured ninja build tree (incremental), both
#                          targets: x86_64-softmmu, aarch64-softmmu (only the
#                          virt and sbsa-ref boards: --with-devices-aarch64=minimal)
#   bin/<key>/             qemu-system-ARCH (launcher) + qemu-system-ARCH.real,
#                          each built when first asked for; hf_insn.so
#   .lock                  flock(1) while building
# <key> = sha256 of the model sources (model/xdma_model*.{c,h},
# model/xdma_link.{c,h}, model/xdma_user.h, the core headers it includes,
# the reference design's user logic refdesign/hf_refdesign.{c,h}, its RTL
# plugin loader refdesign/hf_rtl_load.{c,h} and its
# headers),
# model/qemu/{*.c,*.h,meson.build} (not the README nor the smoke test),
# tests/guest/plugin/hf_insn.c, this script and the Debian qemu source
# version.  A hit costs a hash; a change of the model rebuilds incrementally
# (about 10-30 s); a cold build (no src/build) takes 3-4 min on 2 cores for
# x86_64, and aarch64 adds about 3 min (tests/guest/README.md, "Time").  A
# tree configured for x86_64 only (an older version of this script) is
# configured again for both, once: the common code is then compiled again
# (its config-host.h changes), the x86_64 target's objects mostly stay.  A
# tree configured without plugins (no CONFIG_PLUGIN=y in config-host.mak,
# older versions of this script) is configured again once too: CONFIG_PLUGIN
# changes config-host.h, so that is nearly a cold build (the TCG code of
# both targets).
#
# Cold path: a deb-src sources file in a PRIVATE apt directory (no change to
# /etc/apt or the system's package lists; removed on exit, also on failure),
# apt-get source qemu, build deps (apt-get install, root only), configure,
# ninja qemu-system-ARCH (x86_64-softmmu needs libfdt in 7.2: microvm; virt
# needs it anyway).  Runtime deps of the launcher: seabios and
# qemu-system-data (firmware, pvh.bin, linuxboot_dma.bin); installed here
# when missing and root.
#
# Everything but the path goes to stderr.  HF_QEMU_QUIET=1: less output.
set -euo pipefail

repo=$(cd "$(dirname "$(realpath "$0")")/.." && pwd)
self=$repo/scripts/build-qemu.sh

arch=x86_64 want_plugin=
while [ $# -gt 0 ]; do
	case $1 in
	--arch) arch=${2:?--arch x86_64|aarch64}; shift 2 ;;
	--arch=*) arch=${1#--arch=}; shift ;;
	--plugin) want_plugin=1; shift ;;
	*) break ;;
	esac
done
case $arch in
x86_64 | aarch64) ;;
*) echo "build-qemu: error: --arch $arch: x86_64 or aarch64" >&2; exit 2 ;;
esac
# both targets in one configured tree: the common objects are shared
targets=x86_64-softmmu,aarch64-softmmu
bin=qemu-system-$arch

if [ $# -ge 1 ] && [ -n "$1" ]; then
	cache=$1
elif [ -n "${HF_QEMU_CACHE:-}" ]; then
	cache=$HF_QEMU_CACHE
elif [ "$(id -u)" = 0 ]; then
	cache=/var/cache/hellofpga/qemu
else
	cache=${XDG_CACHE_HOME:-$HOME/.cache}/hellofpga/qemu
fi
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)

log() { [ -n "${HF_QEMU_QUIET:-}" ] || echo "build-qemu: $*" >&2; }
die() { echo "build-qemu: error: $*" >&2; exit 1; }

# Files of ours that go into the QEMU tree (hw/misc/xdma-sim/, flat: the
# model's quote includes then resolve next to it, no include path needed).
model_files=(model/xdma_model.c model/xdma_model_bar.c
	     model/xdma_model_engine.c model/xdma_model_sgdma.c
	     model/xdma_model_stream.c model/xdma_model_irq.c
	     model/xdma_model.h model/xdma_model_priv.h model/xdma_link.c
	     model/xdma_link.h model/xdma_user.h core/hf_os.h
	     core/os/hf_os_user.h core/xdma_regs.h refdesign/hf_refdesign.c
	     refdesign/hf_refdesign.h refdesign/hf_rtl_load.c
	     refdesign/hf_rtl_load.h refdesign/hf_user_regs.h
	     refdesign/hf_stream_pattern.h)
glue_files=()
while IFS= read -r f; do glue_files+=("$f"); done < <(
	cd "$repo" && find model/qemu -maxdepth 1 -type f \
		\( -name '*.c' -o -name '*.h' -o -name meson.build \) | LC_ALL=C sort)
# The TCG plugin(s), built against the tree's qemu-plugin.h into bin/<key>/.
plugin_src=tests/guest/plugin/hf_insn.c
plugin=hf_insn.so

# Debian qemu source version: from the binary package's Source field.
debver=$(apt-cache show qemu-system-x86 2>/dev/null |
	 sed -n 's/^Source: qemu (\(.*\))$/\1/p' | head -1)
[ -n "$debver" ] || debver=$(apt-cache show qemu-system-x86 2>/dev/null |
	 sed -n 's/^Version: //p' | head -1)
if [ -z "$debver" ] && [ -d "$cache/src" ]; then
	debver=$(ls "$cache/src" | sort -V | tail -1)
fi
[ -n "$debver" ] || die "cannot tell the Debian qemu source version (apt-get update?)"
dv=${debver//[:~]/_}

key=$( {
	cd "$repo"
	for f in "${model_files[@]}" "${glue_files[@]}" "$plugin_src" \
		scripts/build-qemu.sh; do
		printf '%s\n' "$f"; cat "$f"
	done
	printf 'debian-qemu %s\n' "$debver"
} | sha256sum | cut -c1-16)
out=$cache/bin/$key

hit() { [ -x "$out/$bin" ] && [ -x "$out/$bin.real" ] && [ -f "$out/$plugin" ]; }
# what to print: the launcher, or with --plugin the plugin
result=$out/$bin
[ -n "$want_plugin" ] && result=$out/$plugin

need_pkgs() {
	local p missing=()
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q 'install ok installed' || missing+=("$p")
	done
	[ ${#missing[@]} = 0 ] && return 0
	[ "$(id -u)" = 0 ] || die "missing packages (install as root): ${missing[*]}"
	log "apt-get install ${missing[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends "${missing[@]}" >&2
}

runtime_deps() { need_pkgs seabios qemu-system-data; }

if hit; then
	runtime_deps
	echo "$result"
	exit 0
fi

exec 9>"$cache/.lock"
flock 9
if hit; then	# another build made it while we waited
	runtime_deps
	echo "$result"
	exit 0
fi

t0=$(date +%s)
need_pkgs ninja-build meson libglib2.0-dev libpixman-1-dev zlib1g-dev \
	libfdt-dev pkg-config dpkg-dev python3 gcc make
runtime_deps

srcroot=$cache/src/$dv
find_src() { find "$srcroot" -mindepth 1 -maxdepth 1 -type d -name 'qemu-*' 2>/dev/null | head -1; }
src=$(find_src || true)
if [ -z "$src" ] || [ ! -f "$src/.hf-complete" ]; then
	rm -rf "$srcroot"
	mkdir -p "$srcroot"
	# deb-src through a private apt state: the sources file and the lists
	# live in a temporary directory, removed on exit (also on failure).
	apt_tmp=$(mktemp -d /tmp/hf-qemu-apt.XXXXXX)
	trap 'rm -rf "$apt_tmp"' EXIT
	mkdir -p "$apt_tmp/parts" "$apt_tmp/lists/partial" "$apt_tmp/cache/archives/partial"
	cat > "$apt_tmp/parts/hf-deb-src.sources" <<'EOF'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
	cat > "$apt_tmp/parts/hf-deb-src-security.sources" <<'EOF'
Types: deb-src
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
	apt_opts=(-o Dir::Etc::SourceList=/dev/null
		  -o Dir::Etc::SourceParts="$apt_tmp/parts"
		  -o Dir::State::Lists="$apt_tmp/lists"
		  -o Dir::Cache="$apt_tmp/cache"
		  -o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache=
		  -o APT::Sandbox::User=root)
	log "apt-get update (deb-src, private lists)"
	apt-get "${apt_opts[@]}" -qq update >&2
	log "apt-get source qemu=$debver"
	(cd "$srcroot" && apt-get "${apt_opts[@]}" -qq source "qemu=$debver" >&2) ||
		(cd "$srcroot" && apt-get "${apt_opts[@]}" -qq source qemu >&2)
	rm -rf "$apt_tmp"
	trap - EXIT
	src=$(find_src)
	[ -n "$src" ] || die "apt-get source qemu left no source tree in $srcroot"
	rm -f "$srcroot"/*.tar.* "$srcroot"/*.dsc 2>/dev/null || true
	touch "$src/.hf-complete"
fi

# Our device into the tree: hw/misc/xdma-sim/ + one subdir() line.
dev=$src/hw/misc/xdma-sim
mkdir -p "$dev"
for f in "${model_files[@]}" "${glue_files[@]}"; do
	dst=$dev/${f##*/}
	[ "$f" = core/os/hf_os_user.h ] && { mkdir -p "$dev/os"; dst=$dev/os/hf_os_user.h; }
	# copy only when changed, so ninja rebuilds only what changed
	cmp -s "$repo/$f" "$dst" 2>/dev/null || cp "$repo/$f" "$dst"
done
[ -f "$dev/meson.build" ] || die "model/qemu/meson.build missing"
grep -q "subdir('xdma-sim')" "$src/hw/misc/meson.build" ||
	printf "\n# hellofpga xdma-sim (scripts/build-qemu.sh)\nsubdir('xdma-sim')\n" \
		>> "$src/hw/misc/meson.build"

build=$cache/build/$dv
# configured for an older target list (x86_64 only): configure again in
# place (configure starts meson afresh; ninja rebuilds what the new
# configuration changes)
if [ -f "$build/build.ninja" ] &&
	! grep -q "^TARGET_DIRS=.*$arch-softmmu" "$build/config-host.mak" 2>/dev/null; then
	log "configure again: the tree has no $arch-softmmu"
	rm -f "$build/build.ninja"
fi
# configured without TCG plugins (older versions of this script)
if [ -f "$build/build.ninja" ] &&
	! grep -q '^CONFIG_PLUGIN=y' "$build/config-host.mak" 2>/dev/null; then
	log "configure again: the tree has no TCG plugin support"
	rm -f "$build/build.ninja"
fi
if [ ! -f "$build/build.ninja" ]; then
	[ -f "$build/config-host.mak" ] || { rm -rf "$build"; mkdir -p "$build"; }
	log "configure"
	(cd "$build" && "$src/configure" --target-list=$targets \
		--with-devices-aarch64=minimal \
		--without-default-features --enable-tcg --enable-kvm \
		--enable-plugins \
		--disable-docs --disable-werror --disable-user --disable-tools \
		>configure.log 2>&1) ||
		{ tail -30 "$build/configure.log" >&2; die "configure failed"; }
fi
log "ninja $bin (in $build)"
if ! ninja -C "$build" -j"$(nproc)" "$bin" >"$build/ninja.log" 2>&1; then
	grep -E 'error|Error' "$build/ninja.log" | head -30 >&2
	tail -20 "$build/ninja.log" >&2
	die "ninja failed (log: $build/ninja.log)"
fi

tmp=$cache/bin/.$key.tmp
rm -rf "$tmp"
mkdir -p "$tmp"
# the other target's binary of the same key, if built, stays
[ -d "$out" ] && cp -a "$out"/. "$tmp"/
cp "$build/$bin" "$tmp/$bin.real"
cat > "$tmp/$bin" <<EOF
#!/bin/sh
# $bin with xdma-sim (scripts/build-qemu.sh): Debian's dfsg
# source has no firmware blobs; use those of seabios and qemu-system-data.
exec "\$(dirname "\$(readlink -f "\$0")")/$bin.real" \\
	-L /usr/share/qemu -L /usr/share/seabios "\$@"
EOF
chmod +x "$tmp/$bin"
# the plugin: one C file against the API header of this tree (QEMU loads it
# with -plugin and resolves its qemu_plugin_* calls in the binary)
if ! ${CC:-cc} -O2 -g -Wall -Wextra -Wno-unused-parameter -shared -fPIC \
	-I"$src/include/qemu" -o "$tmp/$plugin" "$repo/$plugin_src" \
	>"$build/plugin.log" 2>&1; then
	cat "$build/plugin.log" >&2
	die "cc $plugin_src failed (log: $build/plugin.log)"
fi
[ -f "$tmp/INFO" ] || printf 'debian-qemu %s\nkey %s\n' "$debver" "$key" > "$tmp/INFO"
printf 'built %s %s\n' "$bin" "$(date -Is)" >> "$tmp/INFO"
rm -rf "$out"
mv "$tmp" "$out"
# keep the 8 newest binaries (worktrees side by side share the cache)
# and only this Debian version's tree
ls -1dt "$cache"/bin/*/ 2>/dev/null | tail -n +9 | xargs -r rm -rf
for d in "$cache"/src/* "$cache"/build/*; do
	if [ -d "$d" ] && [ "${d##*/}" != "$dv" ]; then rm -rf "$d"; fi
done
log "built in $(( $(date +%s) - t0 )) s: $out/$bin"
echo "$result"
