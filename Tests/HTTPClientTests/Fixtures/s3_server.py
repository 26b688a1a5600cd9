"""Starts an S3 server on 127.0.0.1 for the storage tests, with one access key, and stops it.

Usage: s3_server.py weed|moto DATA_DIR KEY SECRET [BUCKET...]
  weed  SeaweedFS (`weed mini`, from .venv): checks every signature, refuses a wrong secret
  moto  moto's server (in this process): fast, checks no signature
Prints "PORT <n>" once the S3 endpoint answers, with BUCKETs created. On SIGTERM it stops the
server it started (by its process id) and exits.
"""
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request

signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})

KIND, DATA, KEY, SECRET = sys.argv[1:5]
BUCKETS = sys.argv[5:]
HERE = os.path.dirname(os.path.abspath(__file__))
VENV_BIN = os.path.dirname(sys.executable)


def free_ports(count):
    sockets = []
    for _ in range(count):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        sockets.append(s)
    ports = [s.getsockname()[1] for s in sockets]
    for s in sockets:
        s.close()
    return ports


def answers(port):
    try:
        urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=1)
    except urllib.error.HTTPError:
        return True
    except Exception:
        return False
    return True


child = None


def stop(*_):
    # Its data is thrown away: no need to wait for a clean shutdown.
    if child is not None and child.poll() is None:
        child.kill()
        child.wait()
    sys.exit(0)


def die_with_parent():
    # The server goes when this process goes, even killed (Linux's PR_SET_PDEATHSIG).
    import ctypes
    ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)


signal.signal(signal.SIGTERM, stop)
signal.signal(signal.SIGINT, stop)
os.makedirs(DATA, exist_ok=True)

def start_weed():
    """weed mini on free ports; None when it could not take them (another server took one first)."""
    global child
    config = os.path.join(DATA, "s3.json")
    with open(config, "w") as f:
        json.dump({"identities": [{"name": "tester", "credentials": [{"accessKey": KEY, "secretKey": SECRET}],
                                   "actions": ["Read", "Write", "List", "Tagging"]}]}, f)
    # Every port weed mini opens, each a free one (a gRPC port is not derived from its HTTP port).
    names = ["master.port", "master.port.grpc", "volume.port", "volume.port.grpc", "filer.port", "filer.port.grpc",
             "s3.port", "s3.port.grpc", "admin.port", "admin.port.grpc", "webdav.port"]
    ports = dict(zip(names, free_ports(len(names))))
    arguments = [os.path.join(VENV_BIN, "weed"), "mini", "-dir=" + os.path.join(DATA, "data"), "-ip=127.0.0.1",
                 "-ip.bind=127.0.0.1", "-s3.port.iceberg=0", "-s3.port.lance=0", "-admin.ui=false", "-s3.config=" + config]
    arguments += [f"-{name}={port}" for name, port in ports.items()]
    if BUCKETS:
        arguments.append("-bucket=" + ",".join(BUCKETS))
    os.makedirs(os.path.join(DATA, "data"), exist_ok=True)
    log = open(os.path.join(DATA, "weed.log"), "a")
    child = subprocess.Popen(arguments, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, preexec_fn=die_with_parent)
    deadline = time.time() + 60
    while not answers(ports["s3.port"]):
        if child.poll() is not None or time.time() > deadline:
            if child.poll() is None:
                child.kill()
            child.wait()
            child = None
            return None
        time.sleep(0.1)
    return ports


if KIND == "weed":
    # Ports are picked free but taken later: a server starting at the same time may take one first.
    for attempt in range(4):
        ports = start_weed()
        if ports:
            break
    else:
        sys.exit("the weed S3 server did not start (see weed.log)")
    port = ports["s3.port"]
elif KIND == "moto":
    from moto.server import ThreadedMotoServer
    port = free_ports(1)[0]
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
else:
    sys.exit("usage: s3_server.py weed|moto DATA_DIR KEY SECRET [BUCKET...]")

deadline = time.time() + 60
while not answers(port):
    if time.time() > deadline or (child is not None and child.poll() is not None):
        sys.exit(f"the {KIND} S3 server did not start")
    time.sleep(0.1)

if KIND == "moto":
    for bucket in BUCKETS:
        urllib.request.urlopen(urllib.request.Request(f"http://127.0.0.1:{port}/{bucket}", method="PUT"), timeout=5)
else:
    # weed creates its buckets as it starts: wait until its filer holds each bucket's folder.
    for bucket in BUCKETS:
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{ports['filer.port']}/buckets/{bucket}/", timeout=2)
                break
            except Exception:
                pass
            if time.time() > deadline:
                sys.exit(f"bucket {bucket} was not created")
            time.sleep(0.1)

print(f"PORT {port}", flush=True)
while True:
    if child is not None and child.poll() is not None:
        sys.exit(f"the {KIND} S3 server stopped")
    time.sleep(0.5)
