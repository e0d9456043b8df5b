"""A bot that stops reading its stream cannot make the server buffer for it without bound: its stream's outbox
holds `MAX_OUTBOX` messages, and the next one cuts the stream off (cancelling the handler stuck writing to it)."""

from __future__ import annotations

import asyncio

from mau_arena_sdk.wire import pb

from arena.server.connection import MAX_OUTBOX, Connection


def test_the_message_beyond_the_outbox_limit_cuts_the_stream_off_and_cancels_its_handler():
    async def scenario():
        connection = Connection("ipv4:127.0.0.1:5")
        connection.handler = asyncio.get_running_loop().create_task(asyncio.Event().wait())  # a writer stuck forever
        message = pb.ArenaMessage(error=pb.Error(code=pb.Error.UNKNOWN, message="queued"))
        assert all(connection.send(message) for _ in range(MAX_OUTBOX))
        assert connection.outbox.qsize() == MAX_OUTBOX and not connection.aborted
        assert connection.send(message) is False  # one more: cut off, not queued
        assert connection.aborted and connection.closed and connection.outbox.qsize() == MAX_OUTBOX
        assert connection.send(message) is False  # and nothing is queued after the cut
        await asyncio.sleep(0)  # let the cancellation reach the task (an event loop turn, not a timing wait)
        assert connection.handler.cancelled()

    asyncio.run(scenario())
