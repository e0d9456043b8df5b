#!/usr/bin/env python3
"""How many decisions per second the rules engines make under random self-play.

    .venv/bin/python scripts/bench_engine.py                      # every ruleset, 3 s per run
    .venv/bin/python scripts/bench_engine.py --rulesets moumou,maumau --seconds 10
    .venv/bin/python scripts/bench_engine.py --rulesets moumou --profile

A decision is what the arena does per request: build the acting seat's
observation (the object, not its JSON), list the legal actions, apply one.
Each ruleset runs at its default player count and, where allowed, with 4.
Rates are per second of CPU time (game set-up included), so a busy machine
skews them less than wall time would.

If OpenSpiel is installed (``pip install -e '.[bench]'``; never a run-time
dependency) its ``crazy_eights`` runs in the same process under the same
loop, with ``observation_string`` for the acting player at every step, and
the table shows our rate over theirs: 2 players against their 2, 4 or more
against their 5.  Every run is cut into ``--rounds`` slices, ours and theirs
alternating, so a load that comes and goes weighs on both sides alike; the
last column is the median of the single rounds' ratios, with the lowest and
highest (on a shared machine the median is the steadier figure).

A second table gives what a search bot pays for its primitives, on states
taken from random games of each configuration: ``clone()`` per second, and
world samples per second (`games.sample_world` on the acting seat's
observation: the hidden cards dealt again, the position restored, the
observation checked), with how many clones one sample costs (both measured
in the same rounds, so the ratio hardly moves with the load), the rate of a
`WorldSampler` drawing ten worlds per observation (read once), the same
with the game's public history (a `Tracker` kept for each game and fed each
decision, as a bot does: the view and the tracker read once per ten worlds,
the tracker's update included) and, with OpenSpiel installed, our clones over theirs (``crazy_eights``
``State.clone``, the same table sizes as above).  ``--search-seconds 0``
leaves it out.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import random
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402

from arena import games  # noqa: E402
from arena.games.selfplay import MAX_DECISIONS, StalledGameError, chooser  # noqa: E402
from arena.games.worlds import Tracker, WorldSampler  # noqa: E402

OPENSPIEL_PLAYERS = (2, 5)


@dataclass
class Run:
    name: str
    players: int
    games: int
    decisions: int
    seconds: float

    @property
    def rate(self) -> float:
        return self.decisions / self.seconds if self.seconds else 0.0


def player_counts(ruleset: str) -> list[int]:
    """The default count and, where the ruleset allows it, a 4-player table."""
    info = games.ruleset_info(ruleset)
    counts = [info.default_players or info.min_players]
    if info.min_players <= 4 <= info.max_players and 4 not in counts:
        counts.append(4)
    return counts


def bench_ruleset(ruleset: str, players: int, seconds: float, seed: int) -> Run:
    """Whole random games back to back until ``seconds`` of CPU time have passed.

    One action picker for the whole run, as on OpenSpiel's side: seeding a
    fresh generator per game is harness work, not engine work.
    The loop is OpenSpiel's below, step for step (`selfplay.play_random_game`
    adds per-seat counts, a hook and a `PlayedGame` record per game).
    """
    rng = chooser(seed)
    played = decisions = 0
    started = time.process_time()
    while time.process_time() - started < seconds:
        state = games.new_game(ruleset, players=players, seed=seed + played)
        bound = decisions + MAX_DECISIONS
        while not state.is_over:
            state.observation(state.current)
            state.apply(rng.choice(state.legal_actions()))
            decisions += 1
            if decisions > bound:
                raise StalledGameError(f"{ruleset} ({players} players, seed {seed + played}) does not end")
        played += 1
    return Run(ruleset, players, played, decisions, time.process_time() - started)


def _crazy_eights(players: int):
    """OpenSpiel's crazy_eights with the settings every comparison uses, or None without OpenSpiel."""
    try:
        import pyspiel
    except ImportError:
        return None
    return pyspiel.load_game(
        "crazy_eights",
        {"players": players, "use_special_cards": True, "reshuffle": True, "max_turns": 10000},
    )


def bench_openspiel(players: int, seconds: float, seed: int) -> Run | None:
    game = _crazy_eights(players)
    if game is None:
        return None
    rng = random.Random(seed)
    played = decisions = 0
    started = time.process_time()
    while time.process_time() - started < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, weights = zip(*state.chance_outcomes())
                state.apply_action(rng.choices(outcomes, weights)[0])
                continue
            acting = state.current_player()
            state.observation_string(acting)
            state.apply_action(rng.choice(state.legal_actions()))
            decisions += 1
        played += 1
    return Run("OpenSpiel crazy_eights", players, played, decisions, time.process_time() - started)


#: States each search run cycles through, taken at spread decisions of random games.
SEARCH_STATES = 48


@dataclass
class SearchRun:
    """Clones and world samples of one configuration (``samples`` None: the ruleset has no sampler)."""

    name: str
    players: int
    clones: int
    clone_seconds: float
    samples: int | None
    sample_seconds: float
    prepared: int | None = None  # samples by a `WorldSampler` that read its observation once
    prepared_seconds: float = 0.0
    tracked: int | None = None  # the same with the public history (a `Tracker` per game)
    tracked_seconds: float = 0.0

    @property
    def clone_rate(self) -> float:
        return self.clones / self.clone_seconds if self.clone_seconds else 0.0

    @property
    def sample_rate(self) -> float | None:
        if self.samples is None:
            return None
        return self.samples / self.sample_seconds if self.sample_seconds else 0.0

    @property
    def prepared_rate(self) -> float | None:
        if self.prepared is None:
            return None
        return self.prepared / self.prepared_seconds if self.prepared_seconds else 0.0

    @property
    def tracked_rate(self) -> float | None:
        if self.tracked is None:
            return None
        return self.tracked / self.tracked_seconds if self.tracked_seconds else 0.0


def search_states(ruleset: str, players: int, seed: int, count: int = SEARCH_STATES) -> list:
    """`count` states of random games (every 7th decision), copies kept as they were, each with the game's
    public events before it (``state.history``: a clone records none of its own)."""
    rng = chooser(seed)
    states = []
    game = 0
    while len(states) < count:
        state = games.new_game(ruleset, players=players, seed=seed + game)
        try:
            log = state.record_events()
        except NotImplementedError:  # a game without public events (a test's toy game): no history column
            log = [None]
        decisions = 0
        while not state.is_over and len(states) < count and decisions < MAX_DECISIONS:
            if decisions % 7 == 3:
                copy = state.clone()
                states.append((copy, list(log)))
            state.apply(rng.choice(state.legal_actions()))
            decisions += 1
        game += 1
    return states


def bench_search(ruleset: str, records: list, seconds: float, seed: int) -> SearchRun:
    """A quarter of the time cloning the states in turn, a quarter sampling a world from each acting seat's
    view (`games.sample_world`), a quarter sampling ten worlds per view from a `WorldSampler` (the
    observation read once, as a search bot does), a quarter the same with the history: a `Tracker` per
    game, fed the events up to the state (a bot feeds it each decision: the new events only)."""
    states = [state for state, _ in records]
    clones = 0
    started = time.process_time()
    while time.process_time() - started < seconds / 4:
        for state in states:
            state.clone()
        clones += len(states)
    clone_seconds = time.process_time() - started
    rng = random.Random(seed)
    views = [(state.observation(state.current), state.options) for state in states]
    samples: int | None = 0
    prepared: int | None = 0
    started = time.process_time()
    try:
        while time.process_time() - started < seconds / 4:
            for view, options in views:
                games.sample_world(ruleset, view, rng, **options)
            samples += len(views)
        sample_seconds = time.process_time() - started
        started = time.process_time()
        while time.process_time() - started < seconds / 4:
            for view, options in views:
                sampler = WorldSampler(ruleset, view, **options)
                for _ in range(10):
                    sampler.sample(rng)
            prepared += 10 * len(views)
        prepared_seconds = time.process_time() - started
        # One tracker per game, fed up to each state in order (the states of a game come in order and
        # share the log's first event).
        games_of = []
        for _, log in records:
            same = bool(games_of) and log[0] is records[len(games_of) - 1][1][0]
            games_of.append(games_of[-1] if same else len(games_of))
        tracked = 0
        started = time.process_time()
        while time.process_time() - started < seconds / 4:
            trackers: dict[int, Tracker] = {}
            for (view, options), (_, log), game in zip(views, records, games_of):
                tracker = trackers.get(game)
                if tracker is None:
                    tracker = trackers[game] = Tracker(ruleset, **options)
                tracker.update(log)
                sampler = WorldSampler(ruleset, view, tracker, **options)
                for _ in range(10):
                    sampler.sample(rng)
            tracked += 10 * len(views)
        tracked_seconds = time.process_time() - started
    except games.WorldError:
        samples = prepared = tracked = None  # a ruleset without a world sampler (a test's toy game)
        sample_seconds = prepared_seconds = tracked_seconds = time.process_time() - started
    return SearchRun(states[0].ruleset, states[0].players, clones, clone_seconds, samples,
                     sample_seconds, prepared, prepared_seconds, tracked, tracked_seconds)


def bench_openspiel_clones(players: int, seconds: float, seed: int) -> SearchRun | None:
    game = _crazy_eights(players)
    if game is None:
        return None
    rng = random.Random(seed)
    states = []
    while len(states) < SEARCH_STATES:
        state = game.new_initial_state()
        decisions = 0
        while not state.is_terminal() and len(states) < SEARCH_STATES:
            if state.is_chance_node():
                outcomes, weights = zip(*state.chance_outcomes())
                state.apply_action(rng.choices(outcomes, weights)[0])
                continue
            if decisions % 7 == 3:
                states.append(state.clone())
            state.apply_action(rng.choice(state.legal_actions()))
            decisions += 1
    clones = 0
    started = time.process_time()
    while time.process_time() - started < seconds / 2:
        for state in states:
            state.clone()
        clones += len(states)
    return SearchRun(OPENSPIEL, players, clones, time.process_time() - started, None, 0.0)


def combined_search(parts: list[SearchRun]) -> SearchRun:
    samples = None if any(p.samples is None for p in parts) else sum(p.samples for p in parts)
    prepared = None if any(p.prepared is None for p in parts) else sum(p.prepared for p in parts)
    tracked = None if any(p.tracked is None for p in parts) else sum(p.tracked for p in parts)
    return SearchRun(parts[0].name, parts[0].players, sum(p.clones for p in parts),
                     sum(p.clone_seconds for p in parts), samples, sum(p.sample_seconds for p in parts),
                     prepared, sum(p.prepared_seconds for p in parts), tracked, sum(p.tracked_seconds for p in parts))


def search_table(configs: list[tuple[str, int]], seconds: float, rounds: int, seed: int, console: Console) -> Table:
    """Clone and world-sample rates of every configuration, ours and OpenSpiel's clones alternating by round."""
    states = {config: search_states(*config, seed) for config in configs}
    parts: dict[tuple[str, int], list[SearchRun]] = {}
    with console.status("benchmarking clones and world samples") as status:
        for round_ in range(rounds):
            for players in OPENSPIEL_PLAYERS:
                status.update(f"round {round_ + 1}/{rounds}: OpenSpiel crazy_eights clones, {players} players")
                run = bench_openspiel_clones(players, seconds / rounds, seed + round_)
                if run is not None:
                    parts.setdefault((OPENSPIEL, players), []).append(run)
            for config in configs:
                status.update(f"round {round_ + 1}/{rounds}: {config[0]}, {config[1]} players")
                parts.setdefault(config, []).append(
                    bench_search(config[0], states[config], seconds / rounds, seed + round_)
                )
    totals = {key: combined_search(runs) for key, runs in parts.items()}
    theirs = {players: totals[OPENSPIEL, players] for players in OPENSPIEL_PLAYERS if (OPENSPIEL, players) in totals}
    table = Table(
        title=f"Search primitives on states of random games ({seconds:g} s per configuration)",
        caption="clones per world: our clone rate over our world-sample rate, same rounds; "
                "ours/OS: our clones over OpenSpiel crazy_eights State.clone (2 against 2, 4+ against 5)",
    )
    table.add_column("ruleset", style="bold cyan", no_wrap=True)
    table.add_column("players", justify="right")
    table.add_column("clone()/s", justify="right", style="bold")
    table.add_column("ours/OS", justify="right")
    table.add_column("worlds/s", justify="right", style="bold")
    table.add_column("clones per world", justify="right")
    table.add_column("worlds/s, 10 per view", justify="right")
    table.add_column("with history", justify="right")
    table.add_column("history/none", justify="right")
    for config in configs:
        run = totals[config]
        reference = theirs.get(reference_players(run.players))
        rate = run.sample_rate
        table.add_row(
            run.name,
            str(run.players),
            f"{run.clone_rate:,.0f}",
            f"{run.clone_rate / reference.clone_rate:.2f}" if reference is not None and reference.clone_rate else "-",
            "-" if rate is None else f"{rate:,.0f}",
            "-" if not rate else f"{run.clone_rate / rate:,.0f}",
            "-" if run.prepared_rate is None else f"{run.prepared_rate:,.0f}",
            "-" if run.tracked_rate is None else f"{run.tracked_rate:,.0f}",
            "-" if not run.prepared_rate or run.tracked_rate is None else f"{run.tracked_rate / run.prepared_rate:.2f}",
        )
    for players, run in theirs.items():
        table.add_row(run.name, str(players), f"{run.clone_rate:,.0f}", "", "", "", "", "", "")
    return table


def profile_ruleset(ruleset: str, players: int, seconds: float, seed: int, console: Console) -> None:
    """Where the time goes: the functions with the most own time, then the most cumulative time."""
    profiler = cProfile.Profile()
    profiler.enable()
    bench_ruleset(ruleset, players, seconds, seed)
    profiler.disable()
    for order in ("tottime", "cumulative"):
        buffer = io.StringIO()
        pstats.Stats(profiler, stream=buffer).strip_dirs().sort_stats(order).print_stats(18)
        console.rule(f"{ruleset}, {players} players: by {order}")
        console.print(buffer.getvalue(), markup=False, highlight=False)


OPENSPIEL = "OpenSpiel crazy_eights"


def combined(parts: list[Run]) -> Run:
    return Run(parts[0].name, parts[0].players, sum(p.games for p in parts), sum(p.decisions for p in parts),
               sum(p.seconds for p in parts))


def reference_players(players: int) -> int | None:
    """Whose rate ours is compared with: 2 players with their 2, 4 or more with their 5 (3: nobody)."""
    return 2 if players == 2 else 5 if players >= 4 else None


def round_ratios(ours: list[Run], parts: dict, players: int) -> list[float]:
    """Ours over theirs for each round, lowest first: how much the machine's load moved the figure."""
    theirs = parts.get((OPENSPIEL, reference_players(players)))
    if not theirs:
        return []
    return sorted(mine.rate / other.rate for mine, other in zip(ours, theirs) if other.rate)


def spread_text(ratios: list[float]) -> str:
    """The per-round median with the lowest and highest: a burst of foreign load moves one round's
    ratio and the total's, the median hardly."""
    if not ratios:
        return ""
    return f"{statistics.median(ratios):.2f} ({ratios[0]:.2f}-{ratios[-1]:.2f})"


def comparison(run: Run, theirs: dict[int, Run]) -> str:
    reference = theirs.get(reference_players(run.players))
    return f"{run.rate / reference.rate:.2f}" if reference is not None else "-"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="engine time per run (default 3)")
    parser.add_argument(
        "--rulesets", default=None, help="comma-separated ruleset names (default: every registered ruleset)"
    )
    parser.add_argument("--seed", type=int, default=1, help="seed of the first game of each run (default 1)")
    parser.add_argument("--rounds", type=int, default=6,
                        help="slices each run is cut into, ours and OpenSpiel's alternating (default 6)")
    parser.add_argument("--profile", action="store_true", help="also profile each run with cProfile")
    parser.add_argument("--search-seconds", type=float, default=None,
                        help="time per configuration for clone() and world samples (default: --seconds; 0: skip)")
    args = parser.parse_args(argv)
    if args.rounds < 1 or args.seconds <= 0:
        parser.error("--rounds must be at least 1 and --seconds positive")
    search_seconds = args.seconds if args.search_seconds is None else args.search_seconds
    if search_seconds < 0:
        parser.error("--search-seconds must be 0 (skip) or positive")
    console = Console()
    if not console.is_terminal:  # piped or logged: room for the whole table
        console = Console(width=120)

    names = [n.strip() for n in args.rulesets.split(",") if n.strip()] if args.rulesets else games.rulesets()
    known = games.rulesets()
    unknown = [n for n in names if n not in known]
    if unknown:
        console.print(f"unknown ruleset(s) {', '.join(unknown)}; known: {', '.join(known) or 'none'}")
        return 2
    if not names:
        console.print("no ruleset is registered")
        return 2

    # Every configuration runs in short slices, round after round, ours and OpenSpiel's alternating:
    # load from other processes then weighs on both sides alike, so the ratio holds on a busy machine.
    configs = [(name, players) for name in names for players in player_counts(name)]
    slice_seconds = args.seconds / args.rounds
    parts: dict[tuple[str, int], list[Run]] = {}
    with console.status("benchmarking") as status:
        for round_ in range(args.rounds):
            for players in OPENSPIEL_PLAYERS:
                status.update(f"round {round_ + 1}/{args.rounds}: OpenSpiel crazy_eights, {players} players")
                run = bench_openspiel(players, slice_seconds, args.seed + round_)
                if run is not None:
                    parts.setdefault((OPENSPIEL, players), []).append(run)
            for name, players in configs:
                status.update(f"round {round_ + 1}/{args.rounds}: {name}, {players} players")
                parts.setdefault((name, players), []).append(
                    bench_ruleset(name, players, slice_seconds, args.seed + 100_000 * round_)
                )
    totals = {key: combined(runs) for key, runs in parts.items()}
    runs = [totals[config] for config in configs]
    theirs = {players: totals[OPENSPIEL, players] for players in OPENSPIEL_PLAYERS if (OPENSPIEL, players) in totals}
    spread = {key: round_ratios(parts[key], parts, key[1]) for key in configs}

    table = Table(
        title=f"Random self-play, observation at every decision ({args.seconds:g} s per run)",
        caption="ours / OpenSpiel: our 2 players against their 2, our 4 or more against their 5",
    )
    table.add_column("ruleset", style="bold cyan", no_wrap=True)
    table.add_column("players", justify="right")
    table.add_column("games", justify="right")
    table.add_column("decisions", justify="right")
    table.add_column("per game", justify="right")
    table.add_column("decisions/s", justify="right", style="bold")
    table.add_column("ours/OS", justify="right")
    table.add_column("per round: median (range)", justify="right", style="dim")
    for run in [*runs, *theirs.values()]:
        table.add_row(
            run.name,
            str(run.players),
            str(run.games),
            f"{run.decisions:,}",
            f"{run.decisions / run.games:,.0f}",
            f"{run.rate:,.0f}",
            comparison(run, theirs) if run.name in known else "",
            spread_text(spread.get((run.name, run.players), [])),
        )
    console.print(table)
    if not theirs:
        console.print("OpenSpiel is not installed (pip install -e '.[bench]'): no comparison.")
    if search_seconds:
        console.print(search_table(configs, search_seconds, args.rounds, args.seed, console))
    if args.profile:
        for run in runs:
            profile_ruleset(run.name, run.players, args.seconds, args.seed, console)
    return 0


if __name__ == "__main__":
    sys.exit(main())
