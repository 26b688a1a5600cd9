"""Drives `pipeline serve` with the official Transloadit Python SDK (pytransloadit).

Usage: sdk_resize.py SERVICE KEY SECRET IMAGE DOWNLOAD_DIR [DURATION] [tus|multipart]
Creates a signed Assembly with an /image/resize step (200 x 100, fit), uploads IMAGE with
the SDK's tus client (or as a multipart part of the creating request), waits for the
Assembly, downloads the result and prints one JSON line:
{"ok", "error", "result": {"name", "width", "height", "meta"}, "downloaded": {"width", "height", "size"}}.
"""
import json
import os
import struct
import sys
import urllib.request

from transloadit import client

service, key, secret, image, download_dir = sys.argv[1:6]
duration = int(sys.argv[6]) if len(sys.argv) > 6 else 300
resumable = (sys.argv[7] if len(sys.argv) > 7 else "tus") == "tus"
sdk = client.Transloadit(key, secret, service=service, duration=duration)
assembly = sdk.new_assembly()
assembly.add_step("thumb", "/image/resize", {"use": ":original", "width": 200, "height": 100, "resize_strategy": "fit", "result": True})
with open(image, "rb") as stream:
    assembly.add_file(stream)
    response = assembly.create(retries=3, wait=True, resumable=resumable)
status = response.data
report = {"ok": status.get("ok"), "error": status.get("error"), "assembly_id": status.get("assembly_id")}
results = status.get("results", {}).get("thumb", [])
if results:
    result = results[0]
    report["result"] = {"name": result["name"], "meta": result.get("meta", {}), "mime": result.get("mime"), "original_id": result.get("original_id")}
    report["upload_ids"] = [upload["id"] for upload in status.get("uploads", [])]
    target = os.path.join(download_dir, result["name"])
    urllib.request.urlretrieve(result["ssl_url"], target)
    with open(target, "rb") as downloaded:
        header = downloaded.read(24)
    width, height = struct.unpack(">II", header[16:24])
    report["downloaded"] = {"width": width, "height": height, "size": os.path.getsize(target), "png": header[:8] == b"\x89PNG\r\n\x1a\n"}
print(json.dumps(report), flush=True)
