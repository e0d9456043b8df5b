"""Mose meld validation and offers (RULES.md 6.4, D-2 to D-5)."""

import pytest

from arena.games.mose.melds import (
    MeldError,
    Token,
    card_points,
    extended,
    lay_off,
    layoff_offers,
    new_meld_offers,
    offered_meld,
    parse_meld,
    parse_token,
    swap_in,
    wild_rank,
)


def meld(text, wild="2", decks=1):
    return parse_meld(text.split(), wild, decks)


def offers(hand, wild="2", decks=1):
    return {" ".join(str(t) for t in tokens) for tokens in new_meld_offers(hand.split(), wild, decks)}


# -- sets (D-2) -------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["7s 7h 7d", "7s 7h 7d 7c", "7s 7h 2d:7", "2d:7 2h:7 2s:7", "7s 7h 7d 7c 2s:7"])
def test_valid_sets(text):
    m = meld(text)
    assert m.kind == "set" and m.rank == "7"


@pytest.mark.parametrize(
    "text, why",
    [
        ("7s 7h", "at least 3"),
        ("7s 7s 7h", "different suits"),
        ("7s 7h 8d", "one suit in sequence"),
        ("7s 7h 2d:7 2c:7 2s:7", "3 to 4"),  # a 5th wild needs 4 naturals
        ("7s 7h 7d 2c:7 2s:7", "3 to 4"),
        ("7s 7h 2d", "one suit in sequence"),  # a wild in a set of 7s must say what it stands for
        ("7s 7h 3d:7", "only a wild"),
    ],
)
def test_invalid_sets(text, why):
    with pytest.raises(MeldError, match=why):
        meld(text)


def test_set_of_the_wild_rank_is_all_naturals():
    assert meld("2s 2h 2d").kind == "set"
    with pytest.raises(MeldError):
        meld("2s 2h 2d:2")


def test_two_decks_allow_two_naturals_of_a_suit():
    assert meld("7s 7s 7h", decks=2).kind == "set"
    with pytest.raises(MeldError):
        meld("7s 7s 7s", decks=2)


# -- runs (D-3) ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, low",
    [("5s 6s 7s", 5), ("As 2s 3s", 1), ("Qs Ks As", 12), ("5s 2h:6s 7s", 5), ("2h:5s 2d:6s 2c:7s", 5),
     ("As 2s 3s 4s 5s 6s 7s 8s 9s Ts Js Qs Ks", 1), ("2s 3s 4s", 2)],
)
def test_valid_runs(text, low):
    m = meld(text)
    assert m.kind == "run" and m.low == low and m.suit == "s"


@pytest.mark.parametrize(
    "text",
    ["Ks As 2s", "5s 6s 7h", "5s 7s 8s", "7s 6s 5s", "5s 6s", "As 2s 3s 4s 5s 6s 7s 8s 9s Ts Js Qs Ks As"],
)
def test_invalid_runs(text):
    with pytest.raises(MeldError):
        meld(text)


def test_a_wild_standing_for_itself_is_written_plain():
    m = meld("As 2s 3s")  # round 1: 2s is wild but stands for itself
    assert not m.stand_ins()
    with pytest.raises(MeldError, match="written plain"):
        parse_token("2s:2s", "2")


def test_only_wilds_may_stand_in():
    with pytest.raises(MeldError, match="only a wild"):
        meld("5s 3h:6s 7s")


# -- lay-offs and swaps ----------------------------------------------------------------------


def test_layoff_at_either_end_without_reordering():
    run = meld("5s 6s 7s")
    assert lay_off(run, "lo", Token("4s"), "2", 1).low == 4
    assert lay_off(run, "hi", Token("8s"), "2", 1).high == 8
    with pytest.raises(MeldError):
        lay_off(run, "hi", Token("4s"), "2", 1)
    with pytest.raises(MeldError):
        lay_off(meld("Qs Ks As"), "hi", Token("2s"), "2", 1)  # no wrap


def test_fifth_wild_only_on_a_natural_four_set():
    full = meld("7s 7h 7d 7c")
    assert len(lay_off(full, None, Token("2s", "7"), "2", 1).tokens) == 5
    with pytest.raises(MeldError):
        lay_off(meld("7s 7h 7d 2c:7"), None, Token("2s", "7"), "2", 1)


def test_swap_in_run_and_set():
    run = meld("5s 2h:6s 7s")
    swapped, freed = swap_in(run, "6s", "2", 1)
    assert freed == "2h" and swapped.text() == "5s 6s 7s"
    with pytest.raises(MeldError):
        swap_in(run, "6h", "2", 1)
    s, freed = swap_in(meld("7s 7h 2d:7"), "7c", "2", 1)
    assert freed == "2d" and s.text() == "7s 7h 7c"
    with pytest.raises(MeldError):
        swap_in(meld("7s 7h 2d:7"), "7s", "2", 1)  # spades are already there


def test_layoff_offers_prefer_naturals_and_respect_ends():
    run = meld("5s 6s 7s")
    assert {(e, str(t)) for e, t in layoff_offers(run, ["4s", "2h", "9d"], "2", 1)} == {("lo", "4s"), ("hi", "2h:8s")}
    assert layoff_offers(meld("Js Qs Ks As", wild="5"), ["Ts"], "5", 1) == [("lo", Token("Ts"))]
    full = meld("7s 7h 7d 7c")
    assert layoff_offers(full, ["2d"], "2", 1) == [(None, Token("2d", "7"))]


# -- offers ---------------------------------------------------------------------------------


def test_meld_offers_three_card_groupings_and_maximal_naturals():
    got = offers("4s 5s 6s 7s 9h")
    assert got == {"4s 5s 6s", "5s 6s 7s", "4s 5s 6s 7s"}
    got = offers("7s 7h 7d 7c")
    assert got == {"7s 7h 7d", "7s 7h 7c", "7s 7d 7c", "7h 7d 7c", "7s 7h 7d 7c"}


def test_meld_offers_use_a_wild_only_where_the_natural_is_missing():
    got = offers("5s 7s 2h 9d")
    assert "5s 2h:6s 7s" in got
    assert not any("2h:5s" in o or "2h:7s" in o for o in got)
    got = offers("9d 9h 2c")
    assert "9h 9d 2c:9" in got


def test_all_wild_offers_and_the_wild_as_itself():
    got = offers("2s 2h 2d")
    assert "2s 2h 2d" in got  # a set of the wild rank
    assert "2h:7 2d:7 2s:7" not in got and "2s:7 2h:7 2d:7" in got
    assert "2h:As 2s 2d:3s" in got  # 2s stands for itself in its own place
    for text in got:
        meld(text)  # every offer is valid


def test_scoring_values():
    assert [card_points(c, "5") for c in ("Ks", "Th", "As", "7d", "5c")] == [10, 10, 1, 7, 20]
    assert card_points("As", "A") == 20  # D-18
    assert [wild_rank(r) for r in (1, 9, 13)] == ["2", "T", "A"]


@pytest.mark.parametrize("decks", [1, 2])
def test_every_offer_is_a_valid_meld_or_layoff(decks):
    """Random hands and tables: what is offered always validates (offers and validator agree)."""
    import random

    from arena.games.cards import RANKS, deck

    rng = random.Random(decks)
    pack = deck(RANKS, copies=decks)
    for trial in range(150):
        wild = rng.choice(RANKS)
        cards = rng.sample(pack, 30)
        hand, table = cards[:12], cards[12:]
        melds = []
        for tokens in new_meld_offers(hand, wild, decks):
            melds.append(parse_meld([str(t) for t in tokens], wild, decks, 5, 2))
            assert offered_meld(tokens, 5, 2) == melds[-1]  # the unchecked build the engine applies
        for tokens in new_meld_offers(table, wild, decks)[:6]:
            m = parse_meld([str(t) for t in tokens], wild, decks)
            for end, token in layoff_offers(m, hand, wild, decks):
                grown = lay_off(m, end, token, wild, decks)
                assert len(grown.tokens) == len(m.tokens) + 1
                assert extended(m, end, token) == grown  # the unchecked build the engine applies


@pytest.mark.parametrize("decks", [1, 2])
def test_has_meld_says_whether_anything_is_offered(decks):
    """The window's quick question (bit masks, no list) agrees with the offers on random hands of every
    size, with and without wilds: a seat with a meld is never skipped, one without is never asked for it."""
    import random

    from arena.games.cards import RANKS, deck
    from arena.games.mose.melds import has_meld

    rng = random.Random(10 + decks)
    pack = deck(RANKS, copies=decks)
    answers = set()
    for trial in range(800):
        wild = rng.choice(RANKS)
        hand = tuple(sorted(rng.sample(pack, rng.randint(1, 9))))
        answer = has_meld(hand, wild, decks)
        assert answer == bool(new_meld_offers(hand, wild, decks)), (hand, wild)
        answers.add((answer, sum(c[0] == wild for c in hand)))
    assert {(True, 0), (False, 0), (True, 1), (False, 1), (True, 2)} <= answers  # every branch was tried


def test_a_drawn_card_adds_a_meld_exactly_when_the_hand_now_has_one():
    """The engine's question after a one-deck draw to a hand without a meld (`card_adds_meld`, which looks
    only at the new card's run windows and rank) agrees with asking the whole hand (`has_meld`)."""
    import random

    from arena.games.cards import RANKS, deck
    from arena.games.mose.melds import card_adds_meld, hand_mask, has_meld

    rng = random.Random(7)
    pack = deck(RANKS)
    answers = set()
    for trial in range(3000):
        wild = rng.choice(RANKS)
        cards = rng.sample(pack, rng.randint(2, 10))
        hand, card = cards[:-1], cards[-1]
        if card[0] == wild or has_meld(hand, wild, 1):
            continue
        answer = card_adds_meld(hand_mask([*hand, card]), card, wild)
        assert answer == has_meld([*hand, card], wild, 1), (hand, card, wild)
        answers.add((answer, card[0] == "A"))
    assert answers == {(True, False), (False, False), (True, True), (False, True)}  # Aces at both ends too


@pytest.mark.parametrize("decks", [1, 2])
def test_the_engines_meld_actions_are_the_meld_offers_in_order(decks):
    """`offers.meld_actions` keeps its parts more finely than `new_meld_offers` (a run window by its held
    places and the wilds that fill it, a set by the wilds it needs), and must give the same melds in the
    same order: random hands with up to five wilds, the suit's own wild in a window, Aces low and high."""
    import random

    from arena.games.cards import RANKS, deck
    from arena.games.mose.melds import CARD_ORDER
    from arena.games.mose.offers import bits_of, meld_actions

    rng = random.Random(30 + decks)
    pack = deck(RANKS, copies=decks)
    seen_wilds = set()
    for trial in range(600):
        wild = rng.choice(RANKS)
        wilds = [c for c in pack if c[0] == wild]
        others = [c for c in pack if c[0] != wild]
        count = rng.choice([0, 0, 1, 1, 2, 3, 4 * decks])
        hand = rng.sample(wilds, min(count, len(wilds))) + rng.sample(others, rng.randint(1, 12))
        hand = tuple(sorted(hand, key=CARD_ORDER.__getitem__))
        expected = ["meld " + " ".join(map(str, tokens)) for tokens in new_meld_offers(hand, wild, decks)]
        assert [str(a) for a in meld_actions(hand, bits_of(hand), wild, decks)] == expected, (hand, wild)
        held = sorted({c for c in hand if c[0] == wild}, key=CARD_ORDER.__getitem__)
        for first in held[-1:]:  # a freed wild's placements use it first (the last wild held: not first already)
            expected = ["meld " + " ".join(map(str, t)) for t in new_meld_offers(hand, wild, decks, first_wild=first)]
            assert [str(a) for a in meld_actions(hand, bits_of(hand), wild, decks, first)] == expected, (hand, first)
        seen_wilds.add(min(count, 3))
    assert seen_wilds == {0, 1, 2, 3}
