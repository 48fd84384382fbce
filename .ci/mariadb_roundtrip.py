#!/usr/bin/env python3
"""Data and verdicts for .ci/mariadb-roundtrip.sh (stdlib only, deterministic).

Why: the round trip must prove, on a real server, that dump-aware `undouble fix` restores
every cell a latin1 connection garbled, changes no cell that was stored correctly, and leaves
every blob byte-identical. This script writes the SQL that creates the damage the way it
happens in production, remembers the true value of every cell, and judges what the repaired
dump loaded into a fresh database holds. What it shares with the PostgreSQL round trip (the
text, the row classes, the verdict) is in roundtrip_common.py.

    mariadb_roundtrip.py generate OUTDIR CLEANTEXT_DIR_OR_FILE LOOKALIKES_FILE
        OUTDIR/schema.sql        the latin1 database, its table created through a connection
                                 declared latin1 (the CHECK constraint's literals garbled)
        OUTDIR/via-latin1.sql    rows sent through a connection declared latin1 (the mistake)
        OUTDIR/via-utf8mb4.sql   rows sent correctly, blobs, and the utf8mb4 control column
        OUTDIR/expected.json     the true value of every cell, and its class
    mariadb_roundtrip.py check OUTDIR/expected.json LOADED.tsv SCHEMA.tsv SCAN.json CHECKS.tsv
            LOAD.err
        SCHEMA.tsv: the loaded columns' character sets; CHECKS.tsv: the loaded CHECK clauses
        (`name<TAB>hex`); LOAD.err: what the client said loading the repaired dump (kept going
        past errors). Prints one line per cell class and `N passed, N failed`; exits 1 if any
        failed.
    mariadb_roundtrip.py check-refused SOURCE.tsv LOADED.tsv STATUS
        the pipeline without --convert-charset: STATUS holds the exit status of `undouble fix`
        and of the pipeline; every row of LOADED.tsv must be its row of SOURCE.tsv (the source
        database): no repaired row was loaded into a latin1 column.
    mariadb_roundtrip.py check-kept OUTDIR/expected.json LOADED.tsv
        the pipeline with --keep-charset, on a copy of the table's text columns (LOADED.tsv:
        id and the hexadecimal v, t, m): repaired cells latin1 can hold read back right, the
        others with `?` for every character latin1 lacks (the loss the refusal prevents).

Cell classes (columns v VARCHAR, t TEXT, m MEDIUMTEXT of a latin1 table):
  double     real text sent through a latin1 connection once: double-encoded in the dump
  triple     the same mistake made twice: triple-encoded in the dump
  correct    text a latin1 column can hold, sent correctly: must not change
  lookalike  correct text that has the shape of double encoding (CAFÉ®, »Gruß«): must not change
  control    every row's text in a utf8mb4 column, sent correctly: must not change
  blob       BLOB and VARBINARY bytes that look double-encoded, or are not UTF-8: byte-identical
  check      every row's status `st`, which the table's CHECK constraint allows: sent through
             the latin1 connection (one of STATUSES) in the rows that are, and the constraint
             created through it too, so that its literals are as garbled as those values: the
             repaired dump loads only if they are repaired with them; and the loaded CHECK
             clause, which must name the true values
  load       the repaired dump loads without an error
"""
import json
import random
import sys
from pathlib import Path

from roundtrip_common import (
    CORRECT_STATUS, SCRIPTS, STATUSES, Sources, Verdict, conclude, describe, plan_rows,
    read_hex_rows, statuses, string_literals, text_of,
)

# MySQL's latin1 is windows-1252 with these five bytes kept as C1 controls.
CP1252_UNDEFINED = {0x81, 0x8D, 0x8F, 0x90, 0x9D}
COLUMNS = ["v", "t", "m"]


def mysql_latin1_chars() -> set:
    """The 256 characters MySQL's latin1 holds."""
    return set(mysql_latin1(bytes(range(256))))


def mysql_latin1(data: bytes) -> str:
    """Bytes read as MySQL's latin1."""
    return "".join(chr(b) if b in CP1252_UNDEFINED else bytes([b]).decode("cp1252") for b in data)


def garble(text: str) -> str:
    """What a latin1 connection makes of UTF-8 text, read back as UTF-8."""
    return mysql_latin1(text.encode("utf-8"))


def sql_string(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def generate(out: Path, source: Path, lookalikes_file: Path):
    rng = random.Random(20261130)
    binary_rng = random.Random(4)
    sources = Sources(source, lookalikes_file, "cp1252")
    by_script = sources.by_script
    rows = plan_rows(rng, sources, len(COLUMNS), [" — "])  # (class, [v, t, m])
    status_of = statuses(rows, 20261130)

    latin1_sql, utf8_sql, expected = ["SET NAMES latin1;"], ["SET NAMES utf8mb4;"], {}
    for index, (cls, texts) in enumerate(rows, start=1):
        # Bytes a blob may hold: UTF-8 of garbled text (which looks double-encoded), raw
        # bytes every escape of a dump is needed for, and bytes that are not UTF-8 at all; in
        # one row of four, 16 KiB of random bytes as well (an image, say), which the dump
        # writes raw: the dump is then no UTF-8 file, though all of its text is UTF-8.
        blob = garble(rng.choice(by_script[rng.choice(SCRIPTS)])).encode("utf-8")
        blob += bytes([0, 0x27, 0x5C, 0x22, 0x0A, 0x0D, 0x1A, 0xC3, 0x28, 0xFF])
        if index % 4 == 0:
            blob += bytes(binary_rng.randrange(256) for _ in range(16 << 10))
        varbinary = garble(garble(rng.choice(by_script["latin"]))).encode("utf-8")[:200]
        control = rng.choice(by_script[SCRIPTS[index % len(SCRIPTS)]])
        # The status goes through the row's connection as it is (garbled once by the latin1
        # one, as the check's literals are), whatever the row's class.
        status = status_of[index - 1]
        if cls in ("double", "triple"):
            sent = texts if cls == "double" else [garble(t) for t in texts]
            latin1_sql.append(
                f"INSERT INTO notes (id, v, t, m, st) VALUES ({index}, "
                + ", ".join(sql_string(t) for t in [*sent, status]) + ");"
            )
        else:
            utf8_sql.append(
                f"INSERT INTO notes (id, v, t, m, st) VALUES ({index}, "
                + ", ".join(sql_string(t) for t in [*texts, status]) + ");"
            )
        utf8_sql.append(
            f"UPDATE notes SET b = X'{blob.hex()}', vb = X'{varbinary.hex()}', "
            f"ctl = {sql_string(control)} WHERE id = {index};"
        )
        expected[index] = {
            "class": cls,
            "v": texts[0], "t": texts[1], "m": texts[2],
            "b": blob.hex().upper(), "vb": varbinary.hex().upper(), "ctl": control,
            "st": status,
        }
    # The table is created through the latin1 connection, as the schema of a database filled
    # that way often is: its CHECK constraint's literals are garbled like the data sent that
    # way. mariadb-dump writes the constraint as an item of the CREATE TABLE.
    allowed = ", ".join(sql_string(s) for s in [*STATUSES, CORRECT_STATUS])
    (out / "schema.sql").write_text(
        "CREATE DATABASE src CHARACTER SET latin1;\n"
        "SET NAMES latin1;\n"
        "CREATE TABLE src.notes (\n"
        "  id INT NOT NULL PRIMARY KEY,\n"
        "  v VARCHAR(2000),\n"
        "  t TEXT,\n"
        "  m MEDIUMTEXT,\n"
        "  b BLOB,\n"
        "  vb VARBINARY(255),\n"
        "  ctl VARCHAR(500) CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci,\n"
        "  st VARCHAR(40) NOT NULL,\n"
        f"  CONSTRAINT st_known CHECK (st IN ({allowed}))\n"
        ") ENGINE=InnoDB DEFAULT CHARSET=latin1;\n",
        encoding="utf-8",
    )
    (out / "via-latin1.sql").write_text("\n".join(latin1_sql) + "\n", encoding="utf-8")
    (out / "via-utf8mb4.sql").write_text("\n".join(utf8_sql) + "\n", encoding="utf-8")
    (out / "expected.json").write_text(json.dumps(expected, ensure_ascii=False), encoding="utf-8")
    print(describe(rows))


def check(expected_path: Path, loaded_path: Path, schema_path: Path, scan_path: Path,
          checks_path: Path, load_errors: Path) -> int:
    expected = json.loads(expected_path.read_text(encoding="utf-8"))
    loaded = read_hex_rows(loaded_path, ["v", "t", "m", "b", "vb", "ctl", "st"])
    verdict = Verdict()
    verdict.judge_load(load_errors)
    verdict.judge_cells(expected, loaded, COLUMNS, ["b", "vb"])
    # The loaded constraint allows the true values.
    clauses = read_hex_rows(checks_path, ["clause"])
    clause = text_of(clauses["st_known"]["clause"]) if "st_known" in clauses else ""
    literals, allowed = string_literals(clause), [*STATUSES, CORRECT_STATUS]
    verdict.judge("check", literals == allowed, f"st_known: {literals!r} != {allowed!r}")

    # The repaired table holds UTF-8: its text columns were converted, its blobs were not.
    charsets = dict(line.split("\t") for line in schema_path.read_text().splitlines())
    wanted = {"v": "utf8mb4", "t": "utf8mb4", "m": "utf8mb4", "ctl": "utf8mb4", "st": "utf8mb4",
              "b": "NULL", "vb": "NULL"}
    for column, charset in wanted.items():
        verdict.judge("schema", charsets.get(column) == charset, f"{column}: {charsets.get(column)}")

    # `scan` names the damaged columns, and only those: every status sent through the latin1
    # connection is garbled once.
    damaged = sum(1 for cell in expected.values() if cell["class"] in ("double", "triple"))
    verdict.judge_scan_report(scan_path, {
        column: damaged if column in (*COLUMNS, "st") else 0
        for column in ("id", "v", "t", "m", "b", "vb", "ctl", "st")
    })

    names = {
        "double": "double-encoded cells repaired",
        "triple": "triple-encoded cells repaired",
        "correct": "correct cells unchanged",
        "lookalike": "look-alike cells unchanged",
        "control": "utf8mb4 control cells unchanged",
        "blob": "blob cells byte-identical",
        "check": "status cells and CHECK literals repaired",
        "load": "repaired dump loaded without an error",
        "schema": "columns converted (text) or not (binary)",
        "scan report": "scan per-column counts",
    }
    return conclude([verdict.report(names)])


def check_refused(source_path: Path, loaded_path: Path, status_path: Path) -> int:
    """The pipeline without --convert-charset: `undouble fix` refused (status 2, and the
    pipeline failed under pipefail), and no repaired row reached a latin1 column: every row
    loaded, if any, is byte for byte the row of the source database (as garbled as it was)."""
    columns = ["v", "t", "m", "b", "vb", "ctl", "st"]
    source = read_hex_rows(source_path, columns)
    loaded = read_hex_rows(loaded_path, columns)
    verdict = Verdict()
    fix_status, pipeline_status = status_path.read_text().split()
    verdict.judge("status", fix_status == "2", f"undouble fix exited with {fix_status}")
    verdict.judge("status", pipeline_status != "0", "the pipeline succeeded under pipefail")
    repaired = [index for index, row in loaded.items() if row != source.get(index)]
    verdict.judge("rows", not repaired, f"ids {repaired[:5]} were loaded repaired")
    return conclude([verdict.report({
        "status": "refused: fix exit status 2 and the pipeline failing",
        "rows": f"refused: no repaired row loaded ({len(loaded)} rows loaded as dumped)",
    })])


def check_kept(expected_path: Path, loaded_path: Path) -> int:
    """The pipeline with --keep-charset, loaded into the latin1 columns: the loss the refusal
    prevents. Every repaired cell whose true text latin1 can hold reads back as that text; every
    other one reads back with `?` in place of what latin1 lacks."""
    expected = json.loads(expected_path.read_text(encoding="utf-8"))
    loaded = read_hex_rows(loaded_path, COLUMNS)
    verdict = Verdict()
    latin1_chars = mysql_latin1_chars()
    lost = 0
    for index, cell in expected.items():
        if cell["class"] not in ("double", "triple"):
            continue
        for column in COLUMNS:
            # HEX() of a latin1 column gives its latin1 bytes.
            value = (mysql_latin1(bytes.fromhex(loaded[index][column])) if index in loaded
                     else "<missing row>")
            fits = all(ch in latin1_chars for ch in cell[column])
            if fits:
                verdict.judge("fits", value == cell[column], f"id {index} {column}: {value!r}")
            else:
                lost += 1
                wanted = "".join(ch if ch in latin1_chars else "?" for ch in cell[column])
                verdict.judge("lost", value == wanted, f"id {index} {column}: {value!r}")
    return conclude([verdict.report({
        "fits": "--keep-charset: repaired cells latin1 can hold, read back right",
        "lost": f"--keep-charset: repaired cells latin1 cannot hold, read back with ? ({lost})",
    })])


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "generate":
        generate(Path(sys.argv[2]), Path(sys.argv[3]), Path(sys.argv[4]))
    elif len(sys.argv) == 8 and sys.argv[1] == "check":
        sys.exit(check(*(Path(a) for a in sys.argv[2:])))
    elif len(sys.argv) == 4 and sys.argv[1] == "check-kept":
        sys.exit(check_kept(Path(sys.argv[2]), Path(sys.argv[3])))
    elif len(sys.argv) == 5 and sys.argv[1] == "check-refused":
        sys.exit(check_refused(*(Path(a) for a in sys.argv[2:])))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
