"""The sample bots: their tactics on hand-made turns, and legal answers in every ruleset that exists."""

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path

import pytest

from mau_arena_sdk import Action, GameInfo, Observation, SeatInfo, Turn

BOTS_DIR = Path(__file__).resolve().parents[2] / "sample_bots"


def load(module_name):
    if str(BOTS_DIR) not in sys.path:
        sys.path.insert(0, str(BOTS_DIR))
    spec = importlib.util.spec_from_file_location(f"sample_{module_name}", BOTS_DIR / f"{module_name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


tactician = load("tactician").Tactician()
greedy = load("greedy_bot").GreedyBot()
random_bot = load("random_bot").RandomBot(seed=1)


def make_turn(legal, hand, top="9h", ruleset="moumou", decision="turn", sizes=(None, 5), **extra):
    sizes = (len(hand), sizes[1])
    data = dict(ruleset=ruleset, seat=0, current=0, decision=decision, hand=list(hand), discard=[top],
                stock_size=10, direction=1, hand_sizes=list(sizes),
                seats=[SeatInfo(i, f"p{i}", sizes[i], 0, "active") for i in range(2)], **extra)
    return Turn("g", 1, 0, ruleset, Observation(data), tuple(Action.parse(a) for a in legal), 1000, 5000)


def start(bot, ruleset, game_id="g", players=2):
    """The bot's game start as the arena sends it (GameStarted with the ruleset's facts, when known)."""
    from arena.match.seat import GameStart
    from arena.match.timecontrol import TimeControl
    from arena import messages as convert

    names = tuple(f"p{i}" for i in range(players))
    message = convert.game_started_to_pb(GameStart(game_id, ruleset, {}, 0, names, TimeControl()))
    info = GameInfo.from_pb(message)
    bot.on_game_start(info)
    return info


def choose(bot, turn):
    start(bot, turn.ruleset, turn.game_id)
    choice = bot.act(turn)
    return turn.legal[turn.index_of(choice)].text


def test_the_bots_learn_points_and_roles_from_the_facts_not_from_a_table_of_their_own():
    jack = make_turn(["play 9h", "play Jh"], hand=["9h", "Jh"])
    assert choose(greedy, jack) == "play Jh"  # Moumou's Jack: 20 points
    # The same turn in a game whose start carried no facts: every card is worth the same to the bot.
    greedy.on_game_start(GameInfo("h", "moumou", 0, ("p0", "p1")))
    blind = make_turn(["play 9h", "play Jh"], hand=["9h", "Jh"])
    blind = Turn("h", 1, 0, "moumou", blind.observation, blind.legal, 1000, 5000)
    assert greedy.act(blind).text == "play 9h"  # the first of equals
    greedy.on_game_end(GameInfo("h", "moumou", 0, ("p0", "p1")), None)
    assert "h" not in greedy.facts


def test_tactician_keeps_its_jack_while_another_card_fits():
    t = make_turn(["play Jh", "play 9s", "draw"], hand=["Jh", "9s", "Kd"])
    assert choose(tactician, t) == "play 9s"


def test_tactician_plays_a_moumou_six_only_with_a_cover_in_hand():
    no_cover = make_turn(["play 6c", "play 9s"], hand=["6c", "9s", "Td"])
    assert choose(tactician, no_cover) == "play 9s"
    covered = make_turn(["play 6c", "play 7h"], hand=["6c", "7h", "Tc", "Qc"], sizes=(None, 5))
    assert choose(tactician, covered) in ("play 6c", "play 7h")


def test_tactician_attacks_a_next_player_close_to_going_out():
    t = make_turn(["play 7h", "play Th"], hand=["7h", "Th", "Qs"], sizes=(None, 1))
    assert choose(tactician, t) == "play 7h"


def test_tactician_does_not_end_on_a_card_that_cannot_finish():
    # Moumou: an Ace cannot be the last card; with Ah and 9h left, play the Ace now.
    t = make_turn(["play Ah", "play 9h"], hand=["Ah", "9h"])
    assert choose(tactician, t) == "play Ah"


def test_tactician_names_the_suit_it_holds_most_of():
    t = make_turn(["suit s", "suit h", "suit d", "suit c"], hand=["7d", "9d", "Kd", "8s"], decision="suit")
    assert choose(tactician, t) == "suit d"


def test_tactician_calls_only_when_a_play_follows():
    with_play = make_turn(["play 9h", "draw", "call mau-mau"], hand=["9h", "Ks"], ruleset="maumau-online")
    assert choose(tactician, with_play) == "call mau-mau"
    without = make_turn(["draw", "call mau-mau"], hand=["2s", "Ks"], ruleset="maumau-online")
    assert choose(tactician, without) == "draw"
    three = make_turn(["play 9h", "draw", "call mau-mau"], hand=["9h", "Ks", "2c"], ruleset="maumau-online")
    assert choose(tactician, three) == "play 9h"  # with 3 cards the call is false (5 cards)


def test_tactician_accuses_only_an_offender_who_did_not_call():
    silent = make_turn(["accuse 1", "pass"], hand=["9h"], decision="accuse", window={"offender": 1, "called": False})
    assert choose(tactician, silent) == "accuse 1"
    called = make_turn(["accuse 1", "pass"], hand=["9h"], decision="accuse", window={"offender": 1, "called": True})
    assert choose(tactician, called) == "pass"


def test_greedy_sheds_the_most_points_and_prefers_plays_to_drawing():
    t = make_turn(["draw", "play 9h", "play Jh", "play Ah"], hand=["9h", "Jh", "Ah"])
    assert choose(greedy, t) == "play Jh"          # Jack: 20 points in Moumou
    assert choose(greedy, make_turn(["stop", "play 9c"], hand=["9c"], decision="combo")) == "play 9c"


@pytest.mark.parametrize("bot", [tactician, greedy, random_bot], ids=["tactician", "greedy", "random"])
def test_every_bot_answers_unknown_verbs_and_decisions_legally(bot):
    t = make_turn(["meld 7h 8h 9h", "take pile", "discard Kd", "block"], hand=["7h", "8h", "9h", "Kd"],
                  ruleset="some-future-game", decision="whatever")
    assert choose(bot, t) in {a.text for a in t.legal}


def _rulesets():
    from arena import games

    return games.rulesets()


@pytest.mark.parametrize("bot_name", ["tactician", "greedy_bot"])
def test_bots_play_whole_games_of_every_ruleset_with_legal_answers(bot_name):
    from arena import games
    from arena import messages as convert

    names = _rulesets()
    if not names:
        pytest.skip("no ruleset is registered yet (arena.games.rulesets() is empty)")
    bot = {"tactician": tactician, "greedy_bot": greedy}[bot_name]
    rng = random.Random(5)
    for ruleset in names:
        info = games.ruleset_info(ruleset)
        players = info.default_players or info.min_players
        for seed in range(1):
            start(bot, ruleset, players=players)
            state = games.new_game(ruleset, players, seed)
            for _ in range(5000):
                if state.is_over:
                    break
                seat = state.current
                legal = state.legal_actions()
                if seat == 0:
                    message = convert.turn_request_to_pb("g", 1, state.observation(seat), legal, 1000, 1000,
                                                         [f"p{i}" for i in range(players)])
                    turn = Turn.from_pb(message)
                    index = turn.index_of(bot.act(turn))
                    state.apply(legal[index])
                else:
                    state.apply(rng.choice(legal))
            assert state.is_over, f"{ruleset} seed {seed} did not finish"
