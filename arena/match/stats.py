"""A match's running tally: the score table, the pentanomial pairs and the Elo estimate."""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

from arena.ladder.elo import EloEstimate, elo_from_pairs, elo_from_wdl, pair_bucket
from arena.match.outcome import GameOutcome
from arena.match.plan import PlannedGame


@dataclass
class BotLine:
    """One row of the score table."""

    name: str
    games: int = 0
    firsts: int = 0
    wins: int = 0      # pairwise: against each other seat of the same game, by placement
    draws: int = 0
    losses: int = 0
    placements: int = 0
    points: int = 0
    strikes: int = 0
    timeouts: int = 0
    forfeits: int = 0
    think_ms: int = 0
    decisions: int = 0
    crashes: int = 0   # times its process died and was restarted (arena match --recover)
    hangs: int = 0     # times its process hung (alive, answering nothing), was stopped and restarted (--recover)
    errors: int = 0    # decisions where its own code failed and its SDK answered a fallback (Answer.bot_error)

    @property
    def ms_per_decision(self) -> float:
        return self.think_ms / self.decisions if self.decisions else 0.0

    @property
    def score(self) -> float:
        played = self.wins + self.draws + self.losses
        return (self.wins + self.draws / 2) / played if played else 0.0

    @property
    def average_place(self) -> float:
        return self.placements / self.games if self.games else 0.0


@dataclass
class MatchStats:
    """Everything the progress line and the final table show; fed one `GameOutcome` at a time."""

    names: list[str]
    lines: dict[str, BotLine] = field(default_factory=dict)
    finished: int = 0
    aborted: int = 0
    #: Two bots: the first bot's score in each game of a set, to form pairs.
    set_scores: dict[int, list[float]] = field(default_factory=dict)
    pairs: list[int] = field(default_factory=lambda: [0] * 5)

    def __post_init__(self) -> None:
        for name in self.names:
            self.lines.setdefault(name, BotLine(name))

    @property
    def head_to_head(self) -> bool:
        return len(self.names) == 2

    def add(self, planned: PlannedGame, outcome: GameOutcome) -> None:
        if outcome.status != "finished":
            self.aborted += 1
            return
        self.finished += 1
        seats = outcome.seats
        for seat in seats:
            line = self.lines.setdefault(seat.name, BotLine(seat.name))
            line.games += 1
            line.firsts += seat.placement == 1
            line.placements += seat.placement
            line.points += seat.points
            line.strikes += seat.strikes
            line.timeouts += seat.timeouts
            line.forfeits += seat.forfeited
            line.errors += seat.errors
            line.think_ms += seat.think_ms
            line.decisions += seat.decisions
        for a, b in itertools.combinations(seats, 2):
            first, second = self.lines[a.name], self.lines[b.name]
            if a.placement < b.placement:
                first.wins += 1
                second.losses += 1
            elif a.placement > b.placement:
                first.losses += 1
                second.wins += 1
            else:
                first.draws += 1
                second.draws += 1
        if self.head_to_head:
            mine = next(s for s in seats if s.name == self.names[0])
            other = next(s for s in seats if s.name != self.names[0])
            score = 1.0 if mine.placement < other.placement else 0.5 if mine.placement == other.placement else 0.0
            scores = self.set_scores.setdefault(planned.set_index, [])
            scores.append(score)
            if len(scores) == 2:
                self.pairs[pair_bucket(*scores)] += 1

    @property
    def first(self) -> BotLine:
        return self.lines[self.names[0]]

    def elo(self) -> EloEstimate | None:
        """The first bot's Elo advantage over the second (pairs when there are any)."""
        if not self.head_to_head:
            return None
        try:
            if sum(self.pairs):
                return elo_from_pairs(self.pairs)
            line = self.first
            return elo_from_wdl(line.wins, line.draws, line.losses)
        except ValueError:
            return None

    def summary(self) -> str:
        if self.head_to_head:
            line = self.first
            text = f"{self.names[0]} {line.wins}-{line.losses}-{line.draws}"
            estimate = self.elo()
            if estimate is not None and math.isfinite(estimate.elo) and math.isfinite(estimate.margin) and estimate.margin > 0:
                text += f"  Elo {estimate}"
            return text
        best = max(self.lines.values(), key=lambda line: line.score)
        return f"leader {best.name} {100 * best.score:.1f}%"
