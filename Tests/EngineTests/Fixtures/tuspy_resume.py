"""Uploads a file with tuspy (the tus client from PyPI) in 1 MiB chunks, stopping after two
chunks and finishing with a fresh uploader that resumes from the server's offset.

Usage: tuspy_resume.py ENDPOINT FILE
Prints "OFFSET <n>" (what the resuming uploader found) and "URL <upload url>".
"""
import sys

from tusclient import client

endpoint, path = sys.argv[1], sys.argv[2]
tus = client.TusClient(endpoint)
first = tus.uploader(path, chunk_size=1024 * 1024, metadata={"filename": "f.bin", "filetype": "application/octet-stream"})
first.upload_chunk()
first.upload_chunk()
resumed = tus.uploader(path, chunk_size=1024 * 1024, url=first.url)
print(f"OFFSET {resumed.offset}", flush=True)
resumed.upload()
print(f"URL {resumed.url}", flush=True)
