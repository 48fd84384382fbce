#!/usr/bin/env bash
# One large file split into `--range` jobs run by GNU parallel, against one process on the
# same file: checks that the parts give the whole run's result and times both.
#
# What: builds a ~1.1 GB plain-text file from gen_data.py's `dense` text with one line in 17
# double-encoded (its `mojibake` text), then, from the page cache, RUNS times each:
#   - `fix -o` as one process (default threads, and -j1), and two `fix -j1 --range` jobs under
#     `parallel -j2`, each writing its own part; the parts concatenated must equal the whole;
#   - `scan --json` as one process, and four `scan -j1 --json --range` jobs under
#     `parallel -j2` followed by `merge`; the merged records must equal the whole run's.
# Prints the medians, the load average before and after, and the checks.
#
# Usage: benches/parallel.sh          (RUNS=5 by default; DATA=benches/data)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
data="${DATA:-$root/benches/data}"
runs="${RUNS:-5}"
mkdir -p "$data"

source "$here/lib.sh"
need parallel parallel

(cd "$root" && cargo build --release --quiet)
undouble="$root/target/release/undouble"
big=$(mixed_file "$data")
work="$(mktemp -d "$data/parallel.XXXXXX")"
trap 'rm -rf "$work"' EXIT

size=$(stat -L -c %s "$big")
half=$((size / 2))
quarters="0-$((size / 4)) $((size / 4))-$((size / 2)) $((size / 2))-$((size * 3 / 4)) $((size * 3 / 4))-"

# elapsed CMD...: wall seconds of one run (the exit status is ignored: scan says 1 when it finds).
elapsed() {
    local t0 t1
    t0=$(date +%s.%N)
    "$@" || true
    t1=$(date +%s.%N)
    echo "$t1 - $t0" | bc -l
}
median() { sort -g | awk '{ v[NR] = $1 } END { printf "%.2f", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

fix_parts() { parallel -j2 "$undouble" fix -q -j1 --range {} -o "$work/part.{#}" "$big" ::: "0-$half" "$half-"; }
scan_parts() {
    # shellcheck disable=SC2086
    parallel -j2 "$undouble" scan -j1 --json --top 1000000 --range {} "$big" '>' "$work/scan.{#}.jsonl" ::: $quarters || true
    "$undouble" merge --top 1000000 "$work"/scan.{1,2,3,4}.jsonl > "$work/merged.jsonl"
}

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
cat "$big" > /dev/null
declare -A times
for _ in $(seq "$runs"); do
    times[fix]+="$(elapsed "$undouble" fix -q -o "$work/whole.txt" "$big") "
    times[fix_j1]+="$(elapsed "$undouble" fix -q -j1 -o "$work/whole.txt" "$big") "
    times[fix_parallel]+="$(elapsed fix_parts) "
    times[scan]+="$(elapsed sh -c "'$undouble' scan --json --top 1000000 '$big' > '$work/whole.jsonl'") "
    times[scan_parallel]+="$(elapsed scan_parts) "
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"

echo
echo "| $(basename "$big") ($((size / 1000000)) MB), $runs runs | median s |"
echo "|---|---|"
for k in fix fix_j1 fix_parallel scan scan_parallel; do
    echo "| $k | $(tr ' ' '\n' <<<"${times[$k]}" | grep . | median) |"
done
echo
cat "$work"/part.1 "$work"/part.2 | cmp - "$work/whole.txt" && echo "fix: the parts concatenated equal the whole run's output"
python3 - "$here" "$work/whole.jsonl" "$work/merged.jsonl" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
from ranges import records
whole, merged = (records(open(p).read()) for p in sys.argv[2:4])
ok = whole == merged
print("scan: merged ranges equal the whole run's records" if ok else "scan: DIFFERENT")
sys.exit(0 if ok else 1)
PY
