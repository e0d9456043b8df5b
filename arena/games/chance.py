"""All chance in the engines comes from here, keyed by (seed, counter).

A state stores its seed and how many chance events it has consumed, so a
position written with `to_position()` carries its future shuffles in two
small integers.  Seeding `random.Random` with a string is stable across
processes and Python versions (it hashes the string with SHA-512).
"""

from __future__ import annotations

import random
import secrets
from typing import Sequence, TypeVar

T = TypeVar("T")


def new_seed() -> int:
    """A fresh seed from the operating system's random source."""
    return secrets.randbits(63)


def generator(seed: int, counter: int) -> random.Random:
    return random.Random(f"mau-arena/{seed}/{counter}")


def shuffled(items: Sequence[T], seed: int, counter: int) -> list[T]:
    out = list(items)
    generator(seed, counter).shuffle(out)
    return out
