"""`NameHolds`, one host's side of one program per bot name, against a recording stand-in for its database rows: what
each Hello and each ended stream write, in which order, and what a failed write leaves to do.  The real rows on a real
PostgreSQL with real hosts: test_one_program_a_name.py."""

from __future__ import annotations

import pytest

from arena.ladder import name_holds
from arena.ladder.name_holds import NameHolds
from arena.ladder.store.bot_hosts import Holder


class Rows:
    """`BotHosts` as the holds see it: the rows this host wrote ({bot: instance}), and every call made."""

    def __init__(self) -> None:
        self.rows: dict[str, str] = {}
        self.calls: list[tuple] = []
        self.elsewhere: dict[str, Holder] = {}  # bot -> another live host that has it from another program
        self.failing = False

    def claim(self, bot: str, instance: str, write: bool = True) -> Holder | None:
        self.calls.append(("claim", bot, instance, write))
        if bot in self.elsewhere:
            return self.elsewhere[bot]
        if write:
            self.rows[bot] = instance
        return None

    def put(self, bot: str, instance: str) -> None:
        self.calls.append(("put", bot, instance))
        if self.failing:
            raise ConnectionError("the database is away")
        self.rows[bot] = instance

    def drop(self, bot: str) -> None:
        self.calls.append(("drop", bot))
        if self.failing:
            raise ConnectionError("the database is away")
        self.rows.pop(bot, None)


@pytest.fixture
def holds():
    found = NameHolds()
    found.attach(Rows())
    return found


def test_one_programs_streams_hold_the_name_and_its_row_goes_with_the_last(holds):
    rows = holds.rows
    first, refusal = holds.claim("twin", "program-one")
    assert refusal is None and rows.rows == {"twin": "program-one"}
    # the same program's next stream here (a resume, a new stream before the old one's end was seen): no database call
    second, _ = holds.claim("twin", "program-one")
    assert rows.calls == [("claim", "twin", "program-one", True)]
    holds.release("twin", first)
    assert rows.rows == {"twin": "program-one"} and holds.held() == {"twin": "program-one"}
    holds.release("twin", second)
    holds.release("twin", second)  # (a second release of one ticket changes nothing)
    assert rows.rows == {} and holds.held() == {}
    assert rows.calls[-1] == ("drop", "twin")


def test_another_program_is_refused_with_the_other_host_and_holds_nothing(holds):
    holds.rows.elsewhere["twin"] = Holder("A", "a.example:50051", "2026-11-30T05:00:00.000+00:00")
    ticket, refusal = holds.claim("twin", "program-two")
    assert ticket is None and holds.held() == {} and holds.rows.rows == {}
    assert refusal == ("bot 'twin' is connected to host A (a.example:50051) of this ladder from another program "
                       "(since 2026-11-30T05:00:00.000+00:00); one program per name across the ladder's hosts: stop "
                       "the other one first, or give this one another name")


def test_a_second_program_here_is_checked_but_never_overwrites_the_first_ones_row(holds):
    rows = holds.rows
    first, _ = holds.claim("twin", "program-one")
    second, refusal = holds.claim("twin", "program-two")  # checked against the other hosts, row untouched
    assert refusal is None and rows.calls[-1] == ("claim", "twin", "program-two", False)
    assert rows.rows == {"twin": "program-one"}
    holds.release("twin", second)  # the hub refused it (program one is connected here): nothing changes
    assert rows.rows == {"twin": "program-one"}
    # Program one's stream ended just before program two's Hello was admitted: the row follows program two.
    again, _ = holds.claim("twin", "program-two")
    holds.release("twin", first)
    assert rows.rows == {"twin": "program-two"} and holds.held() == {"twin": "program-two"}
    # A client without an instance is never taken for one already here.
    assert holds.claim("twin", "")[1] is None and rows.calls[-1] == ("claim", "twin", "", False)


def test_a_write_that_fails_is_made_at_the_next_sync_and_rewrite_writes_every_held_name(holds):
    rows = holds.rows
    ticket, _ = holds.claim("gone", "program-one")
    holds.claim("stays", "program-two")
    rows.failing = True
    holds.release("gone", ticket)  # its drop fails: the row says it is still here, which refuses, never admits
    assert rows.rows == {"gone": "program-one", "stays": "program-two"}
    rows.failing = False
    holds.sync()  # (each heartbeat)
    assert rows.rows == {"stays": "program-two"}
    rows.rows.clear()  # as the next host to join clears the rows of a host taken for dead
    holds.rewrite()
    assert rows.rows == {"stays": "program-two"}


def test_a_hello_before_the_host_joined_waits_for_it_then_gives_up(monkeypatch):
    monkeypatch.setattr(name_holds, "JOIN_WAIT_S", 0.01)
    with pytest.raises(RuntimeError, match="not joined its ladder yet"):
        NameHolds().claim("twin", "program-one")
