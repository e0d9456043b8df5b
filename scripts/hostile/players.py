"""Bots that sit at ladder tables: an honest one, and the ways a hostile one plays.

A `Player` connects, plays every game the ladder gives it, and resumes its
own session (with whatever the Welcome gave it) when its stream drops,
until ``stop`` is set and its stream has ended.  What every player was told
about the end of its games goes into a shared `Ledger`, so that the battery
can check each game the arena announced as finished against the database.

The hostile ones change one thing each:

* `Hanging`   never answers;
* `Slow`      answers every turn after 80% of its whole budget (limit + bank);
* `Staller`   drops its stream and resumes a few seconds later, several
  times per decision, before it answers;
* `HandMemory` plays honestly and records the hand it holds at its first
  decision of every game (the battery then looks for those hands in later
  opponents' deals);
* `CrossGame` answers its turns with the right request id but another
  game's id, and records whether the arena took such an answer.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Optional

from mau_arena_sdk.wire import pb

from .stream import BotStream, answer, error_name, hello, reply_kind

#: How long a player waits for the arena's reply to its Hello.
HELLO_REPLY_S = 10.0
#: Connection attempts per player in one run (a bound on the requests it makes).
MAX_CONNECTS = 60


@dataclass(frozen=True)
class EndedGame:
    """A GameEnded as one bot received it."""

    game_id: str
    finished: bool  # every seat placed (an aborted game places nobody); ``reason`` is the engine's text
    reason: str
    bot: str
    strikes: int
    timeouts: int
    forfeited: bool
    at: float  # time.time() on arrival

    def to_list(self) -> list:
        return [self.game_id, self.finished, self.reason, self.bot, self.strikes, self.timeouts, self.forfeited,
                self.at]

    @classmethod
    def from_list(cls, row: list) -> "EndedGame":
        return cls(str(row[0]), bool(row[1]), str(row[2]), str(row[3]), int(row[4]), int(row[5]), bool(row[6]),
                   float(row[7]))


@dataclass
class Ledger:
    """What the players were told: games ended, errors by code, refused Hellos."""

    ended: list[EndedGame] = field(default_factory=list)
    errors: Counter = field(default_factory=Counter)
    refusals: Counter = field(default_factory=Counter)
    turns: int = 0

    def record_end(self, bot: str, message: pb.GameEnded) -> None:
        own = next((r for r in message.results if r.name == bot), None)
        finished = bool(message.results) and all(r.placement >= 1 for r in message.results)
        self.ended.append(EndedGame(
            message.game_id, finished, message.reason, bot, own.strikes if own else 0, own.timeouts if own else 0,
            bool(own and own.forfeited), time.time()))


class Player:
    """An honest bot: a random legal action after ``think_ms``."""

    def __init__(self, name: str, games: tuple[str, ...], ledger: Ledger, *, token: str = "",
                 max_games: int = 1, think_ms: float = 0.0, bot_version: str = "hostile", seed: int = 0) -> None:
        self.name = name
        self.games = games
        self.ledger = ledger
        self.token = token
        self.max_games = max_games
        self.think_s = think_ms / 1000
        self.bot_version = bot_version
        self.rng = random.Random(f"{name}/{seed}")
        self.welcome: Optional[pb.Welcome] = None
        self.welcomed = asyncio.Event()
        self.session_ids: list[str] = []     # every session id a Welcome gave this bot, in order
        self.cut_off: Counter = Counter()    # errors that ended one of its streams (e.g. DUPLICATE_SESSION)
        self.refused: Counter = Counter()    # its Hellos that were not welcomed, by reply
        self.refusal_text = ""               # the arena's text for the latest of them
        self.connects = 0
        self.resumes = 0                     # Welcomes that gave back the session it already had
        self._drop = False

    # ---- the connection loop

    async def run(self, address: str, stop: asyncio.Event) -> None:
        """Play until ``stop`` is set and the current stream is over; resume after a dropped stream.

        An arena that says it is shutting down is not called again.
        """
        while not stop.is_set() and self.connects < MAX_CONNECTS and not self.cut_off["SHUTTING_DOWN"]:
            self.connects += 1
            stream = BotStream.open(address)
            try:
                await stream.send(hello(self.name, token=self.token, games=self.games, max_games=self.max_games,
                                        bot_version=self.bot_version, resume=self.welcome))
                reply = await stream.first_reply(HELLO_REPLY_S)
                if reply is not None and reply.WhichOneof("kind") == "welcome":
                    if self.welcome is not None and self.welcome.session_id == reply.welcome.session_id:
                        self.resumes += 1
                    self.welcome = reply.welcome
                    if not self.session_ids or self.session_ids[-1] != reply.welcome.session_id:
                        self.session_ids.append(reply.welcome.session_id)
                    self.welcomed.set()
                    await self._session(stream)
                else:
                    code = reply_kind(reply, stream)
                    self.ledger.refusals[code] += 1
                    self.refused[code] += 1
                    if reply is not None and reply.WhichOneof("kind") == "error":
                        self.refusal_text = reply.error.message
                    if code == "SHUTTING_DOWN":
                        self.cut_off[code] += 1
            finally:
                await stream.close()
            if self._drop:
                self._drop = False
                await self.after_drop(stop)
            elif not stop.is_set():
                await asyncio.sleep(0.5)

    async def _session(self, stream: BotStream) -> None:
        while True:
            try:
                message = await stream.recv(60.0)
            except TimeoutError:
                continue
            if message is None:
                return
            kind = message.WhichOneof("kind")
            if kind == "turn":
                self.ledger.turns += 1
                await self.on_turn(stream, message.turn)
                if self._drop:
                    return
            elif kind == "game_started":
                self.on_game_started(message.game_started)
            elif kind == "game_ended":
                self.ledger.record_end(self.name, message.game_ended)
                self.on_game_ended(message.game_ended)
            elif kind == "error":
                self.ledger.errors[error_name(message)] += 1
                await self.on_error(stream, message.error)

    def drop_stream(self) -> None:
        """End the current stream after this message (the session stays, to be resumed)."""
        self._drop = True

    async def after_drop(self, stop: asyncio.Event) -> None:
        """Called after a `drop_stream`, before resuming."""

    # ---- what it does with the arena's messages

    def choose(self, turn: pb.TurnRequest) -> int:
        return self.rng.randrange(len(turn.legal))

    async def on_turn(self, stream: BotStream, turn: pb.TurnRequest) -> None:
        if self.think_s:
            await asyncio.sleep(self.think_s)
        await stream.send(answer(turn, self.choose(turn)))

    def on_game_started(self, started: pb.GameStarted) -> None:
        pass

    def on_game_ended(self, ended: pb.GameEnded) -> None:
        pass

    async def on_error(self, stream: BotStream, error: pb.Error) -> None:
        if error.code in (pb.Error.DUPLICATE_SESSION, pb.Error.SHUTTING_DOWN, pb.Error.MALFORMED):
            self.cut_off[pb.Error.Code.Name(error.code)] += 1


class Hanging(Player):
    """Reads every turn and never answers."""

    async def on_turn(self, stream: BotStream, turn: pb.TurnRequest) -> None:
        return None


class Slow(Player):
    """Answers after ``share`` of the decision's whole budget (limit + bank): legal, and as slow as it dares."""

    share = 0.8

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._late: set[asyncio.Task] = set()

    async def on_turn(self, stream: BotStream, turn: pb.TurnRequest) -> None:
        # Answered from a task of its own, so the stream is still read meanwhile.
        task = asyncio.create_task(self._answer_late(stream, turn))
        self._late.add(task)
        task.add_done_callback(self._late.discard)

    async def _answer_late(self, stream: BotStream, turn: pb.TurnRequest) -> None:
        await asyncio.sleep(self.share * (turn.time.move_ms + turn.time.bank_ms) / 1000)
        await stream.send(answer(turn, self.choose(turn)))


class Staller(Player):
    """Before answering a decision, drops its stream ``per_decision`` times, ``down_s`` seconds each."""

    def __init__(self, *args, per_decision: int = 3, down_s: float = 3.5, max_drops: int = 12, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.per_decision = per_decision
        self.down_s = down_s
        self.max_drops = max_drops
        self.drops = 0
        self._in_a_row = 0
        self._decision_began: Optional[float] = None
        self.longest_decision_s = 0.0

    async def on_turn(self, stream: BotStream, turn: pb.TurnRequest) -> None:
        if self._decision_began is None:
            self._decision_began = time.monotonic()
        if self._in_a_row < self.per_decision and self.drops < self.max_drops:
            self._in_a_row += 1
            self.drops += 1
            self.drop_stream()
            return
        self._in_a_row = 0
        self.longest_decision_s = max(self.longest_decision_s, time.monotonic() - self._decision_began)
        self._decision_began = None
        await stream.send(answer(turn, self.choose(turn)))

    async def after_drop(self, stop: asyncio.Event) -> None:
        await asyncio.sleep(self.down_s)

    def on_game_ended(self, ended: pb.GameEnded) -> None:
        self._in_a_row = 0
        self._decision_began = None


class HandMemory(Player):
    """Honest play; remembers its hand at its first decision of each game, in order."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.first_hands: dict[str, tuple[str, ...]] = {}   # game id -> sorted hand, in arrival order

    async def on_turn(self, stream: BotStream, turn: pb.TurnRequest) -> None:
        if turn.game_id not in self.first_hands:
            self.first_hands[turn.game_id] = tuple(sorted(turn.observation.hand))
        await super().on_turn(stream, turn)


class CrossGame(Player):
    """Answers with the right request id and another game's id, up to ``max_tries`` times."""

    def __init__(self, *args, max_tries: int = 30, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.max_tries = max_tries
        self.tries = 0
        self.outcomes: Counter = Counter()  # accepted / refused:CODE / ignored
        self._games: list[str] = []         # games seen, oldest first
        self._pending: dict[int, pb.TurnRequest] = {}

    def on_game_started(self, started: pb.GameStarted) -> None:
        if started.game_id not in self._games:
            self._games.append(started.game_id)

    def _settle(self, game_id: str, verdict: str) -> None:
        for request_id, turn in list(self._pending.items()):
            if turn.game_id == game_id:
                del self._pending[request_id]
                self.outcomes[verdict] += 1

    async def on_turn(self, stream: BotStream, turn: pb.TurnRequest) -> None:
        self._settle(turn.game_id, "accepted")  # the game moved on: the cross-game answer was applied
        if turn.game_id not in self._games:
            self._games.append(turn.game_id)
        others = [g for g in self._games if g != turn.game_id]
        if others and self.tries < self.max_tries:
            self.tries += 1
            self._pending[turn.request_id] = turn
            await stream.send(answer(turn, self.choose(turn), game_id=others[-1]))
            return
        await stream.send(answer(turn, self.choose(turn)))

    def on_game_ended(self, ended: pb.GameEnded) -> None:
        self._settle(ended.game_id, "accepted")

    async def on_error(self, stream: BotStream, error: pb.Error) -> None:
        await super().on_error(stream, error)
        turn = self._pending.pop(error.request_id, None)
        if turn is None:
            return
        if error.code == pb.Error.TIMEOUT:
            self.outcomes["ignored"] += 1
            return
        self.outcomes[f"refused:{pb.Error.Code.Name(error.code)}"] += 1
        await stream.send(answer(turn, self.choose(turn)))  # the request is still open: answer it properly
