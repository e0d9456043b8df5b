"""Engine and match objects to protocol messages: the only place they are translated.

Everything a bot or a spectator receives about a game is built here from the
engine's observation (`GameState.observation(seat)`) and its public events
(`GameState.events`), never from the state.  The server's sessions and the
in-process seats of `arena.match.local` both use it, so a bot sees the same
messages over the network and in a local match.
"""

from __future__ import annotations

import json
import operator
from typing import Any, Callable, Mapping, Sequence

from arena import games
from arena.games import Action, Observation, PublicEvent
from arena.games.cards import is_card_code
from arena.games.base import GameError, RecordObservation
from mau_arena_sdk.wire import pb

#: Observation keys with a typed field in ``pb.Observation``, in the order `_observation_parts`
#: gives their values; every other key goes to ``details_json``.
#: ``players`` is the seat count's name before 0.2 (engines outside this tree may still use it).
TYPED_ORDER = ("ruleset", "seat", "current", "decision", "hand", "discard", "stock_size", "direction",
               "seat_count", "hand_sizes", "scores", "statuses", "players")
TYPED_KEYS = frozenset(TYPED_ORDER)


def _seat_number(value: Any) -> int:
    return -1 if value is None else int(value)


#: One C encoder for every message, built once: ``json.dumps`` with options (and
#: ``JSONEncoder.encode``) build a new one per call, 1.5 us of a 3 us encoding here.
#: No circular check: observations are trees (a cycle would fail at the recursion limit,
#: caught like any other non-JSON value); NaN is refused as the protocol's JSON has none.
def _not_json(value: Any) -> Any:
    raise TypeError(f"{type(value).__name__} is not JSON data")


_DETAILS_ENCODER = (json.encoder.c_make_encoder(None, _not_json, json.encoder.encode_basestring, None, ":", ",",
                                                False, False, False)
                    if json.encoder.c_make_encoder is not None else None)
_FALLBACK_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, allow_nan=False,
                                     check_circular=False)


def _encode(value: Any) -> str:
    if _DETAILS_ENCODER is None:  # pragma: no cover - a Python without the C accelerator
        return _FALLBACK_ENCODER.encode(value)
    return "".join(_DETAILS_ENCODER(value, 0))


def _details_json(rest: Mapping[str, Any]) -> str:
    """The game-specific keys as compact JSON text, built once per message with the C encoder."""
    try:
        return _encode(rest)
    except (TypeError, ValueError, RecursionError):  # not plain JSON data (sets, enums...): normalise first
        return _encode(Observation(dict(rest)).to_dict())


def _picker(indexes: Sequence[int]) -> Callable[[tuple], tuple]:
    """``values -> tuple(values[i] for i in indexes)``, in C for two or more (itemgetter gives a bare
    value for one index)."""
    if len(indexes) >= 2:
        return operator.itemgetter(*indexes)
    if indexes:
        (index,) = indexes
        return lambda values: (values[index],)
    return lambda values: ()


class _RecordLayout:
    """Where one record class's values (`arena.games.base.RecordObservation`: one tuple in the
    order of the class's ``KEYS``) hold the typed fields and the details, worked out once per class."""

    __slots__ = ("typed", "details_keys", "details")

    def __init__(self, keys: Sequence[str]) -> None:
        position = {key: i for i, key in enumerate(keys)}
        absent = len(keys)  # the index of the None that `_observation_parts` appends to the values
        self.typed = _picker([position.get(key, absent) for key in TYPED_ORDER])
        self.details_keys = tuple(key for key in keys if key not in TYPED_KEYS)
        self.details = _picker([position[key] for key in self.details_keys])


_RECORD_LAYOUTS: dict[type, _RecordLayout] = {}


def _observation_parts(observation: "Observation | Mapping[str, Any]") -> tuple[tuple, dict[str, Any]]:
    """The typed keys' values (in `TYPED_ORDER`, None when absent) and the other keys as a dict, in
    the observation's key order.

    A record observation's ``ordered_values`` are read in its class's ``KEYS`` order: building the
    ``data`` dict first and filtering it cost 26k of the 91k instructions of a moumou conversion
    (callgrind).  Any other observation or mapping goes through ``data``.
    """
    if isinstance(observation, RecordObservation):
        values = observation.ordered_values
        layout = _RECORD_LAYOUTS.get(observation.__class__)
        if layout is None:
            layout = _RECORD_LAYOUTS[observation.__class__] = _RecordLayout(observation.KEYS)
        return layout.typed(values + (None,)), dict(zip(layout.details_keys, layout.details(values)))
    data = observation.data if isinstance(observation, Observation) else observation
    return tuple(map(data.get, TYPED_ORDER)), {k: v for k, v in data.items() if k not in TYPED_KEYS}


def _observation_fields(observation: "Observation | Mapping[str, Any]", names: Sequence[str]) -> dict[str, Any]:
    """The ``pb.Observation`` fields as plain values (seat views as dicts): one constructor call
    builds the whole message tree from them, with no intermediate messages to copy."""
    (ruleset, seat, current, decision, hand, discard, stock_size, direction,
     seat_count, hand_sizes, scores, statuses, players), rest = _observation_parts(observation)
    hand_sizes = hand_sizes or ()
    scores = scores or ()
    statuses = statuses or ()
    if seat_count is None:
        seat_count = players
    if isinstance(seat_count, (list, tuple)):  # names by seat (a toy engine's view)
        names = [str(p) for p in seat_count] if not names else names
        count = len(seat_count)
    else:
        count = int(seat_count) if isinstance(seat_count, int) else max(len(hand_sizes), len(names))
    seats = [
        {
            "seat": index,
            "name": names[index] if index < len(names) else "",
            "hand_size": int(hand_sizes[index]) if index < len(hand_sizes) else 0,
            "score": int(scores[index]) if index < len(scores) and scores[index] is not None else 0,
            "status": str(statuses[index]) if index < len(statuses) else "active",
        }
        for index in range(count)
    ]
    return {
        "ruleset": str(ruleset or ""),
        "seat": _seat_number(seat),
        "current": _seat_number(current),
        "decision": str(decision or ""),
        "hand": [str(c) for c in (hand or ())],
        "discard": [str(c) for c in (discard or ())],
        "stock_size": int(stock_size or 0),
        "direction": int(direction or 1),
        "seats": seats,
        "details_json": _details_json(rest) if rest else "",
    }


def observation_to_pb(observation: "Observation | Mapping[str, Any]", names: Sequence[str] = ()) -> pb.Observation:
    """Convert an engine observation; ``names`` are the bot names by seat (for ``seats[].name``).

    Typed fields, ``seats[]`` from ``hand_sizes``/``scores``/``statuses``, every other key in
    ``details_json`` (one JSON object), all in one constructor call.
    """
    return pb.Observation(**_observation_fields(observation, names))


def details_to_dict(message: pb.Observation) -> dict[str, Any]:
    """The inverse for ``details_json`` (an empty text is an empty mapping)."""
    return json.loads(message.details_json) if message.details_json else {}


def option_text(value: Any) -> str:
    """Option values in the text form `OptionSpec.coerce` reads back."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)


def time_control_to_pb(time_control: Any) -> pb.TimeControl:
    return pb.TimeControl(
        move_ms=int(time_control.move_ms),
        bank_ms=int(time_control.bank_ms),
        increment_ms=int(time_control.increment_ms),
        first_move_ms=int(time_control.first_move_ms),
        max_strikes=int(time_control.max_strikes),
    )


def game_started_to_pb(start: Any) -> pb.GameStarted:
    """From `arena.match.seat.GameStart`; the seed is deliberately not part of it."""
    return pb.GameStarted(
        game_id=start.game_id,
        ruleset=start.ruleset,
        options={str(k): option_text(v) for k, v in (start.options or {}).items()},
        seat=int(start.seat),
        players=list(start.players),
        time_control=time_control_to_pb(start.time_control),
        facts_json=facts_json(start.ruleset, len(start.players), start.options or {}),
    )


#: (ruleset, players, options) -> the facts' JSON text: every seat of every game of a match asks again.
_FACTS_JSON: dict[tuple, str] = {}


def facts_json(ruleset: str, players: int, options: Mapping[str, Any]) -> str:
    """`games.ruleset_facts` as compact JSON text; empty for a ruleset or table the engines do not know."""
    try:
        key = (ruleset, players, tuple(sorted((str(k), option_text(v)) for k, v in options.items())))
    except TypeError:
        return ""
    text = _FACTS_JSON.get(key)
    if text is None:
        try:
            text = _encode(games.ruleset_facts(ruleset, players, **options))
        except (GameError, TypeError):
            text = ""
        if len(_FACTS_JSON) >= 256:
            _FACTS_JSON.clear()
        _FACTS_JSON[key] = text
    return text


def game_ended_to_pb(outcome: Any, game_id: str = "") -> pb.GameEnded:
    """From `arena.match.outcome.GameOutcome` (results only: no seed, no hands)."""
    message = pb.GameEnded(
        game_id=game_id or outcome.game_id,
        reason=outcome.reason or outcome.status,
        status=_GAME_STATUS.get(outcome.status, pb.GameEnded.STATUS_UNSPECIFIED),
    )
    for seat in outcome.seats:
        message.results.add(
            seat=seat.seat,
            name=seat.name,
            placement=max(0, int(seat.placement)),
            points=int(seat.points),
            strikes=int(seat.strikes),
            timeouts=int(seat.timeouts),
            forfeited=bool(seat.forfeited),
            think_ms=max(0, int(seat.think_ms)),
        )
    return message


def _event_fields(event: PublicEvent) -> dict[str, Any]:
    details = event.details
    return {
        "seat": _seat_number(event.seat),
        "kind": event.kind,
        "text": event.text,
        "details_json": _details_json(details) if details else "",
    }


def public_event_to_pb(event: PublicEvent) -> pb.PublicEvent:
    """One engine `PublicEvent`: the table's seat is -1, the details one JSON object ("" when none)."""
    return pb.PublicEvent(**_event_fields(event))


def public_events_fields(events: Sequence[PublicEvent]) -> list[dict[str, Any]]:
    """The events as field dicts, for a message constructor that builds the whole tree at once."""
    return [_event_fields(event) for event in events]


_GAME_STATUS = {"finished": pb.GameEnded.FINISHED, "aborted": pb.GameEnded.ABORTED}

#: LegalAction fields by action text: a game's actions repeat from turn to turn, so each is built once.
_LEGAL_ACTIONS: dict[str, dict[str, Any]] = {}
_MAX_CACHED_ACTIONS = 50_000


def legal_action_fields(action: Any) -> dict[str, Any]:
    """One action in the protocol's structured form (``LegalAction``): verb, arguments, the cards it moves."""
    text = str(action)
    fields = _LEGAL_ACTIONS.get(text)
    if fields is None:
        parsed = action if hasattr(action, "verb") else Action.parse(text)
        cards = [token.split(":", 1)[0] for token in parsed.args if is_card_code(token.split(":", 1)[0])]
        fields = {"verb": parsed.verb, "args": list(parsed.args), "cards": cards, "text": text}
        if len(_LEGAL_ACTIONS) >= _MAX_CACHED_ACTIONS:
            _LEGAL_ACTIONS.clear()
        _LEGAL_ACTIONS[text] = fields
    return fields


def _turn_fields(game_id: str, wire_id: int, observation: Any, legal: Sequence[Any], move_ms: int, bank_ms: int,
                 names: Sequence[str], events: Sequence[PublicEvent]) -> dict[str, Any]:
    fields = {
        "game_id": game_id,
        "request_id": wire_id,
        "observation": _observation_fields(observation, names),
        "legal": [str(a) for a in legal],
        "legal_actions": [legal_action_fields(a) for a in legal],
        "time": {"move_ms": max(0, int(move_ms)), "bank_ms": max(0, int(bank_ms))},
    }
    if events:
        fields["events"] = [_event_fields(event) for event in events]
    return fields


def turn_request_to_pb(game_id: str, wire_id: int, observation: Any, legal: Sequence[Any],
                       move_ms: int, bank_ms: int, names: Sequence[str],
                       events: Sequence[PublicEvent] = ()) -> pb.TurnRequest:
    """A decision for a seat: its observation, the legal list, its time, and the public events since
    its previous request (`arena.match.seat.DecisionRequest.events`)."""
    return pb.TurnRequest(**_turn_fields(game_id, wire_id, observation, legal, move_ms, bank_ms, names, events))


def turn_message(game_id: str, wire_id: int, observation: Any, legal: Sequence[Any],
                 move_ms: int, bank_ms: int, names: Sequence[str],
                 events: Sequence[PublicEvent] = ()) -> pb.ArenaMessage:
    """`turn_request_to_pb` already wrapped for the stream, built in one constructor call: wrapping a
    built TurnRequest copies it (measured 31 -> 21 us per moumou request with the serialisation)."""
    return pb.ArenaMessage(turn=_turn_fields(game_id, wire_id, observation, legal, move_ms, bank_ms, names, events))


def error_to_pb(code: "str | int", message: str, game_id: str = "", request_id: int = 0) -> pb.ArenaMessage:
    """An ``Error`` wrapped for the stream; ``code`` is a name like ``"TIMEOUT"`` or the enum number."""
    number = pb.Error.Code.Value(code) if isinstance(code, str) else int(code)
    return pb.ArenaMessage(error=pb.Error(code=number, message=message[:500], game_id=game_id, request_id=request_id))
