"""Adversarial end to end: a real arena server, real bot processes, every kind of misbehaviour at once.

One server (``arena.server.run`` on 127.0.0.1, port 0) plays all scenario
games at the same time: each misbehaving bot (tests/bots/misbehaving.py,
raw grpc) against a shared, well-behaved SDK bot, plus a pair of
well-behaved random bots whose game must be undisturbed.  Every game is
recorded by the real replay writer and re-simulated afterwards.  Nothing
waits on sleeps: the director waits for sessions, games and process exits.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import grpc
import pytest
import trio

import arena.games as games
from arena.match.timecontrol import TimeControl
from arena.replay.reader import load
from arena.replay.verify import verify
from arena.replay.writer import ReplayWriter
from arena.server import ServerConfig, run
from mau_arena_sdk.wire import pb, rpc

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "match"))
import nim_ruleset  # noqa: E402  (the runner tests' tiny ruleset: short, scriptable games)

BOTS = Path(__file__).resolve().parents[1] / "bots"
MODES = ("slow", "crash", "garbage", "illegal", "stale", "oversized", "silent", "reconnect", "empty")
# Small enough to keep the suite fast, roomy enough that a well-behaved bot on a loaded
# 2-core machine (a dozen bot processes) never times out: the bank absorbs scheduling hiccups.
TIME_CONTROL = TimeControl(move_ms=300, bank_ms=1000, increment_ms=50, first_move_ms=1000,
                           max_strikes=3, reconnect_ms=2000)
NIM = {"start": 30}  # at least 15 moves: every seat decides at least 7 times


def _good_pair_ruleset() -> tuple[str, dict]:
    """A real ruleset for the undisturbed pair once the engines have landed, else the test one."""
    for name in ("moumou", "maumau-online", "maumau"):
        if name in games.rulesets():
            return name, {}
    return nim_ruleset.NAME, dict(NIM)


def _spawn(args: list[str], log_dir: Path, name: str) -> subprocess.Popen:
    log = open(log_dir / f"{name}.log", "w")
    return subprocess.Popen([sys.executable, *args], stdout=log, stderr=subprocess.STDOUT)


def _list_games(address: str) -> list:
    with grpc.insecure_channel(address) as channel:
        return list(rpc.ArenaStub(channel).ListGames(pb.ListGamesRequest(limit=100), timeout=10).games)


def _wait_all(processes: dict[str, subprocess.Popen], timeout_s: float) -> dict[str, int | None]:
    codes = {}
    for name, process in processes.items():
        try:
            codes[name] = process.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            codes[name] = None
    return codes


async def _wait_for_bots(handle, processes: dict[str, subprocess.Popen], log_dir: Path) -> None:
    """Wait until every bot is connected; fail at once (with its log) if one exits first."""
    async def exits_early(name, process):
        code = await trio.to_thread.run_sync(process.wait, abandon_on_cancel=True)
        log = (log_dir / f"{name}.log").read_text()[-2000:]
        raise RuntimeError(f"bot {name} exited with {code} before its game started:\n{log}")

    async with trio.open_nursery() as nursery:
        for name, process in processes.items():
            nursery.start_soon(exits_early, name, process)
        await handle.wait_for_sessions(list(processes), timeout_s=60)
        nursery.cancel_scope.cancel()


@pytest.fixture(scope="module")
def arena_run(tmp_path_factory):
    """Run every scenario once; tests below check one scenario each."""
    work = tmp_path_factory.mktemp("e2e")
    replays = work / "replays"
    good_ruleset, good_options = _good_pair_ruleset()
    tables = {mode: (nim_ruleset.NAME, dict(NIM), [f"bad-{mode}", "partner"]) for mode in MODES}
    tables["good-pair"] = (good_ruleset, good_options, ["good-a", "good-b"])

    async def director(handle):
        address = handle.address
        processes = {
            f"bad-{mode}": _spawn([str(BOTS / "misbehaving.py"), mode, "--arena", address, "--name", f"bad-{mode}"],
                                  work, f"bad-{mode}")
            for mode in MODES
        }
        processes["partner"] = _spawn([str(BOTS / "random_bot.py"), "--arena", address, "--name", "partner",
                                       "--parallel", str(len(MODES)), "--games-limit", str(len(MODES))],
                                      work, "partner")
        for name in ("good-a", "good-b"):
            processes[name] = _spawn([str(BOTS / "random_bot.py"), "--arena", address, "--name", name,
                                      "--games-limit", "1"], work, name)
        outcomes, replay_paths = {}, {}
        try:
            await _wait_for_bots(handle, processes, work)

            async def play(label, ruleset, options, names, seed):
                game_id = f"e2e-{label}"
                recorder = ReplayWriter.create(replays, {
                    "game_id": game_id, "ruleset": ruleset, "players": len(names), "seed": seed,
                    "options": options, "seats": [{"seat": i, "name": n} for i, n in enumerate(names)],
                    "time_control": TIME_CONTROL.to_dict(),
                })
                outcomes[label] = await handle.play_game(ruleset, options, seed, names, TIME_CONTROL,
                                                         recorder=recorder, game_id=game_id)
                replay_paths[label] = recorder.final_path

            async with trio.open_nursery() as nursery:
                for seed, (label, (ruleset, options, names)) in enumerate(tables.items(), start=11):
                    nursery.start_soon(play, label, ruleset, options, names, seed)
            listing = await trio.to_thread.run_sync(_list_games, address)
            exits = await trio.to_thread.run_sync(_wait_all, processes, 30)
        finally:
            for process in processes.values():
                if process.poll() is None:
                    process.kill()
        return outcomes, replay_paths, listing, exits

    with nim_ruleset.registered():
        outcomes, replay_paths, listing, exits = run(ServerConfig(host="127.0.0.1", port=0), director)
        reports = {label: verify(path) for label, path in replay_paths.items()}
        loaded = {label: load(path) for label, path in replay_paths.items()}
    logs = {path.stem: path.read_text() for path in work.glob("*.log")}
    return {"outcomes": outcomes, "reports": reports, "replays": loaded, "listing": listing, "exits": exits,
            "logs": logs}


def seat_of(run_data, label, name):
    return next(s for s in run_data["outcomes"][label].seats if s.name == name)


def check_recorded(run_data, label):
    """The replay re-simulates and its result line agrees with the outcome."""
    outcome = run_data["outcomes"][label]
    report = run_data["reports"][label]
    assert report.ok, report.summary()
    result = run_data["replays"][label].result
    assert result["status"] == outcome.status
    assert result["placements"] == [s.placement for s in outcome.seats]
    assert result["strikes"] == [s.strikes for s in outcome.seats]
    assert result["timeouts"] == [s.timeouts for s in outcome.seats]
    assert result["forfeits"] == [s.forfeited for s in outcome.seats]
    assert len(run_data["replays"][label].decisions) == outcome.decisions
    assert outcome.replay_path == str(run_data["reports"][label].path)


def check_partner_clean(run_data, label):
    partner = seat_of(run_data, label, "partner")
    assert partner.strikes == 0 and partner.timeouts == 0 and not partner.forfeited, partner


# ---------------------------------------------------------------- the undisturbed game and the server

def test_the_well_behaved_pair_finishes_normally_beside_all_the_misbehaviour(arena_run):
    outcome = arena_run["outcomes"]["good-pair"]
    assert outcome.status == "finished", outcome.reason
    assert all(s.strikes == 0 and s.timeouts == 0 and s.stale == 0 and s.disconnects == 0 for s in outcome.seats)
    assert sorted(s.placement for s in outcome.seats)[0] == 1
    check_recorded(arena_run, "good-pair")
    assert arena_run["exits"]["good-a"] == 0 and arena_run["exits"]["good-b"] == 0


def test_every_game_finishes_and_the_server_still_serves_afterwards(arena_run):
    assert {label: o.status for label, o in arena_run["outcomes"].items()} == {
        label: "finished" for label in arena_run["outcomes"]}
    listed = {g.game_id: g.status for g in arena_run["listing"]}
    assert all(listed.get(f"e2e-{label}") == "finished" for label in arena_run["outcomes"]), listed
    assert arena_run["exits"]["partner"] == 0, arena_run["logs"]["partner"]
    assert all(code is not None for code in arena_run["exits"].values()), arena_run["exits"]


# ---------------------------------------------------------------- one misbehaviour each

def test_a_bot_that_answers_after_its_limit_gets_defaults_and_strikes_and_the_game_completes(arena_run):
    bad = seat_of(arena_run, "slow", "bad-slow")
    assert bad.timeouts == 2 and bad.strike_reasons == ["timeout", "timeout"] and not bad.forfeited
    timeouts = [d for d in arena_run["replays"]["slow"].decisions if d.timeout]
    assert len(timeouts) == 2 and all(d.strike for d in timeouts)
    check_partner_clean(arena_run, "slow")
    check_recorded(arena_run, "slow")


@pytest.mark.parametrize("label", ["crash", "garbage"])
def test_a_bot_whose_stream_dies_is_struck_until_it_forfeits_and_ranks_last(arena_run, label):
    bad = seat_of(arena_run, label, f"bad-{label}")
    assert bad.forfeited and bad.strike_reasons == ["disconnected"] * 3 and bad.disconnects == 1
    assert bad.placement == 2 and seat_of(arena_run, label, "partner").placement == 1
    check_partner_clean(arena_run, label)
    check_recorded(arena_run, label)


def test_a_bot_answering_illegal_actions_forfeits_after_max_strikes(arena_run):
    bad = seat_of(arena_run, "illegal", "bad-illegal")
    assert bad.forfeited and bad.strike_reasons == ["illegal"] * 3 and bad.decisions == 3
    assert bad.placement == 2
    check_partner_clean(arena_run, "illegal")
    check_recorded(arena_run, "illegal")


def test_stale_answers_are_dropped_and_counted_without_strikes(arena_run):
    bad = seat_of(arena_run, "stale", "bad-stale")
    # one stale answer per turn after the first; the seat hands the open request's answer over
    # first, so a stale one may be counted a turn late (or, at the very end, not at all)
    assert bad.strikes == 0 and bad.decisions >= 7
    assert bad.decisions - 1 >= bad.stale >= (bad.decisions - 1) // 2
    assert arena_run["logs"]["bad-stale"].count("STALE_REQUEST") == bad.stale
    check_partner_clean(arena_run, "stale")
    check_recorded(arena_run, "stale")


def test_an_oversized_message_costs_the_stream_but_the_bot_resumes_and_plays_on(arena_run):
    bad = seat_of(arena_run, "oversized", "bad-oversized")
    assert bad.disconnects == 1 and bad.strikes == 0 and not bad.forfeited
    assert arena_run["exits"]["bad-oversized"] == 0
    check_partner_clean(arena_run, "oversized")
    check_recorded(arena_run, "oversized")


def test_a_bot_that_never_answers_times_out_into_a_forfeit(arena_run):
    bad = seat_of(arena_run, "silent", "bad-silent")
    assert bad.forfeited and bad.timeouts == 3 and bad.decisions == 3 and bad.placement == 2
    check_partner_clean(arena_run, "silent")
    check_recorded(arena_run, "silent")


def test_a_bot_that_drops_and_resumes_its_session_keeps_its_seat_without_strikes(arena_run):
    bad = seat_of(arena_run, "reconnect", "bad-reconnect")
    assert bad.disconnects == 1 and bad.strikes == 0 and not bad.forfeited
    assert arena_run["exits"]["bad-reconnect"] == 0
    check_partner_clean(arena_run, "reconnect")
    check_recorded(arena_run, "reconnect")


def test_empty_messages_and_a_second_hello_do_not_cost_the_game(arena_run):
    bad = seat_of(arena_run, "empty", "bad-empty")
    assert bad.strikes == 0 and bad.disconnects == 0 and not bad.forfeited
    assert "MALFORMED" in arena_run["logs"]["bad-empty"] and "BAD_HELLO" in arena_run["logs"]["bad-empty"]
    check_partner_clean(arena_run, "empty")
    check_recorded(arena_run, "empty")
