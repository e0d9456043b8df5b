"""The JavaScript starter kit plays every ruleset against a real server with no strike.

`npm ci` installs the kit's locked packages from the npm registry; the bot
is a real Node.js process that knows only the .proto.  Skipped (with the
reason) where Node.js or npm is missing.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import trio

from arena import games
from arena.match.timecontrol import TimeControl
from server_helpers import AutoBot, blocking, serve

KIT = Path(__file__).resolve().parents[2] / "starter_kits" / "node"
TIME = TimeControl(move_ms=3000, bank_ms=5000, increment_ms=0, first_move_ms=5000, max_strikes=3)
OPTIONS = {"ddmau": {"max_hands": 1}}


@pytest.mark.parametrize("script", ["bot.js", "minimal.js"])
def test_the_node_bot_finishes_a_game_of_every_ruleset_without_a_strike(node_kit, script):
    """bot.js (the kit) and minimal.js (the protocol bare: hello, then the first legal action by index)."""
    kit, _ = node_kit
    rulesets = games.rulesets()
    outcomes, code, output = _node_plays([kit, str(KIT / script)], rulesets)
    assert code == 0, output
    for outcome in outcomes:
        node = next(s for s in outcome.seats if s.name == "node")
        assert outcome.status == "finished", (outcome.ruleset, outcome.reason)
        assert node.strikes == 0 and node.timeouts == 0 and not node.forfeited, (outcome.ruleset, output)
    if script == "bot.js":
        assert output.count("ended: place") == len(games.rulesets())


def test_the_node_bot_says_a_game_was_aborted_not_that_it_took_place_0(node_kit):
    """An aborted game's results hold placement 0 for every seat: the kit printed 'ended: place 0'."""
    from arena.match.runner import GameStop

    kit, _ = node_kit
    stop = GameStop()
    stop.abort("cancelled: the test stopped it")  # at its first wait: after GameStarted, before any answer
    (outcome,), code, output = _node_plays([kit, str(KIT / "bot.js")], ["moumou"], stop=stop)
    assert outcome.status == "aborted", outcome
    assert code == 0, output
    assert f"game {outcome.game_id} ended: aborted (cancelled: the test stopped it) (1 played)" in output, output
    assert "place 0" not in output, output


def test_the_kit_copied_out_of_the_repository_says_where_it_looked_for_the_proto(node_kit, tmp_path, refused_address):
    """bot.js and its packages in a folder of their own: no .proto two levels up.  One line naming the path it
    tried and MAU_ARENA_PROTO, not a stack trace; with MAU_ARENA_PROTO set, the copy loads the protocol."""
    node, _ = node_kit
    copy, env, looked = _copied(tmp_path, "bot.js")
    ran = subprocess.run([node, str(copy / "bot.js"), "--arena", "127.0.0.1:1"], capture_output=True, text=True,
                         env=env, timeout=30)
    assert ran.returncode == 1, ran.stderr
    assert ran.stderr.strip().splitlines() == [
        f"bot.js: no arena.proto at {looked} (where the kit looks when it sits in the Mau Arena repository); "
        "set MAU_ARENA_PROTO to the repository's proto/mauarena/v1/arena.proto"], ran.stderr

    ran = subprocess.run([node, str(copy / "bot.js"), "--arena", refused_address], capture_output=True, text=True,
                         env={**env, "MAU_ARENA_PROTO": str(PROTO)}, timeout=30)
    assert ran.returncode == 3 and f"cannot reach an arena at {refused_address}" in ran.stderr, ran.stderr  # got past


def test_minimal_js_copied_out_of_the_repository_takes_the_proto_from_mau_arena_proto(node_kit, tmp_path):
    """minimal.js finds the .proto as bot.js does: MAU_ARENA_PROTO, else two levels up (it read only the latter,
    and a copy died with protobufjs's ENOENT stack trace whatever the variable said); with it, the copy plays."""
    node, _ = node_kit
    copy, env, looked = _copied(tmp_path, "minimal.js")
    ran = subprocess.run([node, str(copy / "minimal.js"), "--arena", "127.0.0.1:1"], capture_output=True, text=True,
                         env=env, timeout=30)
    assert ran.returncode == 1, ran.stderr
    assert ran.stderr.strip().splitlines() == [
        f"minimal.js: no arena.proto at {looked}; set MAU_ARENA_PROTO to the repository's proto/mauarena/v1/arena.proto"]

    (outcome,), code, output = _node_plays([node, str(copy / "minimal.js")], ["moumou"],
                                           env={**env, "MAU_ARENA_PROTO": str(PROTO)})
    assert code == 0 and outcome.status == "finished", (outcome.reason, output)


PROTO = KIT.parents[1] / "proto" / "mauarena" / "v1" / "arena.proto"


def _copied(tmp_path: Path, script: str) -> tuple[Path, dict[str, str], Path]:
    """``script`` (bot.js with the pace.js it requires) and the kit's packages in tmp_path/bots/mybot, where two
    levels up holds no proto/: (the folder, an environment without MAU_ARENA_PROTO, the path the script looks at
    without it)."""
    import os
    import shutil

    copy = tmp_path / "bots" / "mybot"
    copy.mkdir(parents=True)
    for name in (script, *(["pace.js"] if script == "bot.js" else []), "package.json", "package-lock.json"):
        shutil.copy(KIT / name, copy / name)
    (copy / "node_modules").symlink_to(KIT / "node_modules")  # what `npm ci` in the copy would install
    env = {key: value for key, value in os.environ.items() if key != "MAU_ARENA_PROTO"}
    return copy, env, tmp_path / "proto" / "mauarena" / "v1" / "arena.proto"


def _node_plays(command: list[str], rulesets: list[str], env: "dict[str, str] | None" = None, **runner_options):
    """A served arena where the Node bot ``command`` (named node) plays one game of each ruleset (seeds 1000+)
    beside in-process bots: (the outcomes, the bot's exit status, its output)."""

    async def director(handle):
        bot = subprocess.Popen([*command, "--arena", f"127.0.0.1:{handle.port}", "--name", "node",
                                "--games-limit", str(len(rulesets))],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
        try:
            most = max(games.ruleset_info(ruleset).min_players for ruleset in rulesets)
            others = [AutoBot(handle.port, f"auto{i}", games=len(rulesets), seed=i) for i in range(most - 1)]
            with trio.fail_after(20):
                await handle.wait_for_sessions(["node", *(o.name for o in others)], timeout_s=20)
            outcomes = []
            for n, ruleset in enumerate(rulesets):
                players = games.ruleset_info(ruleset).min_players
                seats = ["node", *(o.name for o in others[: players - 1])]
                outcomes.append(await handle.play_game(ruleset, OPTIONS.get(ruleset, {}), 1000 + n, seats, TIME,
                                                       **runner_options))
            output, _ = await blocking(lambda: bot.communicate(timeout=30))
            return outcomes, bot.returncode, output
        finally:
            if bot.poll() is None:
                bot.kill()
                bot.wait()

    return serve(director)
