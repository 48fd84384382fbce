#!/usr/bin/env python3
"""Sort ftfy's encoding test cases by how they were garbled, and count what undouble repairs.

Why: ftfy's own cases (tests/data/peers/ftfy/cases.jsonl, Apache-2.0, Robyn Speer) mix
garblings undouble's default reading undoes (UTF-8 read as ISO-8859-1 / Windows-1252) with
ones through other code pages and ones that also lost a byte. tests/ftfy_suite.rs checks the
floors; this script gives the per-kind table the project's figures quote. Each case not
explained by the Western pages is sorted by its label (ftfy names the page and the loss)
and its bytes:

- "western": some chain of up to three layers of Latin-1 / Windows-1252 (strict or sloppy)
  turns the original into the expected text;
- "other code page": the label names another page (MacRoman, Windows-1250/1251/1257,
  ISO-8859-2, codepage 437...), or a chain through the other pages explains the case;
- "lost byte": the original holds U+FFFD, a chain explains it once a byte is put back for a
  space or `?`, or the label says the decoding lost something (lossy, incomplete, a space
  coalesced or absorbed, `?` marks);
- "neither": the rest (inconsistent garblings, CESU-8, C1 controls in Windows-1252 text).

A case can be both other-code-page and lost-byte; it is then counted in both.

Usage: benches/ftfy_check.py UNDOUBLE [undouble fix options, e.g. --readings auto]
Prints one line per kind: cases, repaired exactly by `UNDOUBLE fix OPTIONS`, how many of them
ftfy's suite expects ftfy itself to repair and how many of those undouble repairs, and the
misses; and the `unchanged` cases it changed (must be none).
"""
import json
import re
import pathlib
import subprocess
import sys
from itertools import product

CASES = pathlib.Path(__file__).resolve().parent.parent / "tests/data/peers/ftfy/cases.jsonl"
WESTERN = ["latin-1", "cp1252", "sloppy-cp1252"]
OTHERS = ["mac_roman", "cp1250", "sloppy-cp1250", "cp1251", "sloppy-cp1251", "cp1253",
          "sloppy-cp1253", "cp1254", "sloppy-cp1254", "cp1257", "sloppy-cp1257", "iso8859_2",
          "iso8859_15", "cp437", "cp850", "koi8_r"]


NAMES_A_PAGE = re.compile(r"MacRoman|Windows-125[013-9]|ISO-8859-2|codepage 437|cp437|KOI8",
                          re.IGNORECASE)
SAYS_LOST = re.compile(r"loss|lose|lost|incomplete|coalesced|absorbs|question marks|'às'|"
                       r"àquele", re.IGNORECASE)


def encode(text, codec):
    """Text as the bytes a code page gives it; sloppy codecs keep undefined bytes (ftfy's)."""
    if not codec.startswith("sloppy-"):
        return text.encode(codec)
    base = codec[len("sloppy-"):]
    out = bytearray()
    for ch in text:
        try:
            out += ch.encode(base)
        except UnicodeEncodeError:
            if ord(ch) > 0xFF:
                raise
            out.append(ord(ch))
    return bytes(out)


def undo(text, chain):
    for codec in chain:
        text = encode(text, codec).decode("utf-8")
    return text


def explained(original, expected, codecs):
    for layers in (1, 2, 3):
        for chain in product(codecs, repeat=layers):
            try:
                if undo(original, chain) == expected:
                    return True
            except (UnicodeEncodeError, UnicodeDecodeError):
                pass
    return False


def lost_form(original, expected):
    """Whether the original looks like it lost a byte: a replacement character, or a space or ?
    where the chain's bytes would need another byte (tried by putting each back)."""
    if "\ufffd" in original:
        return True
    for i, ch in enumerate(original):
        if ch in " ?":
            for put in ("\u00a0", "\u00ad", "\u00c0", "\u00cd", "\u00cf", "\u00d0", "\u00dd",
                        "\u0098", "\u0081", "\u008d", "\u008f", "\u0090", "\u009d"):
                candidate = original[:i] + put + original[i + 1:]
                if explained(candidate, expected, WESTERN + OTHERS):
                    return True
    return False


def expected_of(case):
    """The text ftfy's encoding fix gives (its full fix does more: quotes, ligatures)."""
    return case.get("fixed-encoding", case.get("fixed", ""))


def main():
    binary, options = sys.argv[1], sys.argv[2:]
    cases = [json.loads(line) for line in CASES.read_text(encoding="utf-8").splitlines()]
    kinds = {"western": [], "other code page": [], "lost byte": [], "neither": []}
    unchanged = []
    for case in cases:
        kind = case.get("kind", "")
        original = case["original"]
        expected = case.get("fixed-encoding", case.get("fixed", ""))
        if kind == "unchanged":
            unchanged.append(case)
            continue
        if not kind.startswith("encoding"):
            continue
        if explained(original, expected, WESTERN):
            kinds["western"].append(case)
            continue
        other = bool(NAMES_A_PAGE.search(case["label"])) or explained(
            original, expected, WESTERN + OTHERS)
        lost = bool(SAYS_LOST.search(case["label"])) or lost_form(original, expected)
        if other:
            kinds["other code page"].append(case)
        if lost:
            kinds["lost byte"].append(case)
        if not other and not lost:
            kinds["neither"].append(case)

    def fix(text):
        run = subprocess.run([binary, "fix", *options, "-"], input=text.encode("utf-8"),
                             capture_output=True, check=False)
        return run.stdout.decode("utf-8", "replace")

    for name, group in kinds.items():
        right = [fix(c["original"]) == c.get("fixed-encoding", c.get("fixed", "")) for c in group]
        # ftfy's own verdict on each case ("expect": "pass" or "fail" in its suite).
        ftfy_passes = [ok for c, ok in zip(group, right) if c.get("expect") == "pass"]
        print(f"{name}: {sum(right)}/{len(group)} repaired exactly; ftfy expects to repair "
              f"{len(ftfy_passes)}, of which undouble repairs {sum(ftfy_passes)}")
        for case, ok in zip(group, right):
            if not ok:
                print(f"    missed: {case['label']} (ftfy expects to {case.get('expect')})")
    # The count the issue tracker used: every case whose label names another page or whose
    # bytes another page explains, whether or not the Western pair explains it as well.
    through_page = [c for c in cases if c.get("kind", "").startswith("encoding")
                    and (NAMES_A_PAGE.search(c["label"])
                         or explained(c["original"], expected_of(c), WESTERN + OTHERS)
                         and not explained(c["original"], expected_of(c), WESTERN))]
    right = sum(fix(c["original"]) == expected_of(c) for c in through_page)
    print(f"named or explained by another page: {right}/{len(through_page)} repaired exactly")
    changed = [c["label"] for c in unchanged if fix(c["original"]) != c["original"]]
    print(f"unchanged: {len(unchanged) - len(changed)}/{len(unchanged)} left alone")
    for label in changed:
        print(f"    changed: {label}")
    return 1 if changed else 0


if __name__ == "__main__":
    sys.exit(main())
