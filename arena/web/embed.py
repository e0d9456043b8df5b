"""Serving the web app: beside a running arena on its own loop, or on its own (`arena web`).

The arena's process is one asyncio loop (grpc.aio) with trio as its guest
(``arena.server.host``).  Beside it the pages are served by uvicorn on that
same loop: a task the ladder's director owns (`beside`), started when the
director starts and stopped, through uvicorn's ``should_exit``, before the
director returns.  uvicorn is kept from installing signal handlers, so Ctrl-C
still belongs to the arena.

HTTP/1.1 only (uvicorn's h11 protocol, no websockets): the pages need nothing
more (JSON, files, and server-sent events for a live game).  HTTP/2 is not
spoken at all, because a cleartext HTTP/2 client that opens and resets
streams by the thousand (a "rapid reset" flood) made hypercorn's HTTP/2 stack
(its priority tree rebuilt per stream, in Python) starve the games on this
loop before the web pace saw any request.  A client that sends the HTTP/2
preface is read as an HTTP/1.1 request for ``*`` (a 404) and the frames after it
as a malformed one (a 400), and the connection closed; ``Upgrade: h2c`` is ignored and the request answered in HTTP/1.1.

The listening socket is bound before anything starts (`bind`), so a taken
port is a clear error at start-up, and port 0 picks a free one.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from typing import Any, Awaitable, Callable, Iterator

import uvicorn

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


class _Server(uvicorn.Server):
    """uvicorn's server without its signal handlers: the arena (or `arena web`'s asyncio.run) keeps them."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


# uvicorn.Server.serve takes SIGINT and SIGTERM through this method; were it renamed, the override above would
# silently stop applying and Ctrl-C would stop only the web view: refuse to start instead.
if not callable(getattr(uvicorn.Server, "capture_signals", None)):  # (not an assert: python -O drops those)
    raise ImportError(f"uvicorn {uvicorn.__version__} has no Server.capture_signals: the web view would take the arena's Ctrl-C")


async def serve(app: Any, sock: socket.socket, shutdown: asyncio.Event) -> None:
    """Serve ``app`` on ``sock`` (on the running asyncio loop) until ``shutdown`` is set."""
    config = uvicorn.Config(
        app,
        http="h11",  # HTTP/1.1 only: see the module's doc
        ws="none",
        lifespan="off",  # the app has no start-up or shutdown of its own
        log_config=None,  # the arena's logging stays as the arena set it
        access_log=False,
        proxy_headers=False,  # X-Forwarded-For is read only under --web-proxy-hops (arena.web.proxy)
        server_header=False,
        timeout_graceful_shutdown=SHUTDOWN_S,
    )
    server = _Server(config)
    # uvicorn warns once a request for what a client sent wrong (a malformed request, the HTTP/2 preface, an
    # Upgrade header): a stranger's lines in the arena's log, as many as it likes.  Its errors (an exception in
    # the app) still show; a level someone set on purpose is kept.
    client_noise = logging.getLogger("uvicorn.error")
    if client_noise.level == logging.NOTSET:
        client_noise.setLevel(logging.ERROR)

    async def stop_when_told() -> None:
        await shutdown.wait()
        server.should_exit = True

    stopper = asyncio.get_running_loop().create_task(stop_when_told())
    try:
        # uvicorn closes the sockets it serves on shutdown: give it its own duplicate, so the caller's socket
        # stays the caller's to close
        await server.serve(sockets=[sock.dup()])
    finally:
        stopper.cancel()


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
