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


def test_an_action_is_a_value_compared_and_hashed_by_verb_and_args():
    a, b = Action("play", ("7h",)), Action.parse("play 7h")
    assert a == b and a is not b and hash(a) == hash(b)
    assert a != Action("play", ("7d",)) and a != Action("discard", ("7h",)) and Action("draw") == Action("draw", ())
    assert a != "play 7h" and a != ("play", ("7h",))  # never equal to its text or its fields as a tuple
    assert len({a, b, Action("draw")}) == 2
    assert hash(a) == hash(("play", ("7h",)))  # the frozen dataclass's hash: sets of actions keep their order
    assert (str(a), repr(a), str(Action("draw"))) == ("play 7h", "Action('play 7h')", "draw")


def test_an_action_cannot_be_changed():
    action = Action("play", ("7h",))
    for name, value in (("verb", "draw"), ("args", ()), ("other", 1)):
        with pytest.raises(AttributeError):
            setattr(action, name, value)
    with pytest.raises(AttributeError):
        del action.verb
    assert (action.verb, action.args) == ("play", ("7h",))


def test_an_action_pickles_and_copies_to_an_equal_action():
    import copy
    import pickle

    action = Action("meld", ("Kd:7s", "8s", "9s"))
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        assert pickle.loads(pickle.dumps(action, protocol)) == action
    assert copy.copy(action) == action and copy.deepcopy(action) == action
    assert copy.deepcopy([action])[0].args == ("Kd:7s", "8s", "9s")
