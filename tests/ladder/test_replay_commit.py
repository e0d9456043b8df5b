"""A ladder game's replay is committed with its result, in one transaction, before any seat is told.

The real `LadderDirector` and the real match runner (`play_game`, in-process seats, no sockets)
on SQLite and on a real PostgreSQL: when a seat hears that its game ended, the database already
holds the game's result and its whole replay saying the same, and no replay file exists.  Aborted games (an abort
mid-game, a seat gone before the game) have theirs too, with the abort's reason.  At the store,
on SQLite and on a real PostgreSQL: a result whose replay cannot be written is not committed
either (one transaction), and a replay file of an older version is still found and read.
"""

from __future__ import annotations

import pytest
import trio
from test_deals import FakeHandle

import toy_ladder_game
from arena.ladder.director import LadderDirector, LadderSettings
from arena.ladder.store import LadderStore, PackedReplay, SeatRecord
from arena.match.local import LocalSeat
from arena.match.runner import GameStop, play_game
from arena.replay.reader import parse
from arena.server.bot_session import SessionInfo
from arena.server.sessions import SeatUnavailable

GAMES = 9


@pytest.fixture(autouse=True)
def ruleset():
    with toy_ladder_game.registered() as name:
        yield name


class FirstLegal:
    """Plays the first legal card; the one whose ``abort`` is set aborts its game at its second turn."""

    def __init__(self) -> None:
        self.turns = 0
        self.abort: GameStop | None = None

    def act(self, turn):
        self.turns += 1
        if self.abort is not None and self.turns == 2:
            self.abort.abort("test: taken for dead")
        return 0


class Heard:
    """A seat that, when told its game ended, reads what the database holds about it right then."""

    def __init__(self, seat: LocalSeat, store: LadderStore, heard: dict) -> None:
        self.seat, self.store, self.heard = seat, store, heard

    def __getattr__(self, name):
        return getattr(self.seat, name)

    async def game_ended(self, end):
        game = self.store.game(end.game_id)
        text = self.store.replay_text(end.game_id)
        self.heard.setdefault(end.game_id, []).append((end.outcome.status, game.status if game else None, text))
        await self.seat.game_ended(end)


class RealGames(FakeHandle):
    """Seats the director's tables in real games of the toy ruleset; the 3rd game is aborted mid-game and
    the 5th finds a seat gone."""

    def __init__(self, names, store: LadderStore) -> None:
        super().__init__(names)
        self.store = store
        self.heard: dict[str, list] = {}
        self.games = 0
        self.unavailable: list[str] = []

    def sessions(self):
        return [SessionInfo(name, f"s-{name}", "1", "0.1.0", (toy_ladder_game.NAME,), self.capacity, self.busy[name],
                            "", "") for name in self.names]

    async def play_game(self, ruleset, options, seed, seats, time_control, recorder=None, game_id="", on_result=None,
                        stop=None):
        self.games += 1
        if self.games >= GAMES:
            self.director.stop("enough games")  # (--max-games counts finished games: two here are aborted)
        if self.games == 5:
            self.unavailable.append(game_id)
            raise SeatUnavailable(f"{seats[0]} left")
        for bot in seats:
            self.busy[bot] += 1
        try:
            bots = [FirstLegal() for _ in seats]
            if self.games == 3:
                stop = bots[0].abort = GameStop()
            players = [Heard(LocalSeat(bot, name, threaded=False), self.store, self.heard)
                       for bot, name in zip(bots, seats)]
            return await play_game(toy_ladder_game.NAME, options, seed, players, time_control, game_id=game_id,
                                   recorder=recorder, on_result=on_result, stop=stop)
        finally:
            for bot in seats:
                self.busy[bot] -= 1


def test_every_seat_hears_of_an_end_whose_result_and_replay_are_committed_together(db, tmp_path):
    """On PostgreSQL the result is one server-side function's call (`game_end.END_FUNCTION`): committed all the same
    before any seat hears of it."""
    store = LadderStore.open(db)
    handle = RealGames([f"bot{i}" for i in range(4)], store)
    settings = LadderSettings(players={toy_ladder_game.NAME: 2}, replays=tmp_path / "replays",
                              handle_signals=False, refit_s=60.0, concurrency=2)
    try:
        handle.director = LadderDirector(store, settings)
        trio.run(handle.director, handle)
        games = {g.id: g for g in store.games()}
        assert sum(g.status == "finished" for g in games.values()) >= GAMES - 2
        assert handle.heard and set(handle.heard) <= set(games)
        for game_id, told in handle.heard.items():
            for status, in_store, text in told:
                assert in_store == status, (game_id, status, in_store)  # committed before the seat was told
                assert text is not None, f"game {game_id} told {status} before its replay was committed"
                replay = parse(text, f"{game_id}.jsonl")
                assert replay.status == status and replay.header.game_id == game_id
        for game in games.values():
            replay = parse(store.replay_text(game.id), f"{game.id}.jsonl")
            assert game.replay_path is None and replay.status == game.status
            if game.status == "finished":
                assert list(replay.result["placements"]) == [s.placement for s in game.seats]
                assert len(replay.decisions) == game.decisions == 6
            else:
                assert replay.result["reason"] == game.reason
        aborted = {g.reason for g in games.values() if g.status == "aborted"}
        assert "test: taken for dead" in aborted  # an abort mid-game: its replay has what was played
        mid_game = next(g for g in games.values() if g.reason == "test: taken for dead")
        assert 0 < len(parse(store.replay_text(mid_game.id), "x.jsonl").decisions) < 6
        gone = games[handle.unavailable[0]]  # a seat gone before the game: the replay is the header and the abort
        assert gone.status == "aborted" and gone.reason.startswith("seat unavailable")
        assert parse(store.replay_text(gone.id), "x.jsonl").decisions == []
        assert not list(tmp_path.rglob("*.jsonl*"))  # no replay file: the database holds them
    finally:
        store.close()


REFUSE = {
    "sqlite": ["CREATE TRIGGER refuse_replays BEFORE INSERT ON replays BEGIN SELECT RAISE(ABORT, 'refused'); END"],
    "postgresql": [
        "CREATE FUNCTION refuse_replay() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused'; END $$",
        "CREATE TRIGGER refuse_replays BEFORE INSERT ON replays FOR EACH ROW EXECUTE FUNCTION refuse_replay()",
    ],
}
ALLOW = {"sqlite": ["DROP TRIGGER refuse_replays"], "postgresql": ["DROP TRIGGER refuse_replays ON replays"]}


def test_a_result_whose_replay_cannot_be_stored_is_not_committed_either(db):
    store = LadderStore.open(db)
    try:
        store.game_started("g1", toy_ladder_game.NAME, {}, 5, "g1", 0, ["a", "b"])
        seats = [SeatRecord(seat=0, bot="a", placement=1, points=2), SeatRecord(seat=1, bot="b", placement=2, points=1)]
        replay = PackedReplay.of(b'{"type":"header"}\n')
        dialect = store.backend.dialect
        for statement in REFUSE[dialect]:
            store.backend.run(statement)
        with pytest.raises(Exception, match="refused"):
            store.game_ended("g1", "finished", seats, replay=replay)
        assert store.game("g1").status == "running" and store.replay_text("g1") is None
        assert store.rated_games(toy_ladder_game.NAME) == []
        for statement in ALLOW[dialect]:
            store.backend.run(statement)
        store.game_ended("g1", "finished", seats, replay=replay)
        assert store.game("g1").status == "finished" and store.replay_text("g1") == b'{"type":"header"}\n'
    finally:
        store.close()


def test_a_replay_file_of_an_older_ladder_is_still_read_beside_replays_in_the_database(db, tmp_path, capsys):
    """An upgraded ladder: old games name their sealed file in their row, new ones are in the database."""
    from arena.cli import main
    from arena.replay import ReplayWriter

    folder = tmp_path / "replays"
    header = {"game_id": "old", "ruleset": toy_ladder_game.NAME, "players": 2, "seed": 5, "seats": ["a", "b"],
              "started_at": "2026-11-20T10:00:00Z"}
    writer = ReplayWriter.create(folder, header)
    writer.abort("server restarted")
    store = LadderStore.open(db)
    try:
        store.game_started("old", toy_ladder_game.NAME, {}, 5, "old", 0, ["a", "b"], replay_path=str(writer.path))
        store.game_ended("old", "aborted", [], reason="server restarted", replay_path=str(writer.path))
        store.game_started("new", toy_ladder_game.NAME, {}, 6, "new", 0, ["a", "b"])
        new_text = writer.path.read_bytes().replace(b'"old"', b'"new"')
        store.game_ended("new", "aborted", [], reason="server restarted", replay=PackedReplay.of(new_text))
    finally:
        store.close()
    for game_id, expected in (("old", writer.path.read_bytes()), ("new", new_text)):
        out = tmp_path / f"{game_id}-copy.jsonl"
        assert main(["replay", game_id, "--db", db, "--replays", str(tmp_path / "elsewhere"), "--save", str(out)]) == 0
        assert out.read_bytes() == expected
        assert main(["replay", game_id, "--db", db, "--verify"]) == 0
    capsys.readouterr()
    assert main(["replay", "new", "--db", db, "--save", str(tmp_path / "new-copy.jsonl")]) == 2  # never overwritten
    assert "exists" in capsys.readouterr().err


def test_the_director_serves_a_stored_replay_and_an_older_ladders_file(tmp_path):
    """`Handle.replay_provider` (Spectate of an ended game): the database first, then the file a row names."""
    from arena.replay import ReplayWriter

    folder = tmp_path / "replays"
    writer = ReplayWriter.create(folder, {"game_id": "old", "ruleset": toy_ladder_game.NAME, "players": 2, "seed": 5,
                                          "started_at": "2026-11-20T10:00:00Z"})
    writer.abort("server restarted")
    store = LadderStore.open(tmp_path / "ladder.db")
    try:
        store.game_started("old", toy_ladder_game.NAME, {}, 5, "old", 0, ["a", "b"])
        store.game_ended("old", "aborted", [], reason="x", replay_path=str(writer.path))
        store.game_started("new", toy_ladder_game.NAME, {}, 5, "new", 0, ["a", "b"])
        store.game_ended("new", "aborted", [], reason="x", replay=PackedReplay.of(b"stored\n"))
        director = LadderDirector(store, LadderSettings(players={toy_ladder_game.NAME: 2}, replays=folder))
        assert director.replay_text("old") == writer.path.read_bytes()
        assert director.replay_text("new") == b"stored\n"
        assert director.replay_text("none") is None
    finally:
        store.close()


def test_a_finished_game_s_replay_buffer_is_freed_without_the_cycle_collector(tmp_path):
    """Each game's `ReplayBuffer` (its whole replay) is freed when the game is done, by reference counting:
    nothing the director makes for a game holds a reference to itself.  A start `Call` whose ``after``
    referenced that call kept every game's buffer alive, as cyclic garbage, until the collector's next pass
    over an older generation (on a busy server, many seconds and many games later)."""
    import gc

    from test_deals import RULESETS

    from arena.replay.buffer import ReplayBuffer

    store = LadderStore.open(":memory:")
    try:
        director = LadderDirector(store, LadderSettings(
            players=dict(RULESETS), replays=tmp_path / "replays", max_games=20, handle_signals=False,
            refit_s=60.0, concurrency=4))
        gc.collect()
        gc.disable()
        try:
            trio.run(director, FakeHandle([f"bot{i}" for i in range(6)]))
            assert director.view.finished == 20
            assert [o for o in gc.get_objects() if isinstance(o, ReplayBuffer)] == []
        finally:
            gc.enable()
    finally:
        store.close()
