#!/usr/bin/env python3
"""Summarise `undouble scan --json` output over the clean-text corpus as false positives.

Why: the corpus (benches/cleantext/build.sh) is correctly encoded text, so every double-encoded
character undouble reports in it is a false positive. This prints, per file and in total, how
many there are and the rate per 100 MB, then the sequences responsible, summed across files.

Input: JSON Lines, one object per file ({"type": "file", "path", "bytes", "double_encoded",
"top_sequences": [{"mojibake", "repaired", "count"}, ...]}), one {"type": "total", ...}, and
possibly {"type": "error", "path", "message"}. The `left_alone` count, when present, is shown too
(sequences the pattern matched but the tool chose not to repair). Only the listed keys are
relied on; others are ignored.

Usage: summarize.py [SCAN.jsonl]   (default: standard input)
Exit status: 0 when the input was complete and held no error record, 1 otherwise.
"""

import collections
import json
import os
import sys

PER = 100_000_000  # rates are per 100 MB
TOP = 25


def fail(message):
    sys.exit(f"summarize.py: {message}")


def need(record, key, lineno):
    if key not in record:
        fail(f"line {lineno}: {record.get('type')} record has no {key!r}: is the undouble "
             f"binary current? (expected keys: type, path, bytes, double_encoded, top_sequences)")
    return record[key]


def rate(count, size):
    return f"{count * PER / size:.2f}" if size else "-"


def main():
    if len(sys.argv) > 2:
        fail("usage: summarize.py [SCAN.jsonl]")
    stream = open(sys.argv[1], encoding="utf-8") if len(sys.argv) == 2 else sys.stdin
    files, errors, total = [], [], None
    sequences = collections.Counter()
    seen_in = collections.defaultdict(set)
    with stream:
        for lineno, line in enumerate(stream, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as e:
                fail(f"line {lineno} is not JSON ({e}): {line[:80]!r}")
            kind = need(record, "type", lineno)
            if kind == "file":
                path = need(record, "path", lineno)
                files.append((path, need(record, "bytes", lineno),
                              need(record, "double_encoded", lineno), record.get("left_alone")))
                for seq in need(record, "top_sequences", lineno):
                    key = (need(seq, "mojibake", lineno), need(seq, "repaired", lineno))
                    sequences[key] += need(seq, "count", lineno)
                    seen_in[key].add(os.path.basename(path))
            elif kind == "total":
                total = record
            elif kind == "error":
                errors.append(f"{record.get('path')}: {record.get('message')}")
    if not files:
        fail("no file records in the input")

    width = max(len(os.path.basename(p)) for p, *_ in files)
    show_left = any(left is not None for *_, left in files)
    header = f"{'file':<{width}} {'bytes':>12} {'double_encoded':>14} {'per 100 MB':>11}"
    print(header + (f" {'left_alone':>10}" if show_left else ""))
    for path, size, count, left in sorted(files):
        row = f"{os.path.basename(path):<{width}} {size:>12} {count:>14} {rate(count, size):>11}"
        print(row + (f" {left if left is not None else '-':>10}" if show_left else ""))
    size = sum(f[1] for f in files)
    count = sum(f[2] for f in files)
    row = f"{'TOTAL':<{width}} {size:>12} {count:>14} {rate(count, size):>11}"
    left_total = sum(f[3] or 0 for f in files)
    print(row + (f" {left_total:>10}" if show_left else ""))
    if total is not None and total.get("double_encoded", count) != count:
        print(f"note: the total record says {total['double_encoded']} double-encoded characters, "
              f"the file records add up to {count}")

    print(f"\nfalse positives: {count} double-encoded characters in {size / 1e6:.1f} MB of clean "
          f"text = {rate(count, size)} per 100 MB, in "
          f"{sum(1 for f in files if f[2])} of {len(files)} files")
    if sequences:
        print("\ntop sequences across files (summed from each file's top list):")
        print(f"  {'count':>8}  {'mojibake':<12} {'repaired':<9} {'mojibake hex':<20} files")
        for (moji, fixed), n in sorted(sequences.items(), key=lambda kv: (-kv[1], kv[0]))[:TOP]:
            where = sorted(seen_in[(moji, fixed)])
            names = ", ".join(where[:4]) + (f" +{len(where) - 4}" if len(where) > 4 else "")
            print(f"  {n:>8}  {moji!r:<12} {fixed!r:<9} {moji.encode('utf-8').hex(' '):<20} {names}")
    for error in errors:
        print(f"error: {error}", file=sys.stderr)
    if total is None:
        fail("no total record: the scan did not finish")
    if errors:
        fail(f"{len(errors)} file(s) could not be scanned")


if __name__ == "__main__":
    main()
