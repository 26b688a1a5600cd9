"""A front for the engine with the hosted service's day-to-day habits (standard library only).

Usage: hosted_service.py UPSTREAM_PORT KEY SECRET [OPTION...]

It checks signatures as the service does (HMAC-SHA384 over the params, `auth.expires` judged
by its own clock, a signature seen before refused with SIGNATURE_REUSE_DETECTED), then passes
the request to the engine, which runs without credentials. Its clock may be set ahead, and its
days pass when told; every answer carries its `Date`. Results are rewritten as the service
writes them: `original_id` a list, `size` null, `md5hash` given, URLs on a temporary storage
(`/tmp/…`) that forgets them 24 hours (of its clock) after the Assembly ended, and, for steps
named `private…`, a plain URL that is refused and a `signed_ssl_url` that works.

Options:
  --ahead SECONDS      its clock runs this far ahead of the machine's
  --lose-create N      the N-th create that passes the checks is passed on, then its answer is
                       lost (the connection is cut)
  --retry-in-zero N    the N-th create is refused with 429 RATE_LIMIT_REACHED and retryIn 0
  --wrong-md5          every result's md5hash is not its bytes' (a file damaged on the way)
  --tus-429            the "load balancer" refuses with 429 the first tus creation, and the
                       first PATCH of every upload

Control (not logged): POST /_habits/advance?hours=H moves its clock; GET /_habits/log gives
every request so far as JSON lines "METHOD path status". Prints "PORT <n>" once listening.
"""
import signal

signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})

import email.utils
import hashlib
import hmac
import http.client
import http.server
import json
import sys
import threading
import time
import urllib.parse
from datetime import datetime, timezone

UPSTREAM = ("127.0.0.1", int(sys.argv[1]))
KEY, SECRET = sys.argv[2], sys.argv[3]
OPTIONS = sys.argv[4:]


def option(name, default=None):
    return OPTIONS[OPTIONS.index(name) + 1] if name in OPTIONS else default


AHEAD = float(option("--ahead", "0"))
LOSE_CREATE = int(option("--lose-create", "0"))
RETRY_IN_ZERO = int(option("--retry-in-zero", "0"))
TUS_429 = "--tus-429" in OPTIONS
WRONG_MD5 = "--wrong-md5" in OPTIONS
DAY = 24 * 3600

lock = threading.Lock()
state = {"advanced": 0.0, "creates": 0, "accepted": 0, "signatures": set(), "log": [], "patched": set(), "temporary": {}, "ended": {}}


def now():
    with lock:
        return time.time() + AHEAD + state["advanced"]


def parse_expires(text):
    for pattern in ("%Y-%m-%dT%H:%M:%S.%fZ", "%Y-%m-%dT%H:%M:%SZ", "%Y/%m/%d %H:%M:%S+00:00"):
        try:
            return datetime.strptime(text, pattern).replace(tzinfo=timezone.utc).timestamp()
        except ValueError:
            pass
    return None


class Front(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def date_time_string(self, timestamp=None):
        # Every answer's Date is by this front's clock.
        return email.utils.formatdate(now(), usegmt=True)

    def answer(self, status, body, content_type="application/json", headers=()):
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)
        self.record(status)

    def record(self, status):
        with lock:
            state["log"].append(f"{self.command} {self.path.split('?')[0]} {status}")

    def body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def refuse(self, status, error, message, info=None):
        body = {"error": error, "message": message}
        if info is not None:
            body["info"] = info
        self.answer(status, body)

    def do_GET(self):
        self.handle_any()

    def do_POST(self):
        self.handle_any()

    def do_HEAD(self):
        self.handle_any()

    def do_PATCH(self):
        self.handle_any()

    def do_DELETE(self):
        self.handle_any()

    def do_OPTIONS(self):
        self.handle_any()

    def handle_any(self):
        path = self.path.split("?")[0]
        body = self.body()
        if path == "/_habits/advance":
            hours = float(urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query)["hours"][0])
            with lock:
                state["advanced"] += hours * 3600
            data = b"{}"
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            return
        if path == "/_habits/log":
            with lock:
                data = json.dumps(state["log"]).encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            return
        if path.startswith("/tmp/"):
            return self.temporary(path)
        if self.command == "POST" and path.startswith("/assemblies"):
            refused = self.check_create(body)
            if refused:
                return
        if TUS_429 and (self.command == "PATCH" or (self.command == "POST" and path.startswith("/resumable/"))):
            key = path if self.command == "PATCH" else "creation"
            with lock:
                first = key not in state["patched"]
                state["patched"].add(key)
            if first:
                page = b"<html><head><title>429 Too Many Requests</title></head><body><h1>429 Too Many Requests</h1></body></html>"
                return self.answer(429, page, "text/html")
        self.forward(body)

    def check_create(self, body):
        """The service's checks of a create; True when it was answered here."""
        form = urllib.parse.parse_qs(body.decode(), keep_blank_values=True)
        params_text = (form.get("params") or [""])[0]
        signature = (form.get("signature") or [""])[0]
        with lock:
            state["creates"] += 1
            number = state["creates"]
        if number == RETRY_IN_ZERO:
            self.refuse(429, "RATE_LIMIT_REACHED", "Request limit reached", {"retryIn": 0})
            return True
        expected = "sha384:" + hmac.new(SECRET.encode(), params_text.encode(), hashlib.sha384).hexdigest()
        if not hmac.compare_digest(expected, signature):
            self.refuse(403, "INVALID_SIGNATURE", "the signature does not match the params")
            return True
        params = json.loads(params_text)
        expires = parse_expires(params.get("auth", {}).get("expires", ""))
        if expires is None or expires < now():
            self.refuse(403, "AUTH_EXPIRED", "the signature expired")
            return True
        with lock:
            reused = signature in state["signatures"]
            state["signatures"].add(signature)
        if reused:
            self.refuse(403, "SIGNATURE_REUSE_DETECTED", "this signature was used before")
            return True
        with lock:
            state["accepted"] += 1
            accepted = state["accepted"]
        if accepted == LOSE_CREATE:
            self.forward(body, lose=True)
            return True
        return False

    def forward(self, body, lose=False):
        connection = http.client.HTTPConnection(*UPSTREAM, timeout=60)
        headers = {name: value for name, value in self.headers.items() if name.lower() not in ("host", "connection", "content-length")}
        headers["Host"] = f"{UPSTREAM[0]}:{UPSTREAM[1]}"
        headers["X-Forwarded-Host"] = self.headers.get("Host", "")
        headers["X-Forwarded-Proto"] = "http"
        if body or self.command in ("POST", "PATCH"):
            headers["Content-Length"] = str(len(body))
        connection.request(self.command, self.path, body=body or None, headers=headers)
        response = connection.getresponse()
        data = response.read()
        connection.close()
        if lose:
            # The Assembly was made; its answer never arrives.
            self.record("lost")
            self.close_connection = True
            self.connection.shutdown(2)
            return
        passed = [(name, value) for name, value in response.getheaders()
                  if name.lower() not in ("content-length", "date", "connection", "transfer-encoding", "content-type")]
        content_type = response.getheader("Content-Type", "application/octet-stream")
        if content_type.startswith("application/json") and self.path.startswith("/assemblies"):
            data = self.as_the_service_writes(data)
        self.answer(response.status, data, content_type, passed)

    def as_the_service_writes(self, data):
        try:
            status = json.loads(data)
        except ValueError:
            return data
        if status.get("ok") == "ASSEMBLY_COMPLETED":
            seen = now()
            with lock:
                ended = state["ended"].setdefault(status.get("assembly_id"), seen)
            host = self.headers.get("Host", "")
            for step, files in (status.get("results") or {}).items():
                for result in files:
                    token = hashlib.sha256((result.get("ssl_url") or "").encode()).hexdigest()[:32]
                    with lock:
                        state["temporary"][token] = (result.get("ssl_url"), ended)
                    url = f"http://{host}/tmp/{token}/{urllib.parse.quote(result.get('name', 'result'))}"
                    if step.startswith("private"):
                        result["url"] = result["ssl_url"] = url + "?unsigned"
                        result["signed_ssl_url"] = url
                    else:
                        result["url"] = result["ssl_url"] = url
                    if isinstance(result.get("original_id"), str):
                        result["original_id"] = [result["original_id"]]
                    result["size"] = None
                    if WRONG_MD5:
                        result["md5hash"] = "0" * 32
        return json.dumps(status).encode()

    def temporary(self, path):
        token = path.split("/")[2]
        with lock:
            known = state["temporary"].get(token)
        if known is None or now() > known[1] + DAY or self.path.endswith("?unsigned"):
            return self.answer(404 if known is None or not self.path.endswith("?unsigned") else 403, b"", "text/plain")
        upstream = urllib.parse.urlsplit(known[0])
        connection = http.client.HTTPConnection(*UPSTREAM, timeout=60)
        connection.request("GET", upstream.path, headers={"Host": f"{UPSTREAM[0]}:{UPSTREAM[1]}"})
        response = connection.getresponse()
        data = response.read()
        connection.close()
        self.answer(response.status, data, response.getheader("Content-Type", "application/octet-stream"))


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Front)
print(f"PORT {server.server_address[1]}", flush=True)
server.serve_forever()
