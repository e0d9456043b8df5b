"""A ladder game's end made final: its result, or its abort, committed with its whole replay.

The runner calls a game's ``on_result`` (`ResultCommit`) before it tells the bots anything; `GameEnds`
commits the result and the replay kept in memory (`arena.ladder.commit_closed`) in one transaction
through the director's group commit, so nothing a bot is told has finished can be lost by a crash.
The result is in memory too, so a database that is away (restarting, failing over) costs the bots a
wait, not the result: the commit is retried for `LadderSettings.result_retry_s`, and the dashboard
says what is waiting (`DATABASE_AWAY`, then `DATABASE_BACK`).  An abort the database cannot take is
logged and left as a ``running`` row, which the next start (`arena.ladder.recovery`) or another host
aborts; raising there would take the whole server down.  On a shared ladder the end's commit also
frees the game's seat claims (`GameEnds.freeing`).
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Any, Awaitable, Callable

import trio

from arena.ladder.commit_closed import CommitClosedRecorder
from arena.ladder.dashboard import DashboardView
from arena.ladder.fits import LadderFits
from arena.ladder.game_gaps import GameGaps
from arena.ladder.group_commit import GroupCommit
from arena.ladder.settings import LadderSettings
from arena.ladder.store import LadderStore, SeatRecord, driver_errors, error_line, outage_errors
from arena.ladder.store.ladder_store import Call

if TYPE_CHECKING:
    from arena.ladder.membership import Membership

log = logging.getLogger("arena.ladder")

#: How the notes of a database that is away begin (`Membership.problem` too), and what is said when it is back.
DATABASE_AWAY = "database unreachable"
DATABASE_BACK = "the database is back: results are committed and new games scheduled again"


class GameEnds:
    """The commits of every game's end on this host: results (retried while the database is away) and aborts."""

    def __init__(self, store: LadderStore, group: GroupCommit, settings: LadderSettings, view: DashboardView,
                 gaps: GameGaps, fits: LadderFits, stopping: Callable[[], bool]) -> None:
        """stopping: whether the ladder is stopping (an abort is then not retried)."""
        self.store = store
        self.group = group
        self.settings = settings
        self.view = view
        self.gaps = gaps
        self.fits = fits
        self.stopping = stopping
        self.waiting: set[str] = set()  # finished games whose commit waits for the database
        #: The shared ladder this host belongs to, once it has joined (`LadderDirector.join`); None: alone.
        self.membership: Membership | None = None

    def freeing(self, game_id: str) -> dict[str, Any]:
        """`LadderStore.game_ended`'s keywords that free the game's seats on a shared ladder in the same commit."""
        return {"then": self.membership.release_statements(game_id)} if self.membership is not None else {}

    async def end_quietly(self, game_id: str, reason: str, recorder: CommitClosedRecorder | None) -> None:
        """Record a game as aborted, with its replay as far as it got (``recorder``, its abort line noted);
        if the database is away, say so and leave the row to the next start.

        A running row left behind is aborted when this host starts again (`arena.ladder.recovery`),
        or by another host once this one is gone; raising here would take the whole server down.
        """
        replay: dict[str, Any] = {}

        def before() -> None:  # packed on the commit's worker thread, ahead of the transaction
            replay["packed"] = recorder.packed() if recorder is not None else None

        try:
            call = await self.group.commit(Call(
                lambda: self.store.game_ended_steps(game_id, "aborted", [], reason=reason, replay=replay.get("packed"),
                                                    **self.freeing(game_id)),
                before=before))
            if call.error is not None:
                raise call.error
        except outage_errors() as error:
            log.warning("cannot record game %s as aborted (%s): %s", game_id, reason, error_line(error))
            return
        if self.membership is not None:
            self.membership.ended(game_id)

    async def commit_and_count(self, outcome: Any, recorder: CommitClosedRecorder) -> None:
        """A game's result committed (`commit_result`), then counted in the fit's input if it finished."""
        try:
            await self.commit_result(outcome, recorder)
        except BaseException:
            self.fits.lost_track()  # unknown whether the row took it (a commit that raised after it applied)
            raise
        if outcome.status == "finished":
            self.fits.count(outcome)

    async def commit_result(self, outcome: Any, recorder: CommitClosedRecorder | None = None) -> None:
        """The runner's ``on_result``: commit the game's result with its replay (the point that makes both final).

        Called before the bots are told; a raise makes the runner abort the game.  On the commit's
        worker thread, one hand-off: the replay's result line the runner asked for is added to the
        game's buffer and the whole replay packed (`CommitClosedRecorder.packed`, ahead of the
        transaction), then the result and the replay are committed together.
        """
        seats = [
            SeatRecord(
                seat=s.seat, bot=s.name, placement=s.placement, points=s.points, strikes=s.strikes,
                timeouts=s.timeouts, think_ms=s.think_ms, decisions=s.decisions, forfeited=s.forfeited,
                errors=s.errors,
            )
            for s in outcome.seats
        ]
        replay: dict[str, Any] = {"packed": None}
        asked = time.monotonic()
        ran: list[float] = []

        def before() -> None:
            """The replay with its result line, packed once (a retry commits the same bytes)."""
            ran.append(time.monotonic())
            if recorder is not None and replay["packed"] is None:
                replay["packed"] = recorder.packed()

        def write() -> Any:
            """The result's steps: its fenced update is read with the group commit's other reads."""
            # Its time is the database's clock at the commit (`LadderStore.game_ended_steps`), not this host's
            # (``outcome.ended_at``, which the replay's result line keeps): the ladder's results order by it.
            return self.store.game_ended_steps(
                outcome.game_id, outcome.status, seats, replay_path=outcome.replay_path, reason=outcome.reason, decisions=outcome.decisions,
                replay=replay["packed"], **self.freeing(outcome.game_id),
            )

        # The result and its replay are in memory, so a database that is away (restarting, failing
        # over) costs the bots a wait, not the result: retry until it is back, for up to
        # `result_retry_s`; only then does the runner abort the game (RESULT_NOT_STORED).
        deadline = time.monotonic() + self.settings.result_retry_s
        pause = 0.25
        while True:
            try:
                call = await self.group.commit(Call(write, before=before))
                if call.error is not None:
                    raise call.error
            except driver_errors() as error:
                if time.monotonic() + pause > deadline:
                    raise
                if outcome.status != "finished" and self.stopping():
                    raise  # an abort while stopping: the row stays running, and the next start aborts it
                self.waiting.add(outcome.game_id)
                text = " ".join(str(error).split())[:160] or type(error).__name__
                if len(self.waiting) == 1 and pause == 0.25:
                    log.warning("cannot commit game %s (%s): retrying until the database is back", outcome.game_id, text)
                self.view.tell(f"{DATABASE_AWAY}: {len(self.waiting)} finished result(s) waiting to be "
                               "committed; no new games until it is back")
                await trio.sleep(pause)
                pause = min(5.0, pause * 2)
                continue
            if self.membership is not None:
                self.membership.ended(outcome.game_id)
            if ran:
                self.gaps.add("result_queue", ran[-1] - asked)
                self.gaps.add("result_commit", time.monotonic() - ran[-1])
            if outcome.game_id in self.waiting:
                self.waiting.discard(outcome.game_id)
                log.warning("game %s committed after the database came back", outcome.game_id)
                if not self.waiting and (self.membership is None or not self.membership.problem):
                    self.view.take_down(DATABASE_AWAY, DATABASE_BACK)
            return


class ResultCommit:
    """One game's ``on_result`` for the runner: commits through ``commit`` (`GameEnds.commit_and_count`),
    remembers what it committed and when."""

    def __init__(self, commit: Callable[[Any, CommitClosedRecorder], Awaitable[None]],
                 recorder: CommitClosedRecorder) -> None:
        self.commit = commit
        self.recorder = recorder
        self.status: str | None = None
        self.committed_at = 0.0  # time.monotonic() when the commit returned

    async def __call__(self, outcome: Any) -> None:
        await self.commit(outcome, self.recorder)
        self.committed_at = time.monotonic()
        self.status = outcome.status
