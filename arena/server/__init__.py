"""The arena server: grpc.aio transport, trio-owned games, bot sessions and their seats.

    from arena.server import ServerConfig, run

    async def director(handle):
        await handle.wait_for_sessions(["alice", "bob"], timeout_s=30)
        return await handle.play_game("moumou", {}, seed, ["alice", "bob"], TimeControl())

    outcome = run(ServerConfig(port=0), director)

See arena/server/README.md for the design, the session rules and the figures.
"""

from arena.server.config import ConfigError, ServerConfig, is_loopback
from arena.server.hello import BOT_NAME, HelloRefused, check_hello
from arena.server.host import Handle, new_game_id, run
from arena.server.seat import RemoteSeat
from arena.server.bot_session import SessionInfo
from arena.server.sessions import SeatUnavailable

__all__ = [
    "BOT_NAME",
    "ConfigError",
    "Handle",
    "HelloRefused",
    "RemoteSeat",
    "SeatUnavailable",
    "ServerConfig",
    "SessionInfo",
    "check_hello",
    "is_loopback",
    "new_game_id",
    "run",
]
