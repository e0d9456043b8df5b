"""All chance in the engines comes from here, keyed by (seed, counter).

A state stores its seed and how many chance events it has consumed, so a
position written with `to_position()` carries its future shuffles in two
small integers.  Seeding `random.Random` with a string is stable across
processes and Python versions (it hashes the string with SHA-512).
"""

from __future__ import annotations

import hashlib
import random
import secrets
import struct
from typing import Sequence, TypeVar

T = TypeVar("T")


def new_seed() -> int:
    """A fresh seed from the operating system's random source."""
    return secrets.randbits(63)


def generator(seed: int, counter: int) -> random.Random:
    return random.Random(f"mau-arena/{seed}/{counter}")


def shuffled(items: Sequence[T], seed: int, counter: int) -> list[T]:
    """``items`` in the order `generator(seed, counter)`'s ``shuffle`` gives them.

    Its Fisher-Yates pass written out here, drawing the same bits in the same
    order (`random.Random.shuffle` with `_randbelow`: the fewest bits that hold
    ``i + 1``, drawn again while the value is too large), so the result is the
    same list; `random`'s own pass makes two Python calls per card, a third of a
    Mose deal's instructions.
    """
    out = list(items)
    getrandbits = generator(seed, counter).getrandbits
    for i in range(len(out) - 1, 0, -1):
        n = i + 1
        bits = n.bit_length()
        j = getrandbits(bits)
        while j >= n:
            j = getrandbits(bits)
        out[i], out[j] = out[j], out[i]
    return out


def permuted(items: Sequence[T], seed: int, counter: int) -> list[T]:
    """A shuffle keyed by (seed, counter) that costs a fraction of `shuffled`.

    `shuffled` seeds a Mersenne Twister from a string and draws one bounded
    integer per card in Python; a shedding game deals every few dozen
    decisions (Moumou: every ten or so), so the deal weighs on the engine's
    speed.  Here one SHAKE-256 call yields a 32-bit word per position and a
    Fisher-Yates pass takes each word modulo the positions left (bias below
    2**-25 for any deck of up to 128 cards; 32-bit words keep the
    arithmetic on small integers, half the cost of 64-bit ones).  Stable
    across processes, platforms and Python versions.
    """
    out = list(items)
    n = len(out)
    if n < 2:
        return out
    stream = hashlib.shake_256(f"mau-arena/permuted/{seed}/{counter}".encode()).digest(4 * n)
    words = struct.unpack(f"<{n}I", stream)
    for i in range(n - 1, 0, -1):
        j = words[i] % (i + 1)
        out[i], out[j] = out[j], out[i]
    return out
