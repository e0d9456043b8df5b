"""The DD MAU engine: turns, chains, hits, blocks, calls, scoring and the match to 505.

Decisions (`state.decision`):

* ``turn``: ``play CARD`` (the first card of a play), ``draw`` (dig, up to
  3 a turn; a seat with no play must dig, and one that found a play may dig
  on), ``pass`` (after 3 draws, when there is no play and nothing to draw,
  or after a block);
* ``chain``: ``play CARD`` (the next link), ``stop`` (offered only when the
  play so far is legal), ``call ddmau`` (offered while the play is open and
  cards remain in hand; it counts if the play leaves one card);
* ``declare``: ``declare PT|SK|OWM|JTT|SM|LM`` right after ``play MM``;
* ``color``: ``color r|y|b|g`` right after a Shadow Master (or an MM
  declared SM), unless it emptied the hand;
* ``hit``: the hit target's ``accept`` (draw H) or ``block`` (with an MM);
* ``catch``: the catch window after a play that left one card without the
  call: ``catch N`` (N = the offender's seat) or ``pass``, asked seat by
  seat from the next in the direction of play;
* ``over``.

A play ends at ``stop``, or by itself when nothing could be added (an
empty hand).  Its effects are processed in card order (E-28), see
`_resolve_play`.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from arena.games.base import Action, GameError, GameState, PublicEvent, Result, note_draw
from arena.games.ddmau import events
from arena.games.chance import shuffled
from arena.games.ddmau import chain as C
from arena.games.ddmau.cards import (BIT, CARD_OF_BIT, COLOURS, HIT_KINDS, MM_DECLARATIONS, ORDER, PRINTED, deck, ident,
                                     mask, of_mask, points)
from arena.games.ddmau import pile
from arena.games.ddmau.observation import build as build_observation, match_view as match_part
from arena.games.ddmau.pile import effective_top, hit_run

VERBS = frozenset({"play", "draw", "pass", "stop", "declare", "color", "block", "accept", "call", "catch"})

DRAW = Action("draw")
PASS = Action("pass")
STOP = Action("stop")
ACCEPT = Action("accept")
BLOCK = Action("block")
CALL = Action("call", ("ddmau",))
DIG_LIMIT = 3


def hand_size(active: int) -> int:
    """9 cards for 2 players, 7 for 3-7, 5 for 8-10 (7.2)."""
    return 9 if active <= 2 else 7 if active <= 7 else 5


def team_map(players: int, teams: str) -> list[int] | None:
    """P1+P3 vs P2+P4; P1+P4, P2+P5, P3+P6 (7.1); None without teams."""
    if teams == "off":
        return None
    return [seat % (players // 2) for seat in range(players)]


class DDMauState(GameState):
    VERBS = VERBS

    # Slotted: with 44 fields the instance dict is past CPython's limit for shared keys, so every read and
    # write of a field would probe the instance's own dict; a slot is an offset.
    __slots__ = (
        # the table and its rules (set once)
        "ruleset", "players", "options", "counts", "rules", "teams", "target", "must_play", "turn_limit",
        "decision_cap",
        # caches of what was worked out from the state (`_pile_changed`, `legal_actions`, `match_view`; the
        # observations' pile view, `pile.view`)
        "legal_cache", "facts", "pile_shown", "match_shown", "_node", "_under",
        # the match
        "log", "fresh", "seed", "chance", "scores", "individual", "active", "eliminated", "hand_number",
        "direction", "is_over", "reason", "last_hand", "dealer", "decisions",
        # the hand (``sizes``: each hand's length, a list replaced when a card moves, never changed: the
        # observations share it; ``held``: each hand's distinct cards as a mask, `cards.BIT`, what the validator
        # reads)
        "hands", "sizes", "held", "stock", "discard", "marks", "last_play", "hit", "window", "final", "next_seat",
        "idle", "stall", "turn_open", "turns",
        # the turn (``current`` and ``is_over`` are the contract's, kept as fields: read at every decision)
        "current", "phase", "drawn", "optional", "chain", "called",
    )

    def __init__(self, players: int, seed: int, options: dict[str, Any], counts: dict[str, int],
                 log: "list[PublicEvent] | None" = None) -> None:
        self._setup(players, options, counts)
        self.log = log  # a list only for `record_events`, which deals the same game again to record it
        self.fresh = True  # built by the constructor, not restored from a position
        self.seed = seed
        self.chance = 0
        self.decisions = 0  # decisions applied in this game, against option decision_limit
        self.scores = [0] * players
        self.individual = [0] * players
        self.active = [True] * players
        self.eliminated: list[list[int]] = []
        self.hand_number = 1
        self.direction = 1
        self.is_over = False
        self.reason = ""
        self.last_hand: dict | None = None
        self.dealer = self._draw_for_dealer()
        self._deal()

    @classmethod
    def blank(cls, players: int, options: dict[str, Any], counts: dict[str, int]) -> "DDMauState":
        """A state with its table and rules set and nothing dealt or played: what a position fills in
        (`position.from_position`), as the constructor fills it by dealing."""
        state = object.__new__(cls)
        state._setup(players, options, counts)
        return state

    def _setup(self, players: int, options: dict[str, Any], counts: dict[str, int]) -> None:
        self.ruleset = "ddmau"
        self.players = players
        self.options = options
        self.counts = counts
        self.rules = C.Rules(options["allow_number_to_power_chain"], options["lm_per_run_segment"])
        self.teams = team_map(players, options["teams"])
        self.target = options["target"]
        self.must_play = options["must_play_if_able"]
        self.turn_limit = options["turn_limit"]
        limit = options["decision_limit"]
        self.decision_cap = limit if limit > 0 else 1 << 62  # (0: none)
        self.legal_cache: list[Action] | None = None
        self._under: C.Node | None = None  # `_node_under()`, set by `_play`
        self.match_shown: tuple | None = None  # `match_view`
        self._pile_changed()

    def _pile_changed(self) -> None:
        """Forget what was worked out from the pile and the play in progress (a mark, a reshuffle, a new
        hand; a card without a mark changes the pile's facts by itself: `_play`)."""
        self.facts: pile.Facts | None = None  # `pile_facts`: the pile's effective top and hit run
        self.pile_shown: tuple | None = None  # `pile.view`, kept by the observations (`observation.build`)
        self._node: C.Node | None = None  # `play_so_far()`

    # -- chance: dealer draw, deal, reshuffle ---------------------------------------------

    def _shuffle(self, cards: list[str]) -> list[str]:
        out = shuffled(cards, self.seed, self.chance)
        self.chance += 1
        return out

    def _draw_for_dealer(self) -> int:
        """First hand: face-up cards round the table from seat 0 until one is a DM (7.2)."""
        seat = 0
        for card in self._shuffle(deck(self.counts)):
            if card == "DM":
                return seat
            seat = self._step(seat, 1)
        return 0

    def _deal(self) -> None:
        cards = self._shuffle(deck(self.counts))
        self.hands = [[] for _ in range(self.players)]
        seats = [s for s in range(self.players) if self.active[s]]
        size = hand_size(len(seats))
        order = []
        seat = self.dealer
        for _ in seats:
            seat = self._step(seat, 1)
            order.append(seat)
        for _ in range(size):
            for seat in order:
                self.hands[seat].append(cards.pop())
        self.sizes = [*map(len, self.hands)]
        self.held = [*map(mask, self.hands)]
        self.stock = cards  # the end of the list is the top
        self.discard: list[str] = []
        self.marks: list[str | None] = []
        self._pile_changed()
        self.match_shown = None  # (a new hand: the dealer, the hand number)
        self.facts = pile.EMPTY
        self.direction = 1
        self.last_play = 0
        self.hit: dict | None = None
        self.window: dict | None = None
        self.final: dict | None = None
        self.next_seat: int | None = None
        self.idle = 0
        if self.log is not None:
            events.dealt(self)
        self.stall = 0
        self.turn_open: tuple | None = None
        self.turns = 0
        self._start_turn(self._step(self.dealer, 1))

    def _draw_one(self, seat: int) -> str | None:
        if not self.stock:
            keep = self.last_play + self.chain
            if len(self.discard) <= keep:
                return None
            cut = len(self.discard) - keep
            self.stock = self._shuffle(self.discard[:cut])  # E-8: the last play stays
            del self.discard[:cut]
            del self.marks[:cut]
            self._pile_changed()
            if self.log is not None:
                events.reshuffled(self, cut)
        card = self.stock.pop()
        self.hands[seat].append(card)
        self.held[seat] |= BIT[card]
        sizes = self.sizes = self.sizes[:]  # (a new list: observations and clones share the old one)
        sizes[seat] += 1
        if self.log is not None:
            note_draw(self.log, seat)
        return card

    def _draw(self, seat: int, count: int) -> None:
        for _ in range(count):
            if self._draw_one(seat) is None:
                return

    # -- seats --------------------------------------------------------------------------

    def _step(self, seat: int, direction: int) -> int:
        """The next active seat along ``direction`` (1 or -1; eliminated seats are passed over)."""
        seat = (seat + direction) % self.players
        if not self.active[seat]:
            active = self.active
            while not active[seat]:
                seat = (seat + direction) % self.players
        return seat

    def _start_turn(self, seat: int, optional: bool = False) -> None:
        """Open ``seat``'s turn, unless the hand ends first (not in RULES.md): stalled, or at the turn limit.

        A turn is stale if it began with an empty draw pile (every dig had to reshuffle the pile
        under the last play) and its seat did not end it holding fewer cards than it began with.
        When a full round of turns in a row (one per active seat) is stale, nobody can get ahead:
        cards only go round between the hands and the pile, and the hand ends blocked.  Option
        ``turn_limit`` bounds a hand's turns whatever the seats do.  (One frame: it runs at every turn.)
        """
        opened = self.turn_open  # (the turn that ends now: seat, cards at its start, draw pile empty then)
        if opened is not None:
            if opened[2] and len(self.hands[opened[0]]) >= opened[1]:
                stall = self.stall = self.stall + 1
                if stall >= sum(self.active):
                    self._score_hand(None, "stalled")
                    return
            else:
                self.stall = 0
        limit = self.turn_limit
        if limit and self.turns >= limit:
            self._score_hand(None, "turn-limit")
            return
        self.turn_open = (seat, len(self.hands[seat]), not self.stock)  # (a tuple: replaced, never changed)
        self.turns += 1
        self.current = seat
        self.phase = "turn"
        self.drawn = 0
        self.optional = optional
        self.chain = 0
        self.called = False

    # -- contract -----------------------------------------------------------------------

    @property
    def decision(self) -> str:
        return self.phase  # ("over" once the game is over, as `current` is None then)

    def legal_actions(self) -> list[Action]:
        legal = self.legal_cache
        if legal is None:
            if self.is_over:
                return []
            # (a turn, the usual decision, without the dispatch's frame)
            legal = self.legal_cache = self._turn_legal(None) if self.phase == "turn" else self._compute_legal()
        return [*legal]  # (a copy: the caller's to change)

    def apply(self, action: "Action | str") -> None:
        """The contract's apply.  The hot path, an action of the cached legal list itself (as a bot picks
        them), runs in this one frame; anything else goes through the base class's checks (`GameState.apply`:
        it parses, raises with the contract's messages, or calls `_apply_legal`)."""
        legal = self.legal_cache
        if legal is not None:  # (a game over has no list)
            for known in legal:  # identity, as a bot picks them: no field-wise comparison
                if known is action:
                    break
            else:
                legal = None
        if legal is None:
            super().apply(action)
            return
        self.legal_cache = None
        self.fresh = False
        decisions = self.decisions = self.decisions + 1
        if self.log is not None:
            events.action(self, action)
        verb = action.verb
        # (the verbs by how often random play picks them; only a play, a declaration, a colour or the call can
        # leave a play under way, whose legal list is made now: a play that cannot go on ends by itself)
        if verb == "play":
            self._play(action.args[0])
            if self.phase == "chain":
                self._chain_goes_on(self._chain_legal())
        elif verb == "draw":
            card = self._draw_one(self.current)
            self.drawn += 1
            self.idle = 0
            node = self._node  # (None after a reshuffle)
            if card is not None and node is not None and node.plays_unchanged_by(card, self.held[self.current]):
                # the same turn with the same plays: only the draw and the pass are decided again
                self.legal_cache = self._turn_legal(legal[:-2] if legal[-1] is PASS else legal[:-1])
        elif verb == "stop":
            self._resolve_play()
        elif verb == "call":
            self.called = True
            # the same play, hand and node: the same list without the call, its last action (`_chain_legal`)
            self._chain_goes_on(legal[:-1])
        elif verb == "accept":
            self._accept()
        elif verb == "pass":
            self._pass(legal)
        elif verb == "color":
            self._color(action.args[0])
            self._chain_goes_on(self._chain_legal())
        elif verb == "declare":
            self._declare(action.args[0])
            if self.phase == "chain":
                self._chain_goes_on(self._chain_legal())
        elif verb == "block":
            self._block()
        elif verb == "catch":
            self._catch()
        if decisions >= self.decision_cap and not self.is_over:
            self._end_at_decision_limit()

    def _end_at_decision_limit(self) -> None:
        """Option ``decision_limit`` (not in the rules, a bound): the game ends now, its hand scored as it
        stands.  A hand already won (a finish whose hit waits for its target) is scored as won, the hit
        lapsing; any other hand as a blocked one (every seat adds its hand; reason ``decision-limit``), the
        cards of a play under way staying on the pile.  `_score_hand` then ends the game."""
        self.legal_cache = None  # (a play under way, or a dig, may have kept its next list)
        final = self.final
        self._score_hand(None if final is None else final["seat"], "decision-limit")

    def _apply_legal(self, action: Action) -> None:
        """`GameState.apply`'s last step, after its checks (the list is cached then): `apply` with the list's
        own action."""
        for known in self.legal_cache:
            if known == action:
                self.apply(known)
                return

    def _chain_goes_on(self, legal: list[Action]) -> None:
        """A play under way with this legal list: its decision, or its end when the hand is empty.

        A seat with cards left that can add none is asked all the same (``stop`` its only action): a seat
        that could add one may stop too, so ending the play for it would tell the table its hand held no
        card that follows."""
        if len(legal) == 1 and legal[0] is STOP and not self.hands[self.current]:
            if self.log is not None:
                events.play_ended(self)
            self._resolve_play()
        else:
            self.legal_cache = legal

    def default_action(self) -> Action:
        """Timeout choice: accept, the call with a last card, stop, draw, pass, the most-held colour."""
        legal = self.legal_actions()
        if not legal:
            raise GameError("the game is over; there is no default action")
        phase = self.phase
        if phase == "color":
            hand = self.hands[self.current]
            held = Counter(ident(c).colour for c in hand)
            best = max(COLOURS, key=lambda c: held.get(c, 0))
            for action in legal:
                if action.args == (best,):
                    return action
            return legal[0]
        if phase == "chain" and CALL in legal and len(self.hands[self.current]) == 1 and STOP in legal:
            return CALL
        for preferred in (ACCEPT, STOP, DRAW, PASS):
            if preferred in legal:
                return preferred
        return legal[0]

    #: What ``seat`` may see (None: the spectator); a bad seat is a GameError.  The builder itself, which checks
    #: the seat: a method that only calls it would cost a call at every decision.
    observation = build_observation

    def pile_facts(self) -> pile.Facts:
        """The pile's effective top and hit run (`pile.Facts`), kept until the pile changes."""
        facts = self.facts
        if facts is None:
            facts = self.facts = pile.facts(self.discard, self.marks)
        return facts

    def match_view(self) -> tuple:
        """The match's part of the observations (`observation.match_view`), kept in ``match_shown`` until a
        hand is scored or dealt."""
        view = self.match_shown
        if view is None:
            view = self.match_shown = match_part(self)
        return view

    def result(self) -> Result:
        if not self.is_over:
            raise GameError("the game is still running; there is no result yet")
        if self.options["tournament"]:
            return self._tournament_result()
        return Result.from_points(list(self.scores), self.reason)

    def to_position(self) -> dict[str, Any]:
        from arena.games.ddmau.position import to_position

        return to_position(self)

    def hashed_position(self) -> dict[str, Any]:
        """The position without the decision count that option ``decision_limit`` added to it (a replay's
        decision lines already fix it), so that replays recorded before it still verify."""
        position = self.to_position()
        del position["decisions"]
        return position

    def clone(self) -> "DDMauState":
        """A copy that plays on independently.  Field by field (a slot copy in a loop of ``setattr`` costs
        six times as much); the lists the engine changes in place are copied, the others (scores,
        individual, active, eliminated, teams, the hand sizes; the hit, final, last hand and turn_open records)
        are replaced whenever they change, never changed, so the copy shares them.  A new field goes
        here too (`tests/games/test_ddmau.py` checks that every slot is copied)."""
        new = object.__new__(DDMauState)
        new.ruleset = self.ruleset
        new.players = self.players
        new.options = self.options
        new.counts = self.counts
        new.rules = self.rules
        new.teams = self.teams
        new.target = self.target
        new.must_play = self.must_play
        new.turn_limit = self.turn_limit
        new.decision_cap = self.decision_cap
        new.legal_cache = None
        new.facts = self.facts
        new.pile_shown = self.pile_shown
        new.match_shown = self.match_shown
        new._node = self._node
        new._under = self._under
        new.log = None
        new.fresh = self.fresh
        new.seed = self.seed
        new.chance = self.chance
        new.decisions = self.decisions
        new.scores = self.scores
        new.individual = self.individual
        new.active = self.active
        new.eliminated = self.eliminated
        new.hand_number = self.hand_number
        new.direction = self.direction
        new.is_over = self.is_over
        new.reason = self.reason
        new.last_hand = self.last_hand
        new.dealer = self.dealer
        new.hands = [h[:] for h in self.hands]
        new.sizes = self.sizes
        new.held = self.held[:]
        new.stock = self.stock[:]
        new.discard = self.discard[:]
        new.marks = self.marks[:]
        new.last_play = self.last_play
        new.hit = self.hit
        window = self.window
        new.window = None if window is None else {**window, "queue": window["queue"][:]}
        new.final = self.final
        new.next_seat = self.next_seat
        new.idle = self.idle
        new.stall = self.stall
        new.turn_open = self.turn_open
        new.turns = self.turns
        new.current = self.current
        new.phase = self.phase
        new.drawn = self.drawn
        new.optional = self.optional
        new.chain = self.chain
        new.called = self.called
        return new

    # -- public events --------------------------------------------------------------------

    def record_events(self) -> list[PublicEvent]:
        if self.log is None:
            if self.fresh:  # the same deal again, recorded (the seed decides it)
                self.log = DDMauState(self.players, self.seed, self.options, self.counts, log=[]).log
            else:
                self.log = [events.start(self)]
        return self.log

    @property
    def events(self) -> list[PublicEvent] | None:
        return self.log

    # -- legal actions --------------------------------------------------------------------

    def summary(self, upto_chain: int | None = None) -> C.Chain:
        """The play in progress (its first ``upto_chain`` cards) as a validator summary."""
        return self.play_so_far(upto_chain).chain

    def play_so_far(self, upto_chain: int | None = None) -> C.Node:
        """The play in progress (its first ``upto_chain`` cards) as a validator node."""
        if upto_chain is None:
            node = self._node
            if node is None:
                node = self._node = self._play_node(self.chain)
            return node
        return self._play_node(upto_chain)

    def _play_node(self, upto_chain: int) -> C.Node:
        if not self.chain:  # no play under way: it starts on the pile's effective top
            return C.start_node((self.facts or self.pile_facts())[1], self.rules)
        discard, marks = self.discard, self.marks
        base = len(discard) - self.chain
        top = effective_top(discard, marks, base)
        node = C.start_node(None if top is None else top[1], self.rules)
        for i in range(base, base + upto_chain):
            node = node.then(discard[i], marks[i])
            if node is None:  # only a hand-written position can hold a broken chain
                raise GameError("the play in progress is not a legal chain")
        return node

    def _compute_legal(self) -> list[Action]:
        phase = self.phase
        if phase == "turn":
            return self._turn_legal(None)
        if phase == "chain":
            return self._chain_legal()
        if phase == "declare":
            rest = C.counted(self.hands[self.current])
            legal = []
            for name, after in zip(MM_DECLARATIONS, self._node_under().declarations()):
                if after is not None and C.completes(after, rest):
                    legal.append(_DECLARE[name])
            return legal
        if phase == "color":
            node = self._node_under()
            rest = C.counted(self.hands[self.current])
            card = self.discard[-1]
            legal = []
            for colour in COLOURS:
                after = node.then(card, "SM:" + colour)
                if after is not None and C.completes(after, rest):
                    legal.append(_COLOR[colour])
            return legal
        if phase == "hit":
            legal = [ACCEPT]
            if "MM" in self.hands[self.current]:
                legal.append(BLOCK)
            return legal
        if phase == "catch":
            return [Action("catch", (str(self.window["offender"]),)), PASS]
        return []

    # -- playing ------------------------------------------------------------------------

    def _turn_legal(self, legal: list[Action] | None) -> list[Action]:
        """A turn's legal list: its plays (``legal``, extended, when they are known: None works them out), the
        draw while the seat may dig, the pass when the turn may end without a play."""
        if legal is None:
            node = self._node
            if node is None:  # (no play under way: one starting on the pile's effective top, `play_so_far`)
                node = self._node = C.start_node((self.facts or self.pile_facts())[1], self.rules)
            seat = self.current
            plays = node.playable(self.hands[seat], self.held[seat])
            legal = of_mask(plays, _PLAY_BY_BIT) if plays else []  # (often none: no call then)
        playable = bool(legal)
        drawn = self.drawn
        can_draw = drawn < DIG_LIMIT and (  # a card in the stock, or one to reshuffle from under the last play
            self.stock or len(self.discard) - self.last_play - self.chain > 0)
        if can_draw:
            legal.append(DRAW)
        if self.optional or (not can_draw and (
            not playable or (drawn >= DIG_LIMIT and not self.must_play)
        )):  # 7.3: a play is made unless none exists; E-6: optional after 3 draws
            legal.append(PASS)
        return legal

    def _chain_legal(self) -> list[Action]:
        """The legal list of a play under way: ``stop`` when it is a legal play as it stands (going out
        when the hand is empty), the cards that can follow, the call while cards are left."""
        node = self._node or self.play_so_far()
        hand = self.hands[self.current]
        if not hand:  # (nothing can follow)
            return [STOP] if node.done_out else []
        plays = node.playable(hand, self.held[self.current])
        if not plays:  # (the usual answer once a play is under way)
            legal = [STOP] if node.done else []
        else:
            legal = of_mask(plays, _PLAY_BY_BIT)
            if node.done:
                legal.insert(0, STOP)
        if not self.called:
            legal.append(CALL)  # (last: after the call, `apply` keeps the list without it)
        return legal

    def _node_under(self) -> C.Node:
        """The play in progress without its last card (an MM or SM waiting for its declaration or colour),
        as a validator node: kept by `_play` from the play's node before that card."""
        under = self._under
        if under is None:
            under = self._under = self.play_so_far(self.chain - 1)
        return under

    def _play(self, card: str) -> None:
        before = self._under = self._node  # (read only in the declare and color phases that may follow)
        seat = self.current
        hand = self.hands[seat]
        hand.remove(card)
        if card not in hand:  # (its last copy)
            self.held[seat] ^= BIT[card]
        sizes = self.sizes = self.sizes[:]  # (a new list: observations and clones share the old one)
        sizes[seat] -= 1
        discard = self.discard
        facts = self.facts
        if facts is not None:
            self.facts = pile.after_card(facts, len(discard), PRINTED[card])
        discard.append(card)
        self.marks.append(None)
        self.pile_shown = self._node = None
        self.chain += 1
        self.idle = 0
        if card == "MM":
            self.phase = "declare"
        elif card == "SM" and hand:
            self.phase = "color"
        else:
            self.phase = "chain"
            if before is not None:  # the play so far, one card on (no mark to wait for; not an MM: one identity)
                self._node = before.options(card)[0]  # (the move the legal list offered, worked out then)

    def _declare(self, name: str) -> None:
        under = self._node_under()
        prev = under.chain.prev
        self.marks[-1] = declaration_mark(name, None if prev is None else prev.colour)
        self._pile_changed()
        self._node = under.declarations()[MM_DECLARATIONS.index(name)]  # (one the legal list offered: never None)
        self.phase = "color" if name == "SM" and self.hands[self.current] else "chain"

    def _color(self, colour: str) -> None:
        mark = self.marks[-1] = f"SM:{colour}"
        self._pile_changed()
        self._node = self._node_under().then(self.discard[-1], mark)
        self.phase = "chain"

    def _resolve_play(self) -> None:
        """Apply the play's effects in card order (7.5, E-25, E-26, E-28)."""
        seat = self.current
        chain = self.chain
        # a play with no power in it (the validator's phase: numbers, LMs, DMs, MMs declared LM) has no effect
        powers = (self._node or self.play_so_far()).chain.phase == _POWERS_PHASE
        self.last_play = chain
        self.pile_shown = self._node = None  # (the pile's facts stay: the same cards, the same marks)
        self.chain = 0
        hand = self.hands[seat]
        if not powers and hand and (self.called or len(hand) != 1):
            # the usual play: no hit, no turn order change, nothing to catch
            self.hit = None
            following = self.next_seat = self._step(seat, self.direction)
            self._start_turn(following)
            return
        discard = self.discard
        base = len(discard) - chain
        play = discard[base:]
        d = self.direction
        pos = seat
        owm = False
        hit_index = None
        hit_kind = None
        hit_direction = d
        target = None
        sms = 0
        marks = self.marks
        for i, card in enumerate(play, base):
            mark = marks[i]
            kind = (PRINTED[card] if mark is None else ident(card, mark)).kind
            if kind == "OWM":
                d = -d
                owm = True
            elif kind == "SK":
                pos = self._step(pos, d)
            elif kind in HIT_KINDS:
                hit_index, hit_kind, hit_direction = i, kind, d
            elif kind == "SM":
                sms += 1
        if hit_index is not None:  # 7.5: k+1 seats along, k = every Skip of the play, before or after it
            target = self._step(pos, hit_direction)
            if target == seat:  # Skips sent the hit round the table: it goes on to the next seat
                target = self._step(seat, hit_direction)
        self.direction = d
        self.hit = None
        if hit_index is not None:
            count = 2 * hit_run(discard, marks, hit_index)
            self.hit = {"target": target, "count": count, "kind": hit_kind, "by": seat}
        if not hand:
            self.final = {"seat": seat, "cards": play, "sm": sms}
            self.next_seat = None
            if self.hit is not None:
                self._ask_hit()
            else:
                self._score_hand(seat)
            return
        if owm:
            self.next_seat = seat
        elif self.hit is not None:
            self.next_seat = self._step(target, d) if hit_kind == "PT" else target
        else:
            self.next_seat = self._step(pos, d)
        if len(hand) == 1 and not self.called:
            queue = []
            other = self._step(seat, self.direction)
            while other != seat:
                queue.append(other)
                other = self._step(other, self.direction)
            self.window = {"offender": seat, "queue": queue}
            self.phase = "catch"
            self.current = queue[0]
            return
        self._continue()

    def _continue(self) -> None:
        """After the play and its catch window: the hit, else the next turn."""
        if self.hit is not None:
            self._ask_hit()
        else:
            self._start_turn(self.next_seat)

    def _ask_hit(self) -> None:
        self.phase = "hit"
        self.current = self.hit["target"]

    def _accept(self) -> None:
        hit = self.hit
        self.hit = None
        self._draw(hit["target"], hit["count"])
        if self.next_seat is None:
            self._score_hand(self.final["seat"])
        else:
            self._start_turn(self.next_seat)

    def _block(self) -> None:
        """E-23: the MM goes on the pile with the colour under it; the run is broken; the blocker may play."""
        seat = self.current
        top = effective_top(self.discard, self.marks)
        colour = top[1].colour if top is not None else None
        hand = self.hands[seat]
        hand.remove("MM")
        if "MM" not in hand:
            self.held[seat] ^= BIT["MM"]
        sizes = self.sizes = self.sizes[:]
        sizes[seat] -= 1
        self.discard.append("MM")
        self.marks.append(f"BLOCK:{colour}" if colour else "BLOCK")
        self.last_play = 1
        self._pile_changed()
        self.hit = None
        self.idle = 0
        if self.next_seat is None:  # the hitter went out first: their finish stands
            self._score_hand(self.final["seat"])
        elif not self.hands[seat]:  # 7.7: blocking with the last card empties the hand; the MM scores -50
            self.final = {"seat": seat, "cards": ["MM"], "sm": 0}
            self._score_hand(seat)
        else:
            self._start_turn(seat, optional=True)

    def _catch(self) -> None:
        window = self.window
        self.window = None
        self._draw(window["offender"], 1)
        self._continue()

    def _pass(self, legal: list[Action] | None) -> None:
        if self.phase == "catch":
            window = self.window
            window["queue"].pop(0)
            if window["queue"]:
                self.current = window["queue"][0]
            else:
                self.window = None
                self._continue()
            return
        had_play = any(a.verb == "play" for a in (legal if legal is not None else self._compute_legal()))
        self.idle = 0 if had_play or self.drawn else self.idle + 1
        if self.idle >= sum(self.active):  # not in the rules: a full round nobody could play or draw
            self._score_hand(None)
            return
        self._start_turn(self._step(self.current, self.direction))

    # -- scoring and the match ------------------------------------------------------------

    def _units(self) -> list[list[int]]:
        """Who shares a total: teams (E-29), else each seat alone."""
        if self.teams is None:
            return [[s] for s in range(self.players)]
        groups: dict[int, list[int]] = {}
        for seat, team in enumerate(self.teams):
            groups.setdefault(team, []).append(seat)
        return list(groups.values())

    def _score_hand(self, winner: int | None, reason: str = "blocked") -> None:
        """7.7: the finisher subtracts the final play, the others add their hands (x 2^s, E-10)."""
        self.match_shown = None  # (the totals, the last hand, maybe the seats still in)
        hand_points = [sum(points(c) for c in hand) for hand in self.hands]
        factor = 1
        final_cards: list[str] = []
        if winner is not None:
            final_cards = list(self.final["cards"])
            factor = 2 ** self.final["sm"]
        totals_mode = self.options["sm_multiplies"] == "totals"
        delta = [0] * self.players
        for seat in range(self.players):
            if seat == winner:
                delta[seat] = -sum(points(c) for c in final_cards)
            else:
                delta[seat] = hand_points[seat] * (1 if totals_mode else factor)
        limit = self.target

        def settle(total: int, multiply: bool) -> int:
            total = total * factor if multiply else total
            if self.options["safety_net"] and limit - 5 <= total <= limit:
                return limit - 155  # 500..505 -> 350 (E-11: before the end check)
            return total

        on_individual = self.teams is not None and self.options["team_end_on_individual"]
        self.scores = list(self.scores)  # new lists: the old ones may be shared (observations, clones)
        self.individual = list(self.individual)
        for unit in self._units():
            multiply = totals_mode and winner not in unit
            if on_individual:  # E-29 flag: each partner's own total gets the net; the team adds them
                for s in unit:
                    self.individual[s] = settle(self.individual[s] + delta[s], multiply)
                total = sum(self.individual[s] for s in unit)
            else:
                for s in unit:
                    self.individual[s] += delta[s]
                total = settle(self.scores[unit[0]] + sum(delta[s] for s in unit), multiply)
                if self.teams is None:
                    self.individual[unit[0]] = total
            for s in unit:
                self.scores[s] = total
        self.last_hand = {"hand": self.hand_number, "winner": winner, "points": delta,
                          "reason": "out" if winner is not None else reason}
        scored = self.log is not None
        self.final = None
        self.hit = None
        self.window = None
        if self.options["tournament"]:
            self.active = list(self.active)
            for seat in range(self.players):
                if self.active[seat] and self.scores[seat] > limit:
                    self.active[seat] = False
                    self.eliminated = [*self.eliminated, [seat, self.hand_number]]  # a new list: clones share it
            done = sum(self.active) <= 1
            self.reason = "one player is left standing" if done else ""
        else:
            done = max(self.individual if on_individual else self.scores) > limit
            self.reason = f"a total passed {limit}" if done else ""
        if not done and self.options["max_hands"] and self.hand_number >= self.options["max_hands"]:
            done = True
            self.reason = f"{self.hand_number} hands played (max_hands)"
        if not done and self.decisions >= self.decision_cap:  # (a hand that ended at the limit: no next one)
            done = True
            self.reason = f"{self.decisions} decisions played (decision_limit)"
        if done:
            self.is_over = True
            self.current = None
            self.phase = "over"
            if scored:
                events.hand_scored(self)
            return
        if scored:
            events.hand_scored(self)
        self._pass_deck_master(winner, final_cards)
        self.hand_number += 1
        self._deal()

    def _pass_deck_master(self, winner: int | None, final_cards: list[str]) -> None:
        """E-22: going out with a DM; else the first DM holder in the direction of play; else no change."""
        if winner is not None and "DM" in final_cards and self.active[winner]:
            self.dealer = winner
            return
        origin = winner if winner is not None else self.current
        seat = origin
        for _ in range(self.players - 1):
            seat = (seat + self.direction) % self.players
            if self.active[seat] and "DM" in self.hands[seat]:
                self.dealer = seat
                return
        if not self.active[self.dealer]:
            self.dealer = self._step(self.dealer, 1)

    def _tournament_result(self) -> Result:
        """Last standing first; the eliminated by how long they lasted (points: hands survived)."""
        survived = []
        out_at = {seat: hand for seat, hand in self.eliminated}
        for seat in range(self.players):
            survived.append(out_at.get(seat, self.hand_number + 1) - 1)
        order = [(-survived[s], self.scores[s]) for s in range(self.players)]
        placements = tuple(1 + sum(1 for o in order if o < order[s]) for s in range(self.players))
        return Result(placements, tuple(survived), self.reason or "tournament")


def declaration_mark(name: str, colour: str | None) -> str:
    """The pile mark of an MM declared ``name`` on a play whose last visible card has ``colour``:
    a coloured power takes that colour (``PT:r``; none at the start of a hand), an SM gets its
    colour in the next decision."""
    if colour and name in ("PT", "SK", "OWM"):
        return f"{name}:{colour}"
    return name


#: The validator's phase of a play with a power card in it (PT, SK, OWM, JTT, SM, an MM as one of them): only such
#: a play can have an effect when it is resolved (turn order, hits, the SM multiplier).
_POWERS_PHASE = C.POWERS_PHASE

#: The actions naming a card, declaration or colour, made once (a frozen dataclass is slow to build); the plays
#: also by the card's bit (`cards.BIT`).
_PLAY = {card: Action("play", (card,)) for card in ORDER}
_PLAY_BY_BIT = {bit: _PLAY[card] for bit, card in CARD_OF_BIT.items()}
_DECLARE = {name: Action("declare", (name,)) for name in MM_DECLARATIONS}
_COLOR = {colour: Action("color", (colour,)) for colour in COLOURS}
