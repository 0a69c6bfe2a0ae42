#!/usr/bin/env bash
# ucc_perftest end to end (docs/tools.md): every collective on 5 simulated
# ranks, in place and persistent variants, and over UCX as 2 and 3 processes
# under ucc_run (and mpirun when installed); results are checked by the tool
# itself (a wrong one exits 1); --json rows are well formed.
#   perftest_test.sh sim|ucx|mpirun BUILD_DIR
set -euo pipefail
mode="$1"
build="$(cd "$2" && pwd)"
export UCX_NET_DEVICES=lo OMPI_MCA_oob_tcp_if_include=lo OMPI_MCA_btl_tcp_if_include=lo
work="$(mktemp -d /tmp/ucc_perftest_test.XXXXXX)"
trap 'rm -rf "$work"' EXIT
fail() { echo "perftest_test: FAIL: $*" >&2; exit 1; }
colls="allreduce bcast reduce barrier allgather allgatherv alltoall alltoallv gather gatherv
  scatter scatterv reduce_scatter reduce_scatterv fanin fanout"
case "$mode" in
sim)
    for c in $colls; do
        "$build/ucc_perftest" --sim 5 -c "$c" -b 0 -e 4k -f 8 -n 3 -w 1 -r 2 -F \
            --json "$work/$c.json" >"$work/$c.out" || { cat "$work/$c.out"; fail "$c"; }
        grep -q "Collective:" "$work/$c.out" || fail "$c: no table"
        python3 -c "import json,sys; rows=[json.loads(l) for l in open(sys.argv[1])]; assert rows and all(r['simulated'] and r['ranks']==5 and r['collective']==sys.argv[2] and r['checked'] and r['wrong_ranks']==0 and r['tool']=='ucc_perftest' and r['avg_us']>=r['min_us'] for r in rows)" "$work/$c.json" "$c" || fail "$c: json"
    done
    # In place, every collective is checked too (model/layout.h says where the data is).
    for c in $colls; do
        "$build/ucc_perftest" --sim 4 -c "$c" -b 1 -e 1k -f 32 -n 3 -w 1 -i -r 1 >"$work/out" ||
            { cat "$work/out"; fail "$c in place"; }
        ! grep -q "unchecked" "$work/out" || { cat "$work/out"; fail "$c in place: unchecked"; }
    done
    "$build/ucc_perftest" --sim 4 -c allreduce -b 1 -e 1k -n 4 -w 1 -p -N 2 >/dev/null || fail "persistent"
    "$build/ucc_perftest" --sim 6 -c bcast -b 8 -e 8 -n 6 -w 0 -S 1 >/dev/null || fail "root shift"
    for d in int8 uint64 float16 bfloat16 float64 float32_complex float128; do
        "$build/ucc_perftest" --sim 3 -c allreduce -d "$d" -b 1 -e 64 -n 2 -w 0 >/dev/null ||
            fail "allreduce $d"
    done
    for op in prod max min land bxor avg; do
        "$build/ucc_perftest" --sim 3 -c allreduce -d int32 -o "$op" -b 1 -e 64 -n 2 -w 0 \
            >/dev/null 2>&1 || [[ "$op" == avg ]] || fail "allreduce $op"
    done
    # Triggered on simulated CUDA streams, with a timeline: each rank's stream
    # is a track holding its queued collectives and their slices.
    "$build/ucc_perftest" --sim 2 -c allreduce -m cuda -T -b 256 -e 256 -n 3 -w 0 \
        --timeline "$work/t.json" >/dev/null || fail "-T on the simulator"
    python3 -c "import json,sys; ev=json.load(open(sys.argv[1]))['traceEvents']; names=[e for e in ev if e.get('name')=='thread_name' and e['args']['name']=='CUDA stream 1']; q=[e for e in ev if e.get('cat')=='stream' and e['ph']=='i']; x=[e for e in ev if e.get('cat')=='stream' and e['ph']=='X']; assert len(names)==2 and len(q)==len(x)==2*3, (len(names),len(q),len(x))" "$work/t.json" || fail "-T timeline"
    set +e
    "$build/ucc_perftest" --timeline "$work/t2.json" -c allreduce >/dev/null 2>&1; rc=$?
    set -e
    [[ $rc == 2 ]] || fail "--timeline without --sim"
    # A network file, as ucc_sim takes it; its nodes x ppn bound --sim.
    printf 'preset = eth100\nnodes = 2x2\nlat_inter = 3us\n' >"$work/net.conf"
    "$build/ucc_perftest" --sim 4 --network "$work/net.conf" -c allreduce -b 1 -e 8 -n 2 -w 0 \
        >"$work/out" || fail "network file"
    grep -q "^Network: *eth100,ppn=2,.*lat_inter=3us" "$work/out" || { cat "$work/out"; fail "network line"; }
    set +e
    "$build/ucc_perftest" --sim 5 --network "$work/net.conf" >/dev/null 2>&1; rc=$?
    set -e
    [[ $rc == 2 ]] || fail "--sim beyond the network file's slots"
    # Bad input: a clear message and exit 2.
    set +e
    "$build/ucc_perftest" -c allreduced >/dev/null 2>"$work/err"; rc=$?
    set -e
    [[ $rc == 2 ]] && grep -q "invalid operation: allreduced" "$work/err" || fail "bad -c"
    ;;
ucx)
    for np in 2 3; do
        for c in allreduce alltoallv reduce_scatter bcast barrier; do
            "$build/ucc_run" -n "$np" --timeout 120 "$build/ucc_perftest" -c "$c" -b 1 -e 64k -f 16 \
                -n 5 -w 1 -F >"$work/out" 2>&1 || { cat "$work/out"; fail "$c at $np"; }
            grep -q "\[0\] *Collective:" "$work/out" || fail "$c at $np: no table"
        done
    done
    # GPU buffers (-m cuda, cuda-mng) without a GPU: the fake CUDA component
    # (tests/fake_cuda), whose device memory the CPU cannot touch; results checked.
    for c in allreduce allgatherv bcast alltoall reduce_scatterv gather; do
        for m in cuda cuda-mng; do
            UCC_COMPONENT_PATH="$build/fake_cuda" "$build/ucc_run" -n 3 --timeout 120 \
                "$build/ucc_perftest" -c "$c" -m "$m" -b 1 -e 16k -f 64 -n 3 -w 1 >"$work/out" 2>&1 ||
                { cat "$work/out"; fail "$c -m $m"; }
            grep -q "\[0\] *Collective:" "$work/out" || fail "$c -m $m: no table"
        done
    done
    # Triggered on a CUDA stream (-T), plain and persistent, results checked.
    for extra in "" "-p"; do
        UCC_COMPONENT_PATH="$build/fake_cuda" "$build/ucc_run" -n 3 --timeout 120 \
            "$build/ucc_perftest" -c allreduce -m cuda -T $extra -b 1 -e 16k -f 64 -n 3 -w 1 \
            >"$work/out" 2>&1 || { cat "$work/out"; fail "-T -m cuda $extra"; }
        grep -q "\[0\] *Collective:" "$work/out" || fail "-T $extra: no table"
    done
    # -T on host memory: refused, as the reference refuses it.
    set +e
    "$build/ucc_perftest" -T >/dev/null 2>"$work/err"; rc=$?
    set -e
    [[ $rc != 0 ]] && grep -q "execution engine is not supported" "$work/err" ||
        { cat "$work/err"; fail "-T on host memory"; }
    # Without a usable device: refused, saying why.
    set +e
    FAKE_CUDA_DEVICES=0 UCC_COMPONENT_PATH="$build/fake_cuda" "$build/ucc_perftest" -m cuda \
        >/dev/null 2>"$work/err"; rc=$?
    set -e
    [[ $rc != 0 ]] && grep -q "no usable CUDA device (fake: no device)" "$work/err" ||
        { cat "$work/err"; fail "-m cuda without a device"; }
    ;;
mpirun)
    command -v mpirun >/dev/null || { echo "no mpirun: skipped"; exit 77; }
    # Rank 0 hosts the bootstrap's store at MASTER_ADDR:MASTER_PORT (loopback).
    port=$((20000 + RANDOM % 20000))
    timeout 120 mpirun --oversubscribe --allow-run-as-root -np 2 -x MASTER_ADDR=127.0.0.1 \
        -x MASTER_PORT="$port" "$build/ucc_perftest" -c allreduce -b 1 -e 1k -n 5 -w 1 \
        >"$work/out" 2>&1 || { cat "$work/out"; fail "mpirun"; }
    [[ "$(grep -c "Collective:" "$work/out")" == 1 ]] || { cat "$work/out"; fail "mpirun: one table"; }
    ;;
esac
echo "perftest_test: $mode: PASS"
