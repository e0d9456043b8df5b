"""The middle of the table, told in each game's own terms.

An observation is engine data: ``pending: {"draw": 4}``, ``melds: [{"id": 1,
"owner": 1, "kind": "run", "tokens": [...]}]``, ``pending_hit: {"target": 2,
...}``.  A viewer should say what a player at the table would say: "next
player draws 4", "tactician's run: 2♣ 2♦(3♣) 4♣ 5♣", "hit: greedy draws 3".
This module turns one observation (any seat's or the spectator's; it reads
nothing else, so it cannot show more than that view holds) into a list of
``(label, text)`` facts.

Each game family is a small function over the keys it owns, in the style of
python-chess's variants; keys a family does not know (an engine added them
later) fall back to a generic rendering that still never prints a raw dict.
The shared card and value drawing lives in ``arena.replay.cards``.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

from rich.text import Text

from arena.replay.cards import card, direction, hand, rank_name, seat_name, suit_symbol, value, wild_token

Fact = tuple[str, Text]
Facts = list[Fact]

#: Keys every engine fills; drawn in the seats or the pile, never among the facts.
COMMON_KEYS = frozenset({
    "ruleset", "seat", "seat_count", "players", "current", "decision", "hand", "hand_sizes", "discard",
    "stock_size", "direction", "scores",
})

_DDMAU_KINDS = {"pt": "Punish Two", "sk": "Skip", "owm": "Other Way Mae", "jtt": "Joker Two Two",
                "sm": "Shadow Master", "lm": "Link Master", "dm": "Double Master", "mm": "Master Mau",
                "n": "number card"}
_DDMAU_COLOURS = {"r": "red", "y": "yellow", "b": "blue", "g": "green"}


def describe(observation: Mapping[str, Any], names: Sequence[str]) -> Facts:
    """The facts of one observation: the common ones, then the family's, then anything unknown."""
    family = _family(observation)
    facts: Facts = [
        ("pile", _pile(observation)),
    ]
    stock = Text(f"{observation.get('stock_size', '?')} cards")
    if "direction" in observation:
        stock.append(" · play goes ").append_text(direction(observation.get("direction")))
    facts.append(("stock", stock))
    handled: set[str] = set(COMMON_KEYS)
    facts += family(observation, names, handled)
    for key in sorted(k for k in observation if k not in handled):
        shown = _generic(observation[key], key, names)
        if shown is not None:
            facts.append((key.replace("_", " "), shown))
    return facts


def _family(observation: Mapping[str, Any]) -> Callable[[Mapping[str, Any], Sequence[str], set[str]], Facts]:
    if "melds" in observation and "wild_rank" in observation:
        return _mose
    if "effective_top" in observation or "pending_hit" in observation:
        return _ddmau
    return _shedding


def _pile(observation: Mapping[str, Any]) -> Text:
    discard = list(observation.get("discard") or [])
    if not discard:
        return Text("(empty)", style="dim")
    marks = observation.get("marks") or []
    parts = []
    for index, code in enumerate(discard):
        shown = card(code)
        mark = marks[index] if index < len(marks) else None
        if mark:
            shown.append(f"({_ddmau_mark(mark)})", style="dim")
        parts.append(shown)
    parts[-1].stylize("underline")
    size = observation.get("discard_size")
    text = Text(" ").join(parts)
    if isinstance(size, int) and size > len(discard):
        text = Text(f"{size - len(discard)} under · ", style="dim") + text
    return text + Text(" ← top", style="dim")


# ---------------------------------------------------------------- Mau-Mau, Moumou and the national variants


def _shedding(obs: Mapping[str, Any], names: Sequence[str], handled: set[str]) -> Facts:
    facts: Facts = []
    handled.update({"active_suit", "suit_kind", "pending", "obligation", "drawn", "called", "window",
                    "hand_number", "dealer", "last_hand", "finished", "losses", "discard_size"})
    if obs.get("active_suit"):
        shown = suit_symbol(obs["active_suit"])
        if obs.get("suit_kind"):
            shown.append(f" {obs['suit_kind']}ed" if obs["suit_kind"] == "wish" else f" {obs['suit_kind']}",
                         style="dim")
        facts.append(("suit", shown))
    pending = obs.get("pending") or {}
    if pending:
        facts.append(("pending", _pending(pending)))
    if obs.get("obligation"):
        facts.append(("must", Text(f"{obs['obligation']} the last card")))
    turn = [word for word, on in (("has drawn", obs.get("drawn")), ("has called", obs.get("called"))) if on]
    if turn:
        facts.append(("this turn", Text(", ".join(turn))))
    window = obs.get("window")
    if window:
        facts.append(("accusation", _window(window, names, "owed a call")))
    facts += _hands(obs, names)
    if obs.get("finished"):
        facts.append(("out", Text(", ".join(seat_name(names, s) for s in obs["finished"]))))
    losses = obs.get("losses")
    if losses and any(losses):
        facts.append(("losses", _per_seat(losses, names)))
    return facts


def _pending(pending: Mapping[str, Any]) -> Text:
    words = []
    for effect, amount in pending.items():
        if effect == "draw":
            words.append(f"next player draws {amount}")
        elif effect == "skip":
            words.append(f"next player skips {amount}" if amount != 1 else "next player is skipped")
        else:
            words.append(f"{effect.replace('_', ' ')} {amount}")
    return Text("; ".join(words), style="bold")


def _window(window: Mapping[str, Any], names: Sequence[str], why: str) -> Text:
    if not isinstance(window, Mapping):
        return value(window)
    offender = window.get("offender")
    text = Text(f"{seat_name(names, offender)} {why}" if offender is not None else why)
    queue = window.get("queue")
    if queue:
        text.append(f"; asked in turn: {', '.join(seat_name(names, s) for s in queue)}", style="dim")
    return text


def _hands(obs: Mapping[str, Any], names: Sequence[str]) -> Facts:
    facts: Facts = []
    if obs.get("hand_number") is not None:
        shown = Text(str(obs["hand_number"]))
        if obs.get("dealer") is not None:
            shown.append(f" · dealt by {seat_name(names, obs['dealer'])}", style="dim")
        facts.append(("hand", shown))
    last = obs.get("last_hand")
    if isinstance(last, Mapping):
        winner = last.get("winner")
        text = Text(f"hand {last.get('hand', '?')}: ")
        text.append(f"{seat_name(names, winner)} went out" if winner is not None else "no winner")
        if last.get("reason") and last.get("reason") != "out":
            text.append(f" ({str(last['reason']).replace('-', ' ')})", style="dim")
        if last.get("points"):
            text.append(" · points ").append_text(_per_seat(last["points"], names))
        facts.append(("last hand", text))
    return facts


# ---------------------------------------------------------------- Mose


def _mose(obs: Mapping[str, Any], names: Sequence[str], handled: set[str]) -> Facts:
    handled.update({"round", "rounds", "wild_rank", "dealer", "turn", "melds", "table", "round_started",
                    "exhaustions", "penalties", "last_pickup", "last_round", "discard_size", "false_plays", "window"})
    round_text = Text(f"{obs.get('round', '?')} of {obs.get('rounds', '?')}")
    if obs.get("dealer") is not None:
        round_text.append(f" · dealt by {seat_name(names, obs['dealer'])}", style="dim")
    if obs.get("turn") is not None:
        round_text.append(f" · turn {obs['turn']}", style="dim")
    if obs.get("round_started") is False:
        round_text.append(" · nobody has drawn yet", style="dim")
    round_text.append(f" · wild: every {rank_name(obs.get('wild_rank'))}")
    facts: Facts = [("round", round_text)]
    if obs.get("table"):
        facts.append(("freed wild", hand(obs["table"])))
    pickup = obs.get("last_pickup")
    if isinstance(pickup, Mapping) and pickup.get("seat") is not None:
        count = pickup.get("count", 1)
        source = "the pile" if pickup.get("source") == "pile" else "the stock"
        facts.append(("last pickup", Text(f"{seat_name(names, pickup['seat'])} took {count} from {source}")))
    penalties = obs.get("penalties")
    if penalties and any(penalties):
        facts.append(("penalties", _per_seat(penalties, names)))
    if obs.get("exhaustions"):
        facts.append(("stock ran out", Text(f"{obs['exhaustions']} times")))
    if obs.get("false_plays"):  # (contested mode only; a line of 0 on every frame said nothing)
        facts.append(("false plays", Text(f"{obs['false_plays']} this turn")))
    window = obs.get("window")
    if isinstance(window, Mapping) and window.get("queue"):  # (no line when no window is open)
        facts.append(("window", Text("then asks " + ", ".join(seat_name(names, s) for s in window["queue"]))))
    last = obs.get("last_round")
    if isinstance(last, Mapping):
        winner = last.get("winner")
        text = Text(f"{seat_name(names, winner)} went out" if winner is not None else "no winner")
        if last.get("points"):
            text.append(" · points ").append_text(_per_seat(last["points"], names))
        facts.append(("last round", text))
    for meld in obs.get("melds") or []:
        facts.append(_meld(meld, names))
    return facts


def _meld(meld: Any, names: Sequence[str]) -> Fact:
    if not isinstance(meld, Mapping):
        return ("meld", value(meld))
    owner = seat_name(names, meld.get("owner"))
    label = f"{meld.get('kind', 'meld')} {meld.get('id', '')}".strip()
    text = Text(f"{owner}: ", style="dim")
    text.append_text(Text(" ").join(wild_token(t) for t in meld.get("tokens") or []))
    return (label, text)


# ---------------------------------------------------------------- DD MAU


def _ddmau(obs: Mapping[str, Any], names: Sequence[str], handled: set[str]) -> Facts:
    handled.update({"marks", "discard_size", "individual", "effective_top", "color", "number", "hit_run",
                    "play_size", "last_play", "drawn", "called", "optional", "pending_hit", "window", "teams",
                    "active", "dealer", "hand_number", "target", "last_hand"})
    facts: Facts = []
    discard = list(obs.get("discard") or [])
    top = obs.get("effective_top")
    colour, number = obs.get("color"), obs.get("number")
    to_match = Text()
    if isinstance(top, Mapping) and isinstance(top.get("index"), int) and 0 <= top["index"] < len(discard):
        to_match.append_text(card(discard[top["index"]]))
        to_match.append(" ")
    parts = [_DDMAU_COLOURS.get(colour, str(colour)) if colour else "", f"number {number}" if number else ""]
    to_match.append(" · ".join(p for p in parts if p), style="bold")
    facts.append(("to match", to_match))
    play_size = obs.get("play_size") or 0
    if play_size:
        facts.append(("this play", hand(discard[-play_size:]) if play_size <= len(discard) else Text(str(play_size))))
    if obs.get("hit_run"):
        facts.append(("hit run", Text(f"{obs['hit_run']} hit card{'s' if obs['hit_run'] != 1 else ''} in a row")))
    hit = obs.get("pending_hit")
    if isinstance(hit, Mapping):
        text = Text(f"{seat_name(names, hit.get('target'))} draws {hit.get('count')}", style="bold")
        kind = _DDMAU_KINDS.get(str(hit.get("kind")), str(hit.get("kind")))
        text.append(f" ({kind} by {seat_name(names, hit.get('by'))}; accept or block)", style="dim")
        facts.append(("hit", text))
    window = obs.get("window")
    if window:
        facts.append(("catch", _window(window, names, "did not call DD MAU")))
    turn = [word for word, on in ((f"dug {obs.get('drawn')}", obs.get("drawn")), ("called DD MAU", obs.get("called")),
                                  ("may play again (Other Way Mae)", obs.get("optional"))) if on]
    if turn:
        facts.append(("this turn", Text(", ".join(turn))))
    facts += _hands(obs, names)
    if obs.get("target") is not None:
        facts.append(("game to", Text(str(obs["target"]))))
    active = obs.get("active")
    if active and not all(active):
        out = [seat_name(names, s) for s, on in enumerate(active) if not on]
        facts.append(("eliminated", Text(", ".join(out))))
    if obs.get("teams"):
        facts.append(("teams", _generic(obs["teams"], "teams", names) or Text()))
        if obs.get("individual"):
            facts.append(("own points", _per_seat(obs["individual"], names)))
    return facts


def _ddmau_mark(mark: str) -> str:
    if mark in _DDMAU_COLOURS:
        return _DDMAU_COLOURS[mark]
    return _DDMAU_KINDS.get(mark, mark)


# ---------------------------------------------------------------- shared pieces


def _per_seat(values: Sequence[Any], names: Sequence[str]) -> Text:
    return Text(", ".join(f"{seat_name(names, seat)} {v}" for seat, v in enumerate(values)))


#: Bookkeeping counters of the observation (a bot's business, not the table's): the log shows their effect.
COUNTER_KEYS = frozenset({"decisions", "idle", "turns", "turn_limit"})


def _generic(data: Any, key: str, names: Sequence[str]) -> Text | None:
    """A key no family knows: plain words, seats by name, cards as cards, never ``{...}``; nothing for an
    empty value, a flag that is off or a bookkeeping counter (a frame must fit 80x24)."""
    if data is None or data is False or data == [] or data == {} or key in COUNTER_KEYS:
        return None
    if isinstance(data, Mapping):
        return Text("; ").join(
            Text(f"{str(k).replace('_', ' ')} ", style="dim") + (_generic(v, str(k), names) or Text("—", style="dim"))
            for k, v in data.items()
        )
    if isinstance(data, (list, tuple)) and any(isinstance(item, Mapping) for item in data):
        return Text(" | ").join(_generic(item, key, names) or Text("—") for item in data)
    if isinstance(data, int) and not isinstance(data, bool) and _names_a_seat(key):
        return Text(seat_name(names, data))
    return value(data, key)


def _names_a_seat(key: str) -> bool:
    key = key.lower()
    return key in {"seat", "owner", "offender", "by", "winner", "next", "resumes", "dealer", "leader"} or key.endswith(
        ("_seat", "_by"))
