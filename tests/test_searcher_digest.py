"""scripts/searcher_digest.py: `--worlds` and `--tree` reach the searcher, and the digest is a function of the code."""

from __future__ import annotations

import sys

import pytest

from tests.scripts_loaded import load_script


def test_the_tree_configuration_is_digested_and_the_digest_repeats(monkeypatch, capsys):
    digest = load_script(monkeypatch, "searcher_digest")
    from own_tree import OwnTree  # on the path the script set up: the searcher's own sibling module

    made = []
    searcher = digest.SearchBot.searcher

    def recorded(self, *args):
        made.append(searcher(self, *args))
        return made[-1]

    monkeypatch.setattr(digest.SearchBot, "searcher", recorded)
    argv = ["searcher_digest.py", "--rulesets", "maumau", "--games", "1", "--seed", "3", "--worlds", "2", "--tree", "2"]
    monkeypatch.setattr(sys, "argv", argv)
    digest.main()
    first = capsys.readouterr().out
    assert made and all(isinstance(s, OwnTree) and s.own == 2 and s.budget.worlds == 2 for s in made)
    digest.main()
    assert capsys.readouterr().out == first
    assert first.startswith("maumau ") and len(first.split()[-1]) == 64  # one line: the ruleset ... the SHA-256
    made.clear()
    monkeypatch.setattr(sys, "argv", argv[:-2])  # without --tree: the flat search (`searcher.TREE` has no maumau)
    digest.main()
    assert made and not any(isinstance(s, OwnTree) for s in made)


def test_a_negative_tree_is_refused_in_one_line(monkeypatch, capsys):
    digest = load_script(monkeypatch, "searcher_digest")
    monkeypatch.setattr(sys, "argv", ["searcher_digest.py", "--rulesets", "maumau", "--tree", "-1"])
    with pytest.raises(SystemExit):
        digest.main()
    assert "--tree must be 0 or more, not -1" in capsys.readouterr().err
