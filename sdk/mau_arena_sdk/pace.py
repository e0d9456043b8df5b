"""Steady answer pacing: how long to hold an answer so that its timing does not tell what the bot held.

Every seat of a game sees when the others answer: a bot sees the time from its own answer to its next
turn, a spectator every seat's.  A bot that answers a forced decision (one legal action) at once and
thinks about the others tells the table which decisions were forced, and so what its hand lacked (an
instant draw: nothing fitted; an instant pass after a draw: the drawn card did not fit), which the arena
asks those decisions precisely to hide.  With pacing (`Bot.steady`, ``--steady``) the client holds each
answer until at least a *pace* has passed since its request arrived: a high quantile (`QUANTILE`) of
the think times of this bot's last `WINDOW` decisions that had a choice, kept per ruleset, table size
and decision kind (their think times differ: a Mose window's choice is quicker than a turn's, and a
4-seat Mose game asks each seat hundreds of lone passes in windows, which a turn's pace would make
minutes longer).  The kind of decision a seat faces is public, so a pace per kind hides as much: a
forced answer leaves when most chosen ones *of its kind* do; only the slowest choices (above the
quantile) still stand out, as slow ones.  A key is a tuple read from its most particular end: a kind
not yet met with a choice takes the pace of its ruleset and table size, then of all choices.

The hold never makes an answer late: it ends at the latest `TIME_SHARE` of the decision's own limit
(``TimeLeft.move_ms``, which does not count the bank) after the request arrived, and an answer that
took longer than the pace already is sent at once.  Before the first choice of any kind the pace is
`COLD_PACE_S`.

The cost is time: on average a decision takes about the pace rather than the bot's mean think time,
so games with a paced bot are slower (sdk/README.md gives a measurement).  The functions here are
pure; `Pacer` keeps the samples and reads its clock (``time.monotonic``, as the client's) through an
argument, so tests give it fixed numbers.
"""

from __future__ import annotations

import math
import time
from collections import deque
from typing import Callable, Hashable, Iterable

#: The quantile of the recent choices' think times that every answer waits for.
QUANTILE = 0.9
#: How many recent choices (per ruleset, table size and decision kind) the pace is learned from.
WINDOW = 64
#: At most this share of a decision's limit goes to holding its answer (the searcher's own guard is 0.5 too).
TIME_SHARE = 0.5
#: The pace before this process has seen any decision with a choice, in seconds.
COLD_PACE_S = 0.25


def quantile(samples: Iterable[float], q: float) -> float | None:
    """The nearest-rank ``q`` quantile of ``samples`` (the smallest sample with at least a share ``q`` of them
    at or below it); None when there are none.  ``q`` 1.0 is the maximum, 0.5 the lower median."""
    ordered = sorted(samples)
    if not ordered:
        return None
    rank = max(1, math.ceil(q * len(ordered) - 1e-9))
    return ordered[min(rank, len(ordered)) - 1]


def pace_s(own: Iterable[float], pooled: Iterable[float], q: float = QUANTILE, cold_s: float = COLD_PACE_S) -> float:
    """The pace in seconds: the ``q`` quantile of this ruleset's recent choices (``own``), else of all
    rulesets' (``pooled``), else ``cold_s``."""
    for samples in (own, pooled):
        value = quantile(samples, q)
        if value is not None:
            return value
    return cold_s


def release_at(received: float, pace: float, move_ms: int, share: float = TIME_SHARE) -> float:
    """When an answer to a request that arrived at ``received`` may leave: ``pace`` after it, but never later
    than ``share`` of the decision's limit (``move_ms``, 0: none left, so no hold at all)."""
    return received + max(0.0, min(pace, share * move_ms / 1000.0))


class Pacer:
    """The client's pacing: per key (a tuple such as (ruleset, table size, decision kind)) and per each of its
    shorter prefixes, the think times of the recent choices.

    `hold_s` is called once per answer, on the thread that computed it (calls of different games may
    overlap; each step here is a single deque or dict operation under the GIL, and a pace read while
    another game records is still a pace of recent samples).
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic, q: float = QUANTILE, window: int = WINDOW,
                 share: float = TIME_SHARE, cold_s: float = COLD_PACE_S) -> None:
        if not 0.0 < q <= 1.0:
            raise ValueError(f"the pace's quantile must be in (0, 1], not {q}")
        self.clock = clock
        self.q = q
        self.window = window
        self.share = share
        self.cold_s = cold_s
        self._own: dict[Hashable, deque] = {}
        self._pooled: deque = deque(maxlen=window)

    def pace(self, key: tuple) -> float:
        """The current pace for ``key``, in seconds: of the longest prefix of ``key`` with a choice learned (the key
        itself, then without its last part...), else of every choice, else the cold pace."""
        for level in _levels(key):
            own = self._own.get(level)
            if own:
                return pace_s(own, (), self.q, self.cold_s)
        return pace_s((), self._pooled, self.q, self.cold_s)

    def hold_s(self, key: tuple, received: float, move_ms: int, choice: bool) -> float:
        """How long from now to hold the answer to a request of ``key`` that arrived at ``received`` (0: send it
        now).  The pace is the one learned before this decision; a ``choice`` (more than one legal action)
        then adds its think time to what the next ones learn from."""
        now = self.clock()
        release = release_at(received, self.pace(key), move_ms, self.share)
        if choice:
            think = now - received
            for level in _levels(key):
                own = self._own.get(level)
                if own is None:
                    own = self._own[level] = deque(maxlen=self.window)
                own.append(think)
            self._pooled.append(think)
        return max(0.0, release - now)


def _levels(key: tuple) -> list[tuple]:
    """``key`` and its shorter prefixes, longest first: ``(r, n, d)``, ``(r, n)``, ``(r,)``."""
    return [key[:n] for n in range(len(key), 0, -1)]
