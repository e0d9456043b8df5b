"""The JavaScript starter kit's steady pacing (starter_kits/node/pace.js, bot.js --steady) follows the Python SDK's.

A bot that answers its forced decisions (one legal action) at once and thinks over the others tells the table what
its hand lacked.  The kit holds each answer to a pace learned from its own think times, by the rules of
`mau_arena_sdk.pace`: first pace.js, run by a real node process on fixed samples, against the Python functions;
then the kit playing Mau-Mau against a Python bot on a real arena, whose recorded think times show every forced
answer at least as slow as the pace the kit said it held it to.
"""

from __future__ import annotations

import json
import re
import subprocess
import threading
import time
from pathlib import Path

import pytest
import trio

from arena.match.timecontrol import TimeControl
from mau_arena_sdk.pace import Pacer
from server_helpers import AutoBot, blocking, serve
from tests.sdk.sdk_fake_arena import ABORT, FakeArena, game_ended, game_started, welcome
from tests.sdk.sdk_fake_arena import turn as fake_turn

KIT = Path(__file__).resolve().parents[2] / "starter_kits" / "node"


def _choices(key, thinks, move_ms=60_000):
    """Steps of decisions with a choice under ``key`` that took ``thinks`` (seconds), one a second apart."""
    return [{"key": key, "think": think, "move_ms": move_ms, "choice": True} for think in thinks]


def _forced(key, think=0.001, move_ms=60_000):
    return [{"key": key, "think": think, "move_ms": move_ms, "choice": False}]


T = ["moumou", 2, "turn"]
CASES = {
    "cold: no choice seen yet, the hold is the cold pace less the think time": _forced(T),
    "cold per the move limit: half of 300 ms": _forced(T, move_ms=300),
    "no limit left: no hold": _forced(T, move_ms=0),
    "quantile: the 90th percentile of the last 64 choices (the first 6 forgotten)":
        _choices(T, [(i * 37 % 100 + 1) / 1000 for i in range(70)]) + _forced(T),
    "quantile of a few": _choices(T, [0.05, 0.01, 0.03]) + _forced(T) + _choices(T, [0.2]) + _forced(T),
    "fallback: kind, then table size, then ruleset, then every choice":
        _choices(T, [0.10, 0.12]) + _choices(["moumou", 3, "turn"], [0.30])
        + _choices(["crazy8", 2, "turn"], [0.5]) + _forced(["moumou", 2, "suit"]) + _forced(["moumou", 4, "turn"])
        + _forced(["uno", 2, "turn"]) + _forced(T) + _forced(["moumou", 3, "cover"]),
    "cap at half the move limit": _choices(T, [2.0, 2.5]) + _forced(T, move_ms=1000) + _forced(T, move_ms=8000),
    "an answer slower than the pace goes at once": _choices(T, [0.1, 0.1]) + _choices(T, [0.3]) + _forced(T, think=0.4),
}

#: Feeds pace.js's Pacer the steps on stdin (a fixed clock, in ms) and prints [pace before, hold] per step (ms).
NODE_SCRIPT = """
const {Pacer} = require(process.argv[1]);
const steps = JSON.parse(require("fs").readFileSync(0, "utf8"));
let now = 0;
const pacer = new Pacer({clock: () => now});
const out = steps.map((step, i) => {
  const received = 1000 * (i + 1);
  now = received + 1000 * step.think;
  const pace = pacer.pace(step.key);
  return [pace, pacer.holdMs(step.key, received, step.move_ms, step.choice)];
});
console.log(JSON.stringify(out));
"""


def _python(steps):
    now = 0.0
    pacer = Pacer(clock=lambda: now)
    out = []
    for i, step in enumerate(steps):
        received = float(i + 1)
        now = received + step["think"]
        key = tuple(step["key"])
        pace = pacer.pace(key)
        out.append([pace * 1000, pacer.hold_s(key, received, step["move_ms"], step["choice"]) * 1000])
    return out


@pytest.mark.parametrize("case", list(CASES))
def test_pace_js_computes_the_python_sdks_pace_and_hold(node_kit, case):
    node, _ = node_kit
    steps = CASES[case]
    ran = subprocess.run([node, "-e", NODE_SCRIPT, str(KIT / "pace.js")], input=json.dumps(steps),
                         capture_output=True, text=True, timeout=30)
    assert ran.returncode == 0, ran.stderr
    got, wanted = json.loads(ran.stdout), _python(steps)
    assert len(got) == len(wanted)
    for step, (js, python) in enumerate(zip(got, wanted)):
        assert js == pytest.approx(python, abs=1e-6), (case, step)


def test_the_python_reference_numbers_are_what_the_rules_say():
    """The table's expectations in plain numbers (so a change to both sides together still shows)."""
    assert _python(CASES["cold: no choice seen yet, the hold is the cold pace less the think time"])[-1] == \
        pytest.approx([250, 249])
    assert _python(CASES["cold per the move limit: half of 300 ms"])[-1] == pytest.approx([250, 149])
    quantile = _python(CASES["quantile: the 90th percentile of the last 64 choices (the first 6 forgotten)"])[-1]
    last64 = sorted((i * 37 % 100 + 1) for i in range(6, 70))
    assert quantile[0] == pytest.approx(last64[57])  # nearest rank: ceil(0.9 * 64) = 58
    fallback = [pace for pace, _ in _python(CASES["fallback: kind, then table size, then ruleset, then every choice"])[-5:]]
    assert fallback == pytest.approx([120, 300, 500, 120, 300])
    assert [hold for _, hold in _python(CASES["cap at half the move limit"])[-2:]] == pytest.approx([499, 2499])
    assert _python(CASES["an answer slower than the pace goes at once"])[-1] == pytest.approx([300, 0])


#: How long the kit's strategy takes over a decision with a choice (its "thinking": a blocking wait, not a spin).
THINK_MS = 40
#: The kit's strategy made slow over choices, bot.js used as a library.
SLOW_BOT = """
const kit = require(process.env.KIT_BOT);
const nap = new Int32Array(new SharedArrayBuffer(4));
kit.main((observation, legal) => {
  if (legal.length > 1) Atomics.wait(nap, 0, 0, Number(process.env.THINK_MS));
  return kit.choose(observation, legal);
});
"""
TIME = TimeControl(move_ms=3000, bank_ms=5000, increment_ms=0, first_move_ms=5000, max_strikes=3)
ANSWER_LINE = re.compile(r"request \d+ \((\w*), (\d+) legal\): thought [\d.]+ ms, pace ([\d.]+) ms, hold ([\d.]+) ms")


class _Recorder:
    def __init__(self) -> None:
        self.decisions: list[tuple[int, int, bool]] = []  # (seat, think_ms, timeout)

    def decision(self, seat, action_text, think_ms, timeout, strike, state_hash, bot_error=""):
        self.decisions.append((seat, think_ms, timeout))

    def finish(self, record):
        pass

    def abort(self, reason):
        pass


def test_a_steady_kit_bot_answers_no_forced_decision_faster_than_its_pace(node_kit, tmp_path):
    node, _ = node_kit
    script = tmp_path / "slow_bot.js"
    script.write_text(SLOW_BOT)
    recorder = _Recorder()

    async def director(handle):
        bot = subprocess.Popen([node, str(script), "--arena", f"127.0.0.1:{handle.port}", "--name", "node",
                                "--games-limit", "1", "--steady", "--verbose"],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               env={"KIT_BOT": str(KIT / "bot.js"), "THINK_MS": str(THINK_MS), "PATH": "/usr/bin:/bin"})
        try:
            other = AutoBot(handle.port, "python", games=1, seed=3)
            with trio.fail_after(20):
                await handle.wait_for_sessions(["node", other.name], timeout_s=20)
            outcome = await handle.play_game("maumau", {}, 21, ["node", other.name], TIME, recorder=recorder)
            output, _ = await blocking(lambda: bot.communicate(timeout=30))
            return outcome, bot.returncode, output
        finally:
            if bot.poll() is None:
                bot.kill()
                bot.wait()

    outcome, code, output = serve(director)
    assert code == 0 and outcome.status == "finished", (outcome.reason, output)
    seat = next(i for i, s in enumerate(outcome.seats) if s.name == "node")
    assert outcome.seats[seat].timeouts == 0, output
    mine = [(think_ms, timeout) for s, think_ms, timeout in recorder.decisions if s == seat]
    answers = [(int(legal), float(pace), float(hold)) for _, legal, pace, hold in ANSWER_LINE.findall(output)]
    assert len(answers) == len(mine), output  # one line per answer, in the arena's order
    forced = [(think_ms, pace) for (think_ms, _), (legal, pace, _) in zip(mine, answers) if legal == 1]
    chosen = [think_ms for (think_ms, _), (legal, _, _) in zip(mine, answers) if legal > 1]
    assert len(forced) >= 3 and chosen, (len(forced), len(chosen), output)
    # The arena's clock runs from its request to the answer; the kit's hold from the request's arrival: so the
    # arena sees at least the pace (less the rounding to whole ms).
    slower = [(think_ms, pace) for think_ms, pace in forced if think_ms < pace - 1]
    assert not slower, (slower, output)
    # Every pace was learned from choices of THINK_MS or more (or is the cold 250 ms): a forced answer is never
    # quicker than a thought-over one (unpaced, the kit's forced answers took a ms or two).
    assert min(think_ms for think_ms, _ in forced) >= THINK_MS - 1, forced



def _turn(request_id, legal, move_ms):
    """A TurnRequest of the scripted game g1 with ``legal`` in both forms and a move limit of ``move_ms``."""
    message = fake_turn("g1", request_id, legal)
    message.turn.time.move_ms = move_ms
    for text in legal:
        verb, *args = text.split()
        message.turn.legal_actions.add(verb=verb, args=args, text=text)
    return message


#: The kit's think time over the scripted game's one choice: the forced answer after it is held this long, well
#: past the kit's reconnect (backoff 200 ms), so the request comes back while the answer is held.
LONG_THINK_MS = 800


def test_a_held_answer_is_sent_once_and_not_early_when_its_request_comes_back_after_a_resume(node_kit, tmp_path):
    """A scripted arena (the real one re-asks a decision it saw cut off under a new request id; the same id
    comes back when the bot resumes before the arena noticed the drop) drops the stream while the kit holds
    a forced answer, then re-sends that request on the resumed session: the kit must send the held answer once,
    when its hold ends (a kit that answered the re-sent request at once was early; one that also released the
    held answer answered twice)."""
    node, _ = node_kit
    script = tmp_path / "slow_bot.js"
    script.write_text(SLOW_BOT)
    received = threading.Event()  # the kit logged its answer line for request 2: it holds that answer now
    timeline: dict[str, float] = {}

    def arena(hello, inbox, send, stream, context):
        send(welcome("sess-9"))
        send(game_started("g1", ruleset="maumau"))
        if stream == 1:
            send(_turn(1, ["play 7h", "draw"], 3000))  # a choice: the kit thinks LONG_THINK_MS, the pace learns it
            assert inbox.get(timeout=10).answer.request_id == 1
            timeline["asked"] = time.monotonic()
            send(_turn(2, ["draw"], 3000))            # forced: held for the pace
            assert received.wait(10)
            send(ABORT)                               # dropped while the answer is held
            return
        send(_turn(2, ["draw"], 3000))                # the open request again, on the resumed session
        answer = inbox.get(timeout=10)
        timeline["answered"] = time.monotonic()
        assert answer.answer.request_id == 2
        send(game_ended("g1"))
        assert inbox.get(timeout=10) is None          # nothing more: the held answer went out once

    with FakeArena(arena) as fake:
        bot = subprocess.Popen([node, str(script), "--arena", fake.address, "--name", "me", "--games-limit", "1",
                                "--steady", "--verbose"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               env={"KIT_BOT": str(KIT / "bot.js"), "THINK_MS": str(LONG_THINK_MS),
                                    "PATH": "/usr/bin:/bin"})
        lines = []
        try:
            for line in bot.stdout:
                lines.append(line)
                if " request 2 (" in line:
                    received.set()
            bot.wait(timeout=30)
        finally:
            if bot.poll() is None:
                bot.kill()
                bot.wait()
    output = "".join(lines)
    assert bot.returncode == 0, output
    assert "resumed the session" in output and "request 2 re-sent: its answer is still held" in output, output
    assert "answering it again" not in output, output
    (legal, pace, hold), = [(int(l), float(p), float(h)) for r, l, p, h in ANSWER_LINE.findall(output) if l == "1"]
    assert pace >= LONG_THINK_MS and hold > 0, output
    assert timeline["answered"] - timeline["asked"] >= pace / 1000, (timeline, output)  # not before the pace
