"""Starts litestar-tus (a third-party tus server from PyPI) on 127.0.0.1 for the tests.

Usage: litestar_tus_server.py STORE_DIR
Binds an ephemeral port itself and prints "PORT <n>" once it is listening; the endpoint is
http://127.0.0.1:<n>/files/. Runs until it is terminated.
"""
import signal

# A test runner may start us with signals blocked (worker threads block them); unblock so
# SIGTERM stops us at once.
signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})

import socket
import sys

import uvicorn
from litestar import Litestar
from litestar_tus import TUSConfig, TUSPlugin

store = sys.argv[1]
app = Litestar(
    plugins=[TUSPlugin(TUSConfig(path_prefix="/files", upload_dir=store))],
    request_max_body_size=16 * 1024**3,  # PATCH bodies may be whole files
)
listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
listener.bind(("127.0.0.1", 0))
listener.listen(128)
print(f"PORT {listener.getsockname()[1]}", flush=True)
uvicorn.run(app, fd=listener.fileno(), log_level="warning")
