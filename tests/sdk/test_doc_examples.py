"""Every bot example in the bot-facing docs runs as written.

Each ```python block of sdk/README.md and README.md that defines a `Bot` subclass is saved as a file,
loaded as ``arena match --local`` loads a bot file, and plays a few games of every ruleset family
against the random bot: the games must finish with no strike and no failure of the bot's code, each
decision within the time a move has (the world-sampling example once played its playouts to the end of
the whole game: 13 rounds in Mose, seconds a decision), and one instance playing them in a row must
keep nothing of a finished game (on a ladder a bot plays thousands).  An example that breaks fails here.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import trio

from arena.cli.match_bots import BotSpec, load_local_bot
from arena.match.local import LocalSeat
from arena.match.runner import play_game
from arena.match.timecontrol import TimeControl
from sample_bots.random_bot import RandomBot

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "sdk" / "README.md", ROOT / "README.md"]
#: Every game family, at a size each plays: (ruleset, players, options).  Mose at 2 of its 13 rounds here
#: (a whole game takes minutes at a searcher's pace; the slow test below plays one), which still has
#: playouts cross a round's end; DD MAU one hand (a match to 505 is many: 25 s of this test's 29).
TABLES = [("maumau", 2, {}), ("mose", 3, {"rounds": 2}), ("ddmau", 2, {"max_hands": 1})]
#: Generous, so that a loaded machine does not fail the run: this part checks that the examples run.
TIME_CONTROL = TimeControl(move_ms=5000, bank_ms=0, increment_ms=0, first_move_ms=0, max_strikes=1)
#: The arena's default per decision (`arena check-bot`'s too), for the whole-game check.
DEFAULT_TIME = TimeControl(move_ms=1000, bank_ms=0, increment_ms=0, first_move_ms=0, max_strikes=1)


def examples() -> list[tuple[str, str]]:
    found = []
    for doc in DOCS:
        for number, block in enumerate(re.findall(r"```python\n(.*?)```", doc.read_text(), re.S)):
            match = re.search(r"^class (\w+)\(Bot\):", block, re.M)
            if match:
                found.append((f"{doc.relative_to(ROOT)}:{match.group(1)}", block))
    return found


EXAMPLES = examples()


def test_the_docs_have_the_examples_this_test_knows():
    names = [name.split(":")[1] for name, _ in EXAMPLES]
    assert names == ["Greedy", "Counting", "Careful", "Sampler", "Greedy"], names


def _kept_game_ids(bot, game_ids: set[str]) -> list[str]:
    """Attributes of ``bot`` that still hold one of ``game_ids`` as a key."""
    return [name for name, value in vars(bot).items()
            if isinstance(value, dict) and game_ids & set(value)]


def _play(name: str, source: str, tmp_path: Path, tables, time_control: TimeControl, worlds: int = 0) -> None:
    path = tmp_path / "example.py"
    path.write_text(source)
    bot_class = load_local_bot(BotSpec(source=str(path), argv=[], name="example", path=path))
    if worlds and "WORLDS" in bot_class.act.__globals__:
        bot_class.act.__globals__["WORLDS"] = worlds  # its search, smaller: every path runs, in seconds
    bot = bot_class()  # one instance for every game, as a bot process has
    played: list[str] = []

    async def main():
        for number, (ruleset, players, options) in enumerate(tables):
            game_id = f"{ruleset}-{number}"
            seat = number % players
            seats = [LocalSeat(RandomBot(seed=i), name=f"random-{i}") for i in range(players)]
            seats[seat] = LocalSeat(bot, name="example")
            outcome = await play_game(ruleset, options, 1000 + number, seats, time_control, game_id=game_id)
            me = outcome.seats[seat]
            where = f"{name} in {ruleset}"
            assert outcome.status == "finished", f"{where}: {outcome.reason}"
            assert not me.strikes, f"{where}: {me.strikes} strike(s) {me.strike_reasons}, slowest {me.max_think_ms} ms"
            assert not me.errors, f"{where}: the example's code failed {me.errors} time(s)"
            played.append(game_id)

    trio.run(main)
    assert not _kept_game_ids(bot, set(played)), f"{name} keeps the state of finished games"


@pytest.mark.parametrize("name,source", EXAMPLES, ids=[name for name, _ in EXAMPLES])
def test_a_doc_example_plays_every_family(name, source, tmp_path):
    _play(name, source, tmp_path, TABLES, TIME_CONTROL, worlds=2)


@pytest.mark.slow
@pytest.mark.parametrize("name,source", [e for e in EXAMPLES if e[0].endswith(":Sampler")], ids=["Sampler"])
def test_the_sampling_example_decides_within_a_move_over_a_whole_mose_game(name, source, tmp_path):
    """Its playouts stop at the round's end: to the end of 13 rounds they took seconds (3 strikes)."""
    _play(name, source, tmp_path, [("mose", 3, {})], DEFAULT_TIME)
