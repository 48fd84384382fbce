#!/usr/bin/env bash
# undouble against the alternatives and against the speed limits, as whole processes: medians
# of several runs after a warm-up, from the page cache, every ratio taken between two figures
# measured in the same run, and the performance issue's targets judged on those ratios.
#
# What:
#   1. makes the inputs (kept in DATA, git-ignored; reused when present): from the real text in
#      corpus/ with benches/gen_data.py, a SQL file of extended INSERTs in which 2% of the
#      strings are double-encoded (both readings, one in ten of those triple), correct
#      multilingual text with nothing to repair, and text double-encoded throughout; with
#      benches/garbled_dump.sh, a mariadb-dump of a latin1 table that a real MariaDB filled with
#      real text through a connection declared latin1 (nine rows in ten garbled); and with
#      benches/make_tree.py, as benches/tree.sh does, a tree of small files (about 8 KB each)
#      cut from the clean-text corpus of benches/cleantext/build.sh (without that corpus the
#      tree is left out, and the report says so);
#   2. checks on 20 MB samples that the seed's Perl, ripgrep and GNU grep match the same lines;
#      on every input, that the hand-written pattern loop (benches/limit_pattern.rs) counts
#      what `rg -o | wc -l` and `rg --count-matches` count; and that every undouble command
#      timed runs (exit 0 or 1; hyperfine has to ignore exit codes);
#   3. times with hyperfine, on each file: `undouble scan` and `undouble fix -o` with 1 and 2
#      threads, and `undouble scan - < FILE` (a pipe's path: read, not mapped) with 1 and 2
#      threads (on the dump, read as a dump: `--format sql`, and `fix` with `--convert-charset
#      utf8mb4`, as the README says a latin1 dump is repaired; `fix` also as plain text,
#      `--format text`); the seed's Perl count (benches/seed_count.pl) and repair loop
#      (benches/seed_repair.pl), not on the dump (slow, and its repair loop is not dump-aware);
#      `rg --count-matches -a` (every match: the issue's anchor), `rg -c -a` (matching lines; it
#      stops reading a line at its first match), `rg -o -a ... | wc -l` and `LC_ALL=C grep -c -a
#      -P` with the seed's pattern as a byte regex; `iconv -f utf-8 -t latin1` on the file
#      double-encoded throughout; and the limits: the seed's pattern found by a hand-written
#      loop with no judgement (benches/limit_pattern.rs), the 0xC3 bytes counted with memchr
#      (benches/limit_memchr.rs), the file validated with simdutf8 (benches/limit_utf8.rs), and
#      `cat FILE > OUT` (also followed by `sync OUT`, since `fix -o` syncs what it writes);
#   4. on the tree (read once into the page cache first): `undouble scan` against `rg -c` of
#      the seed's pattern, with 1 and 2 threads each;
#   5. the peak memory (max RSS, the largest of three runs) of `scan -j2` and `fix -o -j2` on
#      the SQL file and on the dump, and on the first quarter of each (cut after a statement),
#      so that whether memory stays flat in the input's size can be read;
#   6. prints a Markdown report (machine, versions, counts, a table of MB/s per input with the
#      ratio of undouble to each command, the peak memory, and the issue's targets with their
#      verdicts) and writes it to OUT. Hand-written notes below the line `<!-- notes -->` in
#      OUT are kept.
#
# Installs hyperfine, ripgrep, perl, python3, GNU time and util-linux from Debian's packages if
# missing (as root; garbled_dump.sh installs MariaDB); needs a Rust toolchain (cargo), about
# 4 GB of disk and 3 GB of free page cache. At the full sizes, about half an hour on 2 cores
# (the dump read as a dump is the slowest input), and a few minutes more the first time, to
# make the inputs.
#
# Usage: benches/compare.sh
#   RUNS=5        timed runs per command (after 1 warm-up run)
#   PERL_RUNS=5   timed runs of the seed's Perl (slow: ~25 s a run on the double-encoded file)
#   SKIP_PERL=1   time no Perl at all (the checks on 20 MB samples still run it)
#   DATA=benches/data   where the inputs and temporary outputs go (the tree too)
#   OUT=benches/RESULTS.md
#   SQL_MB=1024 DENSE_MB=200 MOJI_MB=200 DUMP_MB=600 TREE_FILES=50000
#                 the inputs' sizes (MiB; files in the tree), smaller for a quick trial run;
#                 each size has its own file name, so a trial never reuses a full input
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
data="${DATA:-$root/benches/data}"
runs="${RUNS:-5}"
perl_runs="${PERL_RUNS:-$runs}"
skip_perl="${SKIP_PERL:-}"
results="${OUT:-$here/RESULTS.md}"
sql_mb="${SQL_MB:-1024}"
dense_mb="${DENSE_MB:-200}"
moji_mb="${MOJI_MB:-200}"
dump_mb="${DUMP_MB:-600}"
tree_files="${TREE_FILES:-50000}"
mkdir -p "$data"

source "$here/lib.sh"
need hyperfine hyperfine
need rg ripgrep
need python3 python3
need lscpu util-linux
need iconv libc-bin
need /usr/bin/time time  # the program: `time` alone is bash's keyword
perl -MCarp -e1 2>/dev/null || need perldoc perl  # Carp is in `perl`, not `perl-base`
command -v cargo >/dev/null || { echo "compare.sh: needs a Rust toolchain (cargo)" >&2; exit 1; }

# --- build: undouble, and the limit binaries (`[[bench]]` targets, harness = false) ---
cd "$root"
cargo build --release --quiet
undouble="$root/target/release/undouble"
cargo build --release --benches --message-format=json 2>/dev/null >"$data/compare-build.json.tmp"
limits="$(python3 -c '
import json, sys
for line in open(sys.argv[1]):
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] in (
            "limit_memchr", "limit_utf8", "limit_pattern"):
        print(m["target"]["name"], m["executable"])
' "$data/compare-build.json.tmp")"
rm -f "$data/compare-build.json.tmp"
limit_memchr="$(awk '$1 == "limit_memchr" {print $2}' <<<"$limits")"
limit_utf8="$(awk '$1 == "limit_utf8" {print $2}' <<<"$limits")"
limit_pattern="$(awk '$1 == "limit_pattern" {print $2}' <<<"$limits")"
for b in "$limit_memchr" "$limit_utf8" "$limit_pattern"; do
    [[ -n $b && -x $b ]] || { echo "compare.sh: limit binaries not built" >&2; exit 1; }
done

# --- data ---
sql="$data/sql-${sql_mb}m.sql"
[[ $sql_mb != 1024 ]] || sql="$data/sql-1g.sql"
dense="$data/dense-${dense_mb}m.txt"
moji="$data/mojibake-${moji_mb}m.txt"
dump="$data/garbled-dump-${dump_mb}m.sql"
[[ -s $sql ]] || python3 "$here/gen_data.py" sql "$sql" "$sql_mb"
[[ -s $dense ]] || python3 "$here/gen_data.py" dense "$dense" "$dense_mb"
[[ -s $moji ]] || python3 "$here/gen_data.py" mojibake "$moji" "$moji_mb"
[[ -s $dump ]] || DATA="$data" SIZE_MB="$dump_mb" "$here/garbled_dump.sh" >/dev/null
[[ -s $dump ]] || { echo "compare.sh: garbled_dump.sh made no $dump" >&2; exit 1; }
files=("$sql" "$dense" "$moji" "$dump")

# The tree is cut from the corpus benches/cleantext/build.sh writes (always there, whatever
# DATA is); it goes into DATA.
cleantext="$root/benches/data/cleantext"
tree="$data/tree-$tree_files"
tree_note=""
if [[ ! -d $tree ]]; then
    if compgen -G "$cleantext/*.txt" >/dev/null; then
        python3 "$here/make_tree.py" "$cleantext" "$tree" --files "$tree_files" >&2
    else
        tree_note="no tree of small files: there is no clean-text corpus at $cleantext (benches/cleantext/build.sh builds it)"
        echo "compare.sh: $tree_note; the tree's rows are left out" >&2
        tree=""
    fi
fi
if [[ -n $tree ]]; then
    found="$(find "$tree" -type f | wc -l)"
    if [[ $found != "$tree_files" ]]; then
        echo "compare.sh: $tree holds $found files, not $tree_files (an interrupted build? remove it)" >&2
        exit 1
    fi
fi

out="$data/compare-out.tmp"
work="$data/compare"
rm -rf "$work" && mkdir -p "$work"
trap 'rm -f "$out"' EXIT

# The seed's $UTF8_double_encoded (benches/seed_count.pl), alternative by alternative, as a
# byte regex: `(?-u)` + --no-unicode for ripgrep, LC_ALL=C for PCRE in GNU grep.
pat='\xC3(?:[\x82-\x9F]\xC2[\x80-\xBF]'
pat+='|\xA0\xC2[\xA0-\xBF]\xC2[\x80-\xBF]'
pat+='|[\xA1-\xAC]\xC2[\x80-\xBF]\xC2[\x80-\xBF]'
pat+='|\xAD\xC2[\x80-\x9F]\xC2[\x80-\xBF]'
pat+='|[\xAE-\xAF]\xC2[\x80-\xBF]\xC2[\x80-\xBF]'
pat+='|\xB0\xC2[\x90-\xBF]\xC2[\x80-\xBF]\xC2[\x80-\xBF]'
pat+='|[\xB1-\xB3]\xC2[\x80-\xBF]\xC2[\x80-\xBF]\xC2[\x80-\xBF]'
pat+='|\xB4\xC2[\x80-\x8F]\xC2[\x80-\xBF]\xC2[\x80-\xBF])'
rgpat="(?-u)$pat"

# rg_ok ARG...: ripgrep, where exit 1 (nothing found) is no failure but 2 (an error) is.
rg_ok() { rg "$@" || [[ $? -eq 1 ]]; }

# --- check: the three implementations of the seed's pattern agree, line by line and in count ---
for f in "${files[@]}"; do
    sample="$work/sample"
    head -c 20000000 "$f" >"$sample"
    a="$(perl "$here/seed_count.pl" --lines "$sample" | md5sum)"
    b="$(rg_ok -n -a --no-unicode "$rgpat" "$sample" | cut -d: -f1 | md5sum)"
    c="$( (LC_ALL=C grep -n -a -P "$pat" "$sample" || [[ $? -eq 1 ]]) | cut -d: -f1 | md5sum)"
    m1="$(perl "$here/seed_count.pl" "$sample")"
    m2="$(rg_ok -o -a --no-unicode "$rgpat" "$sample" | wc -l)"
    if ! [[ $a == "$b" && $a == "$c" && $m1 == "$m2" ]]; then
        echo "compare.sh: Perl, ripgrep and grep disagree on $(basename "$f")" >&2
        exit 1
    fi
    rm -f "$sample"
done
echo "check: seed_count.pl, rg and grep -P match the same lines, and rg -o the same count, on 20 MB of each file" >&2

# --- counts (one run of each, also a first read into the page cache) ---
counts="$work/counts.tsv"
: >"$counts"
# repaired FILE ARG...: the characters `undouble scan ARG... FILE` repairs (exit 0 or 1).
repaired() {
    local f=$1 status=0
    shift
    "$undouble" scan --json "$@" "$f" >"$work/scan.json" || status=$?
    ((status <= 1)) || { echo "compare.sh: undouble scan $* failed on $f" >&2; exit 1; }
    python3 -c 'import json,sys; print(next(o for o in map(json.loads, open(sys.argv[1])) if o["type"] == "total")["double_encoded"])' "$work/scan.json"
}
for f in "${files[@]}"; do
    n="$(basename "$f")"
    if [[ $f == "$dump" ]]; then
        fixed="$(repaired "$f" --format sql)"
        printf '%s\tundouble scan --format sql: characters repaired\t%s\n' "$n" "$fixed" >>"$counts"
        fixed="$(repaired "$f" --format text)"
        printf '%s\tundouble scan --format text: characters repaired\t%s\n' "$n" "$fixed" >>"$counts"
    else
        fixed="$(repaired "$f")"
        printf '%s\tundouble scan: characters repaired\t%s\n' "$n" "$fixed" >>"$counts"
    fi
    perl_count="$(perl "$here/seed_count.pl" "$f")"
    rg_o="$(rg_ok -o -a --no-unicode "$rgpat" "$f" | wc -l)"
    rg_m="$(rg_ok --count-matches -a --no-unicode "$rgpat" "$f")"
    rg_m="${rg_m:-0}"
    rg_c="$(rg_ok -c -a --no-unicode "$rgpat" "$f")"
    rg_c="${rg_c:-0}"
    loop="$("$limit_pattern" "$f")"
    if ! [[ $loop == "$rg_o" && $loop == "$rg_m" ]]; then
        echo "compare.sh: on $n the pattern loop counts $loop matches, rg -o | wc -l $rg_o, rg --count-matches $rg_m" >&2
        exit 1
    fi
    {
        printf '%s\tseed_count.pl: matches\t%s\n' "$n" "$perl_count"
        printf '%s\trg -o | wc -l: matches\t%s\n' "$n" "$rg_o"
        printf '%s\trg --count-matches: matches\t%s\n' "$n" "$rg_m"
        printf '%s\tlimit_pattern: matches (checked: the same as rg -o and rg --count-matches)\t%s\n' "$n" "$loop"
        printf '%s\trg -c: matching lines\t%s\n' "$n" "$rg_c"
        printf '%s\tlimit_memchr: 0xC3 bytes\t%s\n' "$n" "$("$limit_memchr" "$f")"
        printf '%s\tlimit_utf8\t%s\n' "$n" "$("$limit_utf8" "$f")"
    } >>"$counts"
    echo "check: on $n the pattern loop, rg -o | wc -l and rg --count-matches count $loop matches" >&2
done
status=0
iconv -f utf-8 -t latin1 "$moji" >"$out" 2>"$work/iconv.err" || status=$?
printf '%s\ticonv -t latin1 (without -c): exit status, bytes written\t%s, %s (%s)\n' \
    "$(basename "$moji")" "$status" "$(stat -c %s "$out")" "$(tr -d '\n' <"$work/iconv.err")" >>"$counts"
rm -f "$out"
if [[ -n $tree ]]; then
    n="$(basename "$tree")"
    fixed="$(repaired "$tree")"
    rg_c="$(rg_ok -c --no-unicode "$rgpat" "$tree" | awk -F: '{ s += $NF } END { print s + 0 }')"
    {
        printf '%s\tfiles, bytes\t%s, %s\n' "$n" "$tree_files" "$(find "$tree" -type f -printf '%s\n' | awk '{ s += $1 } END { print s }')"
        printf '%s\tundouble scan: characters repaired\t%s\n' "$n" "$fixed"
        printf '%s\trg -c: matching lines (all files)\t%s\n' "$n" "$rg_c"
    } >>"$counts"
fi

# --- timings ---
load_start="$(cut -d' ' -f1-3 /proc/loadavg)"
# `-N`: no intermediate shell (hyperfine splits the command line itself); `sh -c` where a
# redirection or a pipe is needed. `-i`: undouble exits with 1 when it finds something, grep
# when it finds nothing; real failures are caught by check_undouble and the counts above.
# `--output=pipe`: GNU grep stops at its first match when its output is /dev/null
# (hyperfine's default).
bench() {  # bench FILE_OR_TREE TAG RUNS (NAME COMMAND)...
    local f="$1" tag="$2" n="$3"
    shift 3
    local args=()
    while (($#)); do
        args+=(--command-name "$1" "$2")
        shift 2
    done
    if [[ -d $f ]]; then
        find "$f" -type f -exec cat {} + >/dev/null
    else
        cat "$f" >/dev/null
    fi
    hyperfine -N -i --output=pipe --warmup 1 --runs "$n" --export-json "$work/$tag.json" "${args[@]}" >&2
}
# check_undouble (NAME COMMAND)...: runs each undouble command once; it must exit 0 or 1.
check_undouble() {
    local status
    while (($#)); do
        if [[ $1 == undouble* ]]; then
            status=0
            # As hyperfine splits it: quotes kept together (`sh -c '...'`).
            bash -c "$2" >/dev/null || status=$?
            if ((status > 1)); then
                echo "compare.sh: \`$2\` exited with $status" >&2
                exit 1
            fi
        fi
        shift 2
    done
}
# options_for FILE: sets mine (undouble's options for reading FILE) and fix_mine (for fixing
# it): the dump is read as a dump, and its latin1 columns converted as the README says.
options_for() {
    if [[ $1 == "$dump" ]]; then
        mine=(--format sql)
        fix_mine=(--format sql --convert-charset utf8mb4)
    else
        mine=()
        fix_mine=()
    fi
}
for f in "${files[@]}"; do
    tag="$(basename "$f")"
    echo "== $tag" >&2
    options_for "$f"
    cmds=(
        "undouble scan -j1" "$undouble scan -j 1 ${mine[*]} $f"
        "undouble scan -j2" "$undouble scan -j 2 ${mine[*]} $f"
        "undouble fix -o -j1" "$undouble fix -q -j 1 ${fix_mine[*]} $f -o $out"
        "undouble fix -o -j2" "$undouble fix -q -j 2 ${fix_mine[*]} $f -o $out"
        # A pipe's path: read, not mapped, on a thread of its own.
        "undouble scan -j1 < file" "sh -c '$undouble scan -j 1 ${mine[*]} - < $f'"
        "undouble scan -j2 < file" "sh -c '$undouble scan -j 2 ${mine[*]} - < $f'"
    )
    if [[ $f == "$dump" ]]; then
        cmds+=(
            "undouble fix -o -j1 --format text" "$undouble fix -q -j 1 --format text $f -o $out"
            "undouble fix -o -j2 --format text" "$undouble fix -q -j 2 --format text $f -o $out"
        )
    fi
    cmds+=(
        "rg --count-matches" "rg --count-matches -a --no-unicode '$rgpat' $f"
        "rg -c" "rg -c -a --no-unicode '$rgpat' $f"
        "rg -o | wc -l" "sh -c \"rg -o -a --no-unicode '$rgpat' $f | wc -l\""
        "grep -c -P" "env LC_ALL=C grep -c -a -P '$pat' $f"
        "limit: pattern loop" "$limit_pattern $f"
        "limit: memchr 0xC3" "$limit_memchr $f"
        "limit: simdutf8" "$limit_utf8 $f"
        "limit: cat > file" "sh -c 'cat $f > $out'"
        "limit: cat > file; sync file" "sh -c 'cat $f > $out && sync $out'"
    )
    if [[ $f == "$moji" ]]; then
        cmds+=("iconv -c -t latin1" "sh -c 'iconv -c -f utf-8 -t latin1 $f > $out'")
    fi
    check_undouble "${cmds[@]}"
    bench "$f" "$tag-main" "$runs" "${cmds[@]}"
    if [[ -z $skip_perl && $f != "$dump" ]]; then
        bench "$f" "$tag-perl" "$perl_runs" \
            "seed Perl count" "perl $here/seed_count.pl $f" \
            "seed Perl repair" "perl $here/seed_repair.pl $f $out"
    fi
done
rm -f "$out"
if [[ -n $tree ]]; then
    echo "== $(basename "$tree")" >&2
    # No -q: `scan -q` takes the inputs one after the other (it stops at the first find).
    cmds=(
        "undouble scan -j1" "$undouble scan -j 1 $tree"
        "undouble scan -j2" "$undouble scan -j 2 $tree"
        "rg -c -j1" "rg -c -j1 --no-unicode '$rgpat' $tree"
        "rg -c -j2" "rg -c -j2 --no-unicode '$rgpat' $tree"
    )
    check_undouble "${cmds[@]}"
    bench "$tree" "tree-main" "$runs" "${cmds[@]}"
fi
load_end="$(cut -d' ' -f1-3 /proc/loadavg)"

# --- peak memory: the same kind of input at two sizes ---
# first_quarter FILE OUT: the first quarter of FILE, cut after the last statement that ends
# in it (`;` at the end of a line), so that it stays a well-formed SQL file or dump.
first_quarter() {
    python3 - "$1" "$2" <<'PY'
import os, sys
with open(sys.argv[1], "rb") as f:
    head = f.read(os.path.getsize(sys.argv[1]) // 4)
end = head.rfind(b";\n")
if end < 0:
    sys.exit(f"compare.sh: no statement ends in the first quarter of {sys.argv[1]}")
with open(sys.argv[2], "wb") as f:
    f.write(head[:end + 2])
PY
}
# peak_rss COMMAND...: the largest maximum resident set size (KiB) of three runs; the command
# must exit 0 or 1. GNU time writes a line about a non-zero exit before the figure.
peak_rss() {
    local best=0 kib status
    for _ in 1 2 3; do
        status=0
        /usr/bin/time -f %M -o "$work/rss" "$@" >/dev/null || status=$?
        if ((status > 1)); then
            echo "compare.sh: \`$*\` exited with $status" >&2
            exit 1
        fi
        kib="$(tail -n 1 "$work/rss")"
        if ((kib > best)); then best=$kib; fi
    done
    echo "$best"
}
memory="$work/memory.tsv"
: >"$memory"
for f in "$sql" "$dump"; do
    small="$work/quarter-$(basename "$f")"
    first_quarter "$f" "$small"
    options_for "$f"
    for name in "undouble scan -j2" "undouble fix -o -j2"; do
        sizes=()
        for g in "$small" "$f"; do
            cat "$g" >/dev/null
            if [[ $name == *scan* ]]; then
                kib="$(peak_rss "$undouble" scan -j 2 "${mine[@]}" "$g")"
            else
                kib="$(peak_rss "$undouble" fix -q -j 2 "${fix_mine[@]}" "$g" -o "$out")"
            fi
            sizes+=("$(stat -c %s "$g")" "$kib")
        done
        printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$(basename "$f")" "$name" "${sizes[@]}" >>"$memory"
    done
    rm -f "$small" "$out"
done

# --- report ---
machine="$(nproc) CPUs ($(lscpu | sed -n 's/^Model name: *//p' | sed -n 1p)), $(awk '/^MemTotal:/ {printf "%.0f GB", $2 / 1e6}' /proc/meminfo) memory, Linux $(uname -r)$(lscpu | sed -n 's/^Hypervisor vendor: *\(.*\)/, a \1 guest/p')"
versions="undouble $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')$(git -C "$root" diff --quiet HEAD -- src Cargo.toml 2>/dev/null || echo ' (uncommitted changes)'), $(rustc --version | cut -d' ' -f1-2), $(hyperfine --version), $(rg --version | sed -n 1p), $(grep --version | sed -n 1p), perl $(perl -e 'print substr($^V, 1)'), iconv $(iconv --version | sed -n 1p | sed 's/^iconv //')"
server="$(sed -n 's/^-- Server version[[:space:]]*//p' "$dump" | sed -n 1p)"
load="$load_start before the timings, $load_end after (1, 5 and 15 minutes; other work shares the machine when it is not 0)"
python3 - "$work" "$counts" "$memory" "$results" "$machine" "$versions" "$load" "$runs" \
    "$perl_runs" "${skip_perl:+1}" "$server" "$tree_note" "$sql" "$dense" "$moji" "$dump" "$tree" <<'PY'
import json, os, sys
from datetime import date

(work, counts_path, memory_path, results_path, machine, versions, load, runs, perl_runs,
 skip_perl, server, tree_note, sql, dense, moji, dump, tree) = sys.argv[1:18]
runs, perl_runs = int(runs), int(perl_runs)
files = [sql, dense, moji, dump]
label = {
    sql: "SQL file, 2% of strings double-encoded",
    dense: "dense multilingual, nothing to repair",
    moji: "double-encoded throughout (cp1252 reading)",
    dump: "mariadb-dump, values mostly garbled by a real server",
}
READERS = ["rg --count-matches", "rg -c", "rg -o | wc -l", "grep -c -P", "seed Perl count",
           "limit: pattern loop", "limit: memchr 0xC3", "limit: simdutf8"]
# Targets: (the issue's wording, threshold); the memory one is an upper bound.
PATTERN_LOOP = {sql: 0.8, dense: 0.8, dump: 0.5}
MEMORY_MAX = 1.1

lines = []
p = lines.append


def row(*cells):
    """A Markdown table row; a `|` inside a cell (`rg -o | wc -l`) is escaped."""
    p("| " + " | ".join(str(c).replace("|", "\\|") for c in cells) + " |")


def results_of(tag, parts=("main", "perl")):
    res = {}
    for part in parts:
        path = os.path.join(work, f"{tag}-{part}.json")
        if os.path.exists(path):
            for r in json.load(open(path))["results"]:
                res[r["command"]] = r
    return res


def cores(r):
    """CPU seconds per second of a command (user + system over wall, means)."""
    return (r["user"] + r["system"]) / r["mean"]


p("# undouble against the alternatives and the limits")
p("")
p(f"Generated by `benches/compare.sh` on {date.today().isoformat()}. Whole processes, inputs in the")
def plural(n, what):
    return f"{n} {what}" + ("" if n == 1 else "s")


p(f"page cache, median of {plural(runs, 'run')} after one warm-up (the seed's Perl: "
  + ("not timed, SKIP_PERL" if skip_perl else f"{plural(perl_runs, 'run')}, not on the dump")
  + "),")
p("MB = 10^6 bytes. Ratios compare two medians from the same run: **undouble ÷ X** is how many")
p("times faster undouble is than X (`scan` against the tools that only read, `fix -o` against")
p("those that write a file). CPU s: mean user + system time of a run, over all threads.")
p("`fix -o` syncs its output to disk before renaming it over the target (a crash never leaves")
p("a half-written file); `cat > file` does not, `cat > file; sync file` does.")
p("Each input is read once just before its commands are timed, then by hyperfine's warm-up run.")
p("`limit: pattern loop` finds the seed's byte pattern by hand with no judgement")
p("(`benches/limit_pattern.rs`); its count is checked against `rg -o | wc -l` and")
p("`rg --count-matches` on every input.")
p("")
p(f"- Machine: {machine}")
p(f"- Load average: {load}")
p(f"- Versions: {versions}")
p("- Inputs: " + "; ".join(
    f"`{os.path.basename(f)}` {os.path.getsize(f) / 1e6:.0f} MB, {label[f]}" for f in files)
  + ". The first three by `benches/gen_data.py` from the real text of `corpus/`; the dump by"
  f" `benches/garbled_dump.sh` (server {server}): real text, nine rows in ten written through a"
  " connection declared latin1 into a latin1 table, dumped with `mariadb-dump"
  " --default-character-set=utf8mb4`; on it `scan` and `fix` read it as a dump (`--format sql`;"
  " `fix` with `--convert-charset utf8mb4`), and `fix` also as plain text (`--format text`).")
if tree:
    p(f"- Tree: `{os.path.basename(tree)}`, small files cut from the clean-text corpus by"
      " `benches/make_tree.py` (as `benches/tree.sh` builds it), read once into the page cache"
      " before its commands are timed; `rg -c` of the seed's pattern, without `-a`.")
else:
    p(f"- Tree: {tree_note}.")
p("")
p("Counts (one run each; `rg -c` counts lines, and stops reading a line at its first match):")
p("")
p("| input | what | result |")
p("|---|---|---:|")
for entry in open(counts_path, encoding="utf-8"):
    name, what, value = entry.rstrip("\n").split("\t")
    if value.isdigit():
        value = f"{int(value):,}"
    row(f"`{name}`", what, value)
p("")

targets = {k: [] for k in ("pattern", "rg", "tree", "threads", "cat", "dump", "memory")}


def judge(group, name, what, need, got, why=""):
    targets[group].append((name, what, need, got, why))


for f in files:
    name = os.path.basename(f)
    size = os.path.getsize(f) / 1e6
    res = results_of(name)
    med = {k: r["median"] for k, r in res.items()}
    p(f"## `{name}` ({size:.0f} MB, {label[f]})")
    p("")
    p("| command | median s | CPU s | MB/s | undouble -j1 ÷ this | undouble -j2 ÷ this |")
    p("|---|---:|---:|---:|---:|---:|")
    for k in res:
        a = b = ""
        if k.startswith("undouble") and "-j2" in k:
            a = f"-j2 is {med[k.replace('-j2', '-j1')] / med[k]:.2f}× -j1"
            if "--format text" in k:
                b = f"dump-aware {med[k] / med[k.replace(' --format text', '')]:.2f}×"
        elif k.startswith("undouble") and "--format text" in k:
            b = f"dump-aware {med[k] / med[k.replace(' --format text', '')]:.2f}×"
        elif not k.startswith("undouble"):
            mine = "undouble scan" if k in READERS else "undouble fix -o"
            a = f"{mine.split()[1]} {med[k] / med[mine + ' -j1']:.2f}×"
            b = f"{mine.split()[1]} {med[k] / med[mine + ' -j2']:.2f}×"
        runs_note = f" ({len(res[k]['times'])} runs)" if len(res[k]["times"]) != runs else ""
        cpu = res[k]["user"] + res[k]["system"]
        row(f"`{k}`{runs_note}", f"{med[k]:.3f}", f"{cpu:.2f}", f"{size / med[k]:,.0f}", a, b)
    p("")

    if f in PATTERN_LOOP:
        judge("pattern", name, "`undouble scan -j1` ÷ `limit: pattern loop`", PATTERN_LOOP[f],
              med["limit: pattern loop"] / med["undouble scan -j1"])
    judge("rg", name, "`undouble scan -j1` ÷ `rg --count-matches`", 1.5,
          med["rg --count-matches"] / med["undouble scan -j1"])
    fixes = ["undouble fix -o"] + (["undouble fix -o --format text"] if f == dump else [])
    for c in ["undouble scan"] + fixes:
        one, two = (c.replace(" --format text", f" -j{j} --format text") if "text" in c
                    else f"{c} -j{j}" for j in (1, 2))
        judge("threads", name, f"`{two}` ÷ `{one}`", 1.8, med[one] / med[two],
              f"; `-j2` used {cores(res[two]):.2f} CPU s per s")
    judge("threads", name, "`undouble scan -j2 < file` ÷ `undouble scan -j1 < file`", 1.8,
          med["undouble scan -j1 < file"] / med["undouble scan -j2 < file"],
          f"; `-j2` used {cores(res['undouble scan -j2 < file']):.2f} CPU s per s")
    for j in (1, 2):
        judge("cat", name, f"`undouble fix -o -j{j}` ÷ `limit: cat > file; sync file`", 0.9,
              med["limit: cat > file; sync file"] / med[f"undouble fix -o -j{j}"])
    if f == dump:
        for j in (1, 2):
            judge("dump", name, f"`undouble fix -o -j{j}` (dump-aware) ÷ "
                  f"`undouble fix -o -j{j} --format text`", 0.9,
                  med[f"undouble fix -o -j{j} --format text"] / med[f"undouble fix -o -j{j}"])

if tree:
    name = os.path.basename(tree)
    res = results_of("tree", ("main",))
    med = {k: r["median"] for k, r in res.items()}
    nfiles = sum(len(fs) for _, _, fs in os.walk(tree))
    size = sum(os.path.getsize(os.path.join(d, x)) for d, _, fs in os.walk(tree) for x in fs) / 1e6
    p(f"## `{name}` ({nfiles:,} files, {size:.0f} MB, clean text)")
    p("")
    p("| command | median s | CPU s | MB/s | files/s | rg -c (same threads) ÷ this |")
    p("|---|---:|---:|---:|---:|---:|")
    for k in res:
        rg = "rg -c -j" + k.rsplit("-j", 1)[1]
        cpu = res[k]["user"] + res[k]["system"]
        row(f"`{k}`", f"{med[k]:.3f}", f"{cpu:.2f}", f"{size / med[k]:,.0f}",
            f"{nfiles / med[k]:,.0f}", f"{med[rg] / med[k]:.2f}×")
    p("")
    for j in (1, 2):
        judge("tree", name, f"`undouble scan -j{j}` ÷ `rg -c -j{j}`", 1.0,
              med[f"rg -c -j{j}"] / med[f"undouble scan -j{j}"])

p("## Peak memory")
p("")
p("Maximum resident set size (GNU time's `%M`, the largest of three runs) on an input and on its")
p("first quarter (cut after a statement). It counts the pages of a memory-mapped input that")
p("are resident in the process, not only what it allocates.")
p("")
p("| input | command | quarter: MB, peak RSS MB | whole: MB, peak RSS MB | whole ÷ quarter |")
p("|---|---|---:|---:|---:|")
for entry in open(memory_path, encoding="utf-8"):
    name, command, small, small_kib, big, big_kib = entry.rstrip("\n").split("\t")
    got = int(big_kib) / int(small_kib)
    row(f"`{name}`", f"`{command}`", f"{int(small) / 1e6:,.0f}, {int(small_kib) / 1e3:,.1f}",
        f"{int(big) / 1e6:,.0f}, {int(big_kib) / 1e3:,.1f}", f"{got:.2f}")
    judge("memory", name, f"`{command}`: peak RSS of the whole ÷ of its first quarter",
          MEMORY_MAX, got)
p("")

p("## Targets")
p("")
p("The performance issue's targets, in its order. `rg --count-matches` counts every match, the")
p("same work as `scan`; on the tree, `rg -c` with the same threads. Thread ratios also give")
p("the CPU seconds per second `-j2` used: for `scan`, well under 2 means another process held")
p("the second core during the runs (`fix` also waits for the disk). The issue sets no thread")
p("count for `fix -o`: both are judged. \"Flat in input size\" is read as a peak RSS on the")
p(f"whole input at most {MEMORY_MAX:g}× that on its first quarter (a quarter of the bytes).")
p("")
p("| input | ratio | target | measured | verdict |")
p("|---|---|---:|---:|---|")
for group, entries in targets.items():
    for name, what, need, got, why in entries:
        if group == "memory":
            verdict = ("met" if got <= need else
                       f"**missed** by {100 * (1 - need / got):.1f}% (needs {got / need:.2f}× less memory)")
            bound = f"≤ {need:g}"
        else:
            verdict = ("met" if got >= need else
                       f"**missed** by {100 * (1 - got / need):.1f}% (needs {need / got:.2f}× faster)")
            bound = f"≥ {need:g}"
        row(f"`{name}`", what, bound, f"{got:.2f}", verdict + why)
p("")

report = "\n".join(lines)
print(report)
notes = ""
if os.path.exists(results_path):
    old = open(results_path, encoding="utf-8").read()
    if "<!-- notes -->" in old:
        notes = old[old.index("<!-- notes -->"):]
with open(results_path, "w", encoding="utf-8") as out:
    out.write(report + "\n")
    if notes:
        out.write(notes if notes.endswith("\n") else notes + "\n")
PY
echo "written: $results" >&2
