"""`arena bots add|rotate|list`: no silent take-over of a name, rotation, escaped output, JSON."""

from __future__ import annotations

import json

from arena.ladder.auth import LadderAuthenticator
from arena.ladder.store import LadderStore


def token_of(out: str) -> str:
    return out.splitlines()[1].strip()


def test_add_refuses_a_registered_name_and_rotate_replaces_its_token(tmp_path, arena_here):
    db = tmp_path / "a.db"
    first = arena_here("bots", "add", "greedy", "--db", db)
    assert first.status == 0, first.err
    old = token_of(first.out)
    again = arena_here("bots", "add", "greedy", "--db", db)
    assert again.status == 2
    assert again.err.count("\n") == 1 and "Traceback" not in again.err
    assert "already registered" in again.err and "arena bots rotate greedy" in again.err
    store = LadderStore.open(db, recover=False)
    auth = LadderAuthenticator(store, open_registration=False)
    assert auth("greedy", old, "peer") is None  # the refused add changed nothing
    rotated = arena_here("bots", "rotate", "greedy", "--db", db)
    assert rotated.status == 0, rotated.err
    assert "old token stops working" in rotated.out
    new = token_of(rotated.out)
    assert new != old
    # the same authenticator (a running server) remembered the old token: it must refuse it now
    assert "wrong token" in auth("greedy", old, "peer")
    assert auth("greedy", new, "peer") is None


def test_add_claims_an_open_registration_name_and_rotate_refuses_it(tmp_path, arena_here):
    db = tmp_path / "o.db"
    store = LadderStore.open(db, recover=False)
    store.touch_bot("walkin", "v1")  # connected once with open registration
    rotate = arena_here("bots", "rotate", "walkin", "--db", db)
    assert rotate.status == 2 and "open registration" in rotate.err and "arena bots add walkin" in rotate.err
    assert arena_here("bots", "rotate", "nobody", "--db", db).status == 2
    claimed = arena_here("bots", "add", "walkin", "--db", db)
    assert claimed.status == 0 and "open registration" in claimed.out
    token = token_of(claimed.out)
    closed = LadderAuthenticator(store, open_registration=True)
    assert "--token" in closed("walkin", "", "peer")  # open registration no longer admits it without the token
    assert closed("walkin", token, "peer") is None


def test_list_escapes_what_a_bot_sent_and_prints_json(tmp_path, arena_here):
    db = tmp_path / "l.db"
    LadderStore.open(db, recover=False).touch_bot("sneaky", "v1\x1b[2J\x9b31m[bold]x")
    shown = arena_here("bots", "list", "--db", db)
    assert shown.status == 0, shown.err
    assert "\x1b" not in shown.out and "\x9b" not in shown.out
    assert "v1\\x1b[2J\\x9b31m[bold]x" in shown.out  # visible, and rich markup left literal
    listed = arena_here("bots", "list", "--db", db, "--json")
    assert listed.status == 0 and "\x1b" not in listed.out
    bots = json.loads(listed.out)
    assert bots[0]["name"] == "sneaky" and bots[0]["version"] == "v1\x1b[2J\x9b31m[bold]x"
    assert bots[0]["registered"] is False


def test_a_database_that_cannot_be_written_is_a_runtime_failure_in_one_line(tmp_path, arena_here):
    (tmp_path / "plain-file").write_text("not a folder")
    failed = arena_here("bots", "add", "b", "--db", tmp_path / "plain-file" / "arena.db")  # unwritable, even for root
    assert failed.status == 1, failed
    db = tmp_path / "plain-file" / "arena.db"
    assert failed.err == f"arena: error: {db}: {db.parent} is a file, not a folder\n"


def test_owners_are_set_checked_listed_and_reach_the_ladder_at_each_login(tmp_path, arena_here):
    db = tmp_path / "w.db"
    added = arena_here("bots", "add", "ann-1", "--owner", "ann", "--db", db)
    assert added.status == 0 and "owner ann" in added.out, added.err
    token = token_of(added.out)
    store = LadderStore.open(db, recover=False)
    auth = LadderAuthenticator(store, open_registration=True)
    assert auth("ann-1", token, "peer") is None and auth.owners == {"ann-1": "ann"}
    # Changed while "connected": the ladder sees the new owner from the bot's next login on.
    assert arena_here("bots", "owner", "ann-1", "bea", "--db", db).status == 0
    assert auth.owners == {"ann-1": "ann"}
    assert auth("ann-1", token, "peer") is None and auth.owners == {"ann-1": "bea"}
    cleared = arena_here("bots", "owner", "ann-1", "--none", "--db", db)
    assert cleared.status == 0 and "no owner" in cleared.out
    assert auth("ann-1", token, "peer") is None and auth.owners == {}
    # A refused login changes nothing; an open-registration name has no owner and cannot be given one.
    assert arena_here("bots", "owner", "ann-1", "ann", "--db", db).status == 0
    assert auth("ann-1", "wrong", "peer") and auth.owners == {}
    store.touch_bot("walkin")
    assert auth("walkin", "", "peer") is None and "walkin" not in auth.owners
    refused = arena_here("bots", "owner", "walkin", "ann", "--db", db)
    assert refused.status == 2 and "open registration" in refused.err and "arena bots add walkin --owner" in refused.err
    for args in (("owner", "nobody", "ann"), ("owner", "ann-1", "not a name"), ("owner", "ann-1"),
                 ("add", "bo", "--owner", "\x1b[2J")):
        bad = arena_here("bots", *args, "--db", db)
        assert bad.status == 2 and bad.err.count("\n") <= 2 and "Traceback" not in bad.err, (args, bad.err)
        assert "\x1b" not in bad.err
    assert {bot["name"]: bot["owner"] for bot in store.list_bots()} == {"ann-1": "ann", "walkin": None}
    listed = json.loads(arena_here("bots", "list", "--json", "--db", db).out)
    assert {bot["name"]: bot["owner"] for bot in listed} == {"ann-1": "ann", "walkin": None}
    shown = arena_here("bots", "list", "--db", db)
    assert "owner" in shown.out and "ann" in shown.out
