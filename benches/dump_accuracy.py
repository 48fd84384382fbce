#!/usr/bin/env python3
"""Data, damage plan, verdicts and report of benches/dump_accuracy.sh (stdlib only).

Why: the database round trips in .ci prove that dump-aware `undouble fix` repairs cells made of
chosen text; a DBA wants to know how it does on *their* text: every shape real tables hold
(sentences, headings in capitals, a lone letter in its own field, a surname of one CJK
character, a word, punctuation, correct text that merely looks garbled), in many languages,
damaged zero, one or two times by a wrong connection on a real server. This builds that truth
from translated text shipped by the Debian packages on the machine, writes the SQL that does the
damage, and scores every cell read back from the repaired dump against the truth.

    dump_accuracy.py generate WORK          WORK/truth.jsonl, WORK/{my,pg}-*.sql, the depth-2
                                            cells (WORK/SERVER.depth2), WORK/sources.json
    dump_accuracy.py again SERVER WORK      the SQL that sends the depth-2 cells again through
                                            the wrong connection, from their garbled text read
                                            back through UTF-8 (WORK/SERVER.once.tsv)
    dump_accuracy.py score WORK REPORT JSONL  verdicts of both servers, the report (Markdown)
                                              and the non-fixed, non-kept cells (JSON Lines)

Knobs (environment): SEED (default 20261201), CELLS (text cells, default 12000).

Every cell gets a language, a shape and a depth (how many times it went through the wrong
connection); the shapes are labelled by how they were built, never hand-picked strings:
  sentence     a translated message or man-page line of three words or more
  heading      a short message upper-cased, as a heading in capitals
  word         one word of a message (a short cell)
  letter       one letter of the language's alphabet, alone in its cell
  letter-list  a run of three to twelve letters of that alphabet, space-separated (ⴰ ⴱ ⴳ)
  cjk-name     one CJK ideograph alone in its cell (a surname in a name column)
  punctuation  a message holding two or more non-ASCII punctuation marks (« » „ “ ’ … –)
  lookalike    a message or word whose clean UTF-8 has the byte shape of double encoding
               (Úžasný, »Ä«), found by testing every string of the real text
The alphabet of a language is the set of non-ASCII letters seen at least ALPHABET_MIN times in
its sampled text, sorted by code point (only languages with at most ALPHABET_MAX of them:
alphabets, not ideographs). Lines that are mojibake in the package itself are left out of every
shape (`garbled_in_package`): their truth is unknown.
"""
import functools
import json
import os
import random
import re
import sys
import unicodedata
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "cleantext"))
from extract import Stats, clean, locale_strings, manpage_text, mo_messages  # noqa: E402

SEED = int(os.environ.get("SEED", "20261201"))
CELLS = int(os.environ.get("CELLS", "12000"))
SHAPES = {  # shape -> share of the cells
    "sentence": 0.26, "heading": 0.10, "word": 0.14, "letter": 0.09, "letter-list": 0.09,
    "cjk-name": 0.07, "punctuation": 0.10, "lookalike": 0.15,
}
DEPTHS = {0: 0.34, 1: 0.44, 2: 0.22}  # times through the wrong connection -> share
MAX_CHARS = 200
ALPHABET_MIN, ALPHABET_MAX = 5, 160
SAMPLE_LINES = 4000
DICT_LINES = 20000  # evenly spaced words kept of each word list
# MariaDB: text cells in VARCHAR, TEXT, MEDIUMTEXT columns of a latin1 table, or in its utf8mb4
# column (the clean text latin1 cannot hold); PostgreSQL: varchar and text of a LATIN1 database.
MY_LATIN1_COLUMNS, MY_UTF8_COLUMN, MY_BINARY = ["v", "t", "m"], "u", ["b", "vb"]
PG_COLUMNS, PG_BINARY = ["v", "t"], ["b"]
# The columns each server's read-back lists after the id, in order (dump_accuracy.sh).
COLUMNS = {"mariadb": MY_LATIN1_COLUMNS + [MY_UTF8_COLUMN] + MY_BINARY,
           "postgres": PG_COLUMNS + PG_BINARY}

# ---------------------------------------------------------------------------------------------
# The byte maths of the two wrong connections

# MariaDB's latin1 is windows-1252 with these five bytes kept as C1 controls.
CP1252_UNDEFINED = {0x81, 0x8D, 0x8F, 0x90, 0x9D}
MYSQL_LATIN1 = [chr(b) if b < 0x80 or b in CP1252_UNDEFINED else bytes([b]).decode("cp1252")
                for b in range(256)]
MYSQL_LATIN1_CHARS = set(MYSQL_LATIN1)


def garble(text: str, server: str, depth: int) -> str:
    """What `depth` trips through the wrong connection make of `text`, read back as UTF-8:
    MariaDB's latin1 (windows-1252) or PostgreSQL's LATIN1 (ISO-8859-1)."""
    for _ in range(depth):
        data = text.encode("utf-8")
        text = "".join(MYSQL_LATIN1[b] for b in data) if server == "mariadb" else data.decode(
            "latin-1")
    return text


def fits(text: str, server: str) -> bool:
    """Whether a single-byte column of the server can hold `text` sent correctly."""
    if server == "mariadb":
        return all(c in MYSQL_LATIN1_CHARS for c in text)
    return all(ord(c) < 0x80 or 0xA0 <= ord(c) <= 0xFF for c in text)


# A character Â..ô followed by one that stands for a continuation byte (0x80..0xBF in latin1
# or windows-1252): clean text with the byte shape of double encoding.
LOOKALIKE = re.compile(
    "[\u00c2-\u00f4][\u0080-\u00bf\u20ac\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030"
    "\u0160\u2039\u0152\u017d\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161"
    "\u203a\u0153\u017e\u0178]"
)
PUNCTUATION = set("«»„“”‘’‚‹›…–—•·¡¿")
WORD_STRIP = "".join(sorted(PUNCTUATION)) + "\"'()[]{}<>.,;:!?*/\\|&%$#@=+_`~^-"

# ---------------------------------------------------------------------------------------------
# The real text


@functools.lru_cache(maxsize=None)
def invisible(c: str) -> bool:
    """Controls, format characters, surrogates, private use and unassigned code points."""
    return unicodedata.category(c) in ("Cc", "Cf", "Co", "Cs", "Cn")


def usable(line: str) -> bool:
    """A cell's text: non-ASCII (ASCII comes through any connection unchanged), short, without
    invisible characters or backslashes (roff left-overs): text people type into a field."""
    return (0 < len(line) <= MAX_CHARS and not line.isascii() and "\\" not in line
            and not any(map(invisible, set(line))))


def language_of(locale: str) -> str:
    """`pt_BR` -> `pt`, `sr@latin` -> `sr@latin`, `zh_TW` -> `zh_TW` (another script)."""
    base, _, modifier = locale.partition("@")
    if not base.startswith("zh"):
        base = base.split("_")[0]
    return base + ("@" + modifier if modifier else "")


def real_text():
    """Lines by language and by source (`mo`, `man`, `locale`), deduplicated, in file order."""
    stats = Stats()
    lines = defaultdict(dict)  # language -> {line: source}

    def add(language, source, raw):
        for line in raw:
            line = clean(line, stats)
            if line and usable(line):
                lines[language].setdefault(line, source)

    for mo in sorted(Path("/usr/share/locale").glob("*/LC_MESSAGES/*.mo")):
        try:
            add(language_of(mo.parts[-3]), "mo", mo_messages(str(mo), stats))
        except (OSError, LookupError, ValueError, IndexError) as e:
            print(f"skipped {mo}: {e}", file=sys.stderr)
    man = Path("/usr/share/man")
    for page in sorted(man.glob("*/man*/*.gz")):
        if page.parts[-3].startswith("man"):
            continue  # the English pages
        try:
            add(language_of(page.parts[-3]), "man", manpage_text(str(page), stats))
        except (OSError, EOFError, ValueError) as e:
            print(f"skipped {page}: {e}", file=sys.stderr)
    for source in sorted(Path("/usr/share/i18n/locales").glob("*")):
        if source.is_file() and re.match(r"[a-z]{2,3}_", source.name):
            add(language_of(source.name), "locale", locale_strings(str(source), stats))
    for words in sorted(Path("/usr/share/dict").glob("*")):
        if words.is_file() and not words.name.startswith("README"):
            entries = words.read_text(encoding="utf-8", errors="ignore").split("\n")
            add(words.name, "dict", entries[::max(1, len(entries) // DICT_LINES)])
    return lines


@functools.lru_cache(maxsize=None)
def is_han(c: str) -> bool:
    return unicodedata.name(c, "").startswith("CJK UNIFIED IDEOGRAPH")


BYTE_OF = {c: b for b, c in enumerate(MYSQL_LATIN1)}
BYTE_OF.update({chr(b): b for b in range(0x80, 0xA0)})  # ISO-8859-1's C1 controls


def garbled_in_package(line: str, used: set) -> bool:
    """Whether a line with the look-alike shape is mojibake already in the package (a Latin-1
    catalogue converted twice: `vÃ¦re` for `være`): one of its runs, read as latin1 bytes, is
    the UTF-8 of a Latin-1 character (U+00A0..U+00FF, the classic `Ã`/`Â` pairs) that the
    language writes elsewhere, in a line without that shape. `Úžasný` stays (`Úž` would be
    `ڞ`, which Czech does not write), and so does German `»Ä«` (`Ä«` would be `ī`, not Latin-1),
    though German writes `ī`: the rule stays narrow so as to drop as few real look-alikes as
    it can."""
    for m in LOOKALIKE.finditer(line):
        data = bytes(BYTE_OF[c] for c in line[m.start():m.start() + 4] if c in BYTE_OF)
        for length in (2, 3, 4):
            try:
                char = data[:length].decode("utf-8")
            except UnicodeDecodeError:
                continue
            if len(char) == 1 and 0xA0 <= ord(char) <= 0xFF and char in used:
                return True
    return False


def pools(lines):
    """shape -> language -> candidate texts (sorted for determinism), and how many lines were
    left out as mojibake already in the package. Every line is tested for the look-alike shape;
    the other shapes come from at most SAMPLE_LINES evenly spaced lines of each language, which
    bounds the time."""
    pool = defaultdict(lambda: defaultdict(set))
    garbled = Counter()
    for language, entries in lines.items():
        entries = list(entries)
        step = max(1, len(entries) // SAMPLE_LINES)
        sample = entries[::step]
        shaped = [line for line in entries if LOOKALIKE.search(line)]
        shaped_set = set(shaped)
        used = set().union(*(set(line) for line in entries if line not in shaped_set))
        suspect = set()
        for line in shaped:
            if garbled_in_package(line, used):
                suspect.add(line)
                continue
            pool["lookalike"][language].add(line)
            for word in line.split():
                word = word.strip(WORD_STRIP)
                if usable(word) and LOOKALIKE.search(word):
                    pool["lookalike"][language].add(word)
        garbled[language] = len(suspect)
        letters = Counter()
        for line in sample:
            if line in suspect:
                continue
            words = line.split()
            if len(words) >= 3:
                pool["sentence"][language].add(line)
            if len(words) <= 6 and len(line) <= 60:
                upper = line.upper()
                if upper != line and len(upper) <= MAX_CHARS:
                    pool["heading"][language].add(upper)
            if sum(c in PUNCTUATION for c in line) >= 2:
                pool["punctuation"][language].add(line)
            for word in words:
                word = word.strip(WORD_STRIP)
                if len(word) >= 2 and usable(word) and any(c.isalpha() for c in word):
                    pool["word"][language].add(word)
            for c in line:
                if ord(c) > 0x7F and unicodedata.category(c).startswith("L"):
                    letters[c] += 1
                    if is_han(c):
                        pool["cjk-name"][language].add(c)
        alphabet = sorted(c for c, n in letters.items() if n >= ALPHABET_MIN and not is_han(c))
        if 3 <= len(alphabet) <= ALPHABET_MAX:
            pool["letter"][language].update(alphabet)
            for start in range(len(alphabet) - 2):
                for length in (3, 5, 8, 12):
                    run = alphabet[start:start + length]
                    if len(run) == length:
                        pool["letter-list"][language].add(" ".join(run))
    return {shape: {lang: sorted(texts) for lang, texts in by_lang.items() if texts}
            for shape, by_lang in pool.items()}, garbled


def draw(rng, weights):
    keys = list(weights)
    return rng.choices(keys, weights=[weights[k] for k in keys])[0]


def plan(pool):
    """The cells: (language, shape, depth, truth), the language drawn evenly among those with
    text of the shape, the text evenly among the language's."""
    rng = random.Random(SEED)
    cells = []
    for _ in range(CELLS):
        shape = draw(rng, SHAPES)
        languages = sorted(pool.get(shape, {}))
        if not languages:
            sys.exit(f"no text of the shape {shape} on this machine")
        language = rng.choice(languages)
        cells.append({"lang": language, "shape": shape, "depth": draw(rng, DEPTHS),
                      "truth": rng.choice(pool[shape][language])})
    return cells, rng


# ---------------------------------------------------------------------------------------------
# The SQL that does the damage


def my_string(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def pg_string(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def blob_bytes(rng, cells):
    """Bytes a binary column may hold: the UTF-8 of garbled text (which looks double-encoded),
    bytes every escape of a dump is needed for, and bytes that are not UTF-8."""
    text = rng.choice(cells)["truth"]
    return (garble(text, "mariadb", 1).encode("utf-8")
            + bytes([0, 0x27, 0x5C, 0x22, 0x0A, 0x0D, 0x1A, 0xC3, 0x28, 0xFF]))


def generate(work: Path):
    lines = real_text()
    pool, garbled = pools(lines)
    cells, rng = plan(pool)
    truth, pg_ids = [], set()
    my_clean, my_wrong, pg_clean, pg_wrong, my_binary, pg_binary = [], [], [], [], [], []
    for index, cell in enumerate(cells, start=1):
        text, depth = cell["truth"], cell["depth"]
        # MariaDB: a clean cell latin1 cannot hold goes to the utf8mb4 column; one sent through
        # the latin1 connection goes anywhere (that connection garbles it into any column).
        if depth == 0 and not fits(text, "mariadb"):
            column = MY_UTF8_COLUMN
        else:
            column = rng.choice(MY_LATIN1_COLUMNS + [MY_UTF8_COLUMN])
        statement = f"INSERT INTO notes (id, {column}) VALUES ({index}, {my_string(text)});"
        (my_wrong if depth else my_clean).append(statement)
        truth.append({"server": "mariadb", "id": index, "column": column, **cell})
        # PostgreSQL: a LATIN1 database holds clean text only when latin1 can.
        if depth or fits(text, "pg"):
            column = PG_COLUMNS[index % len(PG_COLUMNS)]
            statement = f"INSERT INTO notes (id, {column}) VALUES ({index}, {pg_string(text)});"
            (pg_wrong if depth else pg_clean).append(statement)
            pg_ids.add(index)
            truth.append({"server": "postgres", "id": index, "column": column, **cell})
    # Binary cells, in one row of three: written through the right connection as hex.
    for index in range(1, len(cells) + 1, 3):
        b, vb = blob_bytes(rng, cells), blob_bytes(rng, cells)[:255]
        my_binary.append(f"UPDATE notes SET b = X'{b.hex()}', vb = X'{vb.hex()}' "
                        f"WHERE id = {index};")
        truth.append({"server": "mariadb", "id": index, "column": "b", "lang": "-",
                      "shape": "blob", "depth": 0, "truth": b.hex().upper()})
        truth.append({"server": "mariadb", "id": index, "column": "vb", "lang": "-",
                      "shape": "varbinary", "depth": 0, "truth": vb.hex().upper()})
        if index in pg_ids:
            pg_binary.append(f"UPDATE notes SET b = '\\x{b.hex()}' WHERE id = {index};")
            truth.append({"server": "postgres", "id": index, "column": "b", "lang": "-",
                          "shape": "bytea", "depth": 0, "truth": b.hex().upper()})

    (work / "my-schema.sql").write_text(
        "CREATE DATABASE src CHARACTER SET latin1;\n"
        "CREATE TABLE src.notes (id INT NOT NULL PRIMARY KEY, v VARCHAR(2000), t TEXT,"
        " m MEDIUMTEXT, u VARCHAR(2000) CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci,"
        " b BLOB, vb VARBINARY(255)) DEFAULT CHARSET=latin1;\n", encoding="utf-8")
    (work / "my-clean.sql").write_text("SET NAMES utf8mb4;\n" + "\n".join(my_clean) + "\n",
                                       encoding="utf-8")
    (work / "my-wrong.sql").write_text("SET NAMES latin1;\n" + "\n".join(my_wrong) + "\n",
                                       encoding="utf-8")
    (work / "my-binary.sql").write_text("SET NAMES utf8mb4;\n" + "\n".join(my_binary) + "\n",
                                        encoding="utf-8")
    (work / "pg-binary.sql").write_text("\n".join(pg_binary) + "\n", encoding="utf-8")
    (work / "pg-schema.sql").write_text(
        "CREATE TABLE notes (id int PRIMARY KEY, v varchar(2000), t text, b bytea);\n",
        encoding="utf-8")
    (work / "pg-clean.sql").write_text("SET client_encoding = 'UTF8';\n" + "\n".join(pg_clean)
                                       + "\n", encoding="utf-8")
    (work / "pg-wrong.sql").write_text("SET client_encoding = 'LATIN1';\n" + "\n".join(pg_wrong)
                                       + "\n", encoding="utf-8")
    with open(work / "truth.jsonl", "w", encoding="utf-8") as f:
        for entry in truth:
            f.write(json.dumps(entry, ensure_ascii=False) + "\n")
    for server in ("mariadb", "postgres"):
        ids = [t for t in truth if t["server"] == server and t["depth"] == 2]
        (work / f"{server}.depth2").write_text(
            "".join(f"{t['id']}\t{t['column']}\n" for t in ids), encoding="ascii")
    languages = {c["lang"] for c in cells}
    sources = Counter(source for entries in lines.values() for source in entries.values())
    (work / "sources.json").write_text(json.dumps({
        "lines": dict(sorted(sources.items())), "languages": len(lines),
        "garbled_in_package": sum(garbled.values()),
        "garbled_by_language": {k: v for k, v in garbled.most_common(8) if v}}),
        encoding="utf-8")
    print(f"truth: {len(cells)} text cells in {len(languages)} languages, from "
          f"{sum(len(v) for v in lines.values())} lines of {len(lines)} languages; "
          + ", ".join(f"{s} {sum(c['shape'] == s for c in cells)}" for s in SHAPES),
          file=sys.stderr)


def again(server: str, work: Path):
    """The depth-2 cells sent again through the wrong connection: the garbled text a UTF-8
    client read back (WORK/SERVER.once.tsv), written as it was read."""
    if server == "mariadb":
        out, quote = ["SET NAMES latin1;"], my_string
    else:
        out, quote = ["SET client_encoding = 'LATIN1';"], pg_string
    once = read_back(work / f"{server}.once.tsv", COLUMNS[server])
    for line in (work / f"{server}.depth2").read_text(encoding="ascii").splitlines():
        index, column = line.split("\t")
        text = bytes.fromhex(once[(int(index), column)]).decode("utf-8")
        out.append(f"UPDATE notes SET {column} = {quote(text)} WHERE id = {index};")
    sys.stdout.buffer.write(("\n".join(out) + "\n").encode("utf-8"))


# ---------------------------------------------------------------------------------------------
# Verdicts

VERDICTS = ["fixed", "missed", "wrong", "damaged", "kept"]


def read_back(path: Path, columns):
    """`id<TAB>hex...` rows (NULL for a null cell) -> {(id, column): hex or None}."""
    cells = {}
    if not path.exists():
        return cells
    for line in path.read_text(encoding="ascii").splitlines():
        fields = line.split("\t")
        for column, value in zip(columns, fields[1:]):
            cells[(int(fields[0]), column)] = None if value in ("NULL", "") else value.upper()
    return cells


def as_text(hexed, binary: bool):
    if hexed is None:
        return None
    if binary:
        return hexed
    try:
        return bytes.fromhex(hexed).decode("utf-8")
    except (ValueError, UnicodeDecodeError):
        return f"<not UTF-8: {hexed[:60]}>"


def judge(entry, source, loaded):
    """The verdict of one cell from its truth, what the source database held (read through
    UTF-8: the garbled form a repair starts from) and what the repaired dump loaded holds."""
    if entry["depth"] == 0:
        return "kept" if loaded == entry["truth"] else "damaged"
    if loaded == entry["truth"]:
        return "fixed"
    if loaded == source:
        return "missed"
    return "wrong"


def score(work: Path, report: Path, jsonl: Path):
    truth = [json.loads(l) for l in (work / "truth.jsonl").read_text(encoding="utf-8").splitlines()]
    binary = set(MY_BINARY + PG_BINARY)
    results = []
    for server in ("mariadb", "postgres"):
        source = read_back(work / f"{server}.source.tsv", COLUMNS[server])
        loaded = read_back(work / f"{server}.loaded.tsv", COLUMNS[server])
        for entry in (t for t in truth if t["server"] == server):
            is_binary = entry["column"] in binary
            key = (entry["id"], entry["column"])
            got_source = as_text(source.get(key), is_binary)
            got = as_text(loaded.get(key), is_binary)
            verdict = judge(entry, got_source, got)
            model = entry["truth"] if is_binary else garble(entry["truth"], server, entry["depth"])
            results.append({**entry, "garbled": got_source, "got": got, "verdict": verdict,
                            "as_modelled": got_source == model})
    with open(jsonl, "w", encoding="utf-8") as f:
        for r in results:
            if r["verdict"] not in ("fixed", "kept"):
                f.write(json.dumps(r, ensure_ascii=False) + "\n")
    write_report(work, report, results)


# ---------------------------------------------------------------------------------------------
# The report


def shown(text) -> str:
    """Text in a Markdown code span, every invisible or ambiguous character escaped."""
    if text is None:
        return "(NULL)"
    out = []
    for c in text:
        cat = unicodedata.category(c)
        if c == "`":
            out.append("\\u{60}")
        elif c == "|":
            out.append("\\u{7c}")
        elif c == "\\":
            out.append("\\\\")
        elif c != " " and (cat[0] in "CZ" or cat == "Mn" and not out):
            out.append(f"\\u{{{ord(c):x}}}")
        else:
            out.append(c)
    return "`" + "".join(out) + "`"


def pct(n, d) -> str:
    return f"{100 * n / d:.1f}%" if d else "-"


def table(rows, header):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(x) for x in row) + " |" for row in rows]
    return "\n".join(lines)


def breakdown(results, key, keys=None):
    groups = defaultdict(Counter)
    for r in results:
        groups[key(r)][r["verdict"]] += 1
    rows = []
    for k in keys or sorted(groups, key=str):
        c = groups.get(k, Counter())
        garbled = c["fixed"] + c["missed"] + c["wrong"]
        clean = c["kept"] + c["damaged"]
        rows.append([k, sum(c.values()), garbled, c["fixed"], pct(c["fixed"], garbled),
                     c["missed"], c["wrong"], clean, c["damaged"]])
    return table(rows, ["", "cells", "garbled", "fixed", "fixed %", "missed", "wrong", "clean",
                        "damaged"])


def listing(rows):
    return table([[r["id"], r["column"], r["lang"], r["shape"], r["depth"], shown(r["truth"]),
                   shown(r["garbled"]), shown(r["got"])] for r in rows],
                 ["id", "col", "lang", "shape", "depth", "truth", "garbled (dump)", "came back"])


def write_report(work: Path, report: Path, results):
    meta = json.loads((work / "meta.json").read_text(encoding="utf-8"))
    sources = json.loads((work / "sources.json").read_text(encoding="utf-8"))
    out = ["# Dump repair accuracy on real servers", "",
           "Generated by `benches/dump_accuracy.sh` (usage in its header); do not edit by hand.",
           "",
           "Real translated text of the Debian packages on the machine (gettext catalogues, "
           "translated man pages, glibc locale sources), cut into cells of labelled shapes, "
           "written into a MariaDB latin1 table and a PostgreSQL LATIN1 database through a "
           "connection declared latin1 zero, one or two times (depth), dumped by the real dump "
           "tool, repaired by `undouble fix`, reloaded into a fresh database and read back as "
           "hex through UTF-8. A garbled cell is *fixed* (now the truth), *missed* (still as "
           "garbled) or *wrong* (something else); a clean or binary cell is *kept* or "
           "*damaged*.", "",
           f"- undouble: `{meta['version']}` (`{meta['describe']}` of its tree), binary "
           f"`{meta['binary']}`",
           f"- servers: {meta['mariadb']}; {meta['postgres']}",
           f"- SEED={meta['seed']} CELLS={meta['cells']}; run time {meta['seconds']} s",
           f"- text on the machine: {sources['languages']} languages, lines by source "
           + ", ".join(f"{k} {v}" for k, v in sources["lines"].items())
           + f"; {sources['garbled_in_package']} lines left out as mojibake already in the "
           "package (a look-alike run that reads as a Latin-1 character the language writes elsewhere; "
           "most in " + ", ".join(f"{k} {v}" for k, v in sources["garbled_by_language"].items())
           + "). The truth depends on the packages installed.", "",
           "Commands:", "", "```"] + meta["commands"] + ["```", ""]
    for server in ("mariadb", "postgres"):
        errors = meta.get(f"{server}_load_errors", [])
        if errors:
            out += [f"**{server}: the repaired dump did not reload cleanly** "
                    f"({len(errors)} error lines; first ones):", "", "```"] + errors[:10] + [
                        "```", ""]
    out += ["## Totals", ""]
    rows = []
    for server in ("mariadb", "postgres"):
        rs = [r for r in results if r["server"] == server]
        c = Counter(r["verdict"] for r in rs)
        garbled = c["fixed"] + c["missed"] + c["wrong"]
        clean = c["kept"] + c["damaged"]
        rows.append([server, len(rs), garbled, f"{c['fixed']} ({pct(c['fixed'], garbled)})",
                     f"{c['missed']} ({pct(c['missed'], garbled)})",
                     f"{c['wrong']} ({pct(c['wrong'], garbled)})", clean,
                     f"{c['damaged']} ({pct(c['damaged'], clean)} of clean)"])
    out += [table(rows, ["server", "cells", "garbled", "fixed", "missed", "wrong",
                         "clean + binary", "damaged"]), ""]
    languages = {r["lang"] for r in results if r["lang"] != "-"}
    off_model = [r for r in results if not r["as_modelled"]]
    out += [f"{len({r['id'] for r in results})} text cells in {len(languages)} languages "
            "(each cell goes to both servers, except the clean ones a LATIN1 PostgreSQL "
            "database cannot hold). Binary cells (BLOB, VARBINARY, bytea) count as clean. "
            f"Cells whose dumped form is not the modelled garbling of their truth: "
            f"{len(off_model)}.", ""]
    for server in ("mariadb", "postgres"):
        rs = [r for r in results if r["server"] == server]
        out += [f"## {server}", "", "By shape:", "",
                breakdown(rs, lambda r: r["shape"]), "", "By depth (0 = clean):", "",
                breakdown(rs, lambda r: r["depth"], [0, 1, 2]), "", "By column:", "",
                breakdown(rs, lambda r: r["column"]), ""]
        counts = Counter(r["lang"] for r in rs if r["lang"] != "-")
        bad = Counter(r["lang"] for r in rs if r["verdict"] in ("missed", "wrong", "damaged"))
        top = sorted(counts, key=lambda l: (-bad[l], -counts[l], l))[:25]
        out += ["By language (the 25 with the most missed + wrong + damaged cells; "
                f"{len(counts)} languages in all):", "",
                breakdown([r for r in rs if r["lang"] in top], lambda r: r["lang"], top), ""]
        for verdict in ("wrong", "damaged"):
            listed = [r for r in rs if r["verdict"] == verdict]
            out += [f"Every {verdict} cell ({len(listed)}):", ""]
            out += [listing(listed) if listed else "(none)", ""]
        missed = [r for r in rs if r["verdict"] == "missed"]
        out += [f"The first 40 missed cells (of {len(missed)}):", "",
                listing(missed[:40]) if missed else "(none)", ""]
    out += ["Invisible characters are written `\\u{hex}`; every cell that was neither fixed "
            "nor kept is in `benches/data/dump_accuracy/cells.jsonl`."]
    report.write_text("\n".join(out) + "\n", encoding="utf-8")
    print("\n".join(out[out.index("## Totals"):out.index("## Totals") + 6]))


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "generate":
        generate(Path(sys.argv[2]))
    elif len(sys.argv) == 4 and sys.argv[1] == "again":
        again(sys.argv[2], Path(sys.argv[3]))
    elif len(sys.argv) == 5 and sys.argv[1] == "score":
        score(Path(sys.argv[2]), Path(sys.argv[3]), Path(sys.argv[4]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
