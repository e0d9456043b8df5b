"""The canonical JSON of a position: what `GameState.state_hash` digests.

The definition is ``json.dumps(position, sort_keys=True, separators=(",", ":"))``
(ASCII-escaped), as replays have always been hashed.  The ladder hashes the
position after every decision, and the standard library's encoder took about
as much CPU as the rest of a decision's replay line together; msgspec's
encoder writes the same bytes about six times faster for what positions
hold: strings, whole numbers, booleans, None, lists and string-keyed dicts.
Output that is not plain ASCII (the standard encoder escapes it) and values
msgspec cannot encode (non-string keys) go the standard library's way.  No
engine's position holds a float (msgspec writes ``1e16`` where the standard
library writes ``1e+16``): one that did would still hash the same for the
writer and the verifier, msgspec being a dependency, but not as before.
``tests/games/test_canonical.py`` plays every ruleset and checks the two agree
on every position.
"""

from __future__ import annotations

import json
from typing import Any

try:
    import msgspec

    _encode = msgspec.json.Encoder(order="sorted").encode
except ImportError:  # pragma: no cover - msgspec is a dependency; the standard library is the definition
    _encode = None


def standard_json(position: Any) -> bytes:
    """The definition: the standard library's sorted, compact, ASCII-escaped JSON."""
    return json.dumps(position, sort_keys=True, separators=(",", ":")).encode()


def canonical_json(position: Any) -> bytes:
    """Exactly `standard_json(position)`, faster for the values positions hold."""
    if _encode is not None:
        try:
            text = _encode(position)
        except (TypeError, ValueError, OverflowError):
            return standard_json(position)
        if text.isascii():
            return text
    return standard_json(position)
