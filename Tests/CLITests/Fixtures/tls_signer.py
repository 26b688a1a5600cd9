"""An HTTPS signer and policy server for the private-CA tests (standard library only).

Usage: tls_signer.py CERT KEY SECRET POLICY_FILE
POST /sign {"params": TEXT} answers {"params": TEXT, "signature": "sha384:<HMAC-SHA384 of TEXT>"};
GET /policy answers POLICY_FILE. Prints "PORT <n>" once listening.
"""
import signal

signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})

import hashlib
import hmac
import http.server
import json
import ssl
import sys

cert, key, secret, policy = sys.argv[1:5]


class Handler(http.server.BaseHTTPRequestHandler):
    def answer(self, status, body, kind="application/json"):
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        params = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))["params"]
        signature = "sha384:" + hmac.new(secret.encode(), params.encode(), hashlib.sha384).hexdigest()
        self.answer(200, json.dumps({"params": params, "signature": signature}).encode())

    def do_GET(self):
        with open(policy, "rb") as stream:
            self.answer(200, stream.read(), "application/yaml")

    def log_message(self, *args):
        pass


server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(cert, key)
server.socket = context.wrap_socket(server.socket, server_side=True)
print(f"PORT {server.server_address[1]}", flush=True)
server.serve_forever()
