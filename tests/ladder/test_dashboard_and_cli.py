"""The dashboard and leaderboard rendering, `arena bots`, `arena leaderboard`, and serve's refusals."""

from __future__ import annotations

import json
import time

import pytest
from rich.console import Console

from arena.cli import main
from arena.ladder.auth import LadderAuthenticator
from arena.ladder.dashboard import DashboardView, FinishedGame, RunningGame, plain_summary, render_dashboard
from arena.ladder.standings import compute_standings
from arena.ladder.store import LadderStore, SeatRecord


def populated_store(path):
    store = LadderStore.open(path)
    results = [("alpha", "beta")] * 6 + [("beta", "alpha")] * 2 + [("alpha", "gamma")] * 3 + [("gamma", "beta")] * 2
    for k, (winner, loser) in enumerate(results):
        store.game_started(f"g{k}", "moumou", {}, k, f"s{k}", 0, [winner, loser])
        store.game_ended(
            f"g{k}", "finished",
            [SeatRecord(0, winner, placement=1, points=0), SeatRecord(1, loser, placement=2, points=5, timeouts=1, strikes=1)],
        )
    return store


def test_dashboard_shows_leaderboard_running_games_and_header(tmp_path):
    store = populated_store(tmp_path / "a.db")
    now = time.monotonic()
    view = DashboardView(address="127.0.0.1:50051", started=now - 120, connected=["alpha", "beta"], finished=13)
    view.standings["moumou"] = compute_standings(store, "moumou", connected=["alpha"])
    view.live_elo["moumou"] = {"alpha": 1540.0}
    view.running["x1"] = RunningGame("x1", "moumou", ("alpha", "gamma"), "1/2", now - 3)
    view.latest.append(FinishedGame("g12", "moumou", "gamma 1st, beta 2nd", 40, 1.5))
    console = Console(record=True, width=80)  # the live view must fit a plain terminal
    console.print(render_dashboard(view, now=now))
    text = console.export_text()
    assert "127.0.0.1:50051" in text and "up 2:00" in text and "6.5 games/min" in text
    lines = [line.split() for line in text.splitlines() if "alpha" in line and "±" in line]
    assert lines, text
    assert lines[0][:2] == ["1", "alpha"]  # alpha leads
    assert "1540" in lines[0]  # live Elo column
    assert "±95%" in text and "games running now" in text
    assert "alpha, gamma" in text
    assert max(len(line) for line in text.splitlines()) <= 80
    assert "gamma 1st, beta 2nd" in text
    summary = plain_summary(view, now=now)
    assert "finished 13" in summary and "1. alpha" in summary


def test_standings_count_wins_timeouts_strikes(tmp_path):
    rows = {r.bot: r for r in compute_standings(populated_store(tmp_path / "a.db"), "moumou")}
    assert (rows["alpha"].games, rows["alpha"].wins) == (11, 9)
    assert (rows["beta"].timeouts, rows["beta"].strikes) == (8, 8)
    assert rows["alpha"].rank == 1 and rows["alpha"].rating > rows["beta"].rating


def test_leaderboard_command_prints_the_table(tmp_path, capsys):
    populated_store(tmp_path / "a.db").close()
    assert main(["leaderboard", "--db", str(tmp_path / "a.db"), "--game", "moumou"]) == 0
    out = capsys.readouterr().out
    for header in ("rating", "−/+ 95%", "games", "score", "wins", "timeouts", "strikes"):
        assert header in out
    assert out.index("alpha") < out.index("gamma") < out.index("beta")
    assert main(["leaderboard", "--db", str(tmp_path / "a.db"), "--game", "nope"]) == 2
    assert "unknown ruleset 'nope'" in capsys.readouterr().err
    # a known ruleset with no games yet is an empty result, not a bad argument (the README's exit status rule)
    assert main(["leaderboard", "--db", str(tmp_path / "a.db"), "--game", "maumau"]) == 0
    assert f"no finished maumau games in {tmp_path / 'a.db'} yet (rulesets with games: moumou)" in capsys.readouterr().out
    assert main(["leaderboard", "--db", str(tmp_path / "a.db"), "--game", "maumau", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"maumau": []}
    assert main(["leaderboard", "--db", str(tmp_path / "missing.db")]) == 2


def test_bots_add_list_remove(tmp_path, capsys):
    db = str(tmp_path / "b.db")
    assert main(["bots", "add", "greedy", "--db", db]) == 0
    token = capsys.readouterr().out.splitlines()[1].strip()
    assert len(token) >= 24
    store = LadderStore.open(db, recover=False)
    auth = LadderAuthenticator(store, open_registration=False)
    assert auth("greedy", token, "ipv4:127.0.0.1:1") is None
    assert main(["bots", "list", "--db", db]) == 0
    assert "greedy" in capsys.readouterr().out
    assert main(["bots", "add", "bad name!", "--db", db]) == 2
    assert main(["bots", "remove", "greedy", "--db", db]) == 0
    assert main(["bots", "remove", "greedy", "--db", db]) == 2


def test_authenticator_refusals(tmp_path):
    store = LadderStore.open(tmp_path / "c.db")
    store.add_bot("registered", "right-token")
    closed = LadderAuthenticator(store, open_registration=False)
    assert closed("registered", "right-token", "peer") is None
    assert closed("registered", "right-token", "peer") is None  # remembered, still right
    assert "wrong token" in closed("registered", "wrong-token", "peer")
    assert "--token" in closed("registered", "", "peer")
    assert "not registered" in closed("stranger", "", "peer")
    assert "arena bots add stranger" in closed("stranger", "", "peer")
    open_ = LadderAuthenticator(store, open_registration=True)
    assert open_("stranger", "", "peer") is None
    # Open registration never lets anyone take a registered name.
    assert "wrong token" in open_("registered", "guess", "peer")


def test_serve_refuses_open_registration_off_loopback(tmp_path, capsys):
    code = main(["serve", "--host", "0.0.0.0", "--port", "0", "--db", str(tmp_path / "d.db")])
    assert code == 2
    err = capsys.readouterr().err
    assert "refusing to serve on 0.0.0.0 with open registration" in err and "--registered-only" in err
    assert main(["serve", "--demo", "--registered-only", "--port", "0", "--db", str(tmp_path / "d.db")]) == 2
    assert main(["serve", "--game", "no-such-game", "--port", "0", "--db", str(tmp_path / "d.db")]) == 2
    assert "unknown ruleset" in capsys.readouterr().err


def test_serve_login_limits_are_checked_in_one_line_before_anything_starts(tmp_path, capsys):
    """The flags for large ladders (docs/deploy.md, "Sizing for many bots") refuse nonsense before the database."""
    db = tmp_path / "d.db"
    for flag, value, low in (("--max-pending-hellos", "0", 1), ("--auth-workers", "0", 1), ("--auth-queue", "-1", 0),
                             ("--auth-failures-per-address", "0", 1), ("--auth-refusals-held", "-1", 0)):
        assert main(["serve", "--port", "0", "--db", str(db), flag, value]) == 2
        assert f"{flag} must be at least {low}, not {value}" in capsys.readouterr().err
    assert not db.exists()


def test_serve_on_a_taken_port_or_a_database_in_use_fails_in_one_line_and_touches_nothing(tmp_path, capsys):
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        # a runtime failure (1), not a usage error (2)
        assert main(["serve", "--port", port, "--db", str(tmp_path / "d.db"), "--replays", str(tmp_path / "r")]) == 1
    err = capsys.readouterr().err
    assert f"port {port} on 127.0.0.1 is in use" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "d.db").exists()
    live = LadderStore.open(tmp_path / "live.db")  # as a running `arena serve` holds it
    live.game_started("g1", "moumou", {}, 7, "s1", 0, ["a", "b"])
    assert main(["serve", "--port", "0", "--db", str(tmp_path / "live.db"), "--replays", str(tmp_path / "r")]) == 1
    assert "in use by another `arena serve`" in capsys.readouterr().err
    assert {g.id: g.status for g in live.games()}["g1"] == "running"
    live.close()
    folder = tmp_path / "folder"
    folder.mkdir()
    assert main(["serve", "--port", "0", "--db", str(folder), "--replays", str(tmp_path / "r")]) == 2
    assert "is a directory, not a ladder database file" in capsys.readouterr().err
    assert not (tmp_path / "folder.lock").exists()
    assert main(["serve", "--port", "0", "--db", str(tmp_path / "e.db"), "--replays", str(tmp_path / "live.db")]) == 2
    assert "is a file, not a folder" in capsys.readouterr().err


def test_serve_options_are_checked_by_the_ruleset_and_the_demo_shortens_dd_mau(tmp_path, capsys):
    import argparse

    from arena.cli.serve import _options
    from arena.games import rulesets

    db = ["--port", "0", "--db", str(tmp_path / "d.db"), "--replays", str(tmp_path / "r")]
    assert main(["serve", "--game", "moumou", "--option", "moumou:nosuch=1", *db]) == 2
    assert "moumou has no option nosuch" in capsys.readouterr().err
    assert main(["serve", "--game", "moumou", "--option", "limit=51", *db]) == 2
    assert "RULESET:KEY=VALUE" in capsys.readouterr().err
    assert not (tmp_path / "d.db").exists()
    if "ddmau" in rulesets():  # a 505-point DD MAU match is minutes long: the demo plays one hand
        demo = argparse.Namespace(demo=True, option=None)
        assert _options(demo, {"ddmau": 2}) == {"ddmau": {"max_hands": 1}}
        assert _options(argparse.Namespace(demo=True, option=["ddmau:max_hands=3"]), {"ddmau": 2}) == {
            "ddmau": {"max_hands": 3}}
        assert _options(argparse.Namespace(demo=False, option=None), {"ddmau": 2}) == {}


def test_dashboard_with_many_rulesets_stays_short(tmp_path):
    """A ladder over every ruleset: the busiest get tables, the others one line each."""
    store = populated_store(tmp_path / "a.db")
    rows = compute_standings(store, "moumou")
    view = DashboardView(address="127.0.0.1:1")
    for k, ruleset in enumerate(["r1", "r2", "r3", "r4", "r5"]):
        view.standings[ruleset] = rows[: 1 + k % 3]
    console = Console(record=True, width=80)
    console.print(render_dashboard(view))
    text = console.export_text()
    assert text.count("Bradley-Terry ratings") == 2
    assert sum(line.startswith(("r1:", "r2:", "r3:", "r4:", "r5:")) for line in text.splitlines()) == 3


def test_the_ladder_refuses_options_that_leave_a_game_no_bound_below_the_runners_abort(tmp_path, capsys):
    """A seat losing a game it could stall into the runner's unrated abort would erase its loss: `arena serve`
    and the director itself refuse such options in one line, before the database."""
    from arena.games import OptionError
    from arena.ladder.director import LadderDirector, LadderSettings

    db = tmp_path / "d.db"
    for option, ruleset in (("ddmau:decision_limit=0", "ddmau"), ("mose:decision_limit=50000", "mose"),
                            ("maumau:decision_limit=0", "maumau")):
        assert main(["serve", "--game", ruleset, "--option", option, "--port", "0", "--db", str(db)]) == 2
        err = capsys.readouterr().err.strip()
        assert f"{ruleset} with decision_limit=" in err and "abort at 50000 decisions" in err and "\n" not in err
    assert not db.exists()
    with pytest.raises(OptionError, match="^ddmau with decision_limit=0 has no bound"):
        LadderDirector(None, LadderSettings(players={"ddmau": 4}, options={"ddmau": {"decision_limit": 0}}))
    LadderDirector(None, LadderSettings(players={"ddmau": 4, "mose": 10}, options={"ddmau": {"decision_limit": 49999}}))
