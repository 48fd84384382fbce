#!/usr/bin/env python3
"""Data and verdicts for .ci/mariadb-roundtrip.sh (stdlib only, deterministic).

Why: the round trip must prove, on a real server, that dump-aware `undouble fix` restores
every cell a latin1 connection garbled, changes no cell that was stored correctly, and leaves
every blob byte-identical. This script writes the SQL that creates the damage the way it
happens in production, remembers the true value of every cell, and judges what the repaired
dump loaded into a fresh database holds.

    mariadb_roundtrip.py generate OUTDIR CLEANTEXT_DIR_OR_FILE LOOKALIKES_FILE
        OUTDIR/schema.sql        the latin1 database
        OUTDIR/via-latin1.sql    rows sent through a connection declared latin1 (the mistake)
        OUTDIR/via-utf8mb4.sql   rows sent correctly, blobs, and the utf8mb4 control column
        OUTDIR/expected.json     the true value of every cell, and its class
    mariadb_roundtrip.py check OUTDIR/expected.json LOADED.tsv SCHEMA.tsv SCAN.json
        prints one line per cell class and `N passed, N failed`; exits 1 if any failed.

Cell classes (columns v VARCHAR, t TEXT, m MEDIUMTEXT of a latin1 table):
  double     real text sent through a latin1 connection once: double-encoded in the dump
  triple     the same mistake made twice: triple-encoded in the dump
  correct    text a latin1 column can hold, sent correctly: must not change
  lookalike  correct text that has the shape of double encoding (CAFÉ®, »Gruß«): must not change
  control    every row's text in a utf8mb4 column, sent correctly: must not change
  blob       BLOB and VARBINARY bytes that look double-encoded, or are not UTF-8: byte-identical
"""
import json
import random
import re
import sys
import unicodedata
from pathlib import Path

# MySQL's latin1 is windows-1252 with these five bytes kept as C1 controls.
CP1252_UNDEFINED = {0x81, 0x8D, 0x8F, 0x90, 0x9D}
# A character Â..ô followed by one that stands for a continuation byte: the shape of double
# encoding. Clean samples avoid it; look-alikes are made of it.
LOOKALIKE = re.compile(
    "[\u00c2-\u00f4][\u0080-\u00bf\u20ac\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030"
    "\u0160\u2039\u0152\u017d\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161"
    "\u203a\u0153\u017e\u0178]"
)
SCRIPTS = ["latin", "cyrillic", "greek", "cjk", "emoji"]
COLUMNS = ["v", "t", "m"]


def mysql_latin1(data: bytes) -> str:
    """Bytes read as MySQL's latin1."""
    return "".join(chr(b) if b in CP1252_UNDEFINED else bytes([b]).decode("cp1252") for b in data)


def garble(text: str) -> str:
    """What a latin1 connection makes of UTF-8 text, read back as UTF-8."""
    return mysql_latin1(text.encode("utf-8"))


def fits_latin1(text: str) -> bool:
    try:
        text.encode("cp1252")
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


def sql_string(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def generate(out: Path, source: Path, lookalikes_file: Path):
    rng = random.Random(20261130)
    by_script = {s: [] for s in SCRIPTS}
    ascii_lines = []
    for line in clean_lines(source):
        script = script_of(line)
        if script:
            by_script[script].append(line)
        elif line.isascii():
            ascii_lines.append(line)
    for script, lines in by_script.items():
        if len(lines) < 5:
            sys.exit(f"too few {script} lines in {source}")
    latin1_lines = [l for l in by_script["latin"] if fits_latin1(l)] + ascii_lines[:200]
    lookalikes = sorted({
        l.strip() for l in lookalikes_file.read_text(encoding="utf-8").splitlines()
        if LOOKALIKE.search(l) and fits_latin1(l.strip())
    })
    if len(lookalikes) < 20:
        sys.exit(f"too few look-alikes in {lookalikes_file}")

    # A cell holds a value as people write them, two entries of one script ("name — official
    # name"), not a lone dictionary headword: the rule leaves a lone ambiguous run (a single
    # CJK character, one accented capital in a word in capitals) alone whatever its column.
    def cell(lines):
        return f"{rng.choice(lines)} — {rng.choice(lines)}"

    rows = []  # (class, [v, t, m])
    for script in SCRIPTS:
        for _ in range(60):
            rows.append(("double", [cell(by_script[script]) for _ in COLUMNS]))
        for _ in range(20):
            rows.append(("triple", [cell(by_script[script]) for _ in COLUMNS]))
    for _ in range(100):
        rows.append(("correct", [cell(latin1_lines) for _ in COLUMNS]))
    for _ in range(100):
        rows.append(("lookalike", [rng.choice(lookalikes) for _ in COLUMNS]))
    rng.shuffle(rows)

    latin1_sql, utf8_sql, expected = ["SET NAMES latin1;"], ["SET NAMES utf8mb4;"], {}
    for index, (cls, texts) in enumerate(rows, start=1):
        # Bytes a blob may hold: UTF-8 of garbled text (which looks double-encoded), raw
        # bytes every escape of a dump is needed for, and bytes that are not UTF-8 at all.
        blob = garble(rng.choice(by_script[rng.choice(SCRIPTS)])).encode("utf-8")
        blob += bytes([0, 0x27, 0x5C, 0x22, 0x0A, 0x0D, 0x1A, 0xC3, 0x28, 0xFF])
        varbinary = garble(garble(rng.choice(by_script["latin"]))).encode("utf-8")[:200]
        control = rng.choice(by_script[SCRIPTS[index % len(SCRIPTS)]])
        if cls in ("double", "triple"):
            sent = texts if cls == "double" else [garble(t) for t in texts]
            latin1_sql.append(
                f"INSERT INTO notes (id, v, t, m) VALUES ({index}, "
                + ", ".join(sql_string(t) for t in sent) + ");"
            )
        else:
            utf8_sql.append(
                f"INSERT INTO notes (id, v, t, m) VALUES ({index}, "
                + ", ".join(sql_string(t) for t in texts) + ");"
            )
        utf8_sql.append(
            f"UPDATE notes SET b = X'{blob.hex()}', vb = X'{varbinary.hex()}', "
            f"ctl = {sql_string(control)} WHERE id = {index};"
        )
        expected[index] = {
            "class": cls,
            "v": texts[0], "t": texts[1], "m": texts[2],
            "b": blob.hex().upper(), "vb": varbinary.hex().upper(), "ctl": control,
        }
    (out / "schema.sql").write_text(
        "CREATE DATABASE src CHARACTER SET latin1;\n"
        "CREATE TABLE src.notes (\n"
        "  id INT NOT NULL PRIMARY KEY,\n"
        "  v VARCHAR(2000),\n"
        "  t TEXT,\n"
        "  m MEDIUMTEXT,\n"
        "  b BLOB,\n"
        "  vb VARBINARY(255),\n"
        "  ctl VARCHAR(500) CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci\n"
        ") ENGINE=InnoDB DEFAULT CHARSET=latin1;\n",
        encoding="utf-8",
    )
    (out / "via-latin1.sql").write_text("\n".join(latin1_sql) + "\n", encoding="utf-8")
    (out / "via-utf8mb4.sql").write_text("\n".join(utf8_sql) + "\n", encoding="utf-8")
    (out / "expected.json").write_text(json.dumps(expected, ensure_ascii=False), encoding="utf-8")
    print(f"{len(rows)} rows: " + ", ".join(
        f"{c} {sum(1 for r in rows if r[0] == c)}" for c in ("double", "triple", "correct", "lookalike")))


def check(expected_path: Path, loaded_path: Path, schema_path: Path, scan_path: Path) -> int:
    expected = json.loads(expected_path.read_text(encoding="utf-8"))
    loaded = {}
    for line in loaded_path.read_text(encoding="ascii").splitlines():
        fields = line.split("\t")
        loaded[fields[0]] = dict(zip(["v", "t", "m", "b", "vb", "ctl"], fields[1:]))
    results = {}  # class -> [passed, failed, first failure]

    def judge(cls, ok, what):
        entry = results.setdefault(cls, [0, 0, None])
        entry[0 if ok else 1] += 1
        if not ok:
            entry[2] = entry[2] or what
            print(f"FAILED {cls}: {what}", file=sys.stderr)

    def text_of(hexed):
        try:
            return bytes.fromhex(hexed).decode("utf-8")
        except (ValueError, UnicodeDecodeError):
            return f"<bytes {hexed[:40]}>"

    for index, cell in expected.items():
        got = loaded.get(index)
        for column in COLUMNS:
            value = text_of(got[column]) if got else "<missing row>"
            judge(cell["class"], value == cell[column], f"id {index} {column}: {value!r} != {cell[column]!r}")
        value = text_of(got["ctl"]) if got else "<missing row>"
        judge("control", value == cell["ctl"], f"id {index} ctl: {value!r}")
        for column in ("b", "vb"):
            value = got[column] if got else "<missing row>"
            judge("blob", value == cell[column], f"id {index} {column}: {value[:40]}")

    # The repaired table holds UTF-8: its text columns were converted, its blobs were not.
    charsets = dict(line.split("\t") for line in schema_path.read_text().splitlines())
    wanted = {"v": "utf8mb4", "t": "utf8mb4", "m": "utf8mb4", "ctl": "utf8mb4", "b": "NULL", "vb": "NULL"}
    for column, charset in wanted.items():
        judge("schema", charsets.get(column) == charset, f"{column}: {charsets.get(column)}")

    # `scan` names the damaged columns, and only those.
    report = json.loads(scan_path.read_text().splitlines()[0])["dump"]
    columns = {c["column"]: c for t in report["tables"] for c in t["columns"]}
    damaged = sum(1 for cell in expected.values() if cell["class"] in ("double", "triple"))
    for column in ("id", "v", "t", "m", "b", "vb", "ctl"):
        want = damaged if column in COLUMNS else 0
        got = columns.get(column, {}).get("double_encoded_cells")
        judge("scan report", got == want, f"{column}: {got} damaged cells reported, {want} expected")

    names = {
        "double": "double-encoded cells repaired",
        "triple": "triple-encoded cells repaired",
        "correct": "correct cells unchanged",
        "lookalike": "look-alike cells unchanged",
        "control": "utf8mb4 control cells unchanged",
        "blob": "blob cells byte-identical",
        "schema": "columns converted (text) or not (binary)",
        "scan report": "scan per-column counts",
    }
    passed = failed = 0
    for cls, label in names.items():
        ok, bad, first = results.get(cls, [0, 0, None])
        passed, failed = passed + ok, failed + bad
        print(f"{label}: {ok} passed, {bad} failed" + (f" (first: {first})" if first else ""))
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or not passed else 0


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "generate":
        generate(Path(sys.argv[2]), Path(sys.argv[3]), Path(sys.argv[4]))
    elif len(sys.argv) == 6 and sys.argv[1] == "check":
        sys.exit(check(*(Path(a) for a in sys.argv[2:])))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
