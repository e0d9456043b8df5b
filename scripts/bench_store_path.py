#!/usr/bin/env python3
"""A ladder game's store path, one game at a time: client CPU, PostgreSQL server CPU and statements per game.

    python scripts/bench_store_path.py                 # 400 games a round, 3 rounds, a throwaway PostgreSQL (fsync on)
    python scripts/bench_store_path.py --games 1000 --rounds 5

What `arena serve` asks of its store for each game, in the calls its director makes (one game at a
time, so nothing is shared by a group commit; the ladder's group commits only divide these figures):

* SQLite: the start (`LadderStore.game_started_steps` through `run_together`) and the result
  (`game_ended_steps` with the rating totals);
* PostgreSQL, a host of a shared ladder: the planning round's read of the cluster (`SeatClaims.load`),
  the start on the starts' own connection with its seat claim (`SeatClaims.claim_in`), and the result
  with its replay (a 13 KB moumou-like text, zlib-packed as `PackedReplay.of` does in the ladder) and
  its seats' release (`SeatClaims.release_statements`).

Per game: the client's CPU (this thread's, `time.thread_time`: psycopg's and the store's Python, the
binding of parameters, the socket calls), the PostgreSQL server's CPU (every process of the private
cluster, from /proc), the store's statements and round trips.  Client CPU is what the ladder's server
process pays on top of SQLite's path; rounds alternate SQLite and PostgreSQL and the ratio is the
median of the rounds' (one run: a loaded machine moves both sides alike, the counts not at all).
"""

from __future__ import annotations

import argparse
import functools
import json
import random
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from arena.ladder.store import LadderStore, SeatRecord  # noqa: E402
from arena.ladder.store.ladder_store import Call  # noqa: E402
from arena.ladder.store.replays import PackedReplay  # noqa: E402
from bench_ladder import children_of, cpu_by_pid  # noqa: E402  (this folder: the ladder bench reads /proc the same way)

BOTS = [f"bot{i:03d}" for i in range(40)]


def replay_text(rng: random.Random, decisions: int = 90) -> bytes:
    """A replay-like text of about 13 KB (a moumou game's JSON lines; zlib packs it about eightfold)."""
    lines = [json.dumps({"type": "header", "format": "mau-arena-replay", "version": 1, "ruleset": "moumou",
                         "seed": rng.getrandbits(63), "players": 2})]
    ranks, suits = "789TJQKA", "cdhs"
    for n in range(decisions):
        action = {"type": "play", "card": rng.choice(ranks) + rng.choice(suits)} if rng.random() < 0.7 else {"type": "draw"}
        line = {"type": "decision", "n": n, "seat": n % 2, "action": action, "think_ms": rng.randint(0, 40)}
        if n % 16 == 0:
            line["state_hash"] = f"{rng.getrandbits(64):016x}"
        lines.append(json.dumps(line))
    lines.append(json.dumps({"type": "result", "placements": [1, 2], "reason": ""}))
    return ("\n".join(lines) + "\n").encode()


def server_cpu(pids: list[int]) -> float:
    """CPU seconds of these processes that are still alive (PostgreSQL's postmaster and its servers)."""
    return sum(cpu_by_pid(pids).values())


class Path_:
    """One backend's store path, kept open across rounds (the ladder's tables grow as they would)."""

    def __init__(self, db: str) -> None:
        self.pg = db.startswith("postgresql://")
        self.store = LadderStore.open(db, shared=self.pg)
        self.starts = self.store.sibling()
        self.claims = self.registry = None
        self.pids: list[int] = []
        self.number = 0
        self.rng = random.Random(7)
        # replay texts made beforehand (making them is not the ladder's cost); packed per game, as the ladder does
        self.texts = [replay_text(self.rng) for _ in range(32)] if self.pg else []
        if self.pg:
            from arena.ladder.store.claims import SeatClaims
            from arena.ladder.store.hosts import HostRegistry

            self.registry = HostRegistry(db, "bench", "127.0.0.1:1", concurrency=100)
            self.registry.join()
            self.beat = time.monotonic()
            self.claims = SeatClaims(self.registry)
            self.since = self.claims.now()
            self.claims.ensure_bots(BOTS)
            with self.registry.connection() as connection:
                postmaster = int(connection.execute("SELECT pg_backend_pid()").fetchone()[0])
            with open(f"/proc/{postmaster}/stat") as f:
                postmaster = int(f.read().rsplit(")", 1)[1].split()[1])
            self.pids = children_of(postmaster)

    def game(self) -> None:
        rng = self.rng
        self.number += 1
        game_id = f"g{self.number}-{uuid.uuid4().hex[:6]}"
        bots = rng.sample(BOTS, 2)
        claim = None
        if self.pg:
            if time.monotonic() - self.beat > 2.0:  # the lease renewed as `Membership.run` does
                self.registry.heartbeat()
                self.beat = time.monotonic()
            self.claims.load(self.since, BOTS)  # the planning round's read of the cluster
            claim = self.claims.claim_in(bots, {bot: 2 for bot in bots})
        start = Call(functools.partial(self.starts.game_started_steps, game_id, "moumou", {"limit": 101},
                                       rng.getrandbits(63), game_id, 0, bots, replay_path=f"/r/{game_id}.part",
                                       versions=["v1", "v1"], claim=claim), keys=frozenset(bots) if claim else frozenset())
        self.starts.run_together([start])
        if start.error is not None or not start.result:
            raise RuntimeError(f"the start of {game_id} was not recorded: {start.error or 'claim refused'}")
        order = rng.sample([1, 2], 2)
        seats = [SeatRecord(i, b, placement=p, points=0, decisions=45, think_ms=90) for i, (b, p) in
                 enumerate(zip(bots, order))]
        packed = PackedReplay.of(self.texts[self.number % len(self.texts)]) if self.pg else None
        then = self.claims.release_statements(game_id) if self.pg else ()
        end = Call(lambda: self.store.game_ended_steps(game_id, "finished", seats, replay_path=f"/r/{game_id}.jsonl",
                                                       decisions=90, replay=packed, then=then))
        self.store.run_together([end])
        if end.error is not None:
            raise end.error

    def round(self, games: int) -> dict[str, float]:
        stats0 = self.store.stats.snapshot()
        server0 = server_cpu(self.pids)
        cpu0 = time.thread_time()
        for _ in range(games):
            self.game()
        cpu = time.thread_time() - cpu0
        server = server_cpu(self.pids) - server0
        stats1 = self.store.stats.snapshot()
        return {"client_ms": 1000 * cpu / games, "server_ms": 1000 * server / games,
                "statements": (stats1["statements"] - stats0["statements"]) / games,
                "round_trips": (stats1["round_trips"] - stats0["round_trips"]) / games}

    def close(self) -> None:
        if self.registry is not None:
            self.registry.leave()
        self.store.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=400, help="games a round (default 400)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds, SQLite and PostgreSQL alternating (default 3)")
    parser.add_argument("--warm", type=int, default=50, help="games played first on each, not measured (default 50)")
    parser.add_argument("--top", type=int, default=0, metavar="N",
                        help="also print PostgreSQL's N costliest statements (pg_stat_statements, planning included)")
    args = parser.parse_args()
    if args.games < 1 or args.rounds < 1:
        parser.error("--games and --rounds must be at least 1")
    from postgres_server import find_binaries, remove, start_server

    if find_binaries()[0] is None:
        print(find_binaries()[1], file=sys.stderr)
        return 2
    settings = ("shared_preload_libraries=pg_stat_statements", "pg_stat_statements.track_planning=on",
                "pg_stat_statements.track=all") if args.top else ()
    server = start_server(fsync=True, settings=settings)
    if args.top:
        import psycopg

        with psycopg.connect(server.url, autocommit=True) as connection:
            connection.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
    rows: dict[str, list[dict[str, float]]] = {"sqlite": [], "postgresql": []}
    try:
        with tempfile.TemporaryDirectory() as folder:
            paths = {"sqlite": Path_(str(Path(folder) / "ladder.db")), "postgresql": Path_(server.url)}
            try:
                for path in paths.values():
                    path.round(args.warm)
                if args.top:
                    with paths["postgresql"].registry.connection() as connection:
                        connection.execute("SELECT pg_stat_statements_reset()")
                for n in range(args.rounds):
                    for name, path in paths.items():
                        rows[name].append(path.round(args.games))
                        print(f"round {n + 1} {name:10} " + ", ".join(f"{k} {v:.3f}" for k, v in rows[name][-1].items()),
                              file=sys.stderr, flush=True)
                if args.top:
                    with paths["postgresql"].registry.connection() as connection:
                        top = connection.execute(
                            "SELECT calls, total_plan_time + total_exec_time, left(regexp_replace(query, '\\s+', ' ', 'g'), 100) "
                            "FROM pg_stat_statements ORDER BY 2 DESC LIMIT %s", (args.top,)).fetchall()
                    games = args.games * args.rounds
                    print("PostgreSQL's costliest statements (ms a game, calls a game; the function's own statements "
                          "counted apart too):")
                    for calls, total, query in top:
                        print(f"  {total / games:7.3f} {calls / games:5.2f}  {query}")
            finally:
                for path in paths.values():
                    path.close()
    finally:
        remove(server)
    print(f"{args.games} games a round, {args.rounds} rounds, one game at a time; per game (median of the rounds):")
    print(f"{'':12} {'client ms':>10} {'server ms':>10} {'statements':>11} {'round trips':>12}")
    for name, found in rows.items():
        print(f"{name:12} " + " ".join(f"{statistics.median(r[k] for r in found):{w}.3f}" for k, w in
                                      (("client_ms", 10), ("server_ms", 10), ("statements", 11), ("round_trips", 12))))
    ratio = statistics.median(p["client_ms"] / s["client_ms"] for p, s in zip(rows["postgresql"], rows["sqlite"]))
    print(f"client CPU a game, PostgreSQL / SQLite: {ratio:.2f} (pairs: "
          + ", ".join(f"{p['client_ms'] / s['client_ms']:.2f}" for p, s in zip(rows["postgresql"], rows["sqlite"])) + ")")
    return 0


if __name__ == "__main__":
    sys.exit(main())
