"""The attack: open a long live game's event stream and hang up, again and again.

Each stream starts with the game's backlog.  It used to be written an event at a time, and a reader that
had hung up was written all of it before the server noticed: asyncio logs every write to a closed socket
(``socket.send() raised exception.``), so one killed browser left 975 lines in the log and four raw
sockets 1,245 in 6 s.  Now the backlog (and whatever arrived together) is one write and a stream whose
reader has gone ends: no flood, and the stream's watching place and its queue are given back.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import time

import pytest

pytest.importorskip("uvicorn", reason="the web view needs uvicorn (pip install -e '.[test]')")

from arena.games import new_game  # noqa: E402
from arena.server.live import LiveGames, Spectators  # noqa: E402
from arena.web import WebSource, create_app  # noqa: E402
from arena.web.embed import bind, serve  # noqa: E402
from arena.web.source import LiveFeed  # noqa: E402

BACKLOG = 500  # decisions so far: a long game (a Mose game of a slow bot has hundreds)
READERS = 4  # an address's share of the watching streams: each must come back


def hang_up(port: int, game_id: str) -> None:
    """A follow stream opened, its first bytes read, and the socket dropped (unread data: a reset)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as reader:
        reader.sendall(f"GET /api/v1/games/{game_id}/events?follow=1 HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        assert reader.recv(200).startswith(b"HTTP/1.1 200")


def test_readers_that_hang_up_on_a_live_stream_end_it_without_flooding_the_log(tmp_path, caplog):
    live = LiveGames(spectators=Spectators(total=64, per_address=READERS))
    state = new_game("maumau", 2, 7)
    game = live.start("long-1", "maumau", ["a", "b"])
    for index in range(BACKLOG):
        live.record(game, index, None if index == 0 else index % 2, "" if index == 0 else "draw", state)
    source = WebSource(tmp_path / "arena.db", live=LiveFeed(live))

    async def main() -> tuple[int, int]:
        sock = bind("127.0.0.1", 0)
        stop = asyncio.Event()
        server = asyncio.create_task(serve(create_app(source), sock, stop))
        playing = True

        async def play() -> None:  # the game goes on: a decision every few milliseconds
            index = BACKLOG
            while playing:
                live.record(game, index, index % 2, "draw", state)
                index += 1
                await asyncio.sleep(0.002)

        player = asyncio.create_task(play())
        try:
            for _ in range(READERS):
                await asyncio.to_thread(hang_up, sock.getsockname()[1], game.game_id)
            deadline = time.monotonic() + 20  # a bound on the wait, not a guess at how long it takes
            while (live.spectators.held or game.watchers) and time.monotonic() < deadline:
                await asyncio.sleep(0.01)
            held, watchers = live.spectators.held, len(game.watchers)
            await asyncio.sleep(0.2)  # a hundred more decisions: none may be written to the readers that left
            return held, watchers
        finally:
            playing = False
            await player
            stop.set()
            await server
            sock.close()

    with caplog.at_level(logging.WARNING, logger="asyncio"):
        held, watchers = asyncio.run(main())
    source.close()
    assert (held, watchers) == (0, 0)  # every stream ended: its place and its queue given back
    flood = [r for r in caplog.records if "socket.send() raised exception" in r.getMessage()]
    assert not flood, f"{len(flood)} lines of asyncio's socket.send() warning"
