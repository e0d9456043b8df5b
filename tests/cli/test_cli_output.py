"""Output for scripts and for people: --json, replay files by game id, clear one-line errors."""

from __future__ import annotations

import json
import shutil

import pytest

from arena.ladder.store import LadderStore, SeatRecord

from .conftest import ROOT, run_arena

RANDOM_BOT = str(ROOT / "sample_bots" / "random_bot.py")
GREEDY_BOT = str(ROOT / "sample_bots" / "greedy_bot.py")


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """Two games of moumou played by `arena match --local --json`, with their replays."""
    work = tmp_path_factory.mktemp("played")
    ran = run_arena("match", RANDOM_BOT, GREEDY_BOT, "--game", "moumou", "--games", "2", "--seed", "5", "--local",
                    "--replays", work / "replays", "--json", cwd=work)
    assert ran.status == 0, ran.err
    return work, ran


def test_match_json_holds_the_table_and_the_elo_and_nothing_else(played):
    _, ran = played
    result = json.loads(ran.out)  # stdout is the JSON alone; the header went to stderr
    assert "Match: moumou" in ran.err
    assert result["finished"] == 2 and result["ruleset"] == "moumou" and result["first_seed"] == 5
    assert sorted(row["bot"] for row in result["bots"]) == ["greedy_bot", "random_bot"]
    assert all(row["games"] == 2 for row in result["bots"])
    assert result["elo"]["bots"] == ["random_bot", "greedy_bot"]
    assert sum(result["elo"]["pairs"]) == 1


def test_replays_lists_files_and_json_and_replay_opens_a_game_by_its_id(played, arena_here):
    work, _ = played
    listed = arena_here("replays", "replays", cwd=work)
    assert listed.status == 0, listed.err
    files = sorted((work / "replays").rglob("*.jsonl"))
    assert len(files) == 2
    for path in files:
        assert str(path.relative_to(work)) in listed.out
    records = json.loads(arena_here("replays", "replays", "--json", cwd=work).out)
    assert {r["path"] for r in records} == {str(p.relative_to(work)) for p in files}
    game_id = records[0]["game_id"]
    by_id = arena_here("replay", game_id, "--step", "0", "--width", "100", cwd=work)
    assert by_id.status == 0, by_id.err
    assert game_id in by_id.out
    short = game_id.rsplit("-", 1)[1]  # the short id the dashboard shows
    assert arena_here("replay", short, "--step", "1", cwd=work).status == 0
    missing = arena_here("replay", "nosuchgame", "--step", "0", cwd=work)
    assert missing.status == 2 and "no replay of game 'nosuchgame'" in missing.err and missing.err.count("\n") == 1


def test_replay_finds_a_game_through_the_ladder_database(played, tmp_path, arena_here):
    work, _ = played
    source = sorted((work / "replays").rglob("*.jsonl"))[0]
    kept = tmp_path / "elsewhere" / "kept.jsonl"  # a name the folder scan would not match
    kept.parent.mkdir()
    shutil.copy(source, kept)
    store = LadderStore.open(tmp_path / "ladder.db", recover=False)
    store.game_started("20261124T000000-cafe0001", "moumou", {}, 1, "s1", 0, ["a", "b"])
    store.game_ended("20261124T000000-cafe0001", "finished", [SeatRecord(0, "a", 1, 0), SeatRecord(1, "b", 2, 3)],
                     replay_path=str(kept))
    store.close()
    ran = arena_here("replay", "cafe0001", "--db", tmp_path / "ladder.db", "--replays", tmp_path / "none",
                    "--step", "0")
    assert ran.status == 0, ran.err


def ladder_folder(played, tmp_path, arena_here):
    """A folder as `arena serve` leaves it: arena.db keeping the played games' replays, replays/ with no replay file."""
    from arena.replay import load

    work, _ = played
    ladder = tmp_path / "ladder"
    (ladder / "replays").mkdir(parents=True)
    (ladder / "replays" / "demo-bots.log").write_text("")
    store = LadderStore.open(ladder / "arena.db", recover=False)
    ids = []
    for path in sorted((work / "replays").rglob("*.jsonl")):
        header = load(path).header
        ids.append(header.game_id)
        store.game_started(header.game_id, "moumou", {}, header.seed, header.game_id, 0, list(header.names))
        store.game_ended(header.game_id, "finished", [SeatRecord(i, name, i + 1, 0) for i, name in
                                                      enumerate(header.names)], replay_path=str(path))
    store.close()
    stored = arena_here("replays", work / "replays", "--db", ladder / "arena.db", "--import", cwd=ladder)
    assert stored.status == 0 and "stored 2 replays" in stored.out, stored
    return ladder, ids


def test_replays_with_no_folder_lists_what_the_ladder_database_here_keeps(played, tmp_path, arena_here):
    """After `arena serve`, plain `arena replays` lists its games (kept in ./arena.db), not `no replays under
    replays`; the folder is still listed when named, and its files are pointed to when it has some."""
    ladder, ids = ladder_folder(played, tmp_path, arena_here)
    listed = arena_here("replays", cwd=ladder)
    assert listed.status == 0, listed
    assert "replays in arena.db" in listed.out and all(game_id in listed.out for game_id in ids), listed.out
    assert "files under" not in listed.out
    rows = json.loads(arena_here("replays", "--json", cwd=ladder).out)
    assert sorted(row["game_id"] for row in rows) == sorted(ids)
    assert arena_here("replays", "replays", cwd=ladder).out.startswith("no replays under replays\n")
    old = ladder / "replays" / "2026-01-01"
    shutil.copytree(played[0] / "replays", old)
    also = arena_here("replays", cwd=ladder)
    assert "replays in arena.db" in also.out and "replay files under replays/ too" in also.out, also.out


def test_replays_with_nothing_here_says_where_ladder_replays_are(tmp_path, arena_here):
    nothing = arena_here("replays", cwd=tmp_path)
    assert nothing.status == 2 and nothing.err.count("\n") == 1, nothing
    assert "no ladder database arena.db" in nothing.err and "--db FILE|URL" in nothing.err
    (tmp_path / "replays").mkdir()
    empty = arena_here("replays", cwd=tmp_path)
    assert empty.status == 0 and "arena replays --db FILE|URL" in empty.out, empty


def test_a_replay_of_a_ruleset_this_version_lacks_ends_in_one_line(played, tmp_path, arena_here):
    work, _ = played
    source = sorted((work / "replays").rglob("*.jsonl"))[0]
    lines = source.read_text().splitlines(keepends=True)
    header = json.loads(lines[0])
    header["ruleset"] = "klondike"
    bad = tmp_path / "klondike.jsonl"
    bad.write_text(json.dumps(header) + "\n" + "".join(lines[1:]))
    for argv in (["--step", "3"], []):
        ran = arena_here("replay", bad, *argv)
        assert ran.status == 2, ran
        assert "Traceback" not in ran.err and ran.err.count("\n") == 1
        assert "unknown ruleset 'klondike'" in ran.err


def test_leaderboard_json_and_an_unknown_ruleset(tmp_path, arena_here):
    db = tmp_path / "l.db"
    store = LadderStore.open(db, recover=False)
    for k in range(4):
        winner, loser = ("alpha", "beta") if k % 2 == 0 or k == 3 else ("beta", "alpha")
        store.game_started(f"g{k}", "moumou", {}, k, f"s{k}", 0, [winner, loser])
        store.game_ended(f"g{k}", "finished", [SeatRecord(0, winner, 1, 0), SeatRecord(1, loser, 2, 5)])
    store.game_started("g9", "pesten", {}, 9, "s9", 0, ["evil\x1b[2J", "alpha"])  # a name from an old release
    store.game_ended("g9", "finished", [SeatRecord(0, "evil\x1b[2J", 1, 0), SeatRecord(1, "alpha", 2, 5)])
    store.close()
    ran = arena_here("leaderboard", "--db", db, "--json")
    assert ran.status == 0, ran.err
    rows = json.loads(ran.out)["moumou"]
    assert [r["bot"] for r in rows] == ["alpha", "beta"] and rows[0]["games"] == 4 and rows[0]["wins"] == 3
    unknown = arena_here("leaderboard", "--db", db, "--game", "nosuch")
    assert unknown.status == 2 and "unknown ruleset 'nosuch'" in unknown.err and unknown.err.count("\n") == 1
    table = arena_here("leaderboard", "--db", db)
    assert table.status == 0 and "alpha" in table.out
    assert "\x1b" not in table.out and "evil\\x1b[2J" in table.out


@pytest.mark.parametrize("argv, expected", [
    (["selfplay", "moumou", "--option", "limit=-5"], "option limit: -5 is out of range (valid: 1 or more)"),
    (["selfplay", "ddmau", "--option", "max_hands=-1"], "option max_hands: -1 is out of range (valid: 0 or more)"),
    (["selfplay", "mose", "--option", "decks=7"], "option decks: 7 is not one of 0, 1, 2"),
    (["serve", "--port", "0", "--game", "moumou", "--option", "moumou:limit=0"], "option limit: 0 is out of range"),
])
def test_out_of_range_options_are_refused_with_the_valid_range(tmp_path, argv, expected, arena_here):
    ran = arena_here(*argv, cwd=tmp_path)
    assert ran.status == 2, ran
    assert expected in ran.err and ran.err.count("\n") == 1
    assert not (tmp_path / "arena.db").exists()


def test_rules_show_lists_the_range_of_a_numeric_option(arena_here):
    ran = arena_here("rules", "show", "moumou", columns=120)
    assert ran.status == 0 and "1 or more" in ran.out


@pytest.mark.parametrize("ruleset", ["moumou", "ddmau"])
def test_rules_show_renders_markdown_and_fits_80_columns(ruleset, arena_here):
    ran = arena_here("rules", "show", ruleset, columns=80)
    assert ran.status == 0, ran.err
    lines = ran.out.splitlines()
    assert max(len(line) for line in lines) <= 80
    assert "`" not in ran.out and "…" not in ran.out  # code spans rendered, nothing cut
    assert "Resolutions followed" in ran.out and "true or false" in ran.out


def test_replays_escapes_names_and_reasons_from_the_files(tmp_path, arena_here):
    from arena.replay.writer import ReplayWriter

    header = {"game_id": "20261124T000000-bad00001", "ruleset": "moumou", "players": 2, "seed": 1,
              "seats": [{"seat": 0, "name": "evil\x1b[2J", "version": "v\x1b]0;pwned\x07"},
                        {"seat": 1, "name": "[red]ok", "version": ""}]}
    ReplayWriter.create(tmp_path, header).abort("evil\x1b[2J left \x9b31m")
    ran = arena_here("replays", tmp_path)
    assert ran.status == 0, ran.err
    assert "\x1b" not in ran.out and "\x9b" not in ran.out
    assert "evil\\x1b[2J" in ran.out and "[red]ok" in ran.out


def run_into_a_closed_pipe(*args, cwd, env=None) -> tuple[int, str]:
    """``python -m arena ARGS`` writing, unbuffered, into a pipe nobody reads any more (``| head`` once it
    has its lines): the first write fails with EPIPE.  Its exit status and stderr."""
    import os
    import subprocess
    import sys

    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = subprocess.run([sys.executable, "-m", "arena", *map(str, args)], stdout=write_end,
                              stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True, timeout=60, cwd=cwd,
                              env={**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1", **(env or {})})
    finally:
        os.close(write_end)
    return done.returncode, done.stderr


def test_serve_into_a_closed_pipe_ends_quietly(tmp_path):
    # the first line is printed inside the server's trio nursery: the BrokenPipeError comes in an ExceptionGroup
    from arena.ladder.store import LadderStore

    LadderStore.open(tmp_path / "arena.db").close()  # (a new ladder's creation is said on stderr)
    status, err = run_into_a_closed_pipe("serve", "--port", "0", "--plain", cwd=tmp_path)
    assert (status, err) == (141, "")


def test_check_bot_into_a_closed_pipe_ends_quietly_and_leaves_no_temporary_folder(tmp_path):
    temp = tmp_path / "tmp"
    temp.mkdir()
    status, err = run_into_a_closed_pipe("check-bot", RANDOM_BOT, "--game", "prsi", cwd=tmp_path,
                                         env={"TMPDIR": str(temp)})
    assert (status, err) == (141, "")
    assert list(temp.iterdir()) == []
