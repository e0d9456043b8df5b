"""A bot's "last seen" (`arena bots list`, the store's `list_bots` and `bot_versions`, which the web view shows):
the store's side, on SQLite and on a real PostgreSQL.  The ladder's side (a connected bot noted as seen every
`seen_s`) is tests/ladder/test_bots_seen.py."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

from arena.ladder.store import LadderStore, SeatRecord


def at(base: datetime, seconds: float) -> str:
    return (base + timedelta(seconds=seconds)).isoformat(timespec="milliseconds")


def test_note_seen_moves_last_seen_forward_once_per_window_and_creates_no_bot(db, arena_here):
    connected = datetime.now(timezone.utc) - timedelta(minutes=10)
    store = LadderStore.open(db, recover=False)
    try:
        for name in ("slow", "idle"):
            store.touch_bot(name, "1")  # the arrival `arena serve` notes; then dated ten minutes back
            store.backend.run("UPDATE bots SET first_seen = ?, last_seen = ? WHERE name = ?",
                              (at(connected, 0), at(connected, 0), name))
        # connected at +0 and still there at +114 (the note of a host it stays connected to)
        assert store.note_seen(["slow", "nobody"], at=at(connected, 114)) == 1
        bots = {bot["name"]: bot for bot in store.list_bots()}
        assert "nobody" not in bots  # only connected bots are noted, and they have a row
        assert bots["slow"]["last_seen"] == at(connected, 114) and bots["slow"]["first_seen"] == at(connected, 0)
        assert bots["idle"]["last_seen"] == at(connected, 0)
        # another host, which the bot is connected to as well, a moment later: already noted within its window
        assert store.note_seen(["slow"], at=at(connected, 120), unless_since=at(connected, 90)) == 0
        assert store.note_seen(["slow"], at=at(connected, 200), unless_since=at(connected, 170)) == 1
        assert store.note_seen(["slow"], at=at(connected, 150)) == 0  # never moved back
        assert {b["name"]: b for b in store.list_bots()}["slow"]["last_seen"] == at(connected, 200)
        assert store.note_seen([]) == 0
        many = [f"bot{i:04d}" for i in range(1100)]  # more names than one statement takes
        for name in many:
            store.touch_bot(name)
        assert store.note_seen(many, at=at(connected, 900)) == 1100
    finally:
        store.close()
    listed = arena_here("bots", "list", "--db", db, "--json")
    assert listed.status == 0, listed.err
    seen = {bot["name"]: bot["last_seen"] for bot in json.loads(listed.out)}
    assert seen["slow"] == at(connected, 200) and seen["idle"] == at(connected, 0) and seen["bot0999"] == at(connected, 900)


def test_a_versions_last_seen_is_its_last_games_end_not_its_start(db):
    """`bot_versions` (the web view's bot page): a version was last seen when its last finished game ended, or
    at the start of a later game still running or aborted (an abort's time is when another host closed it)."""
    base = datetime.now(timezone.utc) - timedelta(minutes=10)
    store = LadderStore.open(db, recover=False)
    try:
        store.game_started("g1", "moumou", {}, 1, "s1", 0, ["slow", "other"], started_at=at(base, 1),
                           versions=["1", "1"])
        store.game_ended("g1", "finished", [SeatRecord(0, "slow", 1, 0), SeatRecord(1, "other", 2, 4)],
                         ended_at=at(base, 114), decisions=90)
        store.game_started("g2", "moumou", {}, 2, "s2", 0, ["slow", "other"], started_at=at(base, 200),
                           versions=["2", "1"])
        store.abort_running("host B stopped heartbeating")
        versions = {v["version"]: v for v in store.bot_versions("slow")}
        assert versions["1"]["first_seen"] == at(base, 1) and versions["1"]["last_seen"] == at(base, 114)
        assert versions["2"]["last_seen"] == at(base, 200)
    finally:
        store.close()


def test_a_host_whose_clock_is_fast_dates_no_bot_in_the_future_and_a_pinned_row_heals(db, monkeypatch):
    """The red team's clock skew (attacks/a6_resume_other_host_and_skew.py): a host of a shared ladder whose clock is
    ten minutes fast noted its bots with its own time, and the never-back rule of `note_seen` then kept every
    other host from moving ``last_seen`` for those ten minutes.  A bot's arrival and its notes are dated by the
    database's clock now (the one clock every host shares), whatever the host's; a row left in the future (by
    such a host of an earlier release) is written again by the next note."""
    from arena.ladder.store import ladder_store

    fast = lambda: (datetime.now(timezone.utc) + timedelta(minutes=10)).isoformat(timespec="milliseconds")  # noqa: E731
    monkeypatch.setattr(ladder_store, "utc_now", fast)  # this host's clock, as the store would read it
    store = LadderStore.open(db, recover=False)
    try:
        def database_now() -> str:  # (the one process's clock on SQLite)
            if db.startswith("postgresql://"):
                return store.backend.rows("""SELECT to_char(clock_timestamp() AT TIME ZONE 'UTC', """
                                          """'YYYY-MM-DD"T"HH24:MI:SS.MS"+00:00"')""")[0][0]
            return datetime.now(timezone.utc).isoformat(timespec="milliseconds")

        def seen(name: str) -> tuple[str, str]:
            bot = {bot["name"]: bot for bot in store.list_bots()}[name]
            return bot["first_seen"], bot["last_seen"]

        before = database_now()
        store.touch_bot("skewbot", "1")
        store.note_seen(["skewbot"])
        first, last = seen("skewbot")
        assert before <= first <= last <= database_now(), (before, first, last)
        store.note_seen(["skewbot"], unless_within_s=30)  # the director's periodic note (`SessionNotes.note_seen`)
        assert before <= seen("skewbot")[1] <= database_now()
        # A row pinned ten minutes ahead (what the fast host wrote before): the next note brings it back to now.
        store.backend.run("UPDATE bots SET last_seen = ? WHERE name = 'skewbot'", (fast(),))
        assert store.note_seen(["skewbot"], unless_within_s=30) == 1
        assert before <= seen("skewbot")[1] <= database_now()
        assert store.note_seen(["skewbot"], unless_within_s=30) == 0  # and then once a window, as before
    finally:
        store.close()
