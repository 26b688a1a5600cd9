"""What the shared engines' fixtures have in common: Assemblies created and signed by the official
SDK (pytransloadit), resumable uploads by tuspy that go on through failed requests, status
requests held by the engine (`Pipeline-Status-Wait`), and files downloaded and hashed."""
import hashlib
import os
import time
import uuid

import requests
from tusclient import client as tus
from tusclient.exceptions import TusCommunicationError, TusUploadFailed
from transloadit import client

TERMINAL = {"ASSEMBLY_COMPLETED", "ASSEMBLY_CANCELED", "REQUEST_ABORTED"}


def sdk(service, key, secret):
    """The official SDK's client for SERVICE."""
    return client.Transloadit(key, secret, service=service, duration=300)


def md5_file(path):
    digest = hashlib.md5()
    with open(path, "rb") as stream:
        for chunk in iter(lambda: stream.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def download(url):
    """The MD5 and size of what URL answers; a failed request (an engine killed under it) is made
    again, twice at most; a status other than 200 raises."""
    for attempt in range(3):
        try:
            response = requests.get(url, timeout=30)
            break
        except requests.RequestException:
            if attempt == 2:
                raise
            time.sleep(0.2)
    response.raise_for_status()
    return {"md5": hashlib.md5(response.content).hexdigest(), "size": len(response.content)}


def create(transloadit, steps, expected_tus=0, notify_url=None):
    """Creates an Assembly (signed params; a field no other creation has, so no two signatures are
    equal) and gives its status; raises on anything but an Assembly."""
    params = {"steps": steps, "fields": {"attempt": uuid.uuid4().hex}}
    if notify_url:
        params["notify_url"] = notify_url
    extra = {"tus_num_expected_upload_files": expected_tus} if expected_tus else None
    status = transloadit.request.post("/assemblies", data=params, extra_data=extra).data
    if not status.get("assembly_id") or status.get("error"):
        raise RuntimeError("creation refused: %s" % status)
    return status


def upload(status, path, chunk_size=1 << 20, deadline=None, url=None, log=None):
    """Uploads PATH to the Assembly of STATUS with tuspy, going on from the server's offset after
    any failed request until DEADLINE; gives the upload's URL and how many times it went on."""
    deadline = deadline or time.monotonic() + 60
    metadata = {"assembly_url": status["assembly_ssl_url"], "fieldname": "file", "filename": os.path.basename(path)}
    resumed = 0
    while True:
        try:
            uploader = tus.TusClient(status["tus_url"]).uploader(
                path, chunk_size=chunk_size, metadata=metadata, url=url, retries=0)
            url = uploader.url or url
            if url is None:
                url = uploader.create_url()
                uploader.set_url(url)
                uploader.offset = 0
            uploader.upload()
            return url, resumed
        except (TusCommunicationError, TusUploadFailed, requests.RequestException, ValueError, TypeError) as error:
            if log is not None:
                log.append("%s: %s" % (os.path.basename(path), error))
            if time.monotonic() > deadline:
                raise
            resumed += 1
            time.sleep(0.2)


def wait(status_url, deadline):
    """The status at STATUS_URL once terminal (or DEADLINE), asked with held requests; a request
    that fails (an engine killed under it) is asked again."""
    last = {}
    while time.monotonic() < deadline:
        try:
            response = requests.get(status_url, headers={"Pipeline-Status-Wait": "10"}, timeout=15)
            last = response.json()
        except (requests.RequestException, ValueError) as error:
            last = {"error": "REQUEST_FAILED", "message": str(error)}
            time.sleep(0.2)
            continue
        if last.get("ok") in TERMINAL or (last.get("error") and last.get("error") != "REQUEST_FAILED"):
            return last
    return last


def describe(status):
    """What the tests check of a final status: its uploads and results with their MD5s, each
    downloaded (through the URLs the status names) and hashed again."""
    uploads = []
    for upload_ in status.get("uploads", []):
        uploads.append({"name": upload_.get("name"), "size": upload_.get("size"), "meta": upload_.get("meta", {}),
                        "url": upload_.get("ssl_url"), "downloaded": download(upload_["ssl_url"])})
    results = {}
    for step, files in status.get("results", {}).items():
        results[step] = [{"name": result.get("name"), "md5hash": result.get("md5hash"), "size": result.get("size"),
                          "meta": result.get("meta", {}), "url": result.get("ssl_url"), "downloaded": download(result["ssl_url"])}
                         for result in files]
    return {"assembly_id": status.get("assembly_id"), "ok": status.get("ok"), "error": status.get("error"),
            "message": status.get("message"), "uploads": uploads, "results": results}
