"""A web server to import from, for the /http/import tests (standard library only).

Serves the files of the folder given as its argument. Prints "PORT <n>" once listening on
127.0.0.1. Paths:
  /files/<name>          the file
  /named/<name>          the file, with Content-Disposition: attachment; filename*=UTF-8''report%20final.png
  /to/<url>              302 to the percent-decoded <url>
  /header/<name>         answers the value of the request header <name> as text
  /slow                  announces 10 MB, then sends 1 KB a second
Each request's path is appended to FOLDER/requests.log.
"""
import signal

signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})

import os
import sys
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ROOT = sys.argv[1]


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

    def file(self, name):
        path = os.path.join(ROOT, os.path.basename(urllib.parse.unquote(name)))
        if not os.path.isfile(path):
            return None
        with open(path, "rb") as handle:
            return handle.read()

    def do_GET(self):
        with open(os.path.join(ROOT, "requests.log"), "a") as log:
            log.write(self.path + "\n")
        path = self.path.split("?")[0]
        if path.startswith("/files/") and (body := self.file(path[7:])) is not None:
            self.answer(200, body, [("Content-Type", "image/png")])
        elif path.startswith("/named/") and (body := self.file(path[7:])) is not None:
            self.answer(200, body, [("Content-Disposition", "attachment; filename=\"plain.png\"; filename*=UTF-8''report%20final.png")])
        elif path.startswith("/to/"):
            self.answer(302, b"moved", [("Location", urllib.parse.unquote(path[4:]))])
        elif path.startswith("/header/"):
            self.answer(200, (self.headers.get(path[8:]) or "").encode(), [("Content-Type", "text/plain")])
        elif path == "/slow":
            self.send_response(200)
            self.send_header("Content-Length", str(10 << 20))
            self.end_headers()
            try:
                for _ in range(600):
                    self.wfile.write(b"s" * 1024)
                    self.wfile.flush()
                    time.sleep(1)
            except OSError:
                pass
        else:
            self.answer(404, b"not here")


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
print(f"PORT {server.server_address[1]}", flush=True)
server.serve_forever()
