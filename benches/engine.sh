#!/usr/bin/env bash
# Whole-process speed and memory of the batch engine, as medians of several runs
# from the page cache, each ratio against a baseline measured in the same run.
#
# What: generates a 1 GB dump-like file (2% of strings double-encoded) with gen_data.py, then
# times `scan` and `fix -o` with 1 and 2 threads and `cat FILE > OUT` with hyperfine (also
# followed by `sync OUT`, since `fix` syncs what it writes before renaming it into place), and
# measures the peak memory of `fix -o` on the 1 GB file and on a 4 GB one. Two more pairs of
# rows separate the disk from the CPU: `dd oflag=direct conv=fsync` of the same file into a new
# one is the least time in which any program puts that many bytes on this disk, synced (the
# floor under `fix -o`); `fix -o /dev/null` does all of `fix`'s work but the writing.
# Prints a Markdown table. Installs hyperfine from Debian's packages if missing.
#
# Usage: benches/engine.sh            (RUNS=5 by default; DATA=benches/data)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
data="${DATA:-$root/benches/data}"
runs="${RUNS:-5}"
mkdir -p "$data"

source "$here/lib.sh"
need hyperfine hyperfine

(cd "$root" && cargo build --release --quiet)
undouble="$root/target/release/undouble"
sql="$data/sql-1g.sql"
big="$data/sql-4g.sql"
[[ -s "$sql" ]] || python3 "$here/gen_data.py" sql "$sql" 1024
[[ -s "$big" ]] || python3 "$here/gen_data.py" sql "$big" 4096
out="$data/out.tmp"
# A line of 1 GB that never ends, every few bytes a garbled word: the worst case for the cuts
# (a block is cut within the line) and for the repair's memory (dense patches).
line="$data/one-line-1g.txt"
[[ -s "$line" ]] || python3 - "$line" <<'PY'
import sys
chunk = ("a line that never ends: caf\u00c3\u00a9 cr\u00c3\u00a8me \u00e2\u20ac\u201d " * 1000).encode()
with open(sys.argv[1], "wb") as f:
    for _ in range((1 << 30) // len(chunk)):
        f.write(chunk)
PY
json="$data/engine-hyperfine.json"

hyperfine --warmup 1 --runs "$runs" --export-json "$json" -N \
    --command-name "cat > file" "sh -c 'cat $sql > $out'" \
    --command-name "cat > file; sync file" "sh -c 'cat $sql > $out && sync $out'" \
    --command-name "scan -j1" "$undouble scan -q -j 1 $sql" \
    --command-name "scan -j2" "$undouble scan -q -j 2 $sql" \
    --command-name "fix -o -j1" "$undouble fix -q -j 1 $sql -o $out" \
    --command-name "fix -o -j2" "$undouble fix -q -j 2 $sql -o $out" \
    --command-name "dd oflag=direct conv=fsync" \
        "dd if=$sql of=$out bs=8M oflag=direct conv=fsync status=none" \
    --command-name "fix -o /dev/null -j1" "$undouble fix -q -j 1 $sql -o /dev/null" \
    --command-name "fix -o /dev/null -j2" "$undouble fix -q -j 2 $sql -o /dev/null" \
    -i >/dev/null

# Peak resident memory of a command, sampled from /proc every 20 ms: anonymous memory (what
# undouble allocates) and file-backed pages (the mapped input, clean page cache the kernel can
# drop at will), in MiB.
peak_memory() {
    "$@" >/dev/null 2>&1 &
    local pid=$! anon=0 file=0 a f
    while kill -0 "$pid" 2>/dev/null; do
        a=$(awk '/^RssAnon/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
        f=$(awk '/^RssFile/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
        [[ -n $a && $a -gt $anon ]] && anon=$a
        [[ -n $f && $f -gt $file ]] && file=$f
        sleep 0.02
    done
    wait "$pid" || true
    echo "$((anon / 1024)) $((file / 1024))"
}
read -r anon_1g file_1g < <(peak_memory "$undouble" fix -q "$sql" -o "$out")
read -r anon_4g file_4g < <(peak_memory "$undouble" fix -q "$big" -o "$out")
read -r anon_line_scan file_line_scan < <(peak_memory "$undouble" scan -q "$line")
read -r anon_line_fix file_line_fix < <(peak_memory "$undouble" fix -q "$line" -o "$out")
rm -f "$out"

python3 - "$json" "$sql" "$anon_1g" "$file_1g" "$anon_4g" "$file_4g" \
    "$anon_line_scan" "$file_line_scan" "$anon_line_fix" "$file_line_fix" <<'PY'
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
    if name.startswith("fix -o -j"):
        ratio += ("; " if ratio else "") + f"{mbps[name] / mbps['cat > file']:.2f}x cat's MB/s"
        ratio += f", {mbps[name] / mbps['cat > file; sync file']:.2f}x cat+sync's"
        ratio += f", {mbps[name] / mbps['dd oflag=direct conv=fsync']:.2f}x dd's"
    print(f"| `{name}` | {median[name]:.3f} | {mbps[name]:.0f} | {ratio} |")
print()
anon_1g, file_1g, anon_4g, file_4g = sys.argv[3:7]
print(f"Peak memory of `fix -o`, anonymous (allocated) + file-backed (mapped input pages): "
      f"1 GB input {anon_1g} + {file_1g} MiB, 4 GB input {anon_4g} + {file_4g} MiB")
a_scan, f_scan, a_fix, f_fix = sys.argv[7:11]
print(f"Peak memory on a 1 GB line with no newline, garbled every few bytes: `scan` "
      f"{a_scan} + {f_scan} MiB, `fix -o` {a_fix} + {f_fix} MiB")
PY
