"""A notify_url receiver for tests: answers each POST with the next status of argv[3] (the
last one repeats), checks the `signature` field of each with its own HMAC-SHA384 under argv[2],
and appends one JSON line per request to argv[1]: the fields, the status answered and whether
the signature held. Prints `PORT <n>` once listening on 127.0.0.1."""
import email.parser
import hashlib
import hmac
import http.server
import json
import signal
import sys
import threading

# The test's process may hand its blocked signals down: SIGTERM must end this one at once.
signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM])
log_path, secret, statuses = sys.argv[1], sys.argv[2].encode(), [int(s) for s in sys.argv[3].split(",")]
lock = threading.Lock()
count = [0]


class Receiver(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        head = ("Content-Type: %s\r\n\r\n" % self.headers.get("Content-Type", "")).encode()
        message = email.parser.BytesParser().parsebytes(head + body)
        fields = {}
        for part in message.get_payload() if message.is_multipart() else []:
            fields[part.get_param("name", header="content-disposition")] = part.get_payload(decode=True).decode()
        payload, signature = fields.get("transloadit", ""), fields.get("signature", "")
        expected = "sha384:" + hmac.new(secret, payload.encode(), hashlib.sha384).hexdigest()
        with lock:
            status = statuses[min(count[0], len(statuses) - 1)]
            count[0] += 1
            with open(log_path, "a") as log:
                log.write(json.dumps({"fields": sorted(fields), "status": status, "valid": hmac.compare_digest(expected, signature),
                                      "transloadit": json.loads(payload) if payload else None}) + "\n")
        self.send_response(status)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")

    def log_message(self, *args):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
print("PORT", server.server_port, flush=True)
server.serve_forever()
