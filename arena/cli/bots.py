"""`arena bots add|rotate|list|remove`: the registered bots of a ladder database.

``add`` registers a new name, or claims a name that only exists because a bot
connected under it with open registration (that bot then needs the token).
It never replaces the token of a name that already holds one: ``rotate``
does that, and says that the old token stops working.
"""

from __future__ import annotations

import json

from arena.cli import CommandError, RunFailure

DEFAULT_DB = "arena.db"


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "bots",
        help="register bots (tokens), rotate tokens, list and remove bots",
        description="Registered bots connect with the token `arena bots add` prints; "
        "the token is stored hashed and shown only once.  `arena bots rotate NAME` replaces a lost "
        "or leaked token.",
    )
    actions = parser.add_subparsers(dest="bots_action", metavar="ACTION")
    add = actions.add_parser(
        "add", help="register a bot and print its new token",
        description="Register NAME and print its token.  A name already registered is refused (use "
        "`arena bots rotate NAME` for a new token); a name known only from open registration is "
        "claimed: from then on it needs the token.",
    )
    add.add_argument("name")
    rotate = actions.add_parser(
        "rotate", help="give a registered bot a new token (the old one stops working)",
        description="Replace NAME's token with a new one and print it.  The old token is refused at the "
        "next connection, also by an `arena serve` already running; a bot connected with it stays "
        "connected until it disconnects.",
    )
    rotate.add_argument("name")
    listing = actions.add_parser("list", help="list known bots")
    listing.add_argument("--json", action="store_true", help="print a JSON list instead of the table")
    remove = actions.add_parser("remove", help="remove a bot's registration (its games stay)")
    remove.add_argument("name")
    for sub in (add, rotate, listing, remove):
        sub.add_argument("--db", default=DEFAULT_DB, help=f"ladder database (default {DEFAULT_DB})")
    parser.set_defaults(func=run, bots_parser=parser)


def _open(path: str, must_exist: bool):
    from pathlib import Path

    from arena.ladder.store import LadderStore, StoreError

    if must_exist and not Path(path).exists():
        raise CommandError(f"no ladder database at {path} (give --db, or add a bot first)")
    try:
        return LadderStore.open(path, recover=False)
    except StoreError as error:
        raise RunFailure(str(error)) from None
    except OSError as error:
        raise RunFailure(f"cannot open the ladder database {path}: {error.strerror or error}") from None


def _print_token(name: str, token: str) -> None:
    print(token)
    print(f"connect with: --name {name} --token {token}  (or set MAU_ARENA_TOKEN to keep it out of `ps`)")


def run(args) -> int:
    import sqlite3

    if args.bots_action is None:
        args.bots_parser.print_help()
        return 2
    try:
        return _ACTIONS[args.bots_action](args)
    except sqlite3.Error as error:  # e.g. a read-only database file
        raise RunFailure(f"cannot update {args.db}: {error}") from None


def _add(args) -> int:
    from arena.ladder.auth import new_token
    from arena.server.hello import BOT_NAME

    if not BOT_NAME.match(args.name):
        raise CommandError(
            f"bad bot name {args.name!r}: use 1-32 letters, digits, '_', '.' or '-', starting with a letter or digit"
        )
    store = _open(args.db, must_exist=False)
    known, _ = store.bot_token_hash(args.name)
    token = new_token()
    if not store.register_bot(args.name, token):
        raise CommandError(
            f"{args.name} is already registered in {args.db}; for a new token run "
            f"`arena bots rotate {args.name} --db {args.db}` (the old token then stops working)"
        )
    claimed = " (it had connected with open registration; from now on it needs this token)" if known else ""
    print(f"registered {args.name} in {args.db}{claimed}; its token (shown only this once, stored hashed):")
    _print_token(args.name, token)
    return 0


def _rotate(args) -> int:
    from arena.ladder.auth import new_token

    store = _open(args.db, must_exist=True)
    known, stored = store.bot_token_hash(args.name)
    if not known:
        raise CommandError(f"no bot named {args.name!r} in {args.db}; register it with `arena bots add {args.name}`")
    if stored is None:
        raise CommandError(
            f"{args.name} has no token to rotate (it connected with open registration); "
            f"`arena bots add {args.name}` registers it with one"
        )
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
    for column in ("name", "registered", "version", "first seen", "last seen"):
        table.add_column(column)
    for bot in bots:
        table.add_row(
            Text(printable(bot["name"])), "token" if bot["registered"] else "open", Text(printable(bot["version"])),
            bot["first_seen"] or "", bot["last_seen"] or "",
        )
    output_console().print(table)
    return 0


_ACTIONS = {"add": _add, "rotate": _rotate, "list": _list, "remove": _remove}
