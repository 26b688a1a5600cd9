#!/usr/bin/env python3
"""Helper for bench/shared.sh (Python 3 standard library only).

Subcommands:
  gen-file PATH --mib M
      Write M MiB of random bytes to PATH; print their SHA-256.
  free-port
      Print a TCP port of 127.0.0.1 that nothing listens on now.
  slow-server --delay-ms D --bytes N
      An HTTP server on a free port of 127.0.0.1 (printed as "PORT <n>") that
      answers every GET after D milliseconds with N bytes: what /http/import
      waits on, not computes. Stops on SIGTERM.
  upload ORIGIN FILE --chunk-mib C --setup S --results FILE
      A tus upload of FILE to ORIGIN/resumable/files/: the creating POST, then
      one PATCH per C MiB over one kept-alive connection, each answer's
      Upload-Offset checked. Times the POST to the last answer; prints the
      upload's id.
  assemblies ORIGIN PNG --count N --clients K --box WxH [--key KEY] --setup S
             --results FILE
      N Assemblies of one /image/resize of PNG (a multipart POST each), K
      clients at a time (measures KEY_p50, KEY_p95 and KEY_wall; KEY is
      "assemblies" unless given). Each client asks for the status with
      Pipeline-Status-Wait (the engine holds the request until the Assembly
      moves on) until ASSEMBLY_COMPLETED; an Assembly's time runs from its
      POST to that answer. Checks every result (one file, fitting the box)
      and downloads the first one (a PNG of the size listed).
  imports ORIGIN URL --count N --bytes B --setup S --results FILE
      N Assemblies, all created at once, each one /http/import of URL?i=<n>;
      times the first POST to the last completion; checks each imported B
      bytes.
  round-trips URL...
      Print the sum of pipeline_database_round_trips_total over the engines'
      /metrics URLs.
  record --setup S --results FILE NAME VALUE
      Append one measurement.
  s3-requests LOG --skip N
      Print the requests the S3 proxy logged after its first N lines: the total
      and, by kind, as "TOTAL KIND=COUNT ...".
  s3-digest ENDPOINT BUCKET KEY
      GET the object KEY (signed with $AWS_ACCESS_KEY_ID and
      $AWS_SECRET_ACCESS_KEY, region us-east-1); print its size and SHA-256.
  s3-put ENDPOINT BUCKET PREFIX FILE [--part-mib P] --setup S --results FILE
      The S3 server alone: FILE sent as objects of P MiB (default 5, the
      engine's part size for uploads under 48 GiB), one after another, timed,
      then removed.
  cpu PID...
      Print the CPU seconds (user and system) the processes have used so far.
  report FILE --upload-mib M --chunk-mib C --solo S --count N --clients K
         --imports I --delay-ms D --runs R
      Print the table (each setup against A, the engine on its data folder;
      times the best of the runs, counts and CPU their median) and the
      PASS/MISS lines. Exits 3 on a miss when STRICT=1.

Every subcommand that measures appends JSON lines {"setup", "name", "value"} to
--results and prints one line about what it measured.
"""

import argparse
import hashlib
import json
import os
import sys
import time

MB = 1_000_000
MIB = 1024 * 1024


def fail(message):
    print(f"shared.py: {message}", file=sys.stderr)
    sys.exit(1)


def record(path, setup, name, value):
    with open(path, "a") as handle:
        handle.write(json.dumps({"setup": setup, "name": name, "value": value}) + "\n")


def connection_to(origin, timeout=120):
    import http.client
    import urllib.parse

    parts = urllib.parse.urlsplit(origin)
    if parts.scheme != "http" or not parts.hostname:
        fail(f"{origin} is not an http:// origin")
    return http.client.HTTPConnection(parts.hostname, parts.port or 80, timeout=timeout)


def percentile(values, share):
    """The nearest-rank percentile of values (share in 0..1)."""
    import math

    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


# ------------------------------------------------------------------ helpers

def gen_file(args):
    digest = hashlib.sha256()
    with open(args.path, "wb") as handle:
        for _ in range(args.mib):
            block = os.urandom(MIB)
            digest.update(block)
            handle.write(block)
    print(digest.hexdigest())


def free_port(_args):
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        print(probe.getsockname()[1])


def slow_server(args):
    import http.server
    import signal

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    body = bytes(range(256)) * (args.bytes // 256) + bytes(args.bytes % 256)
    delay = args.delay_ms / 1000.0

    class Slow(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self):
            time.sleep(delay)
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_):
            pass

    class Server(http.server.ThreadingHTTPServer):
        daemon_threads = True
        request_queue_size = 128

    server = Server(("127.0.0.1", 0), Slow)
    print(f"PORT {server.server_address[1]}", flush=True)
    server.serve_forever()


def round_trips(args):
    import re
    import urllib.request

    total = 0
    for url in args.urls:
        try:
            with urllib.request.urlopen(url, timeout=30) as response:
                text = response.read().decode("utf-8", "replace")
        except OSError as error:
            fail(f"GET {url}: {error}")
        found = re.search(r"^pipeline_database_round_trips_total (\d+)$", text, re.M)
        if not found:
            fail(f"{url} has no pipeline_database_round_trips_total (is the engine sharing its state?)")
        total += int(found.group(1))
    print(total)


def record_command(args):
    record(args.results, args.setup, args.name, float(args.value))


def s3_requests(args):
    """Requests the proxy forwarded after its first --skip lines, by kind."""
    import re

    kinds = {}
    with open(args.log, errors="replace") as handle:
        lines = handle.read().splitlines()[args.skip:]
    for line in lines:
        parts = line.split(" ")
        if len(parts) < 3 or parts[0] not in ("forward", "fault"):
            continue
        method, target = (parts[1], parts[2]) if parts[0] == "forward" else (parts[2], parts[3])
        query = target.partition("?")[2]
        if method == "PUT" and re.search(r"(^|&)partNumber=", query):
            kind = "part"
        elif method == "POST" and re.search(r"(^|&)uploads(=|&|$)", query):
            kind = "start"
        elif method == "POST" and "uploadId=" in query:
            kind = "complete"
        elif method == "DELETE" and "uploadId=" in query:
            kind = "abort"
        elif method == "GET" and re.search(r"(^|&)list-type=|(^|&)prefix=", query):
            kind = "list"
        else:
            kind = method.lower()
        kinds[kind] = kinds.get(kind, 0) + 1
    total = sum(kinds.values())
    print(" ".join([str(total)] + [f"{kind}={count}" for kind, count in sorted(kinds.items())]))


def s3_request(endpoint, method, bucket, key, body=None):
    """One request to an S3 endpoint, signed with AWS Signature Version 4 (payload unsigned) for
    $AWS_ACCESS_KEY_ID and $AWS_SECRET_ACCESS_KEY in us-east-1; the response, unread."""
    import datetime
    import hmac
    import http.client
    import urllib.parse

    key_id, secret = os.environ.get("AWS_ACCESS_KEY_ID"), os.environ.get("AWS_SECRET_ACCESS_KEY")
    if not key_id or not secret:
        fail("S3 requests need AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY")
    address = urllib.parse.urlsplit(endpoint)
    path = "/" + bucket + "/" + urllib.parse.quote(key, safe="/-_.~")
    now = datetime.datetime.now(datetime.timezone.utc)
    stamp, day = now.strftime("%Y%m%dT%H%M%SZ"), now.strftime("%Y%m%d")
    payload = "UNSIGNED-PAYLOAD"
    signed = "host;x-amz-content-sha256;x-amz-date"
    canonical = "\n".join([method, path, "", f"host:{address.netloc}", f"x-amz-content-sha256:{payload}",
                           f"x-amz-date:{stamp}", "", signed, payload])
    scope = f"{day}/us-east-1/s3/aws4_request"
    to_sign = "\n".join(["AWS4-HMAC-SHA256", stamp, scope, hashlib.sha256(canonical.encode()).hexdigest()])
    signing = ("AWS4" + secret).encode()
    for part in (day, "us-east-1", "s3", "aws4_request"):
        signing = hmac.new(signing, part.encode(), hashlib.sha256).digest()
    signature = hmac.new(signing, to_sign.encode(), hashlib.sha256).hexdigest()
    headers = {"x-amz-date": stamp, "x-amz-content-sha256": payload,
               "Authorization": f"AWS4-HMAC-SHA256 Credential={key_id}/{scope}, SignedHeaders={signed}, Signature={signature}"}
    connection = http.client.HTTPConnection(address.hostname, address.port, timeout=120)
    connection.request(method, path, body=body, headers=headers)
    return connection.getresponse()


def s3_digest(args):
    response = s3_request(args.endpoint, "GET", args.bucket, args.key)
    if response.status != 200:
        fail(f"GET s3://{args.bucket}/{args.key}: {response.status} {response.read(300)!r}")
    digest, size = hashlib.sha256(), 0
    while True:
        block = response.read(MIB)
        if not block:
            break
        digest.update(block)
        size += len(block)
    print(size, digest.hexdigest())


def s3_put(args):
    """The S3 server alone: FILE sent as objects of --part-mib, one after another, then removed."""
    size = os.path.getsize(args.file)
    part = args.part_mib * MIB
    keys = []
    with open(args.file, "rb") as source:
        start = time.perf_counter()
        while True:
            body = source.read(part)
            if not body:
                break
            key = f"{args.prefix}/part-{len(keys):05d}"
            response = s3_request(args.endpoint, "PUT", args.bucket, key, body)
            response.read()
            if response.status != 200:
                fail(f"PUT s3://{args.bucket}/{key}: {response.status}")
            keys.append(key)
        seconds = time.perf_counter() - start
    for key in keys:
        s3_request(args.endpoint, "DELETE", args.bucket, key).read()
    record(args.results, args.setup, "s3_put_seconds", seconds)
    print(f"S3 server alone: {size / MIB:.0f} MiB as {len(keys)} PUTs of {args.part_mib} MiB in {seconds:.2f} s "
          f"({size / MB / seconds:.0f} MB/s)")


def cpu(args):
    """CPU seconds (user and system) the processes have used so far; one gone counts 0."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in args.pids:
        try:
            with open(f"/proc/{pid}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime and stime (fields 14 and 15 of stat)
    print(f"{total / ticks:.2f}")


# ------------------------------------------------------------------ upload

def upload(args):
    import base64

    size = os.path.getsize(args.file)
    chunk = args.chunk_mib * MIB
    connection = connection_to(args.origin, timeout=300)
    name = base64.b64encode(os.path.basename(args.file).encode()).decode()
    tus = {"Tus-Resumable": "1.0.0"}

    def send(method, path, body=None, headers=None):
        connection.request(method, path, body=body, headers={**tus, **(headers or {})})
        response = connection.getresponse()
        response.read()
        return response

    patches = 0
    with open(args.file, "rb") as source:
        start = time.perf_counter()
        created = send("POST", "/resumable/files/", headers={"Upload-Length": str(size), "Upload-Metadata": f"filename {name}"})
        location = created.getheader("Location")
        if created.status != 201 or not location:
            fail(f"upload: the creating POST to {args.origin} answered {created.status} without a Location")
        path = "/" + location.split("://", 1)[-1].split("/", 1)[-1]
        offset = 0
        patch_seconds = []
        while offset < size:
            body = source.read(chunk)
            sent = time.perf_counter()
            answer = send("PATCH", path, body=body, headers={
                "Upload-Offset": str(offset), "Content-Type": "application/offset+octet-stream"})
            patch_seconds.append(time.perf_counter() - sent)
            offset += len(body)
            patches += 1
            if answer.status != 204 or answer.getheader("Upload-Offset") != str(offset):
                fail(f"upload: PATCH {patches} of {path} answered {answer.status} at offset "
                     f"{answer.getheader('Upload-Offset')}, expected 204 at {offset}")
        seconds = time.perf_counter() - start
    record(args.results, args.setup, "upload_seconds", seconds)
    record(args.results, args.setup, "upload_patches", patches)
    print(f"{args.setup}: uploaded {size / MIB:.0f} MiB in {patches} PATCHes in {seconds:.2f} s "
          f"({size / MB / seconds:.0f} MB/s; a PATCH took {percentile(patch_seconds, 0.5) * 1000:.0f} ms at the median, "
          f"{max(patch_seconds) * 1000:.0f} ms at most)", file=sys.stderr)
    print(path.rsplit("/", 1)[-1])


# -------------------------------------------------------------- Assemblies

def post_assembly(connection, params, files=()):
    """POST /assemblies with params (and files as (name, bytes, type)); the status it answers."""
    import uuid

    boundary = uuid.uuid4().hex
    pieces = [f'--{boundary}\r\nContent-Disposition: form-data; name="params"\r\n\r\n'.encode(), params.encode(), b"\r\n"]
    for index, (name, data, kind) in enumerate(files, 1):
        pieces += [f'--{boundary}\r\nContent-Disposition: form-data; name="file{index}"; filename="{name}"\r\n'
                   f"Content-Type: {kind}\r\n\r\n".encode(), data, b"\r\n"]
    pieces.append(f"--{boundary}--\r\n".encode())
    connection.request("POST", "/assemblies", body=b"".join(pieces),
                       headers={"Content-Type": f"multipart/form-data; boundary={boundary}"})
    return read_status(connection, "the creating POST")


def read_status(connection, what):
    response = connection.getresponse()
    text = response.read().decode("utf-8", "replace")
    try:
        status = json.loads(text)
    except ValueError:
        raise RuntimeError(f"{what} answered {response.status} with no JSON: {text[:200]!r}")
    if not isinstance(status, dict):
        raise RuntimeError(f"{what} answered {response.status} with no JSON object")
    if status.get("error"):
        raise RuntimeError(f"{what}: {status['error']}: {status.get('message', '')}")
    return status


def until_completed(connection, status, deadline):
    """Asks for the status, each request held by the engine until the Assembly moves on, until it completes."""
    assembly_id = status.get("assembly_id")
    if not isinstance(assembly_id, str) or not assembly_id:
        raise RuntimeError("the creating POST answered no assembly_id")
    while status.get("ok") != "ASSEMBLY_COMPLETED":
        if status.get("ok") not in ("ASSEMBLY_UPLOADING", "ASSEMBLY_EXECUTING"):
            raise RuntimeError(f"Assembly {assembly_id} is {status.get('ok')!r}: {status.get('message', '')}")
        if time.monotonic() > deadline:
            raise RuntimeError(f"Assembly {assembly_id} did not complete in time")
        connection.request("GET", f"/assemblies/{assembly_id}", headers={"Pipeline-Status-Wait": "20"})
        status = read_status(connection, f"GET /assemblies/{assembly_id}")
    return status


def run_clients(count, clients, origin, one):
    """Runs one(connection, index) for index in 0..<count on `clients` threads; their answers in order."""
    import threading

    answers = [None] * count
    errors = []
    next_index = [0]
    lock = threading.Lock()

    def client():
        connection = connection_to(origin)
        while True:
            with lock:
                if errors or next_index[0] >= count:
                    return
                index = next_index[0]
                next_index[0] += 1
            try:
                answers[index] = one(connection, index)
            except Exception as error:  # any failure stops the run with its message
                with lock:
                    errors.append(f"{type(error).__name__}: {error}")
                return

    threads = [threading.Thread(target=client) for _ in range(min(clients, count))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        fail(errors[0])
    return answers


def png_size(data):
    if data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
        return None
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def assemblies(args):
    width, height = (int(v) for v in args.box.split("x"))
    with open(args.png, "rb") as handle:
        png = handle.read()
    params = json.dumps({"steps": {"thumb": {"robot": "/image/resize", "use": ":original", "width": width,
                                             "height": height, "resize_strategy": "fit"}}})

    def one(connection, index):
        start = time.perf_counter()
        status = post_assembly(connection, params, [(f"img{index:05d}.png", png, "image/png")])
        status = until_completed(connection, status, time.monotonic() + 300)
        seconds = time.perf_counter() - start
        results = (status.get("results") or {}).get("thumb")
        if not isinstance(results, list) or len(results) != 1 or not results[0].get("size"):
            raise RuntimeError(f"Assembly {status.get('assembly_id')}: results.thumb is {results!r:.200}, expected one file")
        meta = results[0].get("meta") or {}
        if not (0 < (meta.get("width") or 0) <= width and 0 < (meta.get("height") or 0) <= height):
            raise RuntimeError(f"Assembly {status.get('assembly_id')}: the thumbnail is {meta.get('width')}x{meta.get('height')}, "
                               f"expected one that fits {args.box}")
        return seconds, results[0]

    start = time.perf_counter()
    answers = run_clients(args.count, args.clients, args.origin, one)
    wall = time.perf_counter() - start
    check_download(args.origin, answers[0][1])
    times = [seconds for seconds, _ in answers]
    p50, p95 = percentile(times, 0.5), percentile(times, 0.95)
    for name, value in ((f"{args.key}_p50", p50), (f"{args.key}_p95", p95), (f"{args.key}_wall", wall)):
        record(args.results, args.setup, name, value)
    clients = "one client" if args.clients == 1 else f"{args.clients} clients"
    print(f"{args.setup}: {args.count} resize Assemblies, {clients}: p50 {p50 * 1000:.0f} ms, "
          f"p95 {p95 * 1000:.0f} ms, {args.count / wall:.1f} Assemblies/s")


def check_download(origin, result):
    """The result's URL (through ORIGIN's host) serves a PNG of the listed size and dimensions."""
    import urllib.parse

    url = result.get("url") or result.get("ssl_url")
    if not url:
        fail(f"the result {result.get('name')!r} lists no url")
    path = urllib.parse.urlsplit(url)
    connection = connection_to(origin)
    connection.request("GET", path.path + (f"?{path.query}" if path.query else ""))
    response = connection.getresponse()
    data = response.read()
    if response.status != 200 or len(data) != result.get("size"):
        fail(f"GET {url}: {response.status}, {len(data)} bytes, expected 200 and {result.get('size')} bytes")
    meta = result.get("meta") or {}
    if png_size(data) != (meta.get("width"), meta.get("height")):
        fail(f"GET {url}: not a PNG of {meta.get('width')}x{meta.get('height')} (it reads as {png_size(data)})")


def imports(args):
    def one(connection, index):
        params = json.dumps({"steps": {"imported": {"robot": "/http/import", "url": f"{args.url}?i={index}"}}})
        status = post_assembly(connection, params)
        status = until_completed(connection, status, time.monotonic() + 300)
        results = (status.get("results") or {}).get("imported")
        if not isinstance(results, list) or len(results) != 1 or results[0].get("size") != args.bytes:
            raise RuntimeError(f"Assembly {status.get('assembly_id')}: results.imported is {results!r:.200}, "
                               f"expected one file of {args.bytes} bytes")
        return True

    start = time.perf_counter()
    run_clients(args.count, args.count, args.origin, one)
    wall = time.perf_counter() - start
    record(args.results, args.setup, "imports_wall", wall)
    print(f"{args.setup}: {args.count} /http/import Assemblies at once: {wall:.2f} s")


# ------------------------------------------------------------------ report

SETUPS = {
    "A": "A: one engine, data folder",
    "B": "B: one engine, Postgres + S3",
    "C": "C: three engines, Postgres + S3, nginx",
}


def load_measures(path):
    """Each setup's measures over the runs: the best (least) of times, the median of counts."""
    import statistics

    runs = {}
    with open(path) as handle:
        for line in handle:
            entry = json.loads(line)
            runs.setdefault(entry["setup"], {}).setdefault(entry["name"], []).append(entry["value"])
    timed = ("_seconds", "_p50", "_p95", "_wall")
    return {setup: {name: min(values) if name.endswith(timed) else statistics.median(values)
                    for name, values in names.items()}
            for setup, names in runs.items()}


def report(args):
    values = load_measures(args.file)
    setups = [s for s in SETUPS if s in values]
    payload = args.upload_mib * MIB / MB

    def get(setup, name):
        return values.get(setup, {}).get(name)

    def scaled(name, factor=1.0, divisor=None):
        """The measure `name` times `factor` (divided by the measure `divisor`)."""
        def value(setup):
            measured, by = get(setup, name), get(setup, divisor) if divisor else 1
            return measured * factor / by if measured is not None and by else None
        return value

    def rate(total, name):
        return lambda setup: total / get(setup, name) if get(setup, name) else None

    # label, value(setup), format, kind: "time" (less is faster), "rate" (more is faster) or None
    # (no ratio: a count).
    rows = [
        (f"tus upload of {args.upload_mib} MiB in {args.chunk_mib} MiB PATCHes, MB/s", rate(payload, "upload_seconds"), "{:.0f}", "rate"),
        (f"resize Assembly create->completed, one client, p50 ms ({args.solo} in a row)", scaled("solo_p50", 1000), "{:.0f}", "time"),
        (f"resize Assembly create->completed, {args.clients} clients, p50 ms ({args.count})",
         scaled("assemblies_p50", 1000), "{:.0f}", "time"),
        (f"resize Assembly create->completed, {args.clients} clients, p95 ms", scaled("assemblies_p95", 1000), "{:.0f}", "time"),
        (f"resize Assemblies per second, {args.clients} clients", rate(args.count, "assemblies_wall"), "{:.1f}", "rate"),
        (f"{args.imports} /http/import Assemblies at once ({args.delay_ms} ms server), s", scaled("imports_wall"), "{:.2f}", "time"),
        ("S3 requests per upload", scaled("upload_s3_requests"), "{:.0f}", None),
        ("S3 requests per resize Assembly", scaled("assemblies_s3_requests", 1 / args.count), "{:.1f}", None),
        ("database round trips per PATCH", scaled("upload_round_trips", 1, "upload_patches"), "{:.1f}", None),
        ("database round trips per resize Assembly", scaled("assemblies_round_trips", 1 / args.count), "{:.1f}", None),
        ("database round trips per second, idle", scaled("idle_round_trips_per_second"), "{:.1f}", None),
        ("CPU s per upload: engines", scaled("cpu_upload_engines"), "{:.2f}", None),
        ("CPU s per upload: S3 server + proxy", lambda s: sum_of(values, s, "cpu_upload_s3", "cpu_upload_proxy"), "{:.2f}", None),
        ("CPU ms per resize Assembly: engines", scaled("cpu_assemblies_engines", 1000 / args.count), "{:.1f}", None),
        ("CPU ms per resize Assembly: Postgres", scaled("cpu_assemblies_postgres", 1000 / args.count), "{:.1f}", None),
        ("CPU ms per resize Assembly: S3 server + proxy",
         lambda s: scale(sum_of(values, s, "cpu_assemblies_s3", "cpu_assemblies_proxy"), 1000 / args.count), "{:.1f}", None),
        ("CPU ms per resize Assembly: nginx", scaled("cpu_assemblies_nginx", 1000 / args.count), "{:.1f}", None),
    ]

    def speed(kind, base, value):
        """A value's speed against A's (above 1: faster than A)."""
        if kind is None or value is None or not base:
            return None
        return base / value if kind == "time" else value / base

    against = setups[1:] if setups[:1] == ["A"] else []
    table = [["measure"] + setups + [f"{s} x A" for s in against]]
    speeds = {}
    for label, value, fmt, kind in rows:
        measured = {s: value(s) for s in setups}
        if all(measured[s] is None for s in setups):
            continue
        cells = [label] + [fmt.format(measured[s]) if measured[s] is not None else "-" for s in setups]
        for s in against:
            speeds[(label, s)] = speed(kind, measured["A"], measured[s])
            cells.append(f"{speeds[(label, s)]:.2f}" if speeds[(label, s)] is not None else "-")
        table.append(cells)

    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
    for index, row in enumerate(table):
        print("  ".join(cell.ljust(widths[i]) if i == 0 else cell.rjust(widths[i]) for i, cell in enumerate(row)))
        if index == 0:
            print("  ".join("-" * w for w in widths))
    print()
    for setup in setups:
        print(SETUPS[setup])
    print(f"Times: the best of {args.runs} run{'s' if args.runs != 1 else ''} (the setups take turns in each); "
          "counts and CPU: the median.")
    print("x A: the setup's speed against A's (A's time / its time, or its rate / A's): above 1 is faster,")
    print("below 0.77 more than 1.3x slower. Round trips, S3 requests and CPU are counted over the whole")
    print("upload or phase, the engines' background work (claims, leases) included; the idle row shows it.")
    print("Postgres, the S3 server, its proxy and nginx run on the same cores as the engines.")
    print()

    missed = False

    def line(ok, text):
        nonlocal missed
        missed |= not ok
        print(f"{'PASS' if ok else 'MISS'}  {text}")

    if "A" in setups and "B" in setups:
        for label, _, _, kind in rows:
            r = speeds.get((label, "B"))
            if kind is None or r is None:
                continue
            told = f"{1 / r:.2f}x A's time" if kind == "time" else f"{r:.2f}x A's rate"
            line(r >= 1 / 1.3, f"one engine on Postgres + S3 within 1.3x of the data folder: {label}: {told}")
    if "C" in setups:
        three = get("C", "imports_wall")
        for one in ("A", "B"):
            single = get(one, "imports_wall")
            if three is not None and single is not None:
                line(three < single, f"three engines beat one ({one}) on the I/O-bound step: {three:.2f} s against "
                                     f"{single:.2f} s ({single / three:.2f}x)")
        for label, _, _, kind in rows:
            r = speeds.get((label, "C"))
            if kind is not None and r is not None:
                print(f"INFO  three engines against the data folder: {label}: {r:.2f}x A's speed")
    own = get("A", "cpu_assemblies_engines")
    if own:
        shares = [f"{s} {get(s, 'cpu_assemblies_engines') / own:.2f}x" for s in ("B", "C") if get(s, "cpu_assemblies_engines")]
        if shares:
            print(f"INFO  the engines' own CPU per resize Assembly against A's: {', '.join(shares)} (what the engines' cores "
                  "pay when Postgres and S3 run elsewhere)")
    alone = get("S3", "s3_put_seconds")
    if alone:
        shares = [f"{s} {alone / get(s, 'upload_seconds'):.2f}x" for s in ("B", "C") if get(s, "upload_seconds")]
        print(f"INFO  the S3 server alone takes {payload / alone:.0f} MB/s ({args.upload_mib} MiB as 5 MiB PUTs, one after "
              f"another, through the proxy); the uploads reach {', '.join(shares) or '-'} of that")
    if missed and os.environ.get("STRICT") == "1":
        sys.exit(3)


def sum_of(values, setup, *names):
    """The sum of a setup's measures; None when one is missing."""
    found = [values.get(setup, {}).get(name) for name in names]
    return None if None in found else sum(found)


def scale(value, factor):
    return None if value is None else value * factor


# -------------------------------------------------------------------- main

def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("gen-file")
    p.add_argument("path")
    p.add_argument("--mib", type=int, required=True)
    p.set_defaults(func=gen_file)

    p = sub.add_parser("free-port")
    p.set_defaults(func=free_port)

    p = sub.add_parser("slow-server")
    p.add_argument("--delay-ms", type=int, required=True)
    p.add_argument("--bytes", type=int, required=True)
    p.set_defaults(func=slow_server)

    def measured(p):
        p.add_argument("--setup", required=True)
        p.add_argument("--results", required=True)

    p = sub.add_parser("upload")
    p.add_argument("origin")
    p.add_argument("file")
    p.add_argument("--chunk-mib", type=int, required=True)
    measured(p)
    p.set_defaults(func=upload)

    p = sub.add_parser("assemblies")
    p.add_argument("origin")
    p.add_argument("png")
    p.add_argument("--count", type=int, required=True)
    p.add_argument("--clients", type=int, required=True)
    p.add_argument("--box", required=True)
    p.add_argument("--key", default="assemblies", help="the measures' names: KEY_p50, KEY_p95, KEY_wall")
    measured(p)
    p.set_defaults(func=assemblies)

    p = sub.add_parser("imports")
    p.add_argument("origin")
    p.add_argument("url")
    p.add_argument("--count", type=int, required=True)
    p.add_argument("--bytes", type=int, required=True)
    measured(p)
    p.set_defaults(func=imports)

    p = sub.add_parser("round-trips")
    p.add_argument("urls", nargs="+")
    p.set_defaults(func=round_trips)

    p = sub.add_parser("record")
    p.add_argument("name")
    p.add_argument("value")
    measured(p)
    p.set_defaults(func=record_command)

    p = sub.add_parser("s3-requests")
    p.add_argument("log")
    p.add_argument("--skip", type=int, default=0)
    p.set_defaults(func=s3_requests)

    p = sub.add_parser("s3-digest")
    p.add_argument("endpoint")
    p.add_argument("bucket")
    p.add_argument("key")
    p.set_defaults(func=s3_digest)

    p = sub.add_parser("s3-put")
    p.add_argument("endpoint")
    p.add_argument("bucket")
    p.add_argument("prefix")
    p.add_argument("file")
    p.add_argument("--part-mib", type=int, default=5)
    measured(p)
    p.set_defaults(func=s3_put)

    p = sub.add_parser("cpu")
    p.add_argument("pids", nargs="*")
    p.set_defaults(func=cpu)

    p = sub.add_parser("report")
    p.add_argument("file")
    for name in ("--upload-mib", "--chunk-mib", "--solo", "--count", "--clients", "--imports", "--delay-ms", "--runs"):
        p.add_argument(name, type=int, required=True)
    p.set_defaults(func=report)

    args = parser.parse_args()
    args.func(args)


if __name__ == "__main__":
    main()
