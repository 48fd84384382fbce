#!/usr/bin/env bash
# undouble as the worker of Apache Spark: a large file cut into byte ranges, a tree into its
# files, the binary run on the executors, the outputs and summaries gathered and checked
# against one process.
#
# Why: a store of terabytes is processed by many machines under the engines users already run;
# this shows that the ranges of a file, fixed apart, concatenate to the whole fix and that
# their scans merge into the whole scan, under a real engine and on files of a gigabyte, where
# every range but the first starts deep inside the file.
#
# What: installs Java from Debian (openjdk-17-jre-headless) when `java` is missing and PySpark
# (pinned, from PyPI) into $DATA/spark-venv; builds, once each, a ~1.1 GB plain-text file
# (lib.sh's mixed_file), a ~1.1 GB mariadb-dump file (gen_data.py dump: extended INSERTs of
# about a megabyte, latin1 text columns, blobs) and a tree of TREE_FILES files of about 8 KB
# (make_tree.py, from the clean-text corpus if it was built, else corpus/); runs
# benches/spark_job.py on each with `local[2]` (the machine's two cores), RANGES ranges per
# file and 500 files per task, and prints its JSON: the timings of the Spark job and of one
# process, and the checks. Exits 1 when a check fails.
#
# Usage: benches/spark.sh     (RANGES=8, TREE_FILES=50000, DATA=benches/data, MASTER=local[2],
#                              SPARK_VENV=$DATA/spark-venv)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
data="${DATA:-$root/benches/data}"
ranges="${RANGES:-8}"
tree_files="${TREE_FILES:-50000}"
master="${MASTER:-local[2]}"
mkdir -p "$data"

source "$here/lib.sh"
need java openjdk-17-jre-headless
venv="${SPARK_VENV:-$data/spark-venv}"
if [[ ! -x "$venv/bin/python" ]] || ! "$venv/bin/python" -c 'import pyspark' 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q 'pyspark==3.5.3'
fi
export JAVA_HOME="${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")}"

(cd "$root" && cargo build --release --quiet)
undouble="$root/target/release/undouble"
big=$(mixed_file "$data")
dump="$data/dump-1100m.sql"
[[ -s "$dump" ]] || python3 "$here/gen_data.py" dump "$dump" 1100
work="$(mktemp -d "$data/spark.XXXXXX")"
trap 'rm -rf "$work"' EXIT
tree="$data/tree-$tree_files"
if [[ ! -d "$tree" ]]; then
    source_text="$data/cleantext"
    if [[ ! -d "$source_text" ]]; then
        source_text="$work/text"
        mkdir -p "$source_text"
        cp "$root/corpus/clean-multilingual.txt" "$source_text/"
    fi
    python3 "$here/make_tree.py" "$source_text" "$tree" --files "$tree_files"
fi

job() { "$venv/bin/python" "$here/spark_job.py" --undouble "$undouble" --master "$master" --work "$work" "$@"; }

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
status=0
echo "== a plain-text file, $ranges ranges"
job --file "$big" --ranges "$ranges" || status=1
echo "== a dump, $ranges ranges, fixed with --convert-charset utf8mb4"
job --file "$dump" --ranges "$ranges" --fix-args='--convert-charset utf8mb4' || status=1
echo "== a tree of $tree_files files, 500 a task"
job --tree "$tree" --batch 500 || status=1
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
exit $status
