"""Creates one Assembly per FILE through SERVICE with the official SDK (pytransloadit), its file
sent by the SDK's tus upload, all at once (a thread each), and waits for them as the SDK does.
Steps: `hashed` (/file/hash, md5) for every file, and `resized` (/image/resize) for images.

Usage: shared_sdk.py SERVICE KEY SECRET FILE...
Prints one JSON object: {"<file name>": <shared_common.describe of its final status>}.
"""
import json
import os
import sys
import uuid
from concurrent.futures import ThreadPoolExecutor

import shared_common

service, key, secret = sys.argv[1:4]
paths = sys.argv[4:]
transloadit = shared_common.sdk(service, key, secret)


def run(path):
    # A field of its own: two creations in the same second never share a signature.
    assembly = transloadit.new_assembly({"fields": {"source": os.path.basename(path), "attempt": uuid.uuid4().hex}})
    assembly.add_step("hashed", "/file/hash", {"use": ":original", "algorithm": "md5", "result": True})
    if path.endswith((".png", ".jpg")):
        assembly.add_step("resized", "/image/resize", {"use": ":original", "width": 160, "height": 120, "resize_strategy": "fit", "result": True})
    with open(path, "rb") as stream:
        assembly.add_file(stream)
        status = assembly.create(wait=True, resumable=True, retries=3).data
    return shared_common.describe(status)


with ThreadPoolExecutor(len(paths)) as pool:
    described = dict(zip((os.path.basename(path) for path in paths), pool.map(run, paths)))
print(json.dumps(described), flush=True)
