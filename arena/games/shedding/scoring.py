"""The end of a hand and of the match: a table event (Moumou), finishing bonuses, seats leaving
the hand while it goes on (C-30), the ladder of lives (P27), hand points with their multipliers,
the match's end, and the next dealer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.games.shedding import deal, events, turns

if TYPE_CHECKING:
    from arena.games.shedding.state import SheddingState


def table_event(state: SheddingState) -> None:
    """Moumou event: the top cards share a rank; the hand ends, pending effects lapse (A-18..A-20)."""
    seat = state.current
    if not state.hands[seat]:
        finish(state, seat, "table-pattern")
    else:
        score_hand(state, None, "table-pattern")



def finish(state: SheddingState, seat: int, reason: str) -> None:
    rule = state.rules.rule(state.combo[-1])
    state.reason = reason
    if rule.finish_bonus:
        state.phase = "finish-bonus"
        state.current = seat
        return
    score_hand(state, seat, reason)



def bonus(state: SheddingState, who: str) -> None:
    rules = state.rules
    seat = state.current
    rule = rules.rule(state.combo[-1])
    count = sum(1 for c in state.combo if rules.rule(c).finish_bonus) if rules.bonus_per_card else 1
    score_hand(state, seat, state.reason, (who, rule.finish_bonus * count))



def leave(state: SheddingState, seat: int) -> bool:
    """A seat went out and the hand goes on without it (C-30); True once one holder is left."""
    state.finished.append(seat)
    turns.refresh_gone(state)
    holders = [s for s in range(state.players) if not state.gone[s]]
    if len(holders) > 1:
        return False
    if state.rules.lives:
        score_ladder(state, holders, "out")
    else:
        score_hand(state, state.finished[0], "out")
    return True



def score_ladder(state: SheddingState, losers: list[int], reason: str) -> None:
    """P27: losers lose a card (a life); out of the match at `lives` losses, worst first."""
    lives = state.rules.lives
    winner = state.finished[0] if state.finished else None
    for seat in losers:
        state.losses[seat] += 1
    alive = [s for s in range(state.players) if state.losses[s] < lives]
    scores = list(state.scores)  # a new list: observations hold the old one (see __init__)
    for seat in losers:
        scores[seat] = state.losses[seat] if seat in alive else lives + len(alive)
    state.scores = scores
    state.last_hand = {"hand": state.hand_number, "winner": winner, "reason": reason, "losers": list(losers)}
    state.reason = reason
    if state.log is not None:
        events.hand_scored(state)
    if len(alive) <= 1 or reason == "decision-limit":
        end_game(state)
        return
    state.finished = []
    next_dealer(state, winner, [])
    state.hand_number += 1
    deal.deal(state)



def score_hand(state: SheddingState, winner: int | None, reason: str, bonus: tuple | None = None) -> None:
    rules = state.rules
    if rules.lives:  # a blocked hand on the ladder: the seats holding the most cards lose
        holders = [s for s in range(state.players) if not state.gone[s]]
        most = max(len(state.hands[s]) for s in holders)
        score_ladder(state, [s for s in holders if len(state.hands[s]) == most], reason)
        return
    card_points = rules.card_points.__getitem__  # `points` by rank, per card
    points = [sum(map(card_points, hand)) for hand in state.hands]
    if winner is not None and state.combo:
        rule = rules.rule(state.combo[-1])
        if rule.finish_multiplier != 1:
            count = (
                sum(1 for c in state.combo if rules.rule(c).finish_multiplier != 1)
                if rules.multiplier_per_card
                else 1
            )
            factor = rule.finish_multiplier**count
            points = [p * factor for p in points]
    scores = [total + p for total, p in zip(state.scores, points)]  # a new list (see __init__)
    if bonus is not None:
        who, amount = bonus
        if who == "self":
            scores[winner] -= amount
        else:
            for i in range(state.players):
                if i != winner:
                    scores[i] += amount
    state.scores = scores
    state.last_hand = {"hand": state.hand_number, "winner": winner, "reason": reason, "points": points}
    state.reason = reason
    if state.log is not None:
        events.hand_scored(state)
    if rules.match == "limit":
        done = max(state.scores) > rules.limit
    elif rules.match == "series":
        done = state.hand_number >= rules.hands
    else:
        done = True
    if done or reason == "decision-limit":
        end_game(state)
        return
    next_dealer(state, winner, points)
    state.hand_number += 1
    deal.deal(state)



def end_game(state: SheddingState) -> None:
    """Nobody decides any more, so nothing stays open for a decision: a card owed by the last turn, a
    catch window, a finishing word, an unjudged Blind claim (its card stays face down).  The decision
    limit can end a game in any of them; the property tests found the owed card and the open claim,
    whose over positions failed to load."""
    state.is_over = True
    state.refresh_match_view()  # the final scores and last hand
    state.current = None
    state.phase = "over"
    if state.log is not None:
        events.game_over(state)
    state.forced = None
    state.window = None
    state.accusable = None
    state.going_out = False
    state.blind_play = None



def next_dealer(state: SheddingState, winner: int | None, points: list[int]) -> None:
    rule = state.rules.dealer_rule
    n = state.players
    if state.rules.leader == "winner" and winner is not None:  # the winner opens the next hand
        state.dealer = (winner - state.rules.start_direction) % n
        return
    if rule == "loser":
        worst = max(points)
        losers = [i for i in range(n) if points[i] == worst and i != winner]
        if len(losers) == 1:
            state.dealer = losers[0]
            return
        state.dealer = (state.dealer + 1) % n
    elif rule in ("alternate", "rotate"):
        state.dealer = (state.dealer + 1) % n
