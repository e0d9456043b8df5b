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
order (`turns.step`) passes over seats that are out of the hand or the match.

Forced steps applied by the engine without asking (the only ones): taking
a pending penalty that no card of the ruleset answers, and the failed
follow of a Mau-Mau Ace (draw one, turn ends: a seat that can follow
must).  The rule: the engine steps on alone only where every hand the seat
could hold would leave it the same single action; anything else would tell
the table what this hand lacks.  So a seat facing a debt that some card of
the ruleset answers is asked even when its hand has none, and the pass
after a single draw that produced nothing playable, where only the drawn
card may be played (C-4), is the seat's own decision (a seat may also keep
a drawn card that fits).
"""

from __future__ import annotations

from typing import Any

from arena.games.base import Action, GameError, GameState, PublicEvent, Result
from arena.games.shedding import actions as A
from arena.games.shedding import blind, calls, deal, drawing, effects, events, playing, scoring, turns
from arena.games.shedding.legal import phase_table
from arena.games.shedding.observation import observe
from arena.games.shedding.rules import Ruleset


class SheddingState(GameState):
    VERBS = A.VERBS

    # A fixed layout: every read and write of the state's fields is a slot access (the interpreter's
    # cheapest), where a 48-key instance dict costs a hinted dict probe each time, and a misspelt field
    # fails loudly instead of becoming a new attribute.  `current` is the seat to decide (None once the
    # game is over, when `phase` is "over" and `is_over` true): plain fields, read at every decision.
    # `match_view` is (players, scores, hand_number, dealer, last_hand), the match's public facts, which change
    # only between hands: one value for the observation to copy (`refresh_match_view`).
    # `sizes` is the length of each hand, kept up to date wherever a card enters or leaves one (the
    # observation copies it: counting the hands at every decision cost more than keeping the count).
    __slots__ = (
        # the game
        "rules", "ruleset", "options", "players", "seed", "counter", "decisions", "is_over", "reason",
        # the match
        "scores", "losses", "gone", "gone_count", "finished", "hand_number", "dealer", "last_hand", "match_view",
        # the cards
        "hands", "sizes", "discard", "stock", "masks",
        # the pile's state
        "direction", "active_suit", "suit_kind", "pending_draw", "pending_skip", "opening", "idle",
        "last_discarder", "returning", "return_wait", "blind_play", "blind_skip", "carry_follow",
        # the decision under way
        "current", "phase", "drawn", "called", "placed", "forced", "combo", "offender", "next_seat",
        "advance", "window", "going_out", "paying", "accusable",
        # the legal list of the decision under way (None: not listed yet); whatever changes the position
        # clears it (here, `turns.settle`, `position.restore`)
        "legal_cache",
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
        self.legal_cache: list | None = None
        self.log = log  # a list only for `record_events`, which deals the same game again to record it
        self.fresh = True
        deal.deal(self)
        turns.settle(self)

    # -- contract -----------------------------------------------------------------

    @property
    def decision(self) -> str:
        return self.phase

    def legal_actions(self) -> list[Action]:
        legal = self.legal_cache
        if legal is None:  # the ruleset's own function for the decision (`legal.phase_table`); [] once over
            legal = self.legal_cache = (self.rules.legal_by_phase or phase_table(self.rules))[self.phase](self)
        return legal.copy()

    def apply(self, action: "Action | str") -> None:
        """The contract's apply, in one frame on the hot path.

        An action taken from the cached legal list (what the arena, the bots and the benchmark pass) is
        legal by identity.  Anything else (text, an equal copy, an illegal action) goes through the base
        class's checks, which parse, refuse with a clear error, or hand the list's own action back here
        (`_apply_legal`).
        """
        legal = self.legal_cache
        if legal is not None:
            for candidate in legal:
                if candidate is action:
                    break
            else:
                legal = None
        if legal is None:
            GameState.apply(self, action)
            return
        self.legal_cache = None
        verb = action.verb
        if self.log is not None:
            events.action(self, action)
        if verb == "play":
            card = action.args[0]
            phase = self.phase
            if phase == "turn" and card in self.rules.turn_enders and self._quiet_play(card):
                pass  # played, and the next turn begun
            elif phase == "rescue":
                drawing.rescue(self, card)
            else:
                hand = self.hands[self.current]
                if phase != "combo":  # a new play (a combo's later cards add to it)
                    if self.combo:  # a turn's play finds it empty (`turns.start_turn`); a cover's holds the 6
                        self.combo = []
                    if self.rules.call_at == 2 and len(hand) == 2 and not self.drawn:
                        self.offender = self.current  # S1: MAU-MAU was due before this 2 -> 1 discard
                hand.remove(card)
                self.sizes[self.current] -= 1
                playing.place(self, card, True)  # positional: a keyword call costs more
        elif verb == "draw":  # the other verbs, the more common first
            drawing.draw(self)
        elif verb == "suit":
            playing.choose_suit(self, action.args[0])
        elif verb == "pass":
            drawing.pass_turn(self)
        elif verb == "stop":
            playing.resolve(self)
        elif verb == "accept":
            drawing.accept(self)
        elif verb == "call":
            calls.call(self)
        elif verb == "accuse":
            calls.accuse(self)
        elif verb == "bonus":
            scoring.bonus(self, action.args[0])
        elif verb == "target":
            playing.target(self, int(action.args[0]))
        elif verb == "blind":
            blind.play(self, action.args[0], action.args[1])
        elif verb == "believe":
            blind.believe(self)
        elif verb == "challenge":
            blind.challenge(self)
        if self.pending_draw or self.pending_skip or self.phase == "follow":  # `turns.settle` looks at the phase
            turns.settle(self)
            self.legal_cache = None
        self.decisions += 1
        if self.decisions >= self.rules.decision_cap and not self.is_over:
            scoring.score_hand(self, None, "decision-limit")
            self.legal_cache = None

    def _apply_legal(self, action: Action) -> None:
        """The base class's `apply` has checked `action` against the cached list: apply that list's own
        action (an equal one parsed from text is not identical to it)."""
        legal = self.legal_cache
        self.apply(legal[legal.index(action)])

    def _quiet_play(self, card: str) -> bool:
        """The common play, done in one step: True if `card` was played and the next turn begun.

        A turn's single card whose only effects end the turn (`Ruleset.turn_enders`, checked by
        the caller: the next seat draws, seats are skipped, the direction turns) and that does not
        empty the hand (nor leave one card where a call rule cares: `Ruleset.quiet_hand`), with
        nothing pending, no combo or table pattern to build, no announcement or window due, and
        nobody out of the hand: the whole pipeline (`playing.place`, `playing.resolve`, `turns.end_turn`,
        `turns.start_turn`) comes down to the steps below.  Anything else returns False before changing
        anything, and the pipeline plays the card.
        """
        rules = self.rules
        seat = self.current
        hand = self.hands[seat]
        if rules.combos and (  # another card of the rank (two packs: maybe its twin) would start a combo
            not rules.same_rank[card].isdisjoint(hand) or (rules.copies > 1 and hand.count(card) > 1)
        ):
            return False  # asked first: in Moumou the most common reason to take the pipeline
        if self.opening or self.pending_draw or self.pending_skip:
            return False
        if len(hand) < rules.quiet_hand or self.gone_count or self.returning is not None or self.blind_skip:
            return False
        if self.offender is not None or self.accusable is not None:
            return False
        rank = card[0]
        discard = self.discard
        pattern = rules.table_pattern
        if pattern and discard[-1][0] == rank and (pattern < 3 or (len(discard) > 1 and discard[-2][0] == rank)):
            return False  # the pile may complete the pattern (Moumou event): `playing.place` checks it
        hand.remove(card)
        self.sizes[seat] -= 1
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
        draw, skips, reverse = rules.turn_enders[card]
        players = self.players
        if reverse:  # as `playing.resolve`: turn first, then draw and step in the new direction
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
        if phase == "turn" and self.rules.call_at == 1 and legal[-1].verb == "call":
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
        """An independent copy: field by field (a loop of getattr/setattr over the slots cost four times
        as much); lists and dicts the engine changes in place are copied, the rest shared."""
        new = object.__new__(SheddingState)
        # the game
        new.rules = self.rules
        new.ruleset = self.ruleset
        new.options = self.options
        new.players = self.players
        new.seed = self.seed
        new.counter = self.counter
        new.decisions = self.decisions
        new.is_over = self.is_over
        new.reason = self.reason
        # the match
        new.scores = list(self.scores)
        new.losses = list(self.losses)
        new.gone = list(self.gone)
        new.gone_count = self.gone_count
        new.finished = list(self.finished)
        new.hand_number = self.hand_number
        new.dealer = self.dealer
        new.last_hand = None if self.last_hand is None else dict(self.last_hand)
        new.match_view = self.match_view  # immutable: the lists and dict in it are replaced, never changed
        # the cards
        new.hands = [list(h) for h in self.hands]
        new.sizes = list(self.sizes)
        new.discard = list(self.discard)
        new.stock = list(self.stock)
        new.masks = dict(self.masks)
        # the pile's state
        new.direction = self.direction
        new.active_suit = self.active_suit
        new.suit_kind = self.suit_kind
        new.pending_draw = self.pending_draw
        new.pending_skip = self.pending_skip
        new.opening = self.opening
        new.idle = self.idle
        new.last_discarder = self.last_discarder
        new.returning = self.returning
        new.return_wait = self.return_wait
        new.blind_play = None if self.blind_play is None else dict(self.blind_play)
        new.blind_skip = self.blind_skip
        new.carry_follow = self.carry_follow
        # the decision under way
        new.current = self.current
        new.phase = self.phase
        new.drawn = self.drawn
        new.called = self.called
        new.placed = self.placed
        new.forced = self.forced
        new.combo = list(self.combo)
        new.offender = self.offender
        new.next_seat = self.next_seat
        new.advance = self.advance
        new.window = None if self.window is None else {**self.window, "queue": list(self.window["queue"])}
        new.going_out = self.going_out
        new.paying = self.paying
        new.accusable = self.accusable
        new.legal_cache = None
        new.log = None  # clones do not record
        new.fresh = self.fresh
        return new

    # -- helpers ------------------------------------------------------------------

    def refresh_match_view(self) -> None:
        """Make `match_view` again: after any change of the players, scores, hand number, dealer or last
        hand, which happen between hands (`deal.deal`, `scoring.end_game`, a position's restore)."""
        self.match_view = (self.players, self.scores, self.hand_number, self.dealer, self.last_hand)

    def others(self, seat: int) -> list[int]:
        """Every other seat still in the hand, in turn order from `seat`."""
        n = self.players
        order = ((seat + self.direction * i) % n for i in range(1, n))
        return [s for s in order if not self.gone[s]]
