"""`Owners`: the bot -> owner mapping the logins write and the scheduler reads, with each bot's kin."""

from __future__ import annotations

from arena.ladder.owners import Owners


def test_kin_follows_every_change_of_owner():
    owners = Owners({"a1": "ann", "a2": "ann", "b": "bea"})
    assert owners == {"a1": "ann", "a2": "ann", "b": "bea"} and len(owners) == 3
    assert owners.kin("a1") == owners.kin("a2") == {"a1", "a2"} and owners.kin("b") == {"b"}
    assert owners.kin("nobody") == frozenset()
    held = owners.kin("a1")
    owners.set("a2", "bea")  # moved: both owners' kin change; a set read before stays as it was
    assert owners.kin("a1") == {"a1"} and owners.kin("b") == owners.kin("a2") == {"a2", "b"}
    assert held == {"a1", "a2"}
    owners.set("a1", None)  # cleared: its owner had no other bot left
    assert "a1" not in owners and owners.kin("a1") == frozenset() and owners == {"a2": "bea", "b": "bea"}
    owners.set("b", "")
    owners.set("a2", "bea")  # unchanged
    assert owners == {"a2": "bea"} and owners.kin("a2") == {"a2"}
