"""The command table: every command is found, and running one imports its own module only."""

from __future__ import annotations

import subprocess
import sys

from arena.cli import COMMANDS, build_parser

from .conftest import ROOT


def _choices(parser):
    return list(parser._subparsers._group_actions[0].choices)  # argparse keeps no public list


def test_the_table_names_every_command_in_the_order_help_lists_them_and_the_module_that_adds_it():
    assert _choices(build_parser()) == list(COMMANDS)
    for command, module in COMMANDS.items():
        alone = _choices(build_parser(command))
        assert command in alone and set(alone) == {c for c, m in COMMANDS.items() if m == module}


def test_a_command_imports_only_what_it_needs_and_help_and_typos_still_list_every_command(arena_here):
    probe = ("import sys; from arena.cli import main\n"
             "try: main(['leaderboard', '--help'])\n"
             "except SystemExit: pass\n"
             "print(sorted(m for m in ('arena.match', 'arena.server', 'rich.markdown', 'arena.games') if m in sys.modules))")
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert loaded.returncode == 0, loaded.stderr
    assert loaded.stdout.strip().splitlines()[-1] == "[]"
    listing = arena_here("--help")  # the fresh process above is the one that matters; these need none
    assert listing.status == 0 and all(command in listing.out for command in COMMANDS)
    typo = arena_here("leaderbord")
    assert typo.status == 2 and "invalid choice: 'leaderbord'" in typo.err and "check-bot" in typo.err
