#!/usr/bin/env bash
# The GPU check: everything of the CUDA build that needs a GPU, in one command,
# on a lent GPU machine (the `device` tool), within 8 minutes.
#
#   scripts/gpu_check.sh kit [BUILD] [KIT]   here: pack a carried kit (default
#                                            build/ -> build-gpu-kit/)
#   scripts/gpu_check.sh [run] [KIT]         there: run every part on the kit
#   scripts/gpu_check.sh self-test [KIT]     here, without a GPU: the same parts
#                                            that can run on the fake component
#                                            (tests/fake_cuda), so CI keeps the
#                                            script working
#
# The GPU machine has the CUDA driver but neither Debian's Boost nor its UCX, and
# nothing can be installed there, so the library is built here and carried: the
# kit holds the programs (stripped), the CUDA component beside them
# (bin/ucc/libucc_cuda.so), the shared libraries they need that are not the C
# library (lib/), UCX's shared-memory module (lib/ucx), and a C++ runtime tried
# only when the machine's own is too old (lib/cxx). It stays under the device
# tool's 64 MiB carry limit. Typical use, from the repository root:
#
#   scripts/gpu_check.sh kit            # then, with the device tool:
#   run(command="bash scripts/gpu_check.sh run build-gpu-kit",
#       carry=["build-gpu-kit"], timeout_s=540)
#
# Parts, each with a summary line "gpu_check: <part>: PASS|FAIL|SKIP (...)":
#   machine      the GPU, the driver, the component as ucc_info -b sees it
#   kernels      the reduction kernels on the device against the host's, every
#                datatype and op a device reduces (gpu_tests)
#   one-process  collectives on device buffers and a collective ordered on a
#                CUDA stream by UCC_EE_CUDA_STREAM (gpu_tests)
#   two-process  every collective on device buffers between two processes on
#                the one GPU (over CUDA IPC, and with UCC_DEVICE_IPC=n
#                through pinned host staging),
#                datatype/op classes, managed memory, -T on a stream; every
#                result checked by ucc_perftest
#   reduce-bw    the reduction kernel's bandwidth as a fraction of the device's
#                copy bandwidth, measured in the same run (gpu_reduce_bw)
#   allreduce    two-process allreduce on device buffers, 8 B to 256 MiB
#                (ucc_perftest -m cuda)
#   pipeline     the same from 4 MiB without IPC, staged whole
#                (UCC_DEVICE_PIPELINE=0) against pipelined (the default)
#   ipc          the same over CUDA IPC (the default) against pipelined staging
# Exit status: 0 when no part failed.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
mode=run
case "${1:-}" in
kit | run | self-test) mode=$1; shift ;;
esac

programs=(gpu_tests gpu_reduce_bw ucc_perftest ucc_run ucc_info)

pack() {
  local build=${1:-$root/build} kit=${2:-$root/build-gpu-kit}
  for p in "${programs[@]}"; do
    [ -x "$build/$p" ] || { echo "gpu_check: $build/$p is missing (a CUDA-enabled build with the tests: cmake -DUCC_BUILD_TESTS=ON, nvcc found)" >&2; return 1; }
  done
  [ -f "$build/ucc/libucc_cuda.so" ] || { echo "gpu_check: $build/ucc/libucc_cuda.so is missing (built without the CUDA Toolkit?)" >&2; return 1; }
  rm -rf "$kit"
  mkdir -p "$kit/bin/ucc" "$kit/lib/ucx" "$kit/lib/cxx" "$kit/fake" || return 1
  for p in "${programs[@]}"; do
    strip --strip-debug -o "$kit/bin/$p" "$build/$p" || return 1
  done
  strip --strip-debug -o "$kit/bin/ucc/libucc_cuda.so" "$build/ucc/libucc_cuda.so" || return 1
  if [ -f "$build/fake_cuda/libucc_cuda.so" ]; then
    cp "$build/fake_cuda/libucc_cuda.so" "$kit/fake/"
  fi
  # The libraries the programs and UCX's shared-memory module need, but the C
  # library's own (the machine's must serve) and the C++ runtime (lib/cxx).
  local ucxdir
  ucxdir=$(dirname "$(ldd "$build/ucc_perftest" | awk '/libucp/ {print $3}')")/ucx
  cp -L "$ucxdir/libuct_cma.so.0" "$kit/lib/ucx/" 2>/dev/null
  local libs
  libs=$(for f in "$kit"/bin/* "$kit"/bin/ucc/*.so "$kit"/lib/ucx/*; do ldd "$f" 2>/dev/null; done |
    awk '$3 ~ /^\// {print $3}' | sort -u)
  for l in $libs; do
    case "$(basename "$l")" in
    libc.so.* | libm.so.* | libpthread.so.* | libdl.so.* | librt.so.* | ld-linux*) ;;
    libstdc++.so.* | libgcc_s.so.*) cp -L "$l" "$kit/lib/cxx/" ;;
    *) cp -L "$l" "$kit/lib/" ;;
    esac
  done
  echo "gpu_check: kit $kit: $(du -sh "$kit" | cut -f1) ($(ls "$kit/bin" | wc -l) programs, $(ls "$kit/lib" | wc -l) libraries)"
}

if [ "$mode" = kit ]; then
  pack "$@"
  exit $?
fi

kit=${1:-$root/build-gpu-kit}
[ -d "$kit/bin" ] || { echo "gpu_check: no kit at $kit (make one here: scripts/gpu_check.sh kit)" >&2; exit 2; }
kit=$(cd "$kit" && pwd)
bin=$kit/bin
export LD_LIBRARY_PATH=$kit/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
if ! "$bin/ucc_info" -v >/dev/null 2>&1; then
  export LD_LIBRARY_PATH=$kit/lib:$kit/lib/cxx${LD_LIBRARY_PATH#"$kit/lib"}
fi
export UCX_MODULE_DIR=$kit/lib/ucx
export UCX_NET_DEVICES=lo
export UCX_TLS=self,sm,tcp
export UCX_WARN_UNUSED_ENV_VARS=n
export OMPI_MCA_oob_tcp_if_include=lo OMPI_MCA_btl_tcp_if_include=lo
if [ "$mode" = self-test ]; then
  [ -f "$kit/fake/libucc_cuda.so" ] || { echo "gpu_check: the kit has no fake component" >&2; exit 2; }
  export UCC_COMPONENT_PATH=$kit/fake
else
  export UCC_COMPONENT_PATH=$bin/ucc
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0
summary=()
note() {  # part, PASS|FAIL|SKIP, details
  summary+=("gpu_check: $1: $2${3:+ ($3)}")
  [ "$2" = FAIL ] && failed=1
  echo "== $1: $2${3:+ ($3)}"
}
# A command under a time limit, its output kept in $work/out and shown.
limited() {
  local secs=$1
  shift
  timeout "$secs" "$@" >"$work/out" 2>&1
  local rc=$?
  cat "$work/out"
  return $rc
}
pt() {  # ucc_perftest over ucc_run on 2 processes
  timeout 120 "$bin/ucc_run" -n 2 --timeout 110 "$bin/ucc_perftest" "$@"
}

echo "== machine"
{ nvidia-smi -L 2>&1 | head -4; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | head -2; } || true
grep PRETTY_NAME /etc/os-release 2>/dev/null
echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
"$bin/ucc_info" -b 2>&1 | grep -E "UCC_WITH_CUDA|component" | tee "$work/info"
if grep -q "device(s) usable" "$work/info"; then
  note machine PASS "$(grep -m1 component "$work/info" | sed 's/^# //')"
else
  note machine FAIL "$(grep -m1 component "$work/info" | sed 's/^# //')"
fi

echo "== kernels"
if [ "$mode" = self-test ]; then
  note kernels SKIP "the fake component has no kernels"
elif limited 120 "$bin/gpu_tests" --gtest_filter='Gpu.Kernels*'; then
  note kernels PASS "every device (datatype, op) equals the host bitwise, two inputs and a fold of three"
else
  note kernels FAIL "$(grep -m1 -E 'Failure|FAILED|Which is' "$work/out")"
fi

echo "== one-process"
if limited 120 "$bin/gpu_tests" --gtest_filter='Gpu.*:-Gpu.Kernels*'; then
  note one-process PASS "collectives on device buffers; a collective ordered on a CUDA stream"
else
  note one-process FAIL "$(grep -m1 -E 'Failure|FAILED' "$work/out")"
fi

echo "== two-process"
bad=()
runs=0
colls=(allreduce allgather allgatherv alltoall alltoallv bcast barrier fanin fanout gather gatherv reduce
  reduce_scatter reduce_scatterv scatter scatterv)
for c in "${colls[@]}"; do
  runs=$((runs + 1))
  pt -c "$c" -m cuda -b 1 -e 256k -f 32 -n 5 -w 1 >"$work/out" 2>&1 || { bad+=("$c"); tail -3 "$work/out"; }
done
for dop in "float16 sum" "bfloat16 max" "float64 prod" "int32 bxor" "float32 avg" "int8 min"; do
  set -- $dop
  runs=$((runs + 1))
  pt -c allreduce -m cuda -d "$1" -o "$2" -b 1 -e 64k -f 64 -n 3 -w 1 >"$work/out" 2>&1 ||
    { bad+=("allreduce $1 $2"); tail -3 "$work/out"; }
done
for extra in "-m cuda-mng" "-m cuda -T" "-m cuda -T -p" "-m cuda -i"; do
  runs=$((runs + 1))
  pt -c allreduce $extra -b 1 -e 1m -f 64 -n 3 -w 1 >"$work/out" 2>&1 ||
    { bad+=("allreduce $extra"); tail -3 "$work/out"; }
done
# Pipelined staging (lib/core/device_pipeline.h) in 64 KiB chunks: 2 to 16 chunks
# (without IPC, which they would take otherwise; the block collectives' chunks
# in 2D copies).
for c in allreduce bcast reduce allgather alltoall reduce_scatter; do
  runs=$((runs + 1))
  UCC_DEVICE_IPC=n UCC_DEVICE_PIPELINE=64K pt -c "$c" -m cuda -b 32k -e 256k -f 2 -n 3 -w 1 \
    >"$work/out" 2>&1 || { bad+=("$c pipelined"); tail -3 "$work/out"; }
done
# Collectives over CUDA IPC (lib/core/device_ipc.h): the path taken (its
# debug line), in place too; then every member refusing to open (the fake
# only).
for run in "allreduce" "allreduce -i" "bcast" "reduce_scatter" "reduce_scatter -i" "allgather" \
  "allgather -i" "alltoall" "allgatherv" "reduce_scatterv" "alltoallv" "reduce" "reduce -i" "gather" \
  "gatherv" "scatter" "scatterv"; do
  set -- $run
  runs=$((runs + 1))
  UCC_LOG_LEVEL=debug pt -c "$@" -m cuda -b 4 -e 1m -f 16 -n 3 -w 1 >"$work/out" 2>&1 &&
    grep -q "over CUDA IPC" "$work/out" || { bad+=("$run over IPC"); tail -3 "$work/out"; }
done
if [ "$mode" = self-test ]; then
  runs=$((runs + 1))
  FAKE_CUDA_IPC=0 UCC_LOG_LEVEL=debug pt -c allreduce -m cuda -b 4 -e 64k -f 16 -n 3 -w 1 \
    >"$work/out" 2>&1 && grep -q "staged (a member could not map" "$work/out" ||
    { bad+=("allreduce IPC refused"); tail -3 "$work/out"; }
fi
if [ ${#bad[@]} -eq 0 ]; then
  note two-process PASS "$runs runs checked: ${#colls[@]} collectives, 6 datatype/op classes, managed, -T, in place, pipelined staging, every collective but barrier, fanin and fanout over CUDA IPC"
else
  note two-process FAIL "$((runs - ${#bad[@]})) of $runs; failed: ${bad[*]}"
fi

echo "== reduce-bw"
if [ "$mode" = self-test ]; then
  note reduce-bw SKIP "no device"
elif limited 120 "$bin/gpu_reduce_bw" --min-bytes 1M --max-bytes 256M --iters 20; then
  note reduce-bw PASS "$(tail -1 "$work/out" | grep -o '"bytes":[0-9]*\|"copy_GBps":[0-9.]*\|"reduce_GBps":[0-9.]*\|"fraction":[0-9.]*' | tr '\n' ' ')"
else
  note reduce-bw FAIL "$(tail -1 "$work/out")"
fi

echo "== allreduce"
if [ "$mode" = self-test ]; then
  max=64k
else
  max=64m  # float32 elements: 256 MiB
fi
if pt -c allreduce -m cuda -b 2 -e "$max" -f 4 -n 10 -w 2 -F >"$work/out" 2>&1; then
  cat "$work/out"
  # Columns: count, bytes, time avg/min/max (us), bus bandwidth avg/max/min, algorithm.
  first=$(grep -E '^\[0\] +[0-9]+ ' "$work/out" | head -1 | awk '{print $3 " B " $4 " us"}')
  last=$(grep -E '^\[0\] +[0-9]+ ' "$work/out" | tail -1 | awk '{print $3 " B " $4 " us, busbw " $7 " GB/s"}')
  note allreduce PASS "2 processes -m cuda: $first ... $last"
else
  cat "$work/out"
  note allreduce FAIL "$(tail -1 "$work/out")"
fi

echo "== pipeline"
# The same allreduce from 4 MiB staged whole (UCC_DEVICE_PIPELINE=0) against
# pipelined in 4 MiB chunks (the default): their times at the largest size.
if [ "$mode" = self-test ]; then
  note pipeline SKIP "the fake's copies are CPU threads: not a measure"
else
  big=(-c allreduce -m cuda -b 1m -e "$max" -f 4 -n 10 -w 2)
  if UCC_DEVICE_IPC=n UCC_DEVICE_PIPELINE=0 pt "${big[@]}" >"$work/whole" 2>&1 &&
    UCC_DEVICE_IPC=n pt "${big[@]}" >"$work/piped" 2>&1; then
    cat "$work/whole" "$work/piped"
    whole=$(grep -E '^\[0\] +[0-9]+ ' "$work/whole" | tail -1 | awk '{print $3 " B " $4}')
    piped=$(grep -E '^\[0\] +[0-9]+ ' "$work/piped" | tail -1 | awk '{print $4}')
    note pipeline PASS "allreduce $whole us staged whole, $piped us pipelined"
  else
    note pipeline FAIL "$(tail -1 "$work/whole") $(tail -1 "$work/piped")"
  fi
fi

echo "== ipc"
# Allreduce over CUDA IPC (the default) against pipelined staging (the
# pipeline part's second run): both times at the largest size.
if [ "$mode" = self-test ]; then
  note ipc SKIP "the fake's copies and kernels are CPU threads: not a measure"
elif pt "${big[@]}" >"$work/ipc" 2>&1; then
  cat "$work/ipc"
  ipc=$(grep -E '^\[0\] +[0-9]+ ' "$work/ipc" | tail -1 | awk '{print $3 " B " $4}')
  piped=$(grep -E '^\[0\] +[0-9]+ ' "$work/piped" 2>/dev/null | tail -1 | awk '{print $4}')
  note ipc PASS "allreduce $ipc us over CUDA IPC, ${piped:-?} us pipelined staging"
else
  note ipc FAIL "$(tail -1 "$work/ipc")"
fi

echo
printf '%s\n' "${summary[@]}"
exit $failed
