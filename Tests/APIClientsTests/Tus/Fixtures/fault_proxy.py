"""A fault-injecting HTTP proxy for the tus client's tests (standard library only).

Usage: fault_proxy.py UPSTREAM_PORT RULE...
Each RULE is METHOD:N:ACTION and applies to the N-th request with that method (1-based; N may
be * for every one):
  drop=BYTES    forward the request head and BYTES of its body, then cut both connections
  status=CODE   answer CODE without forwarding the request
  hang=BYTES    forward the head and BYTES of the body, then forward nothing more; once the
                client goes away, cut the connection to the server too
  limit=BYTES   answer 413 with an nginx error page when the body is longer than BYTES, as a
                proxy with client_max_body_size does (a chunked body is read and counted
                first); forward the request otherwise
  rewrite=CODE  forward the request, then give the client CODE instead of the server's status
  results=URL   forward the request, then name URL as every result file's URL in a JSON answer
                (with the size of the file a file:// URL names: a lying server that guessed it)
  id=TEXT       forward the request, then give TEXT as the assembly_id of a JSON answer
  strip-trailers  as a proxy that buffers a chunked body and drops its trailer and the Trailer
                header announcing it: the body goes on with a Content-Length and no checksum
  says=TEXT     forward the request, then give TEXT (percent-decoded: it may hold line breaks and
                escape sequences) as the ok, error and message of a JSON answer
  algorithms=LIST  forward the request, then give LIST (such as sha1,sha256) as the answer's
                Tus-Checksum-Algorithm: a server that offers only those
Every connection carries one request (the proxy asks for "Connection: close"), so requests are
counted exactly. Like a reverse proxy, it sends the server's own address as Host and the one the
client used as X-Forwarded-Host. Prints "PORT <n>" once listening, and one line per request to stderr (with how its body's checksum
came: "checksum=header", "checksum=trailer" or "checksum=none").
"""
import signal

# A test runner may start us with signals blocked (worker threads block them); unblock so
# SIGTERM stops us at once.
signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})

import asyncio
import json
import os
import sys
import urllib.parse

UPSTREAM = ("127.0.0.1", int(sys.argv[1]))
RULES = {}
for rule in sys.argv[2:]:
    method, nth, action = rule.split(":", 2)
    RULES[(method, nth if nth == "*" else int(nth))] = action
COUNTS = {}
REASONS = {404: "Not Found", 409: "Conflict", 410: "Gone", 423: "Locked", 460: "Checksum Mismatch", 500: "Server Error"}


async def pipe(reader, writer, limit=None):
    remaining = limit
    try:
        while remaining is None or remaining > 0:
            chunk = await reader.read(65536 if remaining is None else min(65536, remaining))
            if not chunk:
                break
            writer.write(chunk)
            await writer.drain()
            if remaining is not None:
                remaining -= len(chunk)
    except (ConnectionError, asyncio.IncompleteReadError):
        pass


async def linger(reader, seconds=2.0):
    """Reads and drops what the client still sends, as nginx's lingering close does, so that
    closing does not reset the connection before the client has read the answer."""
    try:
        while await asyncio.wait_for(reader.read(65536), seconds):
            pass
    except (asyncio.TimeoutError, ConnectionError):
        pass


async def read_chunked(reader, limit):
    """Reads a chunked body up to its trailer's end, or until it has more than LIMIT bytes;
    returns what was read (framing included) and the body's length so far."""
    raw, length = b"", 0
    while length <= limit:
        line = await reader.readuntil(b"\r\n")
        raw += line
        size = int(line.split(b";")[0].strip(), 16)
        if size == 0:
            while True:
                line = await reader.readuntil(b"\r\n")
                raw += line
                if line == b"\r\n":
                    return raw, length
        data = await reader.readexactly(size + 2)
        raw += data
        length += size
    return raw, length


def dechunk(raw):
    """The body of a chunked message (its framing and trailer dropped)."""
    body, rest = b"", raw
    while True:
        line, rest = rest.split(b"\r\n", 1)
        size = int(line.split(b";")[0].strip(), 16)
        if size == 0:
            return body
        body, rest = body + rest[:size], rest[size + 2:]


def lie_about_results(status, url):
    """Every result's URL replaced by URL (and its size by the file's, for a file:// URL)."""
    path = url[len("file://"):] if url.startswith("file://") else None
    size = os.path.getsize(path) if path and os.path.exists(path) else None
    for files in (status.get("results") or {}).values():
        for result in files:
            result["url"] = result["ssl_url"] = url
            if size is not None:
                result["size"] = size


def lie_about_id(status, text):
    if "assembly_id" in status:
        status["assembly_id"] = text


def lie_in_words(status, text):
    words = urllib.parse.unquote(text)
    status["ok"] = status["error"] = status["message"] = words


LIES = {"results": lie_about_results, "id": lie_about_id, "says": lie_in_words}


def lie(head, body, action):
    """The response with its JSON body changed as ACTION (NAME=VALUE) says."""
    name, value = action.split("=", 1)
    try:
        status = json.loads(body)
    except ValueError:
        return head + b"\r\n\r\n" + body
    LIES[name](status, value)
    body = json.dumps(status).encode()
    lines = [line for line in head.split(b"\r\n") if not line.lower().startswith((b"content-length:", b"transfer-encoding:"))]
    return b"\r\n".join(lines + [b"Content-Length: %d" % len(body)]) + b"\r\n\r\n" + body


async def handle(client_reader, client_writer):
    try:
        head = await client_reader.readuntil(b"\r\n\r\n")
    except (asyncio.IncompleteReadError, ConnectionError):
        client_writer.close()
        return
    lines = head.decode("latin-1").split("\r\n")
    method = lines[0].split(" ")[0]
    COUNTS[method] = COUNTS.get(method, 0) + 1
    action = RULES.get((method, COUNTS[method])) or RULES.get((method, "*"), "pass")
    names = [line.split(":", 1)[0].strip().lower() for line in lines[1:] if ":" in line]
    sent = "header" if "upload-checksum" in names else "trailer" if "trailer" in names else "none"
    print(f"{method} #{COUNTS[method]} {lines[0].split(' ')[1]} -> {action} checksum={sent}", file=sys.stderr, flush=True)
    buffered = b""
    if action.startswith("limit="):
        length = next((int(line.split(":", 1)[1]) for line in lines[1:] if line.lower().startswith("content-length:")), 0)
        if any(line.lower().replace(" ", "") == "transfer-encoding:chunked" for line in lines[1:]):
            # Read here, so the client's Expect is answered here (and not passed on).
            if any(line.lower().replace(" ", "") == "expect:100-continue" for line in lines[1:]):
                client_writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
                lines = [line for line in lines if not line.lower().startswith("expect:")]
            buffered, length = await read_chunked(client_reader, int(action.split("=", 1)[1]))
        if length > int(action.split("=", 1)[1]):
            page = "<html>\r\n<head><title>413 Request Entity Too Large</title></head>\r\n<body>\r\n<center><h1>413 Request Entity Too Large</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n"
            reply = f"HTTP/1.1 413 Request Entity Too Large\r\nContent-Type: text/html\r\nContent-Length: {len(page)}\r\nConnection: close\r\n\r\n{page}"
            client_writer.write(reply.encode())
            await client_writer.drain()
            await linger(client_reader)
            client_writer.close()
            return
    if action == "strip-trailers" and any(line.lower().replace(" ", "") == "transfer-encoding:chunked" for line in lines[1:]):
        if any(line.lower().replace(" ", "") == "expect:100-continue" for line in lines[1:]):
            client_writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
        raw, _ = await read_chunked(client_reader, 1 << 40)
        buffered = dechunk(raw)
        dropped = ("transfer-encoding:", "trailer:", "content-length:", "expect:")
        lines = [line for line in lines if not line.lower().startswith(dropped)] + [f"Content-Length: {len(buffered)}"]
    if action.startswith("status="):
        code = int(action.split("=", 1)[1])
        reply = f"HTTP/1.1 {code} {REASONS.get(code, 'Error')}\r\nTus-Resumable: 1.0.0\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        client_writer.write(reply.encode())
        await client_writer.drain()
        client_writer.close()
        return
    # Like a reverse proxy: the server is addressed by its own address, and told the public one.
    host = next((line.split(":", 1)[1].strip() for line in lines[1:] if line.lower().startswith("host:")), "")
    kept = [line for line in lines[1:] if line and not line.lower().startswith(("connection:", "host:", "x-forwarded-"))]
    forwarded = [f"Host: {UPSTREAM[0]}:{UPSTREAM[1]}", f"X-Forwarded-Host: {host}", "X-Forwarded-Proto: http"]
    rewritten = "\r\n".join([lines[0]] + forwarded + kept + ["Connection: close", "", ""]).encode("latin-1")
    upstream_reader, upstream_writer = await asyncio.open_connection(*UPSTREAM)
    upstream_writer.write(rewritten + buffered)
    await upstream_writer.drain()
    if action.startswith("drop="):
        await pipe(client_reader, upstream_writer, int(action.split("=", 1)[1]))
        await asyncio.sleep(0.2)  # let the server store what it received
        for writer in (client_writer, upstream_writer):
            writer.transport.abort()
        return
    if action.startswith("hang="):
        await pipe(client_reader, upstream_writer, int(action.split("=", 1)[1]))
        while not client_reader.at_eof():
            try:
                if not await client_reader.read(65536):
                    break
            except ConnectionError:
                break
        await asyncio.sleep(0.2)
        for writer in (client_writer, upstream_writer):
            writer.transport.abort()
        return
    if action.startswith("rewrite="):
        length = next((int(line.split(":", 1)[1]) for line in lines[1:] if line.lower().startswith("content-length:")), 0)
        sending = asyncio.ensure_future(pipe(client_reader, upstream_writer, length))
        answer = await upstream_reader.readuntil(b"\r\n\r\n")
        while answer.startswith(b"HTTP/1.1 1"):  # an interim "100 Continue" goes through as it is
            client_writer.write(answer)
            answer = await upstream_reader.readuntil(b"\r\n\r\n")
        await sending
        status_line, rest = answer.split(b"\r\n", 1)
        client_writer.write(b"HTTP/1.1 " + action.split("=", 1)[1].encode() + b" Rewritten\r\n" + rest)
        await pipe(upstream_reader, client_writer)
        for writer in (client_writer, upstream_writer):
            writer.close()
        return
    if action.startswith("algorithms="):
        length = next((int(line.split(":", 1)[1]) for line in lines[1:] if line.lower().startswith("content-length:")), 0)
        await pipe(client_reader, upstream_writer, length)
        answer = await upstream_reader.read()
        head, _, body = answer.partition(b"\r\n\r\n")
        kept = [line for line in head.split(b"\r\n") if not line.lower().startswith(b"tus-checksum-algorithm:")]
        offered = b"Tus-Checksum-Algorithm: " + action.split("=", 1)[1].encode()
        client_writer.write(b"\r\n".join(kept + [offered]) + b"\r\n\r\n" + body)
        await client_writer.drain()
        for writer in (client_writer, upstream_writer):
            writer.close()
        return
    if action.split("=", 1)[0] in LIES:
        length = next((int(line.split(":", 1)[1]) for line in lines[1:] if line.lower().startswith("content-length:")), 0)
        await pipe(client_reader, upstream_writer, length)
        answer = await upstream_reader.read()
        while answer.startswith(b"HTTP/1.1 1"):  # an interim "100 Continue" the client has stopped waiting for
            answer = answer.partition(b"\r\n\r\n")[2]
        head, _, body = answer.partition(b"\r\n\r\n")
        client_writer.write(lie(head, body, action))
        await client_writer.drain()
        for writer in (client_writer, upstream_writer):
            writer.close()
        return
    await asyncio.gather(pipe(client_reader, upstream_writer), pipe(upstream_reader, client_writer))
    for writer in (client_writer, upstream_writer):
        writer.close()


async def main():
    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    print(f"PORT {server.sockets[0].getsockname()[1]}", flush=True)
    async with server:
        await server.serve_forever()


asyncio.run(main())
