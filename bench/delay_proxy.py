"""A TCP proxy that delays every byte by a fixed time in each direction (standard library only).

Usage: delay_proxy.py UPSTREAM_PORT DELAY_MS
Listens on 127.0.0.1 (a free port, printed as "PORT <n>"), forwards each connection to
127.0.0.1:UPSTREAM_PORT, and delivers what each side sends DELAY_MS later, in order: a round
trip through it takes 2 x DELAY_MS more, as a server that far away would. Bandwidth is not limited.
"""
import asyncio
import signal
import sys

signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})


async def pipe(reader, writer, delay):
    loop = asyncio.get_running_loop()
    queue = asyncio.Queue()

    async def deliver():
        while True:
            due, data = await queue.get()
            wait = due - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            if data is None:
                try:
                    writer.write_eof()
                except (OSError, RuntimeError):
                    pass
                return
            writer.write(data)
            try:
                await writer.drain()
            except (ConnectionError, OSError):
                return

    sender = asyncio.ensure_future(deliver())
    try:
        while True:
            data = await reader.read(1 << 16)
            await queue.put((loop.time() + delay, data or None))
            if not data:
                break
    except (ConnectionError, OSError):
        await queue.put((loop.time(), None))
    await sender


async def main():
    upstream, delay = int(sys.argv[1]), int(sys.argv[2]) / 1000.0

    async def handle(client_reader, client_writer):
        try:
            server_reader, server_writer = await asyncio.open_connection("127.0.0.1", upstream)
        except OSError:
            client_writer.close()
            return
        await asyncio.gather(pipe(client_reader, server_writer, delay), pipe(server_reader, client_writer, delay))
        for writer in (client_writer, server_writer):
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    print("PORT", server.sockets[0].getsockname()[1], flush=True)
    async with server:
        await server.serve_forever()


asyncio.run(main())
