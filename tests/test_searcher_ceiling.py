"""scripts/searcher_ceiling.py: the oracle's worlds are the real game with only the stock's order changed."""

from __future__ import annotations

import random
from collections import Counter

from arena import games
from tests.scripts_loaded import load_script


def test_the_oracle_world_is_the_real_state_with_the_stock_shuffled(monkeypatch):
    ceiling = load_script(monkeypatch, "searcher_ceiling")
    state = games.new_game("maumau", 2, 9001)
    for _ in range(4):
        state.apply(state.legal_actions()[0])
    world = ceiling.oracle_world({"state": state}, "maumau")(None, random.Random(3), None, state.current, 1)
    real, seen = state.to_position(), world.to_position()
    assert seen["hands"] == real["hands"] and seen["discard"] == real["discard"]  # the opponent's hand is known
    assert Counter(seen["stock"]) == Counter(real["stock"]) and seen["stock"] != real["stock"]  # the order is not
    assert [str(a) for a in world.legal_actions()] == [str(a) for a in state.legal_actions()]


def test_the_all_seeing_oracle_is_the_real_state_itself_and_the_hand_oracle_redraws_the_future(monkeypatch):
    ceiling = load_script(monkeypatch, "searcher_ceiling")
    state = games.new_game("maumau", 2, 9002)
    for _ in range(3):
        state.apply(state.legal_actions()[0])
    real = state.to_position()
    world = ceiling.oracle_world({"state": state}, "maumau", "all")(None, random.Random(3), None, state.current, 1)
    assert world.to_position() == real  # every card, the stock's order and the future reshuffles' seed
    world.apply(world.legal_actions()[0])
    assert state.to_position() == real  # a copy: the search's play leaves the real game alone
    hand = ceiling.oracle_world({"state": state}, "maumau", "hand")(None, random.Random(3), None, state.current, 1)
    assert hand.to_position()["hands"] == real["hands"] and hand.to_position()["seed"] != real["seed"]


def test_compare_reads_runs_by_seed_and_gives_the_mean_difference_deal_by_deal(monkeypatch, tmp_path):
    ceiling = load_script(monkeypatch, "searcher_ceiling")
    new, old = tmp_path / "new.log", tmp_path / "old.log"
    new.write_text("seed 1: 2/2, pairs [0, 0, 0, 0, 1], score 1.000\nseed 2: 1/2, pairs\nseed 3: 2/2, pairs\n"
                   "oracle all searcher, 6 games: ...\n")
    old.write_text("seed 1: 1/2, pairs\nseed 2: 1/2, pairs\nseed 4: 0/2, pairs\n")
    assert ceiling.read_pairs([new]) == {1: 2, 2: 1, 3: 2}
    line = ceiling.compare(ceiling.read_pairs([new]), ceiling.read_pairs([old]))
    assert line.startswith("deal by deal over the 2 seeds of both: +0.500 ± 0.980 pair points")
    twice = tmp_path / "twice.log"
    twice.write_text("seed 1: 0/2, pairs\n")
    try:
        ceiling.read_pairs([new, twice])
    except ValueError as error:
        assert "seed 1 twice" in str(error)
    else:
        raise AssertionError("an overlapping run was read")


def test_a_bad_plan_or_plan_mix_is_refused_in_one_line(monkeypatch, capsys):
    ceiling = load_script(monkeypatch, "searcher_ceiling")
    for argv, said in ((["--plan", "-1"], "--plan must be 0 or more"), (["--plan-mix", "0.3"], "needs --plan N"),
                       (["--plan", "1", "--plan-mix", "1.5"], "between 0 and 1")):
        monkeypatch.setattr("sys.argv", ["searcher_ceiling.py", "--seeds", "1:2", *argv])
        try:
            ceiling.main()
        except SystemExit as stop:
            assert stop.code == 2
        else:
            raise AssertionError(f"{argv} was not refused")
        assert said in capsys.readouterr().err


def test_a_plan_mix_reaches_the_planning_searcher(monkeypatch):
    ceiling = load_script(monkeypatch, "searcher_ceiling")
    made = searchers_made(monkeypatch, ceiling)
    ceiling.play("maumau", 5, 0, None, worlds=1, plan=1, plan_mix=0.25)
    assert made and made[0].own == 1 and made[0].mix == 0.25


def test_a_bad_tree_or_a_tree_knob_without_a_tree_is_refused_in_one_line(monkeypatch, capsys):
    ceiling = load_script(monkeypatch, "searcher_ceiling")
    for argv, said in ((["--tree", "-1"], "--tree must be 0 or more"), (["--tree-widen", "4"], "need --tree N"),
                       (["--tree-merge"], "need --tree N"), (["--tree", "0", "--tree-explore", "1"], "need --tree N"),
                       (["--leaf", "-2"], "--leaf must be 0 or more"),
                       (["--confidence", "-0.5"], "--confidence must be 0 or more"),
                       (["--confidence", "nan"], "--confidence must be 0 or more")):
        monkeypatch.setattr("sys.argv", ["searcher_ceiling.py", "--seeds", "1:2", *argv])
        try:
            ceiling.main()
        except SystemExit as stop:
            assert stop.code == 2
        else:
            raise AssertionError(f"{argv} was not refused")
        assert said in capsys.readouterr().err


def test_the_tree_knobs_reach_the_tree_searcher(monkeypatch):
    ceiling = load_script(monkeypatch, "searcher_ceiling")
    made = searchers_made(monkeypatch, ceiling)
    ceiling.play("maumau", 5, 0, None, worlds=1, tree=2, tree_knobs={"widen": 3, "merge": True, "explore": 0.25})
    searcher = made[0]
    assert searcher.own == 2 and searcher.widen == 3 and searcher.merge is True and searcher.explore == 0.25
    ceiling.play("maumau", 5, 0, None, worlds=1, tree=2, leaf=7)
    assert made[1].own == 2 and made[1].budget.depth == 7 and type(made[1]).cut_value is not ceiling_pimc(made[1]).cut_value


def ceiling_pimc(searcher):
    """The flat `pimc.Searcher` class (the one whose `cut_value` is `pimc.evaluate`'s) of a searcher's MRO."""
    return next(k for k in type(searcher).__mro__ if k.__name__ == "Searcher")


def test_a_confidence_reaches_the_search_budget(monkeypatch):
    ceiling = load_script(monkeypatch, "searcher_ceiling")
    made = searchers_made(monkeypatch, ceiling)
    ceiling.play("maumau", 5, 0, None, worlds=1, confidence=0.5)
    ceiling.play("maumau", 5, 0, None, worlds=1)
    assert made[0].budget.confidence == 0.5
    assert made[1].budget.confidence == ceiling.SearchBot().budget("maumau").confidence  # the ruleset's own


def searchers_made(monkeypatch, ceiling) -> list:
    """The searcher of every game `ceiling.play` starts from now on, in order (filled as they start)."""
    made = []
    original = ceiling.SearchBot.on_game_start

    def noting(bot, game):
        original(bot, game)
        made.append(bot.games["g"][0])

    monkeypatch.setattr(ceiling.SearchBot, "on_game_start", noting)
    return made
