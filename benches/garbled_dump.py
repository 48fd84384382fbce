#!/usr/bin/env python3
"""The rows of benches/garbled_dump.sh, as two files for LOAD DATA (stdlib only, deterministic).

Why: the dump whose values are mostly garbled is made by a real MariaDB from real text, so
that its bytes are what a server really stores and mariadb-dump really writes. This script
only picks the text; the server does the garbling: garbled.tsv is loaded through a connection
declared latin1 (the UTF-8 bytes are taken for latin1 characters, as a misconfigured
application does), clean.tsv through utf8mb4 (stored as it is meant).

    garbled_dump.py SOURCE OUT_DIR SIZE_MB

SOURCE is a directory of *.txt (benches/data/cleantext, real text of many scripts) or one text
file (corpus/clean-multilingual.txt). Writes OUT_DIR/garbled.tsv and OUT_DIR/clean.tsv for the
table of garbled_dump.sh (id, title VARCHAR(255) and body TEXT in latin1, note TEXT in utf8mb4,
n INT, data BLOB), one row in ten (CLEAN_SHARE) in clean.tsv, and prints the number of rows and
the size the dump will have. Rows are added until the next one would take the dump past
SIZE_MB MiB: the size of each value as mariadb-dump --default-character-set=utf8mb4 writes it is
known in advance (a latin1 byte becomes the UTF-8 of its windows-1252 character, mariadb-dump
escapes seven bytes with a backslash), so the dump is the size asked for without dumping twice.

Each row: a title (one non-ASCII line), a body (one to six lines in a row of one source joined
by newlines, NULL in one row in twenty), a note (one line), n, and a blob (NULL in one in ten,
the UTF-8 of a garbled line in two in ten, so it looks double-encoded and must be left alone,
else a few bytes below 0x80 with quotes, backslashes and control characters, so the file stays
UTF-8). The clean rows' latin1 columns hold only text latin1 can store; their note any text.
"""
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen_data import CP1252_UNDEFINED, MYSQL_ESCAPES, encodable_latin1  # noqa: E402

CLEAN_SHARE = 0.1
TITLE_BYTES = 255  # VARCHAR(255) of latin1: 255 bytes of the UTF-8 sent through latin1
BODY_BYTES = 4000
SEED = 20261207
# What the dump adds besides the rows: header and trailer, and `INSERT INTO ... VALUES` and
# `;` once per statement (mariadb-dump starts one about every MiB).
DUMP_FIXED = 3000
PER_STATEMENT = 40 / (1 << 20)

# How many bytes each byte of a latin1 column takes in the dump beyond its own: a byte below
# 0x80 is written as it is (one escaped with a backslash takes one more), one above is the
# UTF-8 of its windows-1252 character (MariaDB's latin1; its five undefined bytes are the C1
# controls U+0081.. of the same value), two or three bytes.
ESCAPED = set(MYSQL_ESCAPES)  # maketrans: the ordinals of the escaped characters


def _extra(b):
    if b < 0x80:
        return 1 if b in ESCAPED else 0
    if b in CP1252_UNDEFINED:
        return 1
    return len(bytes([b]).decode("cp1252").encode("utf-8")) - 1


LATIN1_EXTRA = bytes.maketrans(bytes(range(256)), bytes(_extra(b) for b in range(256)))
RAW_EXTRA = bytes.maketrans(bytes(range(256)), bytes(int(b in ESCAPED) for b in range(256)))
# What a connection declared latin1 makes of a byte, where it differs from ISO-8859-1: for
# str.translate of bytes decoded as latin-1 (a blob that looks double-encoded).
MYSQL_LATIN1 = {b: bytes([b]).decode("cp1252") for b in range(0x80, 0xA0)
                if b not in CP1252_UNDEFINED}
TSV_ESCAPES = {b"\\": b"\\\\", b"\t": b"\\t", b"\n": b"\\n", b"\r": b"\\r", b"\0": b"\\0"}


def dumped(value, latin1):
    """The bytes `value` (the bytes sent) takes in the dump, quotes included; `latin1`: sent
    through a latin1 connection (every byte taken for a character), else stored as sent."""
    if value is None:
        return 4  # NULL
    extra = value.translate(LATIN1_EXTRA if latin1 else RAW_EXTRA)
    return len(value) + extra.count(1) + 2 * extra.count(2) + 2


def tsv(value):
    """A field of LOAD DATA's default format (tab-separated, backslash escapes, \\N for NULL)."""
    if value is None:
        return b"\\N"
    for raw, escaped in TSV_ESCAPES.items():
        value = value.replace(raw, escaped)
    return value


def cut(data, limit):
    """`data` (UTF-8) cut to at most `limit` bytes, on a character boundary."""
    if len(data) <= limit:
        return data
    end = limit
    while end and (data[end] & 0xC0) == 0x80:
        end -= 1
    return data[:end]


class Text:
    """The source text, as bytes, from which lines are drawn at random offsets (a line is
    drawn in proportion to its length: long prose lines as often as their share of the text)."""

    def __init__(self, source):
        paths = sorted(source.glob("*.txt")) if source.is_dir() else [source]
        self.texts = [p.read_bytes() for p in paths]
        self.texts = [t for t in self.texts if t.strip()]
        if not self.texts:
            sys.exit(f"garbled_dump.py: no text in {source}")
        self.weights = [len(t) for t in self.texts]

    def lines(self, rng, count):
        """`count` lines in a row (fewer at the end of a source), empty ones skipped."""
        text = rng.choices(self.texts, self.weights)[0]
        start = text.rfind(b"\n", 0, rng.randrange(len(text))) + 1
        out = []
        while len(out) < count and start < len(text):
            end = text.find(b"\n", start)
            end = len(text) if end < 0 else end
            line = text[start:end].strip()
            if line:
                out.append(line)
            start = end + 1
        return out

    def line(self, rng, accept):
        """A line for which `accept` holds (drawn again until one does)."""
        for _ in range(10_000):
            found = self.lines(rng, 1)
            if found and accept(found[0]):
                return found[0]
        sys.exit("garbled_dump.py: the text has no line fit for a cell")


def non_ascii(line):
    return not line.isascii()


def latin1_ok(line):
    return encodable_latin1(line.decode("utf-8"))


def row(rng, text, clean):
    """title, body, note, n, blob of one row, as the bytes sent."""
    fits = latin1_ok if clean else non_ascii
    title = cut(text.line(rng, lambda s: fits(s) and (clean or non_ascii(s[:TITLE_BYTES]))),
                TITLE_BYTES)
    body = None
    if rng.random() >= 0.05:
        for _ in range(100):
            lines = text.lines(rng, rng.randint(1, 6))
            body = cut(b"\n".join(lines), BODY_BYTES)
            if body and (latin1_ok(body) if clean else non_ascii(body)):
                break
        else:
            body = cut(text.line(rng, fits), BODY_BYTES)
    note = cut(text.line(rng, lambda s: True), BODY_BYTES)
    r = rng.random()
    if r < 0.1:
        blob = None
    elif r < 0.3:
        blob = text.line(rng, non_ascii).decode("latin-1").translate(MYSQL_LATIN1).encode()
    else:
        blob = bytes(b & 0x7F for b in rng.randbytes(rng.randrange(4, 33)))
    return title, body, note, rng.randrange(1_000_000), blob


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    source, out, size_mb = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
    rng = random.Random(SEED)
    text = Text(source)
    limit = (size_mb << 20) - DUMP_FIXED
    size, rows, clean_rows = 0.0, 0, 0
    with open(out / "garbled.tsv", "wb") as garbled, open(out / "clean.tsv", "wb") as clean_f:
        while True:
            clean = rng.random() < CLEAN_SHARE
            title, body, note, n, blob = row(rng, text, clean)
            rid = rows + 1
            # `(id,'title','body','note',n,'blob'),` and a newline: one row a line.
            length = (len(str(rid)) + len(str(n)) + 9 + dumped(title, not clean)
                      + dumped(body, not clean) + dumped(note, not clean) + dumped(blob, False))
            length *= 1 + PER_STATEMENT
            if size + length > limit:
                break
            size += length
            rows += 1
            clean_rows += clean
            fields = [str(rid).encode(), tsv(title), tsv(body), tsv(note), str(n).encode(),
                      tsv(blob)]
            (clean_f if clean else garbled).write(b"\t".join(fields) + b"\n")
    print(rows, clean_rows, int(size + DUMP_FIXED))


if __name__ == "__main__":
    main()
