"""`LadderSettings`: what a ladder is told to do, in one value that `arena serve` (or a test) builds.

Which rulesets it schedules and at what table size, the clock of its games, how many games run at once
and per bot, when it stops (``max_games``, ``duration_s``, then ``drain_s`` for the running games), and
the pace of its background work (rating fits, last-seen notes, snapshots).  Kept apart from the
machinery that follows them (`arena.ladder.director`, which re-exports it), so the knobs read in one
place.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.match.timecontrol import TimeControl


@dataclass
class LadderSettings:
    """A ladder's rulesets, clock, limits and paces, as `LadderDirector` is given them."""

    players: dict[str, int]  # ruleset -> table size, for every ruleset the ladder schedules
    time_control: TimeControl = field(default_factory=TimeControl)
    #: Replay files of ladder games written before replays went into the database, and `.part` files an
    #: older version left: closed by `arena.ladder.recovery`, still read by `arena replay` and the web view.
    #: New games' replays are in the database only (committed with the result).
    replays: Path = Path("replays")
    concurrency: int = 8  # games at once
    max_games_per_bot: int = 64
    max_games: int | None = None  # stop after this many finished games
    duration_s: float | None = None  # stop scheduling after this long
    drain_s: float = 10.0
    options: dict[str, dict[str, Any]] = field(default_factory=dict)  # ruleset -> options
    max_lead: int = 2
    refit_s: float = 1.0  # the least time between two rating fits
    #: While nobody reads the standings (the dashboard, the web view, GetStandings: each read fits what is
    #: new, `StandingsBook`), the background fit runs only this often, for the scheduler's tie-break and
    #: the snapshots; a read brings them up to date at once.  A host of a shared PostgreSQL ladder does the
    #: same from the rows of the fit's totals it reads every `refit_s` (`LadderFits.take_changes`, arena/ladder/fits.py); a
    #: ladder whose input is read whole from the store (after a commit that raised) fits every `refit_s`.
    unread_refit_s: float = 10.0
    #: A read fits on the reading thread (the server's loop) only when the ruleset's last fit cost at most
    #: this much CPU; a costlier one is left to the background fit, at its usual pace (`refit_share`).
    read_fit_budget_s: float = 0.05
    #: The share of one core the rating fits may take: a fit that cost C CPU seconds waits C / refit_share
    #: before the next (at 200 bots a fit is some 50 ms; fitted every second it cost the games a tenth).
    refit_share: float = 0.02
    #: Replay lines carry the state hash on every this many decisions and on the last one
    #: (`ReplayBuffer`'s hash_every): hashing every position was the largest cost left in a
    #: ladder replay; a divergence is still found, within that many decisions (arena/replay/README.md).
    replay_hash_every: int = 16
    #: How long a finished game's result is retried while the database is away before the game is aborted.
    result_retry_s: float = 300.0
    #: After a wake-up (a game ended, a bot came or went) the scheduler waits this long before planning,
    #: so the wake-ups of one burst cost one round over every connected bot (a game's end alone wakes it
    #: two or three times); a freed seat waits that much longer for its next game.
    plan_batch_s: float = 0.01
    snapshot_s: float = 60.0
    #: How often the bots connected here are noted as seen (`LadderStore.note_seen`): a bot's "last seen" is
    #: its arrival, then at most this old while it stays (its games' ends included), then its departure.  One
    #: statement a period for all of them, instead of a write per game (arena/ladder/README.md, "Store").
    seen_s: float = 60.0
    handle_signals: bool = True
    #: Several hosts on one PostgreSQL database (arena.ladder.membership); None: this process alone.
    cluster: Any = None
