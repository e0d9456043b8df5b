"""`arena rules`: which rulesets exist, and what one of them plays like.

    arena rules                 # table: name, players, summary
    arena rules show moumou     # title, seed document, options, resolutions, where the references point

Everything shown comes from the ruleset's `RulesetInfo`, so a new ruleset
appears here as soon as it registers.
"""

from __future__ import annotations

import argparse

from rich import box
from rich.console import Console
from rich.markdown import Markdown
from rich.table import Table
from rich.text import Text

from arena import games
from arena.cli import CommandError
from arena.games import RulesetInfo, UnknownRulesetError


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "rules",
        help="list the rulesets, or show one in detail",
        description="List the rulesets with their player counts, or show one ruleset's options and rule resolutions.",
    )
    actions = parser.add_subparsers(dest="rules_action", metavar="ACTION")
    show = actions.add_parser("show", help="show one ruleset: options, defaults, resolutions")
    show.add_argument("name", metavar="NAME", help="a ruleset name, as listed by `arena rules`")
    parser.set_defaults(func=run)


def players_text(info: RulesetInfo) -> str:
    if info.min_players == info.max_players:
        return str(info.min_players)
    return f"{info.min_players}-{info.max_players}"


def headline(summary: str, width: int = 72) -> str:
    """The summary's first clause (up to the first colon or full stop), for the one-line listing."""
    cut = len(summary)
    for mark in (": ", ". ", "; "):
        at = summary.find(mark)
        if at != -1:
            cut = min(cut, at)
    line = summary[:cut].rstrip(".")
    return line if len(line) <= width else line[: width - 1].rstrip() + "\u2026"


def lookup(name: str) -> RulesetInfo:
    """The ruleset, or a user error that lists the known names."""
    try:
        return games.ruleset_info(name)
    except UnknownRulesetError:
        known = ", ".join(games.rulesets()) or "none registered"
        raise CommandError(f"unknown ruleset {name!r}; known rulesets: {known}") from None


def run(args: argparse.Namespace, console: Console | None = None) -> int:
    console = console or Console()
    if getattr(args, "rules_action", None) == "show":
        show_ruleset(lookup(args.name), console)
    else:
        list_rulesets(console)
    return 0


def list_rulesets(console: Console) -> None:
    names = games.rulesets()
    if not names:
        console.print("No rulesets are registered.")
        return
    table = Table(title="Rulesets", title_justify="left")
    table.add_column("name", style="bold cyan", no_wrap=True)
    table.add_column("players", justify="right", no_wrap=True)
    table.add_column("default", justify="right", no_wrap=True)
    table.add_column("summary")
    for name in names:
        info = games.ruleset_info(name)
        table.add_row(
            name, players_text(info), str(info.default_players or info.min_players), headline(info.summary)
        )
    console.print(table)
    console.print("Details: [bold]arena rules show NAME[/bold]")


#: What the references `arena rules show` prints point to: documents the arena was built from, which it does not ship
#: (a reader looking for seeds/000_....txt or RULES.md in the repository finds neither).
SOURCES_NOTE = (
    "Sources: the seed documents (seeds/...) and RULES.md, whose numbered resolutions (A-1, B-2, ...) the options "
    "and resolutions above cite, are the project's external specification, which the rulesets were built from; they "
    "are not shipped with the arena. The resolutions above are this ruleset's own statement of the ones it follows."
)


def show_ruleset(info: RulesetInfo, console: Console) -> None:
    """Title, players, the summary and resolutions rendered as Markdown, and the options, at the console's width."""
    console.print(Text(f"{info.title} ({info.name})", style="bold"))
    external = " (not shipped: see Sources below)" if info.seed_document.startswith("seeds/") else ""
    console.print(Text(f"Seed document: {info.seed_document}{external}"))
    console.print(f"Players: {players_text(info)} (default {info.default_players or info.min_players})")
    console.print()
    console.print(Markdown(info.summary))
    console.print()
    if info.options:
        console.print(options_table(info))
    else:
        console.print("Options: none")
    if info.resolutions:
        console.print()
        console.print(Text("Resolutions followed (numbered as in RULES.md)", style="bold"))
        console.print(Markdown(info.resolutions))
    console.print()
    console.print(Text(SOURCES_NOTE, style="dim"))


def options_table(info: RulesetInfo) -> Table:
    """One row per option: its name, default and values on the left, what it does on the right.

    Two columns rather than four, so that at 80 columns nothing is cut: a long name or
    list of values wraps within its cell.
    """
    table = Table(title="Options (--option NAME=VALUE)", title_justify="left", box=box.SIMPLE_HEAD,
                  show_lines=False, padding=(0, 1, 0, 0))
    table.add_column("option, default, values", overflow="fold", max_width=36)
    table.add_column("meaning", overflow="fold", ratio=1)
    for name, spec in info.options.items():
        left = Text.assemble((name, "bold cyan"), f"\n  default {spec.default}\n  ", (spec.allowed(), "dim"))
        table.add_row(left, Text(spec.help))
        table.add_row("", "")
    return table
