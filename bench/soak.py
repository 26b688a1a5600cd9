#!/usr/bin/env python3
"""Helper for bench/soak.sh: the clients, the restart probe and the report.

Subcommands:
  probe PORT --ready FILE [--timeout S]
      Touch FILE, then ask http://127.0.0.1:PORT/healthz every millisecond
      (a new connection each time) until, after a refused or cut connection
      (the old engine gone), any HTTP answer comes; print the wall-clock time
      of that answer (seconds since the epoch). soak.sh kills or stops the old
      engine and starts the new one once FILE exists, and subtracts the time
      it started it. Standard library only, so `python3 -S` runs it.
  clients ORIGIN --workers W --seconds D --drain S --records DIR --started FILE
          [--hash-mib M] [--resize-percent P] [--box WxH] [--timeout S] IMAGE...
      Needs pytransloadit and tuspy (the project's .venv). First resizes every
      IMAGE once, one after another, for the reference thumbnails (their MD5s;
      exits 1 when one fails). Then writes the start time (microseconds since
      the epoch) to FILE and runs W worker processes for D seconds. Each worker
      creates one Assembly after another through the SDK's path (the POST of
      Transloadit.request with tus_num_expected_upload_files, a tus upload
      with the SDK's metadata and chunk size, Transloadit.get_assembly): P
      percent /image/resize of a random IMAGE to fit the box, the rest
      /file/hash (sha256) of M MiB of random bytes, new for each Assembly.
      A worker outlives the engine: a refused or cut request waits for the
      engine to answer again and carries on (the POST is sent again, the
      upload resumes from the offset HEAD reports, the status is asked
      again). Each Assembly ends as one JSON line in DIR/worker-N.jsonl:
        completed  ASSEMBLY_COMPLETED and its result checked: the thumbnail
                   downloaded, its MD5 equal to the reference's and to the
                   listed md5hash; the hash robot's meta.hash equal to
                   hashlib's; the upload's md5hash equal to what was sent
        wrong      completed, but a check above failed
        failed     ended with an error (or a 4xx the protocol does not expect)
        lost       the engine forgot it (404 for its status or its upload),
                   or it did not end within --timeout S (300) of its start
                   or by the end of the drain
      After D seconds no new Assembly starts; those under way get S more
      seconds (the drain) before they count as lost.
  report --records DIR --samples CSV --events FILE --seconds D --workers W
         [--sample-seconds S]
      Print the soak's report and its PASS/MISS lines; exit 3 on a miss when
      STRICT=1. Standard library only.
"""

import argparse
import json
import os
import sys
import time

MB = 1_000_000
MIB = 1024 * 1024


def fail(message):
    print(f"soak.py: {message}", file=sys.stderr)
    sys.exit(1)


# ------------------------------------------------------------------- probe

def probe(args):
    import socket

    request = f"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:{args.port}\r\nConnection: close\r\n\r\n".encode()
    with open(args.ready, "w"):
        pass
    deadline = time.monotonic() + args.timeout
    gone = False
    while True:
        try:
            with socket.create_connection(("127.0.0.1", args.port), timeout=5) as connection:
                connection.sendall(request)
                if connection.recv(5) == b"HTTP/" and gone:
                    print(f"{time.time():.6f}", flush=True)
                    return
        except OSError:
            gone = True  # refused or cut: what answers from now on is the new engine
        if time.monotonic() > deadline:
            fail(f"probe: nothing answered on 127.0.0.1:{args.port} within {args.timeout:g} s")
        time.sleep(0.001)


# ----------------------------------------------------------------- clients

class Outcome(Exception):
    """How an Assembly ended, when it did not complete as it should."""

    def __init__(self, outcome, reason):
        super().__init__(reason)
        self.outcome = outcome
        self.reason = reason


# Every request the SDK and tuspy send goes through requests.Session.send; the
# counters see them all (per worker process, which is single-threaded).
COUNTS = {"requests": 0, "http5xx": 0, "conn_errors": 0}
EXAMPLES_5XX = []


def count_requests():
    import requests

    send = requests.Session.send

    def counted(self, request, **kwargs):
        try:
            response = send(self, request, **kwargs)
        except requests.exceptions.RequestException:
            COUNTS["conn_errors"] += 1
            raise
        COUNTS["requests"] += 1
        if response.status_code >= 500:
            COUNTS["http5xx"] += 1
            EXAMPLES_5XX.append(f"{request.method} {request.path_url} -> {response.status_code}")
        return response

    requests.Session.send = counted


def engine_answers(origin):
    """True when GET /healthz answers 200 (not counted with the clients' requests)."""
    import http.client
    from urllib.parse import urlsplit

    address = urlsplit(origin)
    try:
        connection = http.client.HTTPConnection(address.hostname, address.port, timeout=2)
        try:
            connection.request("GET", "/healthz")
            return connection.getresponse().status == 200
        finally:
            connection.close()
    except (OSError, http.client.HTTPException):
        return False


def wait_for_engine(origin, until):
    """Waits until the engine answers again; False when `until` passes first."""
    while time.time() < until:
        if engine_answers(origin):
            return True
        time.sleep(0.05)
    return False


def image_size(body):
    """(width, height) of a JPEG or PNG, or None."""
    if body[:8] == b"\x89PNG\r\n\x1a\n" and len(body) >= 24:
        return int.from_bytes(body[16:20], "big"), int.from_bytes(body[20:24], "big")
    if body[:2] != b"\xff\xd8":
        return None
    at = 2
    while at + 9 < len(body):
        if body[at] != 0xFF:
            return None
        marker = body[at + 1]
        if marker == 0xFF:
            at += 1
            continue
        if marker == 0x01 or 0xD0 <= marker <= 0xD8:
            at += 2
            continue
        if marker in (0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF):
            return int.from_bytes(body[at + 7:at + 9], "big"), int.from_bytes(body[at + 5:at + 7], "big")
        at += 2 + int.from_bytes(body[at + 2:at + 4], "big")
    return None


class Client:
    """One client: the SDK's Transloadit object and the engine's origin."""

    def __init__(self, origin, box, timeout):
        from transloadit import client

        self.origin = origin
        self.box = box
        self.timeout = timeout
        self.sdk = client.Transloadit(auth_key="soak-key", auth_secret="soak-secret", service=origin)
        # Ask the engine to hold each status request until the Assembly moves on (Wire's
        # StatusWait), so the end is seen when it comes, not at the SDK's next one-second poll.
        self.sdk.request.HEADERS = dict(self.sdk.request.HEADERS, **{"Pipeline-Status-Wait": "20"})

    def recover(self, until, record, what, error):
        record[what] += 1
        if len(record.setdefault("errors", [])) < 5:
            record["errors"].append(f"{what}: {error!r}"[:300])
        if not wait_for_engine(self.origin, until):
            raise Outcome("lost", f"the engine did not answer again ({what})")

    def create(self, params, until, record):
        import requests

        while True:
            try:
                response = self.sdk.request.post("/assemblies", extra_data={"tus_num_expected_upload_files": 1}, data=params)
            except (requests.exceptions.RequestException, ValueError) as error:
                # No answer (or not JSON): the engine is down; this Assembly was not acknowledged.
                self.recover(until, record, "create_retries", error)
                continue
            data = response.data if isinstance(response.data, dict) else {}
            if response.status_code == 429 or data.get("error") == "RATE_LIMIT_REACHED":
                time.sleep(float(data.get("info", {}).get("retryIn", 1)))
                continue
            if response.status_code >= 500:
                self.recover(until, record, "create_retries", f"HTTP {response.status_code}")
                continue
            if response.status_code >= 400 or data.get("error") or not data.get("assembly_ssl_url") or not data.get("tus_url"):
                raise Outcome("failed", f"create: HTTP {response.status_code} {data.get('error')}: {data.get('message')}")
            return data

    def upload(self, created, stream, until, record):
        import requests
        from tusclient import client as tus
        from tusclient.exceptions import TusCommunicationError

        assembly_url = created["assembly_ssl_url"]
        # The SDK's metadata and chunk size (transloadit/assembly.py, _do_tus_upload).
        metadata = {"assembly_url": assembly_url, "fieldname": "file", "filename": stream.name}
        url = None
        while True:
            uploader = None
            try:
                # With a URL, tuspy asks the engine for the offset (HEAD) and goes on from it.
                uploader = tus.TusClient(created["tus_url"]).uploader(
                    file_stream=stream, url=url, chunk_size=5 * MIB, metadata=metadata, retries=0)
                uploader.upload()
                return
            except (TusCommunicationError, requests.exceptions.RequestException) as error:
                if uploader is not None and uploader.url:
                    url = uploader.url
                status = getattr(error, "status_code", None)
                if url and status in (404, 410):
                    raise Outcome("lost", f"upload {url} gone after it was created (HTTP {status})")
                if status is not None and 400 <= status < 500 and status not in (409, 423, 429):
                    raise Outcome("failed", f"tus: HTTP {status}: {str(getattr(error, 'response_content', ''))[:200]}")
                if time.time() >= until:
                    raise Outcome("lost", "the upload did not finish in time")
                self.recover(until, record, "upload_resumes", error)

    def await_end(self, assembly_url, until, record):
        import requests

        while True:
            if time.time() >= until:
                raise Outcome("lost", "did not end in time")
            asked = time.time()
            try:
                response = self.sdk.get_assembly(assembly_url=assembly_url)
            except (requests.exceptions.RequestException, ValueError) as error:
                self.recover(until, record, "status_retries", error)
                continue
            data = response.data if isinstance(response.data, dict) else {}
            if response.status_code == 404:
                raise Outcome("lost", f"its status answers 404 ({data.get('error')})")
            if response.status_code >= 500:
                self.recover(until, record, "status_retries", f"HTTP {response.status_code}")
                continue
            ok, error = data.get("ok"), data.get("error")
            if ok == "ASSEMBLY_COMPLETED":
                return data
            if error == "ASSEMBLY_STATUS_FETCHING_RATE_LIMIT_REACHED":
                time.sleep(float(data.get("info", {}).get("retryIn", 1)))
                continue
            if error or ok in ("ASSEMBLY_CANCELED", "REQUEST_ABORTED") or response.status_code >= 400:
                raise Outcome("failed", f"HTTP {response.status_code} {error or ok}: {data.get('message')}")
            if time.time() - asked < 0.05:
                time.sleep(0.05)  # the engine answered at once: poll, but not in a tight loop

    def download(self, url, until, record):
        import requests

        while True:
            try:
                response = requests.get(url, timeout=60)
            except requests.exceptions.RequestException as error:
                self.recover(until, record, "status_retries", error)
                continue
            if response.status_code >= 500:
                self.recover(until, record, "status_retries", f"HTTP {response.status_code}")
                continue
            if response.status_code != 200:
                raise Outcome("wrong", f"the result {url} answers HTTP {response.status_code}")
            return response.content

    def run(self, kind, body, name, expected, until, record):
        """Runs one Assembly and checks its result; returns the result's MD5 (resize) or None."""
        import hashlib
        import io

        assembly = self.sdk.new_assembly()
        if kind == "resize":
            width, height = self.box
            assembly.add_step("thumb", "/image/resize", {"use": ":original", "width": width, "height": height,
                                                         "resize_strategy": "fit"})
        else:
            assembly.add_step("hash", "/file/hash", {"use": ":original", "algorithm": "sha256"})
        created = self.create(assembly.get_options(), until, record)
        record["id"] = created.get("assembly_id")
        record["created"] = time.time()
        stream = io.BytesIO(body)
        stream.name = name
        self.upload(created, stream, until, record)
        status = self.await_end(created["assembly_ssl_url"], until, record)
        record["latency"] = time.time() - record["start"]
        uploads = status.get("uploads") or []
        sent_md5 = hashlib.md5(body).hexdigest()
        if len(uploads) != 1:
            raise Outcome("wrong", f"{len(uploads)} uploads listed, expected 1")
        if uploads[0].get("md5hash") not in (None, sent_md5):
            raise Outcome("wrong", f"the upload's md5hash {uploads[0].get('md5hash')} is not the sent bytes' {sent_md5}")
        step = "thumb" if kind == "resize" else "hash"
        results = (status.get("results") or {}).get(step) or []
        if len(results) != 1:
            raise Outcome("wrong", f"{len(results)} results for {step}, expected 1")
        result = results[0]
        if kind == "hash":
            if (result.get("meta") or {}).get("hash") != expected:
                raise Outcome("wrong", f"meta.hash {(result.get('meta') or {}).get('hash')} is not sha256 {expected}")
            if result.get("size") not in (None, len(body)):
                raise Outcome("wrong", f"the hashed file's size {result.get('size')} is not {len(body)}")
            return None
        url = result.get("ssl_url") or result.get("url")
        if not url:
            raise Outcome("wrong", "the thumbnail has no URL")
        thumb = self.download(url, until, record)
        md5 = hashlib.md5(thumb).hexdigest()
        if result.get("md5hash") not in (None, md5):
            raise Outcome("wrong", f"the thumbnail's md5hash {result.get('md5hash')} is not its bytes' {md5}")
        if result.get("size") not in (None, len(thumb)):
            raise Outcome("wrong", f"the thumbnail's size {result.get('size')} is not its length {len(thumb)}")
        if expected is not None and md5 != expected:
            raise Outcome("wrong", f"the thumbnail's MD5 {md5} is not the reference's {expected}")
        if expected is None:
            size = image_size(thumb)
            width, height = self.box
            if size is None or not (size[0] <= width and size[1] <= height and (size[0] == width or size[1] == height)):
                raise Outcome("wrong", f"the reference thumbnail is {size}, expected one that fits {width}x{height}")
        return md5

    def one(self, kind, body, name, expected, stop_at):
        """Runs one Assembly; returns its record (outcome, times, retries, 5xx seen)."""
        before = dict(COUNTS)
        start = time.time()
        record = {"kind": kind, "start": start, "create_retries": 0, "upload_resumes": 0, "status_retries": 0}
        until = min(start + self.timeout, stop_at)
        try:
            record["md5"] = self.run(kind, body, name, expected, until, record)
            record["outcome"] = "completed"
        except Outcome as outcome:
            record["outcome"], record["reason"] = outcome.outcome, outcome.reason
        except Exception as error:  # an answer the SDK or tuspy could not handle: shown, not fatal
            record["outcome"], record["reason"] = "failed", f"unexpected {error!r}"[:300]
        record["end"] = time.time()
        for key in ("http5xx", "conn_errors", "requests"):
            record[key] = COUNTS[key] - before[key]
        if record["http5xx"]:
            record["examples_5xx"] = EXAMPLES_5XX[-record["http5xx"]:][:5]
        return record


def worker(index, args, images, references, deadline, stop_at):
    import hashlib
    import random
    import signal
    import uuid

    # Not the parent's handler: a worker told to stop just stops.
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    rng = random.Random(index)
    client = Client(args.origin, args.box, args.timeout)
    base = bytearray(os.urandom(args.hash_mib * MIB))
    path = os.path.join(args.records, f"worker-{index:03d}.jsonl")
    with open(path, "a", buffering=1) as out:
        while time.time() < deadline:
            if rng.random() * 100 < args.resize_percent:
                image = rng.choice(images)
                with open(image, "rb") as handle:
                    body = handle.read()
                record = client.one("resize", body, os.path.basename(image), references[image], stop_at)
            else:
                # New bytes for every Assembly: a result mixed up with another's cannot pass.
                base[:16] = uuid.uuid4().bytes
                body = bytes(base)
                record = client.one("hash", body, f"w{index}-{uuid.uuid4().hex[:8]}.bin",
                                    hashlib.sha256(body).hexdigest(), stop_at)
            record["worker"] = index
            out.write(json.dumps(record) + "\n")


def clients(args):
    import multiprocessing
    import signal

    count_requests()
    client = Client(args.origin, args.box, args.timeout)
    references = {}
    for image in args.images:
        with open(image, "rb") as handle:
            body = handle.read()
        record = client.one("resize", body, os.path.basename(image), None, time.time() + args.timeout)
        if record["outcome"] != "completed":
            fail(f"clients: the reference thumbnail of {image} did not complete: {record.get('reason')}")
        references[image] = record["md5"]
    os.makedirs(args.records, exist_ok=True)
    start = time.time()
    deadline, stop_at = start + args.seconds, start + args.seconds + args.drain
    context = multiprocessing.get_context("fork")
    workers = [context.Process(target=worker, args=(i, args, args.images, references, deadline, stop_at), daemon=True)
               for i in range(args.workers)]

    def stop(signum, frame):
        for process in workers:
            if process.pid is not None:
                process.terminate()
        sys.exit(128 + signum)

    signal.signal(signal.SIGTERM, stop)
    for process in workers:
        process.start()
    with open(args.started, "w") as handle:
        handle.write(f"{int(start * 1_000_000)}\n")
    for process in workers:
        process.join(max(0.0, stop_at + args.timeout - time.time()))
    stuck = [process for process in workers if process.is_alive()]
    for process in stuck:
        process.terminate()
        process.join()
    if stuck or any(process.exitcode != 0 for process in workers):
        fail(f"clients: {len(stuck)} workers did not stop, exit codes {[p.exitcode for p in workers]}")


# ------------------------------------------------------------------ report

def percentile(values, fraction):
    if not values:
        return float("nan")
    import math

    ordered = sorted(values)  # nearest rank
    return ordered[max(0, min(len(ordered), math.ceil(fraction * len(ordered))) - 1)]


def read_events(path):
    events = {}
    with open(path) as handle:
        for line in handle:
            key, _, value = line.strip().partition(" ")
            if key:
                events.setdefault(key, []).append(value)
    return events


def read_samples(path):
    rows = []
    with open(path) as handle:
        next(handle, None)
        for line in handle:
            seconds, pid, rss_kb, fds, data_bytes = (line.strip().split(",") + [""] * 5)[:5]
            rows.append({"t": float(seconds), "pid": pid,
                         "rss": int(rss_kb) * 1024 / MB if rss_kb else None,
                         "fds": int(fds) if fds and rss_kb else None,
                         "disk": int(data_bytes) / MB if data_bytes else None})
    return rows


def retention_seconds(serve_args):
    """The `--retention` in SERVE_ARGS, in seconds; None when absent or off."""
    words = serve_args.split()
    for option, value in zip(words, words[1:] + [""]):
        if option == "--retention" and value != "off":
            units = {"d": 86400, "h": 3600, "m": 60, "s": 1}
            total, number = 0, ""
            for char in value:
                if char.isdigit():
                    number += char
                elif char in units and number:
                    total, number = total + int(number) * units[char], ""
                else:
                    return None
            return total or None
    return None


def report(args):
    import glob
    import statistics

    records = []
    for path in sorted(glob.glob(os.path.join(args.records, "worker-*.jsonl"))):
        with open(path) as handle:
            records.extend(json.loads(line) for line in handle if line.strip())
    events = read_events(args.events)
    samples = read_samples(args.samples)
    t0 = int(events["start"][0]) / 1_000_000
    seconds = args.seconds
    outcomes = {name: [r for r in records if r["outcome"] == name] for name in ("completed", "wrong", "failed", "lost")}
    completed, wrong, failed, lost = (len(outcomes[name]) for name in ("completed", "wrong", "failed", "lost"))
    http5xx = sum(r["http5xx"] for r in records)
    latencies = [r["latency"] for r in records if "latency" in r]
    per_kind = {kind: sum(1 for r in outcomes["completed"] if r["kind"] == kind) for kind in ("resize", "hash")}

    print(f"{'Assemblies':<28} {len(records)} in {seconds} s by {args.workers} clients "
          f"({completed / seconds:.1f} completed/s)")
    print(f"{'completed':<28} {completed} ({per_kind['resize']} resize, {per_kind['hash']} hash)")
    print(f"{'wrong':<28} {wrong}")
    print(f"{'failed':<28} {failed}")
    print(f"{'lost':<28} {lost}")
    print(f"{'HTTP 5xx':<28} {http5xx}")
    print(f"{'create-to-completed':<28} p50 {percentile(latencies, .50) * 1000:.0f} ms, "
          f"p95 {percentile(latencies, .95) * 1000:.0f} ms, p99 {percentile(latencies, .99) * 1000:.0f} ms, "
          f"max {max(latencies, default=float('nan')) * 1000:.0f} ms")
    print(f"{'requests refused or cut':<28} {sum(r['conn_errors'] for r in records)} "
          f"(POSTs sent again {sum(r['create_retries'] for r in records)}, uploads resumed "
          f"{sum(r['upload_resumes'] for r in records)}, statuses asked again {sum(r['status_retries'] for r in records)})")
    kill = float(events["kill"][0]) if "kill" in events else None
    if kill is not None:
        spanning = [r for r in records if r["start"] <= kill <= r["end"]]
        ended = {name: sum(1 for r in spanning if r["outcome"] == name) for name in outcomes}
        print(f"{'in flight at the kill -9':<28} {len(spanning)} at {kill - t0:.0f} s: "
              + ", ".join(f"{count} {name}" for name, count in ended.items() if count or name == "completed"))
    problems = [r for r in records if r["outcome"] != "completed"] + [r for r in records if r["outcome"] == "completed" and r["http5xx"]]
    for r in problems[:10]:
        print(f"  {r['outcome']:<9} {r['kind']:<6} {r.get('id') or '(not created)'} at {r['start'] - t0:.1f} s: "
              f"{r.get('reason') or ', '.join(r.get('examples_5xx', []))}")
    if len(problems) > 10:
        print(f"  ... and {len(problems) - 10} more (see the records)")

    # Resources over time: the last sample of every minute (every few minutes past an hour).
    loaded = [s for s in samples if 0 <= s["t"] <= seconds + args.sample_seconds / 2]
    step = 60 * max(1, -(-seconds // 3600))
    print()
    print(f"{'minute':>6} {'RSS MB':>8} {'fds':>5} {'data MB':>9} {'completed':>10}")
    for mark in range(step, int(seconds) + step, step):
        mark = min(mark, seconds)
        window = [s for s in loaded if mark - step < s["t"] <= mark + args.sample_seconds / 2 and s["rss"] is not None]
        done = sum(1 for r in outcomes["completed"] if mark - step < r["end"] - t0 <= mark)
        if window:
            last = window[-1]
            print(f"{mark / 60:>6.1f} {last['rss']:>8.1f} {last['fds']:>5} {last['disk']:>9.1f} {done:>10}")
        else:
            print(f"{mark / 60:>6.1f} {'-':>8} {'-':>5} {'-':>9} {done:>10}")
        if mark >= seconds:
            break

    # What the retention window holds: the data folder per Assembly that ended within the window
    # before each sample (the folder grows with the rate of Assemblies; per Assembly it must not).
    window = retention_seconds(os.environ.get("SERVE_ARGS", ""))
    if window:
        ends = sorted(r["end"] - t0 for r in outcomes["completed"])
        import bisect
        for sample in loaded:
            held = bisect.bisect_right(ends, sample["t"]) - bisect.bisect_right(ends, sample["t"] - window)
            sample["per"] = sample["disk"] / held if sample["disk"] is not None and held and sample["t"] >= window else None

    thirds = [[s for s in loaded if s["rss"] is not None and i * seconds / 3 <= s["t"] < (i + 1) * seconds / 3 + (i == 2) * args.sample_seconds]
              for i in range(3)]

    def peak(rows, key):
        values = [s[key] for s in rows if s[key] is not None]
        return max(values) if values else None

    def shown(value, unit):
        return "-" if value is None else f"{value:.1f} {unit}"

    print()
    for key, label, unit in (("rss", "RSS", "MB"), ("disk", "data folder", "MB")):
        print(f"{label + ' (max per third)':<28} " + ", ".join(shown(peak(third, key), unit) for third in thirds)
              + f"; max {shown(peak(loaded, key), unit)}")

    def idle(name):
        values = events.get(name, [""])[0].split()
        return (int(values[0]) * 1024 / MB, int(values[1])) if len(values) == 2 else (None, None)

    start_rss, start_fds = idle("idle_start")
    end_rss, end_fds = idle("idle_end")
    restarted_rss, restarted_fds = idle("idle_restarted")
    print(f"{'fds at idle':<28} start {start_fds}, end {end_fds}, after the last clean restart {restarted_fds}")
    print(f"{'RSS at idle':<28} start {shown(start_rss, 'MB')}, end {shown(end_rss, 'MB')}, "
          f"after the last clean restart {shown(restarted_rss, 'MB')}")
    empty = [float(v) for v in events.get("restart_empty", [])]
    after_kill = [float(v) for v in events.get("restart_kill", [])]
    clean = [float(v) for v in events.get("restart_clean", [])]
    print(f"{'restart, empty data folder':<28} {', '.join(f'{v:.1f} ms' for v in empty) or '-'}")
    down = events.get("down_kill", [""])[0]
    if after_kill:
        print(f"{'restart after the kill -9':<28} {after_kill[0]:.1f} ms (under load; {down} ms from the kill to an answer)")
    print(f"{'clean restart at the end':<28} {', '.join(f'{v:.1f} ms' for v in clean) or '-'}"
          + (f" (median {statistics.median(clean):.1f} ms)" if clean else ""))

    print()
    missed = False

    def verdict(ok, text):
        nonlocal missed
        missed |= not ok
        print(f"{'PASS' if ok else 'MISS'}  {text}")

    verdict(completed > 0, f"Assemblies completed: {completed}")
    verdict(lost + failed == 0, f"nothing lost or failed: {lost} lost, {failed} failed")
    verdict(wrong == 0, f"no wrong result: {wrong}")
    verdict(http5xx == 0, f"no HTTP 5xx: {http5xx}")
    if clean:
        median = statistics.median(clean)
        verdict(median <= 100, f"clean restart at the end within 100 ms: median {median:.1f} ms")
    checks = [("rss", "RSS", True), ("disk", "data folder", not window)]
    if window:
        checks.append(("per", f"data folder per Assembly ended in the last {window:g} s", True))
    for key, label, checked in checks:
        middle, last = peak(thirds[1], key), peak(thirds[2], key)
        if middle is None or last is None:
            verdict(False, f"{label} flat: no samples in the middle or last third")
        else:
            text = (f"{label} flat: last third's max {last:.2f} MB within 10% of the middle "
                    f"third's {middle:.2f} MB ({(last / middle - 1) * 100:+.0f}%)")
            if checked:
                verdict(last <= middle * 1.10, text)
            else:
                print(f"INFO  {text} (grows with the rate of Assemblies; the check is per Assembly)")
    if after_kill:
        print(f"INFO  restart after the kill -9 (under load): {after_kill[0]:.1f} ms")
    if start_rss is not None and restarted_rss is not None:
        print(f"INFO  RSS at idle after the last clean restart: {restarted_rss - start_rss:+.1f} MB against the empty engine's")
    if missed and os.environ.get("STRICT") == "1":
        sys.exit(3)


# -------------------------------------------------------------------- main

def box(value):
    width, _, height = value.partition("x")
    if not (width.isdigit() and height.isdigit()):
        raise argparse.ArgumentTypeError("expected WxH, such as 160x120")
    return int(width), int(height)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)

    p = commands.add_parser("probe")
    p.add_argument("port", type=int)
    p.add_argument("--ready", required=True)
    p.add_argument("--timeout", type=float, default=60)
    p.set_defaults(func=probe)

    p = commands.add_parser("clients")
    p.add_argument("origin")
    p.add_argument("images", nargs="+")
    p.add_argument("--workers", type=int, required=True)
    p.add_argument("--seconds", type=float, required=True)
    p.add_argument("--drain", type=float, default=60)
    p.add_argument("--records", required=True)
    p.add_argument("--started", required=True)
    p.add_argument("--hash-mib", type=int, default=4)
    p.add_argument("--resize-percent", type=float, default=50)
    p.add_argument("--box", type=box, default=(160, 120))
    p.add_argument("--timeout", type=float, default=300)
    p.set_defaults(func=clients)

    p = commands.add_parser("report")
    p.add_argument("--records", required=True)
    p.add_argument("--samples", required=True)
    p.add_argument("--events", required=True)
    p.add_argument("--seconds", type=int, required=True)
    p.add_argument("--workers", type=int, required=True)
    p.add_argument("--sample-seconds", type=float, default=10)
    p.set_defaults(func=report)

    args = parser.parse_args()
    args.func(args)


if __name__ == "__main__":
    main()
