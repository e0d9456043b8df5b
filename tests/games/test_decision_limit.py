"""Every game ends by its ruleset's own bound (option decision_limit), scored, whatever its seats do.

The match runner aborts a game unrated at 50,000 decisions; a seat that could drive a game there would
erase its own loss.  These tests play the attack (seats that only ever draw, take the pile, pass, accept
and stop) in every ruleset at its smallest and largest table, and stop a game at its limit in every kind
of decision DD MAU and Mose have, checking that the game is over and scored and that its position holds.
"""

from __future__ import annotations

import random
import pytest

from arena import games
from arena.games import OptionError
from arena.games.ddmau.cards import points
from arena.match.bound import require_bound
from arena.match.runner import DEFAULT_MAX_DECISIONS

#: What a staller answers, first found first: never a card it need not play (`take` is Mose's pile, which
#: keeps its stock from ever running out; `discard` ends a Mose turn without melding).
STALL_VERBS = ("take", "draw", "pass", "accept", "believe", "stop", "discard")
LIMIT = 250


def staller(state: games.GameState) -> games.Action:
    legal = state.legal_actions()
    for verb in STALL_VERBS:
        for action in legal:
            if action.verb == verb:
                return action
    return legal[0]


#: The real rulesets (the tests' toy games, registered by some test modules, end by their own rules).
RULESETS = [name for name in games.rulesets() if not name.startswith("test-")]


def tables() -> list[tuple[str, int]]:
    out = []
    for ruleset in RULESETS:
        info = games.ruleset_info(ruleset)
        out += [(ruleset, players) for players in sorted({info.min_players, info.max_players})]
    return out


@pytest.mark.parametrize(("ruleset", "players"), tables())
def test_every_ruleset_is_bounded_below_the_runners_abort_by_default(ruleset, players):
    info = games.ruleset_info(ruleset)
    bound = require_bound(ruleset, players, {})
    assert bound == info.options["decision_limit"].default < DEFAULT_MAX_DECISIONS
    games.new_game(ruleset, players=players, seed=1)  # (the default table plays under it)


@pytest.mark.parametrize("ruleset", RULESETS)
def test_a_limit_of_none_or_at_the_abort_is_refused_in_one_line(ruleset):
    players = games.ruleset_info(ruleset).min_players
    for value in (0, DEFAULT_MAX_DECISIONS, "60000"):
        with pytest.raises(OptionError, match=f"^{ruleset} with decision_limit=.*abort at {DEFAULT_MAX_DECISIONS}") as error:
            require_bound(ruleset, players, {"decision_limit": value})
        assert "\n" not in str(error.value)
    assert require_bound(ruleset, players, {"decision_limit": DEFAULT_MAX_DECISIONS - 1}) == DEFAULT_MAX_DECISIONS - 1
    with pytest.raises(OptionError, match="decision_limit"):
        games.new_game(ruleset, players=players, seed=1, decision_limit=-1)


@pytest.mark.parametrize(("ruleset", "players"), tables())
@pytest.mark.parametrize("policy", ["staller", "random"])
def test_stalling_seats_end_by_the_rulesets_own_bound_scored(ruleset, players, policy):
    rng = random.Random(f"{ruleset}/{players}")
    state = games.new_game(ruleset, players=players, seed=7, decision_limit=LIMIT)
    decisions = 0
    while not state.is_over:
        state.apply(staller(state) if policy == "staller" else rng.choice(state.legal_actions()))
        decisions += 1
        assert decisions <= LIMIT
    assert state.current is None and state.legal_actions() == []
    result = state.result()
    assert result.reason and len(result.placements) == players and min(result.placements) == 1
    if decisions == LIMIT:  # ended by the bound (not by the game's own end first): it says so
        assert "decision" in result.reason or state.to_position().get("reason") == "decision-limit"
    position = state.to_position()
    assert games.from_position(ruleset, position, decision_limit=LIMIT).to_position() == position


def _random_game(ruleset: str, players: int, seed: int, limit: int, picks: list[int] | None = None, **options):
    """A game of random choices (``picks``: the same choices again); returns (state, picks, phases seen)."""
    state = games.new_game(ruleset, players=players, seed=seed, decision_limit=limit, **options)
    rng = random.Random(seed)
    made: list[int] = []
    phases = []
    while not state.is_over:
        legal = state.legal_actions()
        index = picks[len(made)] if picks is not None else rng.randrange(len(legal))
        made.append(index)
        phases.append(state.decision)
        state.apply(legal[index])
    return state, made, phases


def _card_count(position: dict) -> int:
    cards = [*position["discard"], *position["stock"], *(c for h in position["hands"] for c in h)]
    cards += position.get("table", [])
    cards += [c for meld in position.get("melds", []) for c in meld["cards"]]
    return len(cards)


@pytest.mark.parametrize(("ruleset", "players", "options"), [
    ("ddmau", 3, {}), ("ddmau", 4, {"tournament": True, "target": 80}), ("ddmau", 4, {"teams": "on"}),
    ("mose", 3, {"owner_may_swap": True}), ("mose", 2, {"mode": "contested", "rounds": 3}),
])
def test_the_limit_can_fall_in_any_kind_of_decision(ruleset, players, options):
    """Replay one random game with the limit at each of its decisions: over there, scored, position sound."""
    whole, picks, phases = _random_game(ruleset, players, 3, 0, **options)
    first = {}
    for index, phase in enumerate(phases):
        first.setdefault(phase, index)
    every = sorted({*first.values(), *range(1, len(picks), max(1, len(picks) // 25))} - {0})
    cards = _card_count(whole.to_position())
    for limit in every:
        state, _, _ = _random_game(ruleset, players, 3, limit, picks[:limit], **options)
        position = state.to_position()
        assert state.is_over and position["decisions"] == limit and position["phase"] == "over"
        assert state.result().reason
        assert _card_count(position) == cards
        assert games.from_position(ruleset, position, decision_limit=limit, **options).to_position() == position
        seen = state.observation(0).to_dict()
        assert seen["decisions"] == limit
    assert len(first) >= 4, first  # (several kinds of decision were cut: turn, chain, hit...; draw, play, react...)


def test_ddmau_a_won_hand_stands_and_any_other_is_scored_as_blocked():
    """The limit on a finish's pending hit scores the finish (the hit lapses); in a play under way every
    seat adds its hand, as in a blocked hand, the play's cards staying on the pile."""
    state = games.new_game("ddmau", players=2, seed=1)
    rng = random.Random(1)
    picks, finish_hit, chain = [], None, None
    while finish_hit is None or chain is None:
        if state.decision == "hit" and state.to_position()["final"] is not None:
            finish_hit = len(picks)
        if state.decision == "chain" and chain is None:
            chain = len(picks)
        picks.append(rng.randrange(len(state.legal_actions())))
        state.apply(state.legal_actions()[picks[-1]])
    won, _, _ = _random_game("ddmau", 2, 1, finish_hit + 1, picks[:finish_hit + 1])
    before = games.new_game("ddmau", players=2, seed=1)
    for index in picks[:finish_hit]:
        before.apply(before.legal_actions()[index])
    winner = before.to_position()["final"]["seat"]
    last = won.to_position()["last_hand"]
    assert last["winner"] == winner and last["reason"] == "out" and last["points"][winner] <= 0
    assert won.result().reason == f"{finish_hit + 1} decisions played (decision_limit)"
    cut, _, _ = _random_game("ddmau", 2, 1, chain + 1, picks[:chain + 1])
    last = cut.to_position()["last_hand"]
    assert last["winner"] is None and last["reason"] == "decision-limit"
    assert last["points"] == [sum(map(points, hand)) for hand in cut.to_position()["hands"]]


def test_positions_written_before_the_counter_restore_at_zero():
    for ruleset in ("ddmau", "mose"):
        state = games.new_game(ruleset, players=2, seed=4)
        state.apply(state.legal_actions()[0])
        position = state.to_position()
        assert position["decisions"] == 1
        del position["decisions"]
        assert games.from_position(ruleset, position).to_position()["decisions"] == 0


def test_mose_says_the_limit_ended_the_match_even_in_its_last_round():
    for rounds, limit in ((1, 30), (13, 30)):
        state = games.new_game("mose", players=2, seed=1, rounds=rounds, decision_limit=limit)
        while not state.is_over:
            state.apply(state.legal_actions()[0])
        assert state.result().reason == "lowest total after 1 rounds (option decision_limit ended the game in round 1)"
        assert state.to_position()["history"][-1]["reason"] == f"the game reached its decision limit ({limit})"
