#!/usr/bin/env bash
# Renders `undouble report` in a real browser, headless Chromium (Debian's package), and keeps
# the screenshot in docs/report.png: the page must draw its charts with no script and no
# network. The inputs are those of the guide's example: `scan --json` of corpus/ and the audit
# log of a `fix --audit` of the sample dump.
#
#   bash benches/report_screenshot.sh [OUT.png]
set -euo pipefail
cd "$(dirname "$0")/.."
source benches/lib.sh
need chromium chromium

out=${1:-docs/report.png}
cargo build --quiet --bin undouble
undouble=$PWD/target/debug/undouble
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$undouble" scan --json corpus/ > "$work/scan.jsonl" || [[ $? -eq 1 ]]
cp corpus/dump-sample.sql "$work/"
(cd "$work" && "$undouble" fix -q --convert-charset utf8mb4 --audit fix.jsonl \
    dump-sample.sql -o fixed.sql)
"$undouble" report "$work/scan.jsonl" "$work/fix.jsonl" -o "$work/report.html"

# --no-sandbox: the script runs as root in CI; the page is ours and loads nothing.
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
    --window-size=1280,2400 --screenshot="$work/report.png" "file://$work/report.html" \
    2>"$work/chromium.log" || { cat "$work/chromium.log" >&2; exit 1; }
cp "$work/report.png" "$out"
echo "${0##*/}: wrote $out"
