"""What the live view shows on its note line reaches an output without it (`arena serve --plain`) at once:
the database going away and coming back, said once each, not every round (`DashboardView.on_note`)."""

from __future__ import annotations

import sqlite3

import trio

from arena.ladder.dashboard import DashboardView
from arena.ladder.director import LadderDirector, LadderSettings
from arena.ladder.result_commit import DATABASE_BACK
from arena.ladder.store import LadderStore
from test_deals import FakeHandle


def test_a_result_waiting_for_the_database_is_said_once_and_so_is_its_return(tmp_path):
    store = LadderStore.open(tmp_path / "ladder.db")
    ended = store.game_ended_steps
    refused = []

    def away_twice(*args, **kwargs):  # the first result's commit finds the database away twice, then it is back
        if len(refused) < 2:
            refused.append(args[0])
            raise sqlite3.OperationalError("unable to open database file")
        return ended(*args, **kwargs)

    store.game_ended_steps = away_twice
    said: list[str] = []
    ladder = LadderDirector(store, LadderSettings(players={"duo": 2}, replays=tmp_path / "replays", max_games=3,
                                                  refit_s=60.0, concurrency=1, handle_signals=False))
    ladder.view.on_note = said.append
    try:
        summary = trio.run(ladder, FakeHandle(["a", "b"]))
        finished = [game.status for game in store.games()]
    finally:
        store.close()
    assert len(refused) == 2 and summary.finished == 3 and finished == ["finished"] * 3
    # Two refusals, one line; the return, one line; the live view's note is down again.
    assert said == ["database unreachable: 1 finished result(s) waiting to be committed; no new games until it is back",
                    DATABASE_BACK]
    assert ladder.view.note == ""


def test_a_note_is_said_once_until_its_problem_is_over_and_only_a_told_problem_is_said_over():
    said: list[str] = []
    view = DashboardView(address="", on_note=said.append)
    view.take_down("database unreachable", "back")  # nothing was told: nothing to say
    for _ in range(3):  # a cluster host tells its problem every planning round
        view.tell("database unreachable: timeout; no new games until it is back")
    view.tell("stopping (Ctrl-C; again to abort running games): letting 2 running games finish")
    view.take_down("database unreachable", "back")  # over, though another note is shown meanwhile
    view.tell("database unreachable: timeout; no new games until it is back")  # a second outage is said again
    assert said == ["database unreachable: timeout; no new games until it is back",
                    "stopping (Ctrl-C; again to abort running games): letting 2 running games finish", "back",
                    "database unreachable: timeout; no new games until it is back"]
    assert view.note == "database unreachable: timeout; no new games until it is back"
    view.take_down("database unreachable", "back")
    assert view.note == "" and said[-1] == "back"
