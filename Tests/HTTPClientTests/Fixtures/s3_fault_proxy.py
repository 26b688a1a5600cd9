"""A fault-injecting proxy for S3 requests (standard library only): forwards every request
byte for byte (so signatures stay valid) unless a rule answers it with an S3 error instead.

Usage: s3_fault_proxy.py UPSTREAM_PORT RULE...
Each RULE is PATTERN|COUNT|STATUS|CODE: the first COUNT requests whose "METHOD TARGET" matches
the shell PATTERN (such as "PUT *partNumber=2&*") get STATUS with S3's XML error CODE (such as
SlowDown); COUNT * answers every one. Prints "PORT <n>" once listening and, on standard error,
one line per request: "forward METHOD TARGET" or "fault STATUS METHOD TARGET".
"""
import fnmatch
import signal
import socket
import sys
import threading

signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})

UPSTREAM = ("127.0.0.1", int(sys.argv[1]))
RULES = []
for text in sys.argv[2:]:
    pattern, count, status, code = text.split("|")
    RULES.append({"pattern": pattern, "left": None if count == "*" else int(count), "status": int(status), "code": code})
LOCK = threading.Lock()


def log(line):
    print(line, file=sys.stderr, flush=True)


def read_head(connection, buffer):
    while b"\r\n\r\n" not in buffer:
        chunk = connection.recv(65536)
        if not chunk:
            return None, buffer
        buffer += chunk
    head, rest = buffer.split(b"\r\n\r\n", 1)
    return head, rest


def pipe(source, target):
    try:
        while True:
            chunk = source.recv(1 << 20)
            if not chunk:
                break
            target.sendall(chunk)
    except OSError:
        pass
    try:
        target.shutdown(socket.SHUT_WR)
    except OSError:
        pass


def fault_for(target):
    with LOCK:
        for rule in RULES:
            if fnmatch.fnmatchcase(target, rule["pattern"]) and (rule["left"] is None or rule["left"] > 0):
                if rule["left"] is not None:
                    rule["left"] -= 1
                return rule
    return None


def serve(client):
    with client:
        head, rest = read_head(client, b"")
        if head is None:
            return
        lines = head.decode("latin-1").split("\r\n")
        method, target = lines[0].split(" ")[:2]
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        rule = fault_for(f"{method} {target}")
        if rule:
            log(f"fault {rule['status']} {method} {target}")
            if "100-continue" not in headers.get("expect", "").lower():
                remaining = int(headers.get("content-length", "0")) - len(rest)
                while remaining > 0:
                    chunk = client.recv(min(remaining, 1 << 20))
                    if not chunk:
                        break
                    remaining -= len(chunk)
            body = (f'<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>{rule["code"]}</Code>'
                    f'<Message>injected by the test proxy</Message></Error>').encode()
            client.sendall(f"HTTP/1.1 {rule['status']} Injected\r\nContent-Type: application/xml\r\nContent-Length: {len(body)}\r\n"
                           f"Connection: close\r\n\r\n".encode() + body)
            return
        log(f"forward {method} {target}")
        # One request per connection: the server is asked to close after its answer.
        kept = [line for line in lines if not line.lower().startswith("connection:")]
        upstream = socket.create_connection(UPSTREAM)
        with upstream:
            upstream.sendall("\r\n".join(kept + ["Connection: close"]).encode("latin-1") + b"\r\n\r\n" + rest)
            forward = threading.Thread(target=pipe, args=(client, upstream), daemon=True)
            forward.start()
            pipe(upstream, client)


listener = socket.socket()
listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
listener.bind(("127.0.0.1", 0))
listener.listen(64)
print(f"PORT {listener.getsockname()[1]}", flush=True)
while True:
    connection, _ = listener.accept()
    threading.Thread(target=serve, args=(connection,), daemon=True).start()
