#!/usr/bin/env bash
# Head-to-head accuracy of undouble and ftfy on a labelled set built from real text.
#
# Why: the project means to be more accurate than ftfy (Robyn Speer's Python library,
# https://github.com/rspeer/python-ftfy) at undoing double-encoded UTF-8, and ftfy's own test
# cases (tests/ftfy_suite.rs) are few and were chosen by its authors. This measures both tools
# on our own data: real, correctly encoded lines in many languages, garbled the way a latin1
# connection garbles them, with the true text of every line known. ftfy is only run, as a
# competitor; none of its code or tables is copied here.
#
# What:
#   1. installs ftfy, when missing, into a virtualenv under benches/data/ftfy-venv (git-ignored)
#      with `python3 -m venv` and pip from PyPI;
#   2. builds undouble (`cargo build --release`; UNDOUBLE=/path tests another binary instead);
#   3. runs benches/accuracy.py with that virtualenv's Python: it builds the set (fixed seed)
#      from corpus/clean-multilingual.txt and, when benches/cleantext/build.sh has built it,
#      benches/data/cleantext/*.txt (without it the set is small): clean lines, lines
#      double-encoded through cp1252, latin1 or a mix of both byte by byte, triple-encoded
#      lines, rows (CSV, TSV, SQL values) where only some values are garbled, and look-alikes
#      (correct text shaped like mojibake, alone and in rows). It runs `undouble fix` once over
#      a file of all the lines (and once per --strictness level), and `ftfy.fix_encoding` and
#      `ftfy.fix_text` on each line, and compares every output with the true line;
#   4. prints a Markdown report (exact matches per class and tool, false positives, a breakdown
#      by script and by row format, time, example disagreements both ways, ftfy's version) and
#      writes it to benches/ACCURACY.md; every case with every output goes to
#      benches/data/accuracy/cases.jsonl.
# About 30 s once the corpus is there (reading 150 MB of text is most of it).
#
# Usage (from anywhere): benches/accuracy.sh [--per-class N] [--examples N]
#   FTFY_VERSION=6.3.1    the ftfy version to install (default: PyPI's latest); an installed
#                         ftfy of another version is replaced
#   UNDOUBLE=/path        the undouble binary to test (default: build target/release/undouble)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
venv="$root/benches/data/ftfy-venv"
python="$venv/bin/python"

# ---- ftfy, in a virtualenv of its own
if [[ ! -x "$python" ]]; then
    echo "accuracy.sh: creating a virtualenv in $venv" >&2
    mkdir -p "$root/benches/data"
    python3 -m venv "$venv" || {
        echo "accuracy.sh: python3 -m venv failed; on Debian, install python3-venv" >&2
        exit 1
    }
fi
installed="$("$python" -c 'import ftfy; print(ftfy.__version__)' 2>/dev/null || true)"
if [[ -z "$installed" || (-n "${FTFY_VERSION:-}" && "$installed" != "$FTFY_VERSION") ]]; then
    echo "accuracy.sh: installing ftfy${FTFY_VERSION:+ $FTFY_VERSION} from PyPI" >&2
    "$python" -m pip install --quiet --disable-pip-version-check \
        "ftfy${FTFY_VERSION:+==$FTFY_VERSION}" >&2
fi

# ---- undouble
if [[ -n "${UNDOUBLE:-}" ]]; then
    undouble="$UNDOUBLE"
else
    (cd "$root" && cargo build --release --quiet)
    undouble="$root/target/release/undouble"
fi
[[ -x "$undouble" ]] || { echo "accuracy.sh: no undouble binary at $undouble" >&2; exit 1; }
if [[ ! -d "$root/benches/data/cleantext" ]]; then
    echo "accuracy.sh: benches/data/cleantext is missing (benches/cleantext/build.sh builds it);" \
        "using corpus/clean-multilingual.txt only: the set will be small" >&2
fi

"$python" "$here/accuracy.py" --undouble "$undouble" --report "$here/ACCURACY.md" "$@"
