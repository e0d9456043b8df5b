"""Open registration keeps no trace of names that never played: the bots table stays bounded."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import trio

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))

import toy_ruleset  # noqa: E402  (tests/server's toy ruleset and raw client)
from server_helpers import RawBot, blocking, hello, serve  # noqa: E402

from arena.ladder.director import LadderDirector, LadderSettings  # noqa: E402
from arena.ladder.store import LadderStore, SeatRecord  # noqa: E402


def test_a_name_churning_client_leaves_the_bots_table_bounded(tmp_path):
    """Sixty distinct names connect to a real ladder server and leave; none of them is kept,
    while a registered name and a name with a game in the history stay."""
    store = LadderStore.open(tmp_path / "ladder.db")
    store.add_bot("registered", "s3cret")
    store.touch_bot("veteran")
    store.game_started("g1", toy_ruleset.NAME, {}, 1, "g1", 0, ["veteran", "other"])
    store.game_ended("g1", "finished", [SeatRecord(0, "veteran", 1), SeatRecord(1, "other", 2)])
    store.touch_bot("stale-from-an-earlier-run")  # never played: dropped when the ladder starts
    sizes = []

    with toy_ruleset.registered() as ruleset:
        settings = LadderSettings(players={ruleset: 2}, replays=tmp_path / "replays", handle_signals=False)
        ladder = LadderDirector(store, settings)

        async def director(handle):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(ladder, handle)
                for i in range(60):
                    bot = RawBot(handle.port, hello(f"churn{i}", games=[ruleset]))
                    await blocking(bot.recv_kind, "welcome")
                    await blocking(bot.close)
                    with trio.fail_after(10):  # the departure is noted (and the name pruned)
                        while handle.sessions() or not ladder.sessions_noted(handle):
                            await trio.sleep(0.01)
                    sizes.append(store.bot_count())
                ladder.stop("test done")

        serve(director, max_games_per_bot=8)
    try:
        assert sizes == [2] * 60
        assert {b["name"] for b in store.list_bots()} == {"registered", "veteran"}
    finally:
        store.close()


def test_many_bots_arriving_at_once_are_noted_in_a_few_transactions_not_one_each(tmp_path):
    """Forty bots log in together: their arrivals reach the store in a handful of group writes.  A write
    each was a commit (an fsync) each, behind the games' results: 1,000 bots took minutes to be noted."""
    from arena.match.timecontrol import TimeControl

    store = LadderStore.open(tmp_path / "ladder.db")
    bots_wanted = 40
    with toy_ruleset.registered() as ruleset:
        # One game at a time, with a long move limit the silent bots never use: a game or two write
        # their start, nothing else competes with the arrivals.
        settings = LadderSettings(players={ruleset: 2}, replays=tmp_path / "replays", handle_signals=False,
                                  concurrency=1, time_control=TimeControl(move_ms=60_000))
        ladder = LadderDirector(store, settings)

        async def director(handle):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(ladder, handle)
                with trio.fail_after(10):
                    while not ladder.sessions_noted(handle):
                        await trio.sleep(0.01)
                before = store.stats.transactions
                # The first write of arrivals is held until every bot is connected, so the test does not
                # depend on how fast this machine makes the others arrive: all that came meanwhile must
                # then be noted together, not in a write each.
                gate = threading.Event()
                touch = store.touch_bot

                def held_touch(name, version):
                    gate.wait(20)
                    return touch(name, version)

                store.touch_bot = held_touch
                bots = [RawBot(handle.port, hello(f"crowd{i:02d}", games=[ruleset])) for i in range(bots_wanted)]
                with trio.fail_after(20):
                    while len(handle.sessions()) < bots_wanted:
                        await trio.sleep(0.01)
                gate.set()
                with trio.fail_after(20):  # every arrival is in the store
                    while not ladder.sessions_noted(handle):
                        await trio.sleep(0.01)
                noted = store.stats.transactions - before
                names = {b["name"] for b in store.list_bots()}
                ladder.abort_now("test done")
                for bot in bots:
                    await blocking(bot.close)
                return noted, names

        noted, names = serve(director, max_games_per_bot=8, max_connections=64)
    try:
        assert names >= {f"crowd{i:02d}" for i in range(bots_wanted)}
        # The held write, one for everyone who arrived meanwhile, and a game's start or two: a write per
        # arrival was 40 or more.
        assert noted <= 5, noted
    finally:
        store.close()
