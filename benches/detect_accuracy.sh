#!/usr/bin/env bash
# Charset detection, head to head: `undouble detect` against uchardet, chardet and
# charset-normalizer, on a corpus built from real text on this machine.
#
# Why: before a move to UTF-8, users run `detect` over thousands of files and act on its
# answers; this measures how often those answers are right, how often there is one at all,
# and how fast, beside the detectors people already use.
#
# What:
#   1. installs what is missing: uchardet (apt-get), chardet and charset-normalizer (pip);
#   2. builds undouble (`cargo build --release`; UNDOUBLE=/path tests another binary;
#      UNDOUBLE_BASELINE=/path adds the rows of a second one, e.g. the branch point's);
#   3. runs benches/detect_accuracy.py: it builds the corpus under target/detect-corpus
#      (generated, never committed) from the translations in /usr/share/locale/*/LC_MESSAGES,
#      converted with iconv into 30-odd legacy encodings, short and long, as text, HTML and
#      XML declaring nothing, runs every tool once over all of it, and writes
#      benches/DETECT_ACCURACY.md;
#   4. runs benches/detect_real.py: the same tools on real documents found on this machine
#      (chardet's test corpus where a package ships it, vim's legacy tutors and menus), read
#      as they are, into benches/DETECT_REAL.md.
#
# Usage (from anywhere): benches/detect_accuracy.sh
set -euo pipefail
cd "$(dirname "$0")/.."

command -v uchardet >/dev/null || apt-get install -y uchardet
python3 -c 'import chardet, charset_normalizer' 2>/dev/null \
  || pip install chardet charset-normalizer \
  || pip install --break-system-packages chardet charset-normalizer

binary=${UNDOUBLE:-}
if [[ -z $binary ]]; then
  nice -n 10 cargo build --release --quiet
  binary=target/release/undouble
fi
corpus=target/detect-corpus
rm -rf "$corpus"
python3 benches/detect_accuracy.py "$binary" "$corpus" benches/DETECT_ACCURACY.md
# Real documents found on this machine (chardet's test corpus, vim's legacy files), if any.
python3 benches/detect_real.py "$binary" target/detect-real benches/DETECT_REAL.md
