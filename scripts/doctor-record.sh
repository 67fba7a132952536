#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# doctor-record.sh - record what "hellofpga doctor" reads of this machine
# into a tree that "hellofpga doctor --root DIR" reads instead.
#
#	scripts/doctor-record.sh [--hex] [--from ROOT] DIR
#
# DIR receives trimmed copies of exactly the files the doctor reads
# (docs/doctor.md, "Recording a machine"): of /sys/module (hellofpga,
# hellofpga_nvp2p, nvidia, nvgpu), /proc/driver/nvidia/version,
# /proc/cmdline, the first line of /proc/meminfo, the kernel options it
# checks from /boot/config-$(uname -r) or /proc/config.gz, the PCI
# functions of /sys/bus/pci/devices (IDs and driver of every one; config
# space, links, resources, NUMA node and IOMMU group of the card, the
# NVIDIA GPUs and the bridges above them), /sys/class/iommu and the IOMMU
# group types; and DIR/doctor-env, the facts that are not files: uid and
# groups (those of $SUDO_USER under sudo), RLIMIT_MEMLOCK of this shell,
# uname -r, the /dev/hellofpga* nodes, and, when a hellofpga binary is
# found ($HELLOFPGA_CLI, build/bin/hellofpga, then $PATH), what the
# library sees of the card and of CUDA (its "doctor --print-env").
#
# Run it as root: without root the kernel shows only the first 64 bytes
# of config space (no capabilities: the ACS and MPS checks are skipped).
# --hex writes each config space as config.hex (od -tx1 text) instead of
# the binary config, for a fixture to commit (the tests unpack it).
# --from ROOT records from a tree instead of / (the tests record a
# recorded tree again); doctor-env is then copied from ROOT.
# Needs bash and coreutils only (gzip for /proc/config.gz).
set -u

usage() {
	echo "usage: $0 [--hex] [--from ROOT] DIR" >&2
	exit 2
}

hex=0
from=
while [ $# -gt 1 ]; do
	case $1 in
	--hex) hex=1; shift ;;
	--from) from=${2%/}; shift 2 ;;
	*) usage ;;
	esac
done
[ $# -eq 1 ] || usage
case $1 in -*) usage ;; esac
out=${1%/}
mkdir -p "$out" || exit 1

# put FILE: copy FILE (an absolute path) of the system into the tree.
put() {
	[ -f "$from$1" ] && [ -r "$from$1" ] || return 0
	mkdir -p "$out$(dirname "$1")" && cat "$from$1" >"$out$1" 2>/dev/null
}

# link PATH: recreate symbolic link PATH with the same target.
link() {
	[ -L "$from$1" ] || return 0
	mkdir -p "$out$(dirname "$1")" &&
		ln -sfn "$(readlink "$from$1")" "$out$1"
}

# config PATH: a config space, binary or (--hex) as text.
config() {
	[ -r "$from$1" ] || return 0
	if [ "$hex" = 1 ]; then
		od -An -v -tx1 "$from$1" >"$out$1.hex"
	else
		cat "$from$1" >"$out$1"
	fi
}

# --- modules, NVIDIA, kernel command line, memory -----------------------
for m in hellofpga hellofpga_nvp2p nvidia nvgpu; do
	d=/sys/module/$m
	[ -d "$from$d" ] || continue
	put "$d/version"
	put "$d/initstate"
	[ -f "$out$d/version" ] || [ -f "$out$d/initstate" ] ||
		{ mkdir -p "$out$d" && echo live >"$out$d/initstate"; }
done
for p in "$from"/sys/module/hellofpga/parameters/*; do
	[ -f "$p" ] && put "${p#"$from"}"
done
put /proc/driver/nvidia/version
put /proc/cmdline
if [ -r "$from/proc/meminfo" ]; then
	mkdir -p "$out/proc" && head -n 1 "$from/proc/meminfo" >"$out/proc/meminfo"
fi

# --- the kernel options the doctor checks --------------------------------
# kconfig_lines: the lines of standard input about those options.
kconfig_lines() {
	local l

	while IFS= read -r l; do
		case $l in
		*CONFIG_DMA_SHARED_BUFFER[=\ ]* | *CONFIG_PCI_P2PDMA[=\ ]* | \
		*CONFIG_DMABUF_MOVE_NOTIFY[=\ ]*) printf '%s\n' "$l" ;;
		esac
	done
}
if [ -n "$from" ]; then
	kernel=
	while IFS= read -r l; do
		case $l in kernel=*) kernel=${l#kernel=} ;; esac
	done <"$from/doctor-env" 2>/dev/null
else
	kernel=$(uname -r)
fi
if [ -n "$kernel" ] && [ -r "$from/boot/config-$kernel" ]; then
	mkdir -p "$out/boot"
	kconfig_lines <"$from/boot/config-$kernel" >"$out/boot/config-$kernel"
elif [ -r "$from/proc/config.gz" ] && command -v gzip >/dev/null; then
	mkdir -p "$out/proc"
	gzip -dc <"$from/proc/config.gz" | kconfig_lines | gzip -n >"$out/proc/config.gz"
fi

# --- PCI -----------------------------------------------------------------
# the functions whose details the doctor reads: the card, NVIDIA GPUs
# and every bridge above them
declare -A detail=()
for dev in "$from"/sys/bus/pci/devices/*; do
	[ -L "$dev" ] || continue
	bdf=${dev##*/}
	target=$(readlink "$dev")
	rel=${target##*devices/}
	mkdir -p "$out/sys/devices/$rel"
	link "/sys/bus/pci/devices/$bdf"
	for f in vendor device class; do
		put "/sys/devices/$rel/$f"
	done
	link "/sys/devices/$rel/driver"
	vendor=$(cat "$dev/vendor" 2>/dev/null)
	class=$(cat "$dev/class" 2>/dev/null)
	drv=$(readlink "$dev/driver" 2>/dev/null)
	if [ "$vendor" = 0x10ee ] || [ "${drv##*/}" = hellofpga ] ||
	   { [ "$vendor" = 0x10de ] && [ "${class:0:4}" = 0x03 ]; }; then
		IFS=/ read -ra parts <<<"$rel"
		for p in "${parts[@]}"; do
			case $p in
			pci*) ;;
			*) detail[$p]=1 ;;
			esac
		done
	fi
done
for bdf in "${!detail[@]}"; do
	dev=$from/sys/bus/pci/devices/$bdf
	[ -L "$dev" ] || continue
	target=$(readlink "$dev")
	rel=/sys/devices/${target##*devices/}
	config "$rel/config"
	for f in current_link_speed current_link_width max_link_speed \
		 max_link_width resource numa_node; do
		put "$rel/$f"
	done
	link "$rel/iommu_group"
done

# --- IOMMU ---------------------------------------------------------------
for u in "$from"/sys/class/iommu/*; do
	[ -L "$u" ] && link "${u#"$from"}"
done
for g in "$from"/sys/kernel/iommu_groups/*; do
	[ -d "$g" ] && put "${g#"$from"}/type"
done

# --- the facts that are not files ----------------------------------------
if [ -n "$from" ]; then
	[ -r "$from/doctor-env" ] && cat "$from/doctor-env" >"$out/doctor-env"
else
	user=${SUDO_USER:-}
	{
		echo "# recorded by scripts/doctor-record.sh, $(date -u +%FT%TZ)"
		echo "uid=$(id -u $user)"
		echo "gids=$(id -G $user)"
		m=$(ulimit -l)
		if [ "$m" = unlimited ]; then
			echo "memlock=unlimited"
		else
			echo "memlock=$((m * 1024))"
		fi
		echo "kernel=$kernel"
		for n in /dev/hellofpga*; do
			[ -c "$n" ] && echo "node=$(stat -c '%n %04a %u %g' "$n")"
		done
		read -ra ids <<<"$(id -G $user)"
		read -ra names <<<"$(id -Gn $user)"
		for i in "${!ids[@]}"; do
			echo "group=${ids[$i]} ${names[$i]:-${ids[$i]}}"
		done
		for n in /dev/hellofpga*; do
			[ -c "$n" ] && echo "group=$(stat -c '%g %G' "$n")"
		done | sort -u
		cli=${HELLOFPGA_CLI:-}
		top=$(dirname "$(readlink -f "$0")")/..
		[ -n "$cli" ] || { [ -x "$top/build/bin/hellofpga" ] &&
				   cli=$top/build/bin/hellofpga; }
		[ -n "$cli" ] || cli=$(command -v hellofpga)
		if [ -n "$cli" ]; then
			"$cli" doctor --print-env 2>/dev/null | while IFS= read -r l; do
				case ${l%%=*} in
				abi | features | card_error | card_errno | gpu_* | \
				cuda_driver | rdma_supported | dmabuf_supported)
					printf '%s\n' "$l" ;;
				esac
			done
		fi
	} >"$out/doctor-env"
fi
echo "recorded into $out; check it with: hellofpga doctor --root $out"
