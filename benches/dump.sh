#!/usr/bin/env bash
# What the dump-aware mode costs: `fix` and `scan` of a real-looking mariadb-dump file read as a
# dump (`--format sql`: lexed, only text columns repaired, blobs left alone) against the same
# file read as plain text (`--format text`), as medians of several runs from the page cache.
#
# Why: the dump mode lexes the whole file in order on one thread while the plain mode scans
# blocks in parallel; the target is dump-aware `fix` at no less than 0.7x the throughput of plain
# `fix` on a dump of 500 MB or more. Both are measured in the same run, so the ratio holds on a
# noisy machine where the absolute numbers do not.
#
# What: generates a 600 MB dump with `gen_data.py dump` (header, CREATE TABLE of latin1 text
# columns and a blob, about 1 MB extended INSERTs, 2% of strings double-encoded, a fifth of the
# blobs looking double-encoded) if it is missing, checks once that every command runs (exit 0
# or 1), times them with hyperfine and prints a Markdown table: median, MB/s and the ratio
# dump-aware / plain throughput. Installs hyperfine from Debian's packages if missing.
#
# Usage: benches/dump.sh   (RUNS=5 by default; DATA=benches/data; SIZE_MB=600, the file is then
#                           $DATA/dump-${SIZE_MB}m.sql)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
data="${DATA:-$root/benches/data}"
runs="${RUNS:-5}"
size_mb="${SIZE_MB:-600}"
mkdir -p "$data"

source "$here/lib.sh"
need hyperfine hyperfine

(cd "$root" && cargo build --release --quiet)
undouble="$root/target/release/undouble"
dump="$data/dump-${size_mb}m.sql"
[[ -s "$dump" ]] || python3 "$here/gen_data.py" dump "$dump" "$size_mb"
out_sql="$data/dump-sql.out.tmp"
out_text="$data/dump-text.out.tmp"
json="$data/dump-hyperfine.json"
trap 'rm -f "$out_sql" "$out_text"' EXIT

# The columns are latin1: a dump-aware repair into them is refused unless they are converted,
# as the README says a latin1 dump is repaired.
fix_sql=("$undouble" fix -q -j2 --format sql --convert-charset utf8mb4 "$dump" -o "$out_sql")
fix_text=("$undouble" fix -q -j2 --format text "$dump" -o "$out_text")
scan_sql=("$undouble" scan -q -j2 --format sql "$dump")
scan_text=("$undouble" scan -q -j2 --format text "$dump")

# hyperfine has to ignore exit codes (1 means "found something"), so a command that fails for
# real (2: the lexer rejected the dump, a write failed) is caught here, once, before timing.
# hyperfine's warning about each ignored exit code is filtered out of its standard error.
check() {
    local status=0
    "$@" >/dev/null || status=$?
    if [[ $status -gt 1 ]]; then
        echo "dump.sh: $* exited with $status" >&2
        exit 2
    fi
}
check "${fix_sql[@]}"
check "${fix_text[@]}"
check "${scan_sql[@]}"
check "${scan_text[@]}"

hyperfine --warmup 1 --runs "$runs" --export-json "$json" -N -i --style none \
    --command-name "fix --format text" "${fix_text[*]}" \
    --command-name "fix --format sql" "${fix_sql[*]}" \
    --command-name "scan --format text" "${scan_text[*]}" \
    --command-name "scan --format sql" "${scan_sql[*]}" \
    >/dev/null 2> >(grep -v -e 'Ignoring non-zero exit code' -e '^ *$' >&2)

python3 - "$json" "$dump" <<'PY'
import json, os, sys
results = {r["command"]: r for r in json.load(open(sys.argv[1]))["results"]}
size = os.path.getsize(sys.argv[2]) / 1e6
median = {name: r["median"] for name, r in results.items()}
mbps = {name: size / t for name, t in median.items()}
runs = len(results["fix --format sql"]["times"])
print(f"Input: {size:.0f} MB mariadb-dump file ({os.path.basename(sys.argv[2])}), "
      f"medians of {runs} runs, -j2")
print()
print("| command | median s | MB/s | dump-aware ÷ plain |")
print("|---|---:|---:|---:|")
for name in results:
    ratio = ""
    if name.endswith("sql"):
        ratio = f"{mbps[name] / mbps[name.replace('sql', 'text')]:.2f}×"
    print(f"| `{name}` | {median[name]:.3f} | {mbps[name]:.0f} | {ratio} |")
print()
fix = mbps["fix --format sql"] / mbps["fix --format text"]
if size < 500:
    verdict = "not judged: the target is set on a dump of 500 MB or more"
else:
    verdict = "met" if fix >= 0.7 else "not met"
print(f"Target, dump-aware fix ≥ 0.7× plain fix's throughput: {fix:.2f}×, {verdict}")
PY
