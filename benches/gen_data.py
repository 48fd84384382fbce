#!/usr/bin/env python3
"""Generate benchmark inputs from the real text in corpus/ (stdlib only, deterministic).

Why: the benchmarks need gigabyte inputs that look like what users run undouble on, and the
repository can only ship small samples. This builds them from the sample's real multilingual
text, garbling it the way a latin1 connection does (DESIGN.md section 1).

    gen_data.py sql   OUT SIZE_MB   SQL dump: extended INSERTs, 2% of strings double-encoded
                                    (both readings, one in ten of those triple-encoded)
    gen_data.py dense OUT SIZE_MB   correctly encoded multilingual text, nothing to repair
    gen_data.py mojibake OUT SIZE_MB  every line double-encoded (cp1252 reading)

A block of about 32 MB is generated and then written repeatedly up to SIZE_MB.
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


def sql_block(rng, ascii_lines, other, size):
    out, n, row = [], 0, 0
    while n < size:
        values = []
        for _ in range(40):
            row += 1
            if rng.random() < 0.02:
                text = rng.choice(other)
                text = garble(text, rng.choice(["cp1252", "cp1252", "latin1"]))
                if rng.random() < 0.1:
                    text = garble(text, "cp1252")
            elif rng.random() < 0.1:
                text = rng.choice(other)
            else:
                text = rng.choice(ascii_lines)
            text = text.replace("\\", "\\\\").replace("'", "\\'")
            values.append(f"({row},'{text}',{row * 7 % 1000},'2024-01-{row % 28 + 1:02d}')")
        line = "INSERT INTO `notes` VALUES " + ",".join(values) + ";\n"
        out.append(line)
        n += len(line.encode("utf-8"))
    return "".join(out)


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


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in ("sql", "dense", "mojibake"):
        sys.exit(__doc__)
    kind, out, size_mb = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3])
    rng = random.Random(20261130)
    ascii_lines, other = clean_lines()
    make = {"sql": sql_block, "dense": dense_block, "mojibake": mojibake_block}[kind]
    block = make(rng, ascii_lines, other, min(32, size_mb) << 20).encode("utf-8")
    total = size_mb << 20
    with open(out, "wb") as f:
        written = 0
        while written < total:
            chunk = block[: total - written]
            # End on a whole line so that the file stays well-formed.
            if len(chunk) < len(block):
                chunk = chunk[: chunk.rfind(b"\n") + 1] or chunk
            f.write(chunk)
            written += len(chunk)
            if len(chunk) < len(block):
                break


if __name__ == "__main__":
    main()
