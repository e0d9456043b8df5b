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
