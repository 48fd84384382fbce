#!/usr/bin/env python3
"""Charset detection, head to head: `undouble detect` against uchardet, chardet and
charset-normalizer on a corpus built here from real text.

The text is the translations Debian installs (`/usr/share/locale/*/LC_MESSAGES/*.mo`: every
program's messages, in dozens of languages), converted with iconv into the legacy encodings
those languages were written in, short (a sentence or two) and long (a few kilobytes), as plain
text, HTML and XML that declare nothing: the bytes alone must tell. An answer is right when it
decodes the file to the text it holds (so ISO-8859-1 and windows-1252 are both right for text
that has no character where they differ); decisive when the tool names an encoding at all.

    detect_accuracy.py BINARY CORPUS_DIR REPORT.md

Builds CORPUS_DIR (generated, not committed), runs every tool once over all of it, and writes
REPORT.md with accuracy per encoding, decisive answers and files per second.
"""

import codecs
import gettext
import glob
import hashlib
import json
import os
import random
import subprocess
import sys
import time

# (language of the catalogues, encoding as iconv names it, WHATWG/Python-decodable name)
PAIRS = [
    ("de", "WINDOWS-1252"), ("fr", "WINDOWS-1252"), ("es", "ISO-8859-1"), ("sv", "ISO-8859-15"),
    ("pt", "WINDOWS-1252"),
    ("pl", "WINDOWS-1250"), ("cs", "ISO-8859-2"), ("hu", "WINDOWS-1250"), ("sk", "ISO-8859-2"),
    ("ro", "WINDOWS-1250"), ("hr", "WINDOWS-1250"),
    ("ru", "WINDOWS-1251"), ("ru", "KOI8-R"), ("uk", "KOI8-U"), ("ru", "CP866"),
    ("ru", "IBM855"), ("bg", "IBM855"), ("el", "CP737"),
    ("ru", "ISO-8859-5"), ("bg", "WINDOWS-1251"), ("ru", "MAC-CYRILLIC"),
    ("el", "WINDOWS-1253"), ("el", "ISO-8859-7"),
    ("tr", "WINDOWS-1254"), ("tr", "ISO-8859-9"),
    ("he", "WINDOWS-1255"), ("he", "ISO-8859-8"),
    ("ar", "WINDOWS-1256"), ("fa", "WINDOWS-1256"),
    ("lt", "WINDOWS-1257"), ("lv", "ISO-8859-13"), ("et", "ISO-8859-15"),
    ("vi", "WINDOWS-1258"),
    ("th", "WINDOWS-874"),
    ("ja", "SHIFT_JIS"), ("ja", "EUC-JP"), ("ja", "ISO-2022-JP"),
    ("zh_CN", "GB18030"), ("zh_CN", "GBK"), ("zh_TW", "BIG5"),
    ("ko", "EUC-KR"),
    # Unicode without a byte order mark: plain text has no `<` to show its form.
    ("de", "UTF-16LE"), ("ru", "UTF-16BE"), ("el", "UTF-16LE"), ("fr", "UTF-32LE"),
    ("uk", "UTF-32BE"),
]

# Python codecs for the names the tools answer with, where Python spells them otherwise.
PYTHON_CODEC = {
    "x-mac-cyrillic": "mac_cyrillic", "maccyrillic": "mac_cyrillic", "mac-cyrillic": "mac_cyrillic",
    "ibm866": "cp866", "ibm855": "cp855", "shift_jis": "cp932", "windows-31j": "cp932",
    "euc-kr": "cp949", "uhc": "cp949", "gb2312": "gb18030", "gbk": "gb18030",
    "big5": "big5hkscs", "windows-874": "cp874", "tis-620": "cp874", "us-ascii": "ascii",
    "ascii": "ascii", "iso-2022-jp": "iso2022_jp", "euc-tw": None, "x-user-defined": None,
    "iso-8859-8-i": "iso8859_8", "visual hebrew": "iso8859_8", "macroman": "mac_roman",
    "x-mac-roman": "mac_roman", "macintosh": "mac_roman",
}

SIZES = {"short": 120, "long": 4000}

# The quarters of the packages (see `package_part`) the benchmark's text comes from: the other
# half trains the tables and the confidence model (benches/train_detect.py), so that no text
# is on both sides.
TEST_PARTS = {1, 3}
FORMATS = ("txt", "html", "xml")
SAMPLES = 3


def codec_of(name):
    """A Python codec for an encoding name a tool gave, or None."""
    if not name:
        return None
    key = name.strip().lower()
    if key in PYTHON_CODEC:
        return PYTHON_CODEC[key]
    try:
        return codecs.lookup(key).name
    except LookupError:
        return None


def package_part(path):
    """Which quarter (0 to 3) of the packages a catalogue's package falls in, by a hash of its
    name, the same for every language: a program's messages are translations of each other,
    so they must all sit on one side of a split."""
    package = os.path.basename(path)[: -len(".mo")]
    return hashlib.sha256(package.encode()).digest()[0] % 4


def messages(language, parts=None):
    """The translated messages of a language, from the catalogues of the packages in `parts`
    (quarters by `package_part`; all of them if None)."""
    found = []
    paths = sorted(glob.glob(f"/usr/share/locale/{language}/LC_MESSAGES/*.mo"))
    for path in paths:
        if os.path.basename(path).startswith("iso_"):
            continue  # lists of country and language names, not prose
        if parts is not None and package_part(path) not in parts:
            continue
        try:
            with open(path, "rb") as handle:
                catalogue = gettext.GNUTranslations(handle)
        except Exception:
            continue
        for key, value in catalogue._catalog.items():
            if not isinstance(value, str) or not key:
                continue
            text = " ".join(value.replace("%", "").split())
            if len(text) >= 20 and any(ord(c) > 127 for c in text):
                found.append(text)
    return found


def sample(pool, size, rng, writes):
    """Messages from `pool` that `writes` accepts (those the encoding can write), joined until
    `size` characters."""
    out = []
    length = 0
    for _ in range(len(pool) * 2):
        text = rng.choice(pool)
        if not writes(text):
            continue
        out.append(text)
        length += len(text) + 1
        if length >= size:
            break
    return " ".join(out)


def can_write(encoding):
    """Whether a text can be written in `encoding` (as iconv names it), as a predicate."""
    def writes(text):
        try:
            text.encode(encoding_python(encoding))
            return True
        except (UnicodeEncodeError, LookupError):
            return False
    return writes


def encoding_python(iconv_name):
    return {
        "MAC-CYRILLIC": "mac_cyrillic", "CP866": "cp866", "SHIFT_JIS": "shift_jis",
        "WINDOWS-874": "cp874", "ISO-2022-JP": "iso2022_jp", "BIG5": "big5",
    }.get(iconv_name, iconv_name.lower())


def wrap(text, form, language):
    if form == "html":
        return (f"<!DOCTYPE html>\n<html lang=\"{language}\"><head><title>{text[:40]}</title>"
                f"</head>\n<body><p>{text}</p></body></html>\n")
    if form == "xml":
        return f"<?xml version=\"1.0\"?>\n<messages lang=\"{language}\"><m>{text}</m></messages>\n"
    return text + "\n"


def build(corpus):
    """Writes the corpus; returns [(path, language, iconv encoding, size, text)]."""
    os.makedirs(corpus, exist_ok=True)
    rng = random.Random(20240601)
    pools = {}
    files = []
    for language, encoding in PAIRS:
        if language not in pools:
            pools[language] = messages(language, TEST_PARTS)
        pool = pools[language]
        if not pool:
            continue
        for size, chars in SIZES.items():
            for form in FORMATS:
                for index in range(SAMPLES):
                    text = wrap(sample(pool, chars, rng, can_write(encoding)), form, language)
                    converted = subprocess.run(
                        ["iconv", "-f", "UTF-8", "-t", encoding],
                        input=text.encode(), capture_output=True)
                    if converted.returncode != 0:
                        continue
                    name = f"{language}-{encoding}-{size}-{index}.{form}".lower()
                    path = os.path.join(corpus, name)
                    with open(path, "wb") as handle:
                        handle.write(converted.stdout)
                    files.append((path, language, encoding, size, text))
    return files


def right(data, answer, text):
    codec = codec_of(answer)
    if codec is None:
        return False
    try:
        return data.decode(codec) == text
    except (UnicodeDecodeError, LookupError):
        return False


def run_undouble(binary, corpus, *options):
    start = time.perf_counter()
    out = subprocess.run([binary, "detect", "--json", "-j", "1", *options, corpus],
                         capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    answers = {}
    for line in out.stdout.splitlines():
        record = json.loads(line)
        if record.get("type") == "detect":
            answers[record["path"]] = record.get("encoding")
    return answers, elapsed


def run_uchardet(paths):
    start = time.perf_counter()
    out = subprocess.run(["uchardet", *paths], capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    answers = {}
    for line in out.stdout.splitlines():
        path, _, answer = line.rpartition(": ")
        answer = answer.strip()
        answers[path] = None if answer.lower() in ("", "unknown") else answer
    return answers, elapsed


def run_peers(paths, chardet_note=""):
    """uchardet, chardet and charset-normalizer over `paths`, by the names the reports use."""
    import chardet
    import charset_normalizer

    def normalizer(data):
        best = charset_normalizer.from_bytes(data).best()
        return best.encoding if best else None

    return {
        "uchardet": run_uchardet(paths),
        f"chardet {chardet.__version__}{chardet_note}": run_python(
            lambda d: chardet.detect(d)["encoding"], paths),
        f"charset-normalizer {charset_normalizer.__version__}": run_python(normalizer, paths),
    }


def run_python(detect, paths):
    start = time.perf_counter()
    answers = {}
    for path in paths:
        with open(path, "rb") as handle:
            answers[path] = detect(handle.read())
    return answers, time.perf_counter() - start


def main():
    binary, corpus, report = sys.argv[1:4]
    # Another build to compare with in the same run (e.g. the branch point), if given.
    baseline = os.environ.get("UNDOUBLE_BASELINE")
    files = build(corpus)
    paths = [f[0] for f in files]
    tools = {}
    if baseline:
        tools["undouble detect, before"] = run_undouble(baseline, corpus)
        tools["undouble detect --min-confidence 0, before"] = run_undouble(
            baseline, corpus, "--min-confidence", "0")
    tools |= {
        "undouble detect": run_undouble(binary, corpus),
        "undouble detect --min-confidence 0": run_undouble(binary, corpus, "--min-confidence", "0"),
        **run_peers(paths),
    }
    data = {}
    for path in paths:
        with open(path, "rb") as handle:
            data[path] = handle.read()

    names = list(tools)
    rows = {}
    totals = {name: [0, 0] for name in names}
    by_size = {(name, size): [0, 0] for name in names for size in SIZES}
    wrong = {name: {} for name in names}
    for path, language, encoding, size, text in files:
        key = encoding
        row = rows.setdefault(key, {"files": 0, "languages": set(), **{n: [0, 0] for n in names}})
        row["files"] += 1
        row["languages"].add(language)
        for name in names:
            answer = tools[name][0].get(path)
            ok = right(data[path], answer, text)
            row[name][0] += ok
            row[name][1] += answer is not None
            totals[name][0] += ok
            totals[name][1] += answer is not None
            by_size[(name, size)][0] += ok
            if not ok:
                label = f"{answer}" if answer else "(none)"
                wrong[name].setdefault(encoding, {}).setdefault(label, 0)
                wrong[name][encoding][label] += 1

    n = len(files)
    lines = [
        "# Charset detection accuracy",
        "",
        "Written by `benches/detect_accuracy.sh` (which calls `benches/detect_accuracy.py`):",
        f"{n} files built from the translations Debian installs (`.mo` catalogues), converted",
        "with iconv into each legacy encoding, short (about 120 characters) and long (about 4,000),",
        "as plain text, HTML and XML that declare nothing. An answer is right when it decodes the",
        "file to the text it holds; decisive when the tool names an encoding. Each tool reads",
        "every file once, in one run: `undouble detect --json -j 1 DIR` and `uchardet FILE...`",
        "as one process each, chardet and charset-normalizer in the Python process, so their",
        "files per second leave out the interpreter's start. `--min-confidence 0` takes every",
        "guess, however weak: what the default threshold costs in decisive answers and saves",
        "in wrong ones.",
        "",
        "| | right | decisive | right, short | right, long | files/s |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    # Some pairs of text and encoding give fewer files (text the encoding cannot write).
    per_size = {size: sum(1 for f in files if f[3] == size) for size in SIZES}
    for name in names:
        right_n, decisive = totals[name]
        elapsed = tools[name][1]
        short = by_size[(name, "short")][0]
        long_ = by_size[(name, "long")][0]
        lines.append(
            f"| {name} | {100 * right_n / n:.1f}% | {100 * decisive / n:.1f}% | "
            f"{100 * short / max(per_size['short'], 1):.1f}% | "
            f"{100 * long_ / max(per_size['long'], 1):.1f}% | {n / elapsed:,.0f} |")
    lines += ["", "Right answers per encoding (files; languages of the text):", "",
              "| encoding | files | " + " | ".join(names) + " |",
              "|---|---:|" + "---:|" * len(names)]
    for key, row in rows.items():
        cells = " | ".join(f"{100 * row[name][0] / row['files']:.0f}%" for name in names)
        languages = ", ".join(sorted(row["languages"]))
        lines.append(f"| {key} ({languages}) | {row['files']} | {cells} |")
    lines += ["", "What `undouble detect` answered where it was wrong (answer: files):", ""]
    for encoding, answers in wrong["undouble detect"].items():
        listed = ", ".join(f"{a}: {c}" for a, c in sorted(answers.items(), key=lambda x: -x[1]))
        lines.append(f"- {encoding}: {listed}")
    with open(report, "w") as handle:
        handle.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
