"""A ladder game's start made durable before any bot is asked: its row committed, then its replay buffer made.

The director plans a table (`arena.ladder.director`), claims its seats on a shared ladder, and commits the game's
start here (`GameStarts`) before it plays the game; the end is committed by `arena.ladder.result_commit`.  So every
game a bot plays is in the store as ``running`` first, and one that a crash cuts off is aborted, unrated, at the
next start (`arena.ladder.recovery`).

* What a start records is planned first (`GameStarts.plan`: the replay's header, parsed once), then the director
  claims the seats, then the start is committed (`GameStarts.commit`).  Each game is a set of one (its own
  ``ladder_set``, rotation 0): the ladder never replays a deal with the seats rotated, since a bot that remembers
  its hands would hold, in the next rotation, the cards its opponent is holding.
* The row first, then the replay's buffer (in memory: the replay is committed whole with the result,
  `arena.ladder.commit_closed`), made on the commit's worker thread once the row is committed (`Call.after`).
* On a shared ladder the seats are claimed in the start's own transaction (its checks first): a claim that lost a
  seat to another host leaves the game unstarted (`StartedGame.seats_taken`), and the director plans again.
* A database that is away: the game never starts (logged), and the director plans again.  A start that was
  written and then cancelled (the server shutting down) is recorded as aborted at once.
* No bot is told anything a start records: on SQLite its commit need not wait for an fsync (a killed process keeps
  it; the next result's commit makes it durable on disk).  On PostgreSQL starts commit on a connection of their
  own (`LadderStore.sibling`, ``group``), so a start never waits behind results and their replays' fsyncs.
"""

from __future__ import annotations

import functools
import logging
import time
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import trio

from arena.ladder.commit_closed import CommitClosedRecorder
from arena.ladder.game_gaps import GameGaps
from arena.ladder.group_commit import GroupCommit, note_time
from arena.ladder.result_commit import GameEnds
from arena.ladder.settings import LadderSettings
from arena.ladder.store import error_line, outage_errors, utc_now
from arena.ladder.store.ladder_store import Call
from arena.replay.buffer import ReplayBuffer
from arena.replay.format import ReplayHeader

log = logging.getLogger("arena.ladder")


@dataclass(frozen=True)
class PlannedStart:
    """What one game's start records: its table, deal and the replay's header (`GameStarts.plan`)."""

    game_id: str
    ruleset: str
    seats: Sequence[str]
    seed: int
    options: dict[str, Any]
    versions: list[str]  # per seat
    header: ReplayHeader


@dataclass(frozen=True)
class StartedGame:
    """What became of one game's start (`GameStarts.commit`)."""

    recorder: CommitClosedRecorder | None = None  # the game's replay recorder; None: the game did not start
    seats_taken: bool = False  # not started: another host seated one of its bots meanwhile (the claim lost)
    committed_at: float = 0.0  # time.monotonic() once the start was committed


class GameStarts:
    """The commits of every game's start on this host."""

    def __init__(self, group: GroupCommit, settings: LadderSettings, ends: GameEnds, gaps: GameGaps) -> None:
        #: The group commit starts go through: the director's, or where the database has room for two writers
        #: (PostgreSQL) one of their own, set when the ladder starts.
        self.group = group
        self.settings = settings
        self.ends = ends  # records a start cancelled after it was written, or whose replay could not be made
        self.gaps = gaps

    def plan(self, game_id: str, ruleset: str, seats: Sequence[str], seed: int, options: dict[str, Any],
             versions: Mapping[str, str]) -> PlannedStart:
        """The game's start as it will be recorded: its row's values and the replay's header."""
        header = {
            "game_id": game_id,
            "ruleset": ruleset,
            "players": len(seats),
            "seed": seed,
            "options": options,
            "seats": [{"seat": i, "name": bot, "version": versions.get(bot, "")} for i, bot in enumerate(seats)],
            "time_control": self.settings.time_control.to_dict(),
            "started_at": utc_now(),
            "ladder_set": game_id,
            "rotation": 0,
        }
        return PlannedStart(game_id, ruleset, seats, seed, options, [versions.get(bot, "") for bot in seats],
                            ReplayHeader.from_dict(header))

    async def commit(self, start: PlannedStart, claim: Any = None, planned_at: float = 0.0) -> StartedGame:
        """Commit the start (with the seats' ``claim`` on a shared ladder, `Membership.start_claim`) and make its
        replay buffer; ``planned_at``: when its table was planned (time.monotonic(), for `GameGaps`; 0: unknown).

        Raises what the commit raised, other than a database that is away, after recording a start that was
        written as aborted (a cancellation), or a replay buffer that could not be made."""
        game_id, seats = start.game_id, start.seats
        # In steps: the claim's read goes with the reads of the group commit's other starts (and, on
        # SQLite, results); on PostgreSQL starts commit on a connection of their own.
        group = self.group
        call = Call(
            functools.partial(
                group.store.game_started_steps, game_id, start.ruleset, start.options, start.seed, game_id, 0,
                list(seats), versions=start.versions, claim=claim,
            ),
            keys=frozenset(seats) if claim is not None else frozenset(),
            durable=False,  # no bot is told anything a start records (see the module)
        )
        # The buffer's maker does not reference the call itself: a call holding a reference to itself
        # (through its ``after``) is a cycle, and each game's buffer, with its whole replay, lived on
        # after the game until the collector's next pass over an older generation found it.
        call.after = functools.partial(self.new_replay, start.header)
        call_ran: list[float] = []
        call.before = functools.partial(note_time, call_ran)
        try:
            await group.commit(call)
        except BaseException:
            if call.done and call.error is None and call.result:  # written, then cancelled: abort it
                with trio.CancelScope(shield=True):
                    unplayed = None
                    if isinstance(call.after_result, ReplayBuffer):
                        unplayed = CommitClosedRecorder(call.after_result)
                        unplayed.abort_now("server shutting down")
                    await self.ends.end_quietly(game_id, "server shutting down", unplayed)
            raise
        if call.error is not None:
            if not isinstance(call.error, outage_errors()):
                raise call.error
            # the database is away: this game never starts
            log.warning("cannot record the start of game %s: %s", game_id, error_line(call.error))
            return StartedGame()
        if not call.result:  # another host seated one of these bots meanwhile
            return StartedGame(seats_taken=True)
        if call.after_error is not None:
            with trio.CancelScope(shield=True):
                await self.ends.end_quietly(game_id, f"cannot start the replay: {call.after_error}", None)
            raise call.after_error
        recorder = CommitClosedRecorder(call.after_result)
        committed_at = time.monotonic()
        if call_ran and planned_at:
            self.gaps.add("start_queue", call_ran[0] - planned_at)
            self.gaps.add("start_commit", committed_at - call_ran[0])
        return StartedGame(recorder, committed_at=committed_at)

    def new_replay(self, header: ReplayHeader) -> ReplayBuffer:
        """A game's `ReplayBuffer`, made on the commit's worker thread once its start is committed (`Call.after`).
        A start that was not recorded (a shared ladder's claim lost a seat: ``result`` False) gets one too,
        dropped unused: `commit` reads ``after_result`` only for a recorded start."""
        return ReplayBuffer(header, self.settings.replay_hash_every)
