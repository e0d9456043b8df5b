"""A TCP relay that gives the attackers an address of their own on loopback.

On 127.0.0.1 every client has the same peer address, so an arena that limits
failures per address would count the attackers' failures against the honest
bots too, which no real deployment does (an attacker's hosts are not the
honest bots' hosts).  The attackers connect to this relay instead; it opens
each connection onward from ``source`` (127.0.0.2 by default: every
127.0.0.0/8 address is local on Linux), so the arena sees them there.  The
honest bots and the control connect directly and carry no relay latency.
"""

from __future__ import annotations

import asyncio
from typing import Optional

ATTACKER_SOURCE = "127.0.0.2"


class Relay:
    """``await Relay.start(target_host, target_port)``; connect to ``relay.address``; ``await relay.close()``."""

    def __init__(self, target_host: str, target_port: int, source: str) -> None:
        self.target = (target_host, target_port)
        self.source = source
        self.address = ""
        self.connections = 0
        self._server: Optional[asyncio.AbstractServer] = None
        self._pipes: set[asyncio.Task] = set()

    @classmethod
    async def start(cls, target: str, source: str = ATTACKER_SOURCE) -> "Relay":
        host, _, port = target.rpartition(":")
        relay = cls(host, int(port), source)
        relay._server = await asyncio.start_server(relay._serve, "127.0.0.1", 0)
        relay.address = "127.0.0.1:%d" % relay._server.sockets[0].getsockname()[1]
        return relay

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            up_reader, up_writer = await asyncio.open_connection(*self.target, local_addr=(self.source, 0))
        except OSError:
            writer.close()
            return
        for source, sink in ((reader, up_writer), (up_reader, writer)):
            task = asyncio.create_task(_pipe(source, sink))
            self._pipes.add(task)
            task.add_done_callback(self._pipes.discard)

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        for task in list(self._pipes):
            task.cancel()
        await asyncio.gather(*self._pipes, return_exceptions=True)
        if self._server is not None:
            await self._server.wait_closed()


async def _pipe(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
    try:
        while data := await source.read(65536):
            sink.write(data)
            await sink.drain()
    except (ConnectionError, OSError):
        pass
    finally:
        sink.close()
