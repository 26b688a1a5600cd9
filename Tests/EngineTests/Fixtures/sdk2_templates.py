"""Drives the engine's Templates API with the newest official Python SDK (pytransloadit 2.x).

Usage: sdk2_templates.py SERVICE KEY SECRET FILE
Creates a Template, reads it back, lists it, updates it, runs an Assembly with its template_id
on FILE, deletes the Template, and prints one JSON line with what each call answered.
"""
import json
import sys

from transloadit import client

service, key, secret, path = sys.argv[1:5]
sdk = client.Transloadit(key, secret, service=service)
report = {}

template = sdk.new_template("sdk-template")
template.add_step("hash", "/file/hash", {"use": ":original", "algorithm": "sha1", "result": True})
created = sdk_response = template.create()
report["created"] = {"ok": created.data.get("ok"), "name": created.data.get("name")}
template_id = created.data.get("id")

report["fetched"] = sdk.get_template(template_id).data.get("content", {}).get("steps", {}).get("hash", {}).get("algorithm")
listed = sdk.list_templates({"page": 1, "pagesize": 10}).data
report["listed"] = [item.get("name") for item in listed.get("items", [])]
updated = sdk.update_template(template_id, {"name": "sdk-template", "template": {"steps": {
    "hash": {"robot": "/file/hash", "use": ":original", "algorithm": "sha256", "result": True}}}})
report["updated"] = updated.data.get("ok")

assembly = sdk.new_assembly({"template_id": template_id})
with open(path, "rb") as stream:
    assembly.add_file(stream)
    status = assembly.create(retries=3, wait=True, resumable=True).data
hashes = status.get("results", {}).get("hash", [])
report["assembly"] = {"ok": status.get("ok"), "error": status.get("error"),
                      "algorithm": hashes[0].get("meta", {}).get("hash_algorithm") if hashes else None}
report["deleted"] = sdk.delete_template(template_id).data.get("ok")
print(json.dumps(report))
