"""Deployment benchmark: `pipeline serve` behind a real nginx (default request buffering), a
client that reconnects while its dead connection stays half-open, and kill -9 of the engine at
random moments of chunked uploads.

Usage: deploy.py PIPELINE_BINARY [SIZE_MIB] [KILLS]
Prints one line per measurement; every figure is measured in this run. Needs nginx
(nginx-light) and curl. Stops every process it starts.
"""
import hashlib
import http.client
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

binary = os.path.abspath(sys.argv[1])
size = int(sys.argv[2]) << 20 if len(sys.argv) > 2 else 256 << 20
kills = int(sys.argv[3]) if len(sys.argv) > 3 else 20
work = tempfile.mkdtemp(prefix="pipeline-deploy-bench.")
started = []


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def serve(data, *extra):
    process = subprocess.Popen([binary, "serve", "--port", "0", "--data-dir", data, "--quiet", *extra],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    started.append(process)
    for line in process.stdout:
        if "listening on" in line:
            return process, int(line.rsplit(":", 1)[1])
    raise SystemExit("serve did not start")


def nginx(upstream, port):
    folder = os.path.join(work, f"nginx-{port}")
    os.makedirs(folder)
    config = os.path.join(folder, "nginx.conf")
    with open(config, "w") as stream:
        stream.write(f"""{"user root;" if os.getuid() == 0 else ""}
worker_processes 1; daemon off; master_process off; pid {folder}/pid; error_log {folder}/error.log warn;
events {{ worker_connections 256; }}
http {{ access_log off; client_body_temp_path {folder}/body; proxy_temp_path {folder}/proxy;
  fastcgi_temp_path {folder}/f; uwsgi_temp_path {folder}/u; scgi_temp_path {folder}/s;
  server {{ listen 127.0.0.1:{port}; client_max_body_size 0;
    location / {{ proxy_pass http://127.0.0.1:{upstream}; proxy_set_header Host $http_host; }} }} }}
""")
    process = subprocess.Popen(["/usr/sbin/nginx", "-p", folder, "-c", config, "-e", folder + "/error.log"])
    started.append(process)
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return process
        except OSError:
            time.sleep(0.05)
    raise SystemExit("nginx did not start")


def timed(command):
    begin = time.monotonic()
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"{command[:2]} failed: {result.stderr[-400:]}")
    return time.monotonic() - begin, result.stdout


def tus(port, method, path, headers, body=None):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    connection.request(method, path, body=body, headers={"Tus-Resumable": "1.0.0", **headers})
    response = connection.getresponse()
    response.read()
    connection.close()
    return response


def stored(data, location):
    return os.path.join(data, "uploads", location.rsplit("/", 1)[1] + ".bin")


def digest(path):
    with open(path, "rb") as stream:
        return hashlib.sha256(stream.read()).hexdigest()


try:
    payload = os.path.join(work, "payload.bin")
    with open(payload, "wb") as stream:
        stream.write(os.urandom(size))
    expected = digest(payload)
    print(f"== through nginx (default buffering), {size >> 20} MiB")
    direct_data, proxied_data = os.path.join(work, "direct"), os.path.join(work, "proxied")
    _, direct_port = serve(direct_data)
    front = free_port()
    _, back = serve(proxied_data, "--public-url", f"http://127.0.0.1:{front}")
    nginx(back, front)
    for name, port, data in (("direct", direct_port, direct_data), ("nginx", front, proxied_data)):
        seconds, out = timed([binary, "upload", payload, "--endpoint", f"http://127.0.0.1:{port}/resumable/files/", "--quiet",
                              "--state-dir", os.path.join(work, "state-" + name)])
        same = digest(stored(data, out.split()[-1])) == expected
        print(f"pipeline upload {name}: {seconds:.2f} s, {size / seconds / 1e6:.0f} MB/s, stored bytes identical: {same}")
        if name == "nginx":
            upload_nginx = seconds
    created = tus(front, "POST", "/resumable/files/", {"Upload-Length": str(size)})
    location = created.getheader("Location")
    seconds, _ = timed(["curl", "-sS", "-f", "-X", "PATCH", "-H", "Tus-Resumable: 1.0.0", "-H", "Upload-Offset: 0",
                        "-H", "Content-Type: application/offset+octet-stream", "--data-binary", "@" + payload, location])
    print(f"curl PATCH nginx: {seconds:.2f} s; pipeline upload / curl = {seconds / upload_nginx:.2f}x the speed")
    project = os.path.join(work, "project")
    os.makedirs(project + "/files")
    shutil.copy(payload, project + "/files/payload.bin")
    with open(project + "/pipeline.yml", "w") as stream:
        stream.write(f"version: 1\nendpoint: http://127.0.0.1:{front}\nauth: {{key: k}}\nassemblies:\n  h:\n    inputs: [files/*.bin]\n"
                     "    steps:\n      hash: {robot: /file/hash, use: ':original', algorithm: sha256}\n")
    env = dict(os.environ, TRANSLOADIT_SECRET="unchecked")
    begin = time.monotonic()
    result = subprocess.run([binary, "run", project + "/pipeline.yml"], capture_output=True, text=True, env=env)
    print(f"pipeline run nginx (/file/hash): {time.monotonic() - begin:.2f} s, exit {result.returncode}, "
          f"hash matches: {expected in open(project + '/results.json').read()}")

    print("== a client reconnecting while its dead connection stays half-open")
    length = 64 << 20
    created = tus(direct_port, "POST", "/resumable/files/", {"Upload-Length": str(length)})
    path = "/resumable/files/" + created.getheader("Location").rsplit("/", 1)[1]
    dead = socket.create_connection(("127.0.0.1", direct_port))
    dead.sendall((f"PATCH {path} HTTP/1.1\r\nHost: 127.0.0.1:{direct_port}\r\nTus-Resumable: 1.0.0\r\n"
                  f"Content-Type: application/offset+octet-stream\r\nUpload-Offset: 0\r\nContent-Length: {length}\r\n\r\n").encode())
    sent = 30 << 20
    with open(payload, "rb") as stream:
        chunk = stream.read(length)
    dead.sendall(chunk[:sent])
    time.sleep(0.3)
    begin = time.monotonic()
    head = tus(direct_port, "HEAD", path, {})
    answered = time.monotonic() - begin
    offset = int(head.getheader("Upload-Offset"))
    rest = tus(direct_port, "PATCH", path, {"Upload-Offset": str(offset), "Content-Type": "application/offset+octet-stream"}, chunk[offset:])
    print(f"HEAD answered in {answered * 1000:.0f} ms with offset {offset} of {sent} sent; bytes sent again: {sent - offset}; "
          f"resumed PATCH: {rest.status}; identical: {digest(stored(direct_data, path)) == hashlib.sha256(chunk).hexdigest()}")
    dead.close()

    print(f"== kill -9 of the engine at {kills} random moments of a chunked upload")
    data = os.path.join(work, "crash")
    engine, port = serve(data)
    body = chunk[:8 << 20]
    identical = consistent = 0
    for _ in range(kills):
        created = tus(port, "POST", "/resumable/files/", {"Upload-Defer-Length": "1"})
        path = "/resumable/files/" + created.getheader("Location").rsplit("/", 1)[1]
        connection = socket.create_connection(("127.0.0.1", port))
        connection.sendall((f"PATCH {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nTus-Resumable: 1.0.0\r\nContent-Type: "
                            f"application/offset+octet-stream\r\nUpload-Offset: 0\r\nTransfer-Encoding: chunked\r\n\r\n").encode())
        cut = random.randrange(1, len(body))
        for start in range(0, cut, 65536):
            piece = body[start:min(cut, start + 65536)]
            connection.sendall(b"%x\r\n" % len(piece) + piece + b"\r\n")
        time.sleep(random.random() * 0.05)
        engine.send_signal(signal.SIGKILL)
        engine.wait()
        connection.close()
        engine, port = serve(data)
        file = stored(data, path)
        offset = int(tus(port, "HEAD", path, {}).getheader("Upload-Offset"))
        consistent += os.path.getsize(file) == offset
        tus(port, "PATCH", path, {"Upload-Offset": str(offset), "Upload-Length": str(len(body)),
                                  "Content-Type": "application/offset+octet-stream"}, body[offset:])
        identical += digest(file) == hashlib.sha256(body).hexdigest()
    print(f"after restart the data file held exactly the recorded bytes: {consistent}/{kills}; "
          f"finished uploads byte-identical: {identical}/{kills}")
finally:
    for process in started:
        if process.poll() is None:
            process.kill()
            process.wait()
    shutil.rmtree(work, ignore_errors=True)
