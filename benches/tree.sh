#!/usr/bin/env bash
# `scan` of a tree of many small files against `rg -c` of the seed's pattern on the same tree,
# with the same threads.
#
# Why: a store audited by `scan` is often a tree of many small files, where the per-file cost
# (opening, reading or mapping, the binary sniff, the survey, the reading choice) counts more
# than the scan itself. ripgrep is the anchor: it opens, reads and searches each file too, and
# does nothing else.
#
# What: builds (once) 50,000 files of about 8 KB (about 400 MB) cut from the clean-text corpus
# (benches/cleantext/build.sh builds it; real, correct text of many scripts) with
# make_tree.py, reads the tree once into the page cache, then times, ROUNDS times each (5 by
# default), the commands alternating: `undouble scan -jN` (and `--no-mmap`) and `rg -c -jN`
# of the seed's byte pattern, for N = 1 and 2. Wall seconds (the tree in the page cache) and
# CPU seconds (user + system), medians; the ratios rg ÷ undouble (above 1: undouble faster);
# the load average before and after. BASE=/path/to/undouble times another build beside.
#
# Usage: benches/tree.sh             (ROUNDS=5 DATA=benches/data FILES=50000 BASE=...)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
data="${DATA:-$root/benches/data}"
rounds="${ROUNDS:-5}"
files="${FILES:-50000}"

source "$here/lib.sh"
need rg ripgrep
if [[ ! -d "$data/cleantext" ]]; then
    echo "tree.sh: run benches/cleantext/build.sh first (the tree is cut from its text)" >&2
    exit 1
fi
tree="$data/tree-$files"
[[ -d "$tree" ]] || python3 "$here/make_tree.py" "$data/cleantext" "$tree" --files "$files"

(cd "$root" && cargo build --release --quiet)
undouble="$root/target/release/undouble"
# The seed's pattern (seed 002: ISO-8859-1 and Windows-1252 double encoding), as bytes.
pattern='(?-u)\xC3[\x82-\xB4](\xC2[\x80-\xBF]|\xC5[\x92\x93\xA0\xA1\xB8\xBD\xBE]|\xC6\x92|\xCB[\x86\x9C]|\xE2\x80[\x93\x94\x98\x99\x9A\x9C\x9D\x9E\xA0\xA1\xA2\xA6\xB0\xB9\xBA]|\xE2\x82\xAC|\xE2\x84\xA2)'


find "$tree" -type f -exec cat {} + >/dev/null
echo "tree: $(find "$tree" -type f | wc -l) files, $(du -sh "$tree" | cut -f1)"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
declare -A wall=() cpu=()
names=()
for threads in 1 2; do
    commands=(
        "undouble scan -j$threads|$undouble scan -j$threads $tree"
        "undouble scan -j$threads --no-mmap|$undouble scan -j$threads --no-mmap $tree"
        "rg -c -j$threads|rg -c -j$threads $pattern $tree"
    )
    [[ -n "${BASE:-}" ]] && commands+=("base scan -j$threads|$BASE scan -j$threads $tree")
    for _ in $(seq "$rounds"); do
        for entry in "${commands[@]}"; do
            name="${entry%%|*}"
            read -r -a argv <<<"${entry#*|}"
            read -r w c < <(measure "${argv[@]}")
            wall[$name]+="$w "
            cpu[$name]+="$c "
        done
    done
    for entry in "${commands[@]}"; do names+=("${entry%%|*}"); done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| command | median wall s | median CPU s | rg -c (same threads) ÷ this |"
echo "|---|---:|---:|---:|"
for name in "${names[@]}"; do
    threads="${name##*-j}"; threads="${threads%% *}"
    w=$(median <<<"${wall[$name]}"); c=$(median <<<"${cpu[$name]}")
    rg_w=$(median <<<"${wall["rg -c -j$threads"]}")
    printf '| `%s` | %s | %s | %s |\n' "$name" "$w" "$c" "$(awk -v r="$rg_w" -v w="$w" 'BEGIN { printf "%.2f", r / w }')"
done
