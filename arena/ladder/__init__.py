"""The local ladder: who plays whom, ratings, and the store (SQLite or PostgreSQL).

* `ratings`   live Elo per game; the Bradley-Terry fit (Elo scale, 95% intervals)
* `ranking`   the leaderboard's order: by the lower end of the 95% interval; provisional bots
* `standings` the leaderboard's rows (the fit with each bot's totals), in that order
* `scheduler` games (fresh deals) among connected bots: fewest games, least-played pairs,
              never waiting on a slow bot
* `simulation` the scheduler on a simulated clock (its tests, scripts/scheduler_fairness.py)
* `store`     bots, games, seats, rating snapshots in SQLite (WAL) or PostgreSQL; crash recovery
* `director`  the trio task `arena serve` gives the server: schedules, records, refits; its parts:
              `settings` (`LadderSettings`), `summary` (`LadderSummary`), `group_commit` (the store
              connection's calls and group commits), `start_commit` (a game's start committed before
              it is played), `result_commit` (a game's end committed with its replay), `stopping` (stop, signals, drain), `session_notes` (first and last seen),
              `history` (what it starts from), `game_lookup` (a game it does not hold, for Spectate)
* `dashboard` rich renderables for the live view and `arena leaderboard`
* `auth`      the token check the server calls for every Hello
* `recovery`  after a crash: the games it cut off (their replays were in memory: lost), and an older
              version's `.part` replay files, closed by their game's status and stored
* `loadbot`   many raw-protocol bot sessions in one process (tests, benchmarks)
* `elo`       match statistics (Elo difference with interval, SPRT) for `arena match`
"""
