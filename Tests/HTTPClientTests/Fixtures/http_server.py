"""A small HTTP server for the HTTP client's tests (standard library only).

Prints "PORT <n>" once listening on 127.0.0.1. Paths:
  /echo            answers JSON: method, the request's headers, body length and SHA-256
  /redirect        302 to /echo
  /to/<url>        302 to the percent-decoded <url>
  /stream/<n>      n bytes without a Content-Length (the connection closes after them)
  /status/<code>   answers <code> with a short body
  /stall           sends headers, then one byte, then nothing for 30 s
  /bytes/<n>       answers n bytes
"""
import signal

# A test runner may start us with signals blocked (worker threads block them); unblock so
# SIGTERM stops us at once.
signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})

import hashlib
import json
import sys
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self, code, body, headers=()):
        self.send_response(code)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def handle_any(self):
        body = b""
        if "Content-Length" in self.headers:
            body = self.rfile.read(int(self.headers["Content-Length"]))
        if self.path == "/echo":
            report = {
                "method": self.command,
                "headers": {name.lower(): value for name, value in self.headers.items()},
                "length": len(body),
                "sha256": hashlib.sha256(body).hexdigest(),
            }
            self.answer(200, json.dumps(report).encode(), [("Content-Type", "application/json"), ("X-Mixed-Case", "yes")])
        elif self.path == "/redirect":
            self.answer(302, b"moved", [("Location", "/echo")])
        elif self.path.startswith("/to/"):
            self.answer(302, b"moved", [("Location", urllib.parse.unquote(self.path[4:]))])
        elif self.path.startswith("/stream/"):
            self.send_response(200)
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(b"y" * int(self.path.split("/")[2]))
            self.close_connection = True
        elif self.path.startswith("/status/"):
            self.answer(int(self.path.split("/")[2]), b"status body")
        elif self.path.startswith("/bytes/"):
            self.answer(200, b"x" * int(self.path.split("/")[2]))
        elif self.path == "/stall":
            self.send_response(200)
            self.send_header("Content-Length", "100")
            self.end_headers()
            self.wfile.write(b"x")
            self.wfile.flush()
            time.sleep(30)
        else:
            self.answer(404, b"no such path")

    do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = do_HEAD = do_OPTIONS = handle_any


class Server(ThreadingHTTPServer):
    # The default backlog of 5 resets connections when many clients connect at once.
    request_queue_size = 128


server = Server(("127.0.0.1", 0), Handler)
server.daemon_threads = True
print(f"PORT {server.server_address[1]}", flush=True)
server.serve_forever()
