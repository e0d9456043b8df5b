"""`arena hosts`: the hosts of a shared ladder, whether each is live, and what each runs now.

Read-only (`arena.ladder.store.host_list`): safe beside the running hosts, and with a read-only role.
"""

from __future__ import annotations

import json

from arena.cli.db import add_db_argument, open_db


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "hosts",
        help="list the hosts of a shared (PostgreSQL) ladder: live, stopped or dead, and the games each runs now",
        description="Every `arena serve` host that has joined a PostgreSQL ladder: its name, its address (--advertise), "
        "its state (live: its lease is current or it still holds its host lock; stopped: a clean stop; dead: its "
        "lease ran out and its lock is free), since when, its lease (left, or lapsed how long ago), the games it "
        "runs now (its open seat claims) out of its --concurrency, and where its web view is (`arena serve --web`, "
        "--web-advertise; empty: it serves none).  Live hosts first.  A SQLite ladder has one host, "
        "the `arena serve` that owns its file: that is said in one line.",
    )
    add_db_argument(parser)
    parser.add_argument("--all", action="store_true", dest="every",
                        help="also the hosts stopped or dead for more than a day (left out by default: each start "
                        "with --port 0 and no --host-name leaves a row of its own)")
    parser.add_argument("--json", action="store_true",
                        help='print {"shared": true|false, "hosts": [...]} with the fields of GET /api/v1/hosts')
    parser.set_defaults(func=run)


def run(args) -> int:
    from arena.ladder.store import is_postgres_url

    store = open_db(args.db, must_exist="run `arena serve` first, or give --db")
    try:
        shared = is_postgres_url(args.db)
        from arena.ladder.store.host_list import recent

        rows, left_out = recent(store.hosts() if shared else [], args.every)
        if args.json:
            listed = {"shared": shared, "hosts": [row.to_dict() for row in rows]}
            if shared:
                listed["not_shown"] = left_out
            print(json.dumps(listed, indent=2))
            return 0
        if not shared:
            running = len(store.games(status="running", limit=500))
            print(f"{store.path} is a SQLite ladder: it has one host, the `arena serve` that owns the file "
                  f"({running} game{'s' if running != 1 else ''} running); hosts are listed on a PostgreSQL ladder")
            return 0
        if not rows and not left_out:
            print(f"no host has joined {store.path} yet (`arena serve --db URL` joins it)")
            return 0
        print_table(store.path, rows)
        if left_out:
            print(f"{left_out} host{'s' if left_out != 1 else ''} stopped or dead for more than a day not shown "
                  "(--all lists them)")
    finally:
        store.close()
    return 0


def print_table(where: str, rows) -> None:
    from rich.table import Table
    from rich.text import Text

    from arena.ladder.dashboard import output_console
    from arena.printable import printable

    live = sum(1 for row in rows if row.state == "live")
    table = Table(title=Text(f"hosts of {printable(where)}: {live} live of {len(rows)}"), title_justify="left")
    for column, justify in (("name", "left"), ("address", "left"), ("state", "left"), ("since (UTC)", "left"),
                            ("for", "right"), ("lease", "right"), ("games now", "right"), ("web view", "left")):
        table.add_column(column, justify=justify)
    for row in rows:
        lease = f"{row.lease_left_s:.0f} s left" if row.lease_left_s >= 0 else f"lapsed {duration(-row.lease_left_s)} ago"
        table.add_row(Text(printable(row.name)), Text(printable(row.address)), row.state,
                      row.to_dict()["since"].replace("T", " ")[:19], duration(row.since_s),
                      lease if row.state != "stopped" else "", f"{row.games}/{row.concurrency}",
                      Text(printable(row.web or "")))
    output_console().print(table)


def duration(seconds: float) -> str:
    """A span for a table: 42 s, 7 min, 3 h 5 min, 2 d 4 h."""
    seconds = max(0, int(seconds))
    if seconds < 120:
        return f"{seconds} s"
    minutes = seconds // 60
    if minutes < 120:
        return f"{minutes} min"
    hours = minutes // 60
    if hours < 48:
        return f"{hours} h {minutes % 60} min"
    return f"{hours // 24} d {hours % 24} h"
