#!/usr/bin/env bash
# The install surface, from outside the build tree (docs/getting-started.md, Install).
#
#   install_test.sh tree BUILD_DIR   cmake --install into a fresh prefix: the
#       reference's layout, the tools run from bin/, and two out-of-tree
#       consumers of the installed example program, one through
#       find_package(UCC) (called twice), one through pkg-config; each runs
#       simulated (16 ranks) and as 2 processes under the installed ucc_run.
#   install_test.sh deb BUILD_DIR    cpack -G DEB: the package declares its
#       dependencies, apt-get accepts it (simulated: CI stays unmodified), and
#       the pkg-config consumer builds and runs against its unpacked files.
set -euo pipefail
mode="$1"
build="$(cd "$2" && pwd)"
here="$(cd "$(dirname "$0")" && pwd)"
export UCX_NET_DEVICES=lo
work="$(mktemp -d /tmp/ucc_install_test.XXXXXX)"
trap 'rm -rf "$work"' EXIT

fail() { echo "install_test: FAIL: $*" >&2; exit 1; }

# A consumer binary runs the example as 16 simulated ranks and as 2 processes.
run_consumer() { # <binary> <ucc_run>
    local out
    out="$("$1" --ranks 16 --count 1000)" || fail "$1 (simulated) exited $?"
    grep -q "verified" <<<"$out" || fail "$1 (simulated) did not verify: $out"
    out="$("$2" -n 2 --timeout 120 "$1" --count 4096)" || fail "$1 under ucc_run exited $?"
    grep -q "results:   verified on every rank" <<<"$out" || fail "$1 under ucc_run: $out"
    echo "install_test: $(basename "$1"): simulated and 2 processes verified"
}

pkgconfig_consumer() { # <pkgconfig dir> <example.c> <out binary>
    local cflags libs libdir
    cflags="$(PKG_CONFIG_PATH="$1" pkg-config --cflags ucc)"
    libs="$(PKG_CONFIG_PATH="$1" pkg-config --libs ucc)"
    libdir="$(PKG_CONFIG_PATH="$1" pkg-config --variable=libdir ucc)"
    # shellcheck disable=SC2086
    cc -std=c99 -pedantic -Wall -Werror $cflags "$2" -o "$3" $libs -Wl,-rpath,"$libdir"
}

case "$mode" in
tree)
    prefix="$work/prefix"
    cmake --install "$build" --prefix "$prefix" >/dev/null
    for f in include/ucc/api/ucc.h include/ucc/api/ucc_def.h include/ucc/api/ucc_status.h \
        include/ucc/api/ucc_version.h include/ucc/sim/ucc_sim.h include/ucc/boot/ucc_boot.h \
        lib/libucc.so lib/pkgconfig/ucc.pc lib/cmake/ucc/ucc-config.cmake \
        lib/cmake/ucc/ucc-config-version.cmake bin/ucc_run bin/ucc_sim \
        share/ucc/examples/ucc_sim_demo.c share/ucc/examples/ucc_sim_callbacks.c share/ucc/ucc.conf \
        share/ucc/networks/hdr-32x40.net bin/ucc_info bin/ucc_perftest \
        bin/ucc_replay; do
        [[ -e "$prefix/$f" ]] || fail "missing $f"
    done
    # libucc.so -> libucc.so.<major> -> libucc.so.<version>, and the soname.
    soname="$(readlink "$prefix/lib/libucc.so")"
    [[ "$soname" =~ ^libucc\.so\.[0-9]+$ ]] || fail "libucc.so links to '$soname'"
    [[ -f "$prefix/lib/$(readlink "$prefix/lib/$soname")" ]] || fail "$soname dangles"
    objdump -p "$prefix/lib/libucc.so" | grep -c "SONAME *$soname" >/dev/null || fail "SONAME is not $soname"
    # The version macros match pkg-config's and the library's.
    pcver="$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --modversion ucc)"
    grep -q "#define UCC_VERSION_STRING \"$pcver\"" "$prefix/include/ucc/api/ucc_version.h" ||
        fail "ucc_version.h does not say $pcver"
    # The installed tools run from bin/ (their RUNPATH finds lib/).
    "$prefix/bin/ucc_sim" -np 4 -c allreduce -b 8 -e 8 -i 1 >/dev/null || fail "bin/ucc_sim"
    # An installed network by its bare name (share/ucc/networks), from anywhere.
    (cd / && "$prefix/bin/ucc_sim" -np 80 --network hdr-32x40 -c allreduce -b 8 -e 8 -i 1 \
        --timing-only >/dev/null) || fail "bin/ucc_sim --network hdr-32x40 (installed)"
    "$prefix/bin/ucc_info" -v >"$work/info"
    grep -q "UCC version=$pcver" "$work/info" || fail "bin/ucc_info -v"
    # The installed ucc.conf is found next to the install ("auto"); it sets nothing.
    HOME=/nonexistent "$prefix/bin/ucc_info" -c -f >"$work/info"
    grep -q "# configuration file: $prefix/share/ucc/ucc.conf" "$work/info" ||
        fail "bin/ucc_info does not find share/ucc/ucc.conf"
    "$prefix/bin/ucc_perftest" --sim 4 -c allreduce -b 1 -e 1k -n 2 -w 0 >/dev/null || fail "bin/ucc_perftest"
    # Recorded by the installed library (UCC_TRACE), replayed by the installed ucc_replay.
    mkdir "$work/trace"
    UCC_TRACE="$work/trace" "$prefix/bin/ucc_sim" -np 4 -c bcast -b 8 -e 64 -i 1 >/dev/null ||
        fail "bin/ucc_sim with UCC_TRACE"
    "$prefix/bin/ucc_replay" "$work/trace" >"$work/replay" 2>&1 || { cat "$work/replay"; fail "bin/ucc_replay"; }
    grep -q "^Simulated time: " "$work/replay" || fail "bin/ucc_replay: no closing lines"
    # Consumer 1: CMake, find_package(UCC) twice.
    cmake -S "$here/cmake_consumer" -B "$work/cm" -DCMAKE_PREFIX_PATH="$prefix" \
        -DUCC_DEMO_SOURCE="$prefix/share/ucc/examples/ucc_sim_demo.c" >"$work/cm.log" ||
        { cat "$work/cm.log"; fail "CMake consumer configure"; }
    grep "UCC $pcver" "$work/cm.log" || fail "find_package(UCC) found no version $pcver"
    cmake --build "$work/cm" >/dev/null || fail "CMake consumer build"
    run_consumer "$work/cm/consumer" "$prefix/bin/ucc_run"
    # Consumer 2: pkg-config.
    pkgconfig_consumer "$prefix/lib/pkgconfig" "$prefix/share/ucc/examples/ucc_sim_demo.c" \
        "$work/pc_consumer"
    run_consumer "$work/pc_consumer" "$prefix/bin/ucc_run"
    ;;
deb)
    (cd "$work" && cpack -G DEB --config "$build/CPackConfig.cmake" >/dev/null) || fail "cpack -G DEB"
    deb="$(ls "$work"/ucc_*.deb)"
    echo "install_test: built $(basename "$deb")"
    depends="$(dpkg-deb -f "$deb" Depends)"
    echo "install_test: Depends: $depends"
    grep -q "libucx0" <<<"$depends" || fail "the package does not depend on libucx0"
    grep -q "libboost-context" <<<"$depends" || fail "the package does not depend on Boost.Context"
    dpkg-deb -c "$deb" >"$work/contents"
    for f in ./usr/include/ucc/api/ucc.h ./usr/lib/pkgconfig/ucc.pc ./usr/lib/cmake/ucc/ucc-config.cmake \
        ./usr/bin/ucc_run; do
        grep -q " $f\$" "$work/contents" || fail "the package lacks $f"
    done
    # apt-get resolves the package's dependencies against this system (-s:
    # simulate; installing for real is for the manual check in docs/getting-started.md).
    if command -v apt-get >/dev/null; then
        apt-get install -s "$deb" >"$work/apt.log" 2>&1 || { cat "$work/apt.log"; fail "apt-get install -s"; }
        grep -q "^Inst ucc " "$work/apt.log" || { cat "$work/apt.log"; fail "apt-get would not install ucc"; }
    fi
    dpkg-deb -x "$deb" "$work/root"
    pkgconfig_consumer "$work/root/usr/lib/pkgconfig" "$work/root/usr/share/ucc/examples/ucc_sim_demo.c" \
        "$work/deb_consumer"
    run_consumer "$work/deb_consumer" "$work/root/usr/bin/ucc_run"
    ;;
*)
    fail "usage: install_test.sh tree|deb BUILD_DIR"
    ;;
esac
echo "install_test: $mode: PASS"
