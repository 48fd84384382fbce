#!/usr/bin/env python3
"""Charset detection on real legacy documents found on this machine, none made for the
benchmark and none the tables were trained on (they learn from `.mo` catalogues only):

- chardet's own test corpus (web pages, feeds and texts in 50-odd encodings, the directory
  naming each file's encoding), where a Debian or PyPI package ships it: the Google Cloud SDK
  package carries it in gsutil's third_party tree. chardet is tuned on these files, so its
  score here is an upper bound, not a fair peer;
- vim's tutors, menus and keymaps whose file names give their encoding
  (`tutor.ru.cp1251`, `menu_sl_si.latin2.vim`, `greek_iso-8859-7.vim`).

Each file is read as it is, declarations and all, as a user would meet it. An answer is right
when it decodes the file to the text its known encoding gives (a byte order mark aside).

    detect_real.py BINARY WORK_DIR REPORT.md
"""

import glob
import os
import re
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import detect_accuracy  # noqa: E402  (the tools' runners and the names of encodings)

CHARDET_TESTS = [
    "/usr/lib/google-cloud-sdk/platform/gsutil/third_party/chardet/tests",
    "/usr/share/google-cloud-sdk/platform/gsutil/third_party/chardet/tests",
]

# vim's names for encodings, as they appear in its file names.
VIM_ENCODINGS = {
    "cp1250": "windows-1250", "1250": "windows-1250", "cp1251": "windows-1251",
    "cp1253": "windows-1253", "cp1255": "windows-1255", "cp737": "cp737",
    "latin1": "iso-8859-1", "latin2": "iso-8859-2", "iso-8859-2": "iso-8859-2",
    "iso-8859-5": "iso-8859-5", "iso-8859-7": "iso-8859-7", "iso-8859-8": "iso-8859-8",
    "koi8-u": "koi8-u", "koi8-r": "koi8-r", "iso9": "iso-8859-9", "euc": None, "sjis": "shift_jis",
    "big5": "big5",
}


def chardet_corpus():
    """[(path, expected encoding, source)] from chardet's test tree, if installed."""
    found = []
    for root in CHARDET_TESTS:
        if not os.path.isdir(root):
            continue
        for directory in sorted(glob.glob(os.path.join(root, "*"))):
            if not os.path.isdir(directory):
                continue
            name = os.path.basename(directory)
            # `windows-1250-polish` names an encoding and a language.
            encoding = re.sub(r"-(?:[a-z]+)$", "", name) if re.search(r"\d-[a-z]+$", name) \
                else name
            for path in sorted(glob.glob(os.path.join(directory, "*"))):
                if os.path.isfile(path):
                    found.append((path, encoding, "chardet tests"))
        break
    return found


def vim_corpus():
    """[(path, expected encoding, source)] for vim files whose names give the encoding."""
    found = []
    for path in sorted(glob.glob("/usr/share/vim/vim*/tutor/tutor.*")
                       + glob.glob("/usr/share/vim/vim*/lang/menu_*.vim")
                       + glob.glob("/usr/share/vim/vim*/keymap/*.vim")):
        base = os.path.basename(path)
        stem = base[:-4] if base.endswith(".vim") else base
        for tag, encoding in VIM_ENCODINGS.items():
            if stem.endswith(("." + tag, "_" + tag)) and encoding:
                found.append((path, encoding, "vim"))
                break
    return found


def strip_bom(text):
    return text[1:] if text.startswith("\ufeff") else text


def truth(data, encoding):
    codec = detect_accuracy.codec_of(encoding)
    if codec is None:
        return None
    try:
        return strip_bom(data.decode(codec))
    except (UnicodeDecodeError, LookupError):
        return None


def right(data, answer, text):
    codec = detect_accuracy.codec_of(answer)
    if codec is None:
        return False
    try:
        return strip_bom(data.decode(codec)) == text
    except (UnicodeDecodeError, LookupError):
        return False


def main():
    binary, work, report = sys.argv[1:4]
    baseline = os.environ.get("UNDOUBLE_BASELINE")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    files = []
    skipped = 0
    for index, (path, encoding, source) in enumerate(chardet_corpus() + vim_corpus()):
        with open(path, "rb") as handle:
            data = handle.read()
        text = truth(data, encoding)
        if text is None:
            skipped += 1  # an encoding Python cannot decode (EUC-TW), or a mislabelled file
            continue
        copy = os.path.join(work, f"{index:04d}-{os.path.basename(path)}")
        shutil.copyfile(path, copy)
        files.append((copy, encoding, source, data, text))
    if not files:
        print("detect_real.py: no real legacy documents found on this machine; skipped")
        return
    paths = [f[0] for f in files]
    tools = {}
    if baseline:
        tools["undouble detect, before"] = detect_accuracy.run_undouble(baseline, work)
    tools |= {
        "undouble detect": detect_accuracy.run_undouble(binary, work),
        "undouble detect --min-confidence 0": detect_accuracy.run_undouble(
            binary, work, "--min-confidence", "0"),
        **detect_accuracy.run_peers(paths, " (tuned on the chardet tests)"),
    }
    names = list(tools)
    sources = sorted({f[2] for f in files})
    lines = [
        "# Charset detection on real documents",
        "",
        "Written by `benches/detect_accuracy.sh` (which calls `benches/detect_real.py`):",
        f"{len(files)} legacy and Unicode documents found on this machine, none made for the",
        "benchmark and none the byte tables learnt from: chardet's test corpus (web pages, feeds",
        "and texts; the Google Cloud SDK package ships it) and vim's tutors, menus and keymaps",
        "whose file names give their encoding. Read as they are, declarations and all. chardet",
        "is tuned on its own test files, so its row is an upper bound rather than a peer."
        + (f" {skipped} files in encodings Python cannot decode were left out." if skipped
           else ""),
        "",
        "| | right | decisive | " + " | ".join(f"right, {s}" for s in sources)
        + " | files/s |",
        "|---|---:|---:|" + "---:|" * len(sources) + "---:|",
    ]
    per_encoding = {}
    wrong = {}
    for name in names:
        answers, elapsed = tools[name]
        right_n = decisive = 0
        by_source = {s: [0, 0] for s in sources}
        for path, encoding, source, data, text in files:
            answer = answers.get(path)
            ok = right(data, answer, text)
            right_n += ok
            decisive += answer is not None
            by_source[source][0] += ok
            by_source[source][1] += 1
            cell = per_encoding.setdefault(encoding, {}).setdefault(name, [0, 0])
            cell[0] += ok
            cell[1] += 1
            if not ok and name == "undouble detect":
                label = answer or "(none)"
                wrong.setdefault(encoding, {}).setdefault(label, 0)
                wrong[encoding][label] += 1
        n = len(files)
        shares = " | ".join(f"{100 * r / max(t, 1):.1f}%" for r, t in by_source.values())
        lines.append(f"| {name} | {100 * right_n / n:.1f}% | {100 * decisive / n:.1f}% | "
                     f"{shares} | {n / elapsed:,.0f} |")
    lines += ["", "Right answers per encoding (files):", "",
              "| encoding | files | " + " | ".join(names) + " |",
              "|---|---:|" + "---:|" * len(names)]
    for encoding in sorted(per_encoding, key=str.lower):
        cells = per_encoding[encoding]
        total = next(iter(cells.values()))[1]
        lines.append(f"| {encoding} | {total} | "
                     + " | ".join(f"{100 * cells[n][0] / total:.0f}%" for n in names) + " |")
    lines += ["", "What `undouble detect` answered where it was wrong (answer: files):", ""]
    for encoding, answers in sorted(wrong.items(), key=lambda item: item[0].lower()):
        listed = ", ".join(f"{a}: {c}" for a, c in sorted(answers.items(), key=lambda x: -x[1]))
        lines.append(f"- {encoding}: {listed}")
    with open(report, "w") as handle:
        handle.write("\n".join(lines) + "\n")
    print(open(report).read())


if __name__ == "__main__":
    main()
