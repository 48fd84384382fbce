#!/usr/bin/env bash
# same_output.sh OLD NEW: checks that two builds of undouble write byte-identical `fix` output
# and `scan` reports (JSON, and the text for a person), for a change that should only make
# them faster.
#
# Files: the 200 MB head of mixed-1g.txt, the three 50 MB choice files, mojibake-64m.txt, the
# files of corpus/ and the 64 MB head of the garbled dump (read as a dump and as text), each
# under four option sets (the text report under the first). Trees (`scan` only): the accuracy
# and clean-text inputs and tests/data, under two (the text report under the first). Data comes from benches/data (made by compare.sh, choice_cost.sh and
# garbled_dump.sh); a missing file is skipped and said. Exits 1 on the first difference.
set -euo pipefail
[[ $# -eq 2 ]] || { echo "usage: ${0##*/} OLD-BINARY NEW-BINARY" >&2; exit 2; }
old=$1 new=$2
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
data=${DATA:-$root/benches/data}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

files=()
add() { if [[ -s $1 ]]; then files+=("$1"); else echo "skipped (missing): $1" >&2; fi; }
if [[ -s $data/mixed-1g.txt ]]; then
    head -c 200000000 "$data/mixed-1g.txt" > "$work/mixed-200m.txt"
    add "$work/mixed-200m.txt"
else
    echo "skipped (missing): $data/mixed-1g.txt" >&2
fi
for f in "$data"/choice-{dense,mojibake,sql}-50m.txt "$data/mojibake-64m.txt" "$root"/corpus/*.{txt,sql}; do
    add "$f"
done

same() { # LABEL ARGS...: runs both builds with ARGS, compares standard output and exit status
    local label=$1 old_status=0 new_status=0
    shift
    "$old" "$@" > "$work/old" 2>/dev/null || old_status=$?
    "$new" "$@" > "$work/new" 2>/dev/null || new_status=$?
    if [[ $old_status -ne $new_status ]] || ! cmp -s "$work/old" "$work/new"; then
        echo "DIFFERENT: $label: $* (exit $old_status, $new_status)" >&2
        exit 1
    fi
    if [[ ! -s $work/old ]]; then
        echo "no output from either build: $label: $*" >&2
        exit 1
    fi
    checked=$((checked + 1))
}

checked=0
option_sets=("" "--strictness strict" "--strictness lenient" "--lost-bytes replace")
for f in "${files[@]}"; do
    # A dump with latin1 columns is repaired only with its declarations converted.
    convert=()
    [[ $f == *.sql ]] && convert=(--convert-charset utf8mb4)
    for opts in "${option_sets[@]}"; do
        # shellcheck disable=SC2086
        same "fix $(basename "$f")" fix -q "${convert[@]}" $opts "$f" -o -
        # shellcheck disable=SC2086
        same "scan $(basename "$f")" scan --json $opts "$f"
    done
    same "scan text $(basename "$f")" scan "$f"
done

if [[ -s $data/garbled-dump-600m.sql ]]; then
    # The first 64 MB, cut after the last statement that ends in them.
    python3 -c '
import sys
head = open(sys.argv[1], "rb").read(64_000_000)
open(sys.argv[2], "wb").write(head[: head.rindex(b";\n") + 2])' \
        "$data/garbled-dump-600m.sql" "$work/dump-64m.sql"
    same "dump as a dump" fix -q --format sql --convert-charset utf8mb4 "$work/dump-64m.sql" -o -
    same "dump as text" fix -q --format text "$work/dump-64m.sql" -o -
    for format in sql text; do
        same "dump as $format" scan --json --format $format "$work/dump-64m.sql"
        same "dump as $format, text" scan --format $format "$work/dump-64m.sql"
    done
else
    echo "skipped (missing): $data/garbled-dump-600m.sql" >&2
fi

for tree in "$data/accuracy" "$data/cleantext" "$root/tests/data"; do
    [[ -d $tree ]] || { echo "skipped (missing): $tree" >&2; continue; }
    for opts in "" "--strictness strict"; do
        # shellcheck disable=SC2086
        same "tree $(basename "$tree")" scan --json $opts "$tree"
    done
    same "tree text $(basename "$tree")" scan "$tree"
done

echo "same output: $checked comparisons"
