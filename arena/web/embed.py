"""Serving the web app: beside a running arena on its own loop, or on its own (`arena web`).

The arena's process is one asyncio loop (grpc.aio) with trio as its guest
(``arena.server.host``).  Beside it the pages are served by hypercorn's
asyncio server on that same loop: a task the ladder's director owns
(`beside`), started when the director starts and shut down, through
hypercorn's shutdown trigger, before the director returns.  hypercorn is
told not to install signal handlers, so Ctrl-C still belongs to the arena.

The listening socket is bound before anything starts (`bind`), so a taken
port is a clear error at start-up, and port 0 picks a free one.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
from typing import Any, Awaitable, Callable

log = logging.getLogger(__name__)

#: How long a stopping arena waits for the web server's open streams to close.
SHUTDOWN_S = 5.0


def parse_bind(text: str, default_host: str = "127.0.0.1") -> tuple[str, int]:
    """``PORT`` or ``HOST:PORT`` (loopback unless a host is named)."""
    host, _, port = text.rpartition(":")
    host = host.strip("[]") or default_host
    if not port.isdigit() or not 0 <= int(port) <= 65535:
        raise ValueError(f"expected PORT or HOST:PORT for the web view, not {text!r}")
    return host, int(port)


def bind(host: str, port: int) -> socket.socket:
    """A listening socket (port 0: a free one); OSError with a clear message when it cannot be had."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)
    except OSError as error:
        sock.close()
        raise OSError(f"the web view cannot listen on {host}:{port}: {error.strerror or error}") from None
    sock.setblocking(False)
    return sock


def url(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    return f"http://{'[' + host + ']' if ':' in host else host}:{port}/"


async def serve(app: Any, sock: socket.socket, shutdown: asyncio.Event) -> None:
    """Serve ``app`` on ``sock`` (on the running asyncio loop) until ``shutdown`` is set."""
    from hypercorn.asyncio import serve as hypercorn_serve
    from hypercorn.config import Config

    config = Config()
    # hypercorn adopts the descriptor it is given and closes it on shutdown: give it its own duplicate,
    # so the caller's socket stays the caller's to close
    config.bind = [f"fd://{os.dup(sock.fileno())}"]
    config.accesslog = None
    config.errorlog = log
    config.graceful_timeout = SHUTDOWN_S
    await hypercorn_serve(app, config, shutdown_trigger=shutdown.wait)


def beside(director: Callable[[Any], Awaitable[Any]], make_app: Callable[[Any], Any],
           sock: socket.socket) -> Callable[[Any], Awaitable[Any]]:
    """Wrap an arena director so the web app runs on the arena's loop for exactly the director's life."""
    import trio

    async def with_web(handle: Any) -> Any:
        loop = asyncio.get_running_loop()  # the host loop: trio runs as its guest, on this thread
        stop = asyncio.Event()
        stopped = trio.Event()
        token = trio.lowlevel.current_trio_token()
        task = loop.create_task(serve(make_app(handle), sock, stop))

        def done(finished: asyncio.Task) -> None:
            if not finished.cancelled() and finished.exception() is not None:
                log.error("the web view stopped: %s", finished.exception())
            token.run_sync_soon(stopped.set)

        task.add_done_callback(done)
        try:
            return await director(handle)
        finally:
            loop.call_soon(stop.set)
            with trio.CancelScope(shield=True), trio.move_on_after(SHUTDOWN_S + 1):
                await stopped.wait()
            if not task.done():
                task.cancel()
            sock.close()

    return with_web


def run_alone(app: Any, sock: socket.socket, ready: Callable[[str], None] = lambda _: None) -> None:
    """`arena web`: serve until Ctrl-C (KeyboardInterrupt propagates after a clean shutdown)."""

    async def main() -> None:
        stop = asyncio.Event()
        ready(url(sock))
        try:
            await serve(app, sock, stop)
        finally:
            sock.close()

    asyncio.run(main())
