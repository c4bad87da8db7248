"""A TCP proxy that adds a fixed delay each way: a database as if across a network.

    python -m bench.latency_proxy --delay-ms 1.35 [--upstream 127.0.0.1:5432] [--port 0]
        [--rtt-url postgresql://postgres@127.0.0.1:5432/test]

It listens on a loopback port (printed as ``listening on 127.0.0.1:PORT``) and forwards
every connection to the upstream, holding each chunk of bytes for ``--delay-ms`` in each
direction: a query's round trip gains twice the delay. Each direction has a queue of
(due time, bytes): the reader stamps a chunk when it arrives and goes on reading, the writer
sends each chunk at its due time, in order. A burst is delayed once, not once per chunk, so
the delay costs latency and not throughput.

The loop waits with select(), whose timeout has microsecond resolution: epoll's rounds up
to whole milliseconds, which would turn 1.35 ms into 2.

With ``--rtt-url`` it also prints the ``SELECT 1`` round trip, direct and through itself.
``scripts/bench.py`` runs it for its PostgreSQL latency measurement.
"""

from __future__ import annotations

import argparse
import asyncio
import selectors
import statistics
import threading
import time
from contextlib import suppress

from sqlalchemy.engine import make_url

READ_SIZE = 65536


async def _forward(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, delay: float):
    """Copy one direction, each chunk ``delay`` seconds after it arrived, in order."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue()

    async def receive() -> None:
        with suppress(ConnectionError):
            while data := await reader.read(READ_SIZE):
                queue.put_nowait((loop.time() + delay, data))
        queue.put_nowait((loop.time() + delay, b""))  # the end, after the last chunk

    async def send() -> None:
        while True:
            due, data = await queue.get()
            if (wait := due - loop.time()) > 0:
                await asyncio.sleep(wait)
            if not data:
                break
            writer.write(data)
            await writer.drain()

    receiving = asyncio.create_task(receive())
    try:
        await send()
    except ConnectionError:
        receiving.cancel()
    finally:
        writer.close()


async def serve(upstream: tuple[str, int], port: int, delay: float, ready: asyncio.Future[int]):
    async def connection(client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter):
        try:
            server_r, server_w = await asyncio.open_connection(*upstream)
        except OSError:
            client_w.close()
            return
        await asyncio.gather(
            _forward(client_r, server_w, delay),  # the queries
            _forward(server_r, client_w, delay),  # the answers
            return_exceptions=True,
        )

    server = await asyncio.start_server(connection, "127.0.0.1", port)
    ready.set_result(server.sockets[0].getsockname()[1])
    async with server:
        await server.serve_forever()


def query_rtt_ms(url: str, queries: int = 200) -> float:
    """The median ``SELECT 1`` round trip on one connection, in milliseconds.

    ``url`` may be SQLAlchemy's (``postgresql+psycopg://...``) or libpq's."""
    import psycopg  # only the PostgreSQL measurement needs it

    conninfo = make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(conninfo, autocommit=True, connect_timeout=5) as conn:
        conn.execute("SELECT 1").fetchone()  # the first statement pays for more
        times = []
        for _ in range(queries):
            started = time.perf_counter()
            conn.execute("SELECT 1").fetchone()
            times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.latency_proxy",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--delay-ms", type=float, required=True, help="one-way delay, ms")
    parser.add_argument("--upstream", default="127.0.0.1:5432", help="host:port to forward to")
    parser.add_argument("--port", type=int, default=0, help="port to listen on (0: any free)")
    parser.add_argument("--rtt-url", help="a PostgreSQL URL: print SELECT 1 round trips")
    args = parser.parse_args()
    host, _, upstream_port = args.upstream.rpartition(":")
    loop = asyncio.SelectorEventLoop(selectors.SelectSelector())
    ready: asyncio.Future[int] = loop.create_future()
    task = loop.create_task(
        serve((host, int(upstream_port)), args.port, args.delay_ms / 1000, ready)
    )
    port = loop.run_until_complete(ready)
    print(f"listening on 127.0.0.1:{port}", flush=True)
    if args.rtt_url:

        def report() -> None:
            direct = query_rtt_ms(args.rtt_url)
            proxied = query_rtt_ms(
                make_url(args.rtt_url)
                .set(host="127.0.0.1", port=port)
                .render_as_string(hide_password=False)
            )
            print(f"SELECT 1 round trip: direct {direct:.2f} ms, proxied {proxied:.2f} ms")

        threading.Thread(target=report, daemon=True).start()
    with suppress(KeyboardInterrupt):
        loop.run_until_complete(task)


if __name__ == "__main__":
    main()
