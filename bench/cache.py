#!/usr/bin/env python3
"""Helper for bench/cache.sh (Python 3 standard library only).

Subcommands:
  gen DIR --first I --count N --width W --height H
      Write N RGB PNGs DIR/imgNNNNN.png, numbered from I: a gradient with a
      band of noise seeded by the image's number, so no two files are alike,
      even once made JPEG.
  report TSV --images N --batch B
      Read the lines cache.sh wrote and print the table (base against new,
      side by side, with ratios), the sizes of scenario 5 and every failed
      run with the tail of its standard error.

TSV lines (tab-separated), appended by cache.sh:
  run   SCENARIO ROW SIDE SECONDS RECORDS_NEW RECORDS_REWRITTEN RESULTS_NEW
        RESULTS_REWRITTEN DOWNLOADS EXPECTED STATUS STDERR_FILE
  size  SCENARIO SIDE PIPELINE_BYTES EXTRA_BYTES PROJECT_BYTES
Lines of one SCENARIO, ROW and SIDE are summed (seconds and counts;
DOWNLOADS and EXPECTED are the last run's): scenario 5's runs share one row.
"""
import argparse
import os
import random
import struct
import sys
import zlib

SIDES = ("base", "new")
COUNTS = ("records", "rewritten", "results", "results_rewritten")


# --------------------------------------------------------------------- gen

def write_png(path, width, height, raw):
    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit RGB
    with open(path, "wb") as handle:
        handle.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
                     + chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b""))


def generate(args):
    width, height = args.width, args.height
    os.makedirs(args.dir, exist_ok=True)
    red = bytes(x * 255 // (width - 1) for x in range(width))
    band = max(height // 8, 1)  # rows of noise
    for number in range(args.first, args.first + args.count):
        rng = random.Random(number)
        top = rng.randrange(height - band + 1)
        rows = []
        for y in range(height):
            row = bytearray(1 + 3 * width)  # filter byte 0 ("none"), then RGB triples
            if top <= y < top + band:
                row[1:] = rng.randbytes(3 * width)
            else:
                row[1::3] = red
                row[2::3] = bytes([y * 255 // (height - 1)]) * width
                row[3::3] = bytes([number * 37 % 256]) * width
            rows.append(bytes(row))
        write_png(os.path.join(args.dir, f"img{number:05d}.png"), width, height, b"".join(rows))


# ------------------------------------------------------------------ report

def load(path):
    """Returns (runs, sizes): runs maps (scenario, row) to {side: totals} in
    the order rows first appear; sizes maps scenario to {side: (pipeline,
    extra, project)}."""
    runs, sizes = {}, {}
    with open(path) as handle:
        for line in handle:
            fields = line.rstrip("\n").split("\t")
            if fields[0] == "run":
                scenario, row, side, seconds = fields[1:5]
                downloads, expected, status, err = fields[9:13]
                cell = runs.setdefault((scenario, row), {}).setdefault(side, {
                    "seconds": 0.0, "runs": 0, "failures": [], "logs": [], **{key: 0 for key in COUNTS}})
                cell["seconds"] += float(seconds)
                for key, value in zip(COUNTS, fields[5:9]):
                    cell[key] += int(value)
                cell["runs"] += 1
                cell["logs"].append(err)
                cell["downloads"], cell["expected"] = int(downloads), int(expected)
                if status != "0":
                    cell["failures"].append((status, err))
            elif fields[0] == "size":
                scenario, side = fields[1], fields[2]
                sizes.setdefault(scenario, {})[side] = tuple(int(v) for v in fields[3:6])
    return runs, sizes


def print_table(table):
    """The first column left-aligned, the others right-aligned, a rule under the header."""
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
    for n, row in enumerate(table):
        cells = [row[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(row[1:], widths[1:])]
        print("  ".join(cells).rstrip())
        if n == 0:
            print("  ".join("-" * w for w in widths))


def ratio(base, new):
    """base / new, or "-" when either side is missing or new is 0."""
    if base is None or new is None or new == 0:
        return "-"
    return f"{base / new:.2f}"


def read_lines(path):
    try:
        with open(path, errors="replace") as handle:
            return handle.read().strip().splitlines()
    except OSError:
        return ["(no standard error kept)"]


def tail(path, lines=4):
    return read_lines(path)[-lines:] or ["(standard error was empty)"]


def mb(value):
    return f"{value / 1e6:.1f}"


def report(args):
    runs, sizes = load(args.tsv)
    header = ("scenario / run", "base s", "new s", "x", "base rec", "new rec", "base rw", "new rw",
              "base res", "new res", "x", "base dl", "new dl")
    table = [header]
    failures, warnings = [], []
    results_rewritten = 0
    for (scenario, row), sides in runs.items():
        label = f"{scenario}. {row}"
        cells = {}
        for side in SIDES:
            cell = sides.get(side)
            if cell is None:
                cells[side] = {"text": ["-"] * 5, "seconds": None, "results": None}
                continue
            results_rewritten += cell["results_rewritten"]
            # The time of a failed run is not compared.
            seconds = f"{cell['seconds']:.2f}"
            if cell["failures"]:
                seconds = "FAILED" if cell["runs"] == 1 else f"FAILED {len(cell['failures'])}/{cell['runs']}"
                failures += [(label, side, status, err) for status, err in cell["failures"]]
            ok = not cell["failures"]
            if ok:
                lines = [line for err in cell["logs"] for line in read_lines(err) if "warning:" in line]
                if lines:
                    warnings.append((label, side, lines))
            cells[side] = {
                "text": [seconds, str(cell["records"]), str(cell["rewritten"]), str(cell["results"]),
                         f"{cell['downloads']}/{cell['expected']}"],
                "seconds": cell["seconds"] if ok else None, "results": cell["results"] if ok else None}
        base, new = cells["base"], cells["new"]
        table.append((label, base["text"][0], new["text"][0], ratio(base["seconds"], new["seconds"]),
                      base["text"][1], new["text"][1], base["text"][2], new["text"][2],
                      base["text"][3], new["text"][3], ratio(base["results"], new["results"]),
                      base["text"][4], new["text"][4]))
    print_table(table)
    print()
    print("s: wall seconds of `pipeline run` (summed over the runs of a row). The engine's files newer")
    print("than a marker touched just before each run (`find -newer`): rec, Assembly records")
    print("(.pipeline/engine/assemblies/*.json) that were not there before the run; rw, records that")
    print("were there and were written again; res, result files (.pipeline/engine/results/) not there")
    print("before. dl: files in the download folder after the (last) run, of the images x steps")
    print(f"expected ({args.images} images, {args.batch} per Assembly).")
    print("x = base / new: above 1 means the new binary is faster or writes fewer result files.")
    if results_rewritten:
        print(f"Result files written again over an existing one: {results_rewritten} in all (not in the table).")

    if sizes:
        print()
        table = [("scenario 5: sizes after the runs (MB)", "base", "new", "x")]
        for scenario, sides in sizes.items():
            def row(label, index):
                values = [sides[side][index] if side in sides else None for side in SIDES]
                table.append((label, *[mb(v) if v is not None else "-" for v in values], ratio(*values)))
            row("du -sb .pipeline", 0)
            row(".pipeline beyond sources + downloads (links once)", 1)
            row("du -sb sources + downloads", 2)
            shares = [sides[side][0] / sides[side][2] if side in sides and sides[side][2] else None for side in SIDES]
            table.append((".pipeline / (sources + downloads)", *[f"{v:.2f}" if v is not None else "-" for v in shares],
                          ratio(*shares)))
        print_table(table)
        print("(MB = 10^6 bytes.) `du -sb .pipeline` alone counts files the engine hard-linked from the")
        print("sources or downloads; the second row is `du -sb` of all three less that of the two, so a")
        print("file linked into .pipeline/ is counted once, outside it.")

    print()
    for label, side, status, err in failures:
        print(f"FAILED  {label} ({side} binary): exit status {status}; the end of its standard error:")
        for line in tail(err):
            print(f"        {line}")
    for label, side, lines in warnings:
        print(f"WARN    {label} ({side} binary) exited 0 with {len(lines)} warning line(s); the first:")
        print(f"        {lines[0]}")
    if not failures:
        print("every run exited 0")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="action", required=True)

    p = sub.add_parser("gen", help="write distinct RGB PNGs")
    p.add_argument("dir")
    p.add_argument("--first", type=int, default=1)
    p.add_argument("--count", type=int, required=True)
    p.add_argument("--width", type=int, required=True)
    p.add_argument("--height", type=int, required=True)
    p.set_defaults(func=generate)

    p = sub.add_parser("report", help="print the base against new table")
    p.add_argument("tsv")
    p.add_argument("--images", type=int, required=True)
    p.add_argument("--batch", type=int, required=True)
    p.set_defaults(func=report)

    args = parser.parse_args()
    if args.action == "gen" and (args.width < 2 or args.height < 2):
        sys.exit("cache.py: gen: the images must be at least 2 x 2")
    args.func(args)


if __name__ == "__main__":
    main()
