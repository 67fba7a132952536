#!/usr/bin/env bash
# test_install.sh BUILD_DIR SOURCE_DIR CASE
# Installs the build into a temporary prefix and builds an example the way a
# user would, then runs it on the emulated card.
#   seed_name:  cc example.c -lHelloFPGACore  (the seed's library name)
#   pkgconfig:  cc example.c $(pkg-config --cflags --libs hellofpga)
#   static:     cc example.c -l:libhellofpga.a -lpthread
#   cuda_examples: nvcc examples/*.cu -lHelloFPGACore (skipped without nvcc)
set -euo pipefail
build=$1 src=$2 case=$3
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
exports)
	# only the HelloFPGA_ API leaves the shared library
	bad=$(nm -D --defined-only "$lib/libhellofpga.so.1" | awk '$2 ~ /[TDBR]/ {print $3}' |
		grep -v '^HelloFPGA_' | grep -v '^HELLOFPGA_' || true)
	[ -z "$bad" ] || { echo "unexpected exports: $bad"; exit 1; }
	exit 0
	;;
esac
out=$(HELLOFPGA_EMU_DIR=$tmp HELLOFPGA_DEVICE=emu,private LD_LIBRARY_PATH="$lib" "$tmp/ex")
echo "$out"
[ "$out" = "1048576 bytes round trip: ok" ]
