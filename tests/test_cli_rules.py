"""`arena rules` and `arena selfplay`, run through `arena.cli.main` as a user would."""

from __future__ import annotations

import copy
import re
import sys

import pytest

from arena import games
from arena.cli import main
from arena.games import registry
from arena.games.base import Action, GameError, GameState, Observation, OptionError, Result
from arena.games.registry import OptionSpec, RulesetInfo


class Discard(GameState):
    """A tiny game for the CLI's own tests: play any card from your hand; first to empty it wins."""

    VERBS = frozenset({"play"})
    ruleset = "tiny-discard"

    def __init__(self, position, options):
        self.position = position
        self.options = options
        self.players = len(position["hands"])

    @property
    def current(self):
        return None if self.is_over else self.position["current"]

    @property
    def decision(self):
        return "turn"

    @property
    def is_over(self):
        return any(not hand for hand in self.position["hands"])

    def legal_actions(self):
        return [] if self.is_over else [Action("play", (c,)) for c in self.position["hands"][self.current]]

    def default_action(self):
        return self.legal_actions()[0]

    def _apply_legal(self, action):
        self.position["hands"][self.current].remove(action.args[0])
        self.position["discard"].append(action.args[0])
        if not self.is_over:
            self.position["current"] = (self.position["current"] + 1) % self.players

    def observation(self, seat):
        hands = self.position["hands"]
        return Observation({
            "ruleset": self.ruleset, "seat": seat, "seat_count": self.players, "current": self.current,
            "decision": "turn", "hand": None if seat is None else list(hands[seat]),
            "hand_sizes": [len(h) for h in hands], "discard": list(self.position["discard"]),
            "stock_size": 0, "direction": 1, "scores": [0] * self.players,
        })

    def result(self):
        if not self.is_over:
            raise GameError("the game is still running")
        return Result.from_points([len(h) for h in self.position["hands"]], "a hand emptied")

    def to_position(self):
        return copy.deepcopy(self.position)

    def clone(self):
        return Discard(copy.deepcopy(self.position), dict(self.options))


def new_discard_game(players, seed, options):
    cards = [f"{r}s" for r in "6789TJQKA"]
    size = options["hand"]
    if options["loud"] and players != 2:  # a refusal that depends on the table, like DD MAU teams
        raise OptionError(f"loud games are for 2 seats, not {players}")
    return Discard({"hands": [cards[i * size:(i + 1) * size] for i in range(players)], "discard": [],
                    "current": seed % players}, options)


TINY = RulesetInfo(
    name="tiny-discard",
    title="Tiny Discard",
    seed_document="none (a test fixture)",
    min_players=2,
    max_players=3,
    summary="Play any card; the first seat to empty its hand wins.",
    new_game=new_discard_game,
    from_position=lambda position, options: Discard(copy.deepcopy(dict(position)), options),
    options={
        "hand": OptionSpec(3, "cards dealt to each seat", choices=(1, 2, 3)),
        "loud": OptionSpec(False, "an option that changes nothing"),
    },
    resolutions="T-1: the seat to start is the seed modulo the players.",
    default_players=2,
)


def seat_rows(out: str) -> list[list[str]]:
    """The body rows of the outcome table, as cells (rich draws columns with a vertical bar)."""
    rows = []
    for line in out.split("Outcome by seat")[1].splitlines():
        cells = [cell.strip() for cell in line.strip().strip("\u2502").split("\u2502")]
        if len(cells) == 4 and cells[0].isdigit():
            rows.append(cells)
    return rows


@pytest.fixture
def tiny(monkeypatch):
    monkeypatch.setitem(registry._REGISTRY, TINY.name, TINY)
    return TINY.name


def test_rules_lists_every_ruleset_with_players_and_summary(tiny, capsys):
    assert main(["rules"]) == 0
    out = capsys.readouterr().out
    for name in games.rulesets():
        assert name in out
    assert re.search(r"tiny-discard\s.*2-3", out)
    assert "Play any card" in out and "first seat to empty" not in out  # the first clause only


def test_rules_show_prints_options_defaults_choices_and_resolutions(tiny, capsys):
    assert main(["rules", "show", tiny]) == 0
    out = capsys.readouterr().out
    assert "Tiny Discard" in out and "none (a test fixture)" in out
    assert "2-3" in out
    assert re.search(r"hand\s+cards dealt.*\n\s+default 3\s.*\n\s+1, 2, 3", out)  # name, help; default; values
    assert re.search(r"loud\s.*\n\s+default False\s.*\n\s+true or false", out)
    assert "T-1: the seat to start" in out


def test_rules_show_says_its_seed_document_and_rules_md_are_not_shipped(capsys):
    """The seed document and the RULES.md numbers (A-22) it prints point outside the repository: it says so, rather
    than leave a reader looking for seeds/000_....txt or RULES.md."""
    assert main(["rules", "show", "moumou"]) == 0
    out = " ".join(capsys.readouterr().out.split())  # the paragraphs as one line, whatever the width
    assert re.search(r"Seed document: seeds/\S+\.txt \(not shipped: see Sources below\)", out)
    assert "(A-22)" in out and "Resolutions followed (numbered as in RULES.md)" in out
    assert ("Sources: the seed documents (seeds/...) and RULES.md, whose numbered resolutions (A-1, B-2, ...) the "
            "options and resolutions above cite, are the project's external specification") in out
    assert "not shipped with the arena" in out


def test_rules_show_unknown_name_lists_the_known_ones(tiny, capsys):
    assert main(["rules", "show", "no-such-game"]) == 2
    err = capsys.readouterr().err
    assert "unknown ruleset 'no-such-game'" in err
    assert "tiny-discard" in err


def test_selfplay_prints_the_outcome_table(tiny, capsys):
    assert main(["selfplay", tiny, "--games", "5", "--players", "3", "--seed", "4", "--option", "hand=2"]) == 0
    out = capsys.readouterr().out
    assert "Outcome by seat" in out
    rows = seat_rows(out)
    assert [row[0] for row in rows] == ["0", "1", "2"]
    # Seeds 4..8 start seats 1, 2, 0, 1, 2: the starter plays its 2 cards first and alone wins.
    assert [int(row[2]) for row in rows] == [1, 2, 2]
    assert [row[1] for row in rows] == ["1.80", "1.60", "1.60"]
    assert re.search(r"games\s+5\b", out)
    # Every game: the starter's 2 cards, and 1 card from each of the two others in between.
    assert re.search(r"decisions\s+20\b", out)
    assert "decisions/s" in out
    assert "hand=2" in out


def test_selfplay_defaults_to_the_ruleset_player_count(tiny, capsys):
    assert main(["selfplay", tiny, "--games", "2", "--seed", "0"]) == 0
    out = capsys.readouterr().out
    assert "2 players" in out


def test_selfplay_same_seed_gives_the_same_outcome(tiny, capsys):
    def outcome(out):
        return seat_rows(out), re.findall(r"(games|decisions)\s+(\d+)\s*$", out, re.MULTILINE)

    main(["selfplay", tiny, "--games", "4", "--seed", "9", "--players", "3"])
    first = outcome(capsys.readouterr().out)
    main(["selfplay", tiny, "--games", "4", "--seed", "9", "--players", "3"])
    second = outcome(capsys.readouterr().out)
    assert first == second
    assert len(first[0]) == 3 and [name for name, _ in first[1]] == ["games", "decisions"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["selfplay", "no-such-game"], "unknown ruleset 'no-such-game'"),
        (["selfplay", "tiny-discard", "--players", "7"], "is for 2-3 players, not 7"),
        (["selfplay", "tiny-discard", "--option", "colour=red"], "has no option colour"),
        (["selfplay", "tiny-discard", "--option", "hand=9"], "option hand"),
        (["selfplay", "tiny-discard", "--option", "hand=many"], "option hand"),
        (["selfplay", "tiny-discard", "--option", "loud"], "KEY=VALUE"),
        (["selfplay", "tiny-discard", "--games", "0"], "--games must be at least 1"),
        (["selfplay", "tiny-discard", "--seed", "-3"], "--seed must be a non-negative"),
        (["selfplay", "tiny-discard", "--players", "3", "--option", "loud=yes"], "loud games are for 2 seats, not 3"),
    ],
)
def test_selfplay_bad_input_is_a_clear_error(tiny, capsys, argv, message):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("arena: error: ")
    assert message in err


@pytest.mark.parametrize(
    "ruleset",
    games.rulesets() or [pytest.param(None, marks=pytest.mark.skip(reason="no ruleset is registered yet"))],
)
def test_selfplay_runs_every_registered_ruleset(ruleset, capsys):
    info = games.ruleset_info(ruleset)
    players = info.default_players or info.min_players
    assert main(["selfplay", ruleset, "--games", "2", "--seed", "11"]) == 0
    out = capsys.readouterr().out
    rows = seat_rows(out)
    assert len(rows) == players
    assert sum(int(row[2]) for row in rows) >= 2, "two games, each with at least one winner"


def test_bench_engine_prints_a_rate_per_ruleset_and_player_count(tiny, capsys, monkeypatch):
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "scripts" / "bench_engine.py"
    spec = importlib.util.spec_from_file_location("bench_engine", path)
    bench = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "bench_engine", bench)  # dataclasses look their module up
    spec.loader.exec_module(bench)
    assert bench.player_counts(tiny) == [2]  # the default; 4 is over tiny-discard's maximum
    assert bench.main(["--seconds", "0.05", "--rulesets", tiny]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if tiny in line)
    cells = [cell.strip() for cell in row.strip().strip("\u2502").split("\u2502")]
    assert cells[1] == "2" and int(cells[2]) >= 1
    assert int(cells[5].replace(",", "")) > 0  # decisions/s
    assert bench.main(["--rulesets", "no-such-game"]) == 2


def test_bench_engine_compares_round_by_round_with_the_matching_openspiel_table(monkeypatch):
    """Each round's ratio is ours over OpenSpiel's run of the same round at the matching table size; the
    column shows their median, which one loaded round cannot move, and the range."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "scripts" / "bench_engine.py"
    spec = importlib.util.spec_from_file_location("bench_engine", path)
    bench = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "bench_engine", bench)
    spec.loader.exec_module(bench)
    Run = bench.Run

    def runs(name, players, rates):
        return [Run(name, players, 1, rate, 1.0) for rate in rates]

    parts = {(bench.OPENSPIEL, 2): runs(bench.OPENSPIEL, 2, [100, 100, 100]),
             (bench.OPENSPIEL, 5): runs(bench.OPENSPIEL, 5, [200, 50, 100])}
    ours = runs("x", 4, [100, 100, 400])  # our 4 players against their 5, round by round
    assert bench.round_ratios(ours, parts, 4) == [0.5, 2.0, 4.0]
    assert bench.spread_text(bench.round_ratios(ours, parts, 4)) == "2.00 (0.50-4.00)"
    assert bench.round_ratios(ours, parts, 3) == []  # nobody to compare 3 players with
    assert bench.spread_text([]) == ""


def test_bench_engine_prints_clone_and_world_sample_rates(tiny, capsys, monkeypatch):
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "scripts" / "bench_engine.py"
    spec = importlib.util.spec_from_file_location("bench_engine", path)
    bench = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "bench_engine", bench)
    spec.loader.exec_module(bench)
    assert bench.main(["--seconds", "0.05", "--rounds", "1", "--rulesets", f"maumau,{tiny}"]) == 0
    out = capsys.readouterr().out
    search = out[out.index("Search primitives"):]
    rows = {cells[0] + "/" + cells[1]: cells for cells in (
        [cell.strip() for cell in line.strip().strip("\u2502").split("\u2502")]
        for line in search.splitlines() if line.startswith("\u2502"))}
    maumau = rows["maumau/2"]
    assert int(maumau[2].replace(",", "")) > 0 and int(maumau[4].replace(",", "")) > 0  # clone()/s, worlds/s
    assert int(maumau[5].replace(",", "")) >= 1  # a world costs at least a clone
    assert rows[f"{tiny}/2"][4] == "-"  # a toy ruleset has no world sampler
