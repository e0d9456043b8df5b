import pytest

import toy_ruleset


@pytest.fixture(autouse=True)
def toy():
    """Every server test may schedule the toy ruleset; it is unregistered afterwards."""
    with toy_ruleset.registered() as name:
        yield name
