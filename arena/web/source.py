"""Where the web pages' data comes from, and what each kind of reader may see.

`WebSource` answers every question a page asks, from the ladder database
and the replay folder (a replay not in this host's folder is read from the
database, where a PostgreSQL ladder keeps every host's: `arena.ladder.store.replays`), plus, when it runs beside a live arena, from that
arena's own state (`LiveFeed` over the server's live-game registry, the
director's latest standings).  It is the one place that decides what may
be shown:

* a running game only in its public form: the spectator observation and
  each decision as the server's ``Spectate`` call sends it;
* a replay's seat and omniscient views only once the game has ended; the
  frames come from `arena.replay.render.FrameBuilder`, the terminal
  viewer's projection, so a seat sees exactly what it saw at the table;
* nothing from the database that a spectator could not know while the
  game runs (the seed is never served).

Errors a reader can cause (an unknown game, a bad view) are `NotFound` and
`BadRequest`, which the API turns into a 4xx with the message.
"""

from __future__ import annotations

import asyncio
import json
import math
import threading
import time
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Optional, Sequence

from arena.ladder import ranking
from arena.ladder.store import GameRecord, LadderStore, is_postgres_url
from arena.web.times import api_time

MAX_LIMIT = 500
#: How long one read of a shared ladder's hosts answers every reader (seconds): the read looks at PostgreSQL's
#: lock table (``pg_locks``, which briefly holds up every lock taken meanwhile), so a page's readers share it.
HOSTS_FRESH_S = 2.0


class NotFound(LookupError):
    """No such game, bot or ruleset."""


class BadRequest(ValueError):
    """A parameter the reader got wrong."""


class NotYet(PermissionError):
    """Asked for what may be shown only once the game has ended."""


class Busy(RuntimeError):
    """Too many replays are being rebuilt, or games watched, for readers right now (`arena.rebuilds`,
    `arena.server.live.Spectators`): try again."""


@dataclass(frozen=True)
class Standing:
    rank: int
    bot: str
    rating: float
    ci: float
    games: int
    wins: int
    timeouts: int
    strikes: int
    connected: bool
    errors: int = 0

    def to_dict(self) -> dict[str, Any]:
        finite = math.isfinite(self.ci)
        score = ranking.rank_score(self.rating, self.ci)
        return {
            "rank": self.rank, "bot": self.bot, "rating": round(self.rating, 1),
            "ci_low": round(self.rating - self.ci, 1) if finite else None,
            "ci_high": round(self.rating + self.ci, 1) if finite else None,
            "rank_score": round(score, 1) if math.isfinite(score) else None,
            "provisional": ranking.provisional(self.games), "games": self.games, "wins": self.wins, "timeouts": self.timeouts, "strikes": self.strikes,
            "errors": self.errors, "connected": self.connected,
        }


class LiveFeed:
    """The running arena's live games (``arena.server.live.LiveGames``), read on the arena's loop."""

    def __init__(self, live: Any, connected: Callable[[], Iterable[str]] = lambda: ()) -> None:
        self.live = live
        self.connected = connected

    def running(self, ruleset: str = "") -> list[dict[str, Any]]:
        return [summary_dict(s) for s in self.live.summaries(live_only=True, ruleset=ruleset, limit=MAX_LIMIT)]

    def game(self, game_id: str) -> Any:
        return self.live.get(game_id)

    def room_refusal(self, reader: Any) -> str:
        """Why ``reader`` may not watch one more game now; "" when it may."""
        return self.live.spectators.refusal(str(reader or ""))

    def has_room(self, reader: Any) -> bool:
        return not self.room_refusal(reader)

    def admit(self, reader: Any) -> Callable[[], None]:
        """A place for ``reader`` (an address) among the arena's watching streams, shared with its
        Spectate calls (`arena.server.live.Spectators`); returns the call that gives it back.  Raises
        `Busy` when there is none (in all, or for this address)."""
        from arena.server.streambudget import Crowded

        spectators = self.live.spectators
        address = str(reader or "")
        try:
            spectators.enter(address)
        except Crowded as crowded:
            raise Busy(str(crowded)) from None
        return lambda: spectators.leave(address)

    async def events(self, game_id: str, follow: bool):
        """Every public event of a live game so far, then (``follow``) each new one until it ends: in batches
        (lists), the backlog as one and then whatever arrived together, so that a stream writes the backlog
        of a long game once, not an event at a time (a reader that hung up was written hundreds of events
        before its going was noticed, each logged by asyncio)."""
        game = self.live.get(game_id)
        if game is None:
            raise NotFound(f"no live game {game_id!r} on this arena")
        queue: Optional[asyncio.Queue] = None
        if follow and not game.over:
            queue = asyncio.Queue()
            game.watchers.add(queue)
        try:
            backlog = [spectator_event_dict(event) for event in game.backlog()]
            if backlog:
                yield backlog
            while queue is not None:
                arrived = [await queue.get()]
                while not queue.empty() and arrived[-1] is not None:
                    arrived.append(queue.get_nowait())
                ended = arrived[-1] is None
                batch = [spectator_event_dict(event) for event in arrived if event is not None]
                if batch:
                    yield batch
                if ended:
                    return
        finally:
            if queue is not None:
                game.watchers.discard(queue)


class WebSource:
    """Every question the pages and the API ask, answered read-only."""

    def __init__(self, db: "str | Path", replays: "str | Path | None" = None, live: LiveFeed | None = None,
                 standings: Callable[[str], Sequence[Any]] | None = None,
                 rulesets: Callable[[], Sequence[str]] | None = None, rebuilds: Any = None) -> None:
        """``rebuilds``: the process's `arena.rebuilds.Rebuilds` budget, shared with the
        server's Spectate when the pages run beside a ladder; a budget of its own otherwise."""
        from arena.rebuilds import Rebuilds

        self.db_path = str(db)
        self.replays = Path(replays) if replays is not None else None
        self.live = live
        self._standings = standings
        self._rulesets = rulesets
        self._store: LadderStore | None = None
        self._store_lock = threading.Lock()
        self.rebuilds = rebuilds if rebuilds is not None else Rebuilds()
        self._own_rebuilds = rebuilds is None  # closed with the source; a shared one belongs to the server
        self._hosts_lock = threading.Lock()
        self._hosts_read: tuple[float, list[dict[str, Any]]] | None = None  # (monotonic time, the answer)

    # ------------------------------------------------------------ the database

    @property
    def store(self) -> LadderStore:
        with self._store_lock:
            if self._store is None:
                if self.db_path != ":memory:" and not is_postgres_url(self.db_path) and not Path(self.db_path).exists():
                    raise NotFound(f"no ladder database at {self.db_path}")
                # a reader: never recovers, never creates nor migrates (an older schema is refused in one line)
                self._store = LadderStore.open(self.db_path, recover=False, upgrade=False)
            return self._store

    def close(self) -> None:
        with self._store_lock:
            if self._store is not None:
                self._store.close()
                self._store = None
        if self._own_rebuilds:
            self.rebuilds.close()

    # ------------------------------------------------------------ rulesets and standings

    @property
    def shared(self) -> bool:
        """A ladder several hosts share (PostgreSQL): this view must show every host's part of it."""
        return is_postgres_url(self.db_path)

    def rulesets(self) -> list[dict[str, Any]]:
        """What this arena schedules first (beside a ladder), then, from the database, what the ladder has played
        (most games first) and, on a shared ladder, what its live hosts are playing now: every host's web view
        lists the same ladder, whatever its own ``--game`` list.  (A SQLite ladder's `arena serve --web` lists its
        own schedule: it is the only host.)"""
        from arena import games

        names = list(self._rulesets()) if self._rulesets else []
        if self._rulesets is None or self.shared:
            names += self.store.rulesets_played()
            if self.shared:
                names += self.store.rulesets_in_play()
        rows = []
        for name in dict.fromkeys(names):
            try:
                title = games.ruleset_info(name).title
            except Exception:  # a database from a newer version may name a ruleset this one lacks
                title = name
            rows.append({"name": name, "title": title})
        return rows

    def standings(self, ruleset: str) -> list[dict[str, Any]]:
        """The ruleset's standings: the ladder's own (the director's) for a ruleset this arena schedules, else the fit
        from the database (`_fit`), so a ruleset another host of a shared ladder schedules is ranked here too."""
        self._known_ruleset(ruleset)
        connected = set(self.live.connected()) if self.live else set()
        if self._standings is not None and (self._rulesets is None or ruleset in self._rulesets()):
            rows = self._standings(ruleset)
        else:
            rows = self._fit(ruleset)
        return [Standing(r.rank, r.bot, r.rating, r.ci, r.games, r.wins, r.timeouts, r.strikes,
                         r.bot in connected, r.errors).to_dict() for r in rows]

    def _fit(self, ruleset: str) -> list[Any]:
        """The Bradley-Terry fit from the database, refitted (in the bounded rebuild budget) only when a
        game has finished since."""
        from arena.ladder.standings import compute_standings

        finished = self.store.count_games(ruleset, "finished")
        return self._for_readers(("standings", ruleset, finished), lambda: compute_standings(self.store, ruleset))

    def _known_ruleset(self, ruleset: str) -> None:
        from arena import games

        if ruleset not in games.rulesets():
            raise NotFound(f"unknown ruleset {ruleset!r}; this arena knows {', '.join(games.rulesets())}")

    # ------------------------------------------------------------ hosts

    def hosts(self, every: bool = False) -> tuple[list[dict[str, Any]], int]:
        """The hosts of a shared ladder, live ones first, with their state and the games each runs now
        (`arena.ladder.store.host_list`), and how many are left out: those stopped or dead for more than a day
        unless ``every`` (`host_list.recent`); ([], 0) on SQLite, whose one host is the `arena serve` that owns
        the file.  One read answers every reader for `HOSTS_FRESH_S`."""
        from arena.ladder.store.host_list import recent

        if not self.shared:
            return [], 0
        with self._hosts_lock:
            now = time.monotonic()
            if self._hosts_read is None or now - self._hosts_read[0] >= HOSTS_FRESH_S:
                self._hosts_read = (now, self.store.hosts())
            rows, left_out = recent(self._hosts_read[1], every)
            return [row.to_dict() for row in rows], left_out

    # ------------------------------------------------------------ games

    def games(self, bot: str = "", ruleset: str = "", status: str = "", limit: int = 50,
              offset: int = 0) -> list[dict[str, Any]]:
        if status and status not in ("running", "finished", "aborted"):
            raise BadRequest(f"status must be running, finished or aborted, not {status!r}")
        if ruleset:
            self._known_ruleset(ruleset)
        if not 1 <= limit <= MAX_LIMIT:
            raise BadRequest(f"limit must be 1..{MAX_LIMIT}")
        if offset < 0:
            raise BadRequest("offset must be 0 or more")
        rows = self.store.games(ruleset=ruleset or None, status=status or None, bot=bot or None, limit=limit,
                                offset=offset)
        return [game_dict(g) for g in rows]

    def running(self) -> list[dict[str, Any]]:
        """The whole ladder's running games, newest first: this arena's own from its live state (their
        events stream here), every other host's from the database (PostgreSQL), with the host that runs it."""
        here = self.live.running() if self.live is not None else []
        if self.live is not None and not self.shared:
            return here  # a SQLite ladder has one host, this one: its running games are the live ones
        mine = {game["game_id"] for game in here}
        others = [record for record in self.store.games(status="running", limit=MAX_LIMIT) if record.id not in mine]
        hosts = self.store.running_on([record.id for record in others]) if others else {}
        listed = here + [running_dict(record, hosts.get(record.id)) for record in others]
        listed.sort(key=lambda game: game["started_at"] or "", reverse=True)
        return listed[:MAX_LIMIT]

    def game(self, game_id: str) -> dict[str, Any]:
        record = self._record(game_id)
        found = game_dict(record)
        found["live"] = bool(self.live and self.live.game(game_id) and not self.live.game(game_id).over)
        elsewhere = self.running_on(game_id) if record.status == "running" and not found["live"] else None
        found["running_on"] = elsewhere.to_dict() if elsewhere is not None else None
        return found

    def running_on(self, game_id: str) -> Any:
        """The host of a shared ladder that runs this game, when it is running and not here (a
        `arena.ladder.store.running_on.RunningOn`), else None: its live events are only there."""
        if self.live is not None and self.live.game(game_id) is not None:
            return None
        return self.store.running_on([game_id]).get(game_id)

    def _record(self, game_id: str) -> GameRecord:
        record = self.store.game(game_id)
        if record is None:
            raise NotFound(f"no game {game_id!r} in this ladder")
        return record

    # ------------------------------------------------------------ replays

    def replay(self, game_id: str, view: str = "spectator", reader: Any = None) -> dict[str, Any]:
        """Every frame of a finished game from one view (``spectator``, ``omniscient`` or ``seat:N``).

        ``reader``: the asker's address, counted against its share of the rebuild budget.
        """
        return json.loads(self.replay_json(self.replay_record(game_id, view), view, reader).result())

    def replay_record(self, game_id: str, view: str) -> GameRecord:
        """The ended game whose ``view`` a reader asks for (a database read): `NotFound`, `NotYet` (still
        running) or `BadRequest` (a view it has not) before any of the costly work is asked for."""
        from arena.web.frames import choose_view

        record = self._record(game_id)
        if record.status == "running":
            raise NotYet(f"game {game_id} is still running: only its live public view can be watched "
                         f"(/api/v1/games/{game_id}/events)")
        choose_view(view, len(record.seats))
        return record

    def replay_json(self, record: GameRecord, view: str, reader: Any = None) -> "Future[bytes]":
        """The answer to a replay request, encoded (`arena.web.frames.replay_json`), as a future: built in the
        process's bounded rebuild budget, its work in the budget's worker process, and remembered per game and
        view.  Raises `Busy` at once when the budget (or ``reader``'s share of it) is taken."""
        from arena.web.frames import replay_json

        def build() -> bytes:
            return self.rebuilds.run_in_worker(replay_json, self._replay_of(record), record.id, record.ruleset, view)

        return self._submit(("replay", record.id, view), build, reader)

    def _replay_of(self, record: GameRecord) -> "str | bytes":
        """Where the worker reads the game: its file's path in this host's folder, else the database's text."""
        from arena.ladder.store import StoredReplayError

        path = self._replay_path(record)
        if path is not None:
            return str(path)
        try:  # another host's game: its replay is in the database
            text = self.store.replay_text(record.id)
        except StoredReplayError as error:
            raise NotFound(f"the replay of {record.id} cannot be read: {error}") from None
        if text is None:
            raise NotFound(f"no replay of game {record.id} here (not in this host's replay folder, "
                           "not in the database)")
        return text

    def _replay_path(self, record: GameRecord) -> Path | None:
        """The game's replay file in this host's folder, or None."""
        if record.replay_path:
            path = Path(record.replay_path)
            if not path.is_absolute() and self.replays is not None and not path.exists():
                path = self.replays.parent / path
            if path.exists():
                return path
        if self.replays is not None:
            for found in self.replays.glob(f"*/{record.id}.jsonl*"):
                return found
        return None

    # ------------------------------------------------------------ bots

    def bot(self, name: str) -> dict[str, Any]:
        known = {b["name"]: b for b in self.store.list_bots()}
        per_ruleset = self.store.bot_totals(name)
        if name not in known and not per_ruleset:
            raise NotFound(f"no bot {name!r} in this ladder")
        info = known.get(name, {})
        connected = bool(self.live and name in set(self.live.connected()))
        return {
            "name": name, "registered": bool(info.get("registered")), "owner": info.get("owner"),
            "version": info.get("version") or "",
            "first_seen": api_time(info.get("first_seen")), "last_seen": api_time(info.get("last_seen")),
            "connected": connected, "rulesets": per_ruleset,
            "versions": [{**row, "first_seen": api_time(row.get("first_seen")), "last_seen": api_time(row.get("last_seen"))}
                         for row in self.store.bot_versions(name)],
        }

    def rating_history(self, name: str, ruleset: str, reader: Any = None) -> list[dict[str, Any]]:
        """The bot's live Elo after each of its finished games in ``ruleset``, oldest first.

        Every bot's history comes from one pass over all the ruleset's results, done in the
        bounded rebuild budget and remembered until another game finishes.
        """
        self._known_ruleset(ruleset)
        finished = self.store.count_games(ruleset, "finished")
        histories = self._for_readers(("ratings", ruleset, finished), lambda: self._histories(ruleset), reader)
        return list(histories.get(name, ()))

    def _histories(self, ruleset: str) -> dict[str, list[dict[str, Any]]]:
        from arena.ladder.ratings import LiveElo

        elo = LiveElo()
        histories: dict[str, list[dict[str, Any]]] = {}
        for game_id, ended_at, placements in self.store.finished_placements(ruleset):
            elo.update(ruleset, placements)
            for bot in placements:
                histories.setdefault(bot, []).append(
                    {"game_id": game_id, "at": api_time(ended_at), "rating": round(elo.rating(ruleset, bot), 1)})
        return histories

    def _for_readers(self, key: Any, build: Callable[[], Any], reader: Any = None) -> Any:
        """``build()`` in the process's bounded rebuild budget (`arena.rebuilds`), remembered by ``key``;
        a ``reader`` (an address) may have only its share of the budget's slots."""
        return self._submit(key, build, reader).result()

    def _submit(self, key: Any, build: Callable[[], Any], reader: Any = None) -> "Future[Any]":
        from arena import rebuilds

        try:
            return self.rebuilds.submit(key, build, reader)
        except rebuilds.Busy as busy:
            raise Busy(f"the server is rebuilding replays and ratings for other readers: {busy}") from None


# ---------------------------------------------------------------- records as JSON


def game_dict(record: GameRecord) -> dict[str, Any]:
    """A game's public summary (never the seed: it would let anyone deal the hidden cards)."""
    return {
        "game_id": record.id, "ruleset": record.ruleset, "options": record.options, "status": record.status,
        "reason": record.reason, "started_at": api_time(record.started_at), "ended_at": api_time(record.ended_at),
        "decisions": record.decisions,
        "seats": [{"seat": s.seat, "bot": s.bot, "placement": s.placement, "points": s.points,
                   "strikes": s.strikes, "timeouts": s.timeouts, "forfeited": s.forfeited, "errors": s.errors}
                  for s in record.seats],
    }


def summary_dict(summary: Any) -> dict[str, Any]:
    """A game live on this arena, as `/api/v1/live` lists it (docs/web-api.md)."""
    return {"game_id": summary.game_id, "ruleset": summary.ruleset, "players": list(summary.players),
            "status": summary.status, "started_at": api_time(summary.started_at), "decisions": summary.decisions,
            "live": True, "running_on": None}


def running_dict(record: GameRecord, running_on: Any = None) -> dict[str, Any]:
    """A running game of the ladder that is not live here, in `summary_dict`'s shape: ``running_on`` the
    host of a shared ladder that runs it (None where the database does not say); ``decisions`` unknown."""
    return {"game_id": record.id, "ruleset": record.ruleset, "players": [s.bot for s in record.seats],
            "status": record.status, "started_at": api_time(record.started_at), "decisions": None,
            "live": False, "running_on": running_on.to_dict() if running_on is not None else None}


def spectator_event_dict(event: Any) -> dict[str, Any]:
    """One ``SpectatorEvent`` as JSON, exactly what the ``Spectate`` call sends, details parsed."""
    from google.protobuf.json_format import MessageToDict

    data = MessageToDict(event, preserving_proto_field_name=True, always_print_fields_with_no_presence=True)
    view = data.get("view")
    if view is not None:
        if view.get("details_json"):
            view["details"] = json.loads(view.pop("details_json"))
        data["facts"] = live_facts(event.view)
    return data


def live_facts(view: Any) -> list[list[str]]:
    """The table's facts of a public view in the game's own terms, as the terminal viewers tell them."""
    from arena.replay.facts import describe
    from mau_arena_sdk.observation import Observation

    observation = Observation.from_pb(view).to_dict()
    names = [seat.name for seat in view.seats]
    public = {k: v for k, v in observation.items() if k not in ("seats", "statuses", "players")}
    return [[label, text.plain] for label, text in describe(public, names)]
