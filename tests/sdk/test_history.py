"""What a bot may know: every turn carries the public events since the seat's previous one, and the
SDK keeps the game's whole public history (`mau_arena_sdk.history`), in a local match as over the wire."""

from __future__ import annotations

import random

import trio

from arena import games
from arena.match.local import LocalSeat
from arena.match.runner import play_game
from arena.match.timecontrol import TimeControl

ROOMY = TimeControl(move_ms=5000, bank_ms=0, increment_ms=0, first_move_ms=0, max_strikes=3)


class Recorder:
    """The runner's replay writer, reduced to the actions."""

    def __init__(self):
        self.actions: list[str] = []

    def decision(self, seat, action, *_):
        self.actions.append(action)

    def finish(self, result):
        pass

    def abort(self, reason):
        pass


class Counter:
    """Plays at random and keeps what it was told."""

    def __init__(self, seed: int):
        self.rng = random.Random(seed)
        self.turns: list = []

    def act(self, turn):
        self.turns.append((turn.seat, turn.events, turn.history, turn.observation))
        return self.rng.choice(turn.legal)


def play(ruleset: str, players: int, seed: int, **options):
    bots = [Counter(i) for i in range(players)]
    seats = [LocalSeat(bot, name=f"bot{i}", threaded=False) for i, bot in enumerate(bots)]
    recorder = Recorder()

    async def main():
        return await play_game(ruleset, options, seed, seats, ROOMY, recorder=recorder)

    return trio.run(main), bots, recorder


def test_each_turn_carries_the_events_since_the_seats_last_and_the_history_adds_them_up():
    outcome, bots, recorder = play("maumau", 4, seed=11, hands=1)
    assert outcome.status == "finished"
    # The engine's own log of the same game, replayed from the seed and the recorded actions.
    state = games.new_game("maumau", 4, 11, hands=1)
    log = state.record_events()
    for action in recorder.actions:
        state.apply(action)
    wanted = [(e.seat, e.kind, e.text, dict(e.details)) for e in log]
    for bot in bots:
        previous: tuple = ()
        for seat, events, history, _ in bot.turns:
            assert history[: len(previous)] == previous and history[len(previous):] == events
            previous = history
            assert [(e.seat, e.kind, e.text, _plain(e.details)) for e in history] == wanted[: len(history)]
        assert previous[0].kind == "deal" and previous[1].kind == "open"


def test_a_seat_sees_every_other_seats_play_not_only_the_top_card():
    """In a 4-seat game the top card shows one play in three; the history shows them all, and the
    seat can count the cards out of play (its hand, the plays) without ever seeing a drawn card."""
    outcome, bots, _ = play("maumau", 4, seed=5, hands=1)
    bot = bots[0]
    _, _, history, observation = bot.turns[-1]
    plays = [e for e in history if e.kind == "play"]
    assert {e.seat for e in plays} == {0, 1, 2, 3}
    assert all(e.details["card"] == e.text.split()[1] for e in plays)
    drawn = [e for e in history if e.kind == "draw"]
    assert drawn and all(set(e.details) == {"count"} for e in drawn)  # counts, never cards
    # Hand sizes follow from the history alone: the deal, minus plays, plus draws.
    sizes = list(history[0].details["hand_sizes"])
    for event in history[1:]:
        if event.kind == "play":
            sizes[event.seat] -= 1
        elif event.kind == "draw":
            sizes[event.seat] += event.details["count"]
    assert tuple(sizes) == observation.hand_sizes


def _plain(value):
    if hasattr(value, "items"):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value
