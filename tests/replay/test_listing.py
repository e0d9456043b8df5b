"""`arena replays`: newest first, filters, partial files, bad paths."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.cli import main
from arena.replay.listing import scan

from .conftest import record_random_game


def make_library(root, ruleset):
    record_random_game(root, ruleset, game_id="old", started_at="2026-11-20T09:00:00Z", names=["alice", "bob"])
    record_random_game(root, ruleset, game_id="mid", seed=3, started_at="2026-11-21T09:00:00Z",
                       names=["carol", "alice"])
    newest = record_random_game(root, ruleset, game_id="new", seed=4, started_at="2026-11-22T09:00:00Z",
                                names=["bob", "dave"])
    cut = newest.with_name("crashed.jsonl.part")
    text = newest.read_text().replace('"game_id":"new"', '"game_id":"crashed"').replace("2026-11-22T09", "2026-11-22T10")
    cut.write_text(text[: len(text) // 2])
    (root / "2026-11-22" / "junk.jsonl").write_text("not a replay\n")


def test_scan_lists_newest_first_with_status_and_filters(tmp_path, toy_ruleset):
    make_library(tmp_path, toy_ruleset)
    found, problems, bot_seen = scan(tmp_path)
    assert bot_seen  # no bot asked about
    assert [s.game_id for s in found] == ["crashed", "new", "mid", "old"]
    assert [s.status for s in found] == ["partial", "finished", "finished", "finished"]
    assert len(problems) == 1 and "junk.jsonl" in problems[0]
    assert [s.game_id for s in scan(tmp_path, bot="ALICE")[0]] == ["mid", "old"]
    assert scan(tmp_path, bot="alice", ruleset="no-such-game").bot_seen  # in a replay, of another ruleset
    assert not scan(tmp_path, bot="nobody").bot_seen
    assert [s.game_id for s in scan(tmp_path, limit=2)[0]] == ["crashed", "new"]
    assert scan(tmp_path, ruleset="no-such-game")[0] == []
    assert found[1].outcome.startswith(("winner ", "tied "))
    assert found[0].outcome == "running or cut off"  # a .part may be a live server's game: not called dead


def test_replays_command_prints_a_table_and_warns_about_bad_files(tmp_path, toy_ruleset, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "160")
    make_library(tmp_path, toy_ruleset)
    monkeypatch.chdir(tmp_path)  # the listed paths are as short as the DIR given
    assert main(["replays", ".", "--game", toy_ruleset, "--bot", "bob"]) == 0
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    rows = [line for line in lines if toy_ruleset in line]
    assert [Path(r.split()[2]).name.split(".")[0] for r in rows] == ["crashed", "new", "old"]  # the file paths
    assert "partial" in rows[0] and "complete" in rows[1]
    assert "skipped" in captured.err and "junk.jsonl" in captured.err


@pytest.mark.parametrize("json", [[], ["--json"]])
def test_replays_of_a_folder_refuse_a_bot_name_no_replay_knows_as_the_database_does(tmp_path, toy_ruleset, capsys,
                                                                                     monkeypatch, json):
    """The README's rule, which `--db` kept and a folder did not: a bot name nothing knows is a usage error (exit
    2, one line, nothing on stdout); a known bot with no replay matching the other filters is an empty list (0).
    Without `--db` an unknown name listed nothing and exited 0."""
    make_library(tmp_path, toy_ruleset)
    monkeypatch.chdir(tmp_path)
    assert main(["replays", ".", "--bot", "nobody", *json]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.endswith("arena: error: no bot named 'nobody' in the replays under . "
                                      "(1 unreadable file skipped)\n")
    assert err.count("arena: error:") == 1 and "junk.jsonl" in err  # the skipped file was said first, as always
    assert main(["replays", ".", "--bot", "DAVE", *json]) == 0  # any case, as the filter matches
    assert "new" in capsys.readouterr().out
    assert main(["replays", ".", "--bot", "dave", "--game", "moumou", *json]) == 0  # known, none of moumou here
    out, err = capsys.readouterr()
    assert "arena: error" not in err and ("[]" in out if json else "no replays under . match the filters" in out)


def test_plain_replays_in_a_ladders_folder_accept_a_bot_its_database_knows(tmp_path, toy_ruleset, capsys,
                                                                           monkeypatch):
    """`arena replays` with no DIR beside an arena.db that keeps no replay lists replays/: a bot the database
    knows (registered, no game yet) is an empty list there, a name neither knows an error naming both."""
    from arena.ladder.store import LadderStore

    make_library(tmp_path / "replays", toy_ruleset)
    store = LadderStore.open(str(tmp_path / "arena.db"), recover=False)
    store.touch_bot("erin")
    store.close()
    monkeypatch.chdir(tmp_path)
    assert main(["replays", "--bot", "erin"]) == 0
    assert "no replays under replays match the filters" in capsys.readouterr().out
    assert main(["replays", "--bot", "nobody"]) == 2
    assert capsys.readouterr().err.endswith(
        "arena: error: no bot named 'nobody' in the replays under replays nor in arena.db (1 unreadable file skipped)\n")


@pytest.mark.parametrize("json", [[], ["--json"]])
def test_replays_game_filter_refuses_an_unknown_ruleset_but_lists_an_older_versions(tmp_path, capsys, json):
    from arena.ladder.store import LadderStore
    from arena.replay import ReplayWriter

    record_random_game(tmp_path, "moumou", game_id="known")
    ReplayWriter.create(tmp_path, {"game_id": "old", "ruleset": "klondike", "players": 2, "seed": 1}).finish({})
    assert main(["replays", str(tmp_path), "--game", "moumuo", *json]) == 2
    err = capsys.readouterr().err
    assert err.startswith("arena: error: unknown ruleset 'moumuo'; known rulesets: ") and err.count("\n") == 1
    assert main(["replays", str(tmp_path), "--game", "klondike", *json]) == 0  # no typo: replays of it are here
    assert "old" in capsys.readouterr().out
    assert main(["replays", str(tmp_path), "--game", "prsi", *json]) == 0  # a ruleset, none of its replays here
    assert capsys.readouterr().err == ""
    LadderStore.open(tmp_path / "ladder.db", recover=False).close()
    assert main(["replays", "--db", str(tmp_path / "ladder.db"), "--game", "moumuo", *json]) == 2
    assert capsys.readouterr().err.startswith("arena: error: unknown ruleset 'moumuo'")


def test_replays_command_rejects_bad_paths(tmp_path, capsys):
    assert main(["replays", str(tmp_path / "nowhere")]) == 2
    assert "no such directory" in capsys.readouterr().err
    afile = tmp_path / "a.jsonl"
    afile.write_text("")
    assert main(["replays", str(afile)]) == 2
    assert "not a directory" in capsys.readouterr().err
    assert main(["replays", str(tmp_path), "--limit", "0"]) == 2
