"""scripts/regret_screen.py: positions with their real states, reference values from the real state, and a
variant's regret against them."""

from __future__ import annotations

import base64
import json

import pytest

from arena import games
from tests.scripts_loaded import load_script


def test_positions_reference_and_screen_fit_together(monkeypatch, tmp_path, capsys):
    screen = load_script(monkeypatch, "regret_screen")
    positions, reference = tmp_path / "pos.jsonl", tmp_path / "ref.json"
    screen.main(["positions", "--seeds", "31:40", "--count", "2", "--share", "1", "--worlds", "2",
                 "--out", str(positions)])
    data = screen.load_positions(str(positions))
    assert (data["ruleset"], data["players"], len(data["positions"])) == ("maumau-online", 4, 2)
    for position in data["positions"]:  # the real state is the one the turn was asked in
        turn = screen.turn_of(base64.b64decode(position["turn"]))
        real = games.from_position("maumau-online", position["truth"])
        assert [str(a) for a in real.legal_actions()] == [a.text for a in turn.legal]
        assert real.to_position()["hands"][turn.observation["seat"]] == list(turn.observation["hand"])

    screen.main(["reference", str(positions), "--rollouts", "2", "--out", str(reference)])
    values = json.loads(reference.read_text())["values"]
    assert [len(v) for v in values.values()] == [len(screen.turn_of(base64.b64decode(p["turn"])).legal)
                                                 for p in data["positions"]]

    capsys.readouterr()
    screen.main(["screen", str(positions), str(reference), "--variant", "small:worlds=2,tries=2",
                 "--variant", "tactician:worlds=0", "--repeats", "1", "--world-check", "2"])
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == ["small", "tactician"]
    assert "off the tactician  0.0%" in lines[1]  # no worlds: the tactician's own choice
    assert all("real deal judged wrong  0.0%" in line for line in lines)  # the opponents are tacticians


def test_a_variant_names_budget_and_bot_settings_and_rejects_others(monkeypatch):
    screen = load_script(monkeypatch, "regret_screen")
    variant = screen.Variant.parse("tells:play_model=1,worlds=40,confidence=0.5")
    assert (variant.name, variant.budget, variant.bot) == ("tells", {"worlds": 40, "confidence": 0.5},
                                                           {"play_model": True})
    with pytest.raises(ValueError, match="not key=value"):
        screen.Variant.parse("x:speed=3")
    with pytest.raises(ValueError, match="not a valid worlds"):
        screen.Variant.parse("x:worlds=many")


@pytest.mark.parametrize("text", ["{}\n", "[1]\n", "not json\n"], ids=["no-header", "not-an-object", "not-json"])
def test_a_file_that_is_not_a_positions_file_is_refused_in_one_line(monkeypatch, tmp_path, text):
    screen = load_script(monkeypatch, "regret_screen")
    path = tmp_path / "positions.jsonl"
    path.write_text(text)
    with pytest.raises(SystemExit, match="positions"):
        screen.load_positions(str(path))


def test_a_known_variant_gives_its_worlds_the_chosen_opponents_real_hands_and_keeps_every_card(monkeypatch):
    import random
    from collections import Counter

    from arena.games.worlds import WorldSampler

    screen = load_script(monkeypatch, "regret_screen")
    state = games.new_game("maumau-online", 4, 8)
    for _ in range(12):
        state.apply(state.legal_actions()[-1])
    me = state.current
    truth = state.to_position()
    world = WorldSampler("maumau-online", state.observation(me)).sample(random.Random(2))

    def cards(position):
        return Counter(c for place in (*position["hands"], position["stock"], position["discard"]) for c in place)

    for known in ("all", "next", "leader"):
        observation = state.observation(me)
        seats = screen.known_seats(known, me, observation["direction"], list(observation["hand_sizes"]))
        assert me not in seats and len(seats) == (3 if known == "all" else 1)
        seen = screen.with_hands(world, truth, seats, me, "maumau-online", {}).to_position()
        assert all(sorted(seen["hands"][s]) == sorted(truth["hands"][s]) for s in seats)
        assert seen["hands"][me] == truth["hands"][me] and cards(seen) == cards(world.to_position())
    assert screen.known_seats("leader", 0, 1, [5, 4, 2, 2]) == [2]  # the fewest cards, the nearest first
    assert screen.known_seats("next", 0, -1, [5, 4, 2, 2]) == [3]
    with pytest.raises(ValueError, match="known="):
        screen.Variant.parse("x:known=everyone")
