# Shared by the bench scripts (sourced): installing a missing tool, timing a run, a median.

# need COMMAND PACKAGE: installs PACKAGE when COMMAND is missing (as root), or says what to do.
need() {
    command -v "$1" >/dev/null 2>&1 && return
    if [[ $(id -u) -ne 0 ]]; then
        echo "${0##*/}: $1 is missing; install the Debian package $2" >&2
        exit 1
    fi
    apt-get update -qq && apt-get install -y -qq "$2" >/dev/null
}

# measure COMMAND...: prints "WALL CPU" for one run (seconds, to the millisecond; CPU is user +
# system from the child's rusage, where GNU time would round to 10 ms). Output is discarded.
measure() {
    python3 -c '
import os, subprocess, sys, time
start = time.monotonic()
child = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
_, _, usage = os.wait4(child.pid, 0)
print(f"{time.monotonic() - start:.3f} {usage.ru_utime + usage.ru_stime:.3f}")' "$@"
}

# median: the median of the numbers on standard input (separated by spaces or newlines; the
# lower middle one of an even count).
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# mixed_file DATA: builds (once) and prints DATA/mixed-1g.txt, a ~1.1 GB plain-text file of
# gen_data.py's `dense` text with one line in 17 double-encoded (its `mojibake` text).
mixed_file() {
    local data=$1 here
    here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
    local big="$data/mixed-1g.txt"
    if [[ ! -s "$big" ]]; then
        python3 "$here/gen_data.py" dense "$data/dense-960m.txt" 960 >&2
        python3 "$here/gen_data.py" mojibake "$data/mojibake-64m.txt" 64 >&2
        awk 'NR==FNR { m[NR] = $0; n = NR; next } { print } FNR % 16 == 0 { i = i % n + 1; print m[i] }' \
            "$data/mojibake-64m.txt" "$data/dense-960m.txt" > "$big"
    fi
    echo "$big"
}
