#!/usr/bin/env bash
# Count undouble's false positives on clean text.
#
# Why: the corpus under benches/data/cleantext/ is real, correctly encoded UTF-8, so every
# double-encoded character `undouble scan` reports there would be a wrong "repair". This gives
# that number per file and in total, as changes per 100 MB, and the sequences responsible.
#
# What: builds the corpus with build.sh if it is missing, runs
# `${UNDOUBLE:-target/release/undouble} scan --json` over it, keeps the JSON Lines in
# benches/data/false_positives.jsonl and summarises them with summarize.py.
#
# Usage (from anywhere):  benches/cleantext/false_positives.sh
#   UNDOUBLE=/path/to/undouble   binary to test (default: target/release/undouble in the repo)
#   TOP=20                       sequences listed per file by the scan (summed across files)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
data="$root/benches/data"
undouble="${UNDOUBLE:-$root/target/release/undouble}"

if [[ ! -x "$undouble" ]]; then
    echo "false_positives.sh: no undouble binary at $undouble;" \
        "build it with 'cargo build --release' or set UNDOUBLE=/path/to/undouble" >&2
    exit 1
fi
if [[ ! -f "$data/cleantext/.complete" ]]; then
    echo "false_positives.sh: corpus missing, building it with build.sh" >&2
    "$here/build.sh" >&2
fi

shopt -s nullglob
files=("$data"/cleantext/*.txt)
if ((${#files[@]} == 0)); then
    echo "false_positives.sh: no .txt files in $data/cleantext; rerun $here/build.sh" >&2
    exit 1
fi

jsonl="$data/false_positives.jsonl"
start=$SECONDS
# Exit status follows grep: 0 nothing found, 1 found, 2 error (summarised below all the same).
scan_status=0
"$undouble" scan --json --top "${TOP:-20}" "${files[@]}" >"$jsonl" || scan_status=$?
echo "scanned ${#files[@]} files in $((SECONDS - start)) s; raw JSON Lines in $jsonl"
summary_status=0
python3 "$here/summarize.py" "$jsonl" || summary_status=$?
if ((scan_status > 1)); then
    echo "false_positives.sh: $undouble scan exited with status $scan_status" >&2
    exit "$scan_status"
fi
exit "$summary_status"
