"""Many small Assemblies through SERVICE while the engines behind it are killed and paused: one
per IMAGE, four clients at once, each Assembly with `resized` (/image/resize) and `hashed`
(/file/hash, md5) and a NOTIFY_URL; created with the official SDK's signing, the image sent by
tuspy. A creation that fails is made again (a new Assembly: the failed one may exist, never
told to the client); an upload that fails goes on from the server's offset. Then each
Assembly is waited for.

Usage: shared_batch.py SERVICE KEY SECRET NOTIFY_URL IMAGE...
Prints a line "CREATED <n>" as each Assembly is acknowledged, then one JSON object:
{"failed_creations", "resumed_uploads", "problems": [...], "assemblies": {"<image>": <describe>}}.
"""
import json
import os
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import shared_common

service, key, secret, notify_url = sys.argv[1:5]
images = sys.argv[5:]
transloadit = shared_common.sdk(service, key, secret)
steps = {
    "resized": {"robot": "/image/resize", "use": ":original", "width": 32, "height": 32, "resize_strategy": "fit", "result": True},
    "hashed": {"robot": "/file/hash", "use": ":original", "algorithm": "md5", "result": True},
}
lock = threading.Lock()
counts = {"failed_creations": 0, "resumed_uploads": 0, "created": 0}
problems = []
deadline = time.monotonic() + 60


def made(path):
    while True:
        try:
            status = shared_common.create(transloadit, steps, expected_tus=1, notify_url=notify_url)
            break
        except Exception as error:  # a 502 from the proxy, a connection cut: made again
            with lock:
                counts["failed_creations"] += 1
                problems.append("creation for %s: %s" % (os.path.basename(path), error))
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)
    _, resumed = shared_common.upload(status, path, chunk_size=64 * 1024, deadline=deadline, log=problems)
    with lock:
        counts["resumed_uploads"] += resumed
        counts["created"] += 1
        print("CREATED", counts["created"], flush=True)
    return status


def finished(status):
    return shared_common.describe(shared_common.wait(status["assembly_ssl_url"], deadline))


with ThreadPoolExecutor(4) as pool:
    statuses = list(pool.map(made, images))
    described = list(pool.map(finished, statuses))
print(json.dumps({"failed_creations": counts["failed_creations"], "resumed_uploads": counts["resumed_uploads"], "problems": problems,
                  "assemblies": dict(zip((os.path.basename(path) for path in images), described))}), flush=True)
