#!/usr/bin/env python3
"""Generate undouble's sample corpus from real text shipped by Debian packages.

Writes, next to this script:
  dump-sample.sql            a mysqldump-like file whose text cells are clean (ASCII or UTF-8),
                             double-encoded, triple-encoded, or legitimate look-alikes
  dump-sample.expected.sql   the same file with every double/triple-encoded cell restored and
                             the tables declared utf8mb4: the bytes a correct `undouble fix
                             --convert-charset utf8mb4` must produce
  clean-multilingual.txt     correctly encoded text in many scripts, look-alikes included:
                             nothing in it may be changed
  README.md                  what the files are, where the text comes from, and the counts

Why generated: the text is real (locale data, ISO code translations, coreutils messages,
hunspell dictionaries, Unicode emoji data), while the damage is applied by the byte maths of
/work/shared/DESIGN.md section 1, so the truth for every cell is known exactly.

Deterministic: fixed seed, sorted inputs, no timestamps. Needs the Debian packages listed in
PACKAGES; when one is missing it prints the `apt-get install` line and stops. The generated
files are committed, so tests never need the packages.

Usage: python3 corpus/make_corpus.py
"""

import json
import os
import random
import re
import struct
import sys
import unicodedata

SEED = 20240611
HERE = os.path.dirname(os.path.abspath(__file__))
MAX_FILE_BYTES = 200_000

LOCALES_DIR = "/usr/share/i18n/locales"
ISO_JSON = "/usr/share/iso-codes/json/iso_3166-1.json"
LOCALE_MO = "/usr/share/locale/{lang}/LC_MESSAGES/{domain}.mo"
EMOJI_TEST = "/usr/share/unicode/emoji/emoji-test.txt"
HUNSPELL = "/usr/share/hunspell/{dic}.{ext}"

# Debian package -> a file it ships that this script reads.
PACKAGES = {
    "locales": f"{LOCALES_DIR}/fr_FR",
    "iso-codes": ISO_JSON,
    "coreutils": LOCALE_MO.format(lang="fr", domain="coreutils"),
    "unicode-data": EMOJI_TEST,
    "hunspell-fr-classical": HUNSPELL.format(dic="fr", ext="dic"),
    "hunspell-de-de": HUNSPELL.format(dic="de_DE", ext="dic"),
    "hunspell-es": HUNSPELL.format(dic="es_ES", ext="dic"),
    "hunspell-pt-pt": HUNSPELL.format(dic="pt_PT", ext="dic"),
    "hunspell-pl": HUNSPELL.format(dic="pl_PL", ext="dic"),
    "hunspell-cs": HUNSPELL.format(dic="cs_CZ", ext="dic"),
    "hunspell-tr": HUNSPELL.format(dic="tr_TR", ext="dic"),
    "hunspell-ru": HUNSPELL.format(dic="ru_RU", ext="dic"),
    "hunspell-vi": HUNSPELL.format(dic="vi_VN", ext="dic"),
}
HUNSPELL_DICS = {"fr": "fr", "de": "de_DE", "es": "es_ES", "pt": "pt_PT", "pl": "pl_PL",
                 "cs": "cs_CZ", "tr": "tr_TR", "ru": "ru_RU", "vi": "vi_VN"}
# Languages for translated country names and coreutils messages: many scripts.
# Latin-script languages first: in real dumps most double-encoded text is Latin with diacritics.
COUNTRY_LANGS = ["ca", "cs", "da", "de", "es", "et", "fi", "fr", "hr", "hu", "is", "lt", "lv",
                 "pl", "pt", "ro", "sk", "sv", "tr", "vi",
                 "am", "ar", "bg", "el", "fa", "he", "hi", "hy", "ja", "ka", "ko", "ru", "th",
                 "uk", "zh_CN", "zh_TW"]
CALENDAR_LOCALES = ["ca_ES", "cs_CZ", "da_DK", "de_DE", "es_ES", "et_EE", "fi_FI", "fr_FR",
                    "hr_HR", "hu_HU", "is_IS", "it_IT", "lt_LT", "lv_LV", "nb_NO", "pl_PL",
                    "pt_BR", "pt_PT", "ro_RO", "sk_SK", "sl_SI", "sv_SE", "tr_TR", "vi_VN",
                    "am_ET", "ar_SA", "bg_BG", "el_GR", "fa_IR", "he_IL", "hi_IN", "hy_AM",
                    "ja_JP", "ka_GE", "ko_KR", "ru_RU", "sr_RS", "th_TH", "uk_UA", "zh_CN",
                    "zh_TW"]
MESSAGE_LANGS = ["bg", "cs", "de", "el", "es", "fr", "it", "ja", "ko", "pl", "pt", "ru", "tr",
                 "uk", "vi", "zh_CN", "zh_TW", "eu", "hu", "sk"]


def require_packages():
    missing = sorted(pkg for pkg, path in PACKAGES.items() if not os.path.exists(path))
    if missing:
        sys.exit("make_corpus.py: the text sources are missing; as root run:\n"
                 f"  apt-get install --no-install-recommends {' '.join(missing)}")


# ---------------------------------------------------------------------------------------------
# The byte maths (DESIGN.md section 1)

ISO_8859_1 = [chr(b) for b in range(256)]


def _mysql_cp1252():
    """Windows-1252 as MySQL's `latin1`: the five undefined bytes stay C1 controls."""
    table = [chr(b) for b in range(256)]
    for b in range(0x80, 0xA0):
        try:
            table[b] = bytes([b]).decode("cp1252")
        except UnicodeDecodeError:
            pass  # 0x81 0x8D 0x8F 0x90 0x9D -> U+0081 ...
    return table


READINGS = {"iso-8859-1": ISO_8859_1, "cp1252": _mysql_cp1252()}
UNREAD = {name: {c: b for b, c in enumerate(t)} for name, t in READINGS.items()}


def misread(text, reading, layers=1):
    """UTF-8 bytes of text read as a single-byte code page, `layers` times: one layer makes
    double-encoded text, two make triple-encoded text."""
    for _ in range(layers):
        table = READINGS[reading]
        text = "".join(table[b] for b in text.encode("utf-8"))
    return text


def unread(text, reading, layers=1):
    for _ in range(layers):
        inverse = UNREAD[reading]
        text = bytes(inverse[c] for c in text).decode("utf-8")
    return text


LEAD = re.compile("[\u00c2-\u00f4]")

# A character that stands for a continuation byte 0x80..0xBF, and the readings that agree.
CONTINUATION = {}
for _b in range(0x80, 0xC0):
    for _name, _table in READINGS.items():
        CONTINUATION.setdefault(_table[_b], (_b, set()))[1].add(_name)


def lookalike_sequences(text):
    """Spans of text that have the shape of a double-encoded character: a character U+00C2..
    U+00F4 followed by as many continuation characters as that lead byte needs, consistent with
    one reading, whose bytes are well-formed UTF-8. Returns [(span, decoded char, readings)]."""
    found = []
    i = 0
    while i < len(text):
        lead = ord(text[i])
        need = 1 if 0xC2 <= lead <= 0xDF else 2 if 0xE0 <= lead <= 0xEF else \
            3 if 0xF0 <= lead <= 0xF4 else 0
        span = text[i + 1:i + 1 + need]
        if need and len(span) == need and all(c in CONTINUATION for c in span):
            readings = set.intersection(*(CONTINUATION[c][1] for c in span))
            try:
                char = bytes([lead] + [CONTINUATION[c][0] for c in span]).decode("utf-8")
            except UnicodeDecodeError:
                char = None
            if readings and char:
                found.append((text[i:i + 1 + need], char, readings))
                i += 1 + need
                continue
        i += 1
    return found


# ---------------------------------------------------------------------------------------------
# Sources


def uplus(s):
    return re.sub(r"<U([0-9A-Fa-f]{4,8})>", lambda m: chr(int(m.group(1), 16)), s)


def locale_section(name, section, seen=()):
    """Keyword -> list of strings for one section of a glibc locale source, following `copy`."""
    path = os.path.join(LOCALES_DIR, name)
    if not os.path.isfile(path) or name in seen:
        return {}
    with open(path, encoding="utf-8") as f:
        text = f.read()
    m = re.search(rf"^{section}\s*$(.*?)^END {section}", text, re.S | re.M)
    if not m:
        return {}
    body = re.sub(r"/\n", "", m.group(1))  # continuation lines
    values = {}
    for line in body.splitlines():
        line = line.strip()
        if line.startswith("copy "):
            values = {**locale_section(line.split('"')[1], section, seen + (name,)), **values}
        elif line and not line.startswith("%"):
            key, _, rest = line.partition(" ")
            strings = re.findall(r'"([^"]*)"', rest)
            values[key] = [uplus(s) for s in strings] if strings else [rest.strip()]
    return values


def load_calendars():
    """Month and day names and currency symbol of each of CALENDAR_LOCALES."""
    result = []
    for name in sorted(CALENDAR_LOCALES):
        time_ = locale_section(name, "LC_TIME")
        money = locale_section(name, "LC_MONETARY")
        if len(time_.get("mon", [])) == 12 and len(time_.get("day", [])) == 7 \
                and len(time_.get("abmon", [])) == 12:
            result.append({"locale": name, "mon": time_["mon"], "abmon": time_["abmon"],
                           "day": time_["day"], "currency": (money.get("currency_symbol") or [""])[0],
                           "decimal": (money.get("mon_decimal_point") or ["."])[0],
                           "cs_precedes": (money.get("p_cs_precedes") or ["1"])[0] == "1"})
    return result


def mo_catalog(path):
    """msgid -> msgstr of a gettext .mo file, decoded with its declared charset."""
    with open(path, "rb") as f:
        data = f.read()
    order = "<" if struct.unpack("<I", data[:4])[0] == 0x950412DE else ">"
    count, orig_off, trans_off = struct.unpack(order + "3I", data[8:20])

    def entry(table, i):
        length, offset = struct.unpack(order + "2I", data[table + 8 * i:table + 8 * i + 8])
        return data[offset:offset + length]

    header = entry(trans_off, 0) if count else b""
    m = re.search(rb"charset=([\w-]+)", header)
    charset = m.group(1).decode("ascii") if m else "utf-8"
    catalog = {}
    for i in range(count):
        msgid = entry(orig_off, i)
        if msgid:
            catalog[msgid.split(b"\0")[0].decode("utf-8")] = \
                entry(trans_off, i).split(b"\0")[0].decode(charset)
    return catalog


def load_countries():
    """[(alpha_2, lang, name, official name or None)] for every translated country."""
    with open(ISO_JSON, encoding="utf-8") as f:
        entries = sorted(json.load(f)["3166-1"], key=lambda e: e["alpha_2"])
    rows = []
    for lang in sorted(COUNTRY_LANGS):
        path = LOCALE_MO.format(lang=lang, domain="iso_3166-1")
        if not os.path.exists(path):
            continue
        catalog = mo_catalog(path)
        for e in entries:
            name = catalog.get(e["name"])
            if name and name != e["name"]:
                official = catalog.get(e.get("official_name", ""))
                rows.append((e["alpha_2"], lang, name, official))
    return rows


def load_messages():
    """[(lang, msgid, msgstr)] of short coreutils messages, one or two lines each."""
    rows = []
    for lang in sorted(MESSAGE_LANGS):
        path = LOCALE_MO.format(lang=lang, domain="coreutils")
        if not os.path.exists(path):
            continue
        for msgid, msgstr in sorted(mo_catalog(path).items()):
            if 12 <= len(msgid) <= 90 and msgstr and msgstr != msgid and msgid.count("\n") <= 1 \
                    and "\t" not in msgstr and not re.search(r"[\x00-\x08\x0b-\x1f]", msgstr):
                rows.append((lang, msgid, msgstr))
    return rows


def load_emoji():
    """[(emoji, English name, group)] of fully-qualified emoji, ZWJ sequences included."""
    rows, group = [], ""
    with open(EMOJI_TEST, encoding="utf-8") as f:
        for line in f:
            if line.startswith("# group:"):
                group = line.split(":", 1)[1].strip()
            m = re.match(r"[0-9A-F ]+;\s*fully-qualified\s*#\s*(\S+)\s+E[\d.]+\s+(.+)", line)
            if m:
                rows.append((m.group(1), m.group(2).strip(), group))
    return rows


def load_words():
    """lang -> sorted alphabetic words (3-14 letters) of a hunspell dictionary."""
    words = {}
    for lang, dic in sorted(HUNSPELL_DICS.items()):
        aff = HUNSPELL.format(dic=dic, ext="aff")
        with open(aff, "rb") as f:
            m = re.search(rb"^SET\s+(\S+)", f.read(), re.M)
        encoding = m.group(1).decode("ascii") if m else "ISO8859-1"
        with open(HUNSPELL.format(dic=dic, ext="dic"), encoding=encoding) as f:
            lines = f.read().splitlines()[1:]
        found = {re.split(r"[/\s]", line, maxsplit=1)[0] for line in lines}
        words[lang] = sorted(w for w in found if w.isalpha() and 3 <= len(w) <= 14)
    return words


# ---------------------------------------------------------------------------------------------
# Text generators (all text comes from the sources; the generators only put it together)

NBSP = "\u00a0"
SHY = "\u00ad"


class Texts:
    def __init__(self, rng):
        self.rng = rng
        self.calendars = load_calendars()
        self.countries = load_countries()
        self.messages = load_messages()
        self.emoji = load_emoji()
        self.words = load_words()
        self._lookalike_pools()
        self.shape_of = {}

    def pick(self, seq):
        return seq[self.rng.randrange(len(seq))]

    def phrase(self, lang, n):
        return " ".join(self.pick(self.words[lang]) for _ in range(n))

    def price(self):
        cal = self.pick(self.calendars)
        amount = f"{self.rng.randrange(1, 500)}{cal['decimal']}{self.rng.randrange(100):02d}"
        if not cal["currency"]:
            return amount
        return f"{cal['currency']}{NBSP}{amount}" if cal["cs_precedes"] \
            else f"{amount}{NBSP}{cal['currency']}"

    def product(self):
        """A clean product: name and description from one dictionary, maybe an emoji, a price."""
        lang = self.pick(sorted(self.words))
        name = self.phrase(lang, self.rng.randrange(1, 3)).capitalize()
        if self.rng.random() < 0.2:
            name += " " + self.pick(self.emoji)[0]
        description = f"{self.phrase(lang, self.rng.randrange(3, 7)).capitalize()} — {self.price()}"
        return name, description

    def _lookalike_pools(self):
        """Word lists for the look-alike shapes, chosen from the dictionaries and locales."""
        w = self.words
        lead2 = re.compile("[\u00c2-\u00df]")
        # Upper-case word ending in a letter U+00C2..U+00DF (CAFÉ, ESQUÍ, LUNEDÌ, IRMÃ).
        italian_days = [d for c in self.calendars if c["locale"] == "it_IT" for d in c["day"]]
        self.caps_end = sorted({x.upper() for lang in ("fr", "es", "pt", "tr")
                                for x in w[lang] + italian_days
                                if lead2.fullmatch(x.upper()[-1]) and x.upper()[-1] != "ß"})
        self.fr_e = [x for x in w["fr"] if x.endswith("é") and x.islower()]
        self.fr_quote = [x for x in w["fr"] if x[-1] in "éèà" and x.islower()]
        self.de_sz = [x for x in w["de"] if x.endswith("ß")]
        self.circ_tilde = sorted({x.upper() for lang in ("pt", "tr", "fr")
                                  for x in w[lang] if x[-1] in "ãâêôîû"})
        # Upper-case words with an accented capital inside, followed by a letter: soft hyphen.
        self.caps_inner = sorted({x.upper() for lang in ("es", "fr", "cs", "pt")
                                  for x in w[lang] if lead2.search(x.upper()[:-1])
                                  and "ß" not in x})
        # Real words that match on their own, capitalised or in capitals (Czech Úžasný...).
        self.words_matching = sorted({form for lang in sorted(w) for x in w[lang]
                                      if "ß" not in x and LEAD.search(x.upper())
                                      for form in (x.capitalize(), x.upper())
                                      if lookalike_sequences(form)})

    LOOKALIKE_SHAPES = [
        "capital before ® ™ ° ’ (CAFÉ®)",
        "capital, U+00A0, French high punctuation (DÉCONSEILLÉ ;)",
        "French guillemets with U+00A0 (« café »)",
        "German guillemets after ß (»Gruß«)",
        "capital Ã Â Ê Ô Î Û, U+00A0, next word (IRMÃ MAIS)",
        "soft hyphen after an accented capital (MÉ­DICO)",
        "dictionary word that matches on its own (ÚŽASNÝ)",
    ]

    def lookalike(self):
        """A correctly encoded text that contains a double-encoding shape; its shape is recorded
        in self.shape_of."""
        shape = self.rng.randrange(len(self.LOOKALIKE_SHAPES))
        text = self._lookalike(shape)
        self.shape_of[text] = self.LOOKALIKE_SHAPES[shape]
        return text

    def _lookalike(self, shape):
        r = self.rng
        if shape == 0:    # CAFÉ®
            return self.pick(self.caps_end) + self.pick(["®", "™", "°", "’"])
        if shape == 1:    # DÉCONSEILLÉ ; (French spacing before high punctuation)
            return f"{self.pick(self.fr_e).upper()}{NBSP}{self.pick(';:!?')} " \
                   f"{self.phrase('fr', 2)}"
        if shape == 2:    # « café »
            return f"{self.phrase('fr', 2).capitalize()} «{NBSP}{self.pick(self.fr_quote)}{NBSP}»"
        if shape == 3:    # »Gruß«
            return f"»{self.pick(self.de_sz)}« {self.phrase('de', 2)}"
        if shape == 4:    # IRMÃ MAIS, HÂLÂ ...: accented capital, NBSP, next word
            word = self.pick(self.circ_tilde)
            return f"{word}{NBSP}{self.pick(self.caps_end + self.circ_tilde)}"
        if shape == 5:    # MÉ­DICO: soft hyphen after an accented capital
            word = self.pick(self.caps_inner)
            spots = [i for i, c in enumerate(word[:-1]) if "\u00c2" <= c <= "\u00df"]
            i = self.pick(spots) + 1
            return word[:i] + SHY + word[i:]
        return self.pick(self.words_matching)  # Úžasný, ÚŽASNÝ


# ---------------------------------------------------------------------------------------------
# Cells and classes

CLEAN, DOUBLE, TRIPLE, LOOKALIKE = "clean", "double", "triple", "lookalike"


class Cell:
    """A text cell: its true text, its class, and (for damaged cells) how it was damaged."""

    def __init__(self, text, klass, reading=None):
        if klass in (DOUBLE, TRIPLE) and text.isascii():
            klass = CLEAN  # nothing to damage: ASCII reads the same in every code page
        self.text, self.klass, self.reading = text, klass, reading
        self.layers = {DOUBLE: 1, TRIPLE: 2}.get(klass, 0)  # misreadings, as undouble counts
        self.stored = misread(text, reading, self.layers)
        assert unread(self.stored, reading, self.layers) == text
        if klass == LOOKALIKE:
            assert lookalike_sequences(text), text


def sql_escape(s):
    """MySQL string literal as mysqldump writes it (mysql_real_escape_string)."""
    out = s.replace("\\", "\\\\").replace("\0", "\\0").replace("\n", "\\n").replace("\r", "\\r")
    out = out.replace("'", "\\'").replace('"', '\\"').replace("\x1a", "\\Z")
    return f"'{out}'"


def value_sql(v, expected):
    if v is None:
        return "NULL"
    if isinstance(v, Cell):
        return sql_escape(v.text if expected else v.stored)
    if isinstance(v, str):
        return sql_escape(v)
    return str(v)


class Table:
    def __init__(self, name, columns, weights):
        self.name, self.columns, self.weights = name, columns, weights
        self.rows = []


def row_classes(rng, n, weights):
    """Exactly round(weight * n) rows of each class, shuffled."""
    classes = [k for k, w in weights.items() for _ in range(round(w * n))]
    classes += [CLEAN] * (n - len(classes))
    rng.shuffle(classes)
    return classes[:n]


def damage(rng, klass):
    """Reading for a damaged cell: mostly MySQL's cp1252, some pure ISO-8859-1."""
    return ("cp1252" if rng.random() < 0.75 else "iso-8859-1") if klass in (DOUBLE, TRIPLE) \
        else None


def build_tables(rng, texts):
    tables = []

    countries = Table("countries", [
        "`id` int NOT NULL AUTO_INCREMENT", "`alpha_2` char(2) NOT NULL",
        "`lang` varchar(8) NOT NULL", "`name` varchar(255) NOT NULL",
        "`official_name` varchar(255) DEFAULT NULL"],
        {CLEAN: 0.54, DOUBLE: 0.40, TRIPLE: 0.06})
    picks = rng.sample(texts.countries, 170)
    for i, (klass, (code, lang, name, official)) in enumerate(
            zip(row_classes(rng, len(picks), countries.weights), picks), 1):
        reading = damage(rng, klass)
        countries.rows.append([i, code, lang, Cell(name, klass, reading),
                               Cell(official, klass, reading) if official else None])
    tables.append(countries)

    calendar = Table("calendar_labels", [
        "`id` int NOT NULL AUTO_INCREMENT", "`locale` varchar(16) NOT NULL",
        "`months` text NOT NULL", "`months_abbr` text NOT NULL", "`weekdays` text NOT NULL"],
        {CLEAN: 0.48, DOUBLE: 0.45, TRIPLE: 0.07})
    picks = texts.calendars
    for i, (klass, cal) in enumerate(zip(row_classes(rng, len(picks), calendar.weights), picks), 1):
        reading = damage(rng, klass)
        calendar.rows.append([i, cal["locale"]] + [Cell(", ".join(cal[k]), klass, reading)
                                                    for k in ("mon", "abmon", "day")])
    tables.append(calendar)

    messages = Table("ui_messages", [
        "`id` int NOT NULL AUTO_INCREMENT", "`domain` varchar(32) NOT NULL",
        "`lang` varchar(8) NOT NULL", "`msgid` text NOT NULL", "`msgstr` text NOT NULL"],
        {CLEAN: 0.45, DOUBLE: 0.47, TRIPLE: 0.08})
    picks = rng.sample(texts.messages, 150)
    for i, (klass, (lang, msgid, msgstr)) in enumerate(
            zip(row_classes(rng, len(picks), messages.weights), picks), 1):
        reading = damage(rng, klass)
        messages.rows.append([i, "coreutils", lang, Cell(msgid, CLEAN),
                              Cell(msgstr, klass, reading)])
    tables.append(messages)

    products = Table("products", [
        "`id` int NOT NULL AUTO_INCREMENT", "`sku` varchar(16) NOT NULL",
        "`name` varchar(255) NOT NULL", "`description` text",
        "`price` decimal(10,2) NOT NULL"],
        {CLEAN: 0.30, DOUBLE: 0.17, TRIPLE: 0.03, LOOKALIKE: 0.50})
    n = 120
    for i, klass in enumerate(row_classes(rng, n, products.weights), 1):
        if klass == LOOKALIKE:
            name, description = texts.lookalike(), texts.lookalike()
        else:
            name, description = texts.product()
        reading = damage(rng, klass)
        products.rows.append([i, f"SKU-{rng.randrange(10 ** 6):06d}", Cell(name, klass, reading),
                              Cell(description, klass, reading),
                              f"{rng.randrange(1, 1000)}.{rng.randrange(100):02d}"])
    tables.append(products)

    emoji = Table("emoji", [
        "`id` int NOT NULL AUTO_INCREMENT", "`emoji` varchar(32) NOT NULL",
        "`name` varchar(128) NOT NULL", "`category` varchar(64) NOT NULL"],
        {CLEAN: 0.45, DOUBLE: 0.45, TRIPLE: 0.10})
    picks = rng.sample(texts.emoji, 70)
    for i, (klass, (char, name, group)) in enumerate(
            zip(row_classes(rng, len(picks), emoji.weights), picks), 1):
        emoji.rows.append([i, Cell(char, klass, damage(rng, klass)), Cell(name, CLEAN), group])
    tables.append(emoji)

    mix_rows(rng, tables)
    return tables


def mix_rows(rng, tables):
    """A few rows where a damaged cell sits next to a clean one that holds non-ASCII text."""
    for table in tables:
        for _ in range(3):
            row = rng.choice([r for r in table.rows if sum(
                isinstance(v, Cell) and v.klass in (DOUBLE, TRIPLE) for v in r) >= 2] or [None])
            if row is None:
                break
            damaged = [j for j, v in enumerate(row) if isinstance(v, Cell)
                       and v.klass in (DOUBLE, TRIPLE)]
            j = rng.choice(damaged)
            row[j] = Cell(row[j].text, CLEAN)


# ---------------------------------------------------------------------------------------------
# Output

DUMP_HEADER = """-- MySQL dump 10.13  Distrib 8.0.36, for Linux (x86_64)
--
-- Host: localhost    Database: shop
-- ------------------------------------------------------
-- Server version\t8.0.36
--
-- Sample generated by corpus/make_corpus.py: latin1 columns that received UTF-8 bytes,
-- dumped as utf8mb4. See corpus/README.md.

/*!40101 SET @OLD_CHARACTER_SET_CLIENT=@@CHARACTER_SET_CLIENT */;
/*!40101 SET @OLD_CHARACTER_SET_RESULTS=@@CHARACTER_SET_RESULTS */;
/*!40101 SET @OLD_COLLATION_CONNECTION=@@COLLATION_CONNECTION */;
/*!50503 SET NAMES utf8mb4 */;
/*!40103 SET @OLD_TIME_ZONE=@@TIME_ZONE */;
/*!40103 SET TIME_ZONE='+00:00' */;
/*!40014 SET @OLD_UNIQUE_CHECKS=@@UNIQUE_CHECKS, UNIQUE_CHECKS=0 */;
/*!40014 SET @OLD_FOREIGN_KEY_CHECKS=@@FOREIGN_KEY_CHECKS, FOREIGN_KEY_CHECKS=0 */;
/*!40101 SET @OLD_SQL_MODE=@@SQL_MODE, SQL_MODE='NO_AUTO_VALUE_ON_ZERO' */;
/*!40111 SET @OLD_SQL_NOTES=@@SQL_NOTES, SQL_NOTES=0 */;
"""

DUMP_FOOTER = """/*!40103 SET TIME_ZONE=@OLD_TIME_ZONE */;

/*!40101 SET SQL_MODE=@OLD_SQL_MODE */;
/*!40014 SET FOREIGN_KEY_CHECKS=@OLD_FOREIGN_KEY_CHECKS */;
/*!40014 SET UNIQUE_CHECKS=@OLD_UNIQUE_CHECKS */;
/*!40101 SET CHARACTER_SET_CLIENT=@OLD_CHARACTER_SET_CLIENT */;
/*!40101 SET CHARACTER_SET_RESULTS=@OLD_CHARACTER_SET_RESULTS */;
/*!40101 SET COLLATION_CONNECTION=@OLD_COLLATION_CONNECTION */;
/*!40111 SET SQL_NOTES=@OLD_SQL_NOTES */;

-- Dump completed
"""

ROWS_PER_INSERT = 25


def render_dump(tables, expected):
    # The tables are latin1, as those of a database filled through a latin1 connection; their
    # true text is multilingual, which latin1 cannot hold: the repaired dump declares them
    # utf8mb4, as `fix --convert-charset utf8mb4` rewrites them, so that it reloads as that text.
    charset = "utf8mb4" if expected else "latin1"
    out = [DUMP_HEADER]
    for t in tables:
        out.append(f"""
--
-- Table structure for table `{t.name}`
--

DROP TABLE IF EXISTS `{t.name}`;
/*!40101 SET @saved_cs_client     = @@character_set_client */;
/*!50503 SET character_set_client = utf8mb4 */;
CREATE TABLE `{t.name}` (
  {(',' + chr(10) + '  ').join(t.columns)},
  PRIMARY KEY (`id`)
) ENGINE=InnoDB AUTO_INCREMENT={len(t.rows) + 1} DEFAULT CHARSET={charset};
/*!40101 SET character_set_client = @saved_cs_client */;

--
-- Dumping data for table `{t.name}`
--

LOCK TABLES `{t.name}` WRITE;
/*!40000 ALTER TABLE `{t.name}` DISABLE KEYS */;
""")
        for start in range(0, len(t.rows), ROWS_PER_INSERT):
            rows = ",".join("(" + ",".join(value_sql(v, expected) for v in row) + ")"
                            for row in t.rows[start:start + ROWS_PER_INSERT])
            out.append(f"INSERT INTO `{t.name}` VALUES {rows};\n")
        out.append(f"/*!40000 ALTER TABLE `{t.name}` ENABLE KEYS */;\nUNLOCK TABLES;\n")
    out.append("\n" + DUMP_FOOTER)
    return "".join(out)


def clean_lines(rng, texts):
    """Entries for clean-multilingual.txt: one per line, shuffled."""
    lines = [f"{c['locale']}: {', '.join(c['mon'])} / {', '.join(c['day'])}"
             for c in texts.calendars]
    lines += [f"{lang}: {name}" + (f" — {official}" if official else "")
              for _, lang, name, official in rng.sample(texts.countries, 260)]
    lines += [msgstr.replace("\n", " ") for _, _, msgstr in rng.sample(texts.messages, 200)]
    lines += [f"{char} {name} ({group})" for char, name, group in rng.sample(texts.emoji, 60)]
    lines += [" — ".join(texts.product()) for _ in range(60)]
    lines += [texts.lookalike() for _ in range(120)]
    rng.shuffle(lines)
    return lines


CJK_NAMES = {"CJK", "HIRAGANA", "KATAKANA", "KATAKANA-HIRAGANA", "IDEOGRAPHIC", "HALFWIDTH",
             "FULLWIDTH"}


def script_of(ch):
    """Script of a letter (first word of its Unicode name, CJK grouped), or a kind of symbol."""
    category = unicodedata.category(ch)
    if ord(ch) >= 0x1F000 or category == "So" or "VARIATION SELECTOR" in unicodedata.name(ch, ""):
        return "emoji and symbols"
    if category[0] not in "LM":
        return "punctuation, spaces, digits"
    word = unicodedata.name(ch, "UNNAMED").split()[0]
    return "CJK" if word in CJK_NAMES else word.capitalize()


LAYERS = {1: "1 layer (double-encoded)", 2: "2 layers (triple-encoded)"}


def reading_of(ch, reading, layers):
    """Which readings could have produced this character's damage: both when they agree."""
    same = misread(ch, "iso-8859-1", layers) == misread(ch, "cp1252", layers)
    return "consistent with both" if same else f"{reading} only"


def count(tables, clean_text, texts):
    cells = [v for t in tables for row in t.rows for v in row if isinstance(v, Cell)]
    stats = {"cells": {}, "layers": {}, "readings": {}, "scripts": {}, "cells_by_reading": {},
             "cells_by_script": {}, "shapes": {}}

    def bump(group, key, n=1):
        stats[group][key] = stats[group].get(key, 0) + n

    for c in cells:
        kind = c.klass
        if kind == CLEAN:
            kind = "clean ASCII" if c.text.isascii() else "clean UTF-8"
        bump("cells", kind)
        if c.klass == LOOKALIKE:
            bump("shapes", texts.shape_of[c.text])
        if c.layers:
            bump("cells_by_reading", f"{c.reading}, {LAYERS[c.layers]}")
            scripts = [script_of(ch) for ch in c.text if not ch.isascii()]
            bump("cells_by_script", max(sorted(set(scripts)), key=scripts.count))
            for ch in c.text:
                if not ch.isascii():
                    bump("layers", LAYERS[c.layers])
                    bump("readings", reading_of(ch, c.reading, c.layers))
                    bump("scripts", script_of(ch))
    stats["lookalike_in_lookalike_cells"] = sum(len(lookalike_sequences(c.text))
                                                for c in cells if c.klass == LOOKALIKE)
    stats["lookalike_in_clean_cells"] = sum(len(lookalike_sequences(c.text))
                                            for c in cells if c.klass == CLEAN)
    stats["damaged_with_lookalike"] = sum(1 for c in cells
                                          if c.layers and lookalike_sequences(c.text))
    stats["clean_lines"] = len(clean_text.splitlines())
    stats["clean_lookalike_lines"] = sum(1 for line in clean_text.splitlines()
                                         if lookalike_sequences(line))
    stats["clean_lookalikes"] = len(lookalike_sequences(clean_text))
    stats["clean_scripts"] = {}
    for ch in clean_text:
        if not ch.isascii():
            stats["clean_scripts"][script_of(ch)] = stats["clean_scripts"].get(script_of(ch), 0) + 1
    return stats


def table_md(rows, total_label=None):
    lines = ["| | count |", "| --- | ---: |"]
    lines += [f"| {k} | {v} |" for k, v in rows]
    if total_label:
        lines.append(f"| **{total_label}** | **{sum(v for _, v in rows)}** |")
    return "\n".join(lines)


def readme(stats, sizes):
    cells = stats["cells"]
    total = sum(cells.values())
    order = ["clean ASCII", "clean UTF-8", "double", "triple", "lookalike"]
    cell_rows = [(f"{k} ({100 * cells.get(k, 0) / total:.0f}%)", cells.get(k, 0)) for k in order]
    by = lambda d: sorted(d.items(), key=lambda kv: (-kv[1], kv[0]))  # noqa: E731
    return f"""# Sample corpus

Generated by `make_corpus.py` from real text shipped by Debian packages; do not edit by hand.
Regenerate with `python3 corpus/make_corpus.py` (deterministic: fixed seed, sorted inputs, no
timestamps; it prints the `apt-get install` line if a source package is missing). The tests
use the committed files and never need the packages.

| file | bytes | what |
| --- | ---: | --- |
| `dump-sample.sql` | {sizes['dump-sample.sql']} | mysqldump-like file (`SET NAMES utf8mb4`, `latin1` tables, extended `INSERT`s, MySQL string escapes) whose text cells are clean, double-encoded, triple-encoded or legitimate look-alikes |
| `dump-sample.expected.sql` | {sizes['dump-sample.expected.sql']} | the same file with every double/triple-encoded cell restored to its true text, the tables' `DEFAULT CHARSET=latin1` made `utf8mb4`, and every other byte identical: what a correct `fix --convert-charset utf8mb4` produces (the true text is multilingual: kept latin1, it would not reload) |
| `clean-multilingual.txt` | {sizes['clean-multilingual.txt']} | correctly encoded text, one entry per line, many scripts, look-alikes included: nothing to repair |

## Where the text comes from

| package | used for |
| --- | --- |
| `locales` | month and day names (LC_TIME) and currency symbols (LC_MONETARY) of {len(CALENDAR_LOCALES)} glibc locales: `calendar_labels`, prices |
| `iso-codes` | English country names (`iso_3166-1.json`) and their translations (`iso_3166-1.mo`) in {len(COUNTRY_LANGS)} languages: `countries` |
| `coreutils` | translated messages (`coreutils.mo`) in {len(MESSAGE_LANGS)} languages: `ui_messages` |
| `unicode-data` | emoji and their names (`emoji-test.txt`): `emoji`, product names |
| {", ".join(f"`{p}`" for p in PACKAGES if p.startswith("hunspell-"))} | words for `products` and for the look-alikes |

The damage is the byte maths of DESIGN.md section 1: a cell's UTF-8 bytes are read as MySQL's
`latin1` (Windows-1252 with 0x81 0x8D 0x8F 0x90 0x9D kept as C1 controls) or as ISO-8859-1 and
written back as UTF-8, once (double-encoded) or twice (triple-encoded). Key columns (`alpha_2`,
`lang`, `sku`, ...) and numbers are not text cells and are never damaged.

Look-alikes are correctly encoded text that has the shape of a double-encoded character (a
character U+00C2..U+00F4 followed by the right number of characters standing for continuation
bytes, forming well-formed UTF-8 under one reading) and must be left alone: capitals before
`®` `™` `°` `’` (`CAFÉ®`), French spacing (`DÉCONSEILLÉ` + U+00A0 + `;`, `«` U+00A0 `café`
U+00A0 `»`), German `»Gruß«`, capitals ending in `Ã`/`Â`/`Ê`/`Ô` before U+00A0 (Portuguese
`IRMÃ`, Turkish `HÂLÂ`), soft hyphens after an accented capital, and dictionary words that
match on their own once capitalised (Czech `Úžasný`, `ÚŽASNÝ`).

## Counts in `dump-sample.sql`

Text cells by class ({total} in all):

{table_md(cell_rows, "total")}

Damaged cells by reading and layers (a layer is one misreading: double-encoded text has one,
triple-encoded text two, as `undouble` counts them):

{table_md(by(stats["cells_by_reading"]))}

Double-encoded characters (one per non-ASCII character of the true text of a damaged cell; a
triple-encoded one counts once) by layers:

{table_md(by(stats["layers"]), "total")}

The same characters by reading. "Consistent with both" means that the ISO-8859-1 and the MySQL
cp1252 readings give the same bytes (no byte 0x80..0x9F other than 0x81 0x8D 0x8F 0x90 0x9D
was read, in any layer); otherwise the reading that was used is the only one that fits:

{table_md(by(stats["readings"]), "total")}

The same characters by script:

{table_md(by(stats["scripts"]), "total")}

Damaged cells by the most frequent script among their non-ASCII characters:

{table_md(by(stats["cells_by_script"]), "total")}

Look-alike cells by shape:

{table_md(by(stats["shapes"]), "total")}

Double-encoding shapes (see above) in look-alike cells: {stats["lookalike_in_lookalike_cells"]};
in clean cells: {stats["lookalike_in_clean_cells"]}. Every one of them must be left alone. Damaged
cells whose true text itself holds such a shape (repairing one layer too many would break them):
{stats["damaged_with_lookalike"]}.

## Counts in `clean-multilingual.txt`

{stats["clean_lines"]} lines; {stats["clean_lookalike_lines"]} of them hold
{stats["clean_lookalikes"]} double-encoding shapes that must be left alone. Non-ASCII characters
by script:

{table_md(by(stats["clean_scripts"]), "total")}
"""


def main():
    require_packages()
    rng = random.Random(SEED)
    texts = Texts(rng)
    tables = build_tables(rng, texts)
    dump = render_dump(tables, expected=False)
    expected = render_dump(tables, expected=True)
    clean_text = "\n".join(clean_lines(rng, texts)) + "\n"

    for line in clean_text.splitlines():
        assert not re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f]", line), line
    # Only the damaged cells differ between the two dumps.
    cells = [v for t in tables for row in t.rows for v in row if isinstance(v, Cell)]
    assert sum(1 for c in cells if c.stored != c.text) == sum(1 for c in cells if c.layers)

    outputs = {"dump-sample.sql": dump, "dump-sample.expected.sql": expected,
               "clean-multilingual.txt": clean_text}
    sizes = {}
    for name, text in outputs.items():
        data = text.encode("utf-8")
        if len(data) > MAX_FILE_BYTES:
            sys.exit(f"make_corpus.py: {name} would be {len(data)} bytes, over {MAX_FILE_BYTES}")
        sizes[name] = len(data)
        with open(os.path.join(HERE, name), "wb") as f:
            f.write(data)
    stats = count(tables, clean_text, texts)
    text = readme(stats, sizes)
    with open(os.path.join(HERE, "README.md"), "w", encoding="utf-8") as f:
        f.write(text)
    print(text[text.index("## Counts"):])


if __name__ == "__main__":
    main()
