#!/usr/bin/env python3
"""Head-to-head accuracy of undouble and ftfy on a labelled set built from real text.

Why: the project's goal is to be more accurate than ftfy at undoing double-encoded UTF-8, and
ftfy's own test cases (tests/ftfy_suite.rs) are few and chosen by ftfy's authors. This builds a
larger labelled set from real, correctly encoded text of many languages, garbles it the way a
latin1 connection does, and scores both tools line by line against the known truth. ftfy
(https://github.com/rspeer/python-ftfy, by Robyn Speer) is only run here as a competitor,
through its public functions; none of its code or tables is copied.

Run by benches/accuracy.sh (which installs ftfy and builds undouble); stdlib + ftfy only:

    accuracy.py --undouble BIN [--report benches/ACCURACY.md] [--work DIR] [--per-class N]

The set (deterministic: fixed seed, sorted inputs), one case a line:
  clean           a real line with non-ASCII text: must come back unchanged
  clean-near      the same, from the lines that hold both a character Â..ô and one that
                  stands for a continuation byte (« café », Ça coûte 5 €), not side by side
  double-cp1252   its UTF-8 read as MySQL's latin1 (Windows-1252, the five undefined bytes
                  kept as C1 controls): must come back as the original
  double-latin1   read as ISO-8859-1; only lines where that differs from the cp1252 reading
  double-mixed    each byte read one way or the other at random; only lines where the result
                  differs from both pure readings
  triple          garbled twice, each layer by one of the three readings above
  partial         a CSV, TSV or SQL-values row of 3-5 values from different lines, some
                  garbled, at least one with non-ASCII text left correct
  lookalike       correct text with the byte shape of double encoding: the look-alikes of
                  corpus/clean-multilingual.txt (the file the database round trips use) and
                  the real lines of the clean-text corpus that have that shape
  lookalike-row   a row (as in `partial`) of correct values, one of them a look-alike
  lookalike+garbled  a row with a look-alike value and at least one garbled value
A garbled case counts only if its garbled form differs from the original. Hand-written notes
below the line `<!-- notes -->` of the report file are kept when it is rewritten.
"""
import argparse
import csv
import difflib
import io
import json
import random
import re
import subprocess
import sys
import time
import unicodedata
from collections import Counter, defaultdict
from pathlib import Path

import ftfy

ROOT = Path(__file__).resolve().parent.parent
SEED = 20261201

# ---------------------------------------------------------------------------------------------
# The byte maths, as benches/gen_data.py and .ci/mariadb_roundtrip.py do it.

CP1252_UNDEFINED = {0x81, 0x8D, 0x8F, 0x90, 0x9D}
LATIN1 = [chr(b) for b in range(256)]
MYSQL_CP1252 = [chr(b) if b in CP1252_UNDEFINED or b < 0x80 else bytes([b]).decode("cp1252")
                for b in range(256)]
# Bytes whose two readings differ.
DISTINCT = {b for b in range(256) if LATIN1[b] != MYSQL_CP1252[b]}


def garble(text: str, reading: str, rng=None) -> str:
    """UTF-8 bytes of `text` read as a single-byte code page: `latin1` (ISO-8859-1), `cp1252`
    (MySQL's latin1) or `mixed` (each byte one of the two at random, from `rng`)."""
    data = text.encode("utf-8")
    if reading == "latin1":
        return data.decode("latin-1")
    if reading == "cp1252":
        return "".join(MYSQL_CP1252[b] for b in data)
    return "".join((LATIN1 if rng.random() < 0.5 else MYSQL_CP1252)[b] for b in data)


# A character that stands for a continuation byte 0x80..0xBF under either reading.
CONTINUATION = {}
for _b in range(0x80, 0xC0):
    CONTINUATION.setdefault(LATIN1[_b], _b)
    CONTINUATION.setdefault(MYSQL_CP1252[_b], _b)


# A character Â..ô followed by one that stands for a continuation byte: where a shape may be.
SHAPE_START = re.compile("[\u00c2-\u00f4][" + "".join(sorted(CONTINUATION)) + "]")


def shapes(text: str):
    """Spans of `text` with the byte shape of a double-encoded character: a character
    U+00C2..U+00F4 followed by as many characters standing for continuation bytes as that
    lead byte needs, whose bytes are one well-formed UTF-8 character (as
    corpus/make_corpus.py's lookalike_sequences finds them)."""
    found, i = [], 0
    if not SHAPE_START.search(text):
        return found
    while i < len(text):
        lead = ord(text[i])
        need = 1 if 0xC2 <= lead <= 0xDF else 2 if 0xE0 <= lead <= 0xEF else \
            3 if 0xF0 <= lead <= 0xF4 else 0
        span = text[i + 1:i + 1 + need]
        if need and len(span) == need and all(c in CONTINUATION for c in span):
            try:
                bytes([lead] + [CONTINUATION[c] for c in span]).decode("utf-8")
                found.append(text[i:i + 1 + need])
                i += 1 + need
                continue
            except UnicodeDecodeError:
                pass
        i += 1
    return found


# ---------------------------------------------------------------------------------------------
# Sources

MAX_LINE = 300     # characters of a one-line case
MAX_FIELD = 80     # characters of a value in a row
KEEP_PER_FILE = 4000


# Characters correct text never holds in a field: controls but the tab (C1 controls are
# markers of garbling), private use, line and paragraph separators.
UNUSABLE = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029\ue000-\uf8ff"
                      "\U000f0000-\U0010ffff]")


def usable(line: str) -> bool:
    """Text a field can hold as it is, with some non-ASCII text."""
    return not line.isascii() and len(line) <= MAX_LINE and not UNUSABLE.search(line)


NEAR_LEAD = re.compile("[\u00c2-\u00f4]")
NEAR_CONTINUATION = re.compile("[" + "".join(sorted(CONTINUATION)) + "]")


def near_miss(line: str) -> bool:
    """Whether a line holds both a character Â..ô and one that stands for a continuation byte
    (but not the shape of double encoding: `shapes` found none): « café », Ça coûte 5 €."""
    return bool(NEAR_LEAD.search(line) and NEAR_CONTINUATION.search(line))


class Sources:
    """Lines of real text by source file (`pools`; `near`: those of them that are near misses),
    and the look-alikes (`lookalikes`: text,
    origin). Lines that hold the double-encoding shape never go into the pools: those led by
    Ã or Â are the real mojibake some packages ship (FranÃ§ois in fortunes-it, see README
    "Measured") and are dropped; the others are correct text that looks garbled, i.e.
    look-alikes found in the wild."""

    def __init__(self, rng, cleantext: Path):
        self.pools = {}
        self.near = {}
        self.lookalikes = []
        self.dropped = []
        self.read_lines = 0
        corpus = ROOT / "corpus" / "clean-multilingual.txt"
        self._add("corpus/clean-multilingual.txt", corpus, rng, synthetic=True)
        self.files = sorted(cleantext.glob("*.txt")) if cleantext.is_dir() else []
        for path in self.files:
            self._add(path.name, path, rng, synthetic=False)
        self.pools = {k: v for k, v in self.pools.items() if v}
        self.near = {k: v for k, v in self.near.items() if v}
        self.synthetic = sum(1 for _, origin in self.lookalikes if origin == "corpus")

    def _add(self, name, path, rng, synthetic):
        lines = []
        with open(path, encoding="utf-8", errors="strict") as f:
            for line in f:
                self.read_lines += 1
                line = line.rstrip("\n").rstrip("\r").strip(" ")
                if not usable(line):
                    continue
                found = shapes(line)
                if not found:
                    lines.append(line)
                elif any(s[0] in "ÃÂ" for s in found) and not synthetic:
                    self.dropped.append((name, line))
                else:
                    self.lookalikes.append((line, "corpus" if synthetic else name))
        lines = sorted(set(lines))
        near = [line for line in lines if near_miss(line)]
        for pools, chosen in ((self.pools, lines), (self.near, near)):
            if len(chosen) > KEEP_PER_FILE:
                chosen = rng.sample(chosen, KEEP_PER_FILE)
            rng.shuffle(chosen)
            pools[name] = chosen


class Drawer:
    """Draws the lines of `pools` that `accept` keeps, a random source first (so that every
    source weighs the same, whatever its size), then a line of it; without replacement, or,
    with `refill`, starting over once every line was drawn (for the values of rows, whose
    combinations differ). Each class draws from a drawer of its own: a line may serve in two
    classes, never twice in one (but for `refill`)."""

    def __init__(self, rng, pools, accept=lambda line: True, max_len=MAX_LINE, refill=False):
        self.rng = rng
        self.all = {k: [l for l in v if len(l) <= max_len and accept(l)] for k, v in pools.items()}
        self.all = {k: v for k, v in self.all.items() if v}
        self.refill = refill
        self.pools = {k: list(v) for k, v in self.all.items()}

    def draw(self):
        names = [k for k, v in self.pools.items() if v]
        if not names and self.refill and self.all:
            self.pools = {k: list(v) for k, v in self.all.items()}
            names = list(self.pools)
        if not names:
            return None
        name = self.rng.choice(names)
        return name, self.pools[name].pop()


# ---------------------------------------------------------------------------------------------
# Cases

def row_values(line):
    return line.replace("\t", " ")


READINGS = ["cp1252", "latin1", "mixed"]


def build_cases(rng, sources, per_class):
    cases = []

    def add(cls, text, expected, origin, detail="", **extra):
        cases.append(dict({"class": cls, "input": text, "expected": expected,
                           "origin": origin, "detail": detail}, **extra))

    # clean, and clean near misses
    for cls, pools in (("clean", sources.pools), ("clean-near", sources.near)):
        drawer = Drawer(rng, pools)
        for _ in range(per_class):
            got = drawer.draw()
            if not got:
                break
            add(cls, got[1], got[1], got[0])

    # double, one reading
    def distinct_latin1(line):
        return any(b in DISTINCT for b in line.encode("utf-8"))

    for reading in ("cp1252", "latin1"):
        drawer = Drawer(rng, sources.pools, distinct_latin1 if reading == "latin1" else
                        lambda line: True)
        for _ in range(per_class):
            got = drawer.draw()
            if not got:
                break
            add(f"double-{reading}", garble(got[1], reading), got[1], got[0], reading)

    # double, mixed: the readings differ on at least two bytes of the line
    drawer = Drawer(rng, sources.pools,
                    lambda line: sum(b in DISTINCT for b in line.encode("utf-8")) >= 2)
    for _ in range(per_class):
        got = drawer.draw()
        if not got:
            break
        for _ in range(20):
            text = garble(got[1], "mixed", rng)
            if text not in (garble(got[1], "cp1252"), garble(got[1], "latin1")):
                add("double-mixed", text, got[1], got[0], "mixed")
                break

    # triple
    drawer = Drawer(rng, sources.pools)
    for _ in range(per_class):
        got = drawer.draw()
        if not got:
            break
        layers = [rng.choice(READINGS), rng.choice(READINGS)]
        text = got[1]
        for reading in layers:
            text = garble(text, reading, rng)
        add("triple", text, got[1], got[0], "+".join(layers))

    # rows: partial, lookalike-row, lookalike+garbled; the values are drawn over again once
    # all were used, but no class has more rows than there are values to draw
    drawer = None

    def field():
        got = drawer.draw()
        return (got[0], row_values(got[1])) if got else None

    lookalikes = [row_values(t) for t, _ in sources.lookalikes if len(t) <= MAX_FIELD]

    def row_case(cls, with_lookalike, garbled_needed):
        n = rng.randrange(3, 6)
        values = [field() for _ in range(n)]
        if any(v is None for v in values):
            return False
        origins = [v[0] for v in values]
        values = [v[1] for v in values]
        kinds = ["correct"] * n
        if with_lookalike:
            i = rng.randrange(n)
            values[i] = rng.choice(lookalikes)
            kinds[i] = "lookalike"
        others = [i for i in range(n) if kinds[i] == "correct"]
        if garbled_needed:
            # Each other value garbled with probability 1/2, at least one garbled, and (for
            # `partial`) at least one left correct.
            while True:
                chosen = [i for i in others if rng.random() < 0.5]
                left = [i for i in others if i not in chosen]
                if chosen and (with_lookalike or left):
                    break
            garbled = list(values)
            for i in chosen:
                reading = rng.choice(READINGS)
                garbled[i] = garble(values[i], reading, rng)
                kinds[i] = reading
        else:
            garbled = values
        fmt = rng.choice(["csv", "tsv", "sql"])
        expected, text = make_row(fmt, values), make_row(fmt, garbled)
        add(cls, text, expected, ",".join(sorted(set(origins))), fmt + ":" + ",".join(kinds),
            fmt=fmt, values=garbled)
        return True

    for cls, rows, with_lookalike, garbled_needed in (
            ("partial", per_class, False, True),
            ("lookalike-row", per_class // 2 if lookalikes else 0, True, False),
            ("lookalike+garbled", per_class // 2 if lookalikes else 0, True, True)):
        drawer = Drawer(rng, sources.pools, max_len=MAX_FIELD, refill=True)
        for _ in range(min(rows, sum(map(len, drawer.all.values())))):
            if not row_case(cls, with_lookalike, garbled_needed):
                break

    # look-alikes on their own, every one of them
    for text, origin in sources.lookalikes:
        add("lookalike", text, text, origin, "synthetic" if origin == "corpus" else "natural")
    return cases


def make_row(fmt, values):
    """A row of values as one line: CSV (quoted as the csv module does), TSV or SQL values."""
    if fmt == "csv":
        buf = io.StringIO()
        csv.writer(buf, lineterminator="").writerow(values)
        return buf.getvalue()
    if fmt == "tsv":
        return "\t".join(values)
    quoted = ("'" + v.replace("\\", "\\\\").replace("'", "\\'") + "'" for v in values)
    return "(" + ",".join(quoted) + ")"


# ---------------------------------------------------------------------------------------------
# Running the tools

def run_undouble(binary, cases, work: Path, strictness=None):
    """One process over a file of every input line; its output split on line feeds only (a
    garbled line may hold U+0085, which Python's splitlines would also split on)."""
    src, out = work / "input.txt", work / f"undouble-{strictness or 'default'}.txt"
    src.write_bytes("".join(c["input"] + "\n" for c in cases).encode("utf-8"))
    option = ["--strictness", strictness] if strictness else []
    start = time.perf_counter()
    proc = subprocess.run([binary, "fix", "--format", "text", "-q", *option, str(src),
                           "-o", str(out)], capture_output=True)
    elapsed = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        sys.exit(f"accuracy.py: undouble fix exited {proc.returncode}: {proc.stderr.decode()}")
    lines = out.read_bytes().split(b"\n")
    if lines[-1] != b"" or len(lines) - 1 != len(cases):
        sys.exit(f"accuracy.py: undouble wrote {len(lines) - 1} lines for {len(cases)}")
    return [line.decode("utf-8", errors="surrogateescape") for line in lines[:-1]], elapsed


def run_ftfy(function, cases):
    start = time.perf_counter()
    outputs = [function(c["input"]) for c in cases]
    return outputs, time.perf_counter() - start


# ---------------------------------------------------------------------------------------------
# The report

TOOLS = ["undouble", "fix_encoding", "fix_text"]
TOOL_NAMES = {"undouble": "undouble", "fix_encoding": "ftfy.fix_encoding",
              "fix_text": "ftfy.fix_text"}
CLASSES = ["clean", "clean-near", "double-cp1252", "double-latin1", "double-mixed", "triple",
           "partial",
           "lookalike", "lookalike-row", "lookalike+garbled"]
STRICTNESS = ["pattern", "lenient", "balanced", "strict"]
UNCHANGED = {"clean", "clean-near", "lookalike", "lookalike-row"}


def visible(text: str) -> str:
    """Invisible and control characters written as ⟨U+XXXX⟩ so an example can be read."""
    out = []
    for c in text:
        cat = unicodedata.category(c)
        if c == "\t":
            out.append("⟨TAB⟩")
        elif cat in ("Cc", "Cf", "Zs", "Zl", "Zp", "Co", "Cs", "Cn") and c != " ":
            out.append(f"⟨U+{ord(c):04X}⟩")
        else:
            out.append(c)
    return "".join(out)


def window(text: str, start: int, width: int = 100) -> str:
    piece = text[start:start + width]
    return ("…" if start > 0 else "") + visible(piece) + ("…" if start + width < len(text) else "")


def code(text: str) -> str:
    fence = "``" if "`" in text else "`"
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def first_difference(a: str, b: str) -> int:
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i
    return min(len(a), len(b))


def corresponding(a: str, b: str, pos: int) -> int:
    """The offset in `b` of what stands at `pos` in `a` (b being a garbled a, say)."""
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if i1 <= pos < i2:
            return j1 + (pos - i1) if tag == "equal" else j1
    return len(b) if pos else 0


def example(case, outputs):
    """A case as a Markdown list item: input, expected and each tool's output, each cut to
    about 100 characters around the first place where some output differs from the truth."""
    exp = case["expected"]
    diffs = [first_difference(outputs[t], exp) for t in TOOLS if outputs[t] != exp]
    start = max(0, min(diffs) - 40) if diffs else 0
    in_start = corresponding(exp, case["input"], start)
    lines = [f"- *{case['origin']}*" + (f", {case['detail']}" if case["detail"] else "")]
    lines.append(f"  - input: {code(window(case['input'], in_start))}")
    lines.append(f"  - expected: {code(window(exp, start))}")
    for t in TOOLS:
        mark = "✓" if outputs[t] == exp else "✗" + (" (unchanged)" if outputs[t] == case["input"]
                                                     else "")
        shown = window(outputs[t], corresponding(exp, outputs[t], start))
        lines.append(f"  - {TOOL_NAMES[t]} {mark}: {code(shown)}")
    return "\n".join(lines)


def pct(n, d):
    return f"{100 * n / d:.1f}%" if d else "–"


def script_group(text: str) -> str:
    counts = Counter()
    for c in text:
        if ord(c) < 0x80 or not unicodedata.category(c).startswith("L"):
            continue
        name = unicodedata.name(c, "")
        word = name.split(" ")[0]
        if word in ("CJK", "HIRAGANA", "KATAKANA", "HANGUL", "HALFWIDTH", "FULLWIDTH"):
            word = "CJK"
        counts[word] += 1
    if not counts:
        return "no letters (symbols, emoji)"
    word = counts.most_common(1)[0][0]
    groups = {"LATIN": "Latin", "CYRILLIC": "Cyrillic", "GREEK": "Greek", "CJK": "CJK",
              "ARABIC": "Arabic/Hebrew", "HEBREW": "Arabic/Hebrew"}
    return groups.get(word, "other scripts")


def report(cases, outputs, times, meta, sources, examples_per_side):
    by_class = defaultdict(list)
    for i, c in enumerate(cases):
        by_class[c["class"]].append(i)

    def correct(t, i):
        return outputs[t][i] == cases[i]["expected"]

    out = []
    w = out.append
    w("# Accuracy: undouble against ftfy on real text")
    w("")
    w("Generated by `benches/accuracy.sh` (`benches/accuracy.py`); edit only the notes below the")
    w("line `<!-- notes -->`, which a rerun keeps. Each case is one line; a tool is right on it")
    w("when its output equals the expected line exactly.")
    w("")
    w(f"- undouble: `{meta['undouble']}` (default strictness `balanced`), one `undouble fix"
      f" --format text` process over all {len(cases):,} lines")
    w(f"- ftfy {meta['ftfy']} (Python {meta['python']}): `ftfy.fix_encoding(line)`, the"
      " function for exactly this job, and `ftfy.fix_text(line)` with its defaults (which also"
      " uncurls quotes, narrows full-width characters, NFC-normalises, ...), line by line")
    w(f"- text: {meta['sources']}: {sources.read_lines:,} lines read, {len(sources.pools)}"
      " sources with lines to use; each case draws a random source first, then a line of it,"
      f" so every source weighs the same; seed {SEED}")
    w(f"- look-alikes: {sources.synthetic} from `corpus/clean-multilingual.txt` (the file the"
      f" database round trips use) and {len(sources.lookalikes) - sources.synthetic} real"
      " lines of the clean-text corpus with the same byte shape; the rows reuse them")
    if sources.dropped:
        w(f"- dropped: {len(sources.dropped)} lines of the clean-text corpus that hold real"
          " mojibake shipped upstream (a shape led by `Ã` or `Â`: "
          + ", ".join(code(visible(l[:40])) for _, l in sources.dropped[:3]) + ", ...)")
    w("")
    w("How the set is made, and what follows from it:")
    w("")
    w("- Every line of the sources that holds the byte shape of a double-encoded character"
      " (a character Â..ô followed by the right number of characters standing for"
      " continuation bytes) is either real mojibake (dropped, above) or a natural look-alike"
      " (class `lookalike`); so `clean`, `clean-near` and the originals of the garbled"
      " classes hold no such shape, and a tool that only undoes that shape cannot damage"
      " them. What they measure on the ftfy side is its other decoders and normalisations.")
    w("- The synthetic look-alikes were written for undouble's own tests, and undouble's rule"
      " was tuned against them and against the clean-text corpus: on `lookalike` and the"
      " clean classes undouble is not measured on held-out data. The"
      f" {len(sources.lookalikes) - sources.synthetic} natural look-alikes and the garbled"
      " classes were not used to tune it.")
    w("- `lookalike-row` and `lookalike+garbled` put those few look-alikes in rows (CSV, TSV,"
      " SQL values) beside other values: they test the evidence a value borrows from its"
      " neighbours, not new look-alikes. A row where a look-alike stays correct beside a"
      " garbled value is a stress test: real damage usually hits a whole row.")
    w("")
    w("## Exact matches")
    w("")
    w("| class | N | undouble | ftfy.fix_encoding | ftfy.fix_text"
      " | fix_text, same as on the truth¹"
      " | changed (false positives): undouble / fix_encoding / fix_text |")
    w("|---|---:|---:|---:|---:|---:|---|")
    for cls in CLASSES:
        idx = by_class.get(cls, [])
        if not idx:
            continue
        n = len(idx)
        cells = [f"{sum(correct(t, i) for i in idx):,} ({pct(sum(correct(t, i) for i in idx), n)})"
                 for t in TOOLS]
        lenient = pct(sum(outputs["fix_text"][i] == outputs["fix_text_truth"][i] for i in idx), n)
        changed = ""
        if cls in UNCHANGED:
            lenient = "–"
            changed = " / ".join(f"{sum(outputs[t][i] != cases[i]['input'] for i in idx):,}"
                                 for t in TOOLS)
        w(f"| {cls} | {n:,} | " + " | ".join(cells) + f" | {lenient} | {changed} |")
    w("")
    w("¹ `fix_text(input) == fix_text(expected)`: whether fix_text reached what it makes of the")
    w("correct line, i.e. its score without the normalisations that are not about encoding")
    w("(not given where the input is the expected line). At N = 4,000 a rate near 99% is known")
    w("to about ±0.3 points and one near 85% to about ±1.1 (95% intervals); at N = 161, 0 errors")
    w("still allow a true rate up to 1.9%.")
    w("")
    for detail in ("synthetic", "natural"):
        idx = [i for i in by_class.get("lookalike", []) if cases[i]["detail"] == detail]
        if idx:
            w(f"- lookalike, {detail} ({len(idx)}): left unchanged by "
              + ", ".join(f"{TOOL_NAMES[t]} {sum(outputs[t][i] == cases[i]['input'] for i in idx)}"
                          for t in TOOLS))
    w("")

    w("## undouble's strictness levels")
    w("")
    w("The same set through `undouble fix --strictness LEVEL` (exact matches; `balanced` is the"
      " default, the column `undouble` above). `pattern` repairs every match of the byte"
      " pattern: what the rule's judgement adds or costs.")
    w("")
    w("| class | N | " + " | ".join(STRICTNESS) + " |")
    w("|---|---:|" + "---:|" * len(STRICTNESS))
    for cls in CLASSES:
        idx = by_class.get(cls, [])
        if idx:
            w(f"| {cls} | {len(idx):,} | " + " | ".join(
                pct(sum(correct(t, i) for i in idx), len(idx)) for t in STRICTNESS) + " |")
    w("")

    # Breakdown of the garbled one-line classes by script and by shape.
    one_line = ["double-cp1252", "double-latin1", "double-mixed", "triple"]
    if any(by_class.get(cls) for cls in one_line):
        w("## Garbled lines by script and length")
        w("")
        w("Exact matches of undouble / ftfy.fix_encoding in each one-line garbled class, by the"
          " script most of the line's letters belong to, and by whether the line is a single"
          " word (N in parentheses).")
        w("")
        w("| group | " + " | ".join(one_line) + " |")
        w("|---|" + "---:|" * len(one_line))
        groups = defaultdict(lambda: defaultdict(list))
        for cls in one_line:
            for i in by_class.get(cls, []):
                exp = cases[i]["expected"]
                groups[script_group(exp)][cls].append(i)
                groups["single word (no space)" if " " not in exp.strip() else
                       "several words"][cls].append(i)
        order = ["Latin", "Cyrillic", "Greek", "CJK", "Arabic/Hebrew", "other scripts",
                 "no letters (symbols, emoji)", "single word (no space)", "several words"]
        for g in order:
            if g not in groups:
                continue
            cells = []
            for cls in one_line:
                idx = groups[g][cls]
                cells.append(" / ".join(pct(sum(correct(t, i) for i in idx), len(idx))
                                        for t in ("undouble", "fix_encoding"))
                             + f" ({len(idx):,})" if idx else "–")
            w(f"| {g} | " + " | ".join(cells) + " |")
        w("")

    # Row formats for the row classes.
    rows = [i for i, c in enumerate(cases) if c["class"] in ("partial", "lookalike+garbled",
                                                               "lookalike-row")]
    if rows:
        w("## Rows by format")
        w("")
        w("undouble's evidence stays within a *field*: between tabs, ASCII quotes (not an"
          " apostrophe inside a word) and CSV separators (a comma or semicolon glued to what"
          " follows, not between two digits).")
        w("")
        w("| class | format | N | undouble | ftfy.fix_encoding | ftfy.fix_text |"
          " ftfy.fix_encoding on each value² |")
        w("|---|---|---:|---:|---:|---:|---:|")
        for cls in ("partial", "lookalike-row", "lookalike+garbled"):
            for fmt in ("csv", "tsv", "sql"):
                idx = [i for i in by_class.get(cls, []) if cases[i]["detail"].startswith(fmt)]
                if idx:
                    w(f"| {cls} | {fmt} | {len(idx):,} | " + " | ".join(
                        pct(sum(correct(t, i) for i in idx), len(idx))
                        for t in TOOLS + ["fix_encoding_values"]) + " |")
        w("")
        w("² The row split into its values (as a program that parses the CSV or the dump"
          " would), `fix_encoding` on each, the row put together again: not what the other"
          " columns measure (one line, as it is), but what ftfy gives when used that way.")
        w("")

    w("## Time (informative only)")
    w("")
    w(f"On {len(cases):,} lines ({meta['bytes']:,} bytes): undouble {times['undouble']:.3f} s"
      f" (one process, start-up included); ftfy.fix_encoding {times['fix_encoding']:.3f} s;"
      f" ftfy.fix_text {times['fix_text']:.3f} s (in one Python process, import excluded).")
    w("")

    w("## Disagreements")
    w("")
    w("Per class, the first cases (in the set's random order) where one of undouble and"
      " ftfy.fix_encoding is right and the other wrong, then a few where both are wrong. Each"
      " text is cut to about 100 characters around the first difference; invisible characters"
      " are written ⟨U+XXXX⟩.")
    for cls in CLASSES:
        idx = by_class.get(cls, [])
        if not idx:
            continue
        ftfy_only = [i for i in idx if correct("fix_encoding", i) and not correct("undouble", i)]
        ours_only = [i for i in idx if correct("undouble", i) and not correct("fix_encoding", i)]
        both = [i for i in idx if not correct("fix_encoding", i) and not correct("undouble", i)]
        w("")
        w(f"### {cls}")
        w("")
        w(f"ftfy.fix_encoding right, undouble wrong: {len(ftfy_only):,}; undouble right,"
          f" ftfy.fix_encoding wrong: {len(ours_only):,}; both wrong: {len(both):,}.")
        for title, chosen, k in (("ftfy.fix_encoding right, undouble wrong", ftfy_only,
                                  examples_per_side),
                                 ("undouble right, ftfy.fix_encoding wrong", ours_only,
                                  examples_per_side),
                                 ("both wrong", both, max(1, examples_per_side // 2))):
            if not chosen:
                continue
            w("")
            w(f"{title}:")
            w("")
            for i in chosen[:k]:
                w(example(cases[i], {t: outputs[t][i] for t in TOOLS}))
    w("")
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--undouble", required=True, help="path of the undouble binary")
    ap.add_argument("--report", default=str(ROOT / "benches" / "ACCURACY.md"))
    ap.add_argument("--work", default=str(ROOT / "benches" / "data" / "accuracy"))
    ap.add_argument("--cleantext", default=str(ROOT / "benches" / "data" / "cleantext"))
    ap.add_argument("--per-class", type=int, default=4000)
    ap.add_argument("--examples", type=int, default=4, help="examples per side and class")
    args = ap.parse_args()

    rng = random.Random(SEED)
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    sources = Sources(rng, Path(args.cleantext))
    cases = build_cases(rng, sources, args.per_class)
    rng.shuffle(cases)
    for c in cases:
        assert "\n" not in c["input"] and "\n" not in c["expected"]
        if c["class"] not in UNCHANGED:
            assert c["input"] != c["expected"], c

    outputs = {}
    times = {}
    outputs["undouble"], times["undouble"] = run_undouble(args.undouble, cases, work)
    for level in STRICTNESS:
        outputs[level], _ = run_undouble(args.undouble, cases, work, level)
    outputs["fix_encoding"], times["fix_encoding"] = run_ftfy(ftfy.fix_encoding, cases)
    outputs["fix_text"], times["fix_text"] = run_ftfy(ftfy.fix_text, cases)
    outputs["fix_text_truth"] = [ftfy.fix_text(c["expected"]) for c in cases]
    # What a user who parses the rows first gets: fix_encoding on each value of a row.
    outputs["fix_encoding_values"] = [
        make_row(c["fmt"], [ftfy.fix_encoding(v) for v in c["values"]]) if "values" in c
        else outputs["fix_encoding"][i] for i, c in enumerate(cases)]

    with open(work / "cases.jsonl", "w", encoding="utf-8") as f:
        for i, c in enumerate(cases):
            record = dict(c, **{t: outputs[t][i] for t in TOOLS + ["fix_encoding_values"]})
            f.write(json.dumps(record, ensure_ascii=False) + "\n")

    version = subprocess.run([args.undouble, "--version"], capture_output=True, text=True)
    git = subprocess.run(["git", "-C", str(ROOT), "describe", "--always", "--dirty"],
                         capture_output=True, text=True)
    meta = {
        "undouble": version.stdout.strip() + (f", {git.stdout.strip()}" if git.stdout else ""),
        "ftfy": ftfy.__version__,
        "python": sys.version.split()[0],
        "sources": "`corpus/clean-multilingual.txt`" + (
            f" and {len(sources.files)} files of `benches/data/cleantext/`" if sources.files
            else "; `benches/data/cleantext/` not built (benches/cleantext/build.sh), so the set"
                 " is small"),
        "bytes": len("".join(c["input"] + "\n" for c in cases).encode("utf-8")),
    }
    text = report(cases, outputs, times, meta, sources, args.examples)
    report_path = Path(args.report)
    old = report_path.read_text(encoding="utf-8") if report_path.exists() else ""
    marker = "\n<!-- notes -->\n"  # on a line of its own
    if marker in old:
        text += old[old.index(marker):].rstrip("\n") + "\n"
    report_path.write_text(text, encoding="utf-8")
    print(text)
    print(f"\nreport written to {args.report}; every case with every output in"
          f" {work / 'cases.jsonl'}", file=sys.stderr)


if __name__ == "__main__":
    main()
