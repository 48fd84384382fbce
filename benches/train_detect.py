#!/usr/bin/env python3
"""Trains the data behind `undouble detect`'s statistical guesses and writes
src/charset/guess_tables.rs.

chardetng is the base guess, but it has no x-mac-cyrillic, no KOI8-R, no ISO-8859-15, and no
score to say how far to trust it. Two things are learnt here from real text, the translations
Debian installs (/usr/share/locale/*/LC_MESSAGES/*.mo), and written out as data:

1. Byte tables, one per single-byte encoding and language written in it: how often each
   non-ASCII byte occurs after an ASCII letter, after another non-ASCII byte, or after
   anything else. An encoding scores as its best-fitting language: a mixture of the languages
   would dilute French `é` with German `ä` until Czech in ISO-8859-2 fitted French better
   than French did. A guess of chardetng's that is a single-byte encoding is re-ranked among
   the tables' encodings that decode the sample cleanly, with a bonus for chardetng's own
   choice, itself fitted here.
2. A logistic model of the chance that the final answer is right, from the non-ASCII byte
   count, whether the answer decodes cleanly, the tables' margin and fit, and whether the
   tables and chardetng agree: the confidence that `--min-confidence` is compared with.

The catalogues are split by a hash of their package name (`detect_accuracy.package_part`):
the tables learn from one quarter, the bonus and the logistic model from another, and the
benchmark (`benches/detect_accuracy.sh`) builds its corpus from the other half only, so no
text is on both sides.

    benches/train_detect.py            # writes src/charset/guess_tables.rs
    benches/train_detect.py --check    # fails if the committed file differs from a fresh one

The second stage needs chardetng's guesses: it builds the benchmark's `detect_features`
target (`cargo bench --bench detect_features`), which prints, for each file, chardetng's
guess and every table's score. Runs in a couple of minutes.
"""

import json
import math
import os
import random
import subprocess
import sys
import tempfile
import unicodedata

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

import detect_accuracy  # noqa: E402  (the corpus split and helpers are shared)

OUTPUT = os.path.join(ROOT, "src", "charset", "guess_tables.rs")

# The quarters of the packages (by `detect_accuracy.package_part`) each stage reads.
TABLE_PARTS = {0}
CALIBRATION_PARTS = {2}

# Each table: the encoding as encoding_rs names it (glibc for the DOS pages it lacks), its Python codec, the languages whose text
# it is trained on (a language's catalogues each weigh the same in the table).
MODELS = [
    ("windows-1252", "cp1252",
     ["de", "fr", "es", "pt", "it", "nl", "da", "sv", "fi", "ca", "en_GB"]),
    ("ISO-8859-15", "iso8859_15", ["et"]),
    ("windows-1250", "cp1250", ["pl", "cs", "sk", "hu", "ro", "hr", "sl"]),
    ("ISO-8859-2", "iso8859_2", ["pl", "cs", "sk", "hu", "ro", "hr", "sl"]),
    ("windows-1251", "cp1251", ["ru", "bg", "uk", "sr", "mk", "be"]),
    ("x-mac-cyrillic", "mac_cyrillic", ["ru", "bg", "uk", "sr", "mk"]),
    ("KOI8-R", "koi8_r", ["ru"]),
    ("KOI8-U", "koi8_u", ["uk"]),
    ("IBM866", "cp866", ["ru", "bg", "uk"]),
    ("IBM855", "cp855", ["ru", "bg", "sr", "mk"]),
    ("ISO-8859-5", "iso8859_5", ["ru", "bg", "sr", "mk"]),
    ("windows-1253", "cp1253", ["el"]),
    ("ISO-8859-7", "iso8859_7", ["el"]),
    ("CP737", "cp737", ["el"]),
    ("windows-1254", "cp1254", ["tr", "az"]),
    ("windows-1255", "cp1255", ["he"]),
    ("windows-1256", "cp1256", ["ar", "fa"]),
    ("windows-1257", "cp1257", ["lt", "lv", "et"]),
    ("ISO-8859-13", "iso8859_13", ["lt", "lv", "et"]),
    ("windows-1258", "cp1258", ["vi"]),
    ("windows-874", "cp874", ["th"]),
]

# Smoothing: a share of each table spread over the cells of bytes that decode to a letter (a
# letter the training text happened not to hold), and a smaller one over every cell.
LETTER_SHARE = 0.01
ANY_SHARE = 0.0005

# The calibration corpus: sizes in characters, forms, samples per size and form.
CALIBRATION_SIZES = [30, 60, 120, 250, 500, 1000, 4000]
CALIBRATION_SAMPLES = 3

# The bonus for chardetng's own choice, in centinats, is the best of these on the
# calibration corpus (the largest on a tie: chardetng stays the base).
BONUS_GRID = [0, 100, 200, 300, 500, 700, 1000, 1500, 2000, 3000, 5000, 10000, 1000000]

# Must match src/charset/guess.rs.
MARGIN_CAP = 10000
FIT_FLOOR = -20.0
CLASSES = 3  # after an ASCII letter, after a non-ASCII byte, after anything else

# Extra calibration text for UTF-8's neighbours that chardetng answers itself: CJK. And Korean
# in Johab, which neither chardetng nor the tables know: the model must learn that a table
# fitting text of no language it knows is no answer (chardetng calls Johab windows-1252, and a
# Cyrillic DOS table then fits it better than anything else).
CHARDETNG_PAIRS = [
    ("ja", "SHIFT_JIS", "shift_jis"), ("ja", "EUC-JP", "euc_jp"), ("zh_CN", "GBK", "gbk"),
    ("zh_CN", "GB18030", "gb18030"), ("zh_TW", "Big5", "big5"), ("ko", "EUC-KR", "euc_kr"),
    ("ko", "Johab", "johab"),
]


# Typographic punctuation that ISO code pages lack, as writers in them type it. Without this
# the ISO tables would learn only from messages free of `…` and `„`, so their letters would
# weigh more than the same letters of the Windows page: a bias of a few centinats a byte that
# a long text sums into a wrong answer (Hungarian windows-1250 read as ISO-8859-2 despite
# its `…`, which ISO-8859-2 has only as a control).
ASCII_PUNCTUATION = str.maketrans({
    "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u201c": '"', "\u201d": '"',
    "\u201e": '"', "\u201f": '"', "\u2026": "...", "\u2013": "-", "\u2014": "-",
    "\u2022": "*", "\u00ab": '"', "\u00bb": '"', "\u2039": "'", "\u203a": "'",
})


def encode(text, codec):
    """`text` in `codec`, or None. Punctuation the codec lacks is written in ASCII, as writers
    in it write it. Vietnamese in windows-1258 is written as Windows writes it: a letter the
    code page lacks is its base (itself precomposed where the code page has it) and combining
    tone marks."""
    try:
        return text.encode(codec)
    except UnicodeEncodeError:
        pass
    plain = "".join(
        char.translate(ASCII_PUNCTUATION) if not can_encode(char, codec) else char
        for char in text)
    try:
        return plain.encode(codec)
    except UnicodeEncodeError:
        if codec != "cp1258":
            return None
    text = plain
    out = []
    for char in text:
        try:
            out.append(char.encode(codec))
            continue
        except UnicodeEncodeError:
            pass
        parts = unicodedata.normalize("NFD", char)
        base, marks = parts[0], parts[1:]
        if marks:
            joined = unicodedata.normalize("NFC", base + marks[0])
            if len(joined) == 1:
                try:
                    joined.encode(codec)
                    base, marks = joined, marks[1:]
                except UnicodeEncodeError:
                    pass
        try:
            out.append((base + marks).encode(codec))
        except UnicodeEncodeError:
            return None
    return b"".join(out)


def can_encode(char, codec):
    try:
        char.encode(codec)
        return True
    except UnicodeEncodeError:
        return False


def right(data, answer, text):
    """Whether `answer` decodes `data` to `text`, up to Unicode normalisation (windows-1258
    writes tone marks apart)."""
    codec = detect_accuracy.codec_of(answer)
    if codec is None:
        return False
    try:
        decoded = data.decode(codec)
    except (UnicodeDecodeError, LookupError):
        return False
    return unicodedata.normalize("NFC", decoded) == unicodedata.normalize("NFC", text)


def byte_class(byte):
    if byte >= 0x80:
        return 1
    return 0 if chr(byte).isalpha() else 2


def count(data, counts):
    previous = 2
    for byte in data:
        if byte >= 0x80:
            counts[previous][byte - 0x80] += 1
        previous = byte_class(byte)


def letter_bytes(codec):
    letters = set()
    for byte in range(0x80, 0x100):
        try:
            char = bytes([byte]).decode(codec)
        except UnicodeDecodeError:
            continue
        if char.isalpha() or unicodedata.category(char) == "Mn":
            letters.add(byte)
    return letters


def train_table(codec, language):
    """Log-probabilities in centinats, [class][byte - 0x80], of one language's text in
    `codec`; None if the language has no text the codec can write."""
    counts = [[0] * 128 for _ in range(CLASSES)]
    for text in detect_accuracy.messages(language, TABLE_PARTS):
        data = encode(text, codec)
        if data is not None:
            count(data, counts)
    total = sum(map(sum, counts))
    if total == 0:
        return None
    letters = letter_bytes(codec)
    letter_cells = CLASSES * len(letters)
    table = []
    for c in range(CLASSES):
        row = []
        for b in range(128):
            p = (1 - LETTER_SHARE - ANY_SHARE) * counts[c][b] / total
            if b + 0x80 in letters:
                p += LETTER_SHARE / letter_cells
            p += ANY_SHARE / (CLASSES * 128)
            row.append(max(-32768, round(100 * math.log(p))))
        table.append(row)
    return table


def train_tables():
    """[(encoding, language, table)] for every language of every model that has text."""
    tables = []
    for name, codec, languages in MODELS:
        for language in languages:
            table = train_table(codec, language)
            if table is not None:
                tables.append((name, language, table))
    return tables


def render(tables, bonus, weights, summary):
    lines = [
        "//! Generated by `benches/train_detect.py`; do not edit: rerun the script, which says",
        "//! how these were learnt (`--check` tells whether this file is what it writes).",
        "//!",
        f"//! {summary}",
        "",
        "use super::guess::ByteTable;",
        "",
        "/// Log-probabilities in centinats of each non-ASCII byte after an ASCII letter, after",
        "/// a non-ASCII byte, and after anything else, per encoding and language.",
        f"pub(super) static TABLES: [ByteTable; {len(tables)}] = [",
    ]
    for name, language, table in tables:
        lines.append("    ByteTable {")
        lines.append(f"        encoding: \"{name}\",")
        lines.append(f"        language: \"{language}\",")
        lines.append("        log_p: [")
        for row in table:
            lines.append("            [")
            for start in range(0, 128, 16):
                cells = ", ".join(str(v) for v in row[start:start + 16])
                lines.append(f"                {cells},")
            lines.append("            ],")
        lines.append("        ],")
        lines.append("    },")
    lines.append("];")
    lines.append("")
    lines.append("/// The bonus, in centinats, of chardetng's own choice among the tables' encodings.")
    lines.append(f"pub(super) const CHARDETNG_BONUS: i64 = {bonus};")
    lines.append("")
    lines.append("/// The logistic model's weights, in the order of `guess::features`.")
    cells = ", ".join(repr(round(w, 6)) for w in weights)
    lines.append(f"pub(super) const CALIBRATION: [f64; {len(weights)}] = [{cells}];")
    return "\n".join(lines) + "\n"


def calibration_corpus(directory):
    """Writes the calibration files; returns [(path, text)]."""
    rng = random.Random(20261203)
    files = []
    pairs = [(language, name, codec) for name, codec, languages in MODELS
             for language in languages]
    pairs += CHARDETNG_PAIRS
    pools = {}
    for language, name, codec in pairs:
        if language not in pools:
            pools[language] = detect_accuracy.messages(language, CALIBRATION_PARTS)
        pool = pools[language]
        if not pool:
            continue
        for size in CALIBRATION_SIZES:
            for form in detect_accuracy.FORMATS:
                for index in range(CALIBRATION_SAMPLES):
                    text, data = None, None
                    for _ in range(20):
                        candidate = detect_accuracy.sample(
                            pool, size, rng, lambda text: encode(text, codec) is not None)
                        candidate = detect_accuracy.wrap(candidate, form, language)
                        data = encode(candidate, codec)
                        if data is not None and any(b >= 0x80 for b in data):
                            # What the file holds: its punctuation may be ASCII'd.
                            text = data.decode(codec)
                            break
                    if text is None:
                        continue
                    path = os.path.join(directory, f"{language}-{name}-{size}-{index}.{form}")
                    with open(path, "wb") as handle:
                        handle.write(data)
                    files.append((path, data, text))
    return files


def chardetng_features(paths):
    """What the `detect_features` bench target prints for each path, by path."""
    listing = tempfile.NamedTemporaryFile("w", delete=False, suffix=".lst")
    with listing:
        listing.write("\n".join(paths) + "\n")
    out = subprocess.run(
        ["nice", "-n", "10", "cargo", "bench", "--quiet", "--locked", "--bench",
         "detect_features", "--", listing.name],
        cwd=ROOT, capture_output=True, text=True, check=True)
    os.unlink(listing.name)
    records = {}
    for line in out.stdout.splitlines():
        if line.startswith("{"):
            record = json.loads(line)
            records[record["path"]] = record
    return records


def decide(record, bonus):
    """The answer and its features, as src/charset/guess.rs computes them."""
    guess = record["chardetng"]
    n = record["non_ascii"]
    candidates = record["tables"]
    if not any(name == guess for name, _, _ in candidates):
        return guess, features(n, record["chardetng_clean"], False, 0, True, 0.0)
    ranked = sorted(((score + (bonus if name == guess else 0), index, name, score)
                     for index, (name, score, clean) in enumerate(candidates) if clean),
                    key=lambda r: (-r[0], r[1]))
    if not ranked:
        return guess, features(n, False, True, 0, True, 0.0)
    best = ranked[0]
    margin = best[0] - ranked[1][0] if len(ranked) > 1 else MARGIN_CAP
    fit = best[3] / (100 * n) if n else 0.0
    return best[2], features(n, True, True, margin, best[2] == guess, fit)


def features(n, clean, modelled, margin, agrees, fit):
    return [
        1.0,
        math.log1p(n),
        1.0 if clean else 0.0,
        1.0 if modelled else 0.0,
        math.log1p(min(max(margin, 0), MARGIN_CAP) / 100),
        1.0 if agrees else 0.0,
        max(fit, FIT_FLOOR),
    ]


def fit_logistic(rows, labels, l2=0.01, rounds=50):
    """Newton's method on the L2-penalised log-loss (no numpy on a bare machine)."""
    k = len(rows[0])
    w = [0.0] * k
    for _ in range(rounds):
        gradient = [l2 * wi for wi in w]
        hessian = [[l2 if i == j else 0.0 for j in range(k)] for i in range(k)]
        for x, y in zip(rows, labels):
            p = 1 / (1 + math.exp(-max(-30, min(30, sum(a * b for a, b in zip(w, x))))))
            for i in range(k):
                gradient[i] += (p - y) * x[i]
                for j in range(k):
                    hessian[i][j] += p * (1 - p) * x[i] * x[j]
        step = solve(hessian, gradient)
        w = [wi - si for wi, si in zip(w, step)]
        if max(abs(s) for s in step) < 1e-9:
            break
    return w


def solve(matrix, vector):
    n = len(vector)
    a = [row[:] + [v] for row, v in zip(matrix, vector)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(a[r][col]))
        a[col], a[pivot] = a[pivot], a[col]
        for r in range(n):
            if r != col and a[col][col]:
                factor = a[r][col] / a[col][col]
                a[r] = [x - factor * y for x, y in zip(a[r], a[col])]
    return [a[i][n] / a[i][i] if a[i][i] else 0.0 for i in range(n)]


def main():
    check = "--check" in sys.argv[1:]
    tables = train_tables()
    # The tables first, so that the features target scores with them.
    placeholder = render(tables, 0, [0.0] * 7, "(calibrating)")
    original = open(OUTPUT).read() if os.path.exists(OUTPUT) else None
    with open(OUTPUT, "w") as handle:
        handle.write(placeholder)
    try:
        with tempfile.TemporaryDirectory() as directory:
            files = calibration_corpus(directory)
            records = chardetng_features([path for path, _, _ in files])
            labelled = [(records[path], data, text) for path, data, text in files
                        if path in records]
            best = None
            for bonus in BONUS_GRID:
                hits = sum(right(data, decide(r, bonus)[0], text)
                           for r, data, text in labelled)
                if best is None or hits >= best[0]:
                    best = (hits, bonus)
            right_n, bonus = best
            rows, labels = [], []
            for record, data, text in labelled:
                answer, x = decide(record, bonus)
                rows.append(x)
                labels.append(1.0 if right(data, answer, text) else 0.0)
            weights = fit_logistic(rows, labels)
            chardetng_alone = sum(right(data, r["chardetng"], text)
                                  for r, data, text in labelled)
    except BaseException:
        if original is not None:
            with open(OUTPUT, "w") as handle:
                handle.write(original)
        raise
    summary = (f"Calibrated on {len(labelled)} files: chardetng alone right on "
               f"{chardetng_alone}, with the tables {right_n}.")
    rendered = render(tables, bonus, weights, summary)
    if check:
        with open(OUTPUT, "w") as handle:
            handle.write(original or "")
        if original != rendered:
            sys.exit(f"{OUTPUT} is not what benches/train_detect.py writes: rerun it")
        print("guess_tables.rs is up to date")
        return
    with open(OUTPUT, "w") as handle:
        handle.write(rendered)
    print(summary)
    print(f"bonus {bonus}, weights {weights}")


if __name__ == "__main__":
    main()
