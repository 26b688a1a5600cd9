"""An upload cut in the middle and finished by another client: an Assembly (one /file/hash md5
step) made through SERVICE; tuspy sends FILE's first two MiB in 1 MiB chunks; a PATCH of the
next MiB sent straight to the engine at ENGINE (past any proxy, which would read the whole body
first) stops after 384 KiB and its connection is closed; a new tuspy client then asks SERVICE
where the upload stands and sends the rest.

Usage: shared_tus_cut.py SERVICE KEY SECRET FILE ENGINE
Prints one JSON object: {"upload_url", "offset_after_chunks", "resumed_at" (the first HEAD's offset),
"asked_again" (PATCHes refused and asked again), "status": <describe>}.
"""
import json
import os
import socket
import sys
import time
import urllib.parse

from tusclient import client as tus

import shared_common

service, key, secret, path, engine = sys.argv[1:6]
MIB = 1 << 20
transloadit = shared_common.sdk(service, key, secret)
status = shared_common.create(transloadit, {"hashed": {"robot": "/file/hash", "use": ":original", "algorithm": "md5", "result": True}}, expected_tus=1)
metadata = {"assembly_url": status["assembly_ssl_url"], "fieldname": "file", "filename": os.path.basename(path)}
first = tus.TusClient(status["tus_url"]).uploader(path, chunk_size=MIB, metadata=metadata)
first.upload_chunk()
first.upload_chunk()

# The cut: headers for a whole MiB, then 384 KiB of it, then the connection goes.
with open(path, "rb") as stream:
    stream.seek(first.offset)
    sent = stream.read(384 * 1024)
target = urllib.parse.urlsplit(engine)
cut = socket.create_connection((target.hostname, target.port))
cut.sendall(("PATCH %s HTTP/1.1\r\nHost: %s\r\nTus-Resumable: 1.0.0\r\nUpload-Offset: %d\r\n"
             "Content-Type: application/offset+octet-stream\r\nContent-Length: %d\r\n\r\n"
             % (urllib.parse.urlsplit(first.url).path, target.netloc, first.offset, MIB)).encode())
cut.sendall(sent)
cut.close()  # nothing was answered yet: the bytes sent go ahead of the end

# The new client asks where the upload stands (HEAD), then sends the rest. The engine that took
# the cut request may read it only after that answer, and keep what it received: the next PATCH
# is then refused (409) and the client asks again, as tus clients do.
resumed_at = tus.TusClient(status["tus_url"]).uploader(path, chunk_size=MIB, metadata=metadata, url=first.url).offset
_, asked_again = shared_common.upload(status, path, chunk_size=MIB, url=first.url, deadline=time.monotonic() + 30)
final = shared_common.wait(status["assembly_ssl_url"], time.monotonic() + 30)
print(json.dumps({"upload_url": first.url, "offset_after_chunks": first.offset, "resumed_at": resumed_at, "asked_again": asked_again,
                  "status": shared_common.describe(final)}), flush=True)
