"""`arena check-bot`: real arena on 127.0.0.1 port 0, the bot under test as a real process.

A conforming bot (the Python sample bots, the JavaScript starter kit) passes every check;
deliberately broken bots (tests/bots/misbehaving.py, an SDK bot that never reconnects)
fail the check that names what they do wrong, and only checks that follow from it.
"""

from __future__ import annotations

import random
import re
import sys

import pytest

import arena.games as games
from arena.match.compliance import kinds_asked, ruleset_profile
from tests.cli.conftest import ROOT, run_arena

MISBEHAVING = ROOT / "tests" / "bots" / "misbehaving.py"
KIT = ROOT / "starter_kits" / "node"
CHECKS = ("hello", "version", "answers in time", "index and text", "own answers", "stale answers",
          "disconnect and resume", "game end")


def statuses(out: str) -> dict[str, str]:
    """``{check name: PASS/FAIL/SKIP}`` from the report lines."""
    found = {}
    for line in out.splitlines():
        match = re.match(r"^(PASS|FAIL|SKIP)  ([^:]+): expected ", line)
        if match:
            found[match.group(2)] = match.group(1)
    return found


def misbehaving(mode: str) -> str:
    return f"{sys.executable} {MISBEHAVING} {mode}"


# ---------------------------------------------------------------------- what the engine asks


def test_the_engine_profile_lists_the_decision_kinds_random_play_reaches():
    assert set(ruleset_profile("prsi").kinds) == {"turn", "suit"}
    assert {"turn", "cover", "suit"} <= set(ruleset_profile("moumou").kinds)


def test_replaying_a_game_tells_which_kinds_each_seat_was_asked():
    state = games.new_game("maumau", 2, 7)
    rng = random.Random(7)
    moves, truth = [], [set(), set()]
    while not state.is_over:
        truth[state.current].add(state.decision)
        action = rng.choice(state.legal_actions())
        moves.append((state.current, str(action)))
        state.apply(action)
    assert [kinds_asked("maumau", 2, 7, moves, seat) for seat in (0, 1)] == truth
    assert len(truth[0] | truth[1]) > 1  # the game asked more than one kind


# ---------------------------------------------------------------------- conforming bots


def test_the_random_sample_bot_passes_every_check():
    ran = run_arena("check-bot", ROOT / "sample_bots" / "random_bot.py", "--game", "prsi", "--game", "moumou")
    assert ran.status == 0, ran.out + ran.err
    found = statuses(ran.out)
    assert found == {**{name: "PASS" for name in CHECKS}, "decisions prsi": "PASS", "decisions moumou": "PASS"}, ran.out
    assert "asked turn, suit in" in ran.out
    assert re.search(r"hurried game: [1-9]\d* timeout\(s\)", ran.out), ran.out  # it really was hurried
    assert ran.out.splitlines()[-1] == f"{len(found)} of {len(found)} checks passed or skipped, 0 failed", ran.out


@pytest.mark.slow
@pytest.mark.parametrize("bot", ["random_bot.py", "greedy_bot.py", "tactician.py"])
def test_every_sample_bot_passes_every_check_in_every_ruleset_it_claims(bot):
    ran = run_arena("check-bot", ROOT / "sample_bots" / bot, timeout=900)
    assert ran.status == 0, ran.out + ran.err
    found = statuses(ran.out)
    assert set(found.values()) == {"PASS"}, ran.out
    assert {f"decisions {r}" for r in games.rulesets()} <= set(found), ran.out


@pytest.fixture
def node_bot(node_kit):
    node, kit = node_kit
    return f"{node} {kit / 'bot.js'}"


def test_the_node_starter_kit_passes_every_check(node_bot):
    ran = run_arena("check-bot", node_bot, "--game", "prsi", "--game", "evil-seven")
    assert ran.status == 0, ran.out + ran.err
    assert set(statuses(ran.out).values()) == {"PASS"}, ran.out
    assert "resumed session" in ran.out


@pytest.mark.slow
def test_the_node_starter_kit_passes_every_check_in_every_ruleset(node_bot):
    ran = run_arena("check-bot", node_bot, timeout=900)
    assert ran.status == 0, ran.out + ran.err
    assert set(statuses(ran.out).values()) == {"PASS"}, ran.out


# ---------------------------------------------------------------------- broken bots


def test_a_bot_answering_outside_the_legal_list_fails_index_and_text(arena_here):
    ran = arena_here("check-bot", misbehaving("illegal"), "--game", "prsi")
    assert ran.status == 1, ran.out + ran.err
    found = statuses(ran.out)
    assert found["hello"] == found["version"] == found["answers in time"] == "PASS", ran.out
    assert found["index and text"] == found["decisions prsi"] == "FAIL", ran.out
    assert "struck (illegal)" in ran.out


@pytest.mark.parametrize("bot, first_error", [
    ("raising_bot.py", "'act() raised RuntimeError: no idea what to do at decision 1'"),
    ("illegal_choice_bot.py", "act() returned 'play ZZ', which is not legal here"),
])
def test_a_bot_whose_own_code_fails_on_every_decision_fails_own_answers(bot, first_error, arena_here):
    """The SDK covers each failure with the first legal action (no strike), but reports it: the check must not pass."""
    ran = arena_here("check-bot", ROOT / "tests" / "bots" / bot, "--game", "prsi")
    assert ran.status == 1, ran.out + ran.err
    found = statuses(ran.out)
    assert found["own answers"] == "FAIL", ran.out
    assert found["index and text"] == found["answers in time"] == found["decisions prsi"] == "PASS", ran.out
    line = next(line for line in ran.out.splitlines() if line.startswith("FAIL  own answers"))
    assert re.search(r"the bot's code failed on (\d+) of \1 decisions in 3 game\(s\), first: ", line), line
    assert first_error in line, line
    assert ran.out.splitlines()[-1].endswith(", 1 failed"), ran.out


def test_own_answers_covers_every_game_check_bot_plays_not_only_the_decision_games(arena_here):
    """A bot whose code fails only from its second game on: the decision game (one, with --games 1) is clean, the
    failures come in the games after the hurried one and in the resume game.  They make no strike, so only
    own answers can tell; it read the decision games alone and passed."""
    ran = arena_here("check-bot", ROOT / "tests" / "bots" / "tiring_bot.py", "--game", "prsi", "--games", "1")
    assert ran.status == 1, ran.out + ran.err
    found = statuses(ran.out)
    assert found["own answers"] == "FAIL", ran.out
    assert {found[name] for name in found if name != "own answers"} == {"PASS"}, ran.out
    line = next(line for line in ran.out.splitlines() if line.startswith("FAIL  own answers"))
    assert "decisions in 3 game(s), first: 'act() raised RuntimeError: tired in game 3'" in line, line
    assert [name for name in found if name != "decisions prsi"] == list(CHECKS)  # the report's order is kept


def test_a_bot_that_does_not_resume_after_a_cut_fails_disconnect_and_resume_only(arena_here):
    bot = f"{sys.executable} {ROOT / 'sample_bots' / 'random_bot.py'} --max-reconnects 0"
    ran = arena_here("check-bot", bot, "--game", "prsi")
    assert ran.status == 1, ran.out + ran.err
    found = statuses(ran.out)
    assert found["disconnect and resume"] == "FAIL", ran.out
    # it left during the cut game, not after a GameEnded: one failure, at its cause, not a second at game end
    assert found["game end"] == "SKIP" and "not run: the bot left during game" in ran.out, ran.out
    assert "8 of 9 checks passed or skipped, 1 failed" in ran.out, ran.out
    assert all(found[name] == "PASS" for name in ("hello", "version", "decisions prsi", "answers in time",
                                                   "index and text", "stale answers")), ran.out


def test_a_bot_that_plays_one_game_and_leaves_fails_game_end(arena_here):
    """misbehaving.py in its well-behaved 'stale' mode: one clean game (with stale repeats), then it exits."""
    ran = arena_here("check-bot", misbehaving("stale"), "--game", "prsi")
    assert ran.status == 1, ran.out + ran.err
    found = statuses(ran.out)
    assert found["decisions prsi"] == found["index and text"] == found["answers in time"] == "PASS", ran.out
    assert found["game end"] == "FAIL" and "exited with status 0" in ran.out, ran.out


@pytest.mark.slow
def test_a_silent_bot_fails_answers_in_time():
    ran = run_arena("check-bot", misbehaving("silent"), "--game", "prsi", "--move-ms", "300", timeout=120)
    assert ran.status == 1, ran.out + ran.err
    found = statuses(ran.out)
    assert found["answers in time"] == found["decisions prsi"] == "FAIL", ran.out
    assert found["index and text"] == "PASS", ran.out


def test_a_bot_that_crashes_mid_game_fails_its_decisions_at_once(arena_here):
    ran = arena_here("check-bot", misbehaving("crash"), "--game", "prsi")
    assert ran.status == 1, ran.out + ran.err
    found = statuses(ran.out)
    assert found["decisions prsi"] == "FAIL" and "aborted (the bot exited with status 3)" in ran.out, ran.out
    # not FAILs of their own (stale answers said "the hurried game could not start")
    assert found["stale answers"] == found["disconnect and resume"] == found["game end"] == "SKIP", ran.out


def test_a_bot_that_never_connects_fails_hello_and_skips_the_rest(arena_here):
    ran = arena_here("check-bot", f"{sys.executable} -c 'import sys; sys.exit(5)'")
    assert ran.status == 1, ran.out + ran.err
    found = statuses(ran.out)
    assert found["hello"] == "FAIL" and "exited with status 5" in ran.out, ran.out
    assert {found[name] for name in found if name != "hello"} == {"SKIP"}, ran.out


# ---------------------------------------------------------------------- usage errors


@pytest.mark.parametrize("args, message", [
    (["nowhere.py"], "does not exist"),
    ([str(ROOT / "sample_bots" / "random_bot.py"), "--game", "chess"], "unknown ruleset 'chess'"),
    ([str(ROOT / "sample_bots" / "random_bot.py"), "--games", "0"], "--games must be at least 1"),
])
def test_bad_command_lines_get_one_line_and_status_2(args, message, arena_here):
    ran = arena_here("check-bot", *args)
    assert ran.status == 2 and message in ran.err and "Traceback" not in ran.err, ran.err
    assert len(ran.err.strip().splitlines()) == 1


@pytest.mark.parametrize("doc, section", [("README.md", "### Does my bot conform?"),
                                          ("docs/other-languages.md", "## Checking a bot")])
def test_the_docs_name_the_checks_a_run_prints_in_its_order(doc, section):
    """CHECKS is what a real run prints (test_own_answers_covers_every_game... checks it): the docs list those
    names, in order, and no check that does not exist (other-languages.md listed 'malformed handling')."""
    text = (ROOT / doc).read_text()
    text = text[text.index(section):]
    text = text.split("\n#")[0]  # to the next heading
    names = [*CHECKS[:2], "decisions RULESET", *CHECKS[2:]]
    assert all(f"`{name}`" in text for name in names), text
    assert [text.index(f"`{name}`") for name in names] == sorted(text.index(f"`{name}`") for name in names)
    assert "malformed handling" not in text
