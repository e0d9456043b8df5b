"""The one form of every time the web API answers: ISO 8601 in UTC, to the millisecond, with ``Z``.

The ladder's rows keep ``2026-11-29T20:36:26.487+00:00`` and a live game's summary
``2026-11-29T20:36:26Z``; a reader should not have to parse both, nor sort a mix of them as text.
Both become ``2026-11-29T20:36:26.487Z`` (``.000`` where only seconds are known).
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Optional


def api_time(text: Optional[str]) -> Optional[str]:
    """``text`` (any ISO 8601 time the ladder or the server wrote) in the API's form; None stays None, and
    a text that is not a time is passed on as it is (a row written by hand is still shown)."""
    if not text:
        return text
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return text
    if moment.tzinfo is None:  # the ladder writes UTC
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
