#!/usr/bin/env python3
"""Checks that byte ranges of one file, fixed and scanned apart, give the whole file's result.

What: cuts FILE into four ranges at offsets that fall inside what the file is made of (a
multi-byte character, a quoted value, the tuples of an extended INSERT or a line of a COPY
block, wherever the first of these is found past a quarter, a half and three quarters of the
file), runs `undouble fix --range` and `undouble scan --json --range` on each, and compares:
the fixes concatenated with one `undouble fix` of the whole file, byte for byte; `undouble
merge` of the scans with one `undouble scan --json`, record for record. Then, on a copy of the
file, each range fixed with its own audit log (`fix --range --audit`) and `undouble merge
--audit` joining the parts over the copy: the copy must equal the whole fix, the combined log's
change records those of `fix --audit` of the whole file, and `undouble undo` of the combined log
must give back the file.

Used by the CI round trips on real dumps (.ci/*-roundtrip.sh) and, for its helpers, by the Spark
job (benches/spark_job.py).

Usage: ranges.py --undouble BIN [--fix-args='--convert-charset utf8mb4'] FILE
Prints one line per check and exits 1 when one fails.
"""

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

# What a cut is looked for inside of, in this order, after each quarter of the file.
INSIDE = [
    (b"\xc3", 1),      # the second byte of a two-byte character (most garbled text holds one)
    (b"'", 2),         # a quoted value
    (b"),(", 2),       # between the tuples of an extended INSERT
    (b"\t", 1),        # a field of a COPY row
]


def ranges_of(size: int, count: int) -> list:
    """`count` ranges that tile a file of `size` bytes, cut at offsets that fall anywhere (in
    a character, a value, a line): an engine's input splits, made uneven on purpose."""
    cuts = [0]
    for i in range(1, count):
        cuts.append(min(size, size * i // count + (i * 7919) % 4093))
    cuts.append(size)
    return [(cuts[i], cuts[i + 1]) for i in range(count)]


def cuts_inside(data: bytes, count: int = 4) -> list:
    """Cuts of `data` into `count` ranges, each inside one of INSIDE, taken in turn."""
    cuts = [0]
    for i in range(1, count):
        start = len(data) * i // count
        for k in range(len(INSIDE)):
            needle, into = INSIDE[(i - 1 + k) % len(INSIDE)]
            at = data.find(needle, start)
            if at >= 0:
                start = at + into
                break
        cuts.append(max(start, cuts[-1]))
    cuts.append(len(data))
    return [(cuts[i], cuts[i + 1]) for i in range(count)]


def run(args: list) -> bytes:
    """Runs undouble: exit status 0 (nothing found) and 1 (found) are both success."""
    done = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if done.returncode not in (0, 1):
        sys.stderr.write(done.stderr.decode(errors="replace"))
        raise SystemExit(f"{' '.join(args)}: exit {done.returncode}")
    return done.stdout


def records(text: str) -> list:
    """A scan's records (JSON Lines: split at newlines only, since a string may hold U+2028)."""
    return [json.loads(line) for line in text.split("\n") if line.strip()]


def check(undouble: str, path: str, fix_args: list, ranges: list, work: Path) -> dict:
    """The fixes and scans of `ranges` of `path`, against the whole file's."""
    whole = run([undouble, "fix", "-q", *fix_args, path])
    joined = b""
    parts = []
    found = 0
    for index, (start, end) in enumerate(ranges):
        joined += run([undouble, "fix", "-q", *fix_args, "--range", f"{start}-{end}", path])
        scan = run([undouble, "scan", "--json", "--top", "1000000",
                    "--range", f"{start}-{end}", path])
        found += records(scan.decode())[0].get("double_encoded", 0) > 0
        part = work / f"part{index}.jsonl"
        part.write_bytes(scan)
        parts.append(str(part))
    scan = run([undouble, "scan", "--json", "--top", "1000000", path]).decode()
    merged = run([undouble, "merge", "--top", "1000000", *reversed(parts)]).decode()
    audited = check_audited(undouble, path, fix_args, ranges, work, whole)
    return {
        "bytes": Path(path).stat().st_size,
        "ranges": ranges,
        "ranges_that_found_something": found,
        "read_as_a_dump": "dump" in records(scan)[0],
        "fix_parts_concatenate_to_the_whole_fix": joined == whole,
        "merged_scan_equals_the_whole_scan": records(merged) == records(scan),
        **audited,
    }


def change_records(log: Path) -> list:
    """The change records of an audit log, without their links."""
    changes = []
    with open(log) as lines:
        for line in lines:
            record = json.loads(line)
            if record["type"] == "change":
                record.pop("prev", None)
                changes.append(record)
    return changes


def check_audited(undouble: str, path: str, fix_args: list, ranges: list, work: Path,
                  whole: bytes) -> dict:
    """`ranges` of a copy of `path` fixed with audit logs, joined over it by `merge --audit`,
    undone by `undo`, against the whole fix (`whole`) and its log."""
    audit = work / "audit"
    audit.mkdir()
    copy = audit / Path(path).name
    original = Path(path).read_bytes()
    copy.write_bytes(original)
    whole_log = audit / "whole.log"
    run([undouble, "fix", "-q", *fix_args, "--audit", str(whole_log),
         "-o", str(audit / "whole.out"), str(copy)])
    logs = []
    for index, (start, end) in enumerate(ranges):
        log = audit / f"part{index}.log"
        run([undouble, "fix", "-q", *fix_args, "--range", f"{start}-{end}", "--audit", str(log),
             "-o", str(audit / f"part{index}"), str(copy)])
        logs.append(str(log))
    combined = audit / "combined.log"
    run([undouble, "merge", "--audit", str(combined), "--root", str(audit), *reversed(logs)])
    joined = copy.read_bytes() == whole
    same_changes = change_records(combined) == change_records(whole_log)
    run([undouble, "undo", "--root", str(audit), str(combined)])
    return {
        "audited_parts_joined_by_merge_audit_equal_the_whole_fix": joined,
        "combined_log_changes_equal_the_whole_audited_fix": same_changes,
        "undo_of_the_combined_log_restores_the_file": copy.read_bytes() == original,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--undouble", required=True)
    parser.add_argument("--fix-args", default="",
                        help="more arguments of fix, in one word: --fix-args='--convert-charset utf8mb4'")
    parser.add_argument("file")
    args = parser.parse_args()
    data = Path(args.file).read_bytes()
    ranges = cuts_inside(data)
    with tempfile.TemporaryDirectory() as work:
        result = check(args.undouble, args.file, args.fix_args.split(), ranges, Path(work))
    ok = (result["fix_parts_concatenate_to_the_whole_fix"]
          and result["merged_scan_equals_the_whole_scan"]
          and result["audited_parts_joined_by_merge_audit_equal_the_whole_fix"]
          and result["combined_log_changes_equal_the_whole_audited_fix"]
          and result["undo_of_the_combined_log_restores_the_file"]
          and result["ranges_that_found_something"] >= 2)
    for key, value in result.items():
        print(f"  {key}: {value}")
    print(f"ranges of {args.file}: {'passed' if ok else 'FAILED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
