"""The engine contract's own types: action text round trips, errors, results."""

import pytest

from arena.games import Action, ActionParseError, Result


@pytest.mark.parametrize("text", ["play 7h", "draw", "pass", "accept", "suit h", "call mau", "accuse 2", "stop", "play 7h 7d"])
def test_action_text_round_trips(text):
    action = Action.parse(text)
    assert str(action) == text
    assert Action.parse(str(action)) == action


def test_action_parse_normalises_whitespace_and_verb_case():
    assert Action.parse("  PLAY   7h ") == Action("play", ("7h",))


@pytest.mark.parametrize("text", ["", "   ", "7h", "play 7h;", "play\x00"])
def test_bad_action_text_raises_a_clear_error(text):
    with pytest.raises(ActionParseError):
        Action.parse(text)


def test_action_cards_lists_only_card_codes():
    assert Action.parse("play 7h Td X1").cards == ("7h", "Td", "X1")
    assert Action.parse("accuse 2").cards == ()


def test_result_placements_share_ties():
    result = Result.from_points([10, 0, 10, 25])
    assert result.placements == (2, 1, 2, 4)
