"""A host replaced under its name while it was cut off, then woken up: the red team's zombie host, end to end.

Attack (the cluster red team's attacks/a2b_zombie_plays.py): on a shared PostgreSQL ladder host h1 is frozen
(SIGSTOP) while it plays and its database sessions are ended, as a network cut would; h2 sweeps it (its games
aborted, unrated); the operator starts a replacement under the name h1; the old process is let go on (SIGCONT),
its bots still connected to it.  Then the replacement is killed -9 while it plays.

Before the fix the old process, refused its lock, kept a reconnected session without it, renewed h1's lease on
it at every heartbeat ("the database is back: scheduling again"), and its bots played on it; once the
replacement was killed, h1 stayed live for as long as the old process lived, and the replacement's games stayed
running with their bots' claims open: bots with ``--parallel 1`` were locked out of the whole ladder.

Checked here, from triggers in the database and the processes' own output:

* every change of a host's lease is made by the session that holds that host's lock (never the old process's);
* the old process claims no seat after it is let go on, aborts what it still played, says that its name was
  taken over, and exits 1;
* once the replacement is killed, h2 takes h1 for dead within the usual leases: the replacement's games end
  aborted (never rated), their claims released, and every bot finishes games on h2 again.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest
from host_freeze import backends, cut_off, stop_while_running_games
from test_cluster import BOT, ROOT, report, rows, start_host, stop_all
from test_serve_e2e import RULESET, Server, poll

from arena.ladder.store import LadderStore
from arena.ladder.store.hosts import HOST_LOCK_CLASS

psycopg = pytest.importorskip("psycopg", reason="the PostgreSQL backend needs psycopg 3 (pip install -e '.[test]')")

#: Who changed a host's lease, and whether that session held the host's lock; who claimed each seat.
AUDIT = f"""
CREATE TABLE lease_audit (at DOUBLE PRECISION, name TEXT, locked BOOLEAN, app TEXT);
CREATE FUNCTION audit_lease() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.lease_until IS DISTINCT FROM OLD.lease_until THEN
        INSERT INTO lease_audit VALUES (EXTRACT(EPOCH FROM clock_timestamp()), NEW.name,
            EXISTS (SELECT 1 FROM pg_locks l WHERE l.locktype = 'advisory' AND l.granted AND l.pid = pg_backend_pid()
                    AND CAST(l.classid AS BIGINT) = {HOST_LOCK_CLASS} AND CAST(l.objid AS BIGINT) = NEW.lock_key),
            current_setting('application_name'));
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER audit_lease BEFORE UPDATE ON hosts FOR EACH ROW EXECUTE FUNCTION audit_lease();
CREATE TABLE claim_audit (game_id TEXT, host TEXT, claimed_at DOUBLE PRECISION, app TEXT);
CREATE FUNCTION audit_claim() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO claim_audit VALUES (NEW.game_id, NEW.host, NEW.claimed_at, current_setting('application_name'));
    RETURN NEW;
END $$;
CREATE TRIGGER audit_claim AFTER INSERT ON seat_claims FOR EACH ROW EXECUTE FUNCTION audit_claim();
"""


def now(url: str) -> float:
    return rows(url, "SELECT CAST(EXTRACT(EPOCH FROM clock_timestamp()) AS DOUBLE PRECISION)")[0][0]


def swept(url: str) -> set[str]:
    return {game for (game,) in rows(url, "SELECT id FROM games WHERE status = 'aborted' "
                                          "AND reason = 'host h1 died (not rated)'")}


@pytest.mark.slow  # 12 s of real hosts and bots; the fence itself is checked fast at the store by
# test_claims.py::test_a_host_replaced_while_cut_off_renews_and_claims_nothing_and_its_dead_replacement_is_swept
def test_a_replaced_host_that_wakes_up_stops_and_its_dead_replacement_is_swept(tmp_path, postgres_db):
    url = postgres_db
    servers: dict[str, Server] = {}
    bots: list[subprocess.Popen] = []
    cut: set[str] = set()
    try:
        servers["old h1"] = old = start_host(tmp_path, "h1", url, 2, folder="old")
        servers["h2"] = start_host(tmp_path, "h2", url, 2)
        with psycopg.connect(url, autocommit=True) as db:  # the schema exists now (each host migrated at start)
            db.execute(AUDIT)
        for i in range(4):  # they enter through the old h1, so they are connected to it when it wakes up
            bots.append(subprocess.Popen(
                [sys.executable, str(BOT), "--arena", f"127.0.0.1:{old.port}", "--name", f"b{i}", "--parallel", "1",
                 "--max-reconnects", "1000"],
                stdout=open(tmp_path / f"b{i}.log", "wb"), stderr=subprocess.STDOUT, cwd=str(ROOT),
                env={**os.environ, "THINK_MS": "25"}))

        # h1 frozen while it plays, its sessions ended: h2 sweeps it.
        seen = stop_while_running_games(url, "h1", old.process, 60)
        rows(url, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() "
                  "AND (application_name LIKE 'mau-arena host h1%%' OR application_name = %s)",
             f"mau-arena pid {old.process.pid}")
        poll(lambda: not backends(url, "h1", old.process.pid), 30, "the old h1's sessions to end")
        cut = cut_off(url, "h1", seen)
        assert cut, f"the games {sorted(seen)}, running when h1 was stopped, all ended before its sessions did"
        poll(lambda: swept(url) >= cut, 30, "h2 to take h1 for dead")

        # The operator's replacement under the same name; then the old process wakes up.
        servers["new h1"] = new = start_host(tmp_path, "h1", url, 2, folder="new")
        woke = now(url)
        os.kill(old.process.pid, signal.SIGCONT)
        poll(lambda: old.process.poll() is not None, 60, "the old h1 to stop by itself (it is no longer h1)")
        assert old.wait() == 1, old.rest()
        said = old.rest()
        assert "host name 'h1' was taken over by another `arena serve`" in said, said
        assert "the database is back" not in said and "Traceback" not in said, said
        assert not rows(url, "SELECT * FROM claim_audit WHERE app = %s AND claimed_at >= %s",
                        f"mau-arena pid {old.process.pid}", woke)  # it claimed nothing
        assert swept(url) >= cut and not rows(url, "SELECT id FROM games WHERE status = 'finished' AND id = ANY(%s)",
                                              sorted(cut))

        # The replacement plays, and is killed -9 while it does: h1 is dead once its lease lapses.
        seen_new = stop_while_running_games(url, "h1", new.process, 60)
        os.kill(new.process.pid, signal.SIGKILL)
        new.process.wait(10)
        poll(lambda: not backends(url, "h1", new.process.pid), 30, "the replacement's sessions to end")
        killed_at = now(url)
        cut_new = cut_off(url, "h1", seen_new)
        assert cut_new, f"the games {sorted(seen_new)} all ended before the replacement was killed"
        cut |= cut_new
        poll(lambda: swept(url) >= cut_new, 30, "h2 to take the killed replacement for dead")
        assert not rows(url, "SELECT 1 FROM seat_claims WHERE host = 'h1' AND released_at IS NULL")

        def played_since_kill() -> set[str]:
            return {bot for (bot,) in rows(url, "SELECT DISTINCT c.bot FROM seat_claims c JOIN games g ON g.id = "
                                                "c.game_id WHERE g.status = 'finished' AND c.claimed_at > %s",
                                           killed_at)}

        poll(lambda: played_since_kill() == {f"b{i}" for i in range(4)}, 60, "every bot to finish games on h2")
        # Every lease change, from the first join on, by the session holding that host's lock.
        assert not rows(url, "SELECT * FROM lease_audit WHERE NOT locked")
        assert rows(url, "SELECT 1 FROM lease_audit WHERE name = 'h1' AND at > %s", woke)  # (the replacement's)
        servers["h2"].process.send_signal(signal.SIGTERM)
        assert servers["h2"].wait(60) == 0, servers["h2"].rest()
    except AssertionError as failure:
        raise AssertionError(f"{failure}\n{report(url, servers, cut)}") from None
    finally:
        stop_all(servers.values(), bots)

    store = LadderStore.open(url, recover=False)
    try:
        assert not store.games(status="running")
        finished = store.games(status="finished")
        assert all(game.id not in cut for game in finished)  # neither h1's cut games ever rated
        assert len(store.rated_games(RULESET)) == len(finished) > 0
    finally:
        store.close()
