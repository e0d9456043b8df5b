"""The commands that ask a running arena (`arena health`, `arena watch`) refuse a --timeout that is no
positive number, in one line, before they connect."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize("command", [["health", "127.0.0.1:1"], ["watch", "--arena", "127.0.0.1:1"]])
@pytest.mark.parametrize("seconds", ["0", "-1", "nan"])
def test_health_and_watch_refuse_a_timeout_that_is_not_positive(command, seconds, arena_here):
    # NaN passed the old `<= 0` check and reached gRPC as a deadline: `watch` waited for good
    ran = arena_here(*command, "--timeout", seconds)
    assert ran.status == 2, ran
    assert ran.err.startswith("arena: error: --timeout must be") and ran.err.count("\n") == 1, ran.err
