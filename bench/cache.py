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
  run   SCENARIO ROW SIDE SECONDS ASSEMBLIES RESULTS DOWNLOADS EXPECTED STATUS STDERR_FILE
  size  SCENARIO SIDE PIPELINE_BYTES EXTRA_BYTES PROJECT_BYTES
Lines of one SCENARIO, ROW and SIDE are summed (seconds, records, results;
DOWNLOADS and EXPECTED are the last run's): scenario 5's runs share one row.
"""
import argparse
import os
import random
import struct
import sys
import zlib

SIDES = ("base", "new")


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
                scenario, row, side, seconds, records, results, downloads, expected, status, err = fields[1:]
                cell = runs.setdefault((scenario, row), {}).setdefault(side, {
                    "seconds": 0.0, "records": 0, "results": 0, "runs": 0, "failures": []})
                cell["seconds"] += float(seconds)
                cell["records"] += int(records)
                cell["results"] += int(results)
                cell["runs"] += 1
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


def tail(path, lines=4):
    try:
        with open(path, errors="replace") as handle:
            text = handle.read().strip().splitlines()
    except OSError:
        return ["(no standard error kept)"]
    return text[-lines:] or ["(standard error was empty)"]


def mb(value):
    return f"{value / 1e6:.1f}"


def report(args):
    runs, sizes = load(args.tsv)
    header = ("scenario / run", "base s", "new s", "x", "base rec", "new rec",
              "base res", "new res", "x", "base dl", "new dl")
    table = [header]
    failures = []
    for (scenario, row), sides in runs.items():
        cells = {}
        for side in SIDES:
            cell = sides.get(side)
            if cell is None:
                cells[side] = ("-", "-", "-", "-", None, None)
                continue
            # Times of failed runs are shown but not compared.
            seconds = f"{cell['seconds']:.2f}"
            if cell["failures"]:
                seconds = "FAILED" if cell["runs"] == 1 else f"FAILED {len(cell['failures'])}/{cell['runs']}"
                failures += [(f"{scenario}. {row}", side, status, err) for status, err in cell["failures"]]
            downloads = f"{cell['downloads']}/{cell['expected']}"
            ok = not cell["failures"]
            cells[side] = (seconds, str(cell["records"]), str(cell["results"]), downloads,
                           cell["seconds"] if ok else None, cell["results"] if ok else None)
        base, new = cells["base"], cells["new"]
        table.append((f"{scenario}. {row}", base[0], new[0], ratio(base[4], new[4]), base[1], new[1],
                      base[2], new[2], ratio(base[5], new[5]), base[3], new[3]))
    print_table(table)
    print()
    print("s: wall seconds of `pipeline run` (summed over the runs of a row); rec: Assembly records")
    print("written in .pipeline/engine/assemblies/ during the run(s); res: result files written in")
    print(".pipeline/engine/results/; dl: files in the download folder after the (last) run, of the")
    print(f"images x steps expected ({args.images} images, {args.batch} per Assembly). Both counts come")
    print("from `find -newer` a marker touched just before each run, so a record rewritten counts too.")
    print("x = base / new: above 1 means the new binary is faster or writes fewer results.")

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
