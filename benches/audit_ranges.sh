#!/usr/bin/env bash
# An audited fix in place, split into `--range` jobs joined by `merge --audit`, against one
# audited process on the same file: checks that the joined file and the combined log are the
# whole run's, and that `undo` of the combined log restores the file; times each step.
#
# What: a SQL file of SIZE_MB (gen_data.py's `sql`, 2% of its strings double-encoded), from the
# page cache, RUNS times each (a fresh copy of the original before every run):
#   - `fix -j1 --in-place --audit` as one process;
#   - four `fix -j1 --range --audit` jobs under `parallel -j2`, each writing its part and its
#     log, then `merge --audit` joining the parts over the file;
#   - `undo` of the combined log.
# Prints the medians (wall and CPU seconds), the log sizes, the load average before and after,
# and the checks.
#
# Usage: benches/audit_ranges.sh     (RUNS=3, SIZE_MB=256 by default; DATA=benches/data)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
data="${DATA:-$root/benches/data}"
runs="${RUNS:-3}"
size_mb="${SIZE_MB:-256}"
mkdir -p "$data"

source "$here/lib.sh"
need parallel parallel

(cd "$root" && cargo build --release --quiet)
undouble="$root/target/release/undouble"
original="$data/audit-sql-${size_mb}m.sql"
[[ -s "$original" ]] || python3 "$here/gen_data.py" sql "$original" "$size_mb" >&2
work="$(mktemp -d "$data/audit_ranges.XXXXXX")"
trap 'rm -rf "$work"' EXIT

size=$(stat -L -c %s "$original")
cuts=(0 $((size / 4 + 17)) $((size / 2 - 1001)) $((size * 3 / 4 + 3)) "")
ranges=()
for i in 0 1 2 3; do ranges+=("${cuts[$i]}-${cuts[$((i + 1))]}"); done

fresh() { rm -rf "$work/run"; mkdir -p "$work/run"; cp "$original" "$work/run/in.sql"; sync; }

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
cat "$original" > /dev/null
declare -A wall cpu
add() { read -r w c <<<"$2"; wall[$1]+="$w "; cpu[$1]+="$c "; }
for _ in $(seq "$runs"); do
    fresh
    add whole "$(measure "$undouble" fix -q -j1 --in-place --audit "$work/run/whole.log" "$work/run/in.sql")"
    cp "$work/run/in.sql" "$work/whole.sql"
    cp "$original" "$work/run/in.sql"
    add fix_ranges "$(measure parallel -j2 "$undouble" fix -q -j1 --range {} --audit "$work/run/p{#}.log" \
        -o "$work/run/p{#}" "$work/run/in.sql" ::: "${ranges[@]}")"
    add merge "$(measure "$undouble" merge --audit "$work/run/combined.log" --root "$work/run" "$work"/run/p1.log "$work"/run/p2.log "$work"/run/p3.log "$work"/run/p4.log)"
    cmp -s "$work/run/in.sql" "$work/whole.sql" || { echo "the joined parts differ from the whole fix" >&2; exit 1; }
    add undo "$(measure "$undouble" undo --root "$work/run" "$work/run/combined.log")"
    cmp -s "$work/run/in.sql" "$original" || { echo "undo did not restore the file" >&2; exit 1; }
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"

changes=$(grep -c '"type":"change"' "$work/run/combined.log")
echo
echo "| $(basename "$original") ($((size / 1000000)) MB, $changes changes), $runs runs | median s | CPU s |"
echo "|---|---:|---:|"
for k in whole fix_ranges merge undo; do
    echo "| $k | $(median <<<"${wall[$k]}") | $(median <<<"${cpu[$k]}") |"
done
echo
echo "logs: whole $(stat -c %s "$work/run/whole.log") bytes; ranges $(cat "$work"/run/p?.log | wc -c) bytes; combined $(stat -c %s "$work/run/combined.log") bytes"
echo "fix: the parts joined over the file equal the whole audited fix"
echo "undo: the combined log restored the original"
python3 - "$work/run/whole.log" "$work/run/combined.log" <<'PY'
import json, sys
def records(path):
    with open(path) as log:
        for line in log:
            record = json.loads(line)
            if record["type"] in ("change", "file"):
                for key in ("prev", "output"):
                    record.pop(key, None)
                yield record
same = all(a == b for a, b in zip(records(sys.argv[1]), records(sys.argv[2])))
same = same and sum(1 for _ in records(sys.argv[1])) == sum(1 for _ in records(sys.argv[2]))
print("log: the combined log's change and file records equal the whole fix's" if same else "log: DIFFERENT")
sys.exit(0 if same else 1)
PY
