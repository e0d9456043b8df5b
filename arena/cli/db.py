"""The ``--db`` option the ladder commands share: a SQLite file or a ``postgresql://`` URL."""

from __future__ import annotations

import re
from pathlib import Path

from arena.cli import CommandError, RunFailure

DEFAULT_DB = "arena.db"
DB_HELP = (
    "the ladder database: a SQLite file (default arena.db), or a PostgreSQL URL "
    "postgresql://USER[:PASSWORD]@HOST[:PORT]/DBNAME (needs pip install 'mau-arena[postgres]')"
)


#: The start of a URL (``mysql://``, ``sqlite://``...): a --db value that is no file path.
_URL_START = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")
#: A --db value that meant PostgreSQL but is not its URL (``postgresql:/x``, ``postgres:x``).
_POSTGRES_MISTYPED = re.compile(r"postgres(ql)?:", re.IGNORECASE)


def add_db_argument(parser) -> None:
    parser.add_argument("--db", default=DEFAULT_DB, metavar="FILE|URL", help=DB_HELP)


def missing(db: str) -> bool:
    """A file path naming no file (a URL is never 'missing' here: connecting says what is wrong)."""
    from arena.ladder.store import is_postgres_url

    return not is_postgres_url(db) and not Path(db).exists()


def open_db(db: str, *, recover: bool = False, must_exist: str | None = None, shared: bool = False):
    """Open the store, or raise with one line: CommandError (exit 2) for a ladder that is not there,
    RunFailure (exit 1) for a database that cannot be used (unreachable, older or newer schema, unreadable...).

    must_exist: the command works on an existing ladder, and this is the hint to give when there is none
    (no file, or on PostgreSQL no schema): it then creates and migrates nothing (`LadderStore.open`'s
    ``upgrade``).  Without it (`arena serve`, `arena bots add`) an empty database gets the schema and an
    older one is migrated, and a line on stderr says so.
    """
    import sys

    from arena.ladder.store import LadderStore, NoLadder, StoreError, driver_errors

    refuse_unusable(db)
    if must_exist is not None and missing(db):
        raise CommandError(f"no ladder database at {db} ({must_exist})")
    try:
        store = LadderStore.open(db, recover=recover, shared=shared, upgrade=must_exist is None)
    except NoLadder as error:
        raise CommandError(f"{error} ({must_exist})" if must_exist else str(error)) from None
    except StoreError as error:
        raise RunFailure(str(error)) from None
    except (OSError, *driver_errors()) as error:  # a read-only place, a missing parent that cannot be made...
        raise RunFailure(f"cannot open the ladder database {db}: {' '.join(str(error).split())}") from None
    if store.upgraded is not None:
        found, now = store.upgraded
        said = (f"created a new ladder in {store.path} (schema version {now})" if found == 0 else
                f"upgraded the ladder schema of {store.path} from version {found} to {now}")
        print(said, file=sys.stderr, flush=True)
    return store


def refuse_unusable(db: str) -> None:
    """A CommandError for a --db value that would otherwise become a SQLite file somewhere unintended: a URL
    of another database (``mysql://x`` would be the file ./mysql:/x), or a file in a folder that does not
    exist (not created: a mistyped path should not leave folders behind)."""
    from arena.ladder.store import is_postgres_url

    if is_postgres_url(db) or db == ":memory:":
        return
    if _POSTGRES_MISTYPED.match(db):  # postgresql:/host/db would be the SQLite file ./postgresql:/host/db
        raise CommandError("--db: a PostgreSQL URL starts with postgresql:// (two slashes): "
                           "postgresql://USER[:PASSWORD]@HOST[:PORT]/DBNAME")
    url = _URL_START.match(db)
    if url:  # only the scheme is shown: the rest may hold a password
        raise CommandError(f"--db: {url.group()} is not a supported database; give a SQLite file path or a URL "
                           "postgresql://USER[:PASSWORD]@HOST[:PORT]/DBNAME (or postgres://...)")
    folder = Path(db).parent
    if not folder.exists():
        raise CommandError(f"--db {db}: the folder {folder} does not exist (it is not created: make it first)")
