#!/usr/bin/env bash
# undouble against the alternatives and against the speed limits, as whole
# processes: medians of several runs after a warm-up, from the page cache, every ratio taken
# between two figures measured in the same run.
#
# What:
#   1. generates three inputs from the real text in corpus/ with benches/gen_data.py (kept in
#      benches/data/, git-ignored; reused when present): a 1 GB SQL dump in which 2% of the
#      strings are double-encoded (both readings, one in ten of those triple), 200 MB of
#      correct multilingual text with nothing to repair, and 200 MB double-encoded throughout;
#   2. checks on 20 MB samples that the seed's Perl, ripgrep and GNU grep match the same lines;
#   3. times with hyperfine, on each file: `undouble scan` and `undouble fix -o` with 1 and 2
#      threads; the seed's Perl count (benches/seed_count.pl) and repair loop
#      (benches/seed_repair.pl); `rg -c -a` and `LC_ALL=C grep -c -a -P` with the seed's pattern
#      as a byte regex (-c counts matching lines and stops reading a line at its first match),
#      and `rg -o -a ... | wc -l` (every match, i.e. the same work as counting); `iconv -f utf-8
#      -t latin1` on the double-encoded file; and the limits: benches/limit_memchr.rs (count
#      the 0xC3 bytes of the mapped file with memchr), benches/limit_utf8.rs (validate the
#      mapped file with simdutf8) and `cat FILE > OUT` (also followed by `sync OUT`, since
#      `fix -o` syncs what it writes);
#   4. prints a Markdown report (machine, versions, counts, a table of MB/s per file with the
#      ratio of undouble to each, and the issue's targets) and writes it to benches/RESULTS.md.
#      Hand-written notes below the line `<!-- notes -->` in RESULTS.md are kept.
#
# Installs hyperfine, ripgrep, perl, python3 and util-linux from Debian's packages if missing
# (as root); needs a Rust toolchain (cargo) and about 1.5 GB of disk and of free page cache.
# About 10 minutes on 2 cores.
#
# Usage: benches/compare.sh
#   RUNS=5        timed runs per command (after 1 warm-up run)
#   PERL_RUNS=5   timed runs of the seed's Perl (slow: ~25 s a run on the double-encoded file)
#   DATA=benches/data   where the inputs and temporary outputs go
#   OUT=benches/RESULTS.md
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
data="${DATA:-$root/benches/data}"
runs="${RUNS:-5}"
perl_runs="${PERL_RUNS:-$runs}"
results="${OUT:-$here/RESULTS.md}"
mkdir -p "$data"

updated=
need() {  # need COMMAND DEBIAN_PACKAGE
    command -v "$1" >/dev/null 2>&1 && return
    if [[ $(id -u) -ne 0 ]]; then
        echo "compare.sh: $1 is missing; install the Debian package $2" >&2
        exit 1
    fi
    [[ -n $updated ]] || { apt-get update -qq; updated=1; }
    apt-get install -y -qq "$2" >/dev/null
}
need hyperfine hyperfine
need rg ripgrep
need python3 python3
need lscpu util-linux
need iconv libc-bin
perl -MCarp -e1 2>/dev/null || need perldoc perl  # Carp is in `perl`, not `perl-base`
command -v cargo >/dev/null || { echo "compare.sh: needs a Rust toolchain (cargo)" >&2; exit 1; }

# --- build: undouble, and the two limit binaries (`[[bench]]` targets, harness = false) ---
cd "$root"
cargo build --release --quiet
undouble="$root/target/release/undouble"
limits="$(cargo build --release --benches --message-format=json 2>/dev/null | python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] in ("limit_memchr", "limit_utf8"):
        print(m["target"]["name"], m["executable"])
')"
limit_memchr="$(awk '$1 == "limit_memchr" {print $2}' <<<"$limits")"
limit_utf8="$(awk '$1 == "limit_utf8" {print $2}' <<<"$limits")"
[[ -x $limit_memchr && -x $limit_utf8 ]] || { echo "compare.sh: limit binaries not built" >&2; exit 1; }

# --- data ---
sql="$data/sql-1g.sql"
dense="$data/dense-200m.txt"
moji="$data/mojibake-200m.txt"
[[ -s $sql ]] || python3 "$here/gen_data.py" sql "$sql" 1024
[[ -s $dense ]] || python3 "$here/gen_data.py" dense "$dense" 200
[[ -s $moji ]] || python3 "$here/gen_data.py" mojibake "$moji" 200
out="$data/compare-out.tmp"
work="$data/compare"
rm -rf "$work" && mkdir -p "$work"

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

# --- check: the three implementations of the seed's pattern agree, line by line and in count ---
for f in "$sql" "$dense" "$moji"; do
    sample="$work/sample"
    head -c 20000000 "$f" >"$sample"
    a="$(perl "$here/seed_count.pl" --lines "$sample" | md5sum)"
    b="$(rg -n -a --no-unicode "$rgpat" "$sample" | cut -d: -f1 | md5sum)"
    c="$(LC_ALL=C grep -n -a -P "$pat" "$sample" | cut -d: -f1 | md5sum)"
    m1="$(perl "$here/seed_count.pl" "$sample")"
    m2="$(rg -o -a --no-unicode "$rgpat" "$sample" | wc -l)"
    if [[ $a != "$b" || $a != "$c" || $m1 != "$m2" ]]; then
        echo "compare.sh: Perl, ripgrep and grep disagree on $(basename "$f")" >&2
        exit 1
    fi
    rm -f "$sample"
done
echo "check: seed_count.pl, rg and grep -P match the same lines, and rg -o the same count, on 20 MB of each file" >&2

# --- counts (one run of each, also a first read into the page cache) ---
counts="$work/counts.tsv"
: >"$counts"
for f in "$sql" "$dense" "$moji"; do
    n="$(basename "$f")"
    status=0
    "$undouble" scan --json -q "$f" >"$work/scan.json" || status=$?
    ((status <= 1)) || { echo "compare.sh: undouble scan failed on $n" >&2; exit 1; }
    repaired="$(python3 -c 'import json,sys; print(next(o for o in map(json.loads, open(sys.argv[1])) if o["type"] == "file")["double_encoded"])' "$work/scan.json")"
    {
        printf '%s\tundouble scan: characters repaired\t%s\n' "$n" "$repaired"
        printf '%s\tseed_count.pl: matches\t%s\n' "$n" "$(perl "$here/seed_count.pl" "$f")"
        printf '%s\trg -o | wc -l: matches\t%s\n' "$n" "$(rg -o -a --no-unicode "$rgpat" "$f" | wc -l)"
        printf '%s\trg -c: matching lines\t%s\n' "$n" "$(rg -c -a --no-unicode "$rgpat" "$f" || true)"
        printf '%s\tlimit_memchr: 0xC3 bytes\t%s\n' "$n" "$("$limit_memchr" "$f")"
        printf '%s\tlimit_utf8\t%s\n' "$n" "$("$limit_utf8" "$f")"
    } >>"$counts"
done
status=0
iconv -f utf-8 -t latin1 "$moji" >"$out" 2>"$work/iconv.err" || status=$?
printf '%s\ticonv -t latin1 (without -c): exit status, bytes written\t%s, %s (%s)\n' \
    "$(basename "$moji")" "$status" "$(stat -c %s "$out")" "$(tr -d '\n' <"$work/iconv.err")" >>"$counts"
rm -f "$out"

# --- timings ---
load_start="$(cut -d' ' -f1-3 /proc/loadavg)"
# `-N`: no intermediate shell (hyperfine splits the command line itself); `sh -c` where a
# redirection or a pipe is needed. `-i`: undouble exits with 1 when it finds something, grep
# when it finds nothing; failures are caught by the counts above. `--output=pipe`: GNU grep
# stops at its first match when its output is /dev/null (hyperfine's default).
bench() {  # bench FILE TAG RUNS (NAME COMMAND)...
    local f="$1" tag="$2" n="$3"
    shift 3
    local args=()
    while (($#)); do
        args+=(--command-name "$1" "$2")
        shift 2
    done
    cat "$f" >/dev/null
    hyperfine -N -i --output=pipe --warmup 1 --runs "$n" --export-json "$work/$tag.json" "${args[@]}" >&2
}
for f in "$sql" "$dense" "$moji"; do
    tag="$(basename "$f")"
    echo "== $tag" >&2
    cmds=(
        "undouble scan -j1" "$undouble scan -q -j 1 $f"
        "undouble scan -j2" "$undouble scan -q -j 2 $f"
        "undouble fix -o -j1" "$undouble fix -q -j 1 $f -o $out"
        "undouble fix -o -j2" "$undouble fix -q -j 2 $f -o $out"
        "rg -c" "rg -c -a --no-unicode '$rgpat' $f"
        "rg -o | wc -l" "sh -c \"rg -o -a --no-unicode '$rgpat' $f | wc -l\""
        "grep -c -P" "env LC_ALL=C grep -c -a -P '$pat' $f"
        "limit: memchr 0xC3" "$limit_memchr $f"
        "limit: simdutf8" "$limit_utf8 $f"
        "limit: cat > file" "sh -c 'cat $f > $out'"
        "limit: cat > file; sync file" "sh -c 'cat $f > $out && sync $out'"
    )
    if [[ $f == "$moji" ]]; then
        cmds+=("iconv -c -t latin1" "sh -c 'iconv -c -f utf-8 -t latin1 $f > $out'")
    fi
    bench "$f" "$tag-main" "$runs" "${cmds[@]}"
    bench "$f" "$tag-perl" "$perl_runs" \
        "seed Perl count" "perl $here/seed_count.pl $f" \
        "seed Perl repair" "perl $here/seed_repair.pl $f $out"
done
rm -f "$out"
load_end="$(cut -d' ' -f1-3 /proc/loadavg)"

# --- report ---
machine="$(nproc) CPUs ($(lscpu | sed -n 's/^Model name: *//p' | sed -n 1p)), $(awk '/^MemTotal:/ {printf "%.0f GB", $2 / 1e6}' /proc/meminfo) memory, Linux $(uname -r)$(lscpu | sed -n 's/^Hypervisor vendor: *\(.*\)/, a \1 guest/p')"
versions="undouble $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')$(git -C "$root" diff --quiet HEAD -- src Cargo.toml 2>/dev/null || echo ' (uncommitted changes)'), $(rustc --version | cut -d' ' -f1-2), $(hyperfine --version), $(rg --version | sed -n 1p), $(grep --version | sed -n 1p), perl $(perl -e 'print substr($^V, 1)'), iconv $(iconv --version | sed -n 1p | sed 's/^iconv //')"
load="$load_start before the timings, $load_end after (1, 5 and 15 minutes; other work shares the machine when it is not 0)"
python3 - "$work" "$counts" "$results" "$machine" "$versions" "$load" "$runs" "$perl_runs" "$sql" "$dense" "$moji" <<'PY'
import json, os, sys
from datetime import date

work, counts_path, results_path, machine, versions, load = sys.argv[1:7]
runs, perl_runs = int(sys.argv[7]), int(sys.argv[8])
files = sys.argv[9:12]
label = {
    files[0]: "SQL dump, 2% of strings double-encoded",
    files[1]: "dense multilingual, nothing to repair",
    files[2]: "double-encoded throughout (cp1252 reading)",
}
READERS = ["rg -c", "rg -o | wc -l", "grep -c -P", "seed Perl count",
           "limit: memchr 0xC3", "limit: simdutf8"]
WRITERS = ["seed Perl repair", "iconv -c -t latin1", "limit: cat > file",
           "limit: cat > file; sync file"]

lines = []


p = lines.append


def row(*cells):
    """A Markdown table row; a `|` inside a cell (`rg -o | wc -l`) is escaped."""
    p("| " + " | ".join(str(c).replace("|", "\\|") for c in cells) + " |")


p("# undouble against the alternatives and the limits")
p("")
p(f"Generated by `benches/compare.sh` on {date.today().isoformat()}. Whole processes, inputs in the")
p(f"page cache, median of {runs} runs after one warm-up (the seed's Perl: {perl_runs} runs),")
p("MB = 10^6 bytes. Ratios compare two medians from the same run: **undouble ÷ X** is how many")
p("times faster undouble is than X (`scan` against the tools that only read, `fix -o` against")
p("those that write a file). CPU s: mean user + system time of a run, over all threads.")
p("`fix -o` syncs its output to disk before renaming it over the target (a crash never leaves")
p("a half-written file); `cat > file` does not, `cat > file; sync file` does.")
p("Each input is read once just before its commands are timed, then by hyperfine's warm-up run.")
p("")
p(f"- Machine: {machine}")
p(f"- Load average: {load}")
p(f"- Versions: {versions}")
p("- Inputs (`benches/gen_data.py`, from the real text of `corpus/`): "
  + "; ".join(f"`{os.path.basename(f)}` {os.path.getsize(f) / 1e6:.0f} MB, {label[f]}" for f in files))
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

targets = []
for f in files:
    name = os.path.basename(f)
    size = os.path.getsize(f) / 1e6
    res = {}
    for part in ("main", "perl"):
        for r in json.load(open(os.path.join(work, f"{name}-{part}.json")))["results"]:
            res[r["command"]] = r
    med = {k: r["median"] for k, r in res.items()}
    mbps = {k: size / t for k, t in med.items()}
    p(f"## `{name}` ({size:.0f} MB, {label[f]})")
    p("")
    p("| command | median s | CPU s | MB/s | undouble -j1 ÷ this | undouble -j2 ÷ this |")
    p("|---|---:|---:|---:|---:|---:|")
    for k in res:
        a = b = ""
        if k.startswith("undouble") and k.endswith("-j2"):
            one = k.replace("-j2", "-j1")
            a = f"-j2 is {med[one] / med[k]:.2f}× -j1"
        elif not k.startswith("undouble"):
            mine = "undouble scan" if k in READERS else "undouble fix -o"
            a = f"{mine.split()[1]} {med[k] / med[mine + ' -j1']:.2f}×"
            b = f"{mine.split()[1]} {med[k] / med[mine + ' -j2']:.2f}×"
        runs_note = f" ({len(res[k]['times'])} runs)" if len(res[k]["times"]) != runs else ""
        cpu = res[k]["user"] + res[k]["system"]
        row(f"`{k}`{runs_note}", f"{med[k]:.3f}", f"{cpu:.2f}", f"{mbps[k]:,.0f}", a, b)
    p("")

    def target(mine, other, need):
        for j in ("-j1", "-j2"):
            got = med[other] / med[mine + " " + j]
            targets.append((name, f"`{mine} {j}` ÷ `{other}`", need, got, ""))

    target("undouble scan", "rg -c", 1.5)
    target("undouble scan", "rg -o | wc -l", 1.5)
    if f == files[0]:
        target("undouble scan", "limit: memchr 0xC3", 0.8)
    target("undouble fix -o", "seed Perl repair", 10)
    target("undouble fix -o", "limit: cat > file", 0.8)
    target("undouble fix -o", "limit: cat > file; sync file", 0.8)
    for c in ("undouble scan", "undouble fix -o"):
        two = res[c + " -j2"]
        cores = (two["user"] + two["system"]) / two["mean"]
        targets.append((name, f"`{c} -j2` ÷ `{c} -j1`", 1.7, med[c + " -j1"] / med[c + " -j2"],
                        f"; `-j2` used {cores:.2f} CPU s per s"))

p("## Targets")
p("")
p("`rg -c` is the issue's comparison; `rg -o | wc -l` counts every match, the same work as `scan`.")
p("Thread ratios also give the CPU seconds per second `-j2` used: for `scan`, well under 2")
p("means another process held the second core during the runs (`fix` also waits for the disk).")
p("")
p("| input | ratio | target | measured | verdict |")
p("|---|---|---:|---:|---|")
for name, what, need, got, why in targets:
    verdict = "met" if got >= need else f"**missed** by {100 * (1 - got / need):.1f}% (needs {need / got:.2f}× faster)"
    verdict += why
    row(f"`{name}`", what, f"≥ {need:g}", f"{got:.2f}", verdict)
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
