#!/usr/bin/env python3
"""An Apache Spark job that runs `undouble` on its executors, and checks the result against one
process.

What: a large file is cut into byte ranges (one task each, `undouble fix --range` and `scan
--json --range`), a tree into its files (one task per batch of files, `scan --json`). Each fix
task writes its part to a shared directory and returns its index; each scan task
returns its JSON Lines. The driver concatenates the fix parts in order, runs `undouble merge` on
the scans, and checks both against one `undouble fix` / `undouble scan --json` of the whole:
byte for byte for the fix, record for record for the scan.

Why Spark and not a loop: this is the way users fan work out over a cluster (the executors
here run in local mode, `local[N]`, but the tasks, the closures and the shuffle-free collect
are those a cluster runs). The binary must be at the same path on every executor (a shared
file system, or `--files` / `SparkFiles` on a real cluster).

Usage:
  spark_job.py --undouble BIN --file BIG [--ranges N] [--fix-args='...'] --work DIR
  spark_job.py --undouble BIN --tree DIR --work DIR
Prints one JSON object: the timings and the checks; exits 1 when a check fails.
"""

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

# Driver-side helpers shared with the range check of the CI round trips.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ranges import ranges_of, records  # noqa: E402


def run(args: list) -> subprocess.CompletedProcess:
    """Runs undouble; status 0 (nothing found) and 1 (found) are both success for scan."""
    done = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if done.returncode not in (0, 1):
        raise RuntimeError(f"{args}: exit {done.returncode}: {done.stderr.decode(errors='replace')}")
    return done


def fix_task(undouble: str, path: str, fix_args: list, parts: str):
    """A Spark task: fixes one range into its own part file; returns its index."""

    def task(item):
        index, (start, end) = item
        out = os.path.join(parts, f"part-{index:05d}")
        run([undouble, "fix", "-q", "-j1", *fix_args, "--range", f"{start}-{end}", "-o", out, path])
        return index

    return task


def scan_range_task(undouble: str, path: str):
    """A Spark task: scans one range; returns (index, its JSON Lines)."""

    def task(item):
        index, (start, end) = item
        done = run([undouble, "scan", "-j1", "--json", "--top", "1000000",
                    "--range", f"{start}-{end}", path])
        return index, done.stdout.decode()

    return task


def scan_files_task(undouble: str):
    """A Spark task: scans one batch of files; returns its JSON Lines."""

    def task(batch):
        files = list(batch)
        if not files:
            return []
        done = run([undouble, "scan", "-j1", "--json", "--top", "1000000", "--", *files])
        return [done.stdout.decode()]

    return task


def merge(undouble: str, parts: list, work: Path) -> str:
    paths = []
    for i, text in enumerate(parts):
        p = work / f"scan-{i:05d}.jsonl"
        p.write_text(text)
        paths.append(str(p))
    return run([undouble, "merge", "--top", "1000000", *paths]).stdout.decode()


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--undouble", required=True)
    parser.add_argument("--file")
    parser.add_argument("--tree")
    parser.add_argument("--ranges", type=int, default=8)
    parser.add_argument("--batch", type=int, default=500, help="files per task of a tree")
    parser.add_argument("--fix-args", default="",
                        help="more arguments of fix, in one word: --fix-args='--convert-charset utf8mb4'")
    parser.add_argument("--work", required=True)
    parser.add_argument("--master", default="local[2]")
    args = parser.parse_args()
    args.fix_args = args.fix_args.split()

    from pyspark.sql import SparkSession

    undouble = os.path.abspath(args.undouble)
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    spark = (SparkSession.builder.master(args.master).appName("undouble")
             .config("spark.ui.enabled", "false")
             .config("spark.ui.showConsoleProgress", "false")
             .config("spark.driver.memory", "1g")
             .getOrCreate())
    sc = spark.sparkContext
    sc.setLogLevel("ERROR")
    result = {"master": args.master}
    failed = False

    if args.file:
        path = os.path.abspath(args.file)
        size = os.path.getsize(path)
        splits = list(enumerate(ranges_of(size, args.ranges)))
        result.update(file=path, bytes=size, ranges=[list(r) for _, r in splits])
        parts = work / "parts"
        shutil.rmtree(parts, ignore_errors=True)
        parts.mkdir()

        t0 = time.monotonic()
        fixed = sc.parallelize(splits, len(splits)).map(
            fix_task(undouble, path, args.fix_args, str(parts))).collect()
        joined = work / "joined"
        with open(joined, "wb") as out:
            for index in sorted(fixed):
                with open(parts / f"part-{index:05d}", "rb") as part:
                    shutil.copyfileobj(part, out, 1 << 20)
        result["spark_fix_s"] = round(time.monotonic() - t0, 2)

        t0 = time.monotonic()
        scans = sc.parallelize(splits, len(splits)).map(scan_range_task(undouble, path)).collect()
        merged = merge(undouble, [text for _, text in sorted(scans)], work)
        result["spark_scan_s"] = round(time.monotonic() - t0, 2)

        t0 = time.monotonic()
        whole = work / "whole"
        run([undouble, "fix", "-q", *args.fix_args, "-o", str(whole), path])
        result["one_process_fix_s"] = round(time.monotonic() - t0, 2)
        t0 = time.monotonic()
        scan = run([undouble, "scan", "--json", "--top", "1000000", path]).stdout.decode()
        result["one_process_scan_s"] = round(time.monotonic() - t0, 2)

        same_fix = sha256_of(joined) == sha256_of(whole)
        same_scan = records(merged) == records(scan)
        result.update(fix_parts_concatenate_to_the_whole_fix=same_fix,
                      merged_scan_equals_the_whole_scan=same_scan,
                      double_encoded=records(scan)[-1]["double_encoded"])
        failed |= not (same_fix and same_scan)
        shutil.rmtree(parts, ignore_errors=True)
        for p in (joined, whole):
            p.unlink()

    if args.tree:
        root = os.path.abspath(args.tree)
        files = sorted(str(p) for p in Path(root).rglob("*") if p.is_file())
        result.update(tree=root, files=len(files))
        slices = max(1, len(files) // args.batch)
        t0 = time.monotonic()
        scans = sc.parallelize(files, slices).mapPartitions(scan_files_task(undouble)).collect()
        merged = merge(undouble, scans, work)
        result["spark_tree_scan_s"] = round(time.monotonic() - t0, 2)
        t0 = time.monotonic()
        scan = run([undouble, "scan", "--json", "--top", "1000000", root]).stdout.decode()
        result["one_process_tree_scan_s"] = round(time.monotonic() - t0, 2)
        # The walk's order and the tasks' differ: compare the records by path, and the totals.
        def by_path(text):
            found = records(text)
            files = {r["path"]: r for r in found if r.get("type") == "file"}
            total = [r for r in found if r.get("type") == "total"]
            return files, total
        mine, theirs = by_path(merged), by_path(scan)
        same_tree = mine == theirs
        result.update(merged_tree_scan_equals_the_whole_scan=same_tree)
        failed |= not same_tree

    spark.stop()
    print(json.dumps(result, indent=2))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
