#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_install.sh BUILD_DIR SOURCE_DIR CASE VERSION
# Installs the build into a temporary prefix and builds an example the way a
# user would, then runs it on the emulated card.
#   seed_name:  cc example.c -lHelloFPGACore  (the seed's library name)
#   pkgconfig:  cc example.c $(pkg-config --cflags --libs hellofpga)
#   static:     cc example.c -l:libhellofpga.a -lpthread
#   pkgconfig_static: cc example.c $(pkg-config --static --libs hellofpga),
#               only the static library installed
#   cmake_config_shared, cmake_config_static: a CMake project with
#               find_package(hellofpga MAJOR CONFIG) and hellofpga::hellofpga or
#               hellofpga::hellofpga_static; a newer major is refused
#   cuda_examples: nvcc examples/*.cu -lHelloFPGACore (skipped without nvcc)
#   docs:       the manual pages in MANDIR/man1 and man3, the bash
#               completion in DATADIR/bash-completion/completions
#   version:    CMake's project(VERSION) is what the installed header, the
#               library's file name and soname, pkg-config, HelloFPGA_Version()
#               and the CLI say
#   programs:   the installed CLI runs the programs of "bench" and "test"
#               (LIBEXECDIR/hellofpga), the bench its renderer (DATADIR)
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
pkgconfig_static)
	# Libs.private carries what the static library needs; the library
	# alone on the link line (the shared one moved away) proves it
	libs=$(PKG_CONFIG_PATH="$lib/pkgconfig" pkg-config --static --libs hellofpga)
	for l in -lpthread -ldl; do
		case " $libs " in *" $l "*) ;; *) echo "pkg-config --static: no $l in '$libs'"; exit 1 ;; esac
	done
	rm -f "$lib"/libhellofpga.so*
	cc -std=c11 -Wall -Werror "$src/examples/cpu_roundtrip.c" \
		$(PKG_CONFIG_PATH="$lib/pkgconfig" pkg-config --static --cflags --libs hellofpga) \
		-o "$tmp/ex"
	if readelf -d "$tmp/ex" | grep -q 'NEEDED.*libhellofpga'; then
		echo "linked the shared library"; exit 1
	fi
	;;
cmake_config_shared | cmake_config_static)
	# find_package(hellofpga CONFIG) with a version, as a CMake user would
	target=hellofpga
	[ "$case" = cmake_config_static ] && target=hellofpga_static
	mkdir "$tmp/app"
	cp "$src/examples/cpu_roundtrip.c" "$tmp/app/"
	cat >"$tmp/app/CMakeLists.txt" <<-EOF
	cmake_minimum_required(VERSION 3.18)
	project(app C)
	find_package(hellofpga ${version%%.*} CONFIG REQUIRED)
	add_executable(ex cpu_roundtrip.c)
	target_link_libraries(ex PRIVATE hellofpga::$target)
	EOF
	cmake -S "$tmp/app" -B "$tmp/app/build" -DCMAKE_PREFIX_PATH="$tmp/prefix" \
		-DCMAKE_C_FLAGS="-Wall -Werror" >/dev/null
	cmake --build "$tmp/app/build" >/dev/null
	cp "$tmp/app/build/ex" "$tmp/ex"
	needed=$(readelf -d "$tmp/ex" | grep -c 'NEEDED.*libhellofpga' || true)
	[ "$target" = hellofpga ] && [ "$needed" = 0 ] && { echo "not linked to the shared library"; exit 1; }
	[ "$target" = hellofpga_static ] && [ "$needed" != 0 ] && { echo "linked the shared library"; exit 1; }
	# a newer major than installed is refused
	sed -i "s/find_package(hellofpga [0-9]*/find_package(hellofpga $((${version%%.*} + 1))/" \
		"$tmp/app/CMakeLists.txt"
	if cmake -S "$tmp/app" -B "$tmp/app/build2" -DCMAKE_PREFIX_PATH="$tmp/prefix" \
		>/dev/null 2>&1; then
		echo "find_package accepted major $((${version%%.*} + 1))"; exit 1
	fi
	;;
cuda_examples)
	# the seed's snippets and the GPU-side completion examples compile
	# unchanged against the installed header
	nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
	[ -x "$nvcc" ] || { echo "SKIP: no nvcc"; exit 77; }
	for ex in gpudirect_four_steps transfer_mode frame_grabber gpu_pipeline; do
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
docs)
	# the pages and the completion, where man(1) and bash-completion look
	share=$tmp/prefix/share
	f=$share/bash-completion/completions/hellofpga
	[ -s "$f" ] || { echo "no $f"; exit 1; }
	[ -s "$share/man/man3/hellofpga.3" ] || { echo "no man3/hellofpga.3"; exit 1; }
	if ! grep -q '^HF_HELP2MAN:FILEPATH=/' "$build/CMakeCache.txt"; then
		echo "SKIP: the build had no help2man"
		exit 77
	fi
	for p in hellofpga hellofpga-info hellofpga-write hellofpga-read \
		 hellofpga-reg hellofpga-demo hellofpga-bench hellofpga-test \
		 hellofpga-version; do
		[ -s "$share/man/man1/$p.1" ] || { echo "no man1/$p.1"; exit 1; }
	done
	exit 0
	;;
programs)
	# found from the install's own directories, none of the build's
	cli=$tmp/prefix/bin/hellofpga
	"$cli" test --list | grep -q '^ 1  get_status ' || { echo "test --list"; exit 1; }
	HELLOFPGA_EMU_DIR=$tmp HELLOFPGA_GPU=emu "$cli" -d emu:0,private bench \
		--sections sweep --max 4K --iters 1 --repeats 1 --csv "$tmp/b.csv" >/dev/null
	head -1 "$tmp/b.csv" | grep -q '^section,name,size,direction,' ||
		{ echo "bench --csv wrote no CSV"; exit 1; }
	exit 0
	;;
exports)
	# only the HelloFPGA_ API leaves the shared library
	bad=$(nm -D --defined-only "$lib/libhellofpga.so.${version%%.*}" | awk '$2 ~ /[TDBR]/ {print $3}' |
		grep -v '^HelloFPGA_' | grep -v '^HELLOFPGA_' || true)
	[ -z "$bad" ] || { echo "unexpected exports: $bad"; exit 1; }
	# the test hooks (lib/hf_test.h) are in neither installed library
	bad=$(nm --defined-only "$lib/libhellofpga.a" \
		"$lib/libhellofpga.so.${version%%.*}" 2>/dev/null |
		awk '{print $3}' | grep -E '^hf_(emu_)?test_' || true)
	[ -z "$bad" ] || { echo "test hooks installed: $bad"; exit 1; }
	exit 0
	;;
esac
out=$(HELLOFPGA_EMU_DIR=$tmp HELLOFPGA_DEVICE=emu,private LD_LIBRARY_PATH="$lib" "$tmp/ex")
echo "$out"
[ "$out" = "1048576 bytes round trip: ok" ]
