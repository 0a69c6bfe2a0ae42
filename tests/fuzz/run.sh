#!/usr/bin/env bash
# Builds the fuzz targets with clang (libFuzzer, ASan+UBSan) and runs each for
# a fixed time, from its corpus in tests/fuzz/corpus/<target>/ (new inputs go
# to a temporary directory; the corpus in the repository is read only).
#   tests/fuzz/run.sh BUILD_DIR [SECONDS] [TARGET...]   (default 30 s, every target)
# Longer hunts: tests/fuzz/run.sh build 3600. Exit 77 (skip) without clang's
# libFuzzer. BUILD_DIR gives the generated include/ucc/api/ucc_version.h.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
src="$(cd "$here/../.." && pwd)"
build="$(cd "${1:?BUILD_DIR}" && pwd)"
seconds="${2:-30}"
shift 2 || shift $#
targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=(trace_reader)
cxx="$(command -v clang++ || true)"
[[ -n "$cxx" ]] || { echo "fuzz: no clang++: skipped"; exit 77; }
work="$(mktemp -d /tmp/ucc_fuzz.XXXXXX)"
trap 'rm -rf "$work"' EXIT
# The sources each target needs (no libucc: the reader stands alone).
declare -A sources=(
    [trace_reader]="traces/json.cc traces/reader.cc traces/names.cc traces/desync.cc"
)
for t in "${targets[@]}"; do
    srcs=()
    for f in ${sources[$t]}; do
        srcs+=("$src/$f")
    done
    if ! "$cxx" -std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
        -I"$src" -I"$build/include" -I"$src/include" "$here/${t}_fuzz.cc" "${srcs[@]}" -o "$work/$t" 2>"$work/$t.log"; then
        if grep -q "libclang_rt.fuzzer\|fuzzer.*not found\|cannot find" "$work/$t.log"; then
            echo "fuzz: clang has no libFuzzer here (libclang-rt-dev): skipped"
            exit 77
        fi
        cat "$work/$t.log"
        exit 1
    fi
    mkdir -p "$work/new_$t"
    echo "fuzz: $t for $seconds s (corpus tests/fuzz/corpus/$t)"
    UBSAN_OPTIONS=print_stacktrace=1 "$work/$t" -max_total_time="$seconds" -timeout=10 \
        -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 -dict="$here/trace.dict" \
        -artifact_prefix="$work/" "$work/new_$t" "$here/corpus/$t" 2>"$work/$t.out" || {
        tail -40 "$work/$t.out"
        for a in "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-*; do
            [[ -e "$a" ]] && { echo "fuzz: reproducer $a:"; od -c "$a" | head -20; }
        done
        exit 1
    }
    grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "$work/$t.out" | sed "s/^/fuzz: $t: /"
done
echo "fuzz: PASS"
