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

    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    for n, row in enumerate(table):
        cells = [row[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(row[1:], widths[1:])]
        print("  ".join(cells).rstrip())
        if n == 0:
            print("  ".join("-" * w for w in widths))
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

    args = parser.parse_args()
    args.func(args)


if __name__ == "__main__":
    main()
