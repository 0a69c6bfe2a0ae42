# Shared by the multi-process test scripts (sourced): a scratch directory with
# the captured stdout/stderr ($out, $err), failure reporting, and a clean
# environment for launching ranks. The caller sets $mode first.
tmp=$(mktemp -d)
out=$tmp/out
err=$tmp/err
: >"$out"
: >"$err"

fail() {
  echo "FAIL ($mode): $*"
  echo "--- stdout"
  cat "$out"
  echo "--- stderr"
  cat "$err"
  exit 1
}
has_line() { grep -qxF -- "$2" "$1" || fail "$(basename "$1") has no line '$2'"; }
has_text() { grep -qF -- "$2" "$1" || fail "$(basename "$1") does not say '$2'"; }

# No variable of another launcher may leak into the runs.
clean_env=(env -u UCC_RANK -u UCC_WORLD_SIZE -u UCC_LOCAL_RANK -u UCC_LOCAL_SIZE -u UCC_STORE
  -u RANK -u WORLD_SIZE -u LOCAL_RANK -u LOCAL_WORLD_SIZE -u MASTER_ADDR -u MASTER_PORT
  -u OMPI_COMM_WORLD_RANK -u OMPI_COMM_WORLD_SIZE -u OMPI_COMM_WORLD_LOCAL_RANK
  -u OMPI_COMM_WORLD_LOCAL_SIZE -u SLURM_PROCID -u SLURM_NTASKS -u SLURM_LOCALID
  -u SLURM_NTASKS_PER_NODE -u SLURM_TASKS_PER_NODE -u SLURM_NODEID)
