#!/usr/bin/env python3
"""Data and verdicts for .ci/postgres-roundtrip.sh (stdlib only, deterministic).

Why: the round trip must prove, on a real PostgreSQL server, that dump-aware `undouble fix`
restores every cell a wrong client encoding garbled, changes no cell that was stored
correctly, leaves every bytea byte-identical, and reads pg_dump's own output (COPY blocks with
their escapes, multi-row INSERTs, quoted names, dollar-quoted function bodies, comments and
defaults). This script writes the SQL that does the damage the way it happens, remembers the
true value of every cell, and judges what each repaired dump loaded into a fresh UTF8 database
holds. What it shares with the MariaDB round trip (the text, the row classes, the verdict) is
in roundtrip_common.py.

How the damage happens: the source database is LATIN1 (ISO-8859-1, one byte a character).
A client that sends UTF-8 but declares client_encoding LATIN1 has every byte taken for a
character, which LATIN1 stores as that same byte; `pg_dump -E UTF8` then writes each stored
byte as the UTF-8 of its ISO-8859-1 character (`é` = C3 A9 → `Ã©`; 80..9F → C1 controls):
double-encoded. Sending the garbled text that way again gives triple encoding.

    postgres_roundtrip.py generate OUTDIR CLEANTEXT_DIR_OR_FILE LOOKALIKES_FILE
        OUTDIR/schema.sql       the table, a child table, a function and a procedure, sent
                                correctly
        OUTDIR/via-latin1.sql   rows, defaults, checks and comments sent as UTF-8 declared LATIN1
        OUTDIR/via-utf8.sql     rows sent correctly, bytea, and the control column
        OUTDIR/expected.json    the true value of every cell and DDL text, and its class
    postgres_roundtrip.py check OUTDIR VARIANT...
        reads OUTDIR/VARIANT.loaded.tsv, VARIANT.ddl.tsv, VARIANT.scan.json and
        VARIANT.load.err (what psql said loading the repaired dump, going on past errors) for
        each variant of the dump, and OUTDIR/src.ddl.tsv (the source's DDL texts); prints one
        line per cell class and variant, and `N passed, N failed` last; exits 1 if any failed.

Cell classes (columns v varchar, t text, "Note" text of the table "Notes"):
  double     real text sent through a LATIN1 connection once: double-encoded in the dump
  triple     the same mistake made twice: triple-encoded in the dump
  correct    text a LATIN1 column can hold, sent correctly: must not change
  lookalike  correct text that has the shape of double encoding (TELPÍ®, »Gruß«): must not change
  control    every row's ctl text, sent correctly: must not change
  blob       bytea bytes that look double-encoded, or are not UTF-8: byte-identical
  ddl        a column default and two comments sent through LATIN1: repaired; routine bodies
             holding look-alikes (a dollar quote, a SQL-standard BEGIN ATOMIC body): unchanged;
             the default of a column a child table inherits, set through LATIN1 (pg_dump writes
             it as ALTER TABLE ... ALTER COLUMN ... SET DEFAULT): repaired
  check      every row's status st, which a CHECK constraint added through LATIN1 allows: one of
             STATUSES in the rows sent that way (garbled as the constraint's literals are, so
             that the repaired dump loads only if they are repaired with them), and the loaded
             constraints' definitions: that one (pg_dump writes it in the CREATE TABLE) and one
             added NOT VALID (pg_dump writes it as ALTER TABLE ... ADD CONSTRAINT after the data),
             and the predicate of a partial index created through LATIN1 (after the data too)
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

COLUMNS = ["v", "t", "Note"]
# How the entries of a cell are joined, and the breaks between its lines: all ISO-8859-1, and
# the backslash and the control characters are those a COPY block escapes (`\\ \t \n \r`).
JOINERS = [" · ", " / ", ", ", " \\ "]
BREAKS = ["\t", "\n", "\r\n"]
# A dollar-quoted body with a quote, a `;`, a `$$` and an `E''` string in it, whose result holds
# look-alikes: a repair leaking into code would change what the function returns.
MOTTO_BODY = "SELECT 'Ã© stays Ã©: it''s; $$ ends nothing'::text || E'\\t»Gruß«'"
MOTTO = "Ã© stays Ã©: it's; $$ ends nothing\t»Gruß«"
# A value the NOT VALID check refuses, which no row holds.
RETIRED = "remboursé"
# A SQL-standard body, which pg_dump writes as SQL: statements ending in `;` (a CASE ... END
# among them), and an INSERT with look-alikes that is code, not table data.
REMEMBER = """CREATE PROCEDURE remember(x text) LANGUAGE sql BEGIN ATOMIC
  SELECT CASE WHEN x = 'Ã©' THEN 1 ELSE 2 END;
  INSERT INTO "Notes" (id, v) VALUES (0, 'cafÃ© »Gruß«; ' || x);
END;
"""


def garble(text: str) -> str:
    """What a LATIN1 database dumped as UTF8 makes of UTF-8 text a LATIN1 client sent."""
    return text.encode("utf-8").decode("latin-1")


def sql_string(text: str) -> str:
    """A string literal under standard_conforming_strings (the default): quotes doubled."""
    return "'" + text.replace("'", "''") + "'"


def name(column: str) -> str:
    return f'"{column}"' if column != column.lower() else column


def generate(out: Path, source: Path, lookalikes_file: Path):
    rng = random.Random(20261201)
    sources = Sources(source, lookalikes_file, "latin-1")
    by_script = sources.by_script
    rows = plan_rows(rng, sources, len(COLUMNS), JOINERS, BREAKS)
    status_of = statuses(rows, 20261201)
    columns = ", ".join(name(c) for c in [*COLUMNS, "st"])

    # The checks go through the LATIN1 connection before the rows, their literals garbled as
    # the statuses sent that way are: one the rows are checked against (pg_dump writes it in
    # the CREATE TABLE), one added NOT VALID (pg_dump writes it after the data, as ALTER TABLE
    # ... ADD CONSTRAINT, and the load does not check the rows against it: only its definition
    # tells), and the default of the status a child table inherits (pg_dump writes it as ALTER
    # TABLE ONLY "Later" ALTER COLUMN st SET DEFAULT).
    allowed = ", ".join(sql_string(s) for s in [*STATUSES, CORRECT_STATUS])
    latin1_sql = [
        "SET client_encoding = 'LATIN1';",
        f'ALTER TABLE "Notes" ADD CONSTRAINT notes_st_check CHECK (st IN ({allowed}));',
        f'ALTER TABLE "Notes" ADD CONSTRAINT notes_st_later CHECK (st <> {sql_string(RETIRED)}) '
        "NOT VALID;",
        f'ALTER TABLE "Later" ALTER COLUMN st SET DEFAULT {sql_string(STATUSES[2])};',
        # A partial index (pg_dump writes it after the data): left garbled, its predicate would
        # no longer cover the repaired rows, and nothing would say so.
        f'CREATE INDEX notes_st_first ON "Notes" (id) WHERE st = {sql_string(STATUSES[0])};',
    ]
    utf8_sql = ["SET client_encoding = 'UTF8';"]
    expected = {"rows": {}, "ddl": {}}
    for index, (cls, texts) in enumerate(rows, start=1):
        # Bytes a bytea may hold: UTF-8 of garbled text (which looks double-encoded), the
        # bytes COPY and the escape output format escape, and bytes that are not UTF-8.
        blob = garble(rng.choice(by_script[rng.choice(SCRIPTS)])).encode("utf-8")
        blob += bytes([0, 0x09, 0x0A, 0x0D, 0x27, 0x5C, 0x22, 0xC3, 0x28, 0xFF])
        control = rng.choice(sources.plain)
        # The status goes through the row's connection as it is (garbled once by the LATIN1
        # one, as the checks' literals are), whatever the row's class.
        status = status_of[index - 1]
        if cls in ("double", "triple"):
            sent = texts if cls == "double" else [garble(t) for t in texts]
            statements = latin1_sql
        else:
            sent, statements = texts, utf8_sql
        statements.append(
            f'INSERT INTO "Notes" (id, {columns}) VALUES ({index}, '
            + ", ".join(sql_string(t) for t in [*sent, status]) + ");"
        )
        utf8_sql.append(
            f"UPDATE \"Notes\" SET b = '\\x{blob.hex()}', ctl = {sql_string(control)} "
            f"WHERE id = {index};"
        )
        expected["rows"][index] = {
            "class": cls, **dict(zip(COLUMNS, texts)), "b": blob.hex(), "ctl": control,
            "st": status,
        }

    # Text of the DDL that went through the LATIN1 connection too. pg_dump writes a default
    # inside CREATE TABLE and a comment as COMMENT ON, both string literals the fix repairs.
    def ddl_text(script):
        return " — ".join(
            rng.choice([l for l in by_script[s] if "\\" not in l]) for s in (script, "latin"))

    default, table_comment, column_comment = (ddl_text(s) for s in ("greek", "cyrillic", "cjk"))
    latin1_sql += [
        f'ALTER TABLE "Notes" ALTER COLUMN v SET DEFAULT {sql_string(default)};',
        f'COMMENT ON TABLE "Notes" IS {sql_string(table_comment)};',
        f'COMMENT ON COLUMN "Notes"."Note" IS {sql_string(column_comment)};',
    ]
    expected["ddl"] = {
        "default": f"{sql_string(default)}::character varying",
        "table comment": table_comment,
        "column comment": column_comment,
        "function": MOTTO,
        "child default": f"{sql_string(STATUSES[2])}::character varying",
    }
    (out / "schema.sql").write_text(
        "SET client_encoding = 'UTF8';\n"
        'CREATE TABLE "Notes" (\n'
        "  id integer PRIMARY KEY,\n"
        "  v varchar(2000),\n"
        "  t text,\n"
        '  "Note" text,\n'
        "  b bytea,\n"
        "  ctl text,\n"
        "  st varchar(40) NOT NULL\n"
        ");\n"
        'CREATE TABLE "Later" () INHERITS ("Notes");\n'
        f"CREATE FUNCTION motto() RETURNS text LANGUAGE sql AS $body$ {MOTTO_BODY} $body$;\n"
        + REMEMBER,
        encoding="utf-8",
    )
    (out / "via-latin1.sql").write_text("\n".join(latin1_sql) + "\n", encoding="utf-8")
    (out / "via-utf8.sql").write_text("\n".join(utf8_sql) + "\n", encoding="utf-8")
    (out / "expected.json").write_text(json.dumps(expected, ensure_ascii=False), encoding="utf-8")
    print(describe(rows))


LABELS = {
    "double": "double-encoded cells repaired",
    "triple": "triple-encoded cells repaired",
    "correct": "correct cells unchanged",
    "lookalike": "look-alike cells unchanged",
    "control": "control cells unchanged",
    "blob": "bytea cells byte-identical",
    "ddl": "defaults, comments repaired; routine bodies unchanged",
    "check": "status cells and CHECK literals repaired",
    "load": "repaired dump loaded without an error",
    "scan report": "scan per-column counts",
}


def read_ddl(path: Path):
    """The DDL texts a query wrote as `what<TAB>hex` lines, by what."""
    lines = path.read_text().splitlines()
    return {what: text_of(hexed) for what, hexed in (line.split("\t") for line in lines)}


def check(out: Path, variants) -> int:
    expected = json.loads((out / "expected.json").read_text(encoding="utf-8"))
    rows = expected["rows"]
    # The procedure's definition as the source database gives it back.
    wanted_ddl = {**expected["ddl"], "procedure": read_ddl(out / "src.ddl.tsv")["procedure"]}
    # The checks' literals (PostgreSQL gives a reloaded check back rewritten, casts moved).
    wanted_checks = {
        "check": [*STATUSES, CORRECT_STATUS],
        "not valid check": [RETIRED],
        "partial index": [STATUSES[0]],
    }
    damaged = sum(1 for cell in rows.values() if cell["class"] in ("double", "triple"))
    reports = []
    for variant in variants:
        verdict = Verdict()
        loaded = read_hex_rows(out / f"{variant}.loaded.tsv", COLUMNS + ["b", "ctl", "st"])
        verdict.judge_cells(rows, loaded, COLUMNS, ["b"])
        verdict.judge_load(out / f"{variant}.load.err")
        ddl = read_ddl(out / f"{variant}.ddl.tsv")
        for what, text in wanted_ddl.items():
            verdict.judge("ddl", ddl.get(what) == text, f"{what}: {ddl.get(what)!r} != {text!r}")
        for what, literals in wanted_checks.items():
            got = string_literals(ddl.get(what, ""))
            verdict.judge("check", got == literals, f"{what}: {got!r} != {literals!r}")
        # Every status sent through the LATIN1 connection is garbled once.
        verdict.judge_scan_report(out / f"{variant}.scan.json", {
            column: damaged if column in (*COLUMNS, "st") else 0
            for column in ("id", *COLUMNS, "b", "ctl", "st")
        })
        reports.append(verdict.report(LABELS, f" ({variant})"))
    return conclude(reports)


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "generate":
        generate(Path(sys.argv[2]), Path(sys.argv[3]), Path(sys.argv[4]))
    elif len(sys.argv) >= 4 and sys.argv[1] == "check":
        sys.exit(check(Path(sys.argv[2]), sys.argv[3:]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
