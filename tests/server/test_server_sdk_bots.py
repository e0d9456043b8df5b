"""End to end: SDK sample bots as real processes play a real ruleset through the server."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import trio

from arena import games

REFERENCE_RULESET = "moumou"  # short games; the one the benchmarks use
from arena.match.timecontrol import TimeControl
from server_helpers import serve

ROOT = Path(__file__).resolve().parents[2]
RANDOM_BOT = ROOT / "sample_bots" / "random_bot.py"


@pytest.mark.skipif(not RANDOM_BOT.exists() or REFERENCE_RULESET not in games.rulesets(), reason="needs sample_bots/random_bot.py and a real ruleset")
def test_two_sdk_bot_processes_play_a_game_and_exit_cleanly():
    ruleset = REFERENCE_RULESET
    processes = []

    async def director(handle):
        for name in ("left", "right"):
            processes.append(subprocess.Popen(
                [sys.executable, str(RANDOM_BOT), "--arena", f"127.0.0.1:{handle.port}", "--name", name,
                 "--games-limit", "1", "--log-level", "WARNING"],
                cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            ))
        await handle.wait_for_sessions(["left", "right"], timeout_s=60)
        outcome = await handle.play_game(ruleset, {}, 4242, ["left", "right"], TimeControl(move_ms=5000))
        codes = [await trio.to_thread.run_sync(lambda p=p: p.wait(timeout=30)) for p in processes]
        return outcome, codes

    try:
        outcome, codes = serve(director)
    finally:
        for process in processes:
            process.kill()
            process.wait()
    assert outcome.status == "finished", outcome.reason
    assert sorted(s.placement for s in outcome.seats) in ([1, 2], [1, 1])
    assert all(s.strikes == 0 and s.decisions > 0 for s in outcome.seats)
    assert codes == [0, 0], [p.stdout.read() for p in processes]
