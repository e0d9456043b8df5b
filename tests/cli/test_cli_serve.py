"""`arena serve` as a user runs it: Ctrl-C on the demo drains (no aborted game), exits 130;
an unwritable database is one line with a runtime status."""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from .conftest import ROOT, run_arena
from tests.process_lines import Lines
from tests.terminal_signals import sigint_as_at_a_terminal


def counts(db) -> dict[str, int]:
    try:
        connection = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
    except sqlite3.OperationalError:
        return {}
    try:
        return dict(connection.execute("SELECT status, COUNT(*) FROM games GROUP BY status").fetchall())
    except sqlite3.OperationalError:  # not created yet
        return {}
    finally:
        connection.close()


def wait_for(condition, timeout: float, what: str):
    """A bounded poll of an outside process's state (the database another process writes)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


@pytest.mark.slow  # real sample bots playing real games: some 6-10 s
def test_ctrl_c_on_the_demo_lets_running_games_finish_and_exits_130(tmp_path):
    db, replays = tmp_path / "demo.db", tmp_path / "replays"
    # A session of its own: the server leads a process group, as a shell's foreground job does,
    # and the SIGINT below goes to that whole group, as the terminal's Ctrl-C would.
    server = subprocess.Popen(
        [sys.executable, "-m", "arena", "serve", "--demo", "--port", "0", "--game", "moumou", "--plain",
         "--summary-every", "1000", "--drain", "60", "--db", str(db), "--replays", str(replays)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=str(tmp_path), start_new_session=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)}, preexec_fn=sigint_as_at_a_terminal,
    )
    try:
        wait_for(lambda: counts(db).get("finished", 0) >= 1 and counts(db).get("running", 0) >= 1, 60,
                 "a finished game and one running")
        os.killpg(server.pid, signal.SIGINT)
        out, _ = server.communicate(timeout=90)
    finally:
        if server.poll() is None:
            server.kill()
            server.wait(10)
    assert server.returncode == 130, out
    final = counts(db)
    assert final.get("aborted", 0) == 0 and final.get("running", 0) == 0, (final, out)
    # The bots lived through the drain: had Ctrl-C reached them too, their running games would
    # have ended by forfeit (every seat timing out) and the server would report them gone.
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as connection:
        assert connection.execute("SELECT COALESCE(SUM(forfeited), 0) FROM seats").fetchone()[0] == 0
    assert "exited with status" not in out, out
    # --plain says at once that it is draining and how to abort (the live view shows it as its note); the final
    # line says what happened, and no developer line (`between games:` is for --timings)
    stopping = out.index("stopping (Ctrl-C; again to abort running games): letting ")
    stopped = out.index("stopped (Ctrl-C): ")
    assert stopping < stopped and " 0 aborted" in out[stopped:], out
    assert "between games" not in out, out
    assert (replays / "demo-bots.log").is_file()  # the bots' output, in the folder serve owns
    assert not (tmp_path / "demo-bots.log").exists()  # not left in the working directory


@pytest.mark.slow  # two real bots that think 300 ms a move: some 4-6 s
def test_ctrl_c_while_a_sigterm_drains_aborts_the_games_says_so_and_exits_130(tmp_path):
    """Whatever stopped the ladder first (SIGTERM here; --duration and --max-games alike), a Ctrl-C while its games
    drain aborts them: the output says so at once and in the last line, and the status is 130, as for any
    interrupted command (it was 0, with a last line that said only "stopped (SIGTERM)")."""
    db = tmp_path / "arena.db"
    server = subprocess.Popen(
        [sys.executable, "-m", "arena", "serve", "--port", "0", "--game", "moumou", "--plain", "--summary-every",
         "1000", "--drain", "600", "--move-ms", "5000", "--db", str(db), "--replays", str(tmp_path / "replays")],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=str(tmp_path), start_new_session=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)}, preexec_fn=sigint_as_at_a_terminal,
    )
    bots: list[subprocess.Popen] = []
    try:
        lines = Lines(server)
        port = lines.until(r"arena listening on [\d.]+:(\d+)").group(1)
        for name in ("slow-a", "slow-b"):  # 300 ms a move: a game outlasts the test by far
            bots.append(subprocess.Popen(
                [sys.executable, str(ROOT / "tests" / "bots" / "thinking_bot.py"), "--arena", f"127.0.0.1:{port}",
                 "--name", name], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
                env={**os.environ, "PYTHONPATH": str(ROOT), "THINK_MS": "300"}))
        wait_for(lambda: counts(db).get("running", 0) >= 1, 60, "a running game")
        server.send_signal(signal.SIGTERM)
        lines.until(r"^stopping \(SIGTERM; again to abort running games\): letting \d+ running games finish")
        server.send_signal(signal.SIGINT)
        lines.until(r"^stopping \(Ctrl-C\): aborting \d+ running games")
        out = lines.rest()
        server.wait(30)
    finally:
        for process in [server, *bots]:
            if process.poll() is None:
                process.kill()
            process.wait(10)
    assert server.returncode == 130, out
    assert re.search(r"^stopped \(SIGTERM, aborted by Ctrl-C\): \d+ games finished, [1-9]\d* aborted", out, re.M), out
    assert counts(db).get("running", 0) == 0


def test_serve_on_an_unwritable_database_fails_in_one_line_with_a_runtime_status(tmp_path):
    (tmp_path / "plain-file").write_text("a file, so nothing can be created under it (even by root)")
    ran = run_arena("serve", "--port", "0", "--db", tmp_path / "plain-file" / "arena.db", "--replays",
                    tmp_path / "replays")
    assert ran.status == 1, ran
    db = tmp_path / "plain-file" / "arena.db"
    assert ran.err == f"arena: error: {db}: {db.parent} is a file, not a folder\n"
    assert "Traceback" not in ran.err + ran.out
    assert not (tmp_path / "replays").exists()  # nothing made before the failure


SERVE_A_SECOND = ["serve", "--port", "0", "--duration", "1"]  # were --db taken, serve would stop by itself


@pytest.mark.parametrize("command", [SERVE_A_SECOND, ["bots", "add", "b"], ["leaderboard"]])
def test_a_database_url_of_another_kind_is_refused_and_creates_nothing(tmp_path, command, arena_here):
    ran = arena_here(*command, "--db", "mysql://user:secret@db.example/arena", cwd=tmp_path)
    assert ran.status == 2, ran
    assert ran.err.startswith("arena: error: --db: mysql:// is not a supported database") and ran.err.count("\n") == 1
    assert "a SQLite file path or a URL postgresql://" in ran.err and "secret" not in ran.err
    assert list(tmp_path.iterdir()) == []  # no ./mysql:/ folder, no SQLite file


@pytest.mark.parametrize("url", ["postgresql:/127.0.0.1/arena", "postgres:/user:secret@db/arena", "PostgreSQL:db"])
def test_a_postgresql_url_missing_its_two_slashes_is_refused_as_such(tmp_path, url, arena_here):
    # it used to be read as a SQLite path: "the folder postgresql:/127.0.0.1 does not exist"
    ran = arena_here("leaderboard", "--db", url, cwd=tmp_path)
    assert ran.status == 2, ran
    assert ran.err == ("arena: error: --db: a PostgreSQL URL starts with postgresql:// (two slashes): "
                       "postgresql://USER[:PASSWORD]@HOST[:PORT]/DBNAME\n")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("command", [SERVE_A_SECOND, ["bots", "add", "b"]])
def test_a_database_in_a_missing_folder_is_refused_and_the_folder_not_made(tmp_path, command, arena_here):
    db = tmp_path / "no" / "such" / "a.db"
    ran = arena_here(*command, "--db", db, "--replays", tmp_path / "replays", cwd=tmp_path) if command[0] == "serve" \
        else arena_here(*command, "--db", db, cwd=tmp_path)
    assert ran.status == 2, ran
    assert ran.err == f"arena: error: --db {db}: the folder {db.parent} does not exist (it is not created: make it first)\n"
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("seconds", ["0", "-1", "nan"])
def test_serve_refuses_a_summary_interval_that_is_not_positive(tmp_path, seconds, arena_here):
    ran = arena_here(*SERVE_A_SECOND, "--plain", "--summary-every", seconds, cwd=tmp_path)
    assert ran.status == 2, ran
    assert ran.err == f"arena: error: --summary-every must be positive, not {float(seconds)}\n"
    assert list(tmp_path.iterdir()) == []  # refused before the database is made


@pytest.mark.parametrize("flag, value, refusal", [
    ("--drain", "-1", "--drain must be zero or more, not -1.0"),
    ("--drain", "nan", "--drain must be zero or more, not nan"),
    ("--duration", "nan", "--duration must be positive, not nan"),
    ("--host-lease", "nan", "--host-lease must be positive, not nan"),
])
def test_serve_refuses_a_negative_or_nan_time_before_it_starts(tmp_path, flag, value, refusal, arena_here):
    """Taken, these reached trio's timeouts only as the run ended (the drain) or began (--duration): a traceback
    after the games were aborted."""
    ran = arena_here(*SERVE_A_SECOND, flag, value, cwd=tmp_path)
    assert (ran.status, ran.err, ran.out) == (2, f"arena: error: {refusal}\n", "")
    assert list(tmp_path.iterdir()) == []  # refused before the database is made


@pytest.mark.parametrize("flags, refusal", [
    (["--port", "70000"], "port must be 0-65535, not 70000"),
    (["--web", "99999"], "expected PORT or HOST:PORT for the web view, not '99999'"),
    (["--tls-cert", "nosuch.pem", "--tls-key", "nosuch.key"], "TLS file not found: nosuch.pem"),
    (["--tls-cert", "nosuch.pem"], "TLS needs both --tls-cert and --tls-key"),
])
def test_serve_refuses_a_bad_address_or_tls_file_before_it_makes_any_file(tmp_path, flags, refusal, arena_here):
    """These were checked only after the ladder was created: 'created a new ladder in X.db', then the error, and
    X.db, X.db.lock and replays/ left behind."""
    ran = arena_here("serve", "--duration", "1", "--db", "X.db", *flags, cwd=tmp_path)
    assert (ran.status, ran.err, ran.out) == (2, f"arena: error: {refusal}\n", "")
    assert list(tmp_path.iterdir()) == []


def test_serve_on_a_taken_web_port_fails_before_it_makes_any_file(tmp_path, arena_here):
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        ran = arena_here(*SERVE_A_SECOND, "--web", str(port), "--db", "X.db", cwd=tmp_path)
    assert ran.status == 1, ran
    assert ran.err.startswith(f"arena: error: the web view cannot listen on 127.0.0.1:{port}: "), ran
    assert list(tmp_path.iterdir()) == []


def test_serve_refuses_a_drain_that_is_not_a_number(capsys):
    from arena.cli import build_parser

    with pytest.raises(SystemExit) as exited:
        build_parser("serve").parse_args(["serve", "--drain", "soon"])
    assert exited.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == "arena serve: error: argument --drain: invalid float value: 'soon'"


def test_serve_takes_a_drain_of_zero(tmp_path, arena_here):
    """0 is a drain: running games are aborted at once (the web tests' ladder stops so)."""
    ran = arena_here(*SERVE_A_SECOND, "--plain", "--drain", "0", cwd=tmp_path)
    assert ran.status == 0, ran
    assert "stopped (--duration 1 s reached)" in ran.out


def test_serve_ends_with_what_it_did_and_the_database_figures_only_with_timings(tmp_path, arena_here):
    """The last line says what was done; the store's statement counts are a developer's figure (its "52 writes
    in 2834 transactions" puzzled operators: a PostgreSQL game's start and result are SELECTs of stored
    functions), printed with --timings as one JSON line with the kinds that explain them."""
    plain = arena_here(*SERVE_A_SECOND, "--plain", cwd=tmp_path)
    assert plain.status == 0, plain
    last = plain.out.strip().splitlines()[-1]
    assert re.fullmatch(r"stopped \(--duration 1 s reached\): 0 games finished, 0 aborted, 0 decisions in \d+ s", last), last
    assert "store" not in plain.out and "transactions" not in plain.out, plain.out
    timed_here = tmp_path / "timed"
    timed_here.mkdir()
    timed = arena_here(*SERVE_A_SECOND, "--plain", "--timings", cwd=timed_here)
    assert timed.status == 0, timed
    lines = timed.out.strip().splitlines()
    stopped = next(i for i, line in enumerate(lines) if line.startswith("stopped (--duration 1 s reached): "))
    assert lines[stopped + 1].startswith("store: {"), lines  # after the line an operator reads
    store = json.loads(lines[stopped + 1].split(": ", 1)[1])
    assert store["statements"] == sum(store["by_kind"].values()) > 0  # creating the database, at least
    assert store["writes"] == sum(n for kind, n in store["by_kind"].items() if kind not in ("SELECT", "WITH"))
    assert store["transactions"] >= 1 and store["round_trips"] == 0  # SQLite: no server to wait on


@pytest.mark.parametrize("given", ["DEBUG", "Debug", "debug"])
def test_serve_log_level_is_taken_in_any_case_as_the_bots_take_it(given):
    from arena.cli import build_parser

    assert build_parser("serve").parse_args(["serve", "--log-level", given]).log_level == "debug"


def test_serve_log_level_names_the_levels_when_refused(capsys):
    from arena.cli import build_parser

    with pytest.raises(SystemExit) as exited:
        build_parser("serve").parse_args(["serve", "--log-level", "LOUD"])
    assert exited.value.code == 2
    err = capsys.readouterr().err  # (how argparse quotes the choices differs between Python versions)
    assert "argument --log-level: invalid choice: 'loud' (choose from " in err and "warning" in err


def test_serve_show_must_name_a_scheduled_ruleset(tmp_path):
    ran = run_arena("serve", "--port", "0", "--game", "moumou", "--show", "pesten", cwd=tmp_path)
    assert ran.status == 2 and "--show pesten: not among the scheduled rulesets (moumou)" in ran.err
    assert not (tmp_path / "arena.db").exists()


def test_serve_on_port_0_shows_the_port_it_bound_from_the_first_summary(tmp_path, arena):
    """While the demo's bots start (a second or so) the summaries, as the live view's header, read
    '127.0.0.1:0': the port asked for, not the one bound."""
    ran = arena("serve", "--demo", "--port", "0", "--game", "moumou", "--plain", "--summary-every", "0.05",
                "--duration", "1", "--drain", "0", "--db", tmp_path / "a.db", "--replays", tmp_path / "replays",
                cwd=tmp_path)
    assert ran.status == 0, ran
    port = re.search(r"arena listening on 127\.0\.0\.1:(\d+) ", ran.out).group(1)
    summaries = [line for line in ran.out.splitlines() if line.startswith("[")]
    assert summaries and all(f"] 127.0.0.1:{port}: bots " in line for line in summaries), ran.out


#: The budgets per client address an operator raises where many clients share one (a lab behind NAT, a proxy):
#: flag, value, the ServerConfig field it sets.
SHARED_ADDRESS_FLAGS = [("--refused-hellos-per-address", "50", "refused_hellos_burst", 50),
                        ("--refused-hellos-per-second", "4.5", "refused_hellos_per_second", 4.5),
                        ("--spectators-per-address", "40", "spectators_per_address", 40),
                        ("--max-spectators", "300", "max_spectators", 300)]


def test_serve_passes_the_shared_address_budgets_to_its_server_and_web_view(tmp_path, arena_here, monkeypatch):
    """They existed only as ServerConfig fields and module constants: a lab behind one NAT address could not
    raise them.  What `arena serve` hands its server (the config the server is started with) and its web view."""
    import arena.cli.serve as serve

    started = {}

    def capture(args, store, config, players, options, time_control, web_socket):
        started.update(config=config, web=args.web_pace)
        store.close()
        if web_socket is not None:
            web_socket.close()
        return 0

    monkeypatch.setattr(serve, "_serve", capture)
    flags = [item for flag, value, _, _ in SHARED_ADDRESS_FLAGS for item in (flag, value)]
    ran = arena_here("serve", "--port", "0", "--db", tmp_path / "a.db", "--replays", tmp_path / "replays",
                     "--web", "0", "--web-reads-per-second", "25", "--web-reads-burst", "120", *flags)
    assert ran.status == 0, ran
    config = started["config"]
    assert {field: getattr(config, field) for _, _, field, _ in SHARED_ADDRESS_FLAGS} == {
        field: value for _, _, field, value in SHARED_ADDRESS_FLAGS}
    assert (started["web"].reads.per_second, started["web"].reads.burst) == (25.0, 120)
    ran = arena_here("serve", "--port", "0", "--db", tmp_path / "a.db", "--replays", tmp_path / "replays")
    assert ran.status == 0, ran
    defaults = started["config"].__class__()
    assert {field: getattr(started["config"], field) for _, _, field, _ in SHARED_ADDRESS_FLAGS} == {
        field: getattr(defaults, field) for _, _, field, _ in SHARED_ADDRESS_FLAGS}
    assert (started["web"].reads.per_second, started["web"].reads.burst) == (5.0, 30)


@pytest.mark.parametrize("flags, refusal", [
    (["--refused-hellos-per-address", "0"], "--refused-hellos-per-address must be at least 1, not 0"),
    (["--refused-hellos-per-second", "0"], "--refused-hellos-per-second must be more than 0, not 0.0"),
    (["--refused-hellos-per-second", "nan"], "--refused-hellos-per-second must be more than 0, not nan"),
    (["--spectators-per-address", "0"], "--spectators-per-address must be at least 1, not 0"),
    (["--max-spectators", "-3"], "--max-spectators must be at least 1, not -3"),
    (["--acceptors", "65"], "--acceptors must be at most 64, not 65"),
    (["--web", "0", "--web-reads-per-second", "-1"], "--web-reads-per-second must be more than 0, not -1.0"),
    (["--web", "0", "--web-reads-burst", "0"], "--web-reads-burst must be at least 1, not 0"),
    (["--web-reads-burst", "100"], "--web-reads-burst needs --web (the web view they pace)"),
    (["--web-reads-per-second", "9", "--web-reads-burst", "100"],
     "--web-reads-per-second and --web-reads-burst need --web (the web view they pace)"),
])
def test_serve_refuses_a_shared_address_budget_that_cannot_work_naming_its_flag(tmp_path, flags, refusal, arena_here):
    """Checked by ServerConfig.validate (or the web pace's own check) before anything is made, in one line that
    names the flag given, not the field behind it."""
    ran = arena_here("serve", "--port", "0", "--db", "X.db", *flags, cwd=tmp_path)
    assert (ran.status, ran.err, ran.out) == (2, f"arena: error: {refusal}\n", "")
    assert list(tmp_path.iterdir()) == []


def test_serve_help_describes_the_shared_address_budgets(arena_here):
    ran = arena_here("serve", "--help")
    text = " ".join(ran.out.split())
    for flag in ("--refused-hellos-per-address N", "--refused-hellos-per-second R", "--spectators-per-address N",
                 "--max-spectators N", "--web-reads-per-second R", "--web-reads-burst N"):
        assert flag in text
    assert "clients sharing one address (a lab or an office behind NAT, a proxy)" in text
