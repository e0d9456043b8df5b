"""Observations: read-only snapshots, the same mapping whether stored as a dict or as a record."""

from __future__ import annotations

import copy
import pickle

import pytest

from arena import games
from arena.games.base import Observation, RecordObservation


def test_a_record_behaves_as_the_mapping_it_stands_for():
    kind = RecordObservation.record_type(("seat", "hand", "pending"))
    assert RecordObservation.record_type(["seat", "hand", "pending"]) is kind  # one type per key order
    record = kind.of((1, ["7h"], {}))
    plain = Observation({"seat": 1, "hand": ["7h"], "pending": {}})
    assert record["hand"] == ["7h"] and record.get("nope", 5) == 5 and "pending" in record and "x" not in record
    assert record.seat == 1 and record.data == plain.data and record.to_dict() == plain.to_dict()
    assert record.ordered_values == (1, ["7h"], {})  # the stored tuple, in KEYS order
    with pytest.raises(AttributeError):
        record.ordered_values = ()  # type: ignore[misc]
    assert record == plain and plain == record and record != Observation({"seat": 0})
    with pytest.raises(KeyError):
        record["nope"]
    with pytest.raises(ValueError, match="takes 3 values"):
        kind.of((1, 2))


def test_observations_refuse_writes_and_survive_pickle_and_copy():
    state = games.new_game("maumau", players=2, seed=4)
    observation = state.observation(state.current)
    assert isinstance(observation, RecordObservation)
    with pytest.raises(AttributeError):
        observation.data = {}  # type: ignore[misc]
    with pytest.raises(AttributeError):
        observation.hand = []  # type: ignore[attr-defined]
    with pytest.raises(AttributeError, match="read-only"):
        Observation({"seat": 0}).data = {}  # type: ignore[misc]
    for clone in (pickle.loads(pickle.dumps(observation)), copy.deepcopy(observation), copy.copy(observation)):
        assert clone == observation and clone.to_dict() == observation.to_dict()


def test_an_observation_is_a_snapshot():
    state = games.new_game("maumau", players=2, seed=4)
    seat = state.current
    before = state.observation(seat)
    hand = list(before["hand"])
    state.apply(state.legal_actions()[0])
    assert before["hand"] == hand and before["current"] == seat


def test_scores_in_an_earlier_observation_survive_the_scoring_of_a_hand():
    # Observations share the state's scores list; the engine must replace it, never change it.
    state = games.new_game("moumou", players=2, seed=9)
    first = state.observation(0)
    while state.to_position()["scores"] == [0, 0]:
        state.apply(state.legal_actions()[0])
    assert first["scores"] == [0, 0] and state.observation(0)["scores"] != [0, 0]


def test_a_shedding_clone_copies_every_field_and_the_kept_hand_sizes_stay_true():
    # clone() lists the fields one by one, and the engine keeps each hand's length as cards move
    # (`SheddingState.sizes`, what the observation's hand_sizes copy): both checked over random play.
    from arena.games.selfplay import chooser
    from arena.games.shedding.state import SheddingState

    rng = chooser(5)
    for ruleset, players, options in (("moumou", 2, {}), ("maumau", 3, {"blind": True}), ("faraon", 3, {})):
        state = games.new_game(ruleset, players=players, seed=11, **options)
        while not state.is_over:
            copy = state.clone()
            assert all(hasattr(copy, name) for name in SheddingState.__slots__)  # a field clone() forgot is unset
            assert copy.to_position() == state.to_position()
            assert state.observation(None)["hand_sizes"] == [len(hand) for hand in state.to_position()["hands"]]
            state.apply(rng.choice(state.legal_actions()))
            if copy.legal_actions():  # the copy plays on alone
                copy.apply(copy.legal_actions()[0])


def _held(value, found: set) -> set:
    """Every string inside a value: containers, dicts, and the slots of objects (an observation's own)."""
    if isinstance(value, str):
        found.add(value)
    elif isinstance(value, dict):
        for item in (*value.keys(), *value.values()):
            _held(item, found)
    elif isinstance(value, (list, tuple, set, frozenset)):
        for item in value:
            _held(item, found)
    elif value is not None and not isinstance(value, (int, float, bool, type)) and id(value) not in found:
        found.add(id(value))  # an object once (records may refer to each other: a Mose window to its played form)
        for cls in type(value).__mro__:
            for name in getattr(cls, "__slots__", ()):
                if hasattr(value, name):
                    _held(getattr(value, name), found)
    return found


@pytest.mark.parametrize("ruleset", ["moumou", "maumau", "neuner", "maumau-online", "mose", "ddmau"])
def test_an_observation_holds_no_other_seats_card_even_where_a_bot_does_not_look(ruleset):
    """Not only its values: nothing an observation object keeps (a snapshot assembled on first read, a view
    kept from an earlier state) names a card of another seat's hand that its public values do not name
    themselves (with two decks a twin may be face up; a Mose wild's token names the card it stands for).  The drawn card a seat must play (`forced`) is the
    case that mattered: only its holder may know it."""
    import random

    forced_seen = 0
    players = games.ruleset_info(ruleset).min_players if ruleset == "moumou" else 3
    if ruleset == "maumau-online":
        players = 4
    for seed in range(3):
        state = games.new_game(ruleset, players, seed)
        rng = random.Random(seed)
        for _ in range(200):
            if state.is_over:
                break
            forced_seen += getattr(state, "forced", None) is not None
            for seat in (None, *range(state.players)):
                observation = state.observation(seat)
                shown = _held(observation.to_dict(), set())
                # A Mose wild's token ``2h:3d`` shows what it stands for too (a snapshot may keep the token).
                shown |= {part for text in shown for part in text.split(":")}
                held = _held(observation, set())
                others = {card for other, hand in enumerate(state.hands) if other != seat for card in hand}
                assert not (held - shown) & others, (seat, (held - shown) & others)
            state.apply(rng.choice(state.legal_actions()))
    assert forced_seen > 0 or ruleset != "moumou"
