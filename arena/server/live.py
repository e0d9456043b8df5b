"""Games in progress and recently finished, for ListGames and Spectate.

A spectator sees only the public view (`state.observation(None)`) after each
decision, with the public events that decision made happen (the engine's
`PublicEvent`s, the same a seat's TurnRequest carries); events are kept per game so a late spectator gets the game from
its start.  Events are produced by game tasks (trio) and consumed by gRPC
handlers (asyncio) on the same thread, through plain asyncio queues.

Every watcher costs the loop the games run on one write per event (tens of
µs), so each decision of a game costs as many writes as it has watchers, and
a backlog costs one per event kept: `Spectators` bounds the watching streams
(Spectate calls, the web view's event streams) in all and per address.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict, deque
from dataclasses import dataclass, field
from typing import Any, Optional, Sequence

from arena.messages import game_ended_to_pb, observation_to_pb, public_events_fields
from arena.server.bot_session import utc_now
from arena.server.streambudget import StreamBudget
from mau_arena_sdk.wire import pb

#: A spectator this far behind is dropped rather than let its queue grow without bound.
MAX_SPECTATOR_BACKLOG = 10_000
#: Watching streams at once (Spectate calls and web event streams, live or finished games), in all and
#: per peer address.  Unbounded, 1,000 streams opened by one client on the running games of a ladder
#: cut the games finished in 20 s from 113 to 2 (each decision became 1,000 writes on the games' loop).
MAX_SPECTATORS = 64
SPECTATORS_PER_ADDRESS = 4
#: Events kept per game for late spectators; a longer game keeps its start and its latest
#: events (the gap shows in the indexes; the replay file has everything).
MAX_EVENTS_KEPT = 5_000


@dataclass
class LiveGame:
    game_id: str
    ruleset: str
    players: tuple[str, ...]
    status: str = "running"
    started_at: str = field(default_factory=utc_now)
    ended_at: str = ""
    placements: tuple[int, ...] = ()
    decisions: int = 0
    #: pb.SpectatorEvent, or (index, seat, action, Observation, public events) not converted yet: most
    #: games are never watched, so the public view is converted to protobuf only when someone asks for it.
    events: list[Any] = field(default_factory=list)
    #: How many of the engine's public events (`GameState.events`) have been published.
    public_events_seen: int = 0
    watchers: set[asyncio.Queue] = field(default_factory=set)
    #: Finished long enough ago that only the final event is kept (`LiveGames.replayable_kept`): Spectate
    #: serves it from its replay when there is one.
    trimmed: bool = False

    def summary(self) -> pb.GameSummary:
        return pb.GameSummary(
            game_id=self.game_id,
            ruleset=self.ruleset,
            players=list(self.players),
            status=self.status,
            started_at=self.started_at,
            ended_at=self.ended_at,
            placements=list(self.placements),
            decisions=self.decisions,
        )

    def event(self, position: int) -> pb.SpectatorEvent:
        """The event at ``position`` as a message (converted once, on first use)."""
        event = self.events[position]
        if not isinstance(event, pb.SpectatorEvent):
            index, seat, action, observation, public = event
            event = pb.SpectatorEvent(game_id=self.game_id, index=index, seat=seat, action=action,
                                      view=observation_to_pb(observation, self.players),
                                      events=public_events_fields(public))
            self.events[position] = event
        return event

    def backlog(self) -> list[pb.SpectatorEvent]:
        return [self.event(position) for position in range(len(self.events))]

    def publish(self, event: Any) -> None:
        self.events.append(event)
        if len(self.events) > MAX_EVENTS_KEPT:
            del self.events[1 : 1 + MAX_EVENTS_KEPT // 5]
        if not self.watchers:
            return
        event = self.event(len(self.events) - 1)
        for queue in list(self.watchers):
            if queue.qsize() > MAX_SPECTATOR_BACKLOG:
                self.watchers.discard(queue)
                queue.put_nowait(None)
            else:
                queue.put_nowait(event)

    @property
    def over(self) -> bool:
        return self.status != "running"


class Spectators(StreamBudget):
    """Watching streams held at once, in all and per peer address (`peer_address`'s form, or the web
    reader's): a `StreamBudget` (`arena.server.streambudget`) with its own wording."""

    def __init__(self, total: int = MAX_SPECTATORS, per_address: int = SPECTATORS_PER_ADDRESS) -> None:
        super().__init__(total, per_address, "watching streams")

    def address_full(self, held_here: int) -> str:
        return f"this address already watches {held_here} games (at most {self.per_address} at once); end one first"

    def all_full(self) -> str:
        return f"{self.held} games are being watched (at most {self.total} at once); try again later"


class LiveGames:
    """The registry behind ListGames and Spectate."""

    def __init__(self, finished_kept: int = 500, replayable_kept: int = 50,
                 spectators: Optional[Spectators] = None) -> None:
        #: The watching streams' budget, shared by Spectate and the web view's event streams.
        self.spectators = spectators if spectators is not None else Spectators()
        self.games: "OrderedDict[str, LiveGame]" = OrderedDict()
        self.finished_kept = finished_kept
        #: Finished games whose every event stays for late spectators (~1.5 KB per event);
        #: older ones keep only their final event (the replay file has the rest).
        self.replayable_kept = replayable_kept
        #: Finished games in the order they finished, oldest first: still listed, and still
        #: keeping every event.  Trimming pops from their fronts instead of scanning every game.
        self._listed: "deque[LiveGame]" = deque()
        self._replayable: "deque[LiveGame]" = deque()

    def start(self, game_id: str, ruleset: str, players: Sequence[str]) -> LiveGame:
        game = LiveGame(game_id, ruleset, tuple(players))
        self.games[game_id] = game
        return game

    def record(self, game: LiveGame, index: int, seat: Optional[int], action_text: str, state: Any) -> None:
        """The runner's ``on_event``: publish the public view after one decision."""
        game.decisions = max(game.decisions, int(index))
        log = getattr(state, "events", None)  # engines without public events, and test doubles
        public: tuple = ()
        if log is not None:
            public = tuple(log[game.public_events_seen:])
            game.public_events_seen = len(log)
        game.publish((int(index), -1 if seat is None else int(seat), action_text or "", state.observation(None),
                      public))

    def finish(self, game: LiveGame, outcome: Any = None, status: str = "") -> None:
        if game.over:
            return
        game.status = status or (outcome.status if outcome is not None else "aborted")
        game.ended_at = utc_now()
        ended = pb.GameEnded(game_id=game.game_id, reason=game.status)
        if outcome is not None:
            game.placements = tuple(int(s.placement) for s in outcome.seats)
            game.decisions = int(outcome.decisions or game.decisions)
            ended = game_ended_to_pb(outcome, game.game_id)
        last_index = game.event(len(game.events) - 1).index + 1 if game.events else 0
        game.publish(pb.SpectatorEvent(game_id=game.game_id, index=last_index, seat=-1, ended=ended))
        for queue in list(game.watchers):
            queue.put_nowait(None)
        game.watchers.clear()
        self._listed.append(game)
        self._replayable.append(game)
        self._trim()

    def get(self, game_id: str) -> Optional[LiveGame]:
        return self.games.get(game_id)

    def summaries(self, live_only: bool = False, ruleset: str = "", limit: int = 100) -> list[pb.GameSummary]:
        """Newest first."""
        chosen = []
        for game in reversed(self.games.values()):
            if (live_only and game.over) or (ruleset and game.ruleset != ruleset):
                continue
            chosen.append(game.summary())
            if len(chosen) >= limit:
                break
        return chosen

    def _trim(self) -> None:
        """Forget the games that finished longest ago beyond ``finished_kept``, and keep only the
        final event of those beyond ``replayable_kept`` (O(1) amortised per finished game)."""
        while len(self._listed) > self.finished_kept:
            game = self._listed.popleft()
            if self.games.get(game.game_id) is game:
                del self.games[game.game_id]
        while len(self._replayable) > self.replayable_kept:
            game = self._replayable.popleft()
            if len(game.events) > 1:
                game.events = [game.event(len(game.events) - 1)]
                game.trimmed = True
