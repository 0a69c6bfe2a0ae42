#!/usr/bin/env bash
# The libFuzzer targets of fuzz/ (docs/conformance.md, Fuzzing): configures build-fuzz/ with
# clang and -DUCC_FUZZ=ON (the targets and the few library sources they reach,
# nothing else), builds them, and runs each for a fixed time over its corpus in
# fuzz/corpus/<target>/ (with the dictionary fuzz/<target>.dict where there is
# one), one target per core at a time. New inputs go to a
# temporary directory, never into the repository.
#   scripts/fuzz.sh [SECONDS-PER-TARGET] [TARGET...]   (default 20 s, every target)
# Prints one summary line per target,
#   fuzz: {"target": "fuzz_network", "status": "ok", "seconds": 20, "runs": ..., "execs_per_s": ...,
#          "corpus": <inputs at the end>, "corpus_bytes": ..., "new": ..., "seeds": ..., "cov": ...}
# and exits 1 if any target crashed, leaked, hung, ran out of memory or
# tripped a sanitizer: its report is printed and the input kept in
# build-fuzz/artifacts/<target>/, to replay with build-fuzz/<target> <input>.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-20}"
shift $(($# > 0 ? 1 : 0))
targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=(fuzz_config fuzz_network fuzz_validate fuzz_trace_reader fuzz_faults)
[[ "$seconds" =~ ^[0-9]+$ && "$seconds" -gt 0 ]] || { echo "fuzz: seconds must be a positive integer" >&2; exit 2; }
command -v clang++ >/dev/null || { echo "fuzz: no clang++ (scripts/deps.sh installs clang)" >&2; exit 1; }
start=$SECONDS

# -O1 with line tables: fast enough to fuzz, quick to build, and reports name lines.
CC=clang CXX=clang++ cmake -S . -B build-fuzz -DUCC_FUZZ=ON -DUCC_WERROR=ON \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" \
    -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1" >/dev/null
cmake --build build-fuzz -j"$(nproc)"  # every target: the build holds nothing else
echo "fuzz: built in $((SECONDS - start)) s; ${seconds} s per target"
for t in "${targets[@]}"; do
    [[ -x "build-fuzz/$t" && -d "fuzz/corpus/$t" ]] || { echo "fuzz: no target $t" >&2; exit 2; }
done

work="$(mktemp -d /tmp/ucc_fuzz.XXXXXX)"
trap 'rm -rf "$work"' EXIT
# One target: new inputs into $work/<target>/new (listed first, so libFuzzer
# writes there), the repository's corpus read only. -close_fd_mask=2: the
# library's own error lines stay out of the log (libFuzzer and the
# sanitizers keep reporting there).
run() {
    local t="$1"
    mkdir -p "$work/$t/new"
    local dict=()
    [[ -f "fuzz/$t.dict" ]] && dict=(-dict="fuzz/$t.dict")
    if ASAN_OPTIONS="detect_leaks=1" UBSAN_OPTIONS="print_stacktrace=1" \
        "build-fuzz/$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
        -close_fd_mask=2 -print_final_stats=1 -artifact_prefix="$work/$t/" "${dict[@]}" \
        "$work/$t/new" "fuzz/corpus/$t" >"$work/$t/log" 2>&1; then
        echo 0 >"$work/$t/rc"
    else
        echo $? >"$work/$t/rc"
    fi
}
for t in "${targets[@]}"; do
    while [[ $(jobs -rp | wc -l) -ge $(nproc) ]]; do
        wait -n || true
    done
    run "$t" &
done
wait

stat_of() { sed -n "s/^stat::$2: *//p" "$1" | tail -1; }
failed=0
for t in "${targets[@]}"; do
    log="$work/$t/log"
    # The last status line: "#N DONE cov: C ft: F corp: U/Bb ..." (B may be Kb/Mb).
    last="$(grep -E '^#[0-9]+' "$log" | tail -1 || true)"
    corp="$(sed -n 's/.* corp: \([0-9]*\)\/\([0-9]*[KM]*b\).*/\1 \2/p' <<<"$last")"
    corp="${corp:-0 0b}"
    cov="$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")"
    status=ok
    if [[ "$(cat "$work/$t/rc")" != 0 ]] ||
        grep -qE "ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:|^SUMMARY: " "$log"; then
        status=failed
        failed=1
    fi
    runs="$(stat_of "$log" number_of_executed_units)"
    rate="$(stat_of "$log" average_exec_per_sec)"
    new="$(stat_of "$log" new_units_added)"
    seeds="$(find "fuzz/corpus/$t" -type f | wc -l)"
    printf 'fuzz: {"target": "%s", "status": "%s", "seconds": %s, "runs": %s, "execs_per_s": %s, "corpus": %s, "corpus_bytes": "%s", "new": %s, "seeds": %s, "cov": %s}\n' \
        "$t" "$status" "$seconds" "${runs:-0}" "${rate:-0}" "${corp%% *}" "${corp##* }" "${new:-0}" \
        "$seeds" "${cov:-0}"
    if [[ "$status" == failed ]]; then
        echo "fuzz: $t failed; the end of its log:"
        grep -vE '^#[0-9]+.*(NEW|REDUCE|pulse)' "$log" | tail -60
        mkdir -p "build-fuzz/artifacts/$t"
        for a in "$work/$t"/crash-* "$work/$t"/leak-* "$work/$t"/timeout-* "$work/$t"/oom-*; do
            [[ -e "$a" ]] || continue
            cp "$a" "build-fuzz/artifacts/$t/"
            echo "fuzz: input build-fuzz/artifacts/$t/$(basename "$a") (replay: build-fuzz/$t build-fuzz/artifacts/$t/$(basename "$a")):"
            od -A d -c "$a" | head -20
        done
    fi
done
echo "fuzz: $([[ $failed == 0 ]] && echo PASS || echo FAIL) ($((SECONDS - start)) s)"
exit "$failed"
