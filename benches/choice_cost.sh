#!/usr/bin/env bash
# What the default reading choice (`--readings auto`) costs a scan, against the Western pair
# alone (`--readings latin1,cp1252`), and against another build (BASE=/path/to/undouble) on
# the same inputs in the same run.
#
# Why: the choice runs on every buffer, and a tree of small files is one buffer per file, where
# any per-buffer cost shows whole; large files pay it once per 8 MiB block.
#
# What: builds (once, under benches/data) a tree of about 7,000 files of about 8 KB cut from the
# clean-text corpus (real, correct text of many scripts: benches/cleantext/build.sh builds it)
# and three 50 MB files from gen_data.py (`sql`, `dense`, `mojibake`); then times `scan -j1` of
# each input, CPU seconds (user + system) of whole processes, the commands alternating, ROUNDS
# rounds (7 by default), and prints the medians, their ratios and the load average before
# and after.
#
# Usage: benches/choice_cost.sh       (BASE=/path/to/other/undouble ROUNDS=7 DATA=benches/data)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
source "$here/lib.sh"
data="${DATA:-$root/benches/data}"
rounds="${ROUNDS:-7}"

if [[ ! -d "$data/cleantext" ]]; then
    echo "choice_cost.sh: run benches/cleantext/build.sh first (the tree is cut from its text)" >&2
    exit 1
fi
tree="$data/choice-tree"
[[ -d "$tree" ]] || python3 "$here/make_tree.py" "$data/cleantext" "$tree" --per-source 150 >/dev/null
for kind in sql dense mojibake; do
    [[ -s "$data/choice-$kind-50m.txt" ]] ||
        python3 "$here/gen_data.py" "$kind" "$data/choice-$kind-50m.txt" 50 >/dev/null
done

(cd "$root" && cargo build --release --quiet)
now="$root/target/release/undouble"

cpu() { measure "$@" | cut -d" " -f2; } # CPU seconds of one run of "$@"

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
files=$(find "$tree" -type f | wc -l)
printf '| input | western | default (auto) | auto ÷ western |%s\n' "${BASE:+ base western | base auto |}"
printf '|---|---:|---:|---:|%s\n' "${BASE:+---:|---:|}"
for input in "$tree" "$data"/choice-{sql,dense,mojibake}-50m.txt; do
    declare -A t=()
    for _ in $(seq "$rounds"); do
        t[w]+="$(cpu "$now" scan -j1 --readings latin1,cp1252 "$input") "
        t[a]+="$(cpu "$now" scan -j1 "$input") "
        if [[ -n "${BASE:-}" ]]; then
            t[bw]+="$(cpu "$BASE" scan -j1 --readings latin1,cp1252 "$input") "
            t[ba]+="$(cpu "$BASE" scan -j1 --readings auto "$input") "
        fi
    done
    w=$(median <<<"${t[w]}"); a=$(median <<<"${t[a]}")
    name="${input#"$data"/}"; [[ -d "$input" ]] && name="$name ($files files)"
    extra=""
    [[ -n "${BASE:-}" ]] && extra=" $(median <<<"${t[bw]}") | $(median <<<"${t[ba]}") |"
    printf '| `%s` | %s | %s | %s |%s\n' "$name" "$w" "$a" "$(awk -v a="$a" -v w="$w" 'BEGIN { printf "%.2f", a / w }')" "$extra"
    unset t
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
