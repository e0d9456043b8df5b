"""The engine offers exactly the legal plays: card-by-card offers versus a brute-force enumeration.

For random small hands and tops, every ordered play (with every MM
declaration and SM colour) that the whole-play rules accept must be
reachable through the engine's offered ``play``/``declare``/``color``/``stop``
decisions, and every play the engine lets through must be accepted: no
dead ends, nothing missing (RULES.md 7.4).
"""

from __future__ import annotations

import random
from collections import Counter

from arena import games
from arena.games.ddmau import chain as C
from arena.games.ddmau.cards import COLOURS, MM_DECLARATIONS, Ident, deck, ident

R = "ddmau"
CHAIN_VERBS = ("play", "declare", "color", "stop")


def brute_force(hand: list[str], top: Ident | None, rules: C.Rules) -> set:
    found = set()

    def options(card: str, s: C.Chain, last: bool):
        if card == "MM":
            for name, idt in zip(MM_DECLARATIONS, C.identities("MM", s)):
                if name == "SM":
                    yield from ((("SM" if last else f"SM:{c}"), Ident("SM", None if last else c, None))
                                for c in (("-",) if last else COLOURS))
                elif name in ("PT", "SK", "OWM"):
                    yield (f"{name}:{idt.colour}" if idt.colour else name), idt
                else:
                    yield name, idt
        elif card == "SM":
            if last:
                yield None, Ident("SM", None, None)
            else:
                yield from ((f"SM:{c}", Ident("SM", c, None)) for c in COLOURS)
        else:
            yield None, ident(card)

    def dfs(s: C.Chain, rest: Counter, seq: list) -> None:
        if seq and C.complete(s, not sum(rest.values()), rules):
            found.add(tuple(seq))
        for card in [c for c, n in rest.items() if n]:
            rest[card] -= 1
            last = not sum(rest.values())
            for mark, idt in options(card, s, last):
                after = C.add(s, card, idt, rules)
                if after is not None:
                    dfs(after, rest, seq + [(card, mark)])
            rest[card] += 1

    dfs(C.start(top), Counter(hand), [])
    return found


def engine_plays(state) -> set:
    found = set()

    def walk(st, started: bool) -> None:
        if started and st.decision not in ("chain", "declare", "color"):
            p = st.to_position()
            n = p["last_play"]
            found.add(tuple(zip(p["discard"][-n:], p["marks"][-n:])))
            return
        for action in st.legal_actions():
            if action.verb in CHAIN_VERBS:
                nxt = st.clone()
                nxt.apply(action)
                walk(nxt, True)

    walk(state, False)
    return found


def random_case(rng: random.Random) -> tuple[list[str], str | None]:
    """1-5 cards, powers over-represented; a top (never an undeclared MM) or an empty pile."""
    cards = deck()
    powers = [c for c in cards if not c[1:].isdigit()]
    numbers = [c for c in cards if c[1:].isdigit()]
    hand = rng.sample(rng.sample(numbers, 20) + rng.sample(powers, 12), rng.randint(1, 5))
    others = sorted((Counter(cards) - Counter(hand) - Counter({"MM": 3})).elements())
    return hand, (rng.choice(others) if rng.random() < 0.9 else None)


def test_offers_match_the_whole_play_rules_on_random_hands():
    rng = random.Random(20261122)
    for rules_flags in ({}, {"allow_number_to_power_chain": True}, {"lm_per_run_segment": True}):
        rules = C.Rules(rules_flags.get("allow_number_to_power_chain", False),
                        rules_flags.get("lm_per_run_segment", False))
        for _ in range(60):
            hand, top = random_case(rng)
            discard = [top] if top else []
            spare = Counter(deck()) - Counter(hand) - Counter(discard)
            others = sorted(spare.elements())
            rng.shuffle(others)
            position = {"hands": [hand, others[:4], others[4:8]], "discard": discard, "stock": others[8:12],
                        "current": 0, "direction": 1, "drawn": 3}
            state = games.from_position(R, position, max_hands=1, **rules_flags)
            expected = brute_force(hand, ident(top) if top else None, rules)
            got = engine_plays(state)
            assert got == expected, (hand, top, rules_flags, sorted(expected - got)[:3], sorted(got - expected)[:3])


def test_hand_picked_hands_with_runs_deck_masters_and_master_maus():
    cases = [
        (["LM", "G7", "G8", "G9", "DM"], "G2"),
        (["MM", "R1", "Y2", "B3", "DM"], "R7"),
        (["DM", "DM", "G7", "SM"], "R7"),
        (["SK-r", "MM", "PT-b", "JTT", "LM"], "R4"),
        (["LM", "LM", "DM", "R5"], "B9"),
    ]
    for hand, top in cases:
        spare = Counter(deck()) - Counter(hand) - Counter([top])
        others = sorted(spare.elements())
        position = {"hands": [hand, others[:4], others[4:8]], "discard": [top], "stock": others[8:12],
                    "current": 0, "direction": 1, "drawn": 3}
        state = games.from_position(R, position, max_hands=1)
        assert engine_plays(state) == brute_force(hand, ident(top), C.Rules()), hand
