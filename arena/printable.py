"""`printable`: text that came from a bot (or a file), made safe to show on a terminal.

A bot chooses its name, its version string and, through what it sends, some
of the reasons a game ends.  Printed raw, an escape sequence in any of them
would reach the operator's terminal: clear the screen, move the cursor,
rewrite earlier lines, set the window title.  Every place that shows such
text (`arena bots list`, `leaderboard`, `replays`, the live dashboard, the
match table) passes it through `printable` first, and hands it to rich as a
`rich.text.Text` (never as markup), so ``[bold]`` in a name stays literal.
"""

from __future__ import annotations

import unicodedata

#: Unicode categories never shown as themselves: controls (C0, DEL, C1), format characters
#: (bidi overrides, zero-width joiners), surrogates, private use, unassigned, line/paragraph separators.
_HIDDEN = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


def _escape(char: str) -> str:
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def printable(value: object) -> str:
    """``value`` as text with every control or invisible character written as a Python-style escape.

    >>> printable("v1\\x1b[2J")
    'v1\\\\x1b[2J'
    """
    text = "" if value is None else str(value)
    if text.isprintable():  # the usual case: nothing to do
        return text
    return "".join(_escape(c) if unicodedata.category(c) in _HIDDEN else c for c in text)
