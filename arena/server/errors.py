"""What each protocol ``Error.Code`` does to the stream: the table the .proto's tags state.

A bot author in another language reads the tags in ``arena.proto``; this table is the same
statement in code, and ``tests/server/test_protocol_contract.py`` checks that the two agree and
that the server behaves so for every code a client can provoke.  "ends the stream": the arena
closes the stream after sending it (a refused Hello, a stream it will not read further).
"notice": the stream and the game go on.  Some codes are both, depending on when they come.
"""

from __future__ import annotations

ENDS_STREAM = "ends the stream"
NOTICE = "notice"

#: Error.Code name -> the tags it carries in arena.proto.
STREAM_EFFECT: dict[str, frozenset[str]] = {
    "UNKNOWN": frozenset({NOTICE}),
    "BAD_HELLO": frozenset({ENDS_STREAM, NOTICE}),  # ends it as the answer to a first message; a notice for a second Hello
    "AUTH_FAILED": frozenset({ENDS_STREAM}),
    "UNSUPPORTED_VERSION": frozenset({ENDS_STREAM}),
    "ILLEGAL_ACTION": frozenset({NOTICE}),
    "STALE_REQUEST": frozenset({NOTICE}),
    "MALFORMED": frozenset({NOTICE, ENDS_STREAM}),  # one unreadable message: notice; undecodable bytes or too many: ends it
    "TIMEOUT": frozenset({NOTICE}),
    "FORFEIT": frozenset({NOTICE}),
    "MESSAGE_TOO_LARGE": frozenset({ENDS_STREAM}),
    "SHUTTING_DOWN": frozenset({ENDS_STREAM}),
    "CAPACITY": frozenset({ENDS_STREAM}),
    "DUPLICATE_SESSION": frozenset({ENDS_STREAM}),
}
