"""What the database round trips share (stdlib only, deterministic).

Why: .ci/mariadb_roundtrip.py and .ci/postgres_roundtrip.py prove the same thing on two real
servers: that dump-aware `undouble fix` repairs every cell a wrong client encoding garbled and
changes nothing else. They must draw their text the same way (real multilingual lines from
the clean-text corpus, the same cell classes, the same look-alikes) and judge it the same way,
so that the two verdicts can be compared; only the SQL and the way each server does the damage
differ, and those stay in each script.
"""
import json
import random
import re
import sys
import unicodedata
from pathlib import Path

# A character Â..ô followed by one that stands for a continuation byte: the shape of double
# encoding. Clean samples avoid it; look-alikes are made of it.
LOOKALIKE = re.compile(
    "[\u00c2-\u00f4][\u0080-\u00bf\u20ac\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030"
    "\u0160\u2039\u0152\u017d\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161"
    "\u203a\u0153\u017e\u0178]"
)
SCRIPTS = ["latin", "cyrillic", "greek", "cjk", "emoji"]
# The values of the status column `st`, which a CHECK constraint created through the wrong
# connection allows: its literals are as garbled as the values sent that way, so the repaired
# dump loads only if `fix` repairs the literals with the values. The rows sent through the
# wrong connection hold one of STATUSES; those sent correctly hold CORRECT_STATUS, the one
# value a correct row can hold that a garbled literal still matches (it is ASCII).
STATUSES = ["payé", "annulé", "reçu", "оплачен", "取消済み"]
CORRECT_STATUS = "open"


def statuses(rows, seed: int):
    """The true status of each row of `plan_rows`, in order (see STATUSES)."""
    rng = random.Random(seed)
    return [rng.choice(STATUSES) if cls in ("double", "triple") else CORRECT_STATUS
            for cls, _ in rows]


def fits(text: str, codec: str) -> bool:
    """Whether a column in the single-byte character set `codec` can hold `text`."""
    try:
        text.encode(codec)
        return True
    except UnicodeEncodeError:
        return False


def is_emoji(c: str) -> bool:
    return ord(c) >= 0x1F000 or 0x2600 <= ord(c) <= 0x27BF


def script_of(text: str):
    """The script a line is a sample of, or None: its non-ASCII letters must all be of one of
    the scripts the round trip covers (Latin with diacritics, Cyrillic, Greek, CJK), or it
    must be emoji and ASCII. Punctuation and symbols (« — € no-break space) may go with any."""
    extra = [c for c in text if ord(c) > 0x7F]
    letters = [
        c for c in extra
        if unicodedata.category(c)[0] in "LM" and c != "\ufe0f" and not is_emoji(c)
    ]
    if any(is_emoji(c) for c in extra):
        return "emoji" if not letters else None
    if not letters:
        return None

    def named(*prefixes):
        return all(unicodedata.name(c, "").startswith(prefixes) for c in letters)

    if all(0xC0 <= ord(c) <= 0x24F or 0x1E00 <= ord(c) <= 0x1EFF or 0x300 <= ord(c) <= 0x36F
           for c in letters):
        return "latin"
    if named("CYRILLIC"):
        return "cyrillic"
    if named("GREEK"):
        return "greek"
    if named("CJK", "HIRAGANA", "KATAKANA", "HANGUL"):
        return "cjk"
    return None


def usable(line: str) -> bool:
    return (
        0 < len(line) <= 80
        and not LOOKALIKE.search(line)
        and all(
            unicodedata.category(c) not in ("Cc", "Cf", "Co", "Cs", "Cn") or c == "\u200d"
            for c in line
        )
    )


def clean_lines(source: Path):
    """Lines of the clean-text corpus: the head of every file of a directory, or a file."""
    files = sorted(source.glob("*.txt")) if source.is_dir() else [source]
    for path in files:
        with open(path, "rb") as f:
            head = f.read(256 * 1024).decode("utf-8", errors="ignore")
        for line in head.splitlines()[:-1]:
            line = line.strip()
            if usable(line):
                yield line


class Sources:
    """The text cells are drawn from, for a database whose damaged columns use the
    single-byte character set `codec`:
      by_script   clean lines of each script (SCRIPTS)
      plain       lines such a column holds when they are sent correctly (Latin, ASCII)
      lookalikes  correct lines it holds that have the shape of double encoding (CAFÉ®)"""

    def __init__(self, source: Path, lookalikes_file: Path, codec: str):
        self.codec = codec
        self.by_script = {s: [] for s in SCRIPTS}
        ascii_lines = []
        for line in clean_lines(source):
            script = script_of(line)
            if script:
                self.by_script[script].append(line)
            elif line.isascii():
                ascii_lines.append(line)
        for script, lines in self.by_script.items():
            if len(lines) < 5:
                sys.exit(f"too few {script} lines in {source}")
        self.plain = [l for l in self.by_script["latin"] if fits(l, codec)] + ascii_lines[:200]
        self.lookalikes = sorted({
            l.strip() for l in lookalikes_file.read_text(encoding="utf-8").splitlines()
            if LOOKALIKE.search(l) and fits(l.strip(), codec)
        })
        if len(self.lookalikes) < 20:
            sys.exit(f"too few look-alikes in {lookalikes_file}")


def plan_rows(rng, sources: Sources, columns: int, joiners, breaks=()):
    """The rows of the round trip, shuffled, as (class, [text of each column]):
      double     real text the wrong connection garbles once: double-encoded in the dump
      triple     the same mistake made twice: triple-encoded in the dump
      correct    text the column can hold, sent correctly: must not change
      lookalike  correct text that has the shape of double encoding: must not change
    A cell holds a value as people write them, two entries of one script joined by one of
    `joiners` ("name — official name"), not a lone dictionary headword: the rule leaves a lone
    ambiguous run (a single CJK character, one accented capital in a word in capitals) alone
    whatever its column. With `breaks`, one cell in four goes on after one of them (a tab, a
    line break) with two more entries: the rule's field ends there, so each line of a value is
    two entries too. Every joiner and break must fit the column's character set."""

    def entries(lines):
        first = rng.choice(lines)
        joiner = rng.choice(joiners) if len(joiners) > 1 else joiners[0]
        return f"{first}{joiner}{rng.choice(lines)}"

    def cell(lines):
        text = entries(lines)
        if breaks and rng.random() < 0.25:
            text += rng.choice(breaks) + entries(lines)
        return text

    rows = []
    for script in SCRIPTS:
        for _ in range(60):
            rows.append(("double", [cell(sources.by_script[script]) for _ in range(columns)]))
        for _ in range(20):
            rows.append(("triple", [cell(sources.by_script[script]) for _ in range(columns)]))
    for _ in range(100):
        rows.append(("correct", [cell(sources.plain) for _ in range(columns)]))
    for _ in range(100):
        rows.append(("lookalike", [rng.choice(sources.lookalikes) for _ in range(columns)]))
    rng.shuffle(rows)
    return rows


def describe(rows) -> str:
    return f"{len(rows)} rows: " + ", ".join(
        f"{c} {sum(1 for r in rows if r[0] == c)}" for c in ("double", "triple", "correct", "lookalike"))


def string_literals(sql: str):
    """The string literals of an expression as a server gives it back, in order (quotes
    undoubled): what a check's definition allows, however the server rewrote the rest."""
    return [m.replace("''", "'") for m in re.findall(r"'((?:[^']|'')*)'", sql)]


def read_hex_rows(path: Path, columns):
    """A tab-separated query result whose first field is the row id and whose others are the
    hexadecimal bytes of `columns`, by id."""
    loaded = {}
    for line in path.read_text(encoding="ascii").splitlines():
        fields = line.split("\t")
        loaded[fields[0]] = dict(zip(columns, fields[1:]))
    return loaded


def text_of(hexed: str) -> str:
    """The UTF-8 text of hexadecimal bytes, or a description of bytes that are not UTF-8."""
    try:
        return bytes.fromhex(hexed).decode("utf-8")
    except (ValueError, UnicodeDecodeError):
        return f"<bytes {hexed[:40]}>"


class Verdict:
    """Checks counted by class; every failure is printed to standard error as it is found."""

    def __init__(self):
        self.results = {}  # class -> [passed, failed, first failure]

    def judge(self, cls: str, ok: bool, what: str):
        entry = self.results.setdefault(cls, [0, 0, None])
        entry[0 if ok else 1] += 1
        if not ok:
            entry[2] = entry[2] or what
            print(f"FAILED {cls}: {what}", file=sys.stderr)

    def judge_cells(self, expected, loaded, text_columns, binary_columns):
        """Every cell loaded (`read_hex_rows`) against its true value: the text columns by the
        row's class, the control column `ctl` as "control", the status column `st` (the one its
        CHECK constraint allows, STATUSES) as "check", the binary ones as "blob"."""
        for index, cell in expected.items():
            got = loaded.get(index)
            for column in text_columns:
                value = text_of(got[column]) if got else "<missing row>"
                self.judge(cell["class"], value == cell[column],
                           f"id {index} {column}: {value!r} != {cell[column]!r}")
            value = text_of(got["ctl"]) if got else "<missing row>"
            self.judge("control", value == cell["ctl"], f"id {index} ctl: {value!r}")
            value = text_of(got["st"]) if got else "<missing row>"
            self.judge("check", value == cell["st"],
                       f"id {index} st: {value!r} != {cell['st']!r}")
            for column in binary_columns:
                value = got[column] if got else "<missing row>"
                self.judge("blob", value == cell[column], f"id {index} {column}: {value[:40]}")

    def judge_load(self, errors_path: Path):
        """The repaired dump loaded without an error (the client's standard error, kept going
        past errors so that the cells can be judged too): a check whose literal stayed garbled
        refuses the repaired rows."""
        errors = [line for line in errors_path.read_text(errors="replace").splitlines()
                  if "ERROR" in line]
        self.judge("load", not errors, errors[0] if errors else "")

    def judge_scan_report(self, scan_path: Path, wanted):
        """`scan --json` names the damaged columns, and only those: `wanted` maps every column
        to the number of its cells that hold double-encoded text, over every table (an empty
        child table has the columns of its parent, and none of their damage)."""
        report = json.loads(scan_path.read_text().splitlines()[0])["dump"]
        columns = {}
        for table in report["tables"]:
            for column in table["columns"]:
                count = column.get("double_encoded_cells")
                if count is not None:
                    columns[column["column"]] = columns.get(column["column"], 0) + count
        for column, want in wanted.items():
            got = columns.get(column)
            self.judge("scan report", got == want,
                       f"{column}: {got} damaged cells reported, {want} expected")

    def report(self, labels, tag: str = ""):
        """Prints one line per class of `labels` (class -> label, `tag` after it); returns
        how many checks passed and failed."""
        passed = failed = 0
        for cls, label in labels.items():
            ok, bad, first = self.results.get(cls, [0, 0, None])
            passed, failed = passed + ok, failed + bad
            print(f"{label}{tag}: {ok} passed, {bad} failed" + (f" (first: {first})" if first else ""))
        return passed, failed


def conclude(reports) -> int:
    """Prints `N passed, N failed` over the (passed, failed) of every report, last; returns
    the exit status: 1 if a check failed or none ran."""
    passed = sum(p for p, _ in reports)
    failed = sum(f for _, f in reports)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or not passed else 0
