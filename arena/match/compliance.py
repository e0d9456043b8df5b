"""Conformance checks for a bot in any language (``arena check-bot``), in the spirit of fastchess's ``--compliance``.

The bot runs as its own process against an arena on a free loopback port, seated
with in-process random opponents, and is put through what a ladder will ask of it:

* ``hello``, ``version``: it connects and its Hello is accepted;
* ``decisions RULESET``: random games of every ruleset it claims, until each
  decision kind the engine asks in that ruleset (found by playing the engine
  alone) has been asked of the bot, bounded by a game count; kinds never reached
  are reported as not exercised, not as failures;
* ``answers in time``: no timeout at a generous limit;
* ``index and text``: no answer struck as illegal or malformed (index and text must agree);
* ``own answers``: the bot's own code never failed on a decision (``act`` raised, or chose
  something not legal, and its SDK answered a fallback, reported as ``Answer.bot_error``), in any
  game check-bot plays (those below too: a bot whose code fails only after a cut or a hurried game
  does not pass);
* ``stale answers``: a game at 1 ms per decision, so its answers arrive late and are
  dropped as STALE_REQUEST; the bot must keep playing and finish the next game cleanly;
* ``disconnect and resume``: the arena cuts the bot's stream mid-game; the bot must
  resume the same session (whatever proof of identity the protocol asks for) and finish;
* ``game end``: after each GameEnded the bot stays connected and plays the next game.

Which decisions the bot was asked is read back from the public game record: the
runner's recorder hears every applied action, and the deterministic engine replays
them to tell which kind of decision each one answered.
"""

from __future__ import annotations

import random
import statistics
from dataclasses import dataclass, field
from typing import Any, Callable, Protocol, Sequence

import trio

import arena.games as games
from arena.match.local import LocalSeat
from arena.match.outcome import GameOutcome, SeatOutcome
from arena.match.runner import GameStop, play_game
from arena.match.timecontrol import TimeControl

PASS, FAIL, SKIP = "PASS", "FAIL", "SKIP"

#: Generous: a conforming bot never comes near it; three strikes still end a hopeless game quickly.
GENEROUS = TimeControl(move_ms=2000, bank_ms=5000, increment_ms=0, first_move_ms=5000, max_strikes=3,
                       reconnect_ms=15_000)
#: The stale game: no time at all, so every answer is late (the bot still gets each request), and
#: no strike forfeits the seat (0: never), so the bot is asked to the end and every answer is dropped as stale.
HURRIED = TimeControl(move_ms=0, bank_ms=0, increment_ms=0, first_move_ms=0, max_strikes=0, reconnect_ms=15_000)
#: A checked game is cut off (aborted, not blamed on the bot) after this many times the engine's mean length...
STALL_FACTOR = 20
#: ...and never before this many decisions.
STALL_MIN_DECISIONS = 2000
#: Engine-only discovery of a ruleset's decision kinds: stop after this many games without a new kind...
DISCOVERY_QUIET_GAMES = 8
#: ...or after this many games in all.
DISCOVERY_MAX_GAMES = 40


@dataclass(frozen=True)
class Check:
    """One line of the report."""

    name: str
    status: str          # PASS, FAIL or SKIP
    expected: str
    happened: str

    def line(self) -> str:
        return f"{self.status}  {self.name}: expected {self.expected}; {self.happened}"


@dataclass(frozen=True)
class ComplianceOptions:
    rulesets: tuple[str, ...] = ()           # empty: every ruleset the bot's Hello claims
    max_games: int = 10                      # per ruleset, while looking for its decision kinds
    seed: int = 1
    time_control: TimeControl = GENEROUS
    connect_timeout_s: float = 30.0
    resume_timeout_s: float = 20.0


@dataclass(frozen=True)
class RulesetProfile:
    """What the engine alone asks in a ruleset at its default table: decision kinds, game length."""

    ruleset: str
    players: int
    kinds: tuple[str, ...]
    mean_decisions: float

    @property
    def stall_limit(self) -> int:
        """Decisions after which a checked game is cut off as stalled (the bot is not to blame)."""
        return max(STALL_MIN_DECISIONS, int(STALL_FACTOR * self.mean_decisions))


_profiles: dict[str, RulesetProfile] = {}


def ruleset_profile(ruleset: str) -> RulesetProfile:
    """The decision kinds random play reaches in ``ruleset`` (deterministic; computed once per process)."""
    if ruleset in _profiles:
        return _profiles[ruleset]
    info = games.ruleset_info(ruleset)
    players = info.default_players or info.min_players
    kinds: dict[str, None] = {}
    lengths = []
    quiet = 0
    for seed in range(DISCOVERY_MAX_GAMES):
        state = games.new_game(ruleset, players, seed)
        rng = random.Random(f"check-bot/{ruleset}/{seed}")
        before, decisions = len(kinds), 0
        while not state.is_over:
            kinds.setdefault(state.decision, None)
            state.apply(rng.choice(state.legal_actions()))
            decisions += 1
        lengths.append(decisions)
        quiet = quiet + 1 if len(kinds) == before else 0
        if quiet >= DISCOVERY_QUIET_GAMES:
            break
    profile = RulesetProfile(ruleset, players, tuple(kinds), statistics.fmean(lengths))
    _profiles[ruleset] = profile
    return profile


def kinds_asked(ruleset: str, players: int, seed: int, moves: Sequence[tuple[int, str]], seat: int) -> set[str]:
    """Replay a game's applied actions in the engine: the decision kinds ``seat`` answered."""
    state = games.new_game(ruleset, players, seed)
    asked = set()
    for mover, text in moves:
        if mover == seat:
            asked.add(state.decision)
        state.apply(text)
    return asked


class MoveLog:
    """A recorder for the runner: it keeps the applied actions, and may act after the bot's n-th decision."""

    def __init__(self, bot_seat: int, after_bot_decisions: int = 0, action: Callable[[], Any] | None = None):
        self.moves: list[tuple[int, str]] = []
        self.bot_seat = bot_seat
        self.bot_decisions = 0
        self.after = after_bot_decisions
        self.action = action
        self.acted = False
        self.bot_errors: list[str] = []  # the bot's own reports that its code failed (Answer.bot_error)

    def decision(self, seat: int, action_text: str, think_ms: int, timeout: bool, strike: bool, state_hash: str,
                 bot_error: str = "") -> None:
        self.moves.append((seat, action_text))
        if seat == self.bot_seat:
            self.bot_decisions += 1
            if bot_error:
                self.bot_errors.append(bot_error)
            if self.action is not None and not self.acted and self.bot_decisions >= self.after:
                self.acted = True
                self.action()

    async def finish(self, record: Any) -> None:  # async: nothing to write, so no worker-thread hop
        pass

    async def abort(self, reason: str) -> None:
        pass


class _RandomOpponent:
    """The bot's table mates: a uniformly random legal choice (an index), seeded."""

    def __init__(self, seed: str) -> None:
        self.rng = random.Random(seed)

    def act(self, turn: Any) -> int:
        return self.rng.randrange(len(turn.legal))


@dataclass
class Played:
    """One game the bot played, as the checks need it."""

    ruleset: str
    outcome: GameOutcome | None          # None: it could not start (the bot was not connected)
    seat: int
    kinds: set[str] = field(default_factory=set)
    error: str = ""
    bot_errors: list[str] = field(default_factory=list)  # its decisions' Answer.bot_error texts
    #: The stale game's: every answer late and dropped, so none of its decisions tells anything of the bot's code.
    dropped_answers: bool = False
    #: Why the bot was still busy when this game started ('' if it was free): the arena waited for the answer
    #: an earlier game was owed until its hold ran out, so its code was still running that earlier call.
    busy_before: str = ""

    @property
    def me(self) -> SeatOutcome | None:
        return self.outcome.seats[self.seat] if self.outcome else None

    @property
    def stalled(self) -> bool:
        """Cut off by the decision limit: the table went round without an end (not the bot's fault alone)."""
        return (self.outcome is not None and self.outcome.status == "aborted"
                and self.outcome.reason.startswith("no result after"))

    @property
    def clean(self) -> bool:
        me = self.me
        return (self.outcome is not None and self.outcome.status == "finished" and me is not None
                and not me.strikes and not me.forfeited)


class BotUnderTest(Protocol):
    """What the checks need to know about the bot's process (the CLI gives a launched `BotProcess`)."""

    name: str

    def exit_status(self) -> int | None: ...

    def last_output(self) -> str: ...

    async def exited(self) -> int:
        """Return the exit status once the bot's process has ended."""
        ...


class ComplianceRun:
    """Runs the checks as a director of an arena `Handle` (inside `arena.server.run`)."""

    def __init__(self, handle: Any, bot: BotUnderTest, options: ComplianceOptions) -> None:
        self.handle = handle
        self.bot = bot
        self.options = options
        self.checks: list[Check] = []
        self.games: list[Played] = []
        self._game_number = 0
        self._stop: GameStop | None = None  # the running game's

    # ---------------------------------------------------------------- plumbing

    def _gone(self) -> str:
        status = self.bot.exit_status()
        last = self.bot.last_output()
        where = f"; its last output: {last}" if last else ""
        if status is not None:
            return f"the bot exited with status {status}{where}"
        return f"the bot is not connected{where}"

    async def connected(self, timeout_s: float) -> Any:
        """The bot's session info once it is connected; None if it exits or the time runs out."""
        with trio.move_on_after(timeout_s):
            while True:
                for info in self.handle.sessions():
                    if info.name == self.bot.name:
                        return info
                if self.bot.exit_status() is not None:
                    return None
                with trio.move_on_after(0.25):  # a process exit wakes no session event: look again soon
                    await self.handle.session_event()
        return None

    async def play(self, ruleset: str, time_control: TimeControl, cut_after: int = 0,
                   late_grace_ms: int | None = None, dropped_answers: bool = False) -> Played:
        """One game: the bot in a rotating seat, random opponents in the others (``dropped_answers``: every answer
        comes too late, by design)."""
        from arena.server import SeatUnavailable, new_game_id

        profile = ruleset_profile(ruleset)
        number = self._game_number
        self._game_number += 1
        seat_index = number % profile.players
        seed = self.options.seed + number
        if await self.connected(self.options.resume_timeout_s) is None:
            played = Played(ruleset, None, seat_index, error=self._gone())
            self.games.append(played)
            return played
        game_id = new_game_id()
        # After a game that ended while the bot still ran its code for a request (its time ran out), the
        # arena seats it again only once that answer comes (or its hold runs out): waited for here.  A bot
        # still busy a moment before the hold ends gets this game all the same, and the game says why it
        # may go wrong: a later check failing for an earlier call still running is told as such.
        hold = self.handle.owed_answer_hold_s
        still = await self.handle.wait_free([self.bot.name], max(0.0, hold - 1.0))
        if still:
            await self.handle.wait_free([self.bot.name])
        try:
            bot_seat = self.handle.seat(self.bot.name, ruleset, game_id)
        except SeatUnavailable as error:
            played = Played(ruleset, None, seat_index, error=str(error) + (f"; before: {still}" if still else ""))
            self.games.append(played)
            return played
        seats: list[Any] = [LocalSeat(_RandomOpponent(f"{seed}/{i}"), name=f"opponent-{i}", threaded=False)
                            for i in range(profile.players)]
        seats[seat_index] = bot_seat
        log = MoveLog(seat_index, cut_after, (lambda: self.handle.cut_stream(self.bot.name)) if cut_after else None)
        runner_options = {} if late_grace_ms is None else {"late_grace_ms": late_grace_ms}
        # If the bot's process exits, the game ends at once: no point waiting out its clock and reconnect window.
        stop = self._stop = GameStop()
        if self.bot.exit_status() is not None:
            stop.abort(f"the bot exited with status {self.bot.exit_status()}")
        try:
            outcome = await play_game(ruleset, {}, seed, seats, time_control, game_id=game_id, recorder=log,
                                      stop=stop, max_decisions=profile.stall_limit, **runner_options)
        finally:
            self._stop = None
            bot_seat.release()
        played = Played(ruleset, outcome, seat_index, kinds_asked(ruleset, profile.players, seed, log.moves, seat_index),
                        bot_errors=log.bot_errors, dropped_answers=dropped_answers, busy_before=still)
        self.games.append(played)
        return played

    def add(self, name: str, status: str, expected: str, happened: str) -> None:
        self.checks.append(Check(name, status, expected, happened))

    # ---------------------------------------------------------------- the checks

    async def run(self) -> list[Check]:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._watch_exit)
            checks = await self._run_checks()
            nursery.cancel_scope.cancel()
        return checks

    async def _watch_exit(self) -> None:
        status = await self.bot.exited()
        if self._stop is not None:
            self._stop.abort(f"the bot exited with status {status}")

    async def _run_checks(self) -> list[Check]:
        info = await self.connected(self.options.connect_timeout_s)
        if info is None:
            self.add("hello", FAIL, f"a Hello the arena welcomes within {self.options.connect_timeout_s:g} s",
                     self._gone())
            for name in ("version", "decisions", "answers in time", "index and text", "own answers", "stale answers",
                         "disconnect and resume", "game end"):
                self.add(name, SKIP, "a connected bot", "not run: the bot never connected")
            return self.checks
        self.add("hello", PASS, "a Hello the arena welcomes",
                 f"welcomed as {info.name}, {info.capacity} game(s) at once, claims {len(info.games)} ruleset(s)")
        self.add("version", PASS, "an SDK version this arena speaks",
                 f"sdk_version {info.sdk_version!r} accepted; bot_version {info.version!r}")
        claimed = tuple(info.games)
        rulesets = self.options.rulesets or claimed
        for ruleset in rulesets:
            if ruleset not in claimed:
                self.add(f"decisions {ruleset}", FAIL, f"the bot plays {ruleset}",
                         f"its Hello claims only {', '.join(claimed)}")
                continue
            await self.check_decisions(ruleset)
        playable = [r for r in rulesets if r in claimed]
        kind_games = list(self.games)
        self.check_time(kind_games)  # (the games below are timed out by design, or cut off the bot for a while)
        self.check_legality(kind_games)  # (a strike below fails the check of its game)
        own_answers_at = len(self.checks)  # its line, in the report's order, once every game below has been played
        if playable:
            quick = min(playable, key=lambda r: ruleset_profile(r).mean_decisions)
            await self.check_stale(quick)
            await self.check_resume(quick)
            self.check_game_end()
        else:
            for name in ("stale answers", "disconnect and resume", "game end"):
                self.add(name, SKIP, "a ruleset the bot plays", "not run: none of the asked rulesets is claimed")
        self.checks.insert(own_answers_at, self.own_answers(self.games))
        return self.checks

    async def check_decisions(self, ruleset: str) -> None:
        profile = ruleset_profile(ruleset)
        wanted = set(profile.kinds)
        asked: set[str] = set()
        played: list[Played] = []
        name = f"decisions {ruleset}"
        expected = f"answers to every decision kind ({', '.join(profile.kinds)})"
        while len(played) < self.options.max_games and not wanted <= asked:
            game = await self.play(ruleset, self.options.time_control)
            played.append(game)
            asked |= game.kinds
            if not game.clean and not game.stalled:
                break  # a failure is reported below; more games would only repeat it, slowly
        bad = next((g for g in played if not g.clean and not g.stalled), None)
        if bad is not None:
            self.add(name, FAIL, expected, f"game {len(played)}: {describe(bad)}")
            return
        missing = [k for k in profile.kinds if k not in asked]
        stalled = sum(g.stalled for g in played)
        happened = f"asked {', '.join(k for k in profile.kinds if k in asked)} in {len(played)} game(s), " + (
            f"{stalled} cut off without a result after {profile.stall_limit} decisions" if stalled else "all finished")
        if missing:
            happened += f"; not exercised: {', '.join(missing)} (not reached within {self.options.max_games} games)"
        self.add(name, PASS, expected, happened)

    def check_time(self, played: list[Played]) -> None:
        seats = [g.me for g in played if g.me is not None]
        expected = f"no timeout at {self.options.time_control.move_ms} ms per decision"
        if not seats:
            self.add("answers in time", SKIP, expected, "not run: no game was played")
            return
        decisions = sum(s.decisions for s in seats)
        timeouts = sum(s.timeouts for s in seats)
        slowest = max(s.max_think_ms for s in seats)
        status = FAIL if timeouts else PASS
        self.add("answers in time", status, expected,
                 f"{timeouts} timeout(s) in {decisions} decisions, slowest {slowest} ms")

    def check_legality(self, played: list[Played]) -> None:
        seats = [g.me for g in played if g.me is not None]
        expected = "no answer struck as illegal or malformed (index and text agree, within the legal list)"
        if not seats:
            self.add("index and text", SKIP, expected, "not run: no game was played")
            return
        reasons = [r for s in seats for r in s.strike_reasons if r in ("illegal", "malformed", "error")]
        decisions = sum(s.decisions for s in seats)
        status = FAIL if reasons else PASS
        detail = f"{len(reasons)} struck ({', '.join(sorted(set(reasons)))})" if reasons else "none struck"
        self.add("index and text", status, expected, f"{detail} in {decisions} decisions")

    def own_answers(self, played: list[Played]) -> Check:
        """The ``own answers`` check over ``played``: every game check-bot played (a failure that a bot's code
        shows only after a cut, or after a game of late answers, fails it too).  A failure makes no strike, so
        no other check sees it."""
        expected = "every answer the bot's own choice (act never raised nor chose an illegal action, so its SDK " \
                   "never answered a fallback)"
        answered = [g for g in played if g.me is not None and not g.dropped_answers]
        if not answered:
            return Check("own answers", SKIP, expected, "not run: no game was played")
        errors = [text for g in played for text in g.bot_errors]
        # Counted over the same games: every decision its code was asked in the games whose answers counted (one
        # that timed out ran its code too), and apart from them the game of late answers, whose decisions are not
        # counted (before, its failures were added to the others' count: "failed on 55 of 41 decisions")
        failed = sum(len(g.bot_errors) for g in answered)
        late = len(errors) - failed
        decisions = sum(g.me.decisions for g in answered)
        where = f"{len(answered)} game(s)"
        if errors:
            also = f" and {late} time(s) in the game of late answers" if late else ""
            return Check("own answers", FAIL, expected, f"the bot's code failed on {failed} of {decisions} "
                         f"decisions in {where}{also}, first: {errors[0]!r}")
        return Check("own answers", PASS, expected, f"no failure in {decisions} decisions in {where}")

    async def check_stale(self, ruleset: str) -> None:
        expected = (f"after a {ruleset} game at {HURRIED.move_ms} ms per decision (late answers dropped as stale), "
                    "the bot finishes the next game cleanly")
        # A bot already gone (its exit may not have ended its session yet): the check whose game it left says so
        if self.bot.exit_status() is not None or await self.connected(self.options.resume_timeout_s) is None:
            self.add("stale answers", SKIP, expected, f"not run: {self._gone()}")
            return
        hurried = await self.play(ruleset, HURRIED, late_grace_ms=0, dropped_answers=True)
        if hurried.outcome is None:
            if self.bot.exit_status() is not None:
                self.add("stale answers", SKIP, expected, f"not run: {self._gone()}")
            else:
                self.add("stale answers", FAIL, expected, f"the hurried game could not start: {hurried.error}")
            return
        me = hurried.me
        after = await self.play(ruleset, self.options.time_control)
        told = (f"hurried game: {me.timeouts} timeout(s), the late answers dropped as stale "
                f"({me.stale} of them while a later request was open)")
        if after.clean:
            self.add("stale answers", PASS, expected, f"{told}; the next game finished without a strike")
        else:
            self.add("stale answers", FAIL, expected, f"{told}; the next game: {describe(after)}")

    async def check_resume(self, ruleset: str) -> None:
        expected = "the bot resumes its session after the arena cuts its stream mid-game, and finishes the game"
        before = await self.connected(self.options.resume_timeout_s)
        if before is None:  # gone before this check: the check whose game it left, or `game end`, says so
            self.add("disconnect and resume", SKIP, expected, f"not run: {self._gone()}")
            return
        game = await self.play(ruleset, self.options.time_control, cut_after=2)
        after = await self.connected(self.options.resume_timeout_s)
        if game.outcome is None:
            self.add("disconnect and resume", FAIL, expected, f"the game could not start: {game.error}")
        elif after is None:
            self.add("disconnect and resume", FAIL, expected,
                     f"not back after the cut (waited up to {self.options.resume_timeout_s:g} s): {self._gone()}")
        elif after.session_id != before.session_id:
            self.add("disconnect and resume", FAIL, expected,
                     f"it came back as a new session instead of resuming; the game: {describe(game)}")
        elif not game.clean:
            self.add("disconnect and resume", FAIL, expected, f"it resumed, but the game: {describe(game)}")
        else:
            me = game.me
            self.add("disconnect and resume", PASS, expected,
                     f"resumed session {after.session_id[:8]}..., game finished without a strike "
                     f"({me.disconnects} decision(s) found it away)")

    def check_game_end(self) -> None:
        expected = "after each GameEnded the bot stays connected and plays the next game"
        finished = [g for g in self.games if g.outcome is not None]
        not_started = [g for g in self.games if g.outcome is None]
        still_there = any(info.name == self.bot.name for info in self.handle.sessions())
        left = next((number for number, g in enumerate(self.games, 1)
                     if g.outcome is not None and g.outcome.status != "finished"), None)
        if left is not None and (self.bot.exit_status() is not None or not still_there):
            # it left during a game, not after a GameEnded: the check that played that game has failed for it
            self.add("game end", SKIP, expected,
                     f"not run: the bot left during game {left} ({describe(self.games[left - 1])}), "
                     "reported by the check that played it")
        elif not_started:
            self.add("game end", FAIL, expected,
                     f"{len(finished)} game(s) played, then one could not start: {not_started[0].error}")
        elif self.bot.exit_status() is not None:  # checked first: the session may not have noticed yet
            self.add("game end", FAIL, expected,
                     f"{len(finished)} game(s) played, then the bot exited with status {self.bot.exit_status()}")
        elif not still_there:
            self.add("game end", FAIL, expected, f"{len(finished)} game(s) played, then {self._gone()}")
        else:
            self.add("game end", PASS, expected,
                     f"{len(finished)} game(s) in a row on one session, still connected after the last")


def describe(game: Played) -> str:
    """What went wrong in one game, for a FAIL line."""
    if game.outcome is None:
        return f"could not start ({game.error})"
    if game.outcome.status != "finished":
        return f"aborted ({game.outcome.reason})"
    me = game.me
    if me.forfeited or me.strikes:
        reasons = ", ".join(sorted(set(me.strike_reasons))) or "unknown"
        busy = (f" (it started while the bot's code still ran a call of an earlier game: {game.busy_before}; "
                "an act that never returns?)") if game.busy_before else ""
        return (f"{me.strikes} strike(s) ({reasons}), {me.timeouts} timeout(s)"
                + (", forfeited" if me.forfeited else "") + f" in {me.decisions} decisions{busy}")
    return "finished cleanly"


def failed(checks: Sequence[Check]) -> bool:
    return any(check.status == FAIL for check in checks)
