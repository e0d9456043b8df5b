"""What the battery reads back from the arena: progress while it runs, the ladder's records afterwards.

* `ProgressWatch` polls ListGames and keeps, per running game, the longest
  time its decision count stood still: a game that stands still longer than
  the time model allows one decision is *stuck*.
* `LadderRecord` is the ladder database after the server has stopped (read
  through `LadderStore`'s public calls): games told finished but not
  finished there, or whose replay is missing, are *lost*; the replays give
  the think times and the deals.  A replay is read where the ladder keeps
  it: in the database (`LadderStore.replay_text`, every ladder since the
  replays moved there) or, for an older database, the file its row names.
"""

from __future__ import annotations

import asyncio
import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Mapping, Optional

import grpc

from arena.ladder.store import GameRecord, LadderStore
from arena.replay.reader import Replay, load, parse
from mau_arena_sdk.wire import pb, rpc

from .players import EndedGame
from .stream import CHANNEL_OPTIONS


def percentile(values: list[float], share: float) -> Optional[float]:
    """Nearest-rank percentile (``share`` in 0..1); None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


@dataclass
class Stall:
    game_id: str
    players: tuple[str, ...]
    seconds: float


class ProgressWatch:
    """Polls ListGames(live_only) every ``every_s`` and records how long each game's decisions stood still."""

    def __init__(self, address: str, every_s: float = 0.5) -> None:
        self.address = address
        self.every_s = every_s
        self.polls = 0
        self.failures = 0
        self._seen: dict[str, tuple[int, float]] = {}   # game id -> (decisions, monotonic time it changed)
        self.longest: dict[str, Stall] = {}

    async def run(self, stop: asyncio.Event) -> None:
        async with grpc.aio.insecure_channel(self.address, options=CHANNEL_OPTIONS) as channel:
            stub = rpc.ArenaStub(channel)
            while not stop.is_set():
                try:
                    reply = await stub.ListGames(pb.ListGamesRequest(live_only=True, limit=1000), timeout=5)
                    self._note(reply.games, time.monotonic())
                    self.polls += 1
                except grpc.RpcError:
                    self.failures += 1
                try:
                    await asyncio.wait_for(stop.wait(), self.every_s)
                except asyncio.TimeoutError:
                    pass

    def _note(self, games: Iterable[pb.GameSummary], now: float) -> None:
        for game in games:
            if game.status != "running":
                continue
            seen = self._seen.get(game.game_id)
            if seen is None or seen[0] != game.decisions:
                self._seen[game.game_id] = seen = (game.decisions, now)
            still = now - seen[1]
            if still > self.longest.get(game.game_id, Stall("", (), 0.0)).seconds:
                self.longest[game.game_id] = Stall(game.game_id, tuple(game.players), still)

    def stuck(self, after_s: float) -> list[Stall]:
        return sorted((s for s in self.longest.values() if s.seconds > after_s), key=lambda s: -s.seconds)

    def longest_involving(self, bot: str) -> float:
        return max((s.seconds for s in self.longest.values() if bot in s.players), default=0.0)


@dataclass
class LadderRecord:
    """The ladder database of one run, read after its server stopped."""

    games: list[GameRecord]
    bots: list[dict] = field(default_factory=list)
    #: game id -> its replay, or why it could not be read (no entry: none stored anywhere)
    replays: dict[str, "Replay | str"] = field(default_factory=dict)

    @classmethod
    def read(cls, db: Path) -> "LadderRecord":
        if not db.exists():
            return cls([])
        store = LadderStore.open(db, recover=False)
        try:
            games = store.games()
            replays = {}
            for game in games:
                replay = _replay_of(store, game)
                if replay is not None:
                    replays[game.id] = replay
            return cls(games, store.list_bots(), replays)
        finally:
            store.close()

    def replay(self, game_id: str) -> Optional[Replay]:
        found = self.replays.get(game_id)
        return found if isinstance(found, Replay) else None

    def by_id(self) -> dict[str, GameRecord]:
        return {g.id: g for g in self.games}

    def lost(self, told: Iterable[EndedGame]) -> list[tuple[str, str]]:
        """Games some bot was told had finished that are not finished in the database, or lack their replay."""
        rows = self.by_id()
        problems = []
        for game_id in sorted({e.game_id for e in told if e.finished}):
            row = rows.get(game_id)
            if row is None:
                problems.append((game_id, "no row in the database"))
            elif row.status != "finished":
                problems.append((game_id, f"status {row.status!r} in the database"))
            elif game_id not in self.replays:
                problems.append((game_id, "replay missing (neither in the database nor a file)"))
            elif isinstance(self.replays[game_id], str):  # an unreadable replay is as lost as a missing one
                problems.append((game_id, f"replay unreadable: {self.replays[game_id]}"))
            elif not self.replays[game_id].complete:
                problems.append((game_id, "replay has no result line"))
        return problems

    def strikes(self, bot: str) -> tuple[int, int]:
        """(strikes, forfeits) of ``bot`` in every game the database holds: what the arena charged it,
        whether or not the bot was still connected to hear of it."""
        seats = [s for g in self.games for s in g.seats if s.bot == bot]
        return sum(s.strikes for s in seats), sum(bool(s.forfeited) for s in seats)

    def think_ms(self, bots: set[str]) -> list[int]:
        """Every decision's think time, as the arena measured it, in finished games among ``bots`` only."""
        times: list[int] = []
        for game in self.games:
            replay = self.replay(game.id)
            if game.status != "finished" or replay is None or not game.seats:
                continue
            if not {s.bot for s in game.seats} <= bots:
                continue
            times += [d.think_ms for d in replay.decisions]
        return times

    def deal_hits(self, bot: str, first_hands: Mapping[str, tuple[str, ...]]) -> tuple[int, int]:
        """(games where an opponent of ``bot`` was dealt cards ``bot`` had held in an earlier game, games played).

        ``first_hands``: the hand ``bot`` recorded at its first decision of each game; it may hold
        more than the deal (cards drawn before that decision), so a deal within a remembered hand is
        a hit.  Opponents' deals come from the replays (the seed re-simulated); games count in the
        order they started, and only those with at least one decision.
        """
        hits = played = 0
        earlier: list[frozenset[str]] = []
        for game in sorted(self.games, key=lambda g: (g.started_at, g.id)):
            replay = self.replay(game.id)
            if replay is None:
                continue
            try:
                names = replay.header.names
                if bot not in names or not replay.decisions:
                    continue
                deal = replay.new_state()
            except Exception:
                continue
            played += 1
            opponents = [frozenset(deal.observation(seat)["hand"]) for seat, name in enumerate(names) if name != bot]
            if any(hand and hand <= seen for hand in opponents for seen in earlier):
                hits += 1
            if game.id in first_hands:
                earlier.append(frozenset(first_hands[game.id]))
        return hits, played

    def control_characters(self) -> list[str]:
        """Bot names or versions in the database that carry control characters (shown escaped)."""
        found = []
        for bot in self.bots:
            for key in ("name", "version"):
                text = str(bot.get(key) or "")
                if any(ord(c) < 32 or ord(c) == 127 for c in text):
                    found.append(f"{key} {text!r}")
        return found


def _replay_of(store: LadderStore, game: GameRecord) -> "Replay | str | None":
    """The game's replay from the database, else from the file its row names; the error's text if it is
    there but unreadable; None if it is in neither place."""
    try:
        text = store.replay_text(game.id)
        if text is not None:
            return parse(text, f"{game.id} (in the database)")
        if game.replay_path and Path(game.replay_path).is_file():
            return load(game.replay_path)
    except Exception as error:  # noqa: BLE001 - a damaged replay is reported as lost, not raised
        return str(error) or type(error).__name__
    return None
