#!/usr/bin/env bash
# bench/smpi_compare.sh end to end. Without smpicc/smpirun on the PATH it
# prints {"skipped": ...} and exits 0. With stand-ins for them (an "MPI
# program" that only says it succeeded) it runs its whole course at 64
# ranks: builds the UCC side, runs it under ucc_sim --program with the
# algorithms it names (its check of the program's success included),
# alternates with the other side, and prints one JSON line with both medians
# and their ratio. Where the real SimGrid is installed, the real comparison
# is bench/smpi_compare.sh itself.
#   smpi_compare_test.sh BUILD_DIR
set -euo pipefail
build="$(cd "$1" && pwd)"
src="$(cd "$(dirname "$0")/../.." && pwd)"
work="$(mktemp -d /tmp/smpi_compare_test.XXXXXX)"
trap 'rm -rf "$work"' EXIT
fail() { echo "smpi_compare_test: FAIL: $*" >&2; exit 1; }

# No SMPI: skipped, exit 0 (a PATH without the tools, the compilers kept).
mkdir "$work/bin"
for t in cc gcc bash awk sort date mktemp cat grep rm dirname; do
    ln -s "$(command -v "$t")" "$work/bin/$t"
done
out="$(PATH="$work/bin" bash "$src/bench/smpi_compare.sh" "$build" 64)" || fail "no SMPI: exit $?"
[[ "$out" == '{"skipped": "smpicc not found: install Debian'"'"'s simgrid and libsimgrid-dev"}' ]] ||
    fail "no SMPI: $out"

# Stand-ins for SimGrid's tools.
cat > "$work/bin/smpicc" <<'STUB'
#!/usr/bin/env bash
out=a.out
while [[ $# -gt 0 ]]; do [[ "$1" == -o ]] && out="$2"; shift; done
printf '#!/usr/bin/env bash\necho "smpi: stand-in ok"\n' > "$out"
chmod +x "$out"
STUB
cat > "$work/bin/smpirun" <<'STUB'
#!/usr/bin/env bash
exec "${@: -1}"
STUB
chmod +x "$work/bin/smpicc" "$work/bin/smpirun"
out="$(PATH="$work/bin:$PATH" REPS=1 bash "$src/bench/smpi_compare.sh" "$build" 64)" ||
    fail "with stand-ins: exit $?"
python3 -c '
import json, sys
r = json.loads(sys.argv[1])
assert r["ranks"] == 64 and r["reps"] == 1, r
assert r["ucc_sim_wall_s"] > 0 and r["smpi_wall_s"] > 0 and r["ratio"] > 0, r
' "$out" || fail "with stand-ins: $out"
echo "$out"
