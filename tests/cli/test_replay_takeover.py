"""`arena replay FILE --seat S --from N --bot CMD`: the exact state at decision N, then a real bot process plays on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import trio

from .conftest import ROOT, run_arena

GREEDY = str(ROOT / "sample_bots" / "greedy_bot.py")
RANDOM = str(ROOT / "sample_bots" / "random_bot.py")
RAISING = str(ROOT / "tests" / "bots" / "raising_bot.py")


@pytest.fixture(scope="module")
def logged(tmp_path_factory) -> Path:
    """One logged maumau game: greedy (seat 0) against random (seat 1)."""
    folder = tmp_path_factory.mktemp("takeover")
    ran = run_arena("match", GREEDY, RANDOM, "--game", "maumau", "--games", "1", "--seed", "5", "--local",
                    "--replays", str(folder), timeout=120)
    assert ran.status == 0, ran.err
    return next(folder.rglob("*.jsonl"))


def _decisions(path: Path) -> list[dict]:
    return [line for line in map(json.loads, path.read_text().splitlines()) if line.get("type") == "decision"]


def _seat_of(path: Path, name: str) -> int:
    seats = json.loads(path.read_text().splitlines()[0])["seats"]
    return next(i for i, seat in enumerate(seats) if (seat["name"] if isinstance(seat, dict) else seat) == name)


def test_the_same_bot_from_decision_n_replays_the_logged_game_exactly(logged):
    """greedy_bot is deterministic: given its seat back at decision 4 it must play every logged move again."""
    seat = _seat_of(logged, "greedy_bot")
    ran = run_arena("replay", logged, "--seat", str(seat), "--from", "4", "--bot", GREEDY, timeout=120)
    assert ran.status == 0, ran.err
    played = [line for line in ran.out.splitlines() if line[:4].strip().isdigit() and line[4:6] == "  "]
    logged_moves = _decisions(logged)[4:]
    assert [int(line.split()[0]) for line in played] == [d["i"] for d in logged_moves]
    assert [line.split(": ", 1)[1].strip() for line in played] == [d["action"] for d in logged_moves]
    assert "the bot played exactly the logged moves" in ran.out
    result = json.loads(logged.read_text().splitlines()[-1])
    assert f"result: placements {result['placements']} (logged: {result['placements']})" in ran.out


def test_a_different_bot_departs_and_the_first_departure_is_named(logged):
    seat = _seat_of(logged, "greedy_bot")
    ran = run_arena("replay", logged, "--seat", str(seat), "--from", "2", "--bot", RAISING, "--others", RANDOM,
                    timeout=120)
    assert ran.status == 0, ran.err
    moves = _decisions(logged)
    departure = next(line for line in ran.out.splitlines() if "<- departs from the log" in line)
    number = int(departure.split()[0])
    # raising_bot answers the first legal action: it departs at one of its own decisions, not before
    first_own = next(d for d in moves[2:] if d["seat"] == seat)
    assert number >= first_own["i"] and f"first departure at decision {number}" in ran.out
    assert "ERROR in the bot's code: act() raised RuntimeError" in ran.out  # its own failures, shown per decision
    assert "result: placements" in ran.out


def test_the_bot_sees_the_whole_history_of_the_replayed_decisions():
    """The runner's prelude: its public events reach the seat with its first request."""
    from arena.games import new_game
    from arena.match.local import LocalSeat
    from arena.match.runner import play_game
    from arena.match.timecontrol import TimeControl

    state = new_game("maumau", 2, 9)
    prelude = []
    while len(prelude) < 6:
        action = state.legal_actions()[0]
        prelude.append(str(action))
        state.apply(action)

    class Watcher:
        histories: list = []

        def act(self, turn):
            self.histories.append(len(turn.history))
            return turn.legal[0]

    watcher = Watcher()
    outcome = trio.run(lambda: play_game("maumau", {}, 9, [LocalSeat(watcher), LocalSeat(Watcher())], TimeControl(),
                                         prelude=prelude))
    assert outcome.status == "finished" and outcome.decisions > len(prelude)
    assert watcher.histories[0] >= len(prelude)  # every replayed decision's public event, and the deal's
    with pytest.raises(ValueError, match="prelude decision 2"):
        trio.run(lambda: play_game("maumau", {}, 9, [LocalSeat(Watcher()), LocalSeat(Watcher())], TimeControl(),
                                   prelude=[prelude[0], "play Zz"]))


@pytest.mark.parametrize("extra, message", [
    (["--seat", "7", "--bot", GREEDY], "--seat 7: this game has seats 0..1"),
    (["--seat", "0", "--from", "9999", "--bot", GREEDY], "--from 9999: this replay has decisions 0.."),
    (["--seat", "0", "--bot", "/nonexistent/bot.py"], "bot file /nonexistent/bot.py does not exist"),
    (["--bot", GREEDY], "--bot needs --seat S"),
    (["--from", "3"], "--from, --others and --log-dir go with --bot CMD"),
    (["--seat", "0", "--bot", GREEDY, "--step", "3"], "does not combine with --verify, --step"),
])
def test_bad_takeovers_are_one_clear_line(logged, extra, message, arena_here):
    ran = arena_here("replay", logged, *extra)
    assert ran.status == 2 and message in ran.err and "Traceback" not in ran.err, ran.err


def test_a_takeover_after_the_last_decision_is_refused(logged, arena_here):
    last = len(_decisions(logged))
    ran = arena_here("replay", logged, "--seat", "0", "--from", str(last), "--bot", GREEDY)
    assert ran.status == 2 and f"the game is over after decision {last}" in ran.err, ran.err
