"""DD MAU (seed 004, RULES.md section 7): an 80-card power-card game, one arena game = the match to 505.

**Cards** (`cards.py`): ``R7`` ``Y10`` ``B1`` ``G13`` (colour, number),
``PT-r`` ``SK-b`` ``OWM-g`` (coloured powers), ``JTT`` ``SM`` ``LM`` ``DM``
``MM``.  Default power counts (E-1, section 10 item 1): PT, SK, OWM one per
colour, JTT 4, SM/LM/DM/MM 3 each; option ``deck`` changes them.

**A turn** (`state.py`): dig with ``draw`` (up to 3; with no legal play the
seat must dig until it has one or has drawn 3), then a play, built card by
card: ``play CARD`` ... ``stop``; ``pass`` only after 3 draws (or when
nothing can be drawn).  An MM is followed by ``declare PT|SK|OWM|JTT|SM|LM``,
an SM by ``color r|y|b|g``.  ``call ddmau`` is offered within the play; a
play that leaves one card without it opens a catch window (``catch N`` /
``pass``, seat by seat from the next one; the offender draws 1).  A hit's
target decides ``accept`` or ``block`` (with an MM).

**Resolutions** (RULES.md E-n, all defaults):

* E-2 numbered cards score face value; E-31 an MM always scores 50.
* E-4 the first play of a hand may be any card or legal combination.
* E-5 "matching" cards are the same number; E-27 numbers and powers do
  not mix in one play (option ``allow_number_to_power_chain``: numbers may
  be followed by powers legal on the last number).
* 7.4 links: same number; power on power (same kind, same colour, or a
  colourless power); run steps with an LM in the play (same colour; any
  colours with an MM declared LM), each run segment 3+ cards in one
  direction, same-number groups at its ends.  E-19 one LM enables runs
  anywhere in the play (option ``lm_per_run_segment``).  LM never alone;
  E-20 each DM needs its own LM except when the play empties the hand.
* E-21 LM, DM and JTT (and MMs declared LM or JTT) are transparent: the
  effective top is the most recent other card; its colour is printed, an
  SM's chosen colour, or the colour an MM took over.
* E-6 after 3 draws playing is optional (option ``must_play_if_able``).
* E-7 the call comes with the play that leaves one card; the catch window
  closes before the next seat acts.
* E-8 a reshuffle keeps the whole last play on the pile.
* E-9/E-13/E-16 hits: H = 2 x consecutive hit cards (PT, JTT, MM as
  either) from the play's last hit card down the pile, LM/DM ignored,
  never reset by paying; any other visible card breaks the run.  E-12 PT
  on the same colour or on any PT.  E-14 the target is k+1 seats along
  (k = every Skip in the play, before or after the hit card).  E-15/E-25 a PT hit costs the target its next turn, once.
  JTT: the target draws and then plays on the card under the JTT.
* E-17 an OWM gives the same seat a full new turn; E-26 Skips add up;
  E-28 effects in card order (an OWM flips the direction for the cards
  after it).
* E-18 an SM breaks a hit run; it sets a colour, no extra turn.
* E-23 a block: the MM goes on the pile with the colour under it, breaks
  the run; the blocker may play or ``pass``; play then goes on from the
  blocker.  A block with the blocker's last card ends the hand (7.7): the
  blocker went out, the MM is its final play and scores -50.  E-24 only an MM avoids the draw.  E-30 never MM as DM.
* E-10 the finisher subtracts the final play's points; the others add
  their hand points x 2^s (s = SMs in the final play; option
  ``sm_multiplies = totals``).  A final PT/JTT still hits first.
* E-11 safety net (totals 500..505 -> 350) before the end check; the game
  ends when a total exceeds 505 (option ``target``), lowest total wins,
  E-32 ties share.  E-22 Deck Master succession.  E-29 teams (4 or 6
  players, option ``teams``): partners share one total, with the safety
  net and the end on it (option ``team_end_on_individual``).  Tournament
  (option ``tournament``): seats above 505 are out; the last one wins
  (result points: hands survived).

**Where RULES.md is silent** (the natural reading of the seed): the first
hand's dealer draw starts at seat 0; each new hand starts clockwise from
the dealer's left with an empty pile.  In a tournament, when E-22 keeps
the previous DM but that seat is out, the deal passes to the next seat
still in, in the direction of play.  The SM colour is chosen right
after the SM, so a coloured power may follow it in the same play.  An MM
as a coloured power with no colour under it (start of a hand) has no
colour and fits anything.  An MM that was not declared (only in a
hand-written position) is a visible card with no colour.  A hit never
targets its own player: when the Skips send it round the table to them (two
players), it goes on to the next seat.  A play's
hit is aimed by its last hit card.  A block takes the place of the
hitter's OWM extra turn.  A catch window comes before the hit is resolved.
If every active seat in a row passes without playing or drawing (nothing
left to draw), the hand ends with no winner and every seat adds its hand.
The same happens to a hand that goes round without progress (reason
``stalled``): a turn is stale if it began with an empty draw pile (so every
dig had to reshuffle the few cards under the last play) and its seat did
not end it holding fewer cards than it began with; a full round of stale
turns in a row (one per active seat, an Other Way Mae's extra turn
counting as a turn) ends the hand.  Nobody can get ahead then: the same
few cards only go from the pile to a hand and back (seats that always dig
and then must play the card they dug never finished a hand before).
Option ``turn_limit`` (5000 turns a hand; 0 for none) ends any hand that
reaches it the same way (reason ``turn-limit``), whatever the seats do;
random play needs about 230 turns a hand (2 players; 1 in 100 hands over
1,300).
A going-out chain that needs more than 20,000 search steps to find is not
offered (it never happens with real hands).  Option ``max_hands`` ends the
game after that many hands (0: no limit), for quick games.
Option ``decision_limit`` (40,000 decisions a game; 0 for none; not in the
rules, a bound whatever the seats do) ends the game at that many
decisions, its hand scored as it stands (reason ``decision-limit``: every
seat adds its hand, as in a blocked hand; a hand already won whose hit
waits is scored as won) and the game over whatever the totals.  The turn
limit bounds a hand, not the game: totals can fall (a finisher subtracts
its final play), so colluding seats could play hands for ever, and a seat
can take many decisions in one turn (digs, a play card by card, catch
windows), so the bound counts decisions, as the match runner's abort does
(50,000, unrated; the ladder refuses options that leave no bound below it).
Random play's longest of 360 two-player games took 30,926 decisions
(median about 15,000; 2026-11-28, `scripts/game_lengths.py`).
"""

from __future__ import annotations

from typing import Any, Mapping

from arena.games.base import OptionError
from arena.games.ddmau.cards import DEFAULT_COUNTS, parse_counts
from arena.games.ddmau.position import from_position as _from_position
from arena.games.ddmau.state import DDMauState
from arena.games.registry import OptionSpec, RulesetInfo, register

OPTIONS = {
    "target": OptionSpec(505, "the game ends when a total exceeds this (505); the safety net is the 6 points "
                         "below and at it, reset to target - 155", minimum=10),
    "max_hands": OptionSpec(0, "end the game after this many hands (0: play to the target), for quick games",
                            minimum=0),
    "teams": OptionSpec("off", "off, or on: partnerships with 4 players (P1+P3, P2+P4) or 6 (P1+P4, P2+P5, "
                        "P3+P6) sharing one total (E-29)", ("off", "on")),
    "team_end_on_individual": OptionSpec(False, "with teams, the safety net and the end apply to each player's "
                                         "own total; the team total is the partners' sum (E-29)"),
    "tournament": OptionSpec(False, "seats whose total exceeds the target are eliminated; the last one left wins"),
    "deck": OptionSpec("", "power-card counts, e.g. 'PT=4,SK=4,OWM=4,JTT=4,SM=3,LM=3,DM=3,MM=3' (the default, "
                       "E-1); coloured counts are spread r, y, b, g"),
    "allow_number_to_power_chain": OptionSpec(False, "a play may go on from numbered cards to power cards (E-27)"),
    "must_play_if_able": OptionSpec(False, "after 3 draws a seat with a legal play must play (E-6)"),
    "lm_per_run_segment": OptionSpec(False, "each run segment needs its own Link Master (E-19)"),
    "sm_multiplies": OptionSpec("hand", "a Shadow Master finish multiplies the others' hand points or their "
                                "totals (E-10)", ("hand", "totals")),
    "safety_net": OptionSpec(True, "totals in the 6 points up to the target after a hand drop to target - 155 "
                            "(500..505 -> 350 at the default; E-11)"),
    "turn_limit": OptionSpec(5000, "turns after which a hand ends blocked (0: none); not in the rules, a bound "
                             "whatever the seats do"),
    "decision_limit": OptionSpec(40000, "decisions after which the game ends, its last hand scored as it stands "
                                 "(0: none); not in the rules, a bound on the whole game whatever the seats do",
                                 minimum=0),
}

SUMMARY = (
    "80-card DD MAU: 52 numbered cards 1-13 in red, yellow, blue, green and 28 power cards. Follow the colour "
    "or the number; play chains of the same number, Link Master runs, and power-card chains card by card "
    "(play ... stop). Penal T and JTT hit progressively (2 x hit cards on top), Skips send hits along, Other "
    "Way Mae reverses and plays again, Shadow Master picks a colour, Master Mau becomes any power or blocks "
    "a hit; LM, DM and JTT are see-through. Going out scores minus the final play; the others add their "
    "hands (x2 per final Shadow Master); 500-505 drops to 350; the game ends above 505, lowest total wins. "
    "Actions: play R7 | play LM | stop | draw | pass | declare PT | color g | accept | block | call ddmau | "
    "catch 2."
)


def _options(players: int | None, options: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, int]]:
    try:
        counts = parse_counts(options["deck"]) if options["deck"] else dict(DEFAULT_COUNTS)
    except ValueError as error:
        raise OptionError(f"option deck: {error}") from None
    if options["teams"] not in ("off", "on"):
        raise OptionError(f"option teams: {options['teams']!r} is not off or on")
    if options["teams"] == "on" and players is not None and players not in (4, 6):
        raise OptionError(f"teams are for 4 or 6 players, not {players}")
    if options["teams"] == "on" and options["tournament"]:
        raise OptionError("tournament play is for single players; turn teams off")
    if options["target"] < 10 or options["max_hands"] < 0:
        raise OptionError("target must be at least 10 and max_hands at least 0")
    if options["turn_limit"] < 0:
        raise OptionError(f"option turn_limit: {options['turn_limit']} is negative; 0 means no limit")
    if options["decision_limit"] < 0:
        raise OptionError(f"option decision_limit: {options['decision_limit']} is negative; 0 means no limit")
    return dict(options), counts


def _new_game(players: int, seed: int, options: dict[str, Any]) -> DDMauState:
    opts, counts = _options(players, options)
    return DDMauState(players, seed, opts, counts)


def _restore(position: Mapping[str, Any], options: dict[str, Any]) -> DDMauState:
    opts, counts = _options(None, options)
    return _from_position(position, opts, counts)


INFO = register(
    RulesetInfo(
        name="ddmau",
        title="DD MAU (80-card power-card game, to 505)",
        seed_document="seeds/004_76bc48619971760f.txt",
        min_players=2,
        max_players=10,
        default_players=4,
        summary=SUMMARY,
        new_game=_new_game,
        from_position=_restore,
        options=OPTIONS,
        resolutions=__doc__ or "",
    )
)

__all__ = ["DDMauState", "INFO", "OPTIONS"]
