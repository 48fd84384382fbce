#!/usr/bin/env bash
# The Apache Spark job of benches/spark_job.py, as benches/spark.sh runs it (PySpark in local
# mode, Java from Debian, both installed when missing), on a 1.1 GB text file, a 1.15 GB dump and
# a tree of 5,000 files, in a temporary directory: the fix parts must concatenate to one
# process's fix and the merged scans equal its scan. Exits 1 when a check fails.
set -euo pipefail
cd "$(dirname "$0")/.."
data=$(mktemp -d "${TMPDIR:-/tmp}/undouble-spark.XXXXXX")
trap 'rm -rf "$data"' EXIT
# PySpark is installed once into the user's cache, as cargo keeps its registry: later runs need
# no download.
venv="${XDG_CACHE_HOME:-$HOME/.cache}/undouble/spark-venv"
mkdir -p "$(dirname "$venv")"
SPARK_VENV=$venv DATA=$data TREE_FILES=5000 RANGES=8 bash benches/spark.sh
