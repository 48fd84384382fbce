#!/usr/bin/env bash
# Whole-process speed and memory of the batch engine (issue 3), as medians of several runs
# from the page cache, each ratio against a baseline measured in the same run.
#
# What: generates a 1 GB dump-like file (2% of strings double-encoded) with gen_data.py, then
# times `scan` and `fix -o` with 1 and 2 threads and `cat FILE > OUT` with hyperfine (also
# followed by `sync OUT`, since `fix` syncs what it writes before renaming it into place), and
# measures peak RSS of `fix -o` on the 1 GB file and on a 4 GB one with /usr/bin/time.
# Prints a Markdown table. Installs hyperfine and GNU time from Debian's packages if missing.
#
# Usage: benches/engine.sh            (RUNS=5 by default; DATA=benches/data)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
data="${DATA:-$root/benches/data}"
runs="${RUNS:-5}"
mkdir -p "$data"

need() {
    command -v "$1" >/dev/null 2>&1 && return
    if [[ $(id -u) -ne 0 ]]; then
        echo "engine.sh: $1 is missing; install the Debian package $2" >&2
        exit 1
    fi
    apt-get update -qq && apt-get install -y -qq "$2" >/dev/null
}
need hyperfine hyperfine
[[ -x /usr/bin/time ]] || need /usr/bin/time time

(cd "$root" && cargo build --release --quiet)
undouble="$root/target/release/undouble"
sql="$data/sql-1g.sql"
big="$data/sql-4g.sql"
[[ -s "$sql" ]] || python3 "$here/gen_data.py" sql "$sql" 1024
[[ -s "$big" ]] || python3 "$here/gen_data.py" sql "$big" 4096
out="$data/out.tmp"
json="$data/engine-hyperfine.json"

hyperfine --warmup 1 --runs "$runs" --export-json "$json" -N \
    --command-name "cat > file" "sh -c 'cat $sql > $out'" \
    --command-name "cat > file; sync file" "sh -c 'cat $sql > $out && sync $out'" \
    --command-name "scan -j1" "$undouble scan -q -j 1 $sql" \
    --command-name "scan -j2" "$undouble scan -q -j 2 $sql" \
    --command-name "fix -o -j1" "$undouble fix -q -j 1 $sql -o $out" \
    --command-name "fix -o -j2" "$undouble fix -q -j 2 $sql -o $out" \
    -i >/dev/null

rss() { /usr/bin/time -f "%M" "$@" 2>&1 >/dev/null | tail -n 1; }
rss_1g=$(rss "$undouble" fix -q "$sql" -o "$out")
rss_4g=$(rss "$undouble" fix -q "$big" -o "$out")
rm -f "$out"

python3 - "$json" "$sql" "$rss_1g" "$rss_4g" <<'PY'
import json, os, sys
results = {r["command"]: r for r in json.load(open(sys.argv[1]))["results"]}
size = os.path.getsize(sys.argv[2]) / 1e6
median = {name: r["median"] for name, r in results.items()}
mbps = {name: size / t for name, t in median.items()}
print(f"Input: {size:.0f} MB dump-like file, medians of {len(results['scan -j1']['times'])} runs")
print()
print("| command | median s | MB/s | ratio |")
print("|---|---:|---:|---|")
for name in results:
    ratio = ""
    if name.endswith("-j2"):
        one = name.replace("-j2", "-j1")
        ratio = f"{median[one] / median[name]:.2f}x faster than {one}"
    if name.startswith("fix"):
        ratio += ("; " if ratio else "") + f"{mbps[name] / mbps['cat > file']:.2f}x cat's MB/s"
        ratio += f", {mbps[name] / mbps['cat > file; sync file']:.2f}x cat+sync's"
    print(f"| `{name}` | {median[name]:.3f} | {mbps[name]:.0f} | {ratio} |")
print()
print(f"Peak RSS of `fix -o` (includes the mapped input's resident pages): "
      f"1 GB input {int(sys.argv[3]) / 1024:.0f} MiB, 4 GB input {int(sys.argv[4]) / 1024:.0f} MiB")
PY
