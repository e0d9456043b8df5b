"""The live dashboard fits 80x24 with many bots, cuts nothing to "…", and escapes what bots sent."""

from __future__ import annotations

import io
import math
import re
import time

from rich.console import Console

from arena.ladder.dashboard import DashboardView, FinishedGame, RunningGame, render_dashboard
from arena.ladder.standings import Standing

NAMES = ["alpha", "bravo-the-very-long-bot-name-32c", "charlie", "delta.v2", "echo_echo_echo", "foxtrot", "golf"]


def standings(names, undetermined=()):
    return [
        Standing(rank, name, 1700 - 40 * rank, math.inf if name in undetermined else 35.0 + rank, 40 + rank,
                 0.6 - rank / 20, 10 + rank, rank, rank, connected=rank % 2 == 0)
        for rank, name in enumerate(names, start=1)
    ]


def busy_view(now: float) -> DashboardView:
    view = DashboardView(address="127.0.0.1:50051", started=now - 3725, connected=list(NAMES), finished=1234,
                         aborted=3, note="demo bot golf exited with status 1: see replays/demo-bots.log")
    view.standings["moumou"] = standings(NAMES)
    view.standings["maumau-online"] = standings(NAMES[:5], undetermined={"echo_echo_echo"})
    view.standings["pesten"] = standings(NAMES[2:], undetermined={"golf"})
    view.standings["prsi"] = standings(NAMES[:3])
    for k in range(8):
        view.running[f"g{k}"] = RunningGame(f"20261124-{k:08x}", "maumau-online", tuple(NAMES[k % 3:k % 3 + 4]),
                                            "2/4", now - k)
    for k in range(8):
        view.latest.append(FinishedGame(f"20261124-f{k:07x}", "moumou",
                                        f"{NAMES[1]} 1st, {NAMES[0]} 2nd, {NAMES[2]} 3rd", 120 + k, 1.5))
    return view


def render(view: DashboardView, now: float, width: int = 80, height: int = 24) -> list[str]:
    console = Console(width=width, height=height, record=True, color_system=None, file=io.StringIO())
    console.print(render_dashboard(view, now=now))
    return console.export_text().rstrip("\n").splitlines()


def test_a_busy_ladder_fits_80_by_24_without_cutting_anything():
    now = time.monotonic()
    lines = render(busy_view(now), now)
    text = "\n".join(lines)
    assert len(lines) <= 24, text
    assert max(map(len, lines)) <= 80, text
    assert "…" not in text and "..." not in text, text
    assert "moumou — Bradley-Terry" in text and "games running now" in text and "latest" in text
    ranks = [int(m.group(1)) for m in (re.match(r"(\d) +[a-z]", line) for line in lines) if m]
    assert ranks == list(range(1, len(NAMES) + 1)), text  # all seven bots of the busiest ruleset
    assert "t-name-32c" in text  # a long name wraps onto the next line instead of being cut
    assert "also rated: maumau-online, pesten, prsi" in text  # what did not fit is named
    assert "latest" in text


def test_an_undetermined_interval_is_explained():
    now = time.monotonic()
    view = busy_view(now)
    view.show = ["maumau-online"]
    text = "\n".join(render(view, now, height=40))
    assert "±?" in text and "±?: too few games to bound the rating yet" in text


def test_the_operator_chooses_the_rulesets_shown_and_the_rest_page_through():
    now = time.monotonic()
    view = busy_view(now)
    view.note = ""
    view.show = ["prsi"]
    first = "\n".join(render(view, now, height=60))
    assert first.index("prsi — Bradley-Terry") < first.index("games running now")
    later = "\n".join(render(view, now + 10.0, height=60))  # a page on: another ruleset gets the second table
    shown = lambda text: [r for r in ("moumou", "maumau-online", "pesten") if f"{r} — Bradley-Terry" in text]
    assert shown(first) != shown(later)
    assert "prsi — Bradley-Terry" in later


def test_a_bot_version_or_name_with_escape_sequences_is_shown_escaped():
    now = time.monotonic()
    view = DashboardView(address="127.0.0.1:1", started=now - 5)
    view.standings["moumou"] = standings(["evil\x1b[2J", "[bold]x"])
    view.latest.append(FinishedGame("g-1", "moumou", "aborted: evil\x1b]0;title\x07 said so", 3, 0.1))
    console = Console(width=100, height=40, record=True, force_terminal=True, file=io.StringIO())
    console.print(render_dashboard(view, now=now))
    raw = console.export_text(styles=False)
    assert "\x1b[2J" not in raw and "\x07" not in raw
    assert "evil\\x1b[2J" in raw and "[bold]x" in raw and "\\x1b]0;title\\x07" in raw


def test_every_common_terminal_size_fits_on_every_page():
    now = time.monotonic()
    for width in (60, 80, 132):
        for height in (16, 24, 50):
            for page in range(2):
                lines = render(busy_view(now), now + 10.0 * page, width=width, height=height)
                text = "\n".join(lines)
                assert len(lines) <= height and max(map(len, lines)) <= width, (width, height, text)
                assert "…" not in text, (width, height, text)
