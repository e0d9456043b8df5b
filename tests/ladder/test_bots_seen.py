"""A bot that stays connected is seen while it stays: its "last seen" (`arena bots list`, the web view) moves on
every `LadderSettings.seen_s`, and once more when the ladder stops, instead of staying at its arrival for as long
as it plays.  A real ladder server, a raw bot and the store's own rows."""

from __future__ import annotations

import sys
from pathlib import Path

import trio

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))

import toy_ruleset  # noqa: E402  (tests/server's toy ruleset and raw client)
from server_helpers import RawBot, blocking, hello, serve, until  # noqa: E402

from arena.ladder.director import LadderDirector, LadderSettings  # noqa: E402
from arena.ladder.store import LadderStore, utc_now  # noqa: E402


def last_seen(store: LadderStore, name: str) -> str | None:
    return {bot["name"]: bot["last_seen"] for bot in store.list_bots()}.get(name)


async def stayer_arrived(ladder: LadderDirector, handle, store: LadderStore, ruleset: str) -> tuple[RawBot, str]:
    """A raw bot "stayer" connects, alone (never seated); once the ladder has noted its arrival in the store:
    (the bot, its first last-seen time)."""
    bot = RawBot(handle.port, hello("stayer", games=[ruleset]))
    await blocking(bot.recv_kind, "welcome")
    await until(lambda: ladder.sessions_noted(handle) and last_seen(store, "stayer") is not None, 10)
    return bot, last_seen(store, "stayer")


def test_a_connected_bot_is_seen_while_it_stays_not_only_when_it_arrived(tmp_path):
    store = LadderStore.open(tmp_path / "ladder.db")
    with toy_ruleset.registered() as ruleset:
        settings = LadderSettings(players={ruleset: 2}, replays=tmp_path / "replays", handle_signals=False,
                                  seen_s=0.2)
        ladder = LadderDirector(store, settings)

        async def director(handle):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(ladder, handle)
                bot, arrived = await stayer_arrived(ladder, handle, store, ruleset)
                seen = [arrived]
                with trio.fail_after(10):  # still connected, and seen after its arrival (twice: it goes on)
                    while len(set(seen)) < 3:
                        await trio.sleep(0.05)
                        seen.append(last_seen(store, "stayer"))
                assert handle.sessions(), "the bot is still connected"
                ladder.stop("test done")
                return bot, seen

        bot, seen = serve(director, max_games_per_bot=8)
    try:
        assert sorted(set(seen)) == list(dict.fromkeys(seen))  # only ever forward
        assert {bot["name"]: bot["first_seen"] for bot in store.list_bots()}["stayer"] == seen[0]
    finally:
        bot.close()
        store.close()


def test_the_bots_still_connected_when_the_ladder_stops_are_seen_then(tmp_path):
    """Its departure is noted by the session watcher while the ladder runs; at its stop the bots leave with the
    host, so the stop notes them (with no period passed since their arrival: seen_s is an hour here)."""
    store = LadderStore.open(tmp_path / "ladder.db")
    with toy_ruleset.registered() as ruleset:
        settings = LadderSettings(players={ruleset: 2}, replays=tmp_path / "replays", handle_signals=False,
                                  seen_s=3600)
        ladder = LadderDirector(store, settings)

        async def director(handle):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(ladder, handle)
                bot, arrived = await stayer_arrived(ladder, handle, store, ruleset)
                stopping = utc_now()
                assert stopping > arrived
                ladder.stop("test done")
                return bot, arrived, stopping

        bot, arrived, stopping = serve(director, max_games_per_bot=8)
    try:
        assert last_seen(store, "stayer") >= stopping > arrived
    finally:
        bot.close()
        store.close()
