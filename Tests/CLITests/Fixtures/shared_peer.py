"""The outside world of the shared engines' end-to-end test: a notify_url receiver and a slow
origin for `/http/import`, on 127.0.0.1 (standard library only). Prints `PORT <n>` once listening.

POST /notify           counts the notification by its Assembly's id (the `transloadit` field)
POST /notify/TOKEN     the same; the first for TOKEN is answered only after POST /release/TOKEN
GET  /notifications    {"<assembly id>": ["<ok of each notification>", ...]}
GET  /timeline         [[<Unix time>, "<assembly id>", "<ok>"], ...]: every notification as it came
GET  /slow/TOKEN       the first request for TOKEN is held until POST /release/TOKEN (30 s at
                       most); later ones are answered at once; the body is TOKEN's bytes
GET  /seen/TOKEN       {"requests": <how many requests for TOKEN arrived>}
POST /release/TOKEN    lets the held request for TOKEN go
"""
import email.parser
import hashlib
import http.server
import json
import signal
import sys
import threading
import time

# The test's process may hand its blocked signals down: SIGTERM must end this one at once.
signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM])

lock = threading.Lock()
notifications = {}
timeline = []
seen = {}
released = {}


def body_of(token):
    """64 KiB that only TOKEN makes."""
    seed = hashlib.sha256(token.encode()).digest()
    return (seed * (65536 // len(seed) + 1))[:65536]


class Peer(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def answer(self, status, body, kind="application/json"):
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def hold(self, token):
        """Counts a request for TOKEN; the first waits until TOKEN is released (30 s at most)."""
        with lock:
            seen[token] = seen.get(token, 0) + 1
            first = seen[token] == 1
            gate = released.setdefault(token, threading.Event())
        if first:
            gate.wait(30)

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if self.path == "/notify" or self.path.startswith("/notify/"):
            head = ("Content-Type: %s\r\n\r\n" % self.headers.get("Content-Type", "")).encode()
            message = email.parser.BytesParser().parsebytes(head + body)
            fields = {}
            for part in message.get_payload() if message.is_multipart() else []:
                fields[part.get_param("name", header="content-disposition")] = part.get_payload(decode=True).decode()
            status = json.loads(fields.get("transloadit") or "{}")
            with lock:
                notifications.setdefault(status.get("assembly_id", ""), []).append(status.get("ok") or status.get("error"))
                timeline.append([time.time(), status.get("assembly_id", ""), status.get("ok") or status.get("error")])
            if self.path.startswith("/notify/"):
                self.hold(self.path[len("/notify/"):])
            self.answer(200, b"{}")
        elif self.path.startswith("/release/"):
            with lock:
                released.setdefault(self.path[len("/release/"):], threading.Event()).set()
            self.answer(200, b"{}")
        else:
            self.answer(404, b"{}")

    def do_GET(self):
        if self.path == "/notifications":
            with lock:
                self.answer(200, json.dumps(notifications).encode())
        elif self.path == "/timeline":
            with lock:
                self.answer(200, json.dumps(timeline).encode())
        elif self.path.startswith("/seen/"):
            with lock:
                self.answer(200, json.dumps({"requests": seen.get(self.path[len("/seen/"):], 0)}).encode())
        elif self.path.startswith("/slow/"):
            token = self.path[len("/slow/"):]
            self.hold(token)
            try:
                self.answer(200, body_of(token), "application/octet-stream")
            except OSError:
                pass  # the engine that asked was killed meanwhile
        else:
            self.answer(404, b"{}")

    def log_message(self, *args):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Peer)
server.daemon_threads = True
print("PORT", server.server_port, flush=True)
server.serve_forever()
