"""The SDK's action type: one atomic decision in its text form (``play 7h``, ``draw``, ``suit h``).

The arena sends the legal actions as text; an `Action` is that text split
into a verb and argument tokens, so bots can write ``a.verb == "play"`` or
``a.cards`` instead of parsing strings.  It mirrors the engine's own
`arena.games.Action` without importing it: the SDK must run with only
grpcio and protobuf installed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_TOKEN = re.compile(r"^[A-Za-z0-9_+\-=.:]+$")
_CARD = re.compile(
    r"^(?:[2-9TJQKA][shdc]|X[1-9]"  # French cards and jokers
    r"|[RYBG](?:[1-9]|1[0-3])|(?:PT|SK|OWM)-[rybg]|JTT|SM|LM|DM|MM)$"  # DD MAU's 80-card deck
)


def is_card_code(token: str) -> bool:
    """True for French card codes (``7h``, ``Td``, ``As``), jokers (``X1``) and DD MAU's codes
    (``R7``, ``PT-r``, ``JTT``...): without these, every DD MAU play had no ``cards`` and the sample
    bots, preferring any play to a draw by its cards, drew for ever."""
    return bool(_CARD.match(token))


class ActionParseError(ValueError):
    """The text is not an action at all (empty, bad characters, no verb)."""


@dataclass(frozen=True, slots=True)
class Action:
    """An action: a verb and its argument tokens.  ``str(a)`` is its text; ``Action.parse(str(a)) == a``."""

    verb: str
    args: tuple[str, ...] = ()

    @classmethod
    def parse(cls, text: "str | Action") -> "Action":
        if isinstance(text, Action):
            return text
        if not isinstance(text, str):
            raise ActionParseError(f"an action is text like 'play 7h', not {type(text).__name__}")
        tokens = text.split()
        if not tokens:
            raise ActionParseError("empty action text; expected e.g. 'play 7h', 'draw' or 'pass'")
        for token in tokens:
            if not _TOKEN.match(token):
                raise ActionParseError(f"bad token {token!r} in action {text!r}")
        verb = tokens[0].lower()
        if not verb.isalpha():
            raise ActionParseError(f"an action starts with a verb, got {tokens[0]!r} in {text!r}")
        return cls(verb, tuple(tokens[1:]))

    @classmethod
    def from_wire(cls, text: str) -> "Action":
        """An action text from the arena: parsed leniently, since the arena's legal list is the truth."""
        try:
            return cls.parse(text)
        except ActionParseError:
            tokens = text.split()
            return cls(tokens[0].lower() if tokens else "", tuple(tokens[1:]))

    @property
    def text(self) -> str:
        return " ".join((self.verb, *self.args)) if self.args else self.verb

    @property
    def cards(self) -> tuple[str, ...]:
        """The cards this action moves: card codes among the arguments (empty for ``draw``, ``suit h``...).

        A token ``CARD:IDENTITY`` (a wild card and what it stands for, as in
        Mose's ``meld Tc 2h:Jc Qc``) counts as its physical card ``CARD``.
        """
        found = []
        for token in self.args:
            card = token.split(":", 1)[0]
            if is_card_code(card):
                found.append(card)
        return tuple(found)

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"Action({self.text!r})"
