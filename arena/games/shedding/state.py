"""The shedding engine: one state machine that interprets a `Ruleset`.

Pipeline of a play (RULES.md 8.2): place the card (table-pattern check
after each card), let the player add same-rank cards (combo), then resolve
the play once: finishing restrictions, effect primitives, obligations for
the same player (suit choice, cover, follow), and finally the end of the
turn (announcement decision, catch window, next seat).

Decisions (`state.decision`): ``turn``, ``combo``, ``suit``, ``cover``,
``follow``, ``target``, ``call``, ``accuse``, ``finish-bonus``; ``over`` at
the end.

Seats can leave (rulesets with a hand-size ladder or where a hand goes on
until one seat holds cards, `Ruleset.ladder`): `finished` lists the seats
out of the current hand in order, `losses` counts lost hands, and turn
order (`_step`) passes over seats that are out of the hand or the match.

Forced steps applied by the engine without asking (the only ones): taking
a pending penalty that cannot be answered (no counter card and no other
option), the failed follow of a Mau-Mau Ace (draw one, turn ends), and the
end of a turn after a single draw that produced nothing playable when the
rules allow only the drawn card.  Every other draw or pass, even when it
is the only legal action, is a decision of the seat.
"""

from __future__ import annotations

from typing import Any

from arena.games.base import Action, GameError, GameState, PublicEvent, Result
from arena.games.shedding import actions as A
from arena.games.shedding import blind, effects, events
from arena.games.shedding.legal import legal_actions, legal_on_top, phase_actions, playable_cards, turn_actions
from arena.games.shedding.observation import observe
from arena.games.shedding.rules import Ruleset


class SheddingState(GameState):
    VERBS = A.VERBS

    # A fixed layout: every read and write of the state's fields is a slot access (the interpreter's
    # cheapest), where a 48-key instance dict costs a hinted dict probe each time, and a misspelt field
    # fails loudly instead of becoming a new attribute.  `current` is the seat to decide (None once the
    # game is over, when `phase` is "over" and `is_over` true): plain fields, read at every decision.
    __slots__ = (
        # the game
        "rules", "ruleset", "options", "players", "seed", "counter", "decisions", "is_over", "reason",
        # the match
        "scores", "losses", "gone", "gone_count", "finished", "hand_number", "dealer", "last_hand",
        # the cards
        "hands", "discard", "stock", "masks",
        # the pile's state
        "direction", "active_suit", "suit_kind", "pending_draw", "pending_skip", "opening", "idle",
        "last_discarder", "returning", "return_wait", "blind_play", "blind_skip", "carry_follow",
        # the decision under way
        "current", "phase", "drawn", "called", "placed", "forced", "combo", "offender", "next_seat",
        "advance", "window", "going_out", "paying", "accusable",
        # the legal list of the decision under way, until an action is applied
        "_legal",
        # the public events: `log` while recording (None: not asked, nothing recorded); `fresh`: built by
        # the constructor (not restored), so `record_events` can replay the deal with a log
        "log", "fresh",
    )

    # -- construction -------------------------------------------------------------

    def __init__(self, rules: Ruleset, options: dict[str, Any], players: int, seed: int,
                 log: "list[PublicEvent] | None" = None) -> None:
        self.rules = rules
        self.ruleset = rules.name
        self.options = options
        self.players = players
        self.seed = seed
        self.counter = 0
        # Replaced, never changed in place, when a hand is scored: observations share the list.
        self.scores = [0] * players
        self.losses = [0] * players
        self.finished: list[int] = []
        self.gone: list[bool] = [False] * players
        self.hand_number = 1
        self.decisions = 0  # decisions applied in this game, for the decision limit
        if rules.first_dealer == "last":  # so that the seat after the dealer is seat 0
            self.dealer = (-rules.start_direction) % players
        else:
            self.dealer = 0
        self.is_over = False
        self.reason = ""
        self.last_hand: dict | None = None
        self._legal: list | None = None
        self.log = log  # a list only for `record_events`, which deals the same game again to record it
        self.fresh = True
        self._deal()
        self._settle()

    def _reset_turn(self) -> None:
        self.phase = "turn"
        self.drawn = False
        self.called = 0  # 0 no call, 1 valid call, 2 false call
        self.placed = 0
        self.forced: str | None = None
        self.combo: list[str] = []
        self.offender: int | None = None

    def _deal(self) -> None:
        """Shuffle, deal one at a time from the dealer's left, then open (A-2, B-2, C-3) [P26]."""
        rules = self.rules
        n = self.players
        self.stock = stock = effects.shuffled_deck(self)
        self.discard: list[str] = []
        self.direction = rules.start_direction
        self.finished = []
        self.returning: int | None = None
        self.return_wait = 0
        self.masks: dict[int, str] = {}  # Blind: pile position -> the real face-down card
        self.blind_play: dict | None = None
        self.blind_skip = 0
        self.last_discarder: int | None = None  # B-14 alternative: who a 9 makes draw
        self.carry_follow = False  # C-8 alternative: a failed follow waiting out a call window
        self.going_out = False  # a finishing play waiting for its word (CallRule.finish_word)
        self.paying = 0  # cards drawn so far paying a debt with a rescue (CardRule.rescue_first_k)
        self._refresh_gone()
        self.active_suit: str | None = None
        self.suit_kind: str | None = None
        self.pending_draw = 0
        self.pending_skip = 0
        self.window: dict | None = None
        self.accusable: tuple[int, bool] | None = None
        self.next_seat: int | None = None
        self.advance = 1
        self.idle = 0
        size = rules.hand_size
        first = self.dealer + 1
        if not rules.ladder and len(stock) >= n * size:
            # One card at a time from the top (the list's end), starting left of the dealer: the seat
            # p places after the dealer gets every n-th card from the p-th from the top.
            top = len(stock) - 1
            self.hands = hands = [None] * n  # type: ignore[list-item]
            for p in range(n):
                hands[(first + p) % n] = stock[top - p :: -n][:size]
            del stock[len(stock) - n * size :]
        else:
            self.hands = [[] for _ in range(n)]
            if rules.ladder:  # P27: one card fewer per lost hand; seats out of the match get none
                sizes = [0 if self.gone[s] else size - self.losses[s] for s in range(n)]
            else:
                sizes = [size] * n
            order = [(first + i) % n for i in range(n)]
            for round_ in range(size):
                for seat in order:
                    if stock and round_ < sizes[seat]:
                        self.hands[seat].append(stock.pop())
        self._reset_turn()
        self.current: int | None = self.dealer
        self.opening = True
        if self.log is not None:
            events.dealt(self, self.log)
        if rules.opening == "hand_card":
            card = self.hands[self.dealer].pop()
        else:
            card = stock.pop()
        if self.log is not None:
            events.opened(self, card, rules.opening == "hand_card")
        self._place(card, from_hand=False)

    # -- contract -----------------------------------------------------------------

    @property
    def decision(self) -> str:
        return self.phase

    def legal_actions(self) -> list[Action]:
        legal = self._legal
        if legal is None:
            if self.rules.copies == 1:  # one pack: no duplicate plays to fold (`legal.legal_actions`)
                legal = self._legal = turn_actions(self) if self.phase == "turn" else phase_actions(self)
            else:
                legal = self._legal = legal_actions(self)  # [] once over
        return legal[:]

    def apply(self, action: "Action | str") -> None:
        """The contract's apply, in one frame on the hot path.

        An action taken from the cached legal list (what the arena, the bots and the benchmark pass) is
        legal by identity.  Anything else (text, an equal copy, an illegal action) goes through the base
        class's checks, which parse, refuse with a clear error, or hand the list's own action back here
        (`_apply_legal`).
        """
        legal = self._legal
        if legal is not None:
            for candidate in legal:
                if candidate is action:
                    break
            else:
                legal = None
        if legal is None:
            GameState.apply(self, action)
            return
        self._legal = None
        verb = action.verb
        if self.log is not None:
            events.action(self, action)
        if verb == "play":
            card = action.args[0]
            phase = self.phase
            if phase == "turn" and card in self.rules._turn_enders and self._quiet_play(card):
                pass  # played, and the next turn begun
            elif phase == "rescue":
                self._rescue(card)
            else:
                hand = self.hands[self.current]
                if phase != "combo":  # a new play (a combo's later cards add to it)
                    self.combo = []
                    if self.rules._call_at == 2 and len(hand) == 2 and not self.drawn:
                        self.offender = self.current  # S1: MAU-MAU was due before this 2 -> 1 discard
                hand.remove(card)
                self._place(card, from_hand=True)
        elif verb == "draw":
            self._draw_action()
        elif verb == "pass":
            self._pass()
        elif verb == "accept":
            self._accept()
        elif verb == "stop":
            self._resolve()
        elif verb == "suit":
            self._choose_suit(action.args[0])
        elif verb == "call":
            self._call()
        elif verb == "accuse":
            self._accuse()
        elif verb == "bonus":
            self._bonus(action.args[0])
        elif verb == "target":
            self._target(int(action.args[0]))
        elif verb == "blind":
            blind.play(self, action.args[0], action.args[1])
        elif verb == "believe":
            blind.believe(self)
        elif verb == "challenge":
            blind.challenge(self)
        if self.pending_draw or self.pending_skip or self.phase == "follow":  # `_settle` looks at the phase
            self._settle()
            self._legal = None
        self.decisions += 1
        if self.decisions >= self.rules._decision_cap and not self.is_over:
            self._score_hand(None, "decision-limit")
            self._legal = None

    def _apply_legal(self, action: Action) -> None:
        """The base class's `apply` has checked `action` against the cached list: apply that list's own
        action (an equal one parsed from text is not identical to it)."""
        legal = self._legal
        self.apply(legal[legal.index(action)])

    def _quiet_play(self, card: str) -> bool:
        """The common play, done in one step: True if `card` was played and the next turn begun.

        A turn's single card whose only effects end the turn (`Ruleset._turn_enders`, checked by
        the caller: the next seat draws, seats are skipped, the direction turns) and that does not
        empty the hand (nor leave one card where a call rule cares: `Ruleset._quiet_hand`), with
        nothing pending, no combo or table pattern to build, no announcement or window due, and
        nobody out of the hand: the whole pipeline (`_place`, `_resolve`, `_end_turn`,
        `_start_turn`) comes down to the steps below.  Anything else returns False before changing
        anything, and the pipeline plays the card.
        """
        rules = self.rules
        if self.opening or self.pending_draw or self.pending_skip:
            return False
        seat = self.current
        hand = self.hands[seat]
        if len(hand) < rules._quiet_hand or self.gone_count or self.returning is not None or self.blind_skip:
            return False
        if self.offender is not None or self.accusable is not None:
            return False
        if rules.combos and (  # another card of the rank (two packs: maybe its twin) would start a combo
            not rules._same_rank[card].isdisjoint(hand) or (rules.copies > 1 and hand.count(card) > 1)
        ):
            return False
        rank = card[0]
        discard = self.discard
        pattern = rules.table_pattern
        if pattern and discard[-1][0] == rank and (pattern < 3 or (len(discard) > 1 and discard[-2][0] == rank)):
            return False  # the pile may complete the pattern (Moumou event): `_place` checks it
        hand.remove(card)
        discard.append(card)
        self.idle = 0
        self.active_suit = None
        self.suit_kind = None
        self.last_discarder = seat
        self.drawn = False
        self.called = 0
        self.placed = 0
        self.forced = None
        if self.combo:
            self.combo = []
        self.next_seat = None
        draw, skips, reverse = rules._turn_enders[card]
        players = self.players
        if reverse:  # as `_resolve`: turn first, then draw and step in the new direction
            self.direction = -self.direction
            if rules.reverse_two == "again" and players <= 2:  # C-26: another turn for the same seat
                skips = -1
        if draw:
            effects.draw(self, (seat + self.direction) % players, draw)
        self.current = (seat + self.direction * (1 + skips)) % players
        return True

    def default_action(self) -> Action:
        """Timeout choice: accept, stop, draw (or the first play where drawing is voluntary), pass,
        the call, the most-held suit, -20 for self."""
        legal = self.legal_actions()
        if not legal:
            raise GameError("the game is over; there is no default action")
        phase = self.phase
        if phase == "suit":
            hand = self.hands[self.current]
            best = max("shdc", key=lambda s: sum(1 for c in hand if c[1] == s))
            return A.SUITS[best]
        if phase == "call":
            return legal[0]
        if phase == "challenge":
            return blind.BELIEVE
        if phase == "turn" and self.rules.blind:  # a truthful legal card, if there is one
            for action in legal:
                if action.verb == "blind" and action.args[0] == action.args[1]:
                    return action
        if phase == "turn" and self.rules._call_at == 1 and legal[-1].verb == "call":
            return legal[-1]  # C-9 flag: going out needs the word, and a timeout should not cost 2 cards
        if phase == "turn" and A.DRAW in legal and legal[0].verb == "play":
            return legal[0]  # a voluntary draw as the timeout choice would let hands grow without end
        for preferred in (A.ACCEPT, A.STOP, A.DRAW, A.PASS, A.BONUS_SELF):
            if preferred in legal:
                return preferred
        return legal[0]

    #: The contract's ``observation(seat)``, bound directly: one call fewer at every decision.
    observation = observe

    def record_events(self) -> list[PublicEvent]:
        log = self.log
        if log is None:
            if self.fresh and self.decisions == 0:  # the same deal again, recorded (the seed decides it)
                log = self.log = SheddingState(self.rules, self.options, self.players, self.seed, log=[]).log
            else:
                log = self.log = [events.start(self)]
        return log

    @property
    def events(self) -> list[PublicEvent] | None:
        return self.log

    def public_text(self, action: "Action | str") -> str:
        parsed = Action.parse(action)
        if parsed.verb == "blind" and len(parsed.args) == 2:
            return f"blind ?? {parsed.args[1]}"
        return str(parsed)

    def result(self) -> Result:
        if not self.is_over:
            raise GameError("the game is still running; there is no result yet")
        return Result.from_points(list(self.scores), self.reason)

    def to_position(self) -> dict[str, Any]:
        from arena.games.shedding.position import to_position

        return to_position(self)

    def clone(self) -> "SheddingState":
        new = object.__new__(SheddingState)
        for field in SheddingState.__slots__:
            setattr(new, field, getattr(self, field))
        new.hands = [list(h) for h in self.hands]
        new.discard = list(self.discard)
        new.stock = list(self.stock)
        new.scores = list(self.scores)
        new.losses = list(self.losses)
        new.finished = list(self.finished)
        new.gone = list(self.gone)
        new.masks = dict(self.masks)
        new.blind_play = None if self.blind_play is None else dict(self.blind_play)
        new.combo = list(self.combo)
        new.window = None if self.window is None else {**self.window, "queue": list(self.window["queue"])}
        new.last_hand = None if self.last_hand is None else dict(self.last_hand)
        new._legal = None
        new.log = None
        return new

    # -- helpers ------------------------------------------------------------------

    def _step(self, seat: int, steps: int) -> int:
        """The seat `steps` turns on; seats out of the hand or the match take no turn."""
        if not self.gone_count:
            return (seat + self.direction * steps) % self.players
        gone = self.gone
        while steps > 0:
            seat = (seat + self.direction) % self.players
            if not gone[seat]:
                steps -= 1
        return seat

    def others(self, seat: int) -> list[int]:
        """Every other seat still in the hand, in turn order from `seat`."""
        n = self.players
        order = ((seat + self.direction * i) % n for i in range(1, n))
        return [s for s in order if not self.gone[s]]

    def _refresh_gone(self) -> None:
        lives = self.rules.lives
        if not lives and not self.finished and self.returning is None:  # everybody plays (every new hand)
            self.gone = [False] * self.players
            self.gone_count = 0
            return
        gone = [bool(lives) and self.losses[s] >= lives for s in range(self.players)]
        for seat in self.finished:
            gone[seat] = True
        if self.returning is not None:
            gone[self.returning] = True
        self.gone = gone
        self.gone_count = sum(gone)

    def _draw(self, seat: int, count: int) -> int:
        return effects.draw(self, seat, count)

    # -- playing ------------------------------------------------------------------

    def _place(self, card: str, from_hand: bool, combo: bool = True) -> None:
        """Put one card on the pile; the play resolves once no more cards are added."""
        self.discard.append(card)
        if from_hand:
            self.placed += 1
            self.accusable = None  # B-8: the next player's discard closes the accusation window
        self.idle = 0
        self.active_suit = None
        self.suit_kind = None
        self.forced = None
        self.combo.append(card)
        rules = self.rules
        rank = card[0]
        n = rules.table_pattern
        discard = self.discard
        if n and len(discard) >= n and discard[-2][0] == rank:  # the card below first: it rarely matches
            for c in discard[-n:]:
                if c[0] != rank:
                    break
            else:
                self._table_event()
                return
        if rules.combos and combo and (from_hand or rules.opening == "hand_card"):
            hand = self.hands[self.current]  # the card has left it: any card of its rank, its twin too
            if not rules._same_rank[card].isdisjoint(hand) or card in hand:
                self.phase = "combo"
                return
        self._resolve()

    def _resolve(self) -> None:
        """Apply the play's effects once, in order (RULES.md 8.2 step 3)."""
        rules = self.rules
        cards = self.combo
        if len(cards) == 1 and not self.opening and cards[0] in rules._inert and self.hands[self.current]:
            self._end_turn(1)  # hot path: one card without effects that does not empty the hand
            return
        last = cards[-1]
        rule = rules.rule(last)
        seat = self.current
        opening = self.opening
        self.opening = False
        if opening and rules.opening == "upcard" and not rules.starter_effects:
            self._end_turn(1)
            return
        finished = False
        first_out = rules.hand_end == "first_out"
        if not self.hands[seat] and not (opening and rules.opening == "upcard"):
            finished = not (rule.covers or rule.follow or rule.cannot_finish in ("continue", "penalty"))
            if finished and self.called != 1 and rules.call is not None and rules.call.finish_word:
                self.going_out = True  # the word first (Tschau Sepp "Sepp"); `_go_out` resolves the play again
                self.phase = "call"
                self.next_seat = self._step(seat, 1)
                return
            if finished and rules._call_at == 1 and self.called != 1 and len(cards) == 1 and not opening:
                finished = False  # C-9 flag: going out without the word (said at one card) is no going out
                self._draw(seat, rules.call.penalty)
            elif not finished and rule.emptying is not None:
                rule = rule.emptying  # A-14 s7_literal: the last Ace acts differently, once per play
                cards = (last,)
            if finished and rules.finishing_effects == "ignore" and first_out and not rules.return_window:
                self._finish(seat, "out")
                return
        draw_others = draw_chosen = 0
        cancel = False
        if len(cards) == 1:
            draw_next, draw_previous, pending = rule.draw_next, rule.draw_previous, rule.pending_draw
            reverses, skips = rule.reverse, int(rule.skip)
            if rule.draw_others or rule.draw_chosen or rule.cancel_pending:
                draw_others, draw_chosen, cancel = rule.draw_others, rule.draw_chosen, rule.cancel_pending
        else:
            draw_next, draw_previous, pending, reverses, skips, draw_others, draw_chosen, cancel = (
                self._aggregate(cards)
            )
        if cancel:
            self.pending_draw = 0
        if reverses % 2:
            self.direction = -self.direction
        if draw_previous:
            previous = self.last_discarder
            if rules.previous_seat != "discarder" or previous is None:
                previous = (seat - self.direction) % self.players
            self._draw(previous, draw_previous)
        if draw_next:
            target = self._step(seat, 1)
            self._draw(target, draw_next)
            if rule.skip_if_stuck and not playable_cards(self, self.hands[target]):
                skips += 1
        if draw_others:
            for other in self.others(seat):
                self._draw(other, draw_others)
            if self.returning is not None and self.returning != seat:  # P28: hit while waiting, back in
                self._draw(self.returning, draw_others)
                self.returning = None
                self._refresh_gone()
        if not self.hands[seat] and rule.cannot_finish == "penalty" and not opening:
            self._draw(seat, rules.finish_penalty)  # C-27 alternative: no win, and a penalty
        if finished:
            if pending and rules.finishing_effects == "apply":  # nobody can answer it: taken at once
                self._draw(self._step(seat, 1), self.pending_draw + pending)
                self.pending_draw = pending = 0
            if first_out and not rules.return_window:
                self._finish(seat, "out")
                return
            if self._leave(seat) if not first_out else self._await_return(seat):
                return
        self.pending_draw += pending
        if skips and rule.skip_deflectable:
            self.pending_skip = 1
            skips = 0
        steps = 1 + skips
        if reverses % 2 and rules.reverse_two == "again" and self.players - self.gone_count <= 2:
            steps = 0 if not finished else steps  # C-26: with two seats a reversal is another turn
        if draw_chosen and self.others(seat):
            self.phase = "target"
            self.advance = steps
            return
        if rule.suit_choice:
            self.phase = "suit"
            if opening and rules.starter_suit_by == "next":
                self.current = self._step(seat, steps)
                self.advance = 0
            else:
                self.advance = steps
            return
        if rule.covers and not (opening and rules.opening == "upcard" and not rules.starter_follow):
            self.phase = "cover"  # an upcard to cover obliges nobody, as an upcard Ace (C-3)
            return
        if rule.follow and not (opening and not rules.starter_follow):
            self.phase = "follow"
            return
        self._end_turn(steps)

    def _aggregate(self, cards: list[str]) -> tuple:
        """A combo's effects added up (P17): "sum" per card (A-6) or "once" (Quick, C-11)."""
        rules = self.rules
        by_card = rules.rules_by_card
        per_card = rules.combo_per_card
        once = rules.combo_aggregation == "once"
        draw_next = draw_previous = pending = reverses = skips = others = chosen = 0
        cancel = False
        for i, card in enumerate(cards):
            r = by_card[card]
            counted = card[0] in per_card
            if once and i and not counted:
                continue
            draw_next += r.draw_next
            draw_previous += r.draw_previous
            pending += r.pending_draw
            reverses += r.reverse
            others += r.draw_others
            chosen += r.draw_chosen
            cancel = cancel or r.cancel_pending
            if r.skip and (counted or not skips):
                skips += 1
        return draw_next, draw_previous, pending, reverses, skips, others, chosen, cancel

    def _target(self, seat: int) -> None:
        """The chosen seat draws (Evil Seven 2, C-22), then the turn ends as the play said."""
        self._draw(seat, self.rules.rule(self.combo[-1] if self.combo else self.discard[-1]).draw_chosen)
        self._end_turn(self.advance)

    def _choose_suit(self, suit: str) -> None:
        self.active_suit = suit
        self.suit_kind = self.rules.rule(self.discard[-1]).suit_choice
        if self.advance == 0:
            self._start_turn(self.current)
        else:
            self._end_turn(self.advance)

    # -- drawing, passing, penalties ------------------------------------------------

    def _draw_action(self) -> None:
        rules = self.rules
        seat = self.current
        if self.phase == "cover":
            ranks = rules.rule(self.discard[-1]).cover_ranks
            suit = self.discard[-1][1]
            while True:
                card = effects.draw_one(self, seat)
                if card is None:  # the obligation lapses
                    self._stuck()
                    return
                if card[0] in ranks or card[1] == suit:
                    self.forced = card
                    self.drawn = True
                    return
        if self.phase == "follow":  # failed follow: draw one, the turn ends (C-8)
            self._fail_follow()
            return
        self.drawn = True
        if rules.draw_mode == "until_playable" and self.suit_kind != "demand":
            on_top = legal_on_top(self)  # the top stays while drawing (recycling keeps it)
            while True:
                card = effects.draw_one(self, seat)
                if card is None:
                    self._stuck()
                    return
                if self._can_play(card, on_top):
                    return
        card = effects.draw_one(self, seat)
        if card is None:
            self._stuck()
            return
        if self.suit_kind == "demand":  # exactly one card, then play or the turn ends
            if not playable_cards(self, self.hands[seat]):
                if rules.demand_expires:  # A-12 alternative: the failed demand binds nobody after
                    self.active_suit = self.suit_kind = None
                self._end_turn(1)
            return
        if rules.after_draw_play == "drawn":  # C-4: only the drawn card may follow
            if self._can_play(card):
                self.forced = card
            else:
                self._end_turn(1)

    def _can_play(self, card: str, on_top: frozenset | None = None) -> bool:
        """Is this card (just drawn into the current hand) legal on the top (`on_top`, if known)?"""
        if card not in (legal_on_top(self) if on_top is None else on_top):
            return False
        return not (len(self.hands[self.current]) == 1 and card in self.rules._no_finish)

    def _fail_follow(self) -> None:
        """C-8: draw one and the turn ends; the alternative passes the obligation on if a card came."""
        got = self._draw(self.current, 1)
        self._end_turn(1)
        if got and self.rules.follow_fail == "pass" and not self.is_over:
            if self.phase == "turn":
                self.phase = "follow"
            else:  # a call or an accusation window first; `_resume` hands the obligation on
                self.carry_follow = True

    def _resume(self, seat: int) -> None:
        """Start `seat`'s turn after a call or accusation window, with a carried follow obligation."""
        self._start_turn(seat)
        if self.carry_follow:
            self.carry_follow = False
            if not self.is_over and self.phase == "turn":
                self.phase = "follow"

    def _stuck(self) -> None:
        """Nothing can be played or drawn: the turn ends; a full round of this blocks the hand."""
        if self.suit_kind == "demand" and self.rules.demand_expires and not self.placed:
            self.active_suit = self.suit_kind = None  # A-12 alternative, as after a failed draw
        self.idle += 1
        if self.idle >= self.players - self.gone_count:
            self._score_hand(None, "blocked")
            return
        self._end_turn(1)

    def _pass(self) -> None:
        phase = self.phase
        if phase == "accuse":
            window = self.window
            window["queue"].pop(0)
            if window["queue"]:
                self.current = window["queue"][0]
            else:
                self.window = None
                if self.going_out:  # nobody caught the missing word: the finish stands
                    self._go_out(window["offender"])
                else:
                    self._resume(window["next"])
                    self._keep_accusable(window["offender"], not window["called"])
            return
        if phase == "call":
            self._open_window(self.current, self.next_seat)
            return
        if not self.drawn and not self.placed and not effects.can_draw(self):
            self._stuck()
            return
        self._end_turn(1)

    def _accept(self) -> None:
        if self.pending_draw and (self.paying or self.rules.rule(self.discard[-1]).rescue_first_k):
            if self._pay_with_rescue():
                return
        if self.pending_draw or self.paying:
            if self.paying:  # the rescue cards came and went: the rest of the debt, then as any accept
                self.paying = 0
                self.phase = "turn"
                self.forced = None
            count = self.pending_draw
            self.pending_draw = 0
            self._draw(self.current, count)
            rules = self.rules
            if (rules.rule(self.discard[-1]).after_accept or rules.after_accept) == "end_turn":
                self._end_turn(1)
            return
        self.pending_skip = 0
        self._end_turn(1)

    def _pay_with_rescue(self) -> bool:
        """P2 rescue_first_k: pay one card at a time; True when a drawn card may answer the debt."""
        rule = self.rules.rule(self.discard[-1])
        answers = rule.stack_with
        seat = self.current
        while self.pending_draw and self.paying < rule.rescue_first_k:
            card = effects.draw_one(self, seat)
            if card is None:  # C-12: a short stock forgives the rest
                self.pending_draw = 0
                return False
            self.pending_draw -= 1
            self.paying += 1
            if card[0] in answers or card in answers:
                self.phase = "rescue"
                self.forced = card
                return True
        return False

    def _rescue(self, card: str) -> None:
        """The drawn answer is played at once: the rest of the debt lapses, only its own effect counts."""
        self.pending_draw = 0
        self.paying = 0
        self.combo = []
        self.hands[self.current].remove(card)
        self._place(card, from_hand=True, combo=False)

    # -- calls and accusations -----------------------------------------------------

    def _call(self) -> None:
        call = self.rules.call
        seat = self.current
        if self.going_out:  # the finishing word, said in time
            self._go_out(seat)
            return
        if self.phase == "call":  # S2: said in time, nothing to catch
            self._resume(self.next_seat)
            return
        hand = self.hands[seat]
        if self.pending_draw or self.pending_skip:
            counters = self.rules.rule(self.discard[-1]).stack_with
            can_discard = any(c[0] in counters or c in counters for c in hand)
        else:
            can_discard = bool(playable_cards(self, hand))
        if len(hand) == self.rules._call_at and not self.drawn and can_discard:
            self.called = 1
        else:  # B-7: every failed precondition is a false call
            self.called = 2
            self._draw(seat, call.false_call_penalty)

    def _open_window(self, offender: int, next_seat: int) -> None:
        n = self.players
        queue = [(offender + self.direction * i) % n for i in range(1, n)]
        self.window = {"offender": offender, "queue": queue, "next": next_seat, "called": self.called == 1}
        self.phase = "accuse"
        self.current = queue[0]

    def _accuse(self) -> None:
        call = self.rules.call
        if self.phase == "turn":  # B-8/B-9: the next player accuses during its turn; the turn goes on
            offender, guilty = self.accusable
            self.accusable = None
            self._draw(offender if guilty else self.current, call.penalty if guilty else call.false_accuse_penalty)
            return
        window = self.window
        if window["called"]:  # nobody to accuse: the accuser pays (S1)
            self._draw(self.current, call.false_accuse_penalty)
        else:
            self._draw(window["offender"], call.penalty)
        self.window = None
        if self.going_out:  # caught going out without the word: with the penalty in hand, play on
            self.going_out = False
            self.current = window["offender"]
            if self.hands[self.current]:
                self._resolve()  # the play no longer empties the hand: it resolves as any other
            else:
                self._go_out(self.current)  # nothing left to draw (C-12): the finish stands
            return
        self._resume(window["next"])
        self._keep_accusable(window["offender"], False)  # caught, or nobody to catch: a new accusation is false

    def _keep_accusable(self, offender: int, guilty: bool) -> None:
        """S1 (B-8): the window stays open into the next player's turn, until it discards or passes."""
        call = self.rules.call
        if call.accuse_in_next_turn and self.phase == "turn" and not self.is_over and self.current != offender:
            self.accusable = (offender, guilty)

    def _go_out(self, seat: int) -> None:
        """The finishing play resolves with its word counted as said (CallRule.finish_word)."""
        self.going_out = False
        self.current = seat
        self.called = 1
        self._resolve()

    # -- turn flow ------------------------------------------------------------------

    def _end_turn(self, steps: int) -> None:
        seat = self.current
        if self.placed:
            self.last_discarder = seat
        if self.blind_skip:  # C-13: a challenger who doubted the truth loses their next turn
            steps += self.blind_skip
            self.blind_skip = 0
        nxt = (seat + self.direction * steps) % self.players if not self.gone_count else self._step(seat, steps)
        call = self.rules.call
        if call is not None:
            if call.timing == "after_drop":
                if self.placed and len(self.hands[seat]) == 1:
                    self.phase = "call"
                    self.next_seat = nxt
                    return
            elif self.offender is not None:
                self._open_window(self.offender, nxt)
                return
        self._start_turn(nxt)

    def _await_return(self, seat: int) -> bool:
        """P28: the seat is out but not yet the winner; True if an earlier finisher wins now."""
        if self.returning is not None:
            self._score_hand(self.returning, "out")
            return True
        self.returning = seat
        self.return_wait = self.players - self.gone_count - 1
        self._refresh_gone()
        return False

    def _start_turn(self, seat: int) -> None:
        if self.returning is not None:  # P28: each other seat gets one turn, then the finisher has won
            if self.return_wait <= 0:
                self._score_hand(self.returning, "out")
                return
            self.return_wait -= 1
        self.phase = "turn"
        self.drawn = False
        self.called = 0
        self.placed = 0
        self.forced = None
        self.combo = []
        self.offender = None
        self.accusable = None
        self.current = seat
        self.next_seat = None

    def _settle(self) -> None:
        """Apply forced consequences that leave the seat no choice (see the module docstring)."""
        while not self.is_over:
            phase = self.phase
            if phase == "follow":
                if playable_cards(self, self.hands[self.current]):
                    return
                self._fail_follow()
            elif phase == "turn" and (self.pending_draw or self.pending_skip):
                legal = legal_actions(self)
                if len(legal) != 1 or legal[0] != A.ACCEPT:
                    return
                if self.log is not None:
                    events.forced_accept(self)
                self._accept()
            else:
                return
        self._legal = None

    # -- end of hand, match -----------------------------------------------------------

    def _table_event(self) -> None:
        """Moumou event: the top cards share a rank; the hand ends, pending effects lapse (A-18..A-20)."""
        seat = self.current
        if not self.hands[seat]:
            self._finish(seat, "table-pattern")
        else:
            self._score_hand(None, "table-pattern")

    def _finish(self, seat: int, reason: str) -> None:
        rule = self.rules.rule(self.combo[-1])
        self.reason = reason
        if rule.finish_bonus:
            self.phase = "finish-bonus"
            self.current = seat
            return
        self._score_hand(seat, reason)

    def _bonus(self, who: str) -> None:
        rules = self.rules
        seat = self.current
        rule = rules.rule(self.combo[-1])
        count = sum(1 for c in self.combo if rules.rule(c).finish_bonus) if rules.bonus_per_card else 1
        self._score_hand(seat, self.reason, (who, rule.finish_bonus * count))

    def _leave(self, seat: int) -> bool:
        """A seat went out and the hand goes on without it (C-30); True once one holder is left."""
        self.finished.append(seat)
        self._refresh_gone()
        holders = [s for s in range(self.players) if not self.gone[s]]
        if len(holders) > 1:
            return False
        if self.rules.lives:
            self._score_ladder(holders, "out")
        else:
            self._score_hand(self.finished[0], "out")
        return True

    def _score_ladder(self, losers: list[int], reason: str) -> None:
        """P27: losers lose a card (a life); out of the match at `lives` losses, worst first."""
        lives = self.rules.lives
        winner = self.finished[0] if self.finished else None
        for seat in losers:
            self.losses[seat] += 1
        alive = [s for s in range(self.players) if self.losses[s] < lives]
        scores = list(self.scores)  # a new list: observations hold the old one (see __init__)
        for seat in losers:
            scores[seat] = self.losses[seat] if seat in alive else lives + len(alive)
        self.scores = scores
        self.last_hand = {"hand": self.hand_number, "winner": winner, "reason": reason, "losers": list(losers)}
        self.reason = reason
        if self.log is not None:
            events.hand_scored(self)
        if len(alive) <= 1 or reason == "decision-limit":
            self._end_game()
            return
        self.finished = []
        self._next_dealer(winner, [])
        self.hand_number += 1
        self._deal()

    def _score_hand(self, winner: int | None, reason: str, bonus: tuple | None = None) -> None:
        rules = self.rules
        if rules.lives:  # a blocked hand on the ladder: the seats holding the most cards lose
            holders = [s for s in range(self.players) if not self.gone[s]]
            most = max(len(self.hands[s]) for s in holders)
            self._score_ladder([s for s in holders if len(self.hands[s]) == most], reason)
            return
        values = rules.points
        points = [sum(values[c[0]] for c in hand) for hand in self.hands]
        if winner is not None and self.combo:
            rule = rules.rule(self.combo[-1])
            if rule.finish_multiplier != 1:
                count = (
                    sum(1 for c in self.combo if rules.rule(c).finish_multiplier != 1)
                    if rules.multiplier_per_card
                    else 1
                )
                factor = rule.finish_multiplier**count
                points = [p * factor for p in points]
        scores = [total + p for total, p in zip(self.scores, points)]  # a new list (see __init__)
        if bonus is not None:
            who, amount = bonus
            if who == "self":
                scores[winner] -= amount
            else:
                for i in range(self.players):
                    if i != winner:
                        scores[i] += amount
        self.scores = scores
        self.last_hand = {"hand": self.hand_number, "winner": winner, "reason": reason, "points": points}
        self.reason = reason
        if self.log is not None:
            events.hand_scored(self)
        if rules.match == "limit":
            done = max(self.scores) > rules.limit
        elif rules.match == "series":
            done = self.hand_number >= rules.hands
        else:
            done = True
        if done or reason == "decision-limit":
            self._end_game()
            return
        self._next_dealer(winner, points)
        self.hand_number += 1
        self._deal()

    def _end_game(self) -> None:
        """Nobody decides any more, so nothing stays open for a decision: a card owed by the last turn, a
        catch window, a finishing word, an unjudged Blind claim (its card stays face down).  The decision
        limit can end a game in any of them; the property tests found the owed card and the open claim,
        whose over positions failed to load."""
        self.is_over = True
        self.current = None
        self.phase = "over"
        if self.log is not None:
            events.game_over(self)
        self.forced = None
        self.window = None
        self.accusable = None
        self.going_out = False
        self.blind_play = None

    def _next_dealer(self, winner: int | None, points: list[int]) -> None:
        rule = self.rules.dealer_rule
        n = self.players
        if self.rules.leader == "winner" and winner is not None:  # the winner opens the next hand
            self.dealer = (winner - self.rules.start_direction) % n
            return
        if rule == "loser":
            worst = max(points)
            losers = [i for i in range(n) if points[i] == worst and i != winner]
            if len(losers) == 1:
                self.dealer = losers[0]
                return
            self.dealer = (self.dealer + 1) % n
        elif rule in ("alternate", "rotate"):
            self.dealer = (self.dealer + 1) % n
