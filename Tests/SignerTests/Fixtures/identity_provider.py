"""An OpenID Connect identity provider for the signer's tests (standard library only).

Usage: identity_provider.py FOLDER CERT KEY. Serves HTTPS on 127.0.0.1 with CERT/KEY and prints
"PORT <n>" once listening. What it answers is read from FOLDER on every request, so a test
changes it by writing files:
  discovery.json   served at /.well-known/openid-configuration
  jwks.json        served at /jwks, with Cache-Control from the file max-age (if present)
  down             when present, every answer is 503
  request-token    the bearer the token endpoint requires
  token-<aud>.jwt  what GET /token?audience=<aud> answers, as {"count": 1, "value": ...}
Each request's path is appended to FOLDER/requests.log.
"""
import signal

signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})

import json
import os
import ssl
import sys
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

FOLDER, CERT, KEY = sys.argv[1:4]


def read(name):
    try:
        with open(os.path.join(FOLDER, name), "rb") as handle:
            return handle.read()
    except FileNotFoundError:
        return None


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
        self.wfile.write(body)

    def do_GET(self):
        with open(os.path.join(FOLDER, "requests.log"), "a") as log:
            log.write(self.path + "\n")
        path, _, query = self.path.partition("?")
        if read("down") is not None:
            return self.answer(503, b"down for maintenance")
        if path == "/.well-known/openid-configuration" and read("discovery.json") is not None:
            return self.answer(200, read("discovery.json"), [("Content-Type", "application/json")])
        if path == "/jwks" and read("jwks.json") is not None:
            headers = [("Content-Type", "application/json")]
            age = read("max-age")
            if age is not None:
                headers.append(("Cache-Control", "public, max-age=" + age.decode().strip()))
            return self.answer(200, read("jwks.json"), headers)
        if path == "/token":
            expected = (read("request-token") or b"").decode().strip()
            if not expected or self.headers.get("Authorization", "").lower() != "bearer " + expected.lower():
                # Like some real error pages, it quotes what it was sent.
                given = self.headers.get("Authorization", "")
                return self.answer(401, json.dumps({"message": "bad request token", "got": given}).encode())
            audience = urllib.parse.parse_qs(query).get("audience", [""])[0]
            token = read("token-" + audience + ".jwt")
            if token is None:
                return self.answer(404, b'{"message": "no token for that audience"}')
            return self.answer(200, json.dumps({"count": 1, "value": token.decode().strip()}).encode(), [("Content-Type", "application/json")])
        self.answer(404, b"not here")


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(CERT, KEY)
server.socket = context.wrap_socket(server.socket, server_side=True)
print(f"PORT {server.server_address[1]}", flush=True)
server.serve_forever()
