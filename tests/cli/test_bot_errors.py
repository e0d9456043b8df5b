"""Errors in a bot's own code reach the arena: counted per seat, shown, and the same with or without a network.

The bot's `act` raises on every decision (tests/bots/raising_bot.py): the SDK answers the first
legal action and reports the failure in `Answer.bot_error`; `arena match --local` asks the bot through
the same SDK function. Both modes must give the same scores and the same error counts.
"""

from __future__ import annotations

import json
from pathlib import Path

from .conftest import ROOT

RAISING = str(ROOT / "tests" / "bots" / "raising_bot.py")
GREEDY = str(ROOT / "sample_bots" / "greedy_bot.py")


def _match(arena_here, tmp_path: Path, *extra: str) -> dict:
    ran = arena_here("match", f"raiser={RAISING}", f"greedy={GREEDY}", "--game", "prsi", "--games", "4",
                    "--seed", "11", "--json", "--replays", str(tmp_path / "replays"), *extra)
    assert ran.status == 0, ran.err + ran.out
    return {row["bot"]: row for row in json.loads(ran.out)["bots"]}


def test_a_bot_whose_act_raises_gets_the_same_result_and_error_count_locally_and_over_the_network(tmp_path, arena_here):
    served = _match(arena_here, tmp_path / "served", "--log-dir", str(tmp_path / "logs"))
    local = _match(arena_here, tmp_path / "local", "--local")
    keys = ("games", "wins", "losses", "draws", "points", "strikes", "forfeits", "errors")
    assert {bot: {k: row[k] for k in keys} for bot, row in served.items()} == \
        {bot: {k: row[k] for k in keys} for bot, row in local.items()}
    assert served["raiser"]["errors"] > 0 and served["raiser"]["strikes"] == 0 == served["raiser"]["forfeits"]
    assert served["greedy"]["errors"] == 0
    # The bot's log holds the traceback the SDK wrote for each failure.
    assert "RuntimeError: no idea what to do" in (tmp_path / "logs" / "raiser.log").read_text()


def test_the_match_table_shows_errors_and_says_where_the_failing_bots_log_is(tmp_path, arena_here):
    ran = arena_here("match", f"raiser={RAISING}", f"greedy={GREEDY}", "--game", "prsi", "--games", "2",
                    "--replays", str(tmp_path / "replays"))
    assert ran.status == 0, ran.err + ran.out
    out = " ".join((ran.out + ran.err).split())
    assert "errors" in ran.out and "error(s) in its own code" in out
    log_line = next(line for line in (ran.out + ran.err).splitlines() if "error(s) in its own code" in line)
    log_path = Path(log_line.rsplit("its log is ", 1)[1].strip())
    assert log_path.is_file() and "RuntimeError" in log_path.read_text()  # kept, though no --log-dir was given
    replays = sorted((tmp_path / "replays").rglob("*.jsonl"))
    assert replays
    lines = [json.loads(line) for line in replays[0].read_text().splitlines()]
    flagged = [line for line in lines if line.get("bot_error")]
    assert flagged and all("act() raised RuntimeError" in line["bot_error"] for line in flagged)
    result = lines[-1]
    assert sum(result["errors"]) == len(flagged)


def test_the_replay_viewer_marks_the_failing_decisions(tmp_path, arena_here):
    ran = arena_here("match", f"raiser={RAISING}", f"greedy={GREEDY}", "--game", "prsi", "--games", "1",
                    "--replays", str(tmp_path / "replays"), "--local")
    assert ran.status == 0, ran.err
    replay = next((tmp_path / "replays").rglob("*.jsonl"))
    lines = [json.loads(line) for line in replay.read_text().splitlines()]
    failing = [line["i"] for line in lines if line.get("bot_error")]
    shown = arena_here("replay", replay, "--step", str(failing[-1]), "--width", "160")
    assert shown.status == 0, shown.err
    text = " ".join(shown.out.split())
    assert f"{len(failing)} errors" in text or (len(failing) == 1 and "1 error" in text)  # the seat's row
    assert "ERROR in the bot's code: act() raised RuntimeError" in text  # the decision, in the omniscient view
    seat = arena_here("replay", replay, "--step", str(failing[-1]), "--width", "160", "--spectator")
    assert "ERROR" in seat.out and "RuntimeError" not in seat.out  # the bot's own words stay private
