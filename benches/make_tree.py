#!/usr/bin/env python3
"""Cut text files into a tree of small files, as a store of many documents looks.

Why: a scan of many small files pays its per-file cost (opening, sniffing, the survey, the
reading choice) once per file, where one large file pays it once; the benchmarks time both.

Each source is cut into pieces of about PIECE bytes, each ending after a newline, written as
OUT/<source name>/<n>.txt. With --per-source K, each source gives its first K pieces (fewer
when it is shorter). With --files N, the sources give their pieces in turn, starting a source
again from its beginning when it runs out, until N files are written.

Usage: make_tree.py SOURCE_DIR OUT_DIR (--per-source K | --files N) [--piece BYTES]
"""
import argparse
import itertools
import pathlib


def pieces(data, size):
    """The pieces of `data`, each `size` bytes or a little more, cut after a newline."""
    start = 0
    while start < len(data):
        end = data.find(b"\n", start + size)
        end = len(data) if end < 0 else end + 1
        yield data[start:end]
        start = end


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source", type=pathlib.Path)
    parser.add_argument("out", type=pathlib.Path)
    count = parser.add_mutually_exclusive_group(required=True)
    count.add_argument("--per-source", type=int)
    count.add_argument("--files", type=int)
    parser.add_argument("--piece", type=int, default=8000)
    args = parser.parse_args()

    sources = sorted(args.source.glob("*.txt"))
    if not sources:
        parser.error(f"no *.txt in {args.source}")
    written = 0
    if args.per_source is not None:
        for path in sources:
            folder = args.out / path.stem
            folder.mkdir(parents=True, exist_ok=True)
            for k, piece in enumerate(itertools.islice(pieces(path.read_bytes(), args.piece),
                                                       args.per_source)):
                (folder / f"{k}.txt").write_bytes(piece)
                written += 1
    else:
        streams = [(path.stem, itertools.cycle(list(pieces(path.read_bytes(), args.piece))))
                   for path in sources if path.stat().st_size > 0]
        numbers = {name: 0 for name, _ in streams}
        for name, stream in itertools.cycle(streams):
            if written >= args.files:
                break
            folder = args.out / name
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"{numbers[name]}.txt").write_bytes(next(stream))
            numbers[name] += 1
            written += 1
    print(f"{written} files in {args.out}")


if __name__ == "__main__":
    main()
