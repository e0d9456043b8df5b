"""Every host's web view shows the whole shared ladder, whatever its own ``--game`` list.

The operator's report: two hosts with different ``--game`` lists on one PostgreSQL, and host B's
`/api/v1/rulesets` left out ``mose`` (host A's), while `/api/v1/standings/mose` answered an empty table
although the ladder had hundreds of mose games.  docs/deploy.md promises the standings "the same from any
host".  Here host B is a real `arena serve --game maumau --web` process on a real PostgreSQL whose history
holds mose games, and whose other host (``hostA``, its rows as its join and seat claims leave them) is
playing moumou right now.
"""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.request

import pytest

pytest.importorskip("uvicorn", reason="the web view needs uvicorn (pip install -e '.[test]')")
psycopg = pytest.importorskip("psycopg", reason="the PostgreSQL backend needs psycopg 3 (pip install -e '.[test]')")

from arena.ladder.standings import compute_standings  # noqa: E402
from arena.ladder.store import LadderStore  # noqa: E402
from arena.web import WebSource  # noqa: E402
from tests.terminal_signals import sigint_as_at_a_terminal  # noqa: E402

from .test_web_api import SEED, play  # noqa: E402
from .test_web_live import Lines  # noqa: E402
from .web_process import stop  # noqa: E402

MOSE_BOTS = ["ann", "bob", "cid"]
MOSE_GAMES = 4
HOST_A = "127.0.0.1:34061"


def ladder_with_another_host(url: str, tmp_path) -> None:
    """Finished mose games (none of them B's ruleset), one finished maumau game, and a moumou game that the live
    host ``hostA`` runs now, with the rows its join and seat claims leave (arena/ladder/store/hosts.py)."""
    store = LadderStore.open(url, shared=True)
    for n in range(MOSE_GAMES):
        play(store, tmp_path / "replays", f"mose-{n}", "mose", MOSE_BOTS[n % 3:] + MOSE_BOTS[:n % 3], SEED + n)
    play(store, tmp_path / "replays", "mau-0", "maumau", ["ann", "bob"], SEED + 50)
    store.game_started("run-a", "moumou", {}, SEED + 99, "run-a", 0, ["ann", "bob"])
    store.close()
    with psycopg.connect(url, autocommit=True) as db:
        db.execute("INSERT INTO hosts (name, address, lock_key, concurrency, started_at, lease_until, state) "
                   "VALUES ('hostA', %s, 4242, 8, 0, 1e12, 'live')", (HOST_A,))
        for seat, bot in enumerate(["ann", "bob"]):
            db.execute("INSERT INTO seat_claims (game_id, seat, bot, ruleset, host, cap, busy, claimed_at) "
                       "VALUES ('run-a', %s, %s, 'moumou', 'hostA', 1, 1, 0)", (seat, bot))


def get(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=30) as response:
        return json.load(response)


def serve_host_b(url: str, tmp_path) -> tuple[subprocess.Popen, str]:
    """`arena serve --game maumau --web` as host ``hostB`` of the shared ladder; its web view's URL."""
    server = subprocess.Popen(
        [sys.executable, "-m", "arena", "serve", "--port", "0", "--web", "127.0.0.1:0", "--game", "maumau", "--plain",
         "--summary-every", "3600", "--db", url, "--host-name", "hostB", "--replays", str(tmp_path / "replays-b"),
         "--drain", "0"],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True,
        preexec_fn=sigint_as_at_a_terminal)
    try:
        lines = Lines(server)
        web = lines.until(r"web view on (http://\S+)").group(1)
        if not any("joined the ladder as host hostB" in line for line in lines.seen):
            lines.until(r"joined the ladder as host hostB")
    except BaseException:
        stop(server)
        raise
    return server, web.rstrip("/") + "/"


def test_a_hosts_web_view_lists_and_ranks_the_rulesets_other_hosts_play(postgres_db, tmp_path):
    ladder_with_another_host(postgres_db, tmp_path)
    store = LadderStore.open(postgres_db, recover=False)
    try:
        expected = [(row.bot, round(row.rating, 1), row.games) for row in compute_standings(store, "mose")]
    finally:
        store.close()
    assert len(expected) == 3 and sum(games for *_, games in expected) == 3 * MOSE_GAMES
    server, web = serve_host_b(postgres_db, tmp_path)
    try:
        # Its own ruleset first, then what the ladder has played (mose: most games first), then what the other
        # live host is playing now (moumou: no finished game yet).
        names = [row["name"] for row in get(f"{web}api/v1/rulesets")["rulesets"]]
        assert names == ["maumau", "mose", "moumou"], names
        # mose's standings come from the shared data: the same fit `arena leaderboard --db` makes.
        mose = get(f"{web}api/v1/standings/mose")
        assert [(row["bot"], row["rating"], row["games"]) for row in mose["standings"]] == expected
        assert get(f"{web}api/v1/standings/moumou")["standings"] == []  # nothing finished yet: an empty table
        # its own ruleset still comes from the ladder's own standings (the director's)
        assert [row["bot"] for row in get(f"{web}api/v1/standings/maumau")["standings"]] != []
    finally:
        stop(server)
    # `arena web --db` (no ladder beside it) lists the same ladder: played, most games first, then in play.
    source = WebSource(postgres_db)
    try:
        assert [row["name"] for row in source.rulesets()] == ["mose", "maumau", "moumou"]
    finally:
        source.close()
