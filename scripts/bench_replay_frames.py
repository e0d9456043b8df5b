"""The web replay's work for one view of a long game (`arena.web.frames.replay_json`: re-simulation, every frame,
its JSON), as the game grows: with the seats' marks counted once along the game (this tree) and, in the same run,
counted from the start for every frame (the reference: how it was, quadratic in the game's length).

    python scripts/bench_replay_frames.py [--lengths 1000,2000,4000] [--runs 3] [--view spectator]

Plays DD MAU (4 seats, random legal actions, seed 1: its random games run long) into a replay stopped at each
length, then prints per length the median CPU seconds of each and their ratio, and checks both answers are the
same bytes.  Linear work shows as a per-decision time that stays flat as the length doubles.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path

from arena.games import new_game
from arena.replay import ReplayWriter
from arena.replay.render import FrameBuilder
from arena.web.frames import replay_json


def record(directory: Path, decisions: int, seed: int = 1) -> Path:
    """A 4-seat DD MAU game of random legal actions, stopped after ``decisions`` (a timeout every 17th, a strike
    every 29th, so there are marks to count)."""
    state = new_game("ddmau", 4, seed)
    chooser = random.Random(seed)
    header = {"game_id": f"long-{decisions}", "ruleset": "ddmau", "players": 4, "seed": seed,
              "options": dict(state.options), "seats": [{"name": f"bot{i}", "version": "1"} for i in range(4)],
              "time_control": {"move_ms": 1000}, "started_at": "2026-11-22T04:00:00Z"}
    writer = ReplayWriter.create(directory, header)
    count = 0
    while not state.is_over and count < decisions:
        seat = state.current
        action = chooser.choice(state.legal_actions())
        state.apply(action)
        count += 1
        writer.decision(seat, str(action), think_ms=1, timeout=count % 17 == 0,
                        strike=count % 29 == 0, state_hash=state.state_hash())
    return writer.finish(state.result()) if state.is_over else writer.abort(f"stopped after {decisions} decisions")


def counted_from_the_start(builder: FrameBuilder, step: int) -> tuple:
    """The reference: each frame's marks counted from the game's first decision."""
    replay = builder.replay
    rows = [[0, 0, 0] for _ in range(replay.players)]
    for decision in replay.decisions[:step]:
        if 0 <= decision.seat < replay.players:
            row = rows[decision.seat]
            row[0] += decision.strike
            row[1] += decision.timeout
            row[2] += bool(decision.bot_error)
    return tuple(tuple(row) for row in rows)


def timed(path: Path, game_id: str, view: str) -> tuple[float, bytes]:
    started = time.process_time()
    body = replay_json(str(path), game_id, "ddmau", view)  # a fresh game id: the worker's builder is not reused
    return time.process_time() - started, body


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lengths", default="1000,2000,4000")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--view", default="spectator")
    args = parser.parse_args()
    counted_once = FrameBuilder.marks_before
    print(f"{'decisions':>9}  {'counted once':>12}  {'ms/decision':>11}  {'from the start':>14}  "
          f"{'ms/decision':>11}  {'ratio':>5}  same bytes")
    with tempfile.TemporaryDirectory() as folder:
        for length in (int(n) for n in args.lengths.split(",")):
            path = record(Path(folder), length)
            now, before, bodies = [], [], set()
            for run in range(args.runs):
                FrameBuilder.marks_before = counted_once
                seconds, body = timed(path, f"now-{length}-{run}", args.view)
                now.append(seconds)
                bodies.add(body)
                FrameBuilder.marks_before = counted_from_the_start
                seconds, body = timed(path, f"before-{length}-{run}", args.view)
                before.append(seconds)
                bodies.add(body.replace(f"before-{length}-{run}".encode(), f"now-{length}-{run}".encode()))
            FrameBuilder.marks_before = counted_once
            a, b = statistics.median(now), statistics.median(before)
            print(f"{length:>9}  {a:>10.2f} s  {1000 * a / length:>11.3f}  {b:>12.2f} s  {1000 * b / length:>11.3f}  "
                  f"{b / a:>5.2f}  {len(bodies) == args.runs}")


if __name__ == "__main__":
    main()
