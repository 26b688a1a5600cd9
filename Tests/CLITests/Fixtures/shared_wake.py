"""How soon a status request held by one engine wakes when another moves its Assembly on.
Each round: an Assembly made on engine A waits for one tus upload (created on A); a status
request on engine B asks to be held (`Pipeline-Status-Wait`) and is, as B's /healthz shows; the
upload's only PATCH goes to A; the time from A's answer to B's is measured.

Usage: shared_wake.py ENGINE_A ENGINE_B KEY SECRET ROUNDS
Prints one JSON object: {"delays_ms": [...], "phases": [<ok of B's answers>]}.
"""
import base64
import http.client
import json
import sys
import threading
import time
import urllib.parse

import requests

import shared_common

engine_a, engine_b, key, secret, rounds = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
transloadit = shared_common.sdk(engine_a, key, secret)
step = {"hashed": {"robot": "/file/hash", "use": ":original", "algorithm": "md5", "result": True}}
body = b"woken across engines\n"


def held_on_b():
    return requests.get(engine_b + "/healthz", timeout=5).json()["held_status_requests"]


def connection(origin):
    parts = urllib.parse.urlsplit(origin)
    return http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)


delays, phases = [], []
for round_ in range(rounds):
    status = shared_common.create(transloadit, step, expected_tus=1)
    assembly = status["assembly_id"]
    a = connection(engine_a)
    metadata = "assembly_url %s,fieldname %s,filename %s" % tuple(
        base64.b64encode(value.encode()).decode() for value in (status["assembly_ssl_url"], "file", "round-%d.txt" % round_))
    a.request("POST", "/resumable/files/", headers={"Tus-Resumable": "1.0.0", "Upload-Length": str(len(body)), "Upload-Metadata": metadata})
    created = a.getresponse()
    created.read()
    location = urllib.parse.urlsplit(created.getheader("Location")).path
    answered = {}

    def hold():
        b = connection(engine_b)
        b.request("GET", "/assemblies/" + assembly, headers={"Pipeline-Status-Wait": "20"})
        response = b.getresponse()
        document = json.loads(response.read())
        answered["at"] = time.monotonic()
        answered["ok"] = document.get("ok")

    waiter = threading.Thread(target=hold)
    waiter.start()
    # Nothing else asks B meanwhile: one held request is this one.
    held_by = time.monotonic() + 5
    while held_on_b() < 1 and waiter.is_alive() and time.monotonic() < held_by:
        time.sleep(0.01)
    a.request("PATCH", location, body=body, headers={
        "Tus-Resumable": "1.0.0", "Upload-Offset": "0", "Content-Type": "application/offset+octet-stream"})
    patched = a.getresponse()
    patched.read()
    patched_at = time.monotonic()
    waiter.join(30)
    delays.append(round((answered.get("at", patched_at + 30) - patched_at) * 1000, 2))
    phases.append(answered.get("ok"))
print(json.dumps({"delays_ms": delays, "phases": phases}), flush=True)
