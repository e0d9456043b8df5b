"""The process's open-files limit, raised to what it may be at `arena serve`'s start.

Every connection takes a file descriptor, and so does every database
connection, replay and web reader.  Services started by systemd get a
soft limit of 1,024 (and a hard limit of 524,288): with 1,100 idle
connections the server could accept no more (gRPC logs "File descriptor
limit reached. Retrying."), so no new bot got in and no bot that dropped
could resume its games.  An unprivileged process may raise its soft limit
up to its hard limit, and that costs nothing until descriptors are used, so
`arena serve` does so at start; docs/deploy.md still sets ``LimitNOFILE``
(the hard limit) and a per-source connection cap in the firewall, which
this cannot replace.  On platforms without the ``resource`` module
(Windows) nothing is done.
"""

from __future__ import annotations

from typing import Optional

#: Below this many open files after raising, the server warns: a few hundred bots, their reconnects and the
#: web view's readers would soon not fit.
LOW = 4096
#: Tried in turn when the hard limit is unlimited (macOS: the soft limit may not be, and the kernel's
#: per-process maximum is not known here).
UNLIMITED_TRIES = (1_048_576, 65_536, 10_240)


def raise_open_files_limit() -> Optional[tuple[int, int]]:
    """Raise the soft RLIMIT_NOFILE to the hard one; (before, after) when it changed, else None."""
    try:
        import resource
    except ImportError:  # not a POSIX system
        return None
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    targets = UNLIMITED_TRIES if hard == resource.RLIM_INFINITY else (hard,)
    if soft == resource.RLIM_INFINITY:
        return None
    for target in targets:
        if target <= soft:
            return None
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        except (ValueError, OSError):
            continue
        return soft, target
    return None


def open_files_limit() -> Optional[int]:
    """The soft limit now (None: unlimited, or no ``resource`` module)."""
    try:
        import resource
    except ImportError:
        return None
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    return None if soft == resource.RLIM_INFINITY else soft
