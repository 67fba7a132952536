#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_install.sh BUILD_DIR SOURCE_DIR CASE VERSION
# Installs the build into a temporary prefix and builds an example the way a
# user would, then runs it on the emulated card.
#   seed_name:  cc example.c -lHelloFPGACore  (the seed's library name)
#   pkgconfig:  cc example.c $(pkg-config --cflags --libs hellofpga)
#   static:     cc example.c -l:libhellofpga.a -lpthread
#   cuda_examples: nvcc examples/*.cu -lHelloFPGACore (skipped without nvcc)
#   version:    CMake's project(VERSION) is what the installed header, the
#               library's file name and soname, pkg-config, HelloFPGA_Version()
#               and the CLI say
set -euo pipefail
build=$1 src=$2 case=$3 version=${4:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
lib=$(ls -d "$tmp"/prefix/lib*/ | head -1)
case $case in
seed_name)
	cc -std=c11 -Wall -Werror -I"$tmp/prefix/include" "$src/examples/cpu_roundtrip.c" \
		-L"$lib" -lHelloFPGACore -o "$tmp/ex"
	readelf -d "$tmp/ex" | grep -q 'NEEDED.*libhellofpga.so.1'
	;;
pkgconfig)
	PKG_CONFIG_PATH="$lib/pkgconfig" pkg-config --exists hellofpga
	cc -std=c11 -Wall -Werror "$src/examples/cpu_roundtrip.c" \
		$(PKG_CONFIG_PATH="$lib/pkgconfig" pkg-config --cflags --libs hellofpga) \
		-o "$tmp/ex"
	;;
static)
	cc -std=c11 -Wall -Werror -I"$tmp/prefix/include" "$src/examples/cpu_roundtrip.c" \
		-L"$lib" -l:libhellofpga.a -lpthread -o "$tmp/ex"
	;;
cuda_examples)
	# the seed's snippets compile unchanged against the installed header
	nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
	[ -x "$nvcc" ] || { echo "SKIP: no nvcc"; exit 77; }
	for ex in gpudirect_four_steps transfer_mode; do
		"$nvcc" -I"$tmp/prefix/include" "$src/examples/$ex.cu" \
			-L"$lib" -lHelloFPGACore -o "$tmp/$ex"
	done
	exit 0
	;;
version)
	major=${version%%.*}
	fail() { echo "version $version: $*"; exit 1; }
	[ -f "$lib/libhellofpga.so.$version" ] || fail "no $lib/libhellofpga.so.$version"
	soname=$(objdump -p "$lib/libhellofpga.so.$version" | awk '$1 == "SONAME" {print $2}')
	[ "$soname" = "libhellofpga.so.$major" ] || fail "soname $soname"
	pc=$(PKG_CONFIG_PATH="$lib/pkgconfig" pkg-config --modversion hellofpga)
	[ "$pc" = "$version" ] || fail "pkg-config says $pc"
	cat >"$tmp/v.c" <<-'EOF'
	#include <stdio.h>
	#include <string.h>
	#include <hellofpga.h>
	int main(void)
	{
		printf("%d.%d.%d %s %s\n", HELLOFPGA_VERSION_MAJOR,
		       HELLOFPGA_VERSION_MINOR, HELLOFPGA_VERSION_PATCH,
		       HELLOFPGA_VERSION_STRING, HelloFPGA_Version());
		return HELLOFPGA_VERSION < HELLOFPGA_VERSION_NUM(1, 0, 0);
	}
	EOF
	cc -std=c11 -Wall -Werror -I"$tmp/prefix/include" "$tmp/v.c" -L"$lib" \
		-lhellofpga -o "$tmp/v"
	got=$(LD_LIBRARY_PATH="$lib" "$tmp/v")
	[ "$got" = "$version $version $version" ] || fail "header and library say '$got'"
	cli=$("$build/bin/hellofpga" version)
	[ "$cli" = "hellofpga $version (libhellofpga $version)" ] || fail "the CLI says '$cli'"
	echo "$version everywhere: $soname, pkg-config, header, HelloFPGA_Version(), CLI"
	exit 0
	;;
exports)
	# only the HelloFPGA_ API leaves the shared library
	bad=$(nm -D --defined-only "$lib/libhellofpga.so.${version%%.*}" | awk '$2 ~ /[TDBR]/ {print $3}' |
		grep -v '^HelloFPGA_' | grep -v '^HELLOFPGA_' || true)
	[ -z "$bad" ] || { echo "unexpected exports: $bad"; exit 1; }
	exit 0
	;;
esac
out=$(HELLOFPGA_EMU_DIR=$tmp HELLOFPGA_DEVICE=emu,private LD_LIBRARY_PATH="$lib" "$tmp/ex")
echo "$out"
[ "$out" = "1048576 bytes round trip: ok" ]
