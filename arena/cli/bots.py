"""`arena bots add|list|remove`: the registered bots of a ladder database."""

from __future__ import annotations

from arena.cli import CommandError

DEFAULT_DB = "arena.db"


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "bots",
        help="register bots (tokens), list and remove them",
        description="Registered bots connect with the token `arena bots add` prints; "
        "the token is stored hashed and shown only once.",
    )
    actions = parser.add_subparsers(dest="bots_action", metavar="ACTION")
    add = actions.add_parser("add", help="register a bot and print its new token")
    add.add_argument("name")
    add.add_argument("--db", default=DEFAULT_DB, help=f"ladder database (default {DEFAULT_DB})")
    listing = actions.add_parser("list", help="list known bots")
    listing.add_argument("--db", default=DEFAULT_DB, help=f"ladder database (default {DEFAULT_DB})")
    remove = actions.add_parser("remove", help="remove a bot's registration (its games stay)")
    remove.add_argument("name")
    remove.add_argument("--db", default=DEFAULT_DB, help=f"ladder database (default {DEFAULT_DB})")
    parser.set_defaults(func=run, bots_parser=parser)


def _open(path: str, must_exist: bool):
    from pathlib import Path

    from arena.ladder.store import LadderStore, StoreError

    if must_exist and not Path(path).exists():
        raise CommandError(f"no ladder database at {path} (give --db, or add a bot first)")
    try:
        return LadderStore.open(path, recover=False)
    except StoreError as error:
        raise CommandError(str(error)) from None


def run(args) -> int:
    from rich.table import Table

    from arena.ladder.auth import new_token
    from arena.ladder.dashboard import output_console
    from arena.server.hello import BOT_NAME

    if args.bots_action is None:
        args.bots_parser.print_help()
        return 2
    if args.bots_action == "add":
        if not BOT_NAME.match(args.name):
            raise CommandError(
                f"bad bot name {args.name!r}: use 1-32 letters, digits, '_', '.' or '-', starting with a letter or digit"
            )
        store = _open(args.db, must_exist=False)
        token = new_token()
        store.add_bot(args.name, token)
        print(f"registered {args.name} in {args.db}; its token (shown only this once, stored hashed):")
        print(token)
        print(f"connect with: --name {args.name} --token {token}")
        return 0
    store = _open(args.db, must_exist=True)
    if args.bots_action == "remove":
        if not store.remove_bot(args.name):
            raise CommandError(f"no bot named {args.name!r} in {args.db}")
        print(f"removed {args.name} from {args.db} (its games stay in the history)")
        return 0
    table = Table(title=f"bots in {args.db}", title_justify="left")
    for column in ("name", "registered", "version", "first seen", "last seen"):
        table.add_column(column)
    for bot in store.list_bots():
        table.add_row(
            bot["name"], "token" if bot["registered"] else "open", bot["version"] or "", bot["first_seen"] or "", bot["last_seen"] or ""
        )
    output_console().print(table)
    return 0
