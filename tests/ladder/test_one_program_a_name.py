"""One bot name, one program, across the hosts of a shared ladder: two real `arena serve` hosts on one PostgreSQL.

What an operator found: the same name and token said Hello to host A from one program and to host B from another
(two versions of a bot, say), and both were welcomed and seated, each on its host: two programs played for one
name's rating, their games counted as one bot's in the cluster's seat claims.  A host refused a second connection
of a name only within itself.  Now a Hello is refused (DUPLICATE_SESSION, naming the host that has the name) while
another live host has the name connected from another client instance (``Hello.instance``: the SDK's, one per
process, the same in its Hello to every host), and the name is free again as soon as that program's sessions have
ended, or its host is dead.  The same program on every host (what the SDK does) is welcome; a client that gives no
instance cannot be told from another program, so its name lives on one host at a time.  Every wait is a bounded poll.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest
from raw_bot import RawBot
from test_cluster import BOT, ROOT, rows, start_host, stop_all
from test_serve_e2e import poll

from arena.ladder.store import LadderStore

pytest.importorskip("psycopg", reason="the PostgreSQL backend needs psycopg 3 (pip install -e '.[test]')")

TOKEN = "twin-token-0123456789"
ONE, TWO, THREE = "program-one-5d1c2a", "program-two-9e7b40", "program-three-1f0c"


def hello(port: int, instance: str = "", name: str = "twin") -> RawBot:
    return RawBot(port, name, TOKEN, instance)


def admitted_once_free(port: int, instance: str, what: str, timeout: float = 30) -> RawBot:
    """Say Hello until it is welcomed (each refusal ends its stream); the session."""
    def attempt():
        bot = hello(port, instance)
        if bot.welcomed:
            return bot
        bot.close()
        return None

    return poll(attempt, timeout, what)


def refused(bot: RawBot) -> str:
    """The refusal's text, once checked to be the duplicate-name one (and its stream closed)."""
    code, text = bot.refusal
    bot.close()
    assert code == "DUPLICATE_SESSION", (code, text)
    return text


def test_a_bot_name_is_played_by_one_program_at_a_time_across_the_hosts(tmp_path, postgres_db):
    store = LadderStore.open(postgres_db, shared=True)
    assert store.register_bot("twin", TOKEN)
    store.close()
    hosts: dict = {}
    opponents: list[subprocess.Popen] = []
    sessions: list[RawBot] = []
    try:
        for name in "AB":
            hosts[name] = start_host(tmp_path, name, postgres_db)
        a, b = hosts["A"].port, hosts["B"].port
        where_a, where_b = f"host A (127.0.0.1:{a})", f"host B (127.0.0.1:{b})"
        # Program one on host A.  Program two under the same name and token on host B: refused, told where the name is.
        sessions.append(one_a := hello(a, ONE))
        assert one_a.welcomed, one_a.refusal
        text = refused(hello(b, TWO))
        assert f"bot 'twin' is connected to {where_a} of this ladder from another program" in text, text
        # Program one's own session on host B (the SDK opens one to every host): welcome.
        sessions.append(one_b := hello(b, ONE))
        assert one_b.welcomed, one_b.refusal
        # The rule within one host, as before: a second connection of a connected name is refused there.
        assert "is already connected (since" in refused(hello(a, TWO))
        # An SDK bot (a client instance of its own, sent to every host) is welcome on both hosts, as before, and plays
        # program one there.
        opponents.append(subprocess.Popen(
            [sys.executable, str(BOT), "--arena", f"127.0.0.1:{a}", "--name", "opp", "--parallel", "2"],
            stdout=open(tmp_path / "opp.log", "wb"), stderr=subprocess.STDOUT, cwd=str(ROOT),
            env={**os.environ, "THINK_MS": "5"}))
        poll(lambda: rows(postgres_db, "SELECT COUNT(DISTINCT host), COUNT(DISTINCT instance) FROM bot_hosts "
                                       "WHERE bot = 'opp'") == [(2, 1)], 30, "the SDK bot on both hosts, as one instance")
        poll(lambda: one_a.games or one_b.games, 60, "program one to be seated")

        # Program one stops: its sessions end, and the name is free for program two at once.
        for session in (one_a, one_b):
            session.close()
        sessions.append(two_b := admitted_once_free(b, TWO, "program two, once program one's sessions ended"))
        # A client that gives no instance is a program of its own: not beside program two...
        assert f"connected to {where_b}" in refused(hello(a))
        two_b.close()
        sessions.append(plain := admitted_once_free(a, "", "a client without an instance, once program two left"))
        # ...and, as nobody can tell its sessions from another program's, on one host at a time.
        assert f"connected to {where_a}" in refused(hello(b))
        plain.close()
        sessions.append(admitted_once_free(b, TWO, "program two again"))

        # Its host dies (kill -9): the name is free once the host is dead (its lease run out, its lock gone).
        assert f"connected to {where_b}" in refused(hello(a, THREE))
        hosts["B"].process.send_signal(signal.SIGKILL)
        hosts["B"].process.wait(10)
        sessions.append(three_a := admitted_once_free(a, THREE, "program three, once host B is dead"))
        assert rows(postgres_db, "SELECT bot, host, instance FROM bot_hosts WHERE bot = 'twin' "
                                 "AND host = 'A'") == [("twin", "A", THREE)]
        three_a.close()
        poll(lambda: not rows(postgres_db, "SELECT 1 FROM bot_hosts WHERE bot = 'twin' AND host = 'A'"), 10,
             "host A to drop the name once its last session ended")
    finally:
        for session in sessions:
            session.close()
        stop_all(hosts.values(), opponents)
