"""Fair play: answer timing, attacked over the real wire.

The arena asks a seat even the decisions it has no choice in (a draw when nothing fits, a pass after a
drawn card that does not fit), so that the table cannot tell them from chosen ones.  A bot that answers
those at once and thinks about the others gives it back by its timing: the red team's spy measured the
time from its own answer to its next turn and, with one cut (40 ms), told the searcher's forced
decisions from its searched ones in 116 of 117 gaps.  The SDK's pacing (`Bot.steady`,
`mau_arena_sdk.pace`) holds every answer to a pace learned from the bot's own choices.

Here a real server plays Mau-Mau between two SDK clients in this process: the spy, and a thinker that
answers a forced decision at once and takes at least `THINK_S` over any choice (it sleeps: its thinking,
not a synchronisation).  Its pace is therefore never below `THINK_S` once it has made a choice, and the
property checked is a lower bound, not a race: with pacing every gap that holds only forced decisions
of the thinker's is at least `THINK_S` long, so the attack's rule "a gap under the cut is forced" finds
none of them.  Without pacing the same check fails: the rule then finds forced decisions, and never
calls a choice forced (a choice's gap holds its `THINK_S`).
"""

from __future__ import annotations

import threading
import time

import pytest
import trio

from arena import games
from arena.match.timecontrol import TimeControl
from server_helpers import HANG_GUARD_S, serve
from mau_arena_sdk import Bot, Client, ClientOptions

RULESET = "maumau"
SEEDS = (11, 12)  # two games: some 20-40 gaps of forced decisions between the spy's turns
#: The thinker's least think time over a decision with a choice; also the attack's cut.
THINK_S = 0.06
#: Roomy: the pacing's cap (half the decision's limit) never comes near `THINK_S`.
TIME_CONTROL = TimeControl(move_ms=10_000, bank_ms=10_000, first_move_ms=10_000)


class Spy(Bot):
    """Plays its first legal action and records, for each of its turns, the time since its previous
    answer of the game and the game's decision counts at both (the thinker's decisions lie between)."""

    def __init__(self) -> None:
        self.last: dict[str, tuple[float, int]] = {}
        self.gaps: list[tuple[str, int, int, float]] = []   # game, previous decision, this decision, seconds

    def act(self, turn):
        now = time.monotonic()
        decision = turn.observation["decisions"]
        previous = self.last.get(turn.game_id)
        if previous is not None:
            self.gaps.append((turn.game_id, previous[1], decision, now - previous[0]))
        self.last[turn.game_id] = (time.monotonic(), decision)
        return 0


class Thinker(Bot):
    """Answers a forced decision at once and thinks `THINK_S` (at least) over a choice."""

    def __init__(self, steady: bool) -> None:
        self.steady = steady
        self.chosen = False
        self.decisions: dict[tuple[str, int], tuple[bool, bool]] = {}  # (game, decision) -> (forced, chosen before)

    def act(self, turn):
        forced = len(turn.legal) == 1
        self.decisions[(turn.game_id, turn.observation["decisions"])] = (forced, self.chosen)
        if not forced:
            time.sleep(THINK_S)
            self.chosen = True
        return 0


def _play(steady: bool) -> tuple[list[float], list[float]]:
    """The spy's gaps that hold only the thinker's decisions: (forced ones after its first choice, chosen ones)."""
    spy, thinker = Spy(), Thinker(steady)
    clients: dict[str, Client] = {}
    failures: list[BaseException] = []

    def connect(name: str, bot: Bot, port: int) -> None:
        try:
            client = clients[name] = Client(bot, ClientOptions(name=name, arena=f"127.0.0.1:{port}", games=[RULESET],
                                                               games_limit=len(SEEDS), connect_timeout_s=30))
            client.serve()
        except BaseException as failure:
            failures.append(failure)

    async def director(handle):
        threads = [threading.Thread(target=connect, args=(name, bot, handle.port), daemon=True)
                   for name, bot in (("spy", spy), ("thinker", thinker))]
        for thread in threads:
            thread.start()
        await handle.wait_for_sessions(["spy", "thinker"], timeout_s=HANG_GUARD_S)
        for seed in SEEDS:
            outcome = await handle.play_game(RULESET, {}, seed, ["spy", "thinker"], TIME_CONTROL)
            assert outcome.status == "finished", outcome.reason
            assert all(seat.strikes == 0 for seat in outcome.seats), outcome.seats
        for thread in threads:  # each client stops by itself after its games (`games_limit`)
            await trio.to_thread.run_sync(thread.join, HANG_GUARD_S)
            assert not thread.is_alive()

    serve(director)
    assert not failures, failures
    forced, chosen = [], []
    for game, previous, decision, gap in spy.gaps:
        between = [thinker.decisions.get((game, i)) for i in range(previous + 1, decision)]
        if not between or None in between:
            continue
        if all(is_forced for is_forced, _ in between):
            if all(chosen_before for _, chosen_before in between):
                forced.append(gap)
        elif not any(is_forced for is_forced, _ in between):
            chosen.append(gap)
    assert len(forced) >= 5 and len(chosen) >= 5, (len(forced), len(chosen))
    return forced, chosen


def _told_forced(gaps: list[float]) -> list[float]:
    """The attack: a gap shorter than the cut is taken for a forced decision."""
    return [gap for gap in gaps if gap < THINK_S]


@pytest.mark.skipif(RULESET not in games.rulesets(), reason="needs the Mau-Mau engine")
@pytest.mark.parametrize("steady", [True, False], ids=["paced", "unpaced"])
def test_a_paced_bot_does_not_tell_its_forced_decisions_by_its_timing(steady):
    forced, chosen = _play(steady)
    assert not _told_forced(chosen)  # a choice's gap holds its think time: the rule never calls one forced
    if steady:
        # Every forced answer was held to the pace learned from the earlier choices (at least THINK_S each).
        assert min(forced) >= THINK_S, sorted(forced)[:5]
        assert not _told_forced(forced)
    else:
        # The old behaviour: the cut finds the forced decisions (the check above fails).
        assert _told_forced(forced), sorted(forced)[:5]
