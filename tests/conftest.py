"""Suite-wide settings.

Under CI (the ``CI`` environment variable, as .ci/run's host sets it)
hypothesis runs derandomized: the same examples every run, so a red build
always reproduces.  Locally it explores new random examples each run.
"""

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")


import pytest  # noqa: E402


@pytest.fixture(scope="session")
def postgres():
    """A real PostgreSQL started for this test session (see tests/postgres_server.py); skips where none is installed."""
    from tests.postgres_server import find_binaries, remove, start_server

    bindir, why = find_binaries()
    if bindir is None:
        pytest.skip(why)
    server = start_server()
    try:
        yield server
    finally:
        remove(server)
