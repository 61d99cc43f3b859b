#!/usr/bin/env python3
"""A TCP proxy on loopback that delays every request by a fixed time: a remote object store's
latency in front of a local one (Ceph RGW, Azurite), for measuring what a cold query waits for.

    delay_proxy.py LISTEN_PORT TARGET_HOST:TARGET_PORT DELAY_MS

Each chunk the client sends is forwarded DELAY_MS after it arrived, in order; the answers come
back at once. A request therefore costs one DELAY_MS more than on loopback, and requests in
flight together on separate connections are delayed together, not one after another: the wall
time of a query grows by DELAY_MS per dependent request round (docs/benchmarks.md "Cold queries
over a remote store"). Prints "ready PORT" once listening. Stops on SIGTERM or SIGINT.
"""
import asyncio
import signal
import sys


async def pipe_delayed(reader, writer, delay_s):
    loop = asyncio.get_running_loop()
    queue = asyncio.Queue()

    async def receive():
        while True:
            data = await reader.read(65536)
            await queue.put((loop.time() + delay_s, data))
            if not data:
                return

    async def send():
        while True:
            due, data = await queue.get()
            wait = due - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            if not data:
                writer.write_eof() if writer.can_write_eof() else writer.close()
                return
            writer.write(data)
            await writer.drain()

    await asyncio.gather(receive(), send())


async def pipe(reader, writer):
    while True:
        data = await reader.read(65536)
        if not data:
            if writer.can_write_eof():
                writer.write_eof()
            return
        writer.write(data)
        await writer.drain()


async def serve(listen_port, host, port, delay_s):
    async def handle(client_reader, client_writer):
        try:
            server_reader, server_writer = await asyncio.open_connection(host, port)
        except OSError:
            client_writer.close()
            return
        try:
            await asyncio.gather(pipe_delayed(client_reader, server_writer, delay_s),
                                 pipe(server_reader, client_writer))
        except (ConnectionError, OSError):
            pass
        finally:
            client_writer.close()
            server_writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", listen_port)
    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        asyncio.get_running_loop().add_signal_handler(sig, stop.set)
    print(f"ready {listen_port}", flush=True)
    async with server:
        await stop.wait()


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: delay_proxy.py LISTEN_PORT TARGET_HOST:TARGET_PORT DELAY_MS")
    host, _, port = sys.argv[2].rpartition(":")
    asyncio.run(serve(int(sys.argv[1]), host, int(port), float(sys.argv[3]) / 1000.0))


if __name__ == "__main__":
    main()
