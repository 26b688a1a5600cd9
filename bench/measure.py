#!/usr/bin/env python3
"""Helper for bench/plan.sh (Python 3 standard library only).

Subcommands:
  gen DIR --files N --big-mib M
      Write N small text files to DIR/files/dNNN/fNNNNN.txt (64-256 bytes,
      distinct content, spread over 100 folders) and one M MiB file
      DIR/big/big.bin. Either part is skipped when its size is 0.
  run [--name NAME] -- CMD [ARG...]
      Run CMD once and print one tab-separated line:
          NAME <TAB> wall_seconds <TAB> peak_mb <TAB> floor_mb
      Wall time comes from time.perf_counter(); peak_mb is the largest
      resident set of any waited-for descendant (getrusage RUSAGE_CHILDREN,
      MB = 10^6 bytes), so call this once per measured command, in a fresh
      process. floor_mb is the smallest peak this method can report (see
      run() below). The command's stdout is discarded (its stderr is kept) so
      stdout stays machine readable. Exits 1 when the command fails.
  verify PLAN --root DIR [--count N] [--file REL=SHA256] [--sample K]
      Check a plan JSON: it lists exactly N files (--count), REL is listed
      with that digest and its real size (--file), and K evenly spaced
      entries match a digest computed here (--sample).
  report TSV --files N --big-mib M
      Read the lines written by `run` and print the comparison table and the
      PASS/MISS lines for the targets. Exits 3 on a miss when STRICT=1.

For bench/upload.sh:
  gen-blobs DIR --count N --size BYTES
      Write N files of BYTES random bytes each to DIR/fNNNNN.bin.
  stored STORE --count N --size BYTES
      Check a litestar-tus store folder: it holds exactly N uploaded data
      files (files not named *.info or *.lock), each BYTES long. Prints
      their paths, one a line.
  upload-report TSV --big-mib M --small-files N --small-bytes B
                [--tuspy-chunk-mib C] [--parallel P]
      Read the lines written by `run` and print the upload table (seconds,
      MB/s, files/s, peak MB, ratios) and the PASS/MISS lines. Exits 3 on a
      miss when STRICT=1.
"""

# Only light modules are imported at the top: `run` forks this process, and
# Linux charges the forked copy's resident size to the child's peak memory
# (see "floor" below). The other subcommands import what they need.
import os
import resource
import sys
import time

MB = 1_000_000
MIB = 1024 * 1024


def fail(message):
    print(f"measure.py: {message}", file=sys.stderr)
    sys.exit(1)


# --------------------------------------------------------------------- gen

def generate(args):
    import random

    root = args.dir
    if args.files > 0:
        folders = 100
        rng = random.Random(20240601)
        for d in range(folders):
            os.makedirs(os.path.join(root, "files", f"d{d:03d}"), exist_ok=True)
        for i in range(args.files):
            size = rng.randint(64, 256)
            # A unique prefix guarantees distinct content; the random hex tail
            # pads the file out to its size.
            head = f"file {i:06d}\n".encode()
            tail = rng.randbytes(size).hex().encode()
            body = (head + tail)[: size - 1] + b"\n"
            path = os.path.join(root, "files", f"d{i % folders:03d}", f"f{i:05d}.txt")
            with open(path, "wb") as handle:
                handle.write(body)
    if args.big_mib > 0:
        os.makedirs(os.path.join(root, "big"), exist_ok=True)
        block_mib = 16
        block = bytearray(os.urandom(block_mib * MIB))
        remaining = args.big_mib * MIB
        counter = 0
        with open(os.path.join(root, "big", "big.bin"), "wb") as handle:
            while remaining > 0:
                # Stamp each block with its index so no two blocks are equal.
                block[:8] = counter.to_bytes(8, "little")
                chunk = memoryview(block)[: min(remaining, len(block))]
                handle.write(chunk)
                remaining -= len(chunk)
                counter += 1


# --------------------------------------------------------------------- run

def children_peak_mb():
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    # Linux reports KiB, macOS reports bytes.
    factor = 1 if sys.platform == "darwin" else 1024
    return peak * factor / MB


def spawn_and_wait(command):
    """Fork, discard the child's stdout, exec command; return exit status."""
    pid = os.fork()
    if pid == 0:
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 1)
            os.execvp(command[0], command)
        except OSError as error:
            os.write(2, f"measure.py: run: cannot start {command[0]}: {error}\n".encode())
        os._exit(127)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


def run(args):
    command = args.command
    if command and command[0] == "--":
        command = command[1:]
    if not command:
        fail("run: no command given (use: run --name NAME -- CMD ...)")
    name = args.name or os.path.basename(command[0])
    # The kernel records the resident size of the forked copy of this Python
    # process as the child's starting peak, so no child can report less than
    # that. Measure this floor with `true` first; the report marks peaks at
    # the floor as "at most".
    spawn_and_wait(["true"])
    floor = children_peak_mb()
    sys.stdout.flush()
    sys.stderr.flush()
    start = time.perf_counter()
    status = spawn_and_wait(command)
    seconds = time.perf_counter() - start
    if status != 0:
        fail(f"run: {name} exited with status {status}")
    print(f"{name}\t{seconds:.4f}\t{children_peak_mb():.1f}\t{floor:.1f}", flush=True)


# ------------------------------------------------------------------ verify

def plan_entries(plan):
    assemblies = plan.get("assemblies")
    if isinstance(assemblies, dict):
        assemblies = list(assemblies.values())
    if not isinstance(assemblies, list):
        fail("verify: plan has no 'assemblies' list")
    entries = []
    for assembly in assemblies:
        files = assembly.get("files") if isinstance(assembly, dict) else None
        if not isinstance(files, list):
            fail("verify: an assembly has no 'files' list")
        for entry in files:
            if not isinstance(entry, dict) or not {"path", "size", "sha256"} <= entry.keys():
                fail(f"verify: file entry lacks path/size/sha256: {entry!r}")
            entries.append(entry)
    return entries


def on_disk(root, path):
    return path if os.path.isabs(path) else os.path.join(root, path)


def same_file(root, listed, wanted):
    if os.path.normpath(listed) == os.path.normpath(wanted):
        return True
    try:
        return os.path.samefile(on_disk(root, listed), on_disk(root, wanted))
    except OSError:
        return False


def sha256_of(path):
    import hashlib

    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(MIB), b""):
            digest.update(chunk)
    return digest.hexdigest()


def verify(args):
    import json

    try:
        with open(args.plan, encoding="utf-8") as handle:
            plan = json.load(handle)
    except (OSError, ValueError) as error:
        fail(f"verify: cannot read plan {args.plan}: {error}")
    entries = plan_entries(plan)

    if args.count is not None and len(entries) != args.count:
        fail(f"verify: plan lists {len(entries)} files, expected {args.count}")

    for spec in args.file:
        relative, _, expected = spec.partition("=")
        expected = expected.strip().lower()
        matches = [e for e in entries if same_file(args.root, e["path"], relative)]
        if len(matches) != 1:
            fail(f"verify: plan lists {relative} {len(matches)} times, expected once")
        entry = matches[0]
        if str(entry["sha256"]).lower() != expected:
            fail(f"verify: {relative}: plan sha256 {entry['sha256']} != {expected}")
        size = os.path.getsize(on_disk(args.root, relative))
        if entry["size"] != size:
            fail(f"verify: {relative}: plan size {entry['size']} != {size}")

    if args.sample > 0 and entries:
        ordered = sorted(entries, key=lambda e: e["path"])
        step = max(1, len(ordered) // args.sample)
        for entry in ordered[::step][: args.sample]:
            path = on_disk(args.root, entry["path"])
            actual = sha256_of(path)
            if str(entry["sha256"]).lower() != actual:
                fail(f"verify: {entry['path']}: plan sha256 {entry['sha256']} != {actual}")
            if entry["size"] != os.path.getsize(path):
                fail(f"verify: {entry['path']}: plan size {entry['size']} is wrong")

    print(f"verify: {args.plan}: {len(entries)} files OK")


# ------------------------------------------------------------------ report

def load_results(path):
    """Best (smallest) time, largest peak and largest floor for each name."""
    best = {}
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            fields = line.rstrip("\n").split("\t")
            if len(fields) not in (3, 4):
                continue
            name = fields[0]
            seconds, peak = float(fields[1]), float(fields[2])
            floor = float(fields[3]) if len(fields) == 4 else 0.0
            old = best.get(name)
            if old is not None:
                seconds = min(old[0], seconds)
                peak = max(old[1], peak)
                floor = max(old[2], floor)
            best[name] = (seconds, peak, floor)
    return best


def peak_cell(peak, floor):
    # A peak within 0.5 MB of the floor only says "no more than this".
    if floor and peak <= floor + 0.5:
        return f"<={peak:.1f}"
    return f"{peak:.1f}"


def print_table(table):
    """Print rows of strings: the first column left-aligned, the others
    right-aligned, with a rule under the header row."""
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
    for n, row in enumerate(table):
        cells = [row[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(row[1:], widths[1:])]
        print("  ".join(cells).rstrip())
        if n == 0:
            print("  ".join("-" * w for w in widths))


def report(args):
    best = load_results(args.tsv)
    big_bytes = args.big_mib * MIB
    rows = [
        ("plan", f"plan {args.files} small files", "small-pipeline", "small-baseline"),
        ("hash", f"hash {args.big_mib} MiB file", "big-pipeline", "big-baseline"),
    ]
    header = ("case", "pipeline s", "baseline s", "ratio", "pipeline MB",
              "baseline MB", "pipeline MB/s", "baseline MB/s")
    table = [header]
    ratios = {}
    seconds = {}
    floors = []
    for key, label, ours, theirs in rows:
        if ours not in best or theirs not in best:
            continue
        p_s, p_mb, p_floor = best[ours]
        b_s, b_mb, b_floor = best[theirs]
        floors.append(max(p_floor, b_floor))
        ratio = b_s / p_s if p_s > 0 else float("inf")
        ratios[key] = ratio
        seconds[key] = p_s
        if key == "hash":
            p_tp = f"{big_bytes / MB / p_s:.0f}" if p_s > 0 else "-"
            b_tp = f"{big_bytes / MB / b_s:.0f}" if b_s > 0 else "-"
        else:
            p_tp = b_tp = "-"
        table.append((label, f"{p_s:.3f}", f"{b_s:.3f}", f"{ratio:.2f}",
                      peak_cell(p_mb, p_floor), peak_cell(b_mb, b_floor), p_tp, b_tp))

    print_table(table)
    print()
    print("times: best of runs; peak memory: max of runs (MB = 10^6 bytes);")
    print("ratio = baseline s / pipeline s (> 1 means pipeline is faster)")
    if floors and max(floors) > 0:
        print(f"'<=' marks a peak at the measuring floor of {max(floors):.1f} MB: Linux counts")
        print("the forked copy of the measuring Python process as each child's starting size")
    print()

    missed = False
    if "plan" in seconds:
        ok = seconds["plan"] < 2.0
        missed |= not ok
        note = "" if args.files == 100_000 else f" (target is for 100000 files; ran {args.files})"
        print(f"{'PASS' if ok else 'MISS'}  plan 100k files in under 2 s: "
              f"{seconds['plan']:.3f} s{note}")
    if "hash" in ratios:
        ok = ratios["hash"] >= 1.0
        missed |= not ok
        print(f"{'PASS' if ok else 'MISS'}  hashing at least as fast as sha256sum: "
              f"ratio {ratios['hash']:.2f}")
    if missed and os.environ.get("STRICT") == "1":
        sys.exit(3)


# ------------------------------------------------------------------ upload

def generate_blobs(args):
    os.makedirs(args.dir, exist_ok=True)
    for i in range(args.count):
        with open(os.path.join(args.dir, f"f{i:05d}.bin"), "wb") as handle:
            handle.write(os.urandom(args.size))


def stored(args):
    try:
        names = sorted(os.listdir(args.store))
    except OSError as error:
        fail(f"stored: cannot list {args.store}: {error}")
    # litestar-tus keeps <id> (the data), <id>.info and <id>.lock per upload.
    uploads = [os.path.join(args.store, name) for name in names
               if not name.endswith((".info", ".lock"))
               and os.path.isfile(os.path.join(args.store, name))]
    if len(uploads) != args.count:
        fail(f"stored: {args.store} holds {len(uploads)} uploads, expected {args.count}")
    for path in uploads:
        size = os.path.getsize(path)
        if size != args.size:
            fail(f"stored: {path} is {size} bytes, expected {args.size}")
        print(path)


def upload_report(args):
    best = load_results(args.tsv)
    big = f"{args.big_mib} MiB file"
    small = f"{args.small_files} x {args.small_bytes} B"
    # name, label, payload kind, baselines to compare with (pipeline rows only)
    specs = [
        ("big-pipeline-off", f"{big}: pipeline --checksum off", "big", ("big-curl", "big-tuspy")),
        ("big-pipeline-auto", f"{big}: pipeline --checksum auto", "big", ("big-curl", "big-tuspy")),
        ("big-curl", f"{big}: curl -T (PATCH only)", "big", ()),
        ("big-tuspy", f"{big}: tuspy, {args.tuspy_chunk_mib} MiB chunks", "big", ()),
        ("small-pipeline", f"{small}: pipeline --parallel {args.parallel}", "small",
         (None, "small-tuspy")),
        ("small-tuspy", f"{small}: tuspy, one by one", "small", ()),
    ]
    payload_mb = {"big": args.big_mib * MIB / MB,
                  "small": args.small_files * args.small_bytes / MB}

    def versus(baseline, ours):
        """Baseline seconds / our seconds: our throughput over theirs."""
        if baseline not in best or best[ours][0] <= 0:
            return None
        return best[baseline][0] / best[ours][0]

    header = ("case", "seconds", "MB/s", "files/s", "peak MB", "x curl", "x tuspy")
    table = [header]
    ratios = {}
    floors = []
    for name, label, kind, baselines in specs:
        if name not in best:
            continue
        secs, peak, floor = best[name]
        if floor and peak <= floor + 0.5:
            floors.append(floor)
        rate = "-"
        if secs > 0:
            mb_per_s = payload_mb[kind] / secs
            rate = f"{mb_per_s:.1f}" if mb_per_s < 10 else f"{mb_per_s:.0f}"
        files = f"{args.small_files / secs:.0f}" if kind == "small" and secs > 0 else "-"
        cells = []
        for baseline in (baselines + (None, None))[:2]:
            ratio = versus(baseline, name) if baseline else None
            if ratio is not None:
                ratios[(name, baseline)] = ratio
            cells.append(f"{ratio:.2f}" if ratio is not None else "-")
        table.append((label, f"{secs:.3f}", rate, files, peak_cell(peak, floor), *cells))

    print_table(table)
    print()
    print("times: best of runs; peak memory: max of runs (MB = 10^6 bytes); MB/s counts")
    print("file bytes only. x curl, x tuspy = pipeline throughput / that baseline's")
    print("throughput (> 1 means pipeline is faster).")
    print("pipeline and tuspy rows time the whole command: process start, the creation")
    print("POST and the PATCH requests. The curl row times only its PATCH; its POST is sent")
    print("before the clock starts.")
    print(f"tuspy sends the big file in {args.tuspy_chunk_mib} MiB PATCH requests (its default would read the")
    print("whole file into memory) and each small file in one PATCH; it sends no checksum.")
    print("--checksum auto sends a SHA-256 Upload-Checksum with every PATCH, because")
    print("litestar-tus offers it; the small-file run uses auto, the default.")
    if floors:
        print(f"'<=' marks a peak at the measuring floor of {max(floors):.1f} MB: Linux counts")
        print("the forked copy of the measuring Python process as each child's starting size")
    print()

    missed = False

    def verdict(ok, text):
        nonlocal missed
        missed |= not ok
        print(f"{'PASS' if ok else 'MISS'}  {text}")

    size_note = "" if args.big_mib == 1024 else f" (target is for a 1024 MiB file; ran {args.big_mib} MiB)"
    off = ("big-pipeline-off", "big-curl")
    if off in ratios:
        verdict(ratios[off] >= 0.9, "pipeline --checksum off at least 0.9x curl's throughput: "
                f"{ratios[off]:.2f}x{size_note}")
    off = ("big-pipeline-off", "big-tuspy")
    if off in ratios:
        verdict(ratios[off] >= 3.0, "pipeline --checksum off at least 3x tuspy's throughput: "
                f"{ratios[off]:.2f}x{size_note}")
    auto = [f"{ratios[('big-pipeline-auto', b)]:.2f}x {b[4:]}"
            for b in ("big-curl", "big-tuspy") if ("big-pipeline-auto", b) in ratios]
    if auto:
        print(f"INFO  pipeline --checksum auto throughput: {', '.join(auto)} (no target)")
    for name, variant in (("big-pipeline-off", "off"), ("big-pipeline-auto", "auto")):
        if name in best:
            _, peak, floor = best[name]
            verdict(peak < 64.0, f"pipeline --checksum {variant} peak RSS under 64 MB: "
                    f"{peak_cell(peak, floor)} MB with a {args.big_mib} MiB file")
    pair = ("small-pipeline", "small-tuspy")
    if pair in ratios:
        ours = args.small_files / best[pair[0]][0]
        theirs = args.small_files / best[pair[1]][0]
        print(f"INFO  {args.small_files} small files: pipeline {ours:.0f} files/s, tuspy {theirs:.0f} "
              f"files/s: {ratios[pair]:.2f}x (no target)")
    if missed and os.environ.get("STRICT") == "1":
        sys.exit(3)


# -------------------------------------------------------------------- main

def run_main(argv):
    """Parse `run [--name NAME] -- CMD...` by hand: argparse would grow this
    process, and with it the memory floor every child starts from."""
    name = None
    if argv[:1] == ["--name"] and len(argv) >= 2:
        name, argv = argv[1], argv[2:]
    elif argv[:1] and argv[0].startswith("--name="):
        name, argv = argv[0][len("--name="):], argv[1:]
    run(Namespace(name=name, command=argv))


class Namespace:
    def __init__(self, **fields):
        self.__dict__.update(fields)


def main():
    if sys.argv[1:2] == ["run"]:
        run_main(sys.argv[2:])
        return

    import argparse

    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="action", required=True)

    p = sub.add_parser("gen", help="generate benchmark data")
    p.add_argument("dir")
    p.add_argument("--files", type=int, default=100_000)
    p.add_argument("--big-mib", type=int, default=1024)
    p.set_defaults(func=generate)

    p = sub.add_parser("run", help="time one command and report its peak RSS")
    p.add_argument("--name")
    p.add_argument("command", nargs=argparse.REMAINDER)
    p.set_defaults(func=run)

    p = sub.add_parser("verify", help="check a plan JSON")
    p.add_argument("plan")
    p.add_argument("--root", default=".")
    p.add_argument("--count", type=int)
    p.add_argument("--file", action="append", default=[], metavar="REL=SHA256")
    p.add_argument("--sample", type=int, default=0)
    p.set_defaults(func=verify)

    p = sub.add_parser("report", help="print the comparison table")
    p.add_argument("tsv")
    p.add_argument("--files", type=int, required=True)
    p.add_argument("--big-mib", type=int, required=True)
    p.set_defaults(func=report)

    p = sub.add_parser("gen-blobs", help="write files of random bytes")
    p.add_argument("dir")
    p.add_argument("--count", type=int, required=True)
    p.add_argument("--size", type=int, required=True)
    p.set_defaults(func=generate_blobs)

    p = sub.add_parser("stored", help="check the uploads in a litestar-tus store")
    p.add_argument("store")
    p.add_argument("--count", type=int, required=True)
    p.add_argument("--size", type=int, required=True)
    p.set_defaults(func=stored)

    p = sub.add_parser("upload-report", help="print the upload comparison table")
    p.add_argument("tsv")
    p.add_argument("--big-mib", type=int, required=True)
    p.add_argument("--small-files", type=int, required=True)
    p.add_argument("--small-bytes", type=int, required=True)
    p.add_argument("--tuspy-chunk-mib", type=int, default=64)
    p.add_argument("--parallel", type=int, default=8)
    p.set_defaults(func=upload_report)

    args = parser.parse_args()
    args.func(args)


if __name__ == "__main__":
    main()
