"""`arena bots add|rotate|owner|list|remove`: the registered bots of a ladder database.

``add`` registers a new name, or claims a name that only exists because a bot
connected under it with open registration (that bot then needs the token).
It never replaces the token of a name that already holds one: ``rotate``
does that, and says that the old token stops working.

``--owner`` (on ``add``, or later with ``owner``) names who a registered bot
belongs to: the ladder never seats two bots of one owner at one table, so an
author with several bots can neither feed one of them rating with the others
nor seat them together to share their hands.  Only registered bots can have
an owner: an open-registration name proves nothing about who runs it.
"""

from __future__ import annotations

import json

from arena.cli import CommandError, RunFailure
from arena.cli.db import add_db_argument, open_db


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "bots",
        help="register bots (tokens, owners), rotate tokens, list and remove bots",
        description="Registered bots connect with the token `arena bots add` prints; "
        "the token is stored hashed and shown only once.  `arena bots rotate NAME` replaces a lost "
        "or leaked token.  An owner (`--owner`, `arena bots owner`) keeps an author's bots apart: the "
        "ladder never seats two bots of one owner at one table.",
    )
    actions = parser.add_subparsers(dest="bots_action", metavar="ACTION")
    add = actions.add_parser(
        "add", help="register a bot and print its new token",
        description="Register NAME and print its token.  A name already registered is refused (use "
        "`arena bots rotate NAME` for a new token); a name known only from open registration is "
        "claimed: from then on it needs the token.",
    )
    add.add_argument("name")
    add.add_argument("--owner", metavar="WHO",
                     help="who the bot belongs to: the ladder never seats two bots of one owner at one table")
    rotate = actions.add_parser(
        "rotate", help="give a registered bot a new token (the old one stops working)",
        description="Replace NAME's token with a new one and print it.  The old token is refused at the "
        "next connection, also by an `arena serve` already running; a bot connected with it stays "
        "connected until it disconnects.",
    )
    rotate.add_argument("name")
    owner = actions.add_parser(
        "owner", help="set or clear who a registered bot belongs to",
        description="Set NAME's owner to WHO (or clear it with --none).  The ladder never seats two bots of "
        "one owner at one table.  A running `arena serve` applies it from the bot's next connection.",
    )
    owner.add_argument("name")
    who = owner.add_mutually_exclusive_group(required=True)
    who.add_argument("who", nargs="?", metavar="WHO", help="the owner's name (same rules as a bot name)")
    who.add_argument("--none", action="store_true", help="clear the owner: the bot belongs to no owner")
    listing = actions.add_parser(
        "list", help="list known bots",
        description="List the known bots: registered or open, owner, version, first seen and last seen (UTC): "
        "a bot connected to a running ladder is seen at least every minute, so its last seen is at most a "
        "minute old, its games included; a bot that left was last seen when it left (or within the minute "
        "before its host died).")
    listing.add_argument("--json", action="store_true", help="print a JSON list instead of the table")
    remove = actions.add_parser("remove", help="remove a bot's registration (its games stay)")
    remove.add_argument("name")
    for sub in (add, rotate, owner, listing, remove):
        add_db_argument(sub)
    parser.set_defaults(func=run, bots_parser=parser)


def _open(path: str, must_exist: bool):
    return open_db(path, must_exist="give --db, or add a bot first" if must_exist else None)


def _print_token(name: str, token: str) -> None:
    print(token)
    print(f"connect with: --name {name} --token {token}  (or set MAU_ARENA_TOKEN to keep it out of `ps`)")


def run(args) -> int:
    from arena.ladder.store import driver_errors

    if args.bots_action is None:
        args.bots_parser.print_help()
        return 2
    try:
        return _ACTIONS[args.bots_action](args)
    except driver_errors() as error:  # e.g. a read-only database file or role
        raise RunFailure(f"cannot update {args.db}: {' '.join(str(error).split())}") from None


def _checked_name(kind: str, name: str) -> str:
    from arena.server.hello import BOT_NAME

    if not BOT_NAME.fullmatch(name):
        raise CommandError(
            f"bad {kind} name {name!r}: use 1-32 letters, digits, '_', '.' or '-', "
            "starting with a letter or digit"
        )
    return name


def _add(args) -> int:
    from arena.ladder.auth import new_token

    _checked_name("bot", args.name)
    owner = None if args.owner is None else _checked_name("owner", args.owner)
    store = _open(args.db, must_exist=False)
    known, _ = store.bot_token_hash(args.name)
    token = new_token()
    if not store.register_bot(args.name, token, owner):
        raise CommandError(
            f"{args.name} is already registered in {args.db}; for a new token run "
            f"`arena bots rotate {args.name} --db {args.db}` (the old token then stops working)"
        )
    claimed = " (it had connected with open registration; from now on it needs this token)" if known else ""
    owned = f", owner {owner}" if owner else ""
    print(f"registered {args.name}{owned} in {args.db}{claimed}; its token (shown only this once, stored hashed):")
    _print_token(args.name, token)
    return 0


def _registered(args, unknown: str, open_name: str):
    """The store, once ``args.name`` is known there with a token; else the user is told why not (``unknown``:
    what to add when the name is not there at all; ``open_name``: why a name without a token will not do)."""
    store = _open(args.db, must_exist=True)
    known, stored = store.bot_token_hash(args.name)
    if not known:
        raise CommandError(f"no bot named {args.name!r} in {args.db}{unknown}")
    if stored is None:
        raise CommandError(f"{args.name} {open_name}")
    return store


def _owner(args) -> int:
    owner = None if args.none else _checked_name("owner", args.who)
    store = _registered(
        args, "", "connected with open registration and has no token, so an owner would bind nobody: "
        f"register it first with `arena bots add {args.name} --owner WHO`")
    if not store.set_owner(args.name, owner):  # removed in between
        raise RunFailure(f"{args.name} was removed from {args.db} meanwhile; nothing changed")
    said = f"belongs to {owner}" if owner else "belongs to no owner"
    print(f"{args.name} {said} in {args.db}; a running ladder applies it from the bot's next connection")
    return 0


def _rotate(args) -> int:
    from arena.ladder.auth import new_token

    store = _registered(
        args, f"; register it with `arena bots add {args.name}`",
        f"has no token to rotate (it connected with open registration); `arena bots add {args.name}` registers it with one")
    token = new_token()
    if not store.rotate_token(args.name, token):  # removed in between
        raise RunFailure(f"{args.name} was removed from {args.db} meanwhile; nothing rotated")
    print(f"new token for {args.name} in {args.db} (shown only this once); the old token stops working "
          "at its next connection, also on a running server:")
    _print_token(args.name, token)
    return 0


def _remove(args) -> int:
    store = _open(args.db, must_exist=True)
    if not store.remove_bot(args.name):
        raise CommandError(f"no bot named {args.name!r} in {args.db}")
    print(f"removed {args.name} from {args.db} (its games stay in the history)")
    return 0


def _list(args) -> int:
    from rich.table import Table
    from rich.text import Text

    from arena.ladder.dashboard import output_console
    from arena.printable import printable

    bots = _open(args.db, must_exist=True).list_bots()
    if args.json:
        print(json.dumps(bots, indent=2))  # json escapes every control character itself
        return 0
    table = Table(title=Text(f"bots in {printable(args.db)}"), title_justify="left")
    for column in ("name", "registered", "owner", "version", "first seen", "last seen"):
        table.add_column(column)
    for bot in bots:
        table.add_row(
            Text(printable(bot["name"])), "token" if bot["registered"] else "open", Text(printable(bot["owner"] or "")),
            Text(printable(bot["version"])), bot["first_seen"] or "", bot["last_seen"] or "",
        )
    output_console().print(table)
    return 0


_ACTIONS = {"add": _add, "rotate": _rotate, "owner": _owner, "list": _list, "remove": _remove}
