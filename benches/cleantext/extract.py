#!/usr/bin/env python3
"""Build the clean-text corpus for undouble's false-positive benchmark.

What: extracts real, correctly encoded text in many scripts from files shipped by Debian
packages (hunspell dictionaries, word lists, translated manual pages, fortunes, CLDR locale
data, gettext catalogues, Japanese and Chinese input-method dictionaries) into
OUTDIR/<source>.txt, one entry or sentence per line.

Why: every double-encoded sequence undouble would "repair" in this text is a false positive,
because the text is clean. The corpus must be large (>= 150 MB by default) and varied, with no
script above ~40% of the letters, so that the count measures more than one language.

How: each source is decoded with the encoding it declares (hunspell `SET`, gettext `charset=`,
SKK `coding:`, mecab `config-charset`), line by line and strictly: a line that does not decode,
or holds control characters or U+FFFD, is dropped and counted. Raw extraction goes to
OUTDIR/.raw/; then every source gets a sampling fraction (cap per source, cap per script, then
one common factor so that the total just reaches the target) and evenly spaced lines are kept.
Script statistics use the Unicode Character Database's Scripts.txt (package unicode-data).
Deterministic: sources and files are sorted, and sampling has no randomness.

Usage:
  extract.py packages                 print the Debian packages the sources need
  extract.py build OUTDIR [--target-mb 150] [--max-share 0.40] [--source-cap-mb 12]
"""

import argparse
import bisect
import collections
import gzip
import os
import re
import shutil
import struct
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

MB = 1_000_000
SCRIPTS_TXT = "/usr/share/unicode/Scripts.txt"
# Scripts that carry no language: excluded from the per-script balance.
NEUTRAL_SCRIPTS = {"Common", "Inherited", "Unknown"}


class Stats:
    """Per-source counters: lines kept and lines dropped, by reason."""

    def __init__(self):
        self.kept = 0
        self.dropped = collections.Counter()


# ---------------------------------------------------------------------------------------------
# Decoding and line hygiene

BAD_CHARS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ufffd]")
HAS_LETTER = re.compile(r"[^\W\d_]")


def decode_lines(data, encoding, stats):
    """Split bytes into lines and decode each strictly; undecodable lines are counted, not kept."""
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError:
        lines = []
        for raw in data.split(b"\n"):
            try:
                lines.append(raw.decode(encoding))
            except UnicodeDecodeError:
                stats.dropped["not " + encoding] += 1
        return lines
    return text.split("\n")


def clean(line, stats):
    """Return the line stripped, or None (counted) if it is empty, letterless or has controls."""
    line = line.strip()
    if not line:
        return None
    if BAD_CHARS.search(line):
        stats.dropped["control or U+FFFD"] += 1
        return None
    if not HAS_LETTER.search(line):
        stats.dropped["no letter"] += 1
        return None
    return line


def read_bytes(path):
    with open(path, "rb") as f:
        data = f.read()
    return gzip.decompress(data) if path.endswith(".gz") else data


def package_files(pkg):
    """Regular files (not symlinks) shipped by an installed Debian package, sorted."""
    result = subprocess.run(["dpkg-query", "-L", pkg], capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"extract.py: package {pkg} is not installed; run: apt-get install {pkg}")
    return sorted(
        p for p in result.stdout.splitlines() if os.path.isfile(p) and not os.path.islink(p)
    )


# ---------------------------------------------------------------------------------------------
# Extractors: each yields decoded text lines (not yet cleaned)


def hunspell_dic(dic, stats):
    """Words of a hunspell .dic, decoded with the `SET` encoding its .aff declares."""
    encoding = "ISO8859-1"  # hunspell's default when the .aff has no SET line
    with open(dic[:-4] + ".aff", "rb") as f:
        for raw in f:
            m = re.match(rb"\s*SET\s+(\S+)", raw)
            if m:
                encoding = m.group(1).decode("ascii")
                break
    lines = decode_lines(read_bytes(dic), encoding, stats)
    for line in lines[1:]:  # the first line is the entry count
        fields = line.split()
        if fields:
            # word/FLAGS morphology...; "\/" is a literal slash inside the word
            yield re.split(r"(?<!\\)/", fields[0], maxsplit=1)[0].replace("\\/", "/")


def word_list(path, stats):
    yield from decode_lines(read_bytes(path), "utf-8", stats)


ROFF_GLYPHS = {
    "em": "—", "en": "–", "lq": "“", "rq": "”", "oq": "‘", "cq": "’", "aq": "'", "dq": '"',
    "Fo": "«", "Fc": "»", "fo": "‹", "fc": "›", "hy": "-", "bu": "•", "co": "©", "rg": "®",
    "tm": "™", "de": "°", "mu": "×", "di": "÷", "+-": "±", "<=": "≤", ">=": "≥", "!=": "≠",
    "->": "→", "<-": "←", "ti": "~", "ha": "^", "rs": "\\", "sl": "/", "ba": "|", "mi": "−",
    "Eu": "€", "eu": "€", "ss": "ß", "sc": "§", "ps": "¶", "ua": "↑", "da": "↓", "ga": "`",
}
ROFF_TEXT_MACROS = {"SH", "SS", "B", "I", "BI", "BR", "IB", "IR", "RB", "RI", "SM", "SB", "IP",
                    "Sh", "Ss", "Nd", "It"}
ROFF_ESCAPE = re.compile(
    r"""\\(?:
        \[u([0-9A-Fa-f]{4,6})\]          # \[u00E9]
      | \(([^\s]{2})                     # \(em
      | \[([^\]\s]+)\]                   # \[em]
      | [fFn*]\s?(?:\(..|\[[^\]]*\]|.)   # font, register, string
      | s[-+]?\d+                        # size
      | [hvwoLlXNDbRxSZk]'[^']*'         # escapes with a quoted argument
      | (.)                              # anything else: a single character
    )""",
    re.VERBOSE,
)


def _roff_escape(m):
    if m.group(1):
        return chr(int(m.group(1), 16))
    name = m.group(2) or m.group(3)
    if name:
        return ROFF_GLYPHS.get(name, "")
    char = m.group(4)
    if char is None:
        return ""
    return {"-": "-", "e": "\\", "\\": "\\", " ": " ", "~": " ", "0": " ", "'": "'"}.get(char, "")


def manpage_text(path, stats):
    """Running text of a man page: roff requests dropped except text-bearing ones, escapes resolved."""
    for line in decode_lines(read_bytes(path), "utf-8", stats):
        if line.startswith((".", "'")):
            if line[1:].lstrip().startswith('\\"') or line.startswith((".so ", ".\\\"")):
                continue
            request, _, args = line[1:].strip().partition(" ")
            if request not in ROFF_TEXT_MACROS:
                continue
            line = args.replace('"', "")
        line = line.split('\\"', 1)[0]  # comment
        yield ROFF_ESCAPE.sub(_roff_escape, line)


ANSI_SGR = re.compile("\x1b\\[[0-9;]*m")


def fortune_file(path, stats):
    """Fortune cookies (separated by `%` lines); fortune-zh's colour escapes are removed."""
    for line in decode_lines(read_bytes(path), "utf-8", stats):
        if line.strip() != "%":
            yield ANSI_SGR.sub("", line)


def mecab_csv(path, stats):
    """mecab-ipadic sources (EUC-JP CSV): surface form, base form and reading of each entry."""
    with open(os.path.join(os.path.dirname(path), "dicrc"), "rb") as f:
        encoding = re.search(rb"config-charset\s*=\s*(\S+)", f.read()).group(1).decode("ascii")
    for line in decode_lines(read_bytes(path), encoding, stats):
        fields = line.split(",")
        if len(fields) >= 12:
            yield " ".join(dict.fromkeys([fields[0], fields[10], fields[11]]))


def skk_jisyo(path, stats):
    """SKK dictionary: reading and candidates, annotations and Lisp expressions removed."""
    data = read_bytes(path)
    encoding = re.search(rb"coding:\s*([\w-]+)", data[:200]).group(1).decode("ascii")
    for line in decode_lines(data, encoding, stats):
        if line.startswith(";") or " /" not in line:
            continue
        reading, _, rest = line.partition(" /")
        words = [c.split(";")[0] for c in rest.split("/")]
        yield " ".join([reading] + [w for w in words if w and not w.startswith("(")])


def rime_table(path, stats):
    """Rime dictionary (YAML header, then `text<TAB>code<TAB>weight`) or essay: the text column,
    and for tables that map words to emoji, both."""
    lines = decode_lines(read_bytes(path), "utf-8", stats)
    if path.endswith(".dict.yaml"):
        lines = lines[lines.index("...") + 1:]
    for line in lines:
        if not line.startswith("#"):
            fields = line.split("\t")
            yield fields[1] if path.endswith("emoji_word.txt") and len(fields) > 1 else fields[0]


def cldr_xml(path, stats):
    """Text of every CLDR element; annotations are prefixed with the characters they annotate."""
    for _, elem in ET.iterparse(path):
        text = (elem.text or "").strip()
        if text and len(elem) == 0:
            cp = elem.get("cp")
            yield f"{cp} {text}" if cp else text
        elem.clear()


def mo_messages(path, stats):
    """Translated strings (msgstr) of a gettext .mo file, decoded with its declared charset."""
    data = read_bytes(path)
    magic = struct.unpack("<I", data[:4])[0]
    order = "<" if magic == 0x950412DE else ">"
    count, _, trans_off = struct.unpack(order + "3I", data[8:20])
    entries = []
    for i in range(count):
        length, offset = struct.unpack(order + "2I", data[trans_off + 8 * i:trans_off + 8 * i + 8])
        entries.append(data[offset:offset + length])
    # Entry 0 is the header (translation of the empty msgid); it declares the charset.
    m = re.search(rb"charset=([\w-]+)", entries[0]) if entries else None
    encoding = m.group(1).decode("ascii") if m else "utf-8"
    for entry in entries[1:]:
        for form in entry.split(b"\0"):  # plural forms
            yield from decode_lines(form, encoding, stats)


def locale_strings(path, stats):
    """Quoted strings of a glibc locale source (month and day names, country and language
    names...), with <Uxxxx> symbols resolved; format strings and collation symbols skipped."""
    for line in decode_lines(read_bytes(path), "utf-8", stats):
        if line.startswith(("%", "comment_char", "escape_char")):
            continue
        for s in re.findall(r'"([^"]*)"', line):
            s = re.sub(r"<U([0-9A-Fa-f]{4,8})>", lambda m: chr(int(m.group(1), 16)), s)
            if "%" not in s and "<" not in s:
                yield s


# ---------------------------------------------------------------------------------------------
# Sources: (output name, Debian package, extractor, filter on the package's file paths)

def _sources():
    s = []
    for pkg, dic in [
        ("hunspell-fr-classical", "fr"), ("hunspell-de-de", "de_DE"), ("hunspell-es", "es_ES"),
        ("hunspell-pt-pt", "pt_PT"), ("hunspell-pl", "pl_PL"), ("hunspell-cs", "cs_CZ"),
        ("hunspell-tr", "tr_TR"), ("hunspell-vi", "vi_VN"), ("hunspell-hu", "hu_HU"),
        ("hunspell-ru", "ru_RU"), ("hunspell-uk", "uk_UA"), ("hunspell-bg", "bg_BG"),
        ("hunspell-el", "el_GR"), ("hunspell-he", "he_IL"), ("hunspell-ar", "ar"),
        ("hunspell-ko", "ko"), ("hunspell-th", "th_TH"), ("hunspell-hi", "hi_IN"),
    ]:
        s.append((f"hunspell-{dic}", pkg, hunspell_dic, f"/usr/share/hunspell/{dic}.dic"))
    for pkg, name in [
        ("wamerican", "american-english"), ("wfrench", "french"), ("wngerman", "ngerman"),
        ("wspanish", "spanish"), ("wportuguese", "portuguese"), ("wpolish", "polish"),
        ("wukrainian", "ukrainian"), ("wbulgarian", "bulgarian"),
    ]:
        s.append((f"words-{name}", pkg, word_list, f"/usr/share/dict/{name}"))
    for lang in ["cs", "de", "el", "es", "fr", "it", "ja", "pl", "ru", "tr", "uk", "vi"]:
        s.append((f"man-{lang}", f"manpages-{lang}", manpage_text, f"/usr/share/man/{lang}/"))
    for lang in ["zh_CN", "zh_TW"]:
        s.append((f"man-{lang}", "manpages-zh", manpage_text, f"/usr/share/man/{lang}/"))
    for lang in ["bg", "cs", "de", "es", "it", "pl", "ru", "zh"]:
        s.append((f"fortunes-{lang}", f"fortunes-{lang}", fortune_file, "/usr/share/games/fortunes/"))
    s += [
        ("mecab-ipadic", "mecab-ipadic", mecab_csv, ".csv"),
        ("skk-jisyo-l", "skkdic", skk_jisyo, "/SKK-JISYO.L"),
        ("rime-essay", "rime-essay", rime_table, "/essay.txt"),
        ("rime-luna-pinyin", "rime-data-luna-pinyin", rime_table, ".dict.yaml"),
        ("rime-terra-pinyin", "rime-data-terra-pinyin", rime_table, ".dict.yaml"),
        ("rime-emoji", "rime-data-emoji", rime_table, "/emoji_word.txt"),
        ("cldr-main", "unicode-cldr-core", cldr_xml, "/cldr/common/main/"),
        ("cldr-annotations", "unicode-cldr-core", cldr_xml, "/cldr/common/annotations"),
        ("glibc-locales", "locales", locale_strings, "/usr/share/i18n/locales/"),
    ]
    for pkg in ["iso-codes", "util-linux-locales", "coreutils", "libc-l10n"]:
        s.append((f"mo-{pkg}", pkg, mo_messages, ".mo"))
    return s


SOURCES = _sources()
# unicode-data provides Scripts.txt for the statistics.
PACKAGES = sorted({pkg for _, pkg, _, _ in SOURCES} | {"unicode-data"})


def source_files(pkg, pattern):
    files = [p for p in package_files(pkg) if pattern in p and not p.endswith(".dat")]
    if pkg.startswith("fortunes-"):
        files = [p for p in files if "/off/" not in p and os.path.getsize(p) > 0]
    if not files:
        sys.exit(f"extract.py: package {pkg} ships no file matching {pattern!r}")
    return files


# ---------------------------------------------------------------------------------------------
# Script statistics


class ScriptTable:
    def __init__(self, path=SCRIPTS_TXT):
        if not os.path.exists(path):
            sys.exit(f"extract.py: {path} is missing; run: apt-get install unicode-data")
        ranges = []
        with open(path, encoding="utf-8") as f:
            for line in f:
                m = re.match(r"([0-9A-F]+)(?:\.\.([0-9A-F]+))?\s*;\s*(\w+)", line)
                if m:
                    lo = int(m.group(1), 16)
                    ranges.append((lo, int(m.group(2) or m.group(1), 16), m.group(3)))
        ranges.sort()
        self.starts = [r[0] for r in ranges]
        self.ranges = ranges
        self.cache = {}

    def script(self, ch):
        name = self.cache.get(ch)
        if name is None:
            cp = ord(ch)
            i = bisect.bisect_right(self.starts, cp) - 1
            lo, hi, name = self.ranges[i] if i >= 0 else (0, -1, "Unknown")
            if not lo <= cp <= hi:
                name = "Unknown"
            self.cache[ch] = name
        return name

    def byte_counts(self, text):
        """UTF-8 bytes per script in text."""
        counts = collections.Counter()
        for ch, n in collections.Counter(text).items():
            counts[self.script(ch)] += n * len(ch.encode("utf-8"))
        return counts


def letters(counts):
    return {k: v for k, v in counts.items() if k not in NEUTRAL_SCRIPTS}


def dominant(counts, top=3):
    lets = letters(counts)
    total = sum(lets.values()) or 1
    best = [kv for kv in sorted(lets.items(), key=lambda kv: (-kv[1], kv[0]))[:top]
            if kv[1] * 200 >= total]  # 0.5% or more
    return " ".join(f"{k} {100 * v / total:.0f}%" for k, v in best)


# ---------------------------------------------------------------------------------------------
# Balancing


def fractions(raw, target, max_share, source_cap):
    """Sampling fraction per source: per-source cap, then no script above max_share of all
    script bytes, then one common factor so the total reaches target bytes."""
    frac = {name: min(1.0, source_cap / r["bytes"]) for name, r in raw.items()}
    for _ in range(200):
        per_script = collections.Counter()
        for name, r in raw.items():
            for k, v in letters(r["scripts"]).items():
                per_script[k] += frac[name] * v
        total = sum(per_script.values())
        worst, worst_bytes = per_script.most_common(1)[0]
        if worst_bytes <= max_share * total:
            break
        # Shrink the sources where the over-represented script is dominant.
        allowed = max_share * (total - worst_bytes) / (1 - max_share)
        factor = max(allowed / worst_bytes, 0.5)
        for name, r in raw.items():
            lets = letters(r["scripts"])
            if lets and max(lets, key=lets.get) == worst:
                frac[name] *= factor
    available = sum(frac[n] * r["bytes"] for n, r in raw.items())
    if available < target:
        sys.exit(
            f"extract.py: only {available / MB:.1f} MB available within the balance limits, "
            f"target is {target / MB:.0f} MB: add sources or raise --source-cap-mb"
        )
    scale = target * 1.002 / available  # a little over, so evenly spaced sampling still reaches it
    return {n: f * scale for n, f in frac.items()}


def sample(lines, fraction):
    """Evenly spaced lines: keep line i when floor((i+1)*f) > floor(i*f)."""
    return [line for i, line in enumerate(lines) if int((i + 1) * fraction) > int(i * fraction)]


# ---------------------------------------------------------------------------------------------


def build(outdir, target, max_share, source_cap):
    started = time.monotonic()
    scripts = ScriptTable()
    rawdir = os.path.join(outdir, ".raw")
    os.makedirs(rawdir, exist_ok=True)
    for old in os.listdir(outdir):
        if old.endswith(".txt") or old == ".complete":
            os.remove(os.path.join(outdir, old))

    raw = {}
    for name, pkg, extractor, pattern in SOURCES:
        stats = Stats()
        out = []
        for path in source_files(pkg, pattern):
            for line in extractor(path, stats):
                line = clean(line, stats)
                if line is not None:
                    out.append(line)
        stats.kept = len(out)
        text = "\n".join(out) + "\n"
        with open(os.path.join(rawdir, name + ".txt"), "w", encoding="utf-8") as f:
            f.write(text)
        raw[name] = {"bytes": len(text.encode("utf-8")), "scripts": scripts.byte_counts(text)}
        dropped = ", ".join(f"{n} {why}" for why, n in sorted(stats.dropped.items())) or "none"
        print(f"  {name:<22} {stats.kept:>9} lines {raw[name]['bytes'] / MB:8.2f} MB raw;"
              f" dropped: {dropped}", file=sys.stderr)

    frac = fractions(raw, target, max_share, source_cap)
    rows = []
    totals = collections.Counter()
    for name in sorted(raw):
        with open(os.path.join(rawdir, name + ".txt"), encoding="utf-8") as f:
            kept = sample(f.read().splitlines(), min(frac[name], 1.0))
        if not kept:
            continue
        text = "\n".join(kept) + "\n"
        with open(os.path.join(outdir, name + ".txt"), "w", encoding="utf-8") as f:
            f.write(text)
        counts = scripts.byte_counts(text)
        totals.update(counts)
        rows.append((name + ".txt", len(text.encode("utf-8")), dominant(counts)))
    shutil.rmtree(rawdir)

    total_bytes = sum(r[1] for r in rows)
    print(f"{'file':<26} {'bytes':>11}  dominant scripts (share of letters)")
    for row in rows:
        print(f"{row[0]:<26} {row[1]:>11}  {row[2]}")
    print(f"{'TOTAL':<26} {total_bytes:>11}  ({total_bytes / MB:.1f} MB in {len(rows)} files)")
    lets = letters(totals)
    all_letters = sum(lets.values())
    print("\nscript balance (UTF-8 bytes of letters; Common/Inherited excluded):")
    for k, v in sorted(lets.items(), key=lambda kv: -kv[1]):
        if v * 1000 >= all_letters:
            print(f"  {k:<12} {v:>11}  {100 * v / all_letters:5.1f}%")
    rest = sum(v for v in lets.values() if v * 1000 < all_letters)
    print(f"  {'(others)':<12} {rest:>11}  {100 * rest / all_letters:5.1f}%"
          f"  ({sum(1 for v in lets.values() if v * 1000 < all_letters)} scripts under 0.1%)")
    neutral = sum(totals[k] for k in NEUTRAL_SCRIPTS)
    print(f"  Common/Inherited bytes (spaces, digits, punctuation, newlines): {neutral}")
    with open(os.path.join(outdir, ".complete"), "w", encoding="utf-8") as f:
        f.write(f"{total_bytes}\n")
    print(f"\nbuilt in {time.monotonic() - started:.0f} s", file=sys.stderr)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("packages", help="print the Debian packages the sources need")
    b = sub.add_parser("build", help="extract, balance and write OUTDIR/<source>.txt")
    b.add_argument("outdir")
    b.add_argument("--target-mb", type=float, default=150)
    b.add_argument("--max-share", type=float, default=0.40)
    b.add_argument("--source-cap-mb", type=float, default=12)
    args = parser.parse_args()
    if args.command == "packages":
        print("\n".join(PACKAGES))
    else:
        # Aim a little under the limit: sampling changes shares slightly.
        build(args.outdir, args.target_mb * MB, args.max_share - 0.01, args.source_cap_mb * MB)


if __name__ == "__main__":
    main()
