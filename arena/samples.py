"""Where the sample bots are: the folder of scripts `arena serve --demo` starts.

They live in the checkout's top-level ``sample_bots/`` and are installed with the arena as the data
package ``mau_arena_samples`` (pyproject.toml maps one to the other), so the same lookup works in an
editable checkout and after ``pip install`` of the wheel, whatever the current directory.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path


def samples_dir() -> Path:
    """The folder holding the sample bot scripts (``random_bot.py``, ``tactician.py``...)."""
    return Path(str(resources.files("mau_arena_samples")))


def sample_bot(script: str) -> Path:
    """The path of one sample bot script, by its stem (``greedy_bot``)."""
    return samples_dir() / f"{script}.py"
