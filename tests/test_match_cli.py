"""`arena match`: bot specs, the duplicate-deal plan, the statistics, SPRT early stop, and real runs.

The end-to-end tests start `arena match` as a real subprocess: a real arena on
127.0.0.1 port 0 and the sample bots as real processes.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import trio

from arena.cli import CommandError, main
from arena.cli.match import (
    MatchRun,
    MatchStats,
    PlannedGame,
    choose_players,
    parse_bot,
    plan_games,
    play_all,
    unique_names,
)
from arena.games import ruleset_info
from arena.ladder.elo import SPRT
from arena.match.outcome import GameOutcome, SeatOutcome
from tests.terminal_signals import sigint_as_at_a_terminal

ROOT = Path(__file__).resolve().parents[1]
RANDOM_BOT = str(ROOT / "sample_bots" / "random_bot.py")
GREEDY_BOT = str(ROOT / "sample_bots" / "greedy_bot.py")
SEEDED_RANDOM_BOT = str(ROOT / "tests" / "bots" / "seeded_random_bot.py")


def outcome(planned, placements, status="finished"):
    seats = [SeatOutcome(seat=i, name=n, placement=placements[n], points=10 * placements[n])
             for i, n in enumerate(planned.seats)]
    return GameOutcome("g", "moumou", {}, planned.seed, status, seats)


def test_the_result_table_keeps_every_figure_whole_at_80_columns():
    from rich.console import Console

    from arena.cli.match import print_result

    names = ["tactician_v2_experimental", "greedy_bot", "random_bot"]
    stats = MatchStats(names)
    for planned in plan_games(names, 3, 6, base_seed=0):
        stats.add(planned, outcome(planned, {n: 1 + names.index(n) for n in planned.seats}))
    out = Console(width=80, record=True, color_system=None)
    print_result(out, MatchRun(plan_games(names, 3, 6, base_seed=0), stats, None))
    text = out.export_text()
    assert "…" not in text  # no ellipsis anywhere: no figure or header was cut
    assert "100.0%" in text and "forfeits" not in text  # no forfeits: no forfeits column
    assert all(len(line) <= 80 for line in text.splitlines())


# ---------------------------------------------------------------- bots and plan


def test_bot_specs_from_files_and_commands(tmp_path):
    spec = parse_bot(RANDOM_BOT)
    assert spec.name == "random_bot" and spec.argv == [sys.executable, RANDOM_BOT]
    command = parse_bot(f"{sys.executable} -u {GREEDY_BOT}")
    assert command.name == "greedy_bot" and command.argv[:2] == [sys.executable, "-u"]
    assert parse_bot(f"{sys.executable} {GREEDY_BOT} --style careful").name == "greedy_bot"  # not "careful"
    with pytest.raises(CommandError, match="does not exist"):
        parse_bot(str(tmp_path / "missing.py"))
    with pytest.raises(CommandError, match="not a file or a program on PATH"):
        parse_bot("no-such-program-xyz --fast")
    names = [s.name for s in unique_names([parse_bot(RANDOM_BOT), parse_bot(RANDOM_BOT), parse_bot(GREEDY_BOT)])]
    assert names == ["random_bot", "random_bot-2", "greedy_bot"]


def test_a_script_that_is_not_executable_is_told_how_to_run_it(tmp_path, monkeypatch):
    script = tmp_path / "js" / "mybot.js"
    script.parent.mkdir()
    script.write_text("console.log('hi')\n")
    script.chmod(0o644)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(CommandError) as refused:
        parse_bot("js/mybot.js")
    assert str(refused.value) == ("bot command 'js/mybot.js': js/mybot.js exists but is not executable: give its "
                                  'interpreter, e.g. "node js/mybot.js", or make it executable (chmod +x js/mybot.js)')
    with pytest.raises(CommandError, match="js is a folder, not a program"):
        parse_bot("js")
    script.chmod(0o755)
    monkeypatch.chdir(script.parent)  # executable, but a bare name is looked up on PATH only, as by a shell
    with pytest.raises(CommandError, match=r"mybot.js is a file here but not a program on PATH: give it as ./mybot.js"):
        parse_bot("mybot.js")


def test_a_bot_command_of_an_interpreter_and_a_script_is_named_after_the_script(tmp_path):
    script, other = tmp_path / "mybot.js", tmp_path / "strategy.bin"
    script.write_text("")
    other.write_text("")
    assert parse_bot(f"{sys.executable} {script}").name == "mybot"  # was the interpreter's name
    assert parse_bot(f"{sys.executable} --flag {other} --depth 3").name == "strategy"  # an existing file
    assert parse_bot(f"{sys.executable} -c pass").name == Path(sys.executable).name  # no script: the program


def test_local_refuses_a_command_before_it_prints_anything(capsys):
    status = main(["match", f"{sys.executable} {GREEDY_BOT} --x", RANDOM_BOT, "--game", "moumou", "--local"])
    out, err = capsys.readouterr()
    assert status == 2 and out == ""  # no Match:/Bots: header, no empty "Partial result" table
    assert err == f"arena: error: --local needs .py bot files; '{sys.executable} {GREEDY_BOT} --x' is a command\n"


def test_two_bots_play_each_deal_twice_with_seats_swapped():
    plan = plan_games(["a", "b"], 2, 5, base_seed=100)
    assert len(plan) == 6  # rounded up to whole deals
    assert [(p.seed, p.seats) for p in plan[:4]] == [
        (100, ("a", "b")), (100, ("b", "a")), (101, ("a", "b")), (101, ("b", "a"))]


def test_a_full_table_plays_every_rotation_and_extra_bots_cycle_through_tables():
    plan = plan_games(["a", "b", "c"], 3, 3, base_seed=0)
    assert [p.seats for p in plan] == [("a", "b", "c"), ("b", "c", "a"), ("c", "a", "b")]
    tables = {frozenset(p.seats) for p in plan_games(["a", "b", "c"], 2, 6, base_seed=0)}
    assert tables == {frozenset("ab"), frozenset("ac"), frozenset("bc")}


def test_player_count_follows_the_ruleset():
    moumou = ruleset_info("moumou")
    assert choose_players(moumou, 2, None) == 2
    with pytest.raises(CommandError, match="several times"):
        choose_players(ruleset_info("maumau-online"), 2, None)
    with pytest.raises(CommandError, match="3 seats need 3 bots"):
        choose_players(ruleset_info("maumau"), 2, 3)


# ---------------------------------------------------------------- statistics


def test_stats_count_games_pairs_and_aborts():
    stats = MatchStats(["a", "b"])
    plan = plan_games(["a", "b"], 2, 4, base_seed=0)
    stats.add(plan[0], outcome(plan[0], {"a": 1, "b": 2}))
    stats.add(plan[1], outcome(plan[1], {"a": 1, "b": 2}))   # pair 0: a scored 2 of 2
    stats.add(plan[2], outcome(plan[2], {"a": 2, "b": 1}))
    stats.add(plan[3], outcome(plan[3], {"a": 1, "b": 1}))   # pair 1: a scored 0.5 of 2
    stats.add(plan[3], GameOutcome("x", "moumou", {}, 0, "aborted"))
    a, b = stats.lines["a"], stats.lines["b"]
    assert (a.wins, a.losses, a.draws, a.games) == (2, 1, 1, 4)
    assert (b.wins, b.losses, b.draws) == (1, 2, 1)
    assert stats.pairs == [0, 1, 0, 0, 1]
    assert stats.aborted == 1 and stats.finished == 4
    assert a.score == pytest.approx(2.5 / 4) and a.average_place == pytest.approx(1.25)


def test_multi_seat_games_count_pairwise_by_placement():
    stats = MatchStats(["a", "b", "c"])
    planned = PlannedGame(0, 1, 0, ("a", "b", "c"))
    stats.add(planned, outcome(planned, {"a": 1, "b": 2, "c": 2}))
    assert (stats.lines["a"].wins, stats.lines["b"].draws, stats.lines["c"].losses) == (2, 1, 1)
    assert stats.elo() is None


def _run_with(result_for, sprt, games=2000):
    plan = plan_games(["a", "b"], 2, games, base_seed=0)
    run = MatchRun(plan, MatchStats(["a", "b"]), sprt)
    played = []

    async def play_one(planned):
        played.append(planned)
        await trio.lowlevel.checkpoint()
        return outcome(planned, result_for(planned, len(played)))

    trio.run(play_all, run, play_one, 4)
    return run, played


def test_sprt_stops_the_match_as_soon_as_it_decides():
    strong = lambda planned, n: {"a": 1, "b": 2} if n % 5 else {"a": 2, "b": 1}  # noqa: E731 - a wins 80%
    run, played = _run_with(strong, SPRT(0, 50))
    assert run.verdict == "H1"
    assert run.stats.finished < 200 and len(played) < 200

    weak = lambda planned, n: {"a": 2, "b": 1} if n % 4 else {"a": 1, "b": 2}  # noqa: E731
    run, _ = _run_with(weak, SPRT(0, 50))
    assert run.verdict == "H0" and run.stats.finished < 200


def test_without_sprt_every_planned_game_is_played():
    run, played = _run_with(lambda planned, n: {"a": 1, "b": 2}, None, games=10)
    assert len(played) == 10 and run.stats.finished == 10 and run.verdict is None


# ---------------------------------------------------------------- real runs


def _arena(*args, **kw):
    env = dict(os.environ, COLUMNS="200")
    return subprocess.run([sys.executable, "-m", "arena", "match", *args], capture_output=True, text=True,
                          cwd=ROOT, env=env, timeout=60, **kw)


def test_end_to_end_match_between_two_bot_processes(tmp_path):
    result = _arena(RANDOM_BOT, GREEDY_BOT, "--game", "moumou", "--games", "4", "--concurrency", "2",
                    "--seed", "11", "--replays", str(tmp_path))
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "Match: moumou, 2 players, 4 games (2 duplicate deal(s)), seeds 11..12" in out
    assert "Result: 4 games" in out
    rows = {line.split()[1]: line.split() for line in out.splitlines() if line.strip()[:1].isdigit()}
    assert set(rows) == {"random_bot", "greedy_bot"}
    assert all(row[2] == "4" for row in rows.values())                      # 4 games each
    assert int(rows["random_bot"][3]) + int(rows["greedy_bot"][3]) + int(rows["random_bot"][5]) == 4
    assert "Elo difference (random_bot - greedy_bot)" in out
    assert len(list(tmp_path.rglob("*.jsonl"))) == 4                        # one replay per game


def test_a_bot_that_fails_to_start_is_named_with_its_output(tmp_path):
    broken = tmp_path / "broken.py"
    broken.write_text("import sys\nprint('boom: model file missing', file=sys.stderr)\nsys.exit(3)\n")
    result = _arena(RANDOM_BOT, str(broken), "--game", "moumou", "--games", "2")
    assert result.returncode == 1  # a runtime failure, not a usage error
    assert "bot broken" in result.stderr and "exited with status 3" in result.stderr
    assert "boom: model file missing" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_bot_that_never_connects_is_named_after_the_connect_timeout(tmp_path):
    mute = tmp_path / "mute.py"
    mute.write_text("import sys, time\nprint('thinking about it', flush=True)\ntime.sleep(60)\n")
    result = _arena(RANDOM_BOT, str(mute), "--game", "moumou", "--games", "2", "--connect-timeout", "1.5")
    assert result.returncode == 1
    assert "bot mute" in result.stderr and "did not connect within 1.5 s" in result.stderr
    assert "thinking about it" in result.stderr
    leftovers = [p for p in Path("/proc").iterdir() if p.name.isdigit() and _cmdline_has(p, str(mute))]
    assert leftovers == []


def test_ctrl_c_stops_the_bots_and_prints_the_partial_result(tmp_path):
    bot = tmp_path / "victim.py"
    bot.write_text(Path(GREEDY_BOT).read_text())
    process = subprocess.Popen(
        [sys.executable, "-m", "arena", "match", RANDOM_BOT, str(bot), "--game", "moumou", "--games", "2000", "-v"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT, preexec_fn=sigint_as_at_a_terminal,
    )
    for line in process.stdout:
        if line.startswith("Finished game 2 "):
            break
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=30)
    assert process.returncode == 130, err
    assert "Partial result:" in out
    leftovers = [p for p in Path("/proc").iterdir() if p.name.isdigit() and _cmdline_has(p, str(bot))]
    assert leftovers == []


def _cmdline_has(proc: Path, text: str) -> bool:
    try:
        return text in (proc / "cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return False


def test_local_match_runs_in_process(capsys):
    status = main(["match", RANDOM_BOT, GREEDY_BOT, "--game", "maumau", "--games", "4", "--local", "--seed", "3"])
    assert status == 0
    out = capsys.readouterr().out
    assert "Result: 4 games" in out and "greedy_bot" in out


_PRINTING_BOT = """import sys
from mau_arena_sdk import Bot, run

print("loading")

class Chatty(Bot):
    def __init__(self):
        print("made")

    def on_game_start(self, info):
        print("game starts", file=sys.stderr)

    def act(self, turn):
        print("my turn")
        return turn.legal[0]

if __name__ == "__main__":
    run(Chatty())
"""


@pytest.mark.parametrize("log_dir", [False, True])
def test_local_bots_print_to_stderr_or_their_log_never_onto_the_json(tmp_path, log_dir):
    """As a bot process's output goes to its log, an in-process bot's prints stay off stdout, whose JSON parses."""
    import json

    bot = tmp_path / "chatty.py"
    bot.write_text(_PRINTING_BOT)
    logs = tmp_path / "logs"
    result = _arena(str(bot), RANDOM_BOT, "--game", "maumau", "--games", "2", "--seed", "5", "--local", "--json",
                    *(["--log-dir", str(logs)] if log_dir else []))
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["finished"] == 2, result.stdout
    printed = (logs / "chatty.log").read_text() if log_dir else result.stderr
    assert printed.count("loading\n") == 1 and printed.count("made\n") == 2, printed
    assert printed.count("game starts\n") == 2 and "my turn\n" in printed, printed
    if log_dir:
        assert "my turn" not in result.stderr and "Result" not in printed


_BROKEN_LOCAL_BOTS = {
    "exits": ("import sys\nfrom mau_arena_sdk import Bot, run\n\n"
              "class ExitBot(Bot):\n    def act(self, turn):\n        sys.exit(3)\n\n"
              "if __name__ == '__main__':\n    run(ExitBot())\n"),
    "argbot": ("from mau_arena_sdk import Bot, run\n\n"
               "class ArgBot(Bot):\n    def __init__(self, depth):\n        self.depth = depth\n\n"
               "    def act(self, turn):\n        return turn.legal[0]\n\n"
               "if __name__ == '__main__':\n    run(ArgBot(3))\n"),
    "unguarded": ("from mau_arena_sdk import Bot, run\n\n"
                  "class Plain(Bot):\n    def act(self, turn):\n        return turn.legal[0]\n\nrun(Plain())\n"),
    "refuses": "raise SystemExit('I refuse to start')\n",
    "initfails": ("from mau_arena_sdk import Bot\n\n"
                  "class NoModel(Bot):\n    def __init__(self):\n        raise RuntimeError('no model file')\n\n"
                  "    def act(self, turn):\n        return 0\n"),
}


@pytest.mark.parametrize("bot, status, message", [
    ("exits", 1, r"arena: error: bot exits \(\S+exits\.py\) exited with status 3: its code called sys\.exit\(\)"),
    ("argbot", 2, r"arena: error: --local makes a fresh ArgBot\(\) for every game, so its class must be "
                  r"constructible without arguments \(missing a required argument: 'depth'\)"),
    ("unguarded", 2, r"arena: error: cannot load bot \S+unguarded\.py: it calls run\(\) as it is imported; .*"
                     r"guard the call with `if __name__ == \"__main__\":`"),
    ("refuses", 1, r"arena: error: cannot load bot \S+refuses\.py: it exited while loading, with status 1 "
                   r"\(I refuse to start\)"),
    ("initfails", 1, r"arena: error: bot initfails \(\S+initfails\.py\): NoModel\(\) raised RuntimeError: no model file$"),
])
def test_a_broken_bot_file_under_local_gets_one_clear_line(bot, status, message, tmp_path):
    path = tmp_path / f"{bot}.py"
    path.write_text(_BROKEN_LOCAL_BOTS[bot])
    result = _arena(str(path), GREEDY_BOT, "--game", "moumou", "--games", "2", "--local")
    assert result.returncode == status, result.stdout + result.stderr
    assert re.match(message, result.stderr.strip().splitlines()[-1]), result.stderr
    assert "Traceback" not in result.stderr, result.stderr


def test_the_sdk_still_lets_sys_exit_in_act_stop_a_bot_process():
    """--local turns a SystemExit into the bot's exit; the SDK's decide() itself must not swallow it."""
    from mau_arena_sdk import Bot
    from mau_arena_sdk.decide import decide

    class Quitter(Bot):
        def act(self, turn):
            raise SystemExit(3)

    with pytest.raises(SystemExit):
        decide(Quitter(), turn=None)


def test_log_dir_keeps_an_earlier_matchs_log_and_appends_the_new_one(tmp_path, capsys):
    logs = tmp_path / "logs"
    for _ in range(2):
        assert main(["match", RANDOM_BOT, GREEDY_BOT, "--game", "moumou", "--games", "2", "--seed", "4",
                     "--log-dir", str(logs)]) == 0, capsys.readouterr()
    text = (logs / "random_bot.log").read_text()
    earlier, separator, later = text.partition(": a new match; the earlier output is above ---\n")
    assert separator and re.search(r"\n--- arena match \d{4}-\d\d-\d\d \d\d:\d\d:\d\d$", earlier), text
    assert "connected to 127.0.0.1:" in earlier and "connected to 127.0.0.1:" in later, text


def test_a_bots_last_output_is_from_this_match_not_from_the_earlier_log(tmp_path):
    from arena.cli.match_processes import BotProcess

    (tmp_path / "quitter.log").write_text("the earlier match's last words\n")
    spec = parse_bot(f"quitter={sys.executable} -c \"print('this match: bye')\"")
    process = BotProcess(spec, "127.0.0.1:1", 1, tmp_path)
    assert process.process.wait(timeout=30) == 0
    assert "this match: bye" in process.tail() and "earlier match" not in process.tail(), process.tail()
    assert (tmp_path / "quitter.log").read_text().startswith("the earlier match's last words\n")


def test_bad_arguments_are_clear_errors(capsys):
    assert main(["match", RANDOM_BOT, "--game", "moumou"]) == 2
    assert "at least two bots" in capsys.readouterr().err
    assert main(["match", RANDOM_BOT, GREEDY_BOT, "--game", "nosuch"]) == 2
    assert "unknown ruleset 'nosuch'" in capsys.readouterr().err
    assert main(["match", RANDOM_BOT, GREEDY_BOT, "--game", "moumou", "--sprt", "10", "0"]) == 2
    assert "elo1 > elo0" in capsys.readouterr().err
    assert main(["match", RANDOM_BOT, GREEDY_BOT, "--game", "moumou", "--option", "nonsense"]) == 2
    assert "KEY=VALUE" in capsys.readouterr().err
    afile = Path(__file__)  # a file where a folder is wanted: refused before any bot starts
    assert main(["match", RANDOM_BOT, GREEDY_BOT, "--game", "moumou", "--replays", str(afile)]) == 2
    assert "is a file, not a folder" in capsys.readouterr().err
    assert main(["match", RANDOM_BOT, GREEDY_BOT, "--game", "moumou", "--log-dir", str(afile)]) == 2
    assert "--log-dir" in capsys.readouterr().err
    assert main(["match", RANDOM_BOT, GREEDY_BOT, "--game", "moumou", "--local", "--recover"]) == 2
    assert "--local starts none" in capsys.readouterr().err
    assert main(["match", RANDOM_BOT, GREEDY_BOT, "--game", "moumou", "--local", "--hang-timeout", "5"]) == 2
    assert capsys.readouterr().err.endswith("--hang-timeout stops bot processes that hang; --local starts none\n")
    assert main(["match", f"a={RANDOM_BOT}", f"a={GREEDY_BOT}", "--game", "moumou"]) == 2
    assert "the name 'a' is given to two bots" in capsys.readouterr().err
    assert main(["match", RANDOM_BOT, GREEDY_BOT, "--game", "moumou", "--tc", "nobody:move=5"]) == 2
    assert "no bot is named 'nobody'" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exited:  # the engines refuse negative seeds: say so before any game
        main(["match", RANDOM_BOT, GREEDY_BOT, "--game", "moumou", "--seed", "-1"])
    assert exited.value.code == 2 and "must be 0 or more" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exited:  # a zero limit would time out every decision
        main(["match", RANDOM_BOT, GREEDY_BOT, "--game", "moumou", "--move-ms", "0"])
    assert exited.value.code == 2 and "must be at least 1" in capsys.readouterr().err


@pytest.mark.parametrize("flag, text, said", [
    ("--games", "abc", "argument --games: expected a positive whole number, not 'abc'"),
    ("--seed", "abc", "argument --seed: expected a whole number, 0 or more, not 'abc'"),
    ("--connect-timeout", "soon", "argument --connect-timeout: expected a number of seconds above 0, not 'soon'"),
    ("--hang-timeout", "0", "argument --hang-timeout: must be more than 0 and finite, not 0"),
    ("--hang-timeout", "inf", "argument --hang-timeout: must be more than 0 and finite, not inf"),
    ("--hang-timeout", "nan", "argument --hang-timeout: must be more than 0 and finite, not nan"),
])
def test_a_flag_that_is_no_number_says_what_is_expected(capsys, flag, text, said):
    with pytest.raises(SystemExit) as exited:
        main(["match", RANDOM_BOT, GREEDY_BOT, "--game", "moumou", flag, text])
    err = capsys.readouterr().err
    assert exited.value.code == 2 and err.endswith(f"arena match: error: {said}\n")
    assert "_positive" not in err and "_non_negative" not in err


def test_sprt_on_the_command_line_stops_a_lopsided_match_early(capsys):
    # Deterministic in outcome: the random side is seeded (`arena match --local` makes one per game), the
    # games run one at a time (so the SPRT sees them in plan order), and a minute per move leaves a loaded
    # machine no timeout that would hand a game to the weaker side. The bounds sit far below the
    # tactician's real margin (about +225 Elo over random in moumou): on deals 1.., 100.., 1000.., 5000..
    # and 77777.. H1 is accepted after 14-18 games. With (0, 150), close to that margin, the LLR wanders
    # near the bounds first (it crossed at 3.0 against 2.94 on seed 1; an unseeded run once accepted H0).
    tactician = str(ROOT / "sample_bots" / "tactician.py")
    status = main(["match", tactician, SEEDED_RANDOM_BOT, "--game", "moumou", "--games", "2000",
                   "--sprt", "-100", "50", "--local", "--seed", "1", "--concurrency", "1", "--move-ms", "60000"])
    assert status == 0
    out = capsys.readouterr().out
    assert "H1 accepted: tactician is stronger by at least 50 Elo" in out, out  # the whole table if not
    played = int(re.search(r"Result: (\d+) games", out).group(1))
    assert 4 <= played < 200, out  # stopped early: 2000 were planned


# ---------------------------------------------------------------- names, time controls, --recover, --log-dir

SCRIPTED_BOT = str(ROOT / "tests" / "bots" / "scripted_bot.py")


def test_bots_are_named_with_name_equals_or_name_options():
    from arena.cli.match_bots import name_bots

    specs = name_bots([parse_bot(f"new={RANDOM_BOT}"), parse_bot(f"old={sys.executable} {GREEDY_BOT} --style x")])
    assert [(s.name, s.named) for s in specs] == [("new", True), ("old", True)]
    assert specs[1].argv[1:] == [GREEDY_BOT, "--style", "x"]  # the name is not part of the command
    specs = name_bots([parse_bot(RANDOM_BOT), parse_bot(RANDOM_BOT)], ["v1", "v2"])
    assert [s.name for s in specs] == ["v1", "v2"]
    # automatic names step around chosen ones; an '=' inside a command is not a name
    specs = name_bots([parse_bot(f"random_bot-2={GREEDY_BOT}"), parse_bot(RANDOM_BOT), parse_bot(RANDOM_BOT)])
    assert [s.name for s in specs] == ["random_bot-2", "random_bot", "random_bot-3"]
    assert parse_bot(f"{sys.executable} {GREEDY_BOT} --depth=3").name == "greedy_bot"


@pytest.mark.parametrize("bots, names, message", [
    ([f"bad name!={RANDOM_BOT}"], [], "not a file or a program"),  # a space: not a name, so a command
    ([f"-x={RANDOM_BOT}"], [], "bad bot name '-x'"),
    ([f"{'n' * 33}={RANDOM_BOT}"], [], "use 1-32 letters"),
    ([f"a={RANDOM_BOT}", f"a={GREEDY_BOT}"], [], "the name 'a' is given to two bots"),
    ([RANDOM_BOT, GREEDY_BOT], ["same", "same"], "the name 'same' is given to two bots"),
    ([f"a={RANDOM_BOT}", GREEDY_BOT], ["b"], "named twice: a= and --name b"),
    ([RANDOM_BOT, GREEDY_BOT], ["a", "b", "c"], "3 --name values for 2 bots"),
    ([RANDOM_BOT, GREEDY_BOT], ["has space"], "bad bot name 'has space'"),
])
def test_bad_or_repeated_names_are_clear_errors(bots, names, message):
    from arena.cli.match_bots import name_bots

    with pytest.raises(CommandError, match=re.escape(message)):
        name_bots([parse_bot(text) for text in bots], names)


def test_a_time_control_per_bot_changes_only_that_bot():
    from arena.cli.match_bots import name_bots, time_controls
    from arena.match.timecontrol import TimeControl

    specs = name_bots([parse_bot(f"new={RANDOM_BOT}"), parse_bot(f"old={GREEDY_BOT}")])
    base = TimeControl()
    controls = time_controls(specs, base, ["new:move_ms=200,bank=1000", "strikes=5"])
    assert controls["new"] == TimeControl(move_ms=200, bank_ms=1000, max_strikes=5)
    assert controls["old"] == TimeControl(max_strikes=5)
    for bad, message in [("nobody:move_ms=1", "no bot is named 'nobody' (bots: new, old)"),
                         ("new:speed=3", "KEY one of move_ms"), ("new:move_ms=fast", "whole number"),
                         ("new:move_ms=0", "move_ms must be at least 1"), ("new:bank_ms", "[NAME:]KEY=VALUE")]:
        with pytest.raises(CommandError, match=re.escape(message)):
            time_controls(specs, base, [bad])


def test_each_bot_plays_under_its_own_time_control_and_its_name(tmp_path):
    import json

    slow = f"{sys.executable} {SCRIPTED_BOT} --sleep-ms 120"  # both think 120 ms on their first 3 decisions
    result = _arena(f"short={slow}", f"roomy={slow}", "--game", "moumou", "--games", "2", "--seed", "3",
                    "--tc", "short:move_ms=40,bank_ms=0,first_move_ms=0", "--json", "--replays", str(tmp_path))
    assert result.returncode == 0, result.stderr
    bots = {row["bot"]: row for row in json.loads(result.stdout)["bots"]}
    assert set(bots) == {"short", "roomy"}
    assert bots["roomy"]["timeouts"] == 0 and bots["roomy"]["forfeits"] == 0
    assert bots["short"]["timeouts"] == 6 and bots["short"]["forfeits"] == 2  # 3 strikes in each game
    assert "Time control of short: move_ms 40, bank_ms 0, first_move_ms 0" in result.stderr
    header = json.loads(next(tmp_path.rglob("*.jsonl")).read_text().splitlines()[0])
    by_seat = {seat["name"]: header["seat_time_controls"][seat["seat"]]["move_ms"] for seat in header["seats"]}
    assert by_seat == {"short": 40, "roomy": 1000}  # the replay says who played under which clock


def test_recover_restarts_a_crashed_bot_scores_its_game_as_lost_and_finishes_the_match(tmp_path):
    marker, logs = tmp_path / "crashed-once", tmp_path / "logs"
    crashy = f"crashy={sys.executable} {SCRIPTED_BOT} --crash-after 12 --crash-marker {marker}"
    result = _arena(crashy, RANDOM_BOT, "--game", "moumou", "--games", "4", "--seed", "3", "--recover",
                    "--log-dir", str(logs))  # the default 5 s reconnect window is not waited out: it resigned
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert marker.exists() and "Result: 4 games" in out  # it crashed, and every game was still played
    assert f"Bot crashy exited with status 5; restarting it (--recover); its log is {logs / 'crashy.log'}" in out
    header = next(line for line in out.splitlines() if line.split()[:2] == ["#", "bot"]).split()
    row = dict(zip(header, next(line for line in out.splitlines()
                                  if line.split()[:1] in (["1"], ["2"]) and line.split()[1] == "crashy").split()))
    assert (row["games"], row["crashes"]) == ("4", "1")
    assert row["forfeits"] == "1" and int(row["L"]) >= 1  # the game it crashed in: struck out, lost
    log = (logs / "crashy.log").read_text()
    assert "crashing on purpose at decision 12" in log and "restarted after exit status 5" in log
    assert (logs / "random_bot.log").exists()


def test_without_recover_a_crash_ends_the_match_naming_the_bot_and_its_kept_log(tmp_path):
    crashy = f"crashy={sys.executable} {SCRIPTED_BOT} --crash-after 30 --crash-marker {tmp_path / 'marker'}"
    result = _arena(crashy, RANDOM_BOT, "--game", "moumou", "--games", "4", "--seed", "3")
    assert result.returncode == 1
    found = re.search(r"bot crashy \(.*\) exited with status 5; its log is (\S+); its last output:", result.stderr)
    assert found, result.stderr
    assert "crashing on purpose" in Path(found.group(1)).read_text()  # the temporary log folder was kept
    assert "Partial result" in result.stdout and "Traceback" not in result.stderr


def _hanging(tmp_path, how: str, after: int = 30) -> tuple[str, Path]:
    """The BOT argument of a scripted bot whose process hangs at its ``after``th decision, once (``how``: stop,
    SIGSTOP; loop, an endless loop with SIGTERM blocked), and the marker that then holds its pid."""
    marker = tmp_path / f"hung-{how}"
    return (f"hang={sys.executable} {SCRIPTED_BOT} --hang-after {after} --hang {how} --hang-marker {marker}",
            marker)


def _gone(marker: Path) -> bool:
    """Whether the process whose pid ``marker`` holds has ended (reaped: no /proc entry of that bot)."""
    return not _cmdline_has(Path("/proc") / marker.read_text(), SCRIPTED_BOT)


def _row(out: str, name: str) -> dict[str, str]:
    header = next(line for line in out.splitlines() if line.split()[:2] == ["#", "bot"]).split()
    return dict(zip(header, next(line for line in out.splitlines()
                                 if line.split()[:1] in (["1"], ["2"], ["3"]) and line.split()[1] == name).split()))


@pytest.mark.parametrize("how", ["stop", pytest.param("loop", marks=pytest.mark.slow)])
def test_a_bot_that_hangs_mid_game_loses_on_time_then_is_stopped_as_hung_and_ends_the_match(tmp_path, how):
    """stop: SIGSTOP inside act (it answers nothing, not even the arena's keepalive); loop: an endless loop in act
    with SIGTERM blocked.  It forfeits that game on time; once it still owes its answer --hang-timeout after the
    game's end it is stopped (a stopped process gets its SIGTERM with a SIGCONT; the loop, deaf to it, is killed
    3 s later) and, without --recover, the match ends as at a crash: the bot named as hung, its log, the partial
    result, exit 1.  Before, the match ended on "game G could not start: bot 'hang' is not connected" once the
    keepalive had dropped the stopped one, and every later game of the looping one waited 60 s."""
    hang, marker = _hanging(tmp_path, how)
    result = _arena(hang, RANDOM_BOT, "--game", "moumou", "--games", "6", "--seed", "3", "--move-ms", "100",
                    "--bank-ms", "200", "--first-move-ms", "0", "--hang-timeout", "2", "-v")
    assert result.returncode == 1, result.stderr
    stopped = "killed \\(no exit within 3 s of its SIGTERM\\)" if how == "loop" else "stopped"
    found = re.search(r"bot hang \(.*\) hung \(no answer to request \d+ of game \S+ within 2 s of the game's end, "
                      rf"its process still running\) and was {stopped}; its log is (\S+); its last output:", result.stderr)
    assert found, result.stderr
    assert f"hanging on purpose ({how})" in Path(found.group(1)).read_text()
    assert "Bot hang hangs: no answer to request" in result.stdout and "Partial result" in result.stdout
    assert int(_row(result.stdout, "hang")["t/o"]) >= 1  # the game it hung in: timed out (forfeited, or it ended first)
    assert "Traceback" not in result.stderr and _gone(marker)


@pytest.mark.slow  # some 10-35 s
def test_recover_restarts_a_stopped_bot_the_other_games_go_on_and_every_game_is_counted(tmp_path):
    """A bot stopped (SIGSTOP) in its first or second game, with three bots two games at a time: the games it is
    in are lost on time, the others go on, its slots stay held until --hang-timeout after those games, it is
    stopped as hung (its SIGTERM reaches it with a SIGCONT), restarted with --recover, and every planned game
    is played and counted.  Before, its later games each waited the arena's 60 s hold and were forfeited, or
    the match ended on "bot 'hang' is not connected" once the keepalive had dropped it."""
    hang, marker = _hanging(tmp_path, "stop", after=12)
    logs = tmp_path / "logs"
    result = _arena(hang, RANDOM_BOT, f"other={sys.executable} {RANDOM_BOT}", "--game", "moumou", "--games", "12",
                    "--seed", "3", "--concurrency", "2", "--move-ms", "100", "--bank-ms", "200", "--first-move-ms",
                    "0", "--hang-timeout", "2", "--recover", "--log-dir", str(logs))
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "Result: 12 games" in out and "aborted" not in out.split("Result:")[1].splitlines()[0]
    assert re.search(r"Bot hang hung \(no answer to request \d+ of game \S+ within 2 s of the game's end, its process "
                     r"still running\) and was stopped; restarting it \(--recover\)", out), out
    row = _row(out, "hang")
    assert (row["games"], row["hangs"]) == ("8", "1") and int(row["t/o"]) >= 1
    assert {_row(out, name)["games"] for name in ("random_bot", "other")} == {"8"}
    log = (logs / "hang.log").read_text()
    assert "hanging on purpose (stop)" in log and "restarted after it hung (no answer to request" in log
    assert _gone(marker)


@pytest.mark.slow  # some 15-25 s
def test_a_bot_whose_connection_dropped_and_that_stays_away_is_stopped_as_hung(tmp_path):
    """A process alive whose stream is gone for good (a stopped process, once the arena's keepalive dropped it):
    the next game that needs it waits --hang-timeout for it to come back, then it is stopped and the match
    ends naming it.  Before: at once, "game G could not start: bot 'vanish' is not connected".  (When a second
    game seated it before its stream's end was seen, that game's unanswered request may be what tells first.)"""
    vanish = f"vanish={sys.executable} {ROOT / 'tests' / 'bots' / 'misbehaving.py'} vanish"
    result = _arena(vanish, RANDOM_BOT, "--game", "moumou", "--games", "4", "--seed", "3", "--hang-timeout", "2")
    assert result.returncode == 1, result.stderr
    assert re.search(r"bot vanish \(.*\) hung \((its connection to the arena dropped and it did not come back within "
                     r"2 s|no answer to request \d+ of game \S+ within 2 s of the game's end), its process still "
                     r"running\) and was stopped; its log is \S+; its last output:\n"
                     r"    \[vanish\] vanishing: stream closed, the process stays", result.stderr), result.stderr
    assert "Partial result" in result.stdout
    leftovers = [p for p in Path("/proc").iterdir() if p.name.isdigit() and _cmdline_has(p, "misbehaving.py vanish")]
    assert leftovers == []


@pytest.mark.slow  # some 15-25 s
def test_ctrl_c_while_a_bot_hangs_kills_it_after_the_grace_and_prints_the_partial_result(tmp_path):
    """Ctrl-C while a bot hangs in a loop that blocks SIGTERM (before --hang-timeout finds it out): the match
    stops at once, the bot is killed after the grace period, the partial result is printed, exit 130."""
    hang, marker = _hanging(tmp_path, "loop", after=1)
    process = subprocess.Popen(
        [sys.executable, "-m", "arena", "match", hang, RANDOM_BOT, "--game", "moumou", "--games", "40", "--seed", "3",
         "--move-ms", "100", "--bank-ms", "200", "--first-move-ms", "0", "-v"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT, preexec_fn=sigint_as_at_a_terminal)
    for line in process.stdout:
        if line.startswith("Finished game") and marker.exists():
            break  # it hangs (since its first decision): it owes its answer, for 30 s before it would be stopped
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=30)
    assert process.returncode == 130, err
    assert "Partial result:" in out and "Bot hang did not exit within 3 s of SIGTERM: killed" in out
    assert _gone(marker)


#: Processes that hang as a bot may, each ready once it has stopped itself (the test waits for that, not a time).
_STOPS_ITSELF = "import os, signal; os.kill(os.getpid(), signal.SIGSTOP)"
_IGNORES_SIGTERM = ("import os, signal, time; signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM}); "
                    "os.kill(os.getpid(), signal.SIGSTOP); time.sleep(600)")
_LEAVES_A_CHILD = ("import os, signal, subprocess, sys; child = subprocess.Popen([sys.executable, '-c', %r]); "
                   "os.waitpid(child.pid, os.WUNTRACED); open(%r, 'w').write(str(child.pid)); "
                   "os.kill(os.getpid(), signal.SIGSTOP); signal.pause()")


def test_stopping_bots_that_hang_takes_one_grace_period_then_kills_them_and_what_they_started(tmp_path):
    """The end of a match: a stopped bot gets its SIGTERM (with a SIGCONT: before, it stayed stopped until the
    SIGKILL), a bot that blocks SIGTERM is killed once the grace period is over, and a bot's own child that
    ignores SIGTERM dies with it (its process group; before, only the bot was signalled and the child lived
    on); the grace period is shared (before, one each after the other)."""
    import select

    from arena.cli.match_bots import BotSpec
    from arena.cli.match_processes import BotProcess, stop_all

    child_pid = tmp_path / "child-pid"
    codes = {"stops": _STOPS_ITSELF, "blocks": _IGNORES_SIGTERM,
             "parent": _LEAVES_A_CHILD % (_IGNORES_SIGTERM, str(child_pid))}
    bots = [BotProcess(BotSpec("-c", [sys.executable, "-c", code], name), "127.0.0.1:1", 1, tmp_path)
            for name, code in codes.items()]
    for bot in bots:
        os.waitpid(bot.process.pid, os.WUNTRACED)  # stopped itself: ready (the parent once its child is)
    child = os.pidfd_open(int(child_pid.read_text()))
    killed = stop_all(bots, grace_s=0.5)
    assert [bot.name for bot in killed] == ["blocks"]
    assert [bot.process.returncode for bot in bots] == [-signal.SIGTERM, -signal.SIGKILL, -signal.SIGTERM]
    assert select.select([child], [], [], 30)[0] == [child]  # the child has ended too (its pidfd is readable)
    os.close(child)
