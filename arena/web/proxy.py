"""The reader's address behind N reverse proxies: the N-th from the right in ``X-Forwarded-For``.

Each proxy appends the address it was reached from, so the right-most N entries were written by the N
trusted proxies and the N-th from the right is the address the outermost one saw; entries further left are
the client's own word.  With fewer than N entries the peer's address stays.  (What hypercorn's
ProxyFixMiddleware did in its "legacy" mode for the client address; the arena reads only the address.)
"""

from __future__ import annotations

from typing import Any


def forwarded_client(headers: list[tuple[bytes, bytes]], hops: int) -> str | None:
    """The trusted ``X-Forwarded-For`` entry, or None when there are fewer than ``hops`` of them."""
    entries = [part.decode("latin-1").strip()
               for name, value in headers if name.lower() == b"x-forwarded-for"
               for part in value.split(b",")]
    return entries[-hops] if hops > 0 and len(entries) >= hops else None


class ProxyHops:
    """ASGI middleware: ``scope["client"]`` from ``X-Forwarded-For`` as written by ``hops`` proxies."""

    def __init__(self, app: Any, hops: int) -> None:
        if hops < 1:
            raise ValueError(f"proxy hops must be 1 or more, not {hops}")
        self.app = app
        self.hops = hops

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] in ("http", "websocket"):
            client = forwarded_client(scope["headers"], self.hops)
            if client is not None:
                scope = {**scope, "client": (client, 0)}
        await self.app(scope, receive, send)
