"""DD MAU play validator (RULES.md 7.4): whole plays, checked card by card as the engine does."""

from __future__ import annotations

from collections import Counter

import pytest

from arena.games.ddmau import chain as C
from arena.games.ddmau.cards import DEFAULT_COUNTS, Ident, deck, ident, is_ddmau_code, parse_counts, points

RULES = C.Rules()


def entries(tokens: str) -> list[tuple[str, Ident]]:
    """``"LM MM=LM R1 SM=SM:g MM=SK:r"`` -> (card, identity) pairs."""
    out = []
    for token in tokens.split():
        card, _, mark = token.partition("=")
        out.append((card, ident(card, mark or None)))
    return out


def legal(play: str, top: str | None, going_out: bool = False, rules: C.Rules = RULES) -> bool:
    top_ident = None if top is None else ident(*(top.split("=") if "=" in top else (top, None)))
    return C.check_play(entries(play), top_ident, going_out, rules)


def test_deck_has_80_cards_with_the_default_power_counts():
    cards = deck()
    assert len(cards) == 80 and all(is_ddmau_code(c) for c in cards)
    counts = Counter(cards)
    assert counts["LM"] == counts["SM"] == counts["DM"] == counts["MM"] == 3 and counts["JTT"] == 4
    assert {c for c in counts if c.startswith("PT-")} == {"PT-r", "PT-y", "PT-b", "PT-g"}
    assert len(deck(parse_counts("PT=8,MM=1"))) == 80 + 4 - 2
    with pytest.raises(ValueError):
        parse_counts("XX=3")
    with pytest.raises(ValueError):
        parse_counts("DM=0")
    assert DEFAULT_COUNTS["OWM"] == 4


def test_points_face_value_and_printed_power_points():
    assert points("G7") == 7 and points("R13") == 13
    assert [points(c) for c in ("PT-r", "SK-b", "OWM-g", "JTT", "SM", "LM", "DM", "MM")] == [20, 15, 14, 25, 35, 30, 0, 50]


def test_rule1_colour_or_number_and_powers_on_colour_or_kind():
    assert legal("G7", "R7") and legal("R10", "R7") and not legal("G8", "R7")
    assert legal("PT-r", "R7") and not legal("PT-b", "R7") and legal("PT-b", "PT-r")  # E-12
    assert legal("SK-b", "SK-y") and not legal("SK-b", "PT-y") and legal("OWM-g", "OWM-r")
    assert legal("SM", "R7") and legal("JTT", "R7") and legal("MM=PT:r", "G3")


def test_E4_no_visible_card_everything_fits():
    assert legal("PT-g", None) and legal("R3", None) and legal("SK-b SK-y", None)


def test_E5_several_cards_of_one_number_but_not_of_one_colour():
    assert legal("R10 Y10 B10", "R7")
    assert not legal("R5 R9", "R2")
    assert not legal("R5 R6", "R2")  # a run step needs a Link Master


def test_link_master_may_join_any_legal_play_but_never_alone():
    assert legal("LM G7", "R7") and legal("G7 LM", "R7")
    assert not legal("LM", "R7") and not legal("LM LM", "R7")
    assert legal("LM DM", "R7") and legal("LM LM DM", "R7")  # FAQ
    assert legal("LM DM R10 B10 G10", "R7")


def test_runs_same_colour_three_or_more_either_direction_with_groups_at_the_ends():
    assert legal("LM G7 G8 G9", "G2")
    assert legal("LM G11 G10 G9", "G2")
    assert not legal("LM G7 G8", "G2")
    assert not legal("LM G7 G8 Y9", "G2")  # rainbow needs an MM declared LM
    assert legal("LM B7 Y7 G7 G8 G9 G10 G11 B11 R11", "B3")  # the seed's example
    assert not legal("LM R5 R6 R7 R6", "R2")  # one direction per segment
    assert legal("LM R5 R6 R7 Y7 Y8 Y9", "R2")  # two segments sharing the group card
    assert not legal("LM R5 R6 Y6 Y7 Y8", "R2")  # a 2-card segment


def test_E19_one_lm_for_every_segment_by_default_option_needs_one_each():
    play = "LM R5 R6 R7 Y7 Y8 Y9"
    assert legal(play, "R2")
    assert not legal(play, "R2", rules=C.Rules(lm_per_run_segment=True))
    assert legal("LM " + play, "R2", rules=C.Rules(lm_per_run_segment=True))


def test_master_mau_as_link_master_makes_a_rainbow_run_the_164_example():
    play = "LM LM MM=LM R1 Y1 B1 Y2 R3 B4 G5 G6 Y7 B8 Y8 R8"
    assert legal(play, "R7", going_out=True)
    assert sum(points(card) for card, _ in entries(play)) == 164
    assert not legal("LM R1 Y2 B3", "R7")


def test_E20_each_deck_master_needs_its_own_link_master_unless_going_out():
    assert not legal("DM", "R7") and not legal("LM DM DM", "R7")
    assert legal("LM LM DM DM", "R7")
    assert legal("G7 DM DM DM", "R7", going_out=True)  # the seed: out with -7
    assert legal("SM=SM:g DM DM DM", "R7", going_out=True)
    assert not legal("G7 DM", "R7")


def test_skips_send_only_power_cards():
    assert legal("SK-r SK-b PT-b PT-g", "R4")
    assert not legal("SK-r R5", "R4")
    assert legal("SK-y SK-b SK-r PT-r", "Y4")


def test_E27_numbers_then_powers_only_with_the_flag():
    assert not legal("R5 PT-r", "R2")
    flag = C.Rules(number_to_power=True)
    assert legal("R5 PT-r", "R2", rules=flag) and not legal("R5 PT-b", "R2", rules=flag)
    assert not legal("PT-r R5", "R2", rules=flag)


def test_jtt_is_transparent_inside_a_play_and_numbers_never_follow_it():
    assert legal("PT-r JTT PT-b", "R2")  # PT-b links to PT-r through the JTT
    assert not legal("JTT R7", "R2")
    assert legal("JTT", "R2") and legal("JTT LM", "R2")


def test_master_mau_as_a_coloured_power_absorbs_the_colour_under_it():
    assert legal("MM=SK:r SK-b", "R7")  # FAQ: MM as Skip on red 7, then a blue Skip
    assert legal("MM=PT:r PT-g", "R7")


def test_can_complete_sees_needed_cards_in_hand():
    s = C.add(C.start(ident("R2")), "LM", ident("LM"), RULES)
    s = C.add(s, "R5", ident("R5"), RULES)
    s = C.add(s, "R6", ident("R6"), RULES)
    assert not C.complete(s, False, RULES)
    assert C.can_complete(s, Counter({"R7": 1}), RULES)
    assert C.can_complete(s, Counter({"R4": 0, "R7": 1, "B9": 1}), RULES)
    assert not C.can_complete(s, Counter({"Y7": 1, "B9": 1}), RULES)
    assert C.can_complete(s, Counter({"Y7": 1, "MM": 1, "B9": 1}), RULES)  # MM as LM: rainbow
    dm = C.add(C.start(ident("R2")), "DM", ident("DM"), RULES)
    assert C.can_complete(dm, Counter({"LM": 1, "B9": 1}), RULES)
    assert not C.can_complete(dm, Counter({"B9": 1}), RULES)
    assert C.can_complete(dm, Counter({"R9": 1}), RULES)  # going out waives the LM
