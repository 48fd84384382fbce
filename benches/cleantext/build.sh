#!/usr/bin/env bash
# Build the clean-text corpus for the false-positive benchmark: benches/data/cleantext/*.txt.
#
# Why: undouble must leave correctly encoded text alone. This corpus is >= 150 MB of real,
# correctly encoded UTF-8 in many scripts (no script above ~40% of the letters), taken from
# Debian packages, so that anything `undouble scan` reports in it is a false positive.
#
# What: installs the Debian packages that ship the text (list: `extract.py packages`), then
# runs extract.py, which decodes each source with the encoding it declares, drops what is not
# valid UTF-8, balances the scripts, writes one file per source and prints a table (file,
# bytes, dominant scripts) and the per-script balance. benches/data/ is git-ignored: the data
# is never committed.
#
# Usage (as root on Debian 12, idempotent: a rerun installs nothing new and rewrites the same
# files):  benches/cleantext/build.sh [extract.py build options, e.g. --target-mb 150]
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="$here/../data/cleantext"
start=$SECONDS

if ! command -v dpkg-query >/dev/null || ! command -v apt-get >/dev/null; then
    echo "build.sh: needs a Debian system (dpkg-query, apt-get)" >&2
    exit 1
fi

mapfile -t packages < <(python3 "$here/extract.py" packages)
missing=()
for pkg in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'ok installed'; then
        missing+=("$pkg")
    fi
done
if ((${#missing[@]})); then
    if ((EUID != 0)); then
        echo "build.sh: missing packages; as root run: apt-get install --no-install-recommends ${missing[*]}" >&2
        exit 1
    fi
    echo "installing ${#missing[@]} packages: ${missing[*]}" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

mkdir -p "$out"
python3 "$here/extract.py" build "$out" "$@"
echo "corpus in $(cd "$out" && pwd), total time $((SECONDS - start)) s" >&2
