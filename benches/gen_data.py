#!/usr/bin/env python3
"""Generate benchmark inputs from the real text in corpus/ (stdlib only, deterministic).

Why: the benchmarks need gigabyte inputs that look like what users run undouble on, and the
repository can only ship small samples. This builds them from the sample's real multilingual
text, garbling it the way a latin1 connection does (DESIGN.md section 1).

    gen_data.py sql   OUT SIZE_MB   SQL dump: extended INSERTs, 2% of strings double-encoded
                                    (both readings, one in ten of those triple-encoded)
    gen_data.py dump  OUT SIZE_MB   a whole `mariadb-dump` file (header, CREATE TABLE of latin1
                                    text columns and a blob, LOCK TABLES, trailer) whose INSERTs
                                    are made like `sql`'s, plus blobs that look double-encoded
    gen_data.py dense OUT SIZE_MB   correctly encoded multilingual text, nothing to repair
    gen_data.py mojibake OUT SIZE_MB  every line double-encoded (cp1252 reading)

A block of about 32 MB is generated and then written repeatedly up to SIZE_MB. In a `dump`, the
block is whole INSERT statements between the header and the trailer, written once, and the
primary keys of each repetition are offset so that they stay unique (the file loads).
"""
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CP1252_UNDEFINED = {0x81, 0x8D, 0x8F, 0x90, 0x9D}


def mysql_cp1252(data: bytes) -> str:
    """Decode bytes as MySQL's latin1 (Windows-1252, undefined bytes kept as C1 controls)."""
    return "".join(chr(b) if b in CP1252_UNDEFINED else bytes([b]).decode("cp1252") for b in data)


def garble(text: str, reading: str) -> str:
    data = text.encode("utf-8")
    return data.decode("latin-1") if reading == "latin1" else mysql_cp1252(data)


def clean_lines():
    text = (ROOT / "corpus" / "clean-multilingual.txt").read_text(encoding="utf-8")
    lines = [line for line in text.splitlines() if line.strip()]
    ascii_lines = [line for line in lines if line.isascii()]
    other = [line for line in lines if not line.isascii()]
    return ascii_lines, other


def text_value(rng, ascii_lines, garbled_from, clean_from):
    """A string cell: one in 50 a line of `garbled_from` double-encoded (cp1252 reading twice
    as often as latin1; one in ten of those triple-encoded), one in ten of the rest a line of
    `clean_from` as it is, the others ASCII."""
    if rng.random() < 0.02:
        text = rng.choice(garbled_from)
        text = garble(text, rng.choice(["cp1252", "cp1252", "latin1"]))
        if rng.random() < 0.1:
            text = garble(text, "cp1252")
    elif rng.random() < 0.1:
        text = rng.choice(clean_from)
    else:
        text = rng.choice(ascii_lines)
    return text


def note_values(rng, ascii_lines, garbled_from, clean_from, row):
    """The values of row `row` both SQL modes write: a string, a number and a date."""
    text = text_value(rng, ascii_lines, garbled_from, clean_from)
    return text, row * 7 % 1000, f"2024-01-{row % 28 + 1:02d}"


def sql_block(rng, ascii_lines, other, size):
    out, n, row = [], 0, 0
    while n < size:
        values = []
        for _ in range(40):
            row += 1
            text, number, day = note_values(rng, ascii_lines, other, other, row)
            text = text.replace("\\", "\\\\").replace("'", "\\'")
            values.append(f"({row},'{text}',{number},'{day}')")
        line = "INSERT INTO `notes` VALUES " + ",".join(values) + ";\n"
        out.append(line)
        n += len(line.encode("utf-8"))
    return "".join(out)


# What mariadb-dump (mysql_real_escape_string) escapes in a string or blob value.
MYSQL_ESCAPES = str.maketrans(
    {"\0": "\\0", "\n": "\\n", "\r": "\\r", "\x1a": "\\Z", "\\": "\\\\", "'": "\\'", '"': '\\"'}
)
# Stands for the start of a primary key in a dump block, replaced per repetition; a raw NUL
# never appears in a dump otherwise (mariadb-dump writes it as \0).
ID_MARK = "\0"
ID_DIGITS = 7
NET_BUFFER_LENGTH = 1024 * 1024 - 1025  # mariadb-dump's default: about the size of one INSERT

# As mariadb-dump 10.19 (MariaDB 10.11.19, Debian 12) writes this table with
# --default-character-set=utf8mb4, down to the sandbox line's trailing space.
DUMP_HEADER = """/*M!999999\\- enable the sandbox mode */ 
-- MariaDB dump 10.19  Distrib 10.11.19-MariaDB, for debian-linux-gnu (x86_64)
--
-- Host: localhost    Database: bench
-- ------------------------------------------------------
-- Server version\t10.11.19-MariaDB-0+deb12u1

/*!40101 SET @OLD_CHARACTER_SET_CLIENT=@@CHARACTER_SET_CLIENT */;
/*!40101 SET @OLD_CHARACTER_SET_RESULTS=@@CHARACTER_SET_RESULTS */;
/*!40101 SET @OLD_COLLATION_CONNECTION=@@COLLATION_CONNECTION */;
/*!40101 SET NAMES utf8mb4 */;
/*!40103 SET @OLD_TIME_ZONE=@@TIME_ZONE */;
/*!40103 SET TIME_ZONE='+00:00' */;
/*!40014 SET @OLD_UNIQUE_CHECKS=@@UNIQUE_CHECKS, UNIQUE_CHECKS=0 */;
/*!40014 SET @OLD_FOREIGN_KEY_CHECKS=@@FOREIGN_KEY_CHECKS, FOREIGN_KEY_CHECKS=0 */;
/*!40101 SET @OLD_SQL_MODE=@@SQL_MODE, SQL_MODE='NO_AUTO_VALUE_ON_ZERO' */;
/*!40111 SET @OLD_SQL_NOTES=@@SQL_NOTES, SQL_NOTES=0 */;

--
-- Table structure for table `notes`
--

DROP TABLE IF EXISTS `notes`;
/*!40101 SET @saved_cs_client     = @@character_set_client */;
/*!40101 SET character_set_client = utf8mb4 */;
CREATE TABLE `notes` (
  `id` {id_type} NOT NULL,
  `body` varchar(255) DEFAULT NULL,
  `note` text DEFAULT NULL,
  `n` int(11) DEFAULT NULL,
  `day` date DEFAULT NULL,
  `data` blob DEFAULT NULL,
  PRIMARY KEY (`id`)
) ENGINE=InnoDB DEFAULT CHARSET=latin1 COLLATE=latin1_swedish_ci;
/*!40101 SET character_set_client = @saved_cs_client */;

--
-- Dumping data for table `notes`
--

LOCK TABLES `notes` WRITE;
/*!40000 ALTER TABLE `notes` DISABLE KEYS */;
"""

DUMP_TRAILER = """/*!40000 ALTER TABLE `notes` ENABLE KEYS */;
UNLOCK TABLES;
/*!40103 SET TIME_ZONE=@OLD_TIME_ZONE */;

/*!40101 SET SQL_MODE=@OLD_SQL_MODE */;
/*!40014 SET FOREIGN_KEY_CHECKS=@OLD_FOREIGN_KEY_CHECKS */;
/*!40014 SET UNIQUE_CHECKS=@OLD_UNIQUE_CHECKS */;
/*!40101 SET CHARACTER_SET_CLIENT=@OLD_CHARACTER_SET_CLIENT */;
/*!40101 SET CHARACTER_SET_RESULTS=@OLD_CHARACTER_SET_RESULTS */;
/*!40101 SET COLLATION_CONNECTION=@OLD_COLLATION_CONNECTION */;
/*!40111 SET SQL_NOTES=@OLD_SQL_NOTES */;

-- Dump completed on 2026-11-30 12:00:00
"""


def blob_value(rng, other):
    """A blob: NULL, the UTF-8 bytes of a garbled line (they look double-encoded and must be
    left alone), or short binary-looking bytes below 0x80 (NUL, quotes, backslashes, control
    characters; so the file stays UTF-8)."""
    r = rng.random()
    if r < 0.1:
        return "NULL"
    if r < 0.3:
        data = garble(rng.choice(other), rng.choice(["cp1252", "latin1"]))
    else:
        data = bytes(b & 0x7F for b in rng.randbytes(rng.randrange(4, 33))).decode("ascii")
    return "'" + data.translate(MYSQL_ESCAPES) + "'"


def dump_block(rng, ascii_lines, other, size):
    """INSERT statements as mariadb-dump writes them (one row a line, a new statement before
    one would pass its net buffer length) into the latin1 table of DUMP_HEADER. A latin1
    column cannot hold what latin1 cannot encode, so the text stored correctly is drawn from
    the lines latin1 can encode; the garbled text is any line's. Each primary key starts with
    ID_MARK."""
    stored = [line for line in other if encodable_latin1(line)]
    out, n, row = [], 0, 0
    rows, length = [], 0
    while n < size:
        row += 1
        body, number, day = note_values(rng, ascii_lines, other, stored, row)
        body = body[:255].translate(MYSQL_ESCAPES)  # varchar(255): MySQL keeps 255 characters
        note = "NULL"
        if rng.random() >= 0.05:
            note = "'" + text_value(rng, ascii_lines, other, stored).translate(MYSQL_ESCAPES) + "'"
        blob = blob_value(rng, other)
        value = f"({ID_MARK}{row:0{ID_DIGITS}d},'{body}',{note},{number},'{day}',{blob})"
        size_of = len(value.encode("utf-8")) + 2
        if rows and length + size_of > NET_BUFFER_LENGTH:
            statement = "INSERT INTO `notes` VALUES\n" + ",\n".join(rows) + ";\n"
            out.append(statement)
            n += len(statement.encode("utf-8"))
            rows, length = [], 0
        rows.append(value)
        length += size_of
    assert row < 10**ID_DIGITS
    return "".join(out)


def encodable_latin1(text):
    """Whether MySQL's latin1 (mysql_cp1252's inverse) can store `text`."""
    try:
        "".join(c for c in text if ord(c) not in CP1252_UNDEFINED).encode("cp1252")
    except UnicodeEncodeError:
        return False
    return True


def dense_block(rng, ascii_lines, other, size):
    out, n = [], 0
    while n < size:
        line = rng.choice(other) + "\n"
        out.append(line)
        n += len(line.encode("utf-8"))
    return "".join(out)


def mojibake_block(rng, ascii_lines, other, size):
    out, n = [], 0
    while n < size:
        line = garble(rng.choice(other), "cp1252") + "\n"
        out.append(line)
        n += len(line.encode("utf-8"))
    return "".join(out)


def write_repeated(f, block_at, total, end=b"\n"):
    """Writes block_at(0), block_at(1), ... up to `total` bytes, the last one cut after its last
    `end` so that the file stays well-formed (if none fits, its first `end` is kept whole)."""
    written, repetition = 0, 0
    while written < total:
        block = block_at(repetition)
        chunk = block[: total - written]
        if len(chunk) < len(block):
            cut = chunk.rfind(end)
            chunk = block[: (cut if cut >= 0 else block.find(end)) + len(end)]
        f.write(chunk)
        written += len(chunk)
        repetition += 1
        if len(chunk) < len(block):
            break


def write_dump(f, rng, ascii_lines, other, size_mb):
    """Header, the INSERTs of dump_block repeated (each repetition's keys prefixed with its
    number: 1xxxxxxx, 2xxxxxxx, ...), trailer."""
    block = dump_block(rng, ascii_lines, other, min(32, size_mb) << 20).encode("utf-8")
    pieces = block.split(ID_MARK.encode())
    assert len(pieces) - 1 == block.count(b"\n("), "a NUL outside a primary key"
    repetitions = -(-(size_mb << 20) // len(block))
    largest = repetitions * 10**ID_DIGITS + len(pieces)
    id_type = "int(11)" if largest < 2**31 else "bigint(20)"
    header = DUMP_HEADER.replace("{id_type}", id_type).encode("utf-8")
    trailer = DUMP_TRAILER.encode("utf-8")
    f.write(header)
    room = (size_mb << 20) - len(header) - len(trailer)
    write_repeated(f, lambda i: str(i + 1).encode().join(pieces), room, b";\n")
    f.write(trailer)


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in ("sql", "dump", "dense", "mojibake"):
        sys.exit(__doc__)
    kind, out, size_mb = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3])
    rng = random.Random(20261130)
    ascii_lines, other = clean_lines()
    if kind == "dump":
        with open(out, "wb") as f:
            write_dump(f, rng, ascii_lines, other, size_mb)
        return
    make = {"sql": sql_block, "dense": dense_block, "mojibake": mojibake_block}[kind]
    block = make(rng, ascii_lines, other, min(32, size_mb) << 20).encode("utf-8")
    with open(out, "wb") as f:
        write_repeated(f, lambda _: block, size_mb << 20)


if __name__ == "__main__":
    main()
