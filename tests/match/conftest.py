import pytest

import nim_ruleset


@pytest.fixture(autouse=True)
def nim():
    """Every test here may play the test ruleset; it is unregistered afterwards."""
    with nim_ruleset.registered() as name:
        yield name
