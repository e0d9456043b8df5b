"""What each host of a shared ladder plays by, and how a starting host compares it with the live hosts'.

Every host records its settings in its ``hosts`` row (``settings``, JSON, schema step 13) when it joins.
Results from every host go into one rating, so the settings that decide how a game is played must be
the same on all of them, or a bot's rating depends on which host seated it:

* **refused** (`arena serve` exits with one line naming the setting and the host, unless
  ``--allow-mixed-settings``): the time control (``move_ms``, ``bank_ms``, ``increment_ms``,
  ``first_move_ms``, ``max_strikes``), and for a ruleset both hosts schedule, its options and its table size;
* **warned** (logged, the host starts): the lease (``--host-lease``: a host is judged dead by its own lease,
  and a mismatch only makes one host's death noticed later), ``--host-hold``, and which rulesets a host
  schedules (a ruleset on one host only is rated from that host's games alone, which is fair, but its bots
  get fewer games: usually a mistake).

A live host of an older release has no settings recorded (NULL) and is not compared.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Mapping

TIME_CONTROL = ("move_ms", "bank_ms", "increment_ms", "first_move_ms", "max_strikes")
FLAG = {"move_ms": "--move-ms", "bank_ms": "--bank-ms", "increment_ms": "--increment-ms",
        "first_move_ms": "--first-move-ms", "max_strikes": "--max-strikes", "lease_s": "--host-lease",
        "hold_s": "--host-hold"}


@dataclass(frozen=True)
class HostSettings:
    """One host's settings as recorded: ``time_control`` by field, ``rulesets`` name -> (players, options)."""

    time_control: Mapping[str, int]
    rulesets: Mapping[str, tuple[int, Mapping[str, Any]]] = field(default_factory=dict)
    lease_s: float = 10.0
    hold_s: float = 2.0

    def to_json(self) -> str:
        return json.dumps({
            "time_control": dict(self.time_control),
            "rulesets": {name: {"players": players, "options": dict(options)}
                         for name, (players, options) in sorted(self.rulesets.items())},
            "lease_s": self.lease_s, "hold_s": self.hold_s,
        }, sort_keys=True, default=str)

    @classmethod
    def from_json(cls, text: str) -> "HostSettings":
        data = json.loads(text)
        return cls(time_control=data.get("time_control", {}),
                   rulesets={name: (r.get("players"), r.get("options", {})) for name, r in data.get("rulesets", {}).items()},
                   lease_s=data.get("lease_s"), hold_s=data.get("hold_s"))


def _shown(options: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in sorted(options.items())) or "defaults"


def compare(mine: HostSettings, theirs: HostSettings, host: str) -> tuple[list[str], list[str]]:
    """(refusals, warnings): one line each, naming the setting, both values and the other host."""
    refusals: list[str] = []
    warnings: list[str] = []
    for key in TIME_CONTROL:
        if mine.time_control.get(key) != theirs.time_control.get(key):
            refusals.append(f"{FLAG[key]} {mine.time_control.get(key)} here, {theirs.time_control.get(key)} on live host "
                            f"{host}")
    for name in sorted(set(mine.rulesets) & set(theirs.rulesets)):
        (my_players, my_options), (their_players, their_options) = mine.rulesets[name], theirs.rulesets[name]
        if my_players != their_players:
            refusals.append(f"--players {name}={my_players} here, {their_players} on live host {host}")
        if json.loads(json.dumps(dict(my_options), default=str)) != json.loads(json.dumps(dict(their_options), default=str)):
            refusals.append(f"{name} options ({_shown(my_options)}) here, ({_shown(their_options)}) on live host {host}")
    for key in ("lease_s", "hold_s"):
        if getattr(mine, key) != getattr(theirs, key):
            warnings.append(f"{FLAG[key]} {getattr(mine, key):g} here, {getattr(theirs, key)} on live host {host}")
    if set(mine.rulesets) != set(theirs.rulesets):
        only_here = sorted(set(mine.rulesets) - set(theirs.rulesets))
        only_there = sorted(set(theirs.rulesets) - set(mine.rulesets))
        warnings.append(f"--game differs from live host {host}: only here {', '.join(only_here) or 'none'}; "
                        f"only there {', '.join(only_there) or 'none'}")
    return refusals, warnings


__all__ = ["HostSettings", "compare"]
