"""A signing backend that misbehaves on purpose, for the URL signer's tests (standard library only).

Usage: signer_server.py SECRET TOKEN
Prints "PORT <n>" once listening on 127.0.0.1. POST paths:
  /sign        signs correctly (HMAC-SHA384) when the bearer token matches, else 401
  /redirect    307 to /sign
  /error       500
  /changed     signs different params and returns them
  /malformed   returns a signature that is not 'sha384:' + 96 hex
  /slow        answers correctly after 5 s
  /rotating    503 with retry_in 1 (a key being fetched) on every odd request, then signs
  /busy        always 503 with retry_in 1
  /quota       429 with retry_in 3600
"""
import signal

signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})

import hashlib
import hmac
import json
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SECRET, TOKEN = sys.argv[1].encode(), sys.argv[2]
ROTATING = {"count": 0}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self, code, payload, headers=()):
        body = json.dumps(payload).encode()
        self.send_response(code)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        request = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
        params = request.get("params", "")
        signature = "sha384:" + hmac.new(SECRET, params.encode(), hashlib.sha384).hexdigest()
        if self.headers.get("Authorization") != f"Bearer {TOKEN}":
            self.answer(401, {"error": "unauthorized"})
        elif self.path == "/sign":
            self.answer(200, {"params": params, "signature": signature})
        elif self.path == "/redirect":
            self.answer(307, {}, [("Location", "/sign")])
        elif self.path == "/error":
            self.answer(500, {"error": "signer broke"})
        elif self.path == "/changed":
            changed = params.replace("resize", "encode")
            self.answer(200, {"params": changed, "signature": "sha384:" + hmac.new(SECRET, changed.encode(), hashlib.sha384).hexdigest()})
        elif self.path == "/malformed":
            self.answer(200, {"params": params, "signature": "sha1:abc"})
        elif self.path == "/slow":
            time.sleep(5)
            self.answer(200, {"params": params, "signature": signature})
        elif self.path == "/rotating":
            ROTATING["count"] += 1
            if ROTATING["count"] % 2 == 1:
                self.answer(503, {"error": "KEY_NOT_YET_FETCHED", "message": "fetched again in 1 s", "retry_in": 1}, [("Retry-After", "1")])
            else:
                self.answer(200, {"params": params, "signature": signature})
        elif self.path == "/busy":
            self.answer(503, {"error": "KEY_NOT_YET_FETCHED", "retry_in": 1})
        elif self.path == "/quota":
            self.answer(429, {"error": "QUOTA_EXCEEDED", "retry_in": 3600})
        else:
            self.answer(404, {"error": "no such path"})


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
print(f"PORT {server.server_address[1]}", flush=True)
server.serve_forever()
