"""The ``details_json`` keys of every ruleset, as a JSON Schema generated from the engines.

A bot in another language reads ``Observation.details_json``; this module says what is in it,
ruleset by ruleset, so that nobody has to read the Python engines to find ``obligation`` or
``play_size``.  The schema is not written by hand: `generate` plays seeded random games of every
ruleset at its smallest and largest table, under its default options and with each option changed
in turn, reads every seat's and the spectator's observation, and records each key's JSON type
(arrays by their items, fixed-key objects by their properties, keyed maps by their values).
A key present in every observation of a ruleset is ``required``; no other key may appear
(``additionalProperties: false``), which is what makes the schema a complete list.  Descriptions
come from `DESCRIPTIONS` (one line per key, shared across rulesets where the meaning is shared).

``scripts/gen_details_schema.py`` writes ``docs/observation-details.schema.json``; a test fails
when that file is stale, and another validates observations of other seeds against it.
"""

from __future__ import annotations

import random
from typing import Any, Iterable

from arena import games

#: The keys Observation carries as typed protobuf fields (arena.messages.TYPED_KEYS): not in details_json.
TYPED = frozenset({"ruleset", "seat", "current", "decision", "hand", "discard", "stock_size", "direction",
                   "seat_count", "hand_sizes", "scores", "statuses", "players"})
#: Random games per table size and option variant.  Two, since one game of Prší no longer met a Jack's
#: `obligation` once a seat facing a 7 it cannot answer is asked (Session 19): the schema is only as
#: complete as the games it reads.
GAMES_PER_TABLE = 2
SEED = 20261124
MAX_STEPS = 300
#: Past this many distinct keys (or any key that is a number or a card) an object is a map, not a record.
MAX_RECORD_KEYS = 16

#: One line per key and game family (arena.games.facts.family_of); arena/games/README.md says more.
DESCRIPTIONS: dict[str, dict[str, str]] = {
    "shedding": {
        "discard_size": "cards in the whole discard pile (Observation.discard shows only its visible top)",
        "active_suit": "the suit named by a wish card or demand, or null",
        "suit_kind": "why a suit is named (wish, demand...), or null",
        "pending": "what the seat to act owes: {draw: n, skip: 1}; {} when nothing is",
        "obligation": "cover or follow while the current seat must cover or follow the top, finish-word while a "
                      "play that empties the hand waits for its word (Tschau Sepp), else null",
        "drawn": "whether the current seat has drawn this turn",
        "called": "whether a valid call was made this turn",
        "false_call": "whether a false call was made this turn (its penalty drawn)",
        "this_play": "the cards of the play under way, in order (a combo so far, the card a suit is named for)",
        "opening": "whether the hand's opening card is still being resolved (its effects, Moumou's dealer's own card)",
        "next_seat": "who takes the next turn once this decision is made (may be the same seat again); null while "
                     "the turn's play is under way",
        "offender": "the seat that owes a call this turn (it played its second-last card without the word), or null",
        "window": "an open accusation window {offender, called, queue, next}: queue the seats still to be asked, in "
                  "order, next who plays after it; or null",
        "must_play_drawn": "whether the current seat drew a card that is its only play now, if it fits, or else "
                           "it passes (which card: forced, in its holder's view only; the same whether it fits)",
        "forced": "the drawn card that is the current seat's only play, if it fits (its own view only), or null",
        "idle": "turns in a row that ended with nothing played or drawn; the hand is blocked when every seat has one",
        "decisions": "decisions applied in this game; at the option decision_limit the game ends, scored as it stands",
        "hand_number": "the hand in the match (1 first)",
        "dealer": "the seat that dealt this hand",
        "last_hand": "the last scored hand {winner, reason, points or losers}, or null",
        "claim": "option blind: the face-down top's claimed rank and suit and whether the claim is still open",
        "blind_skip": "option blind: a doubter's lost turn still to come",
        "returning": "Prsi: the seat out of cards that may still be brought back, or null",
        "return_wait": "Prsi: turns left before the returning seat has won",
        "finished": "Faraon ladder: seats out of this hand, in order",
        "losses": "Faraon ladder: lost hands per seat",
        "last_discarder": "B-14 alternative: who a 'previous seat' card makes draw",
        "carry_follow": "C-8 alternative: a failed follow obligation passed on after a window",
        "paying": "cards drawn so far paying a debt that a drawn card can still answer (P2 rescue)",
        "accusable": "Online Mau-Mau (B-8): {offender, guilty}, who can still be accused in this turn, or null",
    },
    "mose": {
        "discard_size": "cards in the discard pile (all of it is face up in Observation.discard)",
        "round": "the round being played (1 first)",
        "rounds": "rounds in the game",
        "wild_rank": "the rank that is wild this round",
        "dealer": "the seat that dealt this round",
        "turn": "whose turn it is (current differs in a reaction window)",
        "melds": "the melds on the table: {id, owner, kind, tokens}",
        "table": "a freed wild card waiting to be placed, or null",
        "round_started": "whether the round's first turn has been played",
        "exhaustions": "times the stock has run out this round",
        "penalties": "this round's False Mose / False Play points per seat",
        "last_pickup": "the last pickup {seat, source, count, by}: by is the one seat that has played since (D-14), or null",
        "window": "a reaction window {queue, acted}: the seats still to be asked in order, and whether the deciding "
                  "seat already played in it; or null",
        "turns": "turns played in this round",
        "turn_limit": "the turns after which the round ends",
        "mistake": "contested mode: whether a False Mose or False Play was made this turn already",
        "last_round": "the last scored round, or null",
        "false_plays": "contested mode: False Plays made this turn (at most 3)",
        "decisions": "decisions applied in this game; at the option decision_limit the game ends, its round scored "
                     "as it stands",
    },
    "ddmau": {
        "marks": "one per shown discard card: its mark (an MM declaration, an SM colour, a block), or null",
        "discard_size": "cards in the whole discard pile",
        "individual": "each seat's own total (scores holds the team totals when teams are on)",
        "effective_top": "the card that counts for matching {index into Observation.discard, kind}, or null",
        "color": "the colour to match (the effective top's, or a Shadow Master's), or null",
        "number": "the number to match, or null",
        "hit_run": "the hit cards so far in the run on the pile",
        "play_size": "cards of the play under way (the top play_size cards of the discard)",
        "last_play": "cards of the last finished play",
        "drawn": "cards the current seat has dug this turn (up to 3)",
        "called": "whether the current seat has called DD MAU in this play",
        "optional": "whether this turn may end with pass without a play (after a block)",
        "pending_hit": "a hit waiting for its target {target, count, kind, by}, or null",
        "window": "an open catch window {offender}, or null",
        "teams": "whether partners share one total (option teams)",
        "active": "per seat: still in the game (option tournament eliminates seats)",
        "dealer": "the Deck Master: the seat that dealt this hand",
        "hand_number": "the hand in the game (1 first)",
        "target": "the total that ends the game (option target)",
        "last_hand": "the last scored hand, or null",
        "decisions": "decisions applied in this game; at the option decision_limit the game ends, its hand scored "
                     "as it stands",
    },
}


def generate(seed: int = SEED, games_per_table: int = GAMES_PER_TABLE) -> dict[str, Any]:
    """The whole schema: one definition per ruleset under ``$defs``, selected by the ruleset's name."""
    definitions = {ruleset: _ruleset_schema(ruleset, seed, games_per_table) for ruleset in games.rulesets()}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://mau-arena.invalid/observation-details.schema.json",
        "title": "Observation.details_json, per ruleset",
        "description": (
            "The game-specific part of a seat's observation (Observation.details_json in proto/mauarena/v1/arena.proto). "
            "Pick the definition named after GameStarted.ruleset: $defs/<ruleset>. Generated from the engines by "
            "scripts/gen_details_schema.py; every key a ruleset can send is listed, and required keys are always sent."
        ),
        "$defs": definitions,
    }


def observations(ruleset: str, seed: int, games_per_table: int) -> Iterable[dict[str, Any]]:
    """Every seat's and the spectator's observation data over seeded random games, under each option variant."""
    info = games.ruleset_info(ruleset)
    rng = random.Random(f"{seed}:{ruleset}")
    for players in sorted({info.min_players, info.max_players}):
        for options in _option_variants(info):
            for _ in range(games_per_table):
                try:
                    state = games.new_game(ruleset, players, rng.randrange(2**31), **options)
                except games.GameError:
                    break  # this option does not go with this table size
                steps = 0
                for seat in range(players):  # the deal, as each seat sees it
                    yield dict(state.observation(seat).data)
                while True:  # then the seat to move (its own keys: drawn...) and the spectator
                    for seat in (state.current, None):
                        yield dict(state.observation(seat).data)
                    if state.is_over or steps >= MAX_STEPS:
                        break
                    state.apply(rng.choice(state.legal_actions()))
                    steps += 1


def details(data: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in data.items() if key not in TYPED}


def _option_variants(info: Any) -> list[dict[str, Any]]:
    variants: list[dict[str, Any]] = [{}]
    for name, spec in info.options.items():
        if isinstance(spec.default, bool):
            variants.append({name: not spec.default})
        elif spec.choices:
            variants += [{name: choice} for choice in spec.choices if choice != spec.default]
        elif name == "hands":
            variants.append({name: 2})  # a series: its keys (last hand, losses...) appear only then
    return variants


def _ruleset_schema(ruleset: str, seed: int, games_per_table: int) -> dict[str, Any]:
    seen: dict[str, list[Any]] = {}
    count = 0
    present: dict[str, int] = {}
    for data in observations(ruleset, seed, games_per_table):
        count += 1
        for key, value in details(data).items():
            seen.setdefault(key, []).append(value)
            present[key] = present.get(key, 0) + 1
    from arena.games.facts import family_of

    described = DESCRIPTIONS.get(family_of(ruleset), {})
    properties = {}
    for key in sorted(seen):
        schema = _infer(seen[key])
        if key in described:
            schema = {"description": described[key], **schema}
        properties[key] = schema
    return {
        "title": f"{ruleset}: Observation.details_json",
        "type": "object",
        "properties": properties,
        "required": sorted(key for key, n in present.items() if n == count),
        "additionalProperties": False,
    }


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)):
        return "array"
    if isinstance(value, dict):
        return "object"
    raise TypeError(f"not a JSON value: {type(value).__name__}")


def _infer(values: list[Any]) -> dict[str, Any]:
    """The schema of a key from every value it took."""
    kinds = sorted({_kind(v) for v in values})
    if "integer" in kinds and "number" in kinds:
        kinds.remove("integer")
    schema: dict[str, Any] = {"type": kinds[0] if len(kinds) == 1 else kinds}
    arrays = [v for v in values if isinstance(v, (list, tuple))]
    items = [item for array in arrays for item in array]
    if items:
        schema["items"] = _infer(items)
    objects = [v for v in values if isinstance(v, dict)]
    if objects:
        keys = {key for obj in objects for key in obj}
        if len(keys) > MAX_RECORD_KEYS or any(_looks_like_data(key) for key in keys):
            members = [value for obj in objects for value in obj.values()]
            schema["additionalProperties"] = _infer(members) if members else {}
        else:
            schema["properties"] = {key: _infer([obj[key] for obj in objects if key in obj]) for key in sorted(keys)}
            always = sorted(key for key in keys if all(key in obj for obj in objects))
            if always:
                schema["required"] = always
            schema["additionalProperties"] = False
    return schema


def _looks_like_data(key: str) -> bool:
    """A key that is a value (a seat number, a card) rather than a field name."""
    from arena.games.cards import is_card_code

    return key.isdigit() or is_card_code(key)
