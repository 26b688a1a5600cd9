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
  report TSV --files N --big-mib M [--jpeg-bytes B]
      Read the lines written by `run` and print the comparison table and the
      PASS/MISS lines for the targets. Exits 3 on a miss when STRICT=1.

For bench/upload.sh:
  gen-blobs DIR --count N --size BYTES
      Write N files of BYTES random bytes each to DIR/fNNNNN.bin.
  stored STORE --count N --size BYTES
      Check a litestar-tus store folder (or the uploads folder of pipeline
      serve): it holds exactly N uploaded data files (files not named *.info,
      *.lock or *.json), each BYTES long. Prints their paths, one a line.
  upload-report TSV --big-mib M --small-files N --small-bytes B
                [--tuspy-chunk-mib C] [--parallel P]
      Read the lines written by `run` and print the upload table (seconds,
      MB/s, files/s, peak MB, ratios) and the PASS/MISS lines. Exits 3 on a
      miss when STRICT=1.

For bench/serve.sh:
  gen-png PATH --width W --height H
      Write one W x H RGB PNG (gradients, a checkerboard and noise, so it is
      neither flat nor incompressible) with zlib.
  assembly ORIGIN --params JSON --step NAME --expect N [--name NAME]
           [--interval S] [--timeout S] FILE...
      Time one Assembly on the local engine: POST ORIGIN/assemblies with curl
      (params and every FILE as multipart parts), then GET its status every
      S seconds (default 0.05) until it is ASSEMBLY_COMPLETED. Checks that
      results.NAME lists N files and prints `NAME <TAB> seconds <TAB> 0.0`
      (the client's memory is not measured). Exits 1 on an error status, a
      wrong result count or after the timeout (default 900 s).
  serve-report TSV --big-mib M --images N --format F --size WxH --box WxH
               [--peak NAME=MB]...
      Read the lines written by `run` and `assembly` and print the serve table
      (seconds, MB/s, images/s, peak MB, ratios) and the INFO lines. --peak
      gives a row's peak memory (a server's VmHWM, or a measured client's
      peak as `MB/FLOOR`).

For bench/run.sh:
  gen-pngs DIR --count N --size S
      Write N small S x S RGB PNGs to DIR/imgNNNNN.png: gradients, with the
      image's index in the top-left pixel so no two files are equal.
  check-results RESULTS --step NAME --expect N [--source FILE]
      Check the results JSON of `pipeline run`: every Assembly is
      ASSEMBLY_COMPLETED and results.NAME lists N non-empty files in all.
      With --source, every result's meta.hash and every listed source's
      sha256 equal FILE's SHA-256 (computed here).
  run-report TSV --images N --image-size S --box B --batch K --big-mib M
             [--concurrency C] [--engine-peak MB] [--cpu TSV --cores N]
      Read the lines written by `run` and print the end-to-end table
      (seconds, files/s, MB/s, peak MB, ratios) and the INFO lines; with
      --cpu, also what the run costs besides resizing and the best ratio to
      the fastest tool that leaves.
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
        ("replan", f"plan {args.files} unchanged files again (vs git add -A)", "small-replan",
         "small-git" if "small-git" in best else "small-baseline"),
        ("hash", f"hash {args.big_mib} MiB file", "big-pipeline", "big-baseline"),
        ("jpeg", f"hash and check a {args.jpeg_bytes / MB:.0f} MB JPEG", "jpeg-pipeline", "jpeg-baseline"),
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
        if key in ("hash", "jpeg"):
            size = big_bytes if key == "hash" else args.jpeg_bytes
            p_tp = f"{size / MB / p_s:.0f}" if p_s > 0 else "-"
            b_tp = f"{size / MB / b_s:.0f}" if b_s > 0 else "-"
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
    note = "" if args.files == 100_000 else f" (target is for 100000 files; ran {args.files})"
    if "plan" in seconds:
        ok = ratios["plan"] >= 1.5
        missed |= not ok
        print(f"{'PASS' if ok else 'MISS'}  plan at least 1.5x find | sort | xargs sha256sum: "
              f"{ratios['plan']:.2f}x ({seconds['plan']:.3f} s){note}")
        peak, floor = best["small-pipeline"][1], best["small-pipeline"][2]
        ok = peak < 64.0
        missed |= not ok
        print(f"{'PASS' if ok else 'MISS'}  plan peak RSS under 64 MB: {peak_cell(peak, floor)} MB{note}")
    if "replan" in seconds and "small-git" in best:
        ok = ratios["replan"] >= 1.0
        missed |= not ok
        print(f"{'PASS' if ok else 'MISS'}  plan of the same unchanged files again at git's speed "
              f"(git add -A of the same tree: {best['small-git'][0]:.3f} s): {seconds['replan']:.3f} s, "
              f"ratio {ratios['replan']:.2f}{note}")
    elif "replan" in seconds:
        print(f"-     plan of the same unchanged files again: {seconds['replan']:.3f} s "
              f"(no git to compare with){note}")
    if "hash" in ratios:
        ok = ratios["hash"] >= 1.0
        missed |= not ok
        print(f"{'PASS' if ok else 'MISS'}  hashing at least as fast as sha256sum: "
              f"ratio {ratios['hash']:.2f}")
    if "jpeg" in ratios:
        ok = ratios["jpeg"] >= 1.0
        missed |= not ok
        print(f"{'PASS' if ok else 'MISS'}  hashing a photo and walking it to its end marker at least as fast as sha256sum: "
              f"ratio {ratios['jpeg']:.2f}")
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
    # litestar-tus keeps <id> (the data), <id>.info and <id>.lock per upload;
    # pipeline serve keeps <id>.bin (the data) and <id>.json.
    uploads = [os.path.join(args.store, name) for name in names
               if not name.endswith((".info", ".lock", ".json"))
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
    print("--checksum auto sends CRC-32 with every PATCH where the server offers it (pipeline serve);")
    print("to a server offering only SHA-256 (litestar-tus) it sends a plan's SHA-256 on whole-file")
    print("requests, else none (pipeline upload has no plan: none); the small-file run uses auto.")
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
    # The default (checksums on) is what users get: it carries the main targets.
    for variant, baseline, target in (("auto", "curl", 0.9), ("auto", "tuspy", 3.0), ("off", "curl", 0.95), ("off", "tuspy", 3.0)):
        pair = (f"big-pipeline-{variant}", f"big-{baseline}")
        if pair in ratios:
            verdict(ratios[pair] >= target, f"pipeline --checksum {variant} at least {target}x {baseline}'s throughput: "
                    f"{ratios[pair]:.2f}x{size_note}")
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


# ------------------------------------------------------------------- serve

def generate_png(args):
    import random
    import zlib

    width, height = args.width, args.height
    if width < 2 or height < 2:
        fail("gen-png: the image must be at least 2 x 2")
    rng = random.Random(20241129)
    # Red: a horizontal gradient, shifted a little on every row (diagonal bands).
    red = bytes(x * 255 // (width - 1) for x in range(width))
    shifts = [bytes((v + s) % 256 for v in range(256)) for s in range(256)]
    # Green: a checkerboard of 40-pixel squares (hard edges).
    square = 40
    green = [bytes(200 if (x // square + phase) % 2 else 40 for x in range(width)) for phase in (0, 1)]
    # Blue: noise in 64 levels from a pool of random rows.
    levels = bytes(96 + v % 64 for v in range(256))
    noise = [rng.randbytes(width).translate(levels) for _ in range(61)]

    compressor = zlib.compressobj(6)
    idat = []
    row = bytearray(1 + 3 * width)  # filter byte 0 ("none"), then RGB triples
    for y in range(height):
        row[1::3] = red.translate(shifts[(y // 4) % 256])
        row[2::3] = green[(y // square) % 2]
        row[3::3] = noise[y % len(noise)]
        idat.append(compressor.compress(row))
    idat.append(compressor.flush())

    write_png(args.path, width, height, b"".join(idat))


def write_png(path, width, height, idat):
    """Write an 8-bit RGB PNG whose IDAT holds the zlib stream idat."""
    import struct
    import zlib

    def chunk(kind, body):
        return (struct.pack(">I", len(body)) + kind + body
                + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit RGB
    with open(path, "wb") as handle:
        handle.write(b"\x89PNG\r\n\x1a\n")
        handle.write(chunk(b"IHDR", header))
        handle.write(chunk(b"IDAT", idat))
        handle.write(chunk(b"IEND", b""))


def assembly(args):
    import json
    import subprocess
    import urllib.error
    import urllib.request

    origin = args.origin.rstrip("/")
    name = args.name or "assembly"
    command = ["curl", "-sS", "--form-string", f"params={args.params}"]
    for index, path in enumerate(args.files, 1):
        # The paths come from the benchmark's own folder: no ',', ';' or '"'.
        command += ["-F", f"file{index}=@{path}"]
    command.append(f"{origin}/assemblies")

    def parse(text, what):
        try:
            status = json.loads(text)
        except ValueError:
            fail(f"assembly: {what} is not JSON: {text[:200]!r}")
        if not isinstance(status, dict):
            fail(f"assembly: {what} is not a JSON object")
        if status.get("error"):
            fail(f"assembly: {what}: {status['error']}: {status.get('message', '')}")
        return status

    def fetch(url):
        try:
            with urllib.request.urlopen(url, timeout=60) as response:
                return response.read().decode("utf-8", "replace")
        except urllib.error.HTTPError as error:
            return error.read().decode("utf-8", "replace")
        except OSError as error:
            fail(f"assembly: GET {url}: {error}")

    start = time.perf_counter()
    posted = subprocess.run(command, stdout=subprocess.PIPE, check=False)
    if posted.returncode != 0:
        fail(f"assembly: curl exited with status {posted.returncode}")
    status = parse(posted.stdout.decode("utf-8", "replace"), "the creating POST")
    assembly_id = status.get("assembly_id")
    if not isinstance(assembly_id, str) or not assembly_id:
        fail("assembly: the creating POST returned no assembly_id")
    url = f"{origin}/assemblies/{assembly_id}"
    deadline = start + args.timeout
    while status.get("ok") != "ASSEMBLY_COMPLETED":
        if status.get("ok") not in ("ASSEMBLY_UPLOADING", "ASSEMBLY_EXECUTING"):
            fail(f"assembly: {assembly_id} is {status.get('ok')!r}: {status.get('message', '')}")
        if time.perf_counter() > deadline:
            fail(f"assembly: {assembly_id} did not complete within {args.timeout:g} s")
        time.sleep(args.interval)
        status = parse(fetch(url), f"GET {url}")
    seconds = time.perf_counter() - start

    results = (status.get("results") or {}).get(args.step)
    if not isinstance(results, list) or len(results) != args.expect:
        count = len(results) if isinstance(results, list) else 0
        fail(f"assembly: {assembly_id}: results.{args.step} lists {count} files, expected {args.expect}")
    empty = [r.get("name") for r in results if not isinstance(r, dict) or not r.get("size")]
    if empty:
        fail(f"assembly: {assembly_id}: empty results: {empty[:5]}")
    print(f"{name}\t{seconds:.4f}\t0.0", flush=True)


def serve_report(args):
    best = load_results(args.tsv)
    peaks = {}
    for spec in args.peak:
        key, _, value = spec.partition("=")
        peak, _, floor = value.partition("/")
        try:
            peaks[key] = (float(peak), float(floor) if floor else 0.0)
        except ValueError:
            peaks[key] = None  # unknown (no /proc)

    big = f"{args.big_mib} MiB PATCH"
    images = f"{args.images} {args.format} {args.size} -> {args.box}"
    # name, label, kind, baseline
    specs = [
        ("tus-engine", f"{big}: pipeline serve", "big", "tus-litestar"),
        ("tus-litestar", f"{big}: litestar-tus", "big", None),
        ("resize-engine", f"{images}: pipeline serve /image/resize", "images", "resize-vipsthumbnail"),
        ("resize-vipsthumbnail", f"{images}: vipsthumbnail", "images", None),
    ]
    payload_mb = args.big_mib * MIB / MB

    def ratio(ours, baseline):
        if baseline not in best or ours not in best or best[ours][0] <= 0:
            return None
        return best[baseline][0] / best[ours][0]

    header = ("case", "seconds", "MB/s", "images/s", "peak MB", "x baseline")
    table = [header]
    floors = []
    for name, label, kind, baseline in specs:
        if name not in best:
            continue
        secs = best[name][0]
        rate = f"{payload_mb / secs:.0f}" if kind == "big" and secs > 0 else "-"
        per_s = f"{args.images / secs:.1f}" if kind == "images" and secs > 0 else "-"
        peak = peaks.get(name)
        if peak is None:
            peak_text = "?"
        else:
            peak_text = peak_cell(*peak)
            if peak[1] and peak[0] <= peak[1] + 0.5:
                floors.append(peak[1])
        r = ratio(name, baseline) if baseline else None
        table.append((label, f"{secs:.3f}", rate, per_s, peak_text, f"{r:.2f}" if r is not None else "-"))

    print_table(table)
    print()
    print("times: best of runs (MB = 10^6 bytes); MB/s counts file bytes only.")
    print("x baseline = pipeline serve's throughput / litestar-tus's (PATCH rows) or")
    print("vipsthumbnail's (resize rows); > 1 means pipeline serve is faster.")
    print("PATCH rows time only `curl -T FILE -X PATCH` against each server; the creating")
    print("POST is sent before the clock starts.")
    print("The pipeline serve resize row times one Assembly with all images as multipart")
    print("parts: curl's POST (the upload over loopback included), then a status GET every")
    print("50 ms until ASSEMBLY_COMPLETED. The engine resizes the files of a step in")
    print("parallel on all cores; vipsthumbnail is one process that takes the files one at")
    print("a time (libvips uses threads inside each operation).")
    if args.format in ("jpg", "jpeg"):
        print("vipsthumbnail opens JPEGs with shrink-on-load (decoding at a reduced size);")
        print("FORMAT=png compares without that shortcut.")
    print("peak MB: for the servers, VmHWM from /proc/<pid>/status before they are stopped,")
    print("the high-water mark over the whole part (all runs), as they are long-running;")
    print("for vipsthumbnail, its own peak over the runs.")
    if floors:
        print(f"'<=' marks a peak at the measuring floor of {max(floors):.1f} MB: Linux counts")
        print("the forked copy of the measuring Python process as each child's starting size")
    print()

    r = ratio("tus-engine", "tus-litestar")
    if r is not None:
        ours = payload_mb / best["tus-engine"][0]
        theirs = payload_mb / best["tus-litestar"][0]
        print(f"INFO  tus PATCH of a {args.big_mib} MiB file: pipeline serve {ours:.0f} MB/s, "
              f"litestar-tus {theirs:.0f} MB/s: {r:.2f}x (no target)")
    r = ratio("resize-engine", "resize-vipsthumbnail")
    if r is not None:
        ours = args.images / best["resize-engine"][0]
        theirs = args.images / best["resize-vipsthumbnail"][0]
        print(f"INFO  /image/resize of {args.images} {args.format} images: pipeline serve {ours:.1f} "
              f"images/s, vipsthumbnail {theirs:.1f} images/s: {r:.2f}x (no target)")
    # No targets are set for serve.sh yet, so STRICT=1 has nothing to fail on.


# -------------------------------------------------------------- end to end

def generate_pngs(args):
    import zlib

    size = args.size
    if size < 2:
        fail("gen-pngs: the images must be at least 2 x 2")
    os.makedirs(args.dir, exist_ok=True)
    # Red runs left to right, green top to bottom, blue along the diagonal.
    ramp = [v * 255 // (size - 1) for v in range(size)]
    rows = []
    for y in range(size):
        row = bytearray(1 + 3 * size)  # filter byte 0 ("none"), then RGB triples
        row[1::3] = bytes(ramp)
        row[2::3] = bytes([ramp[y]]) * size
        row[3::3] = bytes((ramp[x] + ramp[y]) // 2 for x in range(size))
        rows.append(bytes(row))
    rest = b"".join(rows[1:])
    for i in range(1, args.count + 1):
        # The index (24 bits) replaces the top-left pixel, so each file differs.
        first = bytearray(rows[0])
        first[1:4] = i.to_bytes(3, "big")
        write_png(os.path.join(args.dir, f"img{i:05d}.png"), size, size,
                  zlib.compress(bytes(first) + rest, 6))


def check_results(args):
    import json

    try:
        with open(args.results, encoding="utf-8") as handle:
            results = json.load(handle)
    except (OSError, ValueError) as error:
        fail(f"check-results: cannot read {args.results}: {error}")
    assemblies = results.get("assemblies") if isinstance(results, dict) else None
    if not isinstance(assemblies, list) or not assemblies:
        fail(f"check-results: {args.results} lists no Assemblies")
    failed = [f"{a.get('plan_id', '?')[:12]} {a.get('status')}: {a.get('message', '')}"
              for a in assemblies if a.get("status") != "ASSEMBLY_COMPLETED"]
    if failed:
        fail(f"check-results: {len(failed)} of {len(assemblies)} Assemblies did not complete: "
             + "; ".join(failed[:3]))
    files = []
    for entry in assemblies:
        listed = (entry.get("results") or {}).get(args.step)
        if not isinstance(listed, list):
            fail(f"check-results: Assembly {entry.get('assembly_id')} has no results.{args.step}")
        files.extend(listed)
    if len(files) != args.expect:
        fail(f"check-results: results.{args.step} lists {len(files)} files in all, expected {args.expect}")
    empty = [f.get("name") for f in files if not isinstance(f, dict) or not f.get("size")]
    if empty:
        fail(f"check-results: empty results: {empty[:5]}")
    if args.source:
        digest = sha256_of(args.source)
        for entry in assemblies:
            for source in entry.get("files") or []:
                if source.get("sha256") != digest:
                    fail(f"check-results: {source.get('path')}: sha256 {source.get('sha256')} != {digest}")
        for result in files:
            found = (result.get("meta") or {}).get("hash")
            if found != digest:
                fail(f"check-results: {result.get('name')}: meta.hash {found} != {digest}")
    count = len(assemblies)
    print(f"verified: {count} {'Assembly' if count == 1 else 'Assemblies'} completed, results.{args.step} "
          f"lists {len(files)} {'file' if len(files) == 1 else 'files'}"
          + (f" with the SHA-256 of {os.path.basename(args.source)}" if args.source else ""))


def load_cpu(path):
    """Least CPU seconds per name over the runs: (client and its children, engine), from the
    tab-separated clock ticks run.sh records."""
    ticks = os.sysconf("SC_CLK_TCK")
    least = {}
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            fields = line.rstrip("\n").split("\t")
            if len(fields) != 3:
                continue
            cpu = (int(fields[1]) / ticks, int(fields[2]) / ticks)
            old = least.get(fields[0])
            least[fields[0]] = cpu if old is None or sum(cpu) < sum(old) else old
    return least


def print_image_overhead(cpu, tool, tool_seconds, cores):
    """What the run spends besides resizing (the same Assemblies through a /file/filter step), what
    its resizing costs against the tool's, and the best ratio that overhead leaves on these cores."""
    run, bare, by_hand = cpu["images-run"], cpu["images-run-filter"], cpu[tool]
    overhead, resizing = sum(bare), sum(run) - sum(bare)
    print(f"INFO  CPU: pipeline run {sum(run):.2f} s (client {run[0]:.2f}, engine {run[1]:.2f}); the same Assemblies with no "
          f"image work (/file/filter) {overhead:.2f} s (client {bare[0]:.2f}, engine {bare[1]:.2f}); so resizing costs the "
          f"run {resizing:.2f} s against {sum(by_hand):.2f} s for {tool[len('images-'):]} ({resizing / max(sum(by_hand), 1e-9):.2f}x)")
    floor = tool_seconds + overhead / max(cores, 1)
    print(f"INFO  with that overhead spread over {cores} cores, pipeline run takes at least {floor:.2f} s even if its resizing "
          f"cost exactly the tool's and everything overlapped: at best {tool_seconds / floor:.2f}x the tool")


def run_report(args):
    best = load_results(args.tsv)
    images = f"{args.images} PNG {args.image_size}x{args.image_size} -> {args.box}x{args.box}"
    big = f"{args.big_mib} MiB file"
    # name, label, kind
    specs = [
        ("images-run", f"{images}: pipeline run", "images"),
        ("images-run-filter", f"{args.images} PNG: pipeline run, /file/filter (no image work)", "images"),
        ("images-run-one", f"{images}: pipeline run, one file per Assembly", "images"),
        ("images-local", f"{images}: pipeline run, endpoint: local (in process)", "images"),
        ("images-local-one", f"{images}: pipeline run, endpoint: local, one file per Assembly", "images"),
        ("images-vipsthumbnail", f"{images}: vipsthumbnail, a process per core", "images"),
        ("images-mogrify", f"{images}: mogrify, a process per core", "images"),
        ("images-sdk", f"{images}: Python SDK, batch after batch", "images"),
        ("big-run", f"{big}: pipeline run (/file/hash)", "big"),
        ("big-upload", f"{big}: pipeline upload alone", "big"),
    ]
    payload_mb = args.big_mib * MIB / MB

    def seconds_ratio(numerator, denominator):
        if numerator not in best or denominator not in best or best[denominator][0] <= 0:
            return None
        return best[numerator][0] / best[denominator][0]

    x_sdk = seconds_ratio("images-sdk", "images-run")
    upload_share = seconds_ratio("big-upload", "big-run")

    header = ("case", "seconds", "files/s", "MB/s", "peak MB", "x SDK", "upload/run")
    table = [header]
    floors = []
    for name, label, kind in specs:
        if name not in best:
            continue
        secs, peak, floor = best[name]
        if floor and peak <= floor + 0.5:
            floors.append(floor)
        files = f"{args.images / secs:.1f}" if kind == "images" and secs > 0 else "-"
        rate = f"{payload_mb / secs:.0f}" if kind == "big" and secs > 0 else "-"
        sdk_cell = f"{x_sdk:.2f}" if name == "images-run" and x_sdk is not None else "-"
        share_cell = f"{upload_share:.2f}" if name == "big-run" and upload_share is not None else "-"
        table.append((label, f"{secs:.3f}", files, rate, peak_cell(peak, floor), sdk_cell, share_cell))

    print_table(table)
    print()
    print("times: best of runs; peak memory: max of runs, of the client process only")
    print("(MB = 10^6 bytes); MB/s counts file bytes only. All rows use one pipeline serve")
    print("on 127.0.0.1, whose data folder is emptied after every command.")
    print("x SDK = SDK seconds / pipeline run seconds (> 1 means pipeline run is faster).")
    print("upload/run = pipeline upload seconds / pipeline run seconds: the share of the")
    print("end-to-end time that the upload alone takes; the rest is the API's overhead.")
    print("pipeline run times the whole command: planning (globbing and hashing every")
    print(f"file), {args.batch} files per Assembly, creating the Assemblies (--concurrency "
          f"{args.concurrency}),")
    print("tus uploads (4 files at once per Assembly), asking for the status (once after the")
    print("uploads, then held by pipeline serve until the Assembly ends) and writing results.json.")
    print("vipsthumbnail and mogrify resize the same files by hand, one process per core.")
    print(f"The Python SDK (pytransloadit) creates the same Assemblies of {args.batch} files with")
    print("the same step one after another (it has no concurrency), uploads each file with")
    print("tus one after another (its resumable mode) and polls once a second (its way).")
    print("pipeline upload sends the big file to the engine's tus endpoint with --checksum")
    print("auto, as pipeline run does; no Assembly, no planning, no hash step.")
    if args.engine_peak:
        print(f"pipeline serve's own peak (VmHWM over all cases and runs): {args.engine_peak} MB.")
    if floors:
        print(f"'<=' marks a peak at the measuring floor of {max(floors):.1f} MB: Linux counts")
        print("the forked copy of the measuring Python process as each child's starting size")
    print()

    missed = False
    if x_sdk is not None:
        ours, theirs = best["images-run"], best["images-sdk"]
        memory = f"{ours[1] / theirs[1]:.2f}x" if theirs[1] > 0 else "-"
        missed |= x_sdk < 4.0
        print(f"{'PASS' if x_sdk >= 4.0 else 'MISS'}  {args.images} images end to end at least 4x the Python SDK: "
              f"pipeline run {ours[0]:.2f} s ({args.images / ours[0]:.1f} images/s), Python SDK {theirs[0]:.2f} s "
              f"({args.images / theirs[0]:.1f} images/s): {x_sdk:.2f}x")
        print(f"INFO  {args.images} images peak RSS: pipeline run {peak_cell(ours[1], ours[2])} MB, "
              f"Python SDK {peak_cell(theirs[1], theirs[2])} MB: pipeline run uses {memory} "
              "the SDK's (no target)")
    tools = [name for name in ("images-vipsthumbnail", "images-mogrify") if name in best]
    fastest = min(tools, key=lambda name: best[name][0]) if tools else None
    # The same two targets for the run against pipeline serve and on endpoint: local.
    for batched, single, where in (("images-run", "images-run-one", ""), ("images-local", "images-local-one", " on endpoint: local")):
        if batched in best and fastest:
            ratio = best[fastest][0] / best[batched][0]
            missed |= ratio < 0.9
            print(f"{'PASS' if ratio >= 0.9 else 'MISS'}  {args.images} images{where}: pipeline run at least 0.9x the fastest tool by hand "
                  f"({fastest[len('images-'):]}, {best[fastest][0]:.2f} s): {best[batched][0]:.2f} s, {ratio:.2f}x")
            cpu = load_cpu(args.cpu) if args.cpu else {}
            if batched == "images-run" and {"images-run", "images-run-filter", fastest} <= cpu.keys():
                print_image_overhead(cpu, fastest, best[fastest][0], args.cores)
        if batched in best and single in best:
            factor = best[single][0] / best[batched][0]
            missed |= factor > 1.5
            print(f"{'PASS' if factor <= 1.5 else 'MISS'}  {args.images} images{where} one per Assembly within 1.5x of {args.batch} per Assembly: "
                  f"{best[single][0]:.2f} s against {best[batched][0]:.2f} s, {factor:.2f}x")
    if upload_share is not None:
        run, upload = best["big-run"], best["big-upload"]
        overhead = run[0] - upload[0]
        factor = run[0] / upload[0] if upload[0] > 0 else float("inf")
        missed |= factor > 1.25
        print(f"{'PASS' if factor <= 1.25 else 'MISS'}  {args.big_mib} MiB file: pipeline run at most 1.25x pipeline upload: "
              f"{run[0]:.2f} s against {upload[0]:.2f} s, {factor:.2f}x; planning, the API and the "
              f"/file/hash step add {overhead:.2f} s")
        print(f"INFO  {args.big_mib} MiB file peak RSS: pipeline run {peak_cell(run[1], run[2])} MB, "
              f"pipeline upload {peak_cell(upload[1], upload[2])} MB (no target)")
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
    p.add_argument("--jpeg-bytes", type=int, default=0)
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

    p = sub.add_parser("gen-png", help="write one RGB test image as PNG")
    p.add_argument("path")
    p.add_argument("--width", type=int, required=True)
    p.add_argument("--height", type=int, required=True)
    p.set_defaults(func=generate_png)

    p = sub.add_parser("assembly", help="time one Assembly on pipeline serve")
    p.add_argument("origin")
    p.add_argument("--params", required=True)
    p.add_argument("--step", required=True)
    p.add_argument("--expect", type=int, required=True)
    p.add_argument("--name")
    p.add_argument("--interval", type=float, default=0.05)
    p.add_argument("--timeout", type=float, default=900.0)
    p.add_argument("files", nargs="+")
    p.set_defaults(func=assembly)

    p = sub.add_parser("serve-report", help="print the serve comparison table")
    p.add_argument("tsv")
    p.add_argument("--big-mib", type=int, required=True)
    p.add_argument("--images", type=int, required=True)
    p.add_argument("--format", required=True)
    p.add_argument("--size", required=True)
    p.add_argument("--box", required=True)
    p.add_argument("--peak", action="append", default=[], metavar="NAME=MB[/FLOOR]")
    p.set_defaults(func=serve_report)

    p = sub.add_parser("gen-pngs", help="write small numbered PNGs")
    p.add_argument("dir")
    p.add_argument("--count", type=int, required=True)
    p.add_argument("--size", type=int, required=True)
    p.set_defaults(func=generate_pngs)

    p = sub.add_parser("check-results", help="check the results JSON of pipeline run")
    p.add_argument("results")
    p.add_argument("--step", required=True)
    p.add_argument("--expect", type=int, required=True)
    p.add_argument("--source")
    p.set_defaults(func=check_results)

    p = sub.add_parser("run-report", help="print the end-to-end comparison table")
    p.add_argument("tsv")
    p.add_argument("--images", type=int, required=True)
    p.add_argument("--image-size", type=int, required=True)
    p.add_argument("--box", type=int, required=True)
    p.add_argument("--batch", type=int, required=True)
    p.add_argument("--big-mib", type=int, required=True)
    p.add_argument("--concurrency", type=int, default=4)
    p.add_argument("--engine-peak")
    p.add_argument("--cpu", help="run.sh's CPU seconds per measurement (tab-separated clock ticks)")
    p.add_argument("--cores", type=int, default=os.cpu_count() or 1)
    p.set_defaults(func=run_report)

    args = parser.parse_args()
    args.func(args)


if __name__ == "__main__":
    main()
