# Sourced by scripts that measure this host with ucx_perftest (loopback and
# shared memory only: the caller exports UCX_NET_DEVICES=lo).
#
# ucx_perftest_final PORT ARGS...: one ucx_perftest test, a server in the
# background and the client (to 127.0.0.1:PORT, with ARGS such as -t tag_lat
# -s 8 -n 1000 -w 100) retried until the server listens; server and client
# pinned to CPUs of their own where there are two. Prints the client's
# "Final:" line:
#   Final: iterations p50 average overall bw_average bw_overall rate_average rate_overall
# (latencies in us, one-way for ping-pong tests; bandwidths in MiB/s; message
# rates per second). Returns 1 when no result came.
ucx_perftest_final() {
    local port="$1"
    shift
    local sargs=(-p "$port") cargs=(127.0.0.1 -p "$port" "$@")
    if (( $(nproc) >= 2 )); then
        sargs+=(-c 0)
        cargs+=(-c 1)
    fi
    timeout 60 ucx_perftest "${sargs[@]}" >/dev/null 2>&1 &
    local server=$! final="" try
    for try in 1 2 3 4 5 6 7 8 9 10; do
        sleep 0.2
        final="$(timeout 60 ucx_perftest "${cargs[@]}" 2>/dev/null | grep '^Final:' || true)"
        [[ -n "$final" ]] && break
        kill -0 "$server" 2>/dev/null || break
    done
    wait "$server" 2>/dev/null || true
    [[ -n "$final" ]] || return 1
    echo "$final"
}
