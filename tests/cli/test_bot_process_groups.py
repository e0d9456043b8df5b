"""Stopping a match's bots signals each bot's process group only while its leader is unreaped.

A reaped bot's pid, which was its group's id, is the kernel's to hand out again (pid_max is 32,768 on the CI
machine and a full test suite wraps it): `stop_all` sent SIGTERM, SIGCONT and SIGKILL to the old number after
reaping, and reached whichever program had since started its own session with that pid (in CI: another test's
server and bots, "only 0 decisions measured", and a server that never saw its Ctrl-C)."""

import subprocess
import sys
from types import SimpleNamespace

from arena.cli.match_processes import BotProcess, stop_all


def a_group_leader():
    """A live process leading its own session, as a reused pid would be: it answers each line with 'pong'."""
    return subprocess.Popen([sys.executable, "-c", "import sys\nfor line in sys.stdin:\n    print('pong', flush=True)"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, start_new_session=True)


def answers(process):
    """Whether it still runs its own code: a signal sent before this cannot have been left undelivered."""
    try:
        process.stdin.write("ping\n")
        process.stdin.flush()
    except BrokenPipeError:
        return False
    return process.stdout.readline() == "pong\n"


def reaped_bot_whose_pid_is(pid):
    bot = BotProcess.__new__(BotProcess)
    bot.process = SimpleNamespace(pid=pid, returncode=0, wait=lambda timeout=None: 0)
    bot.killed = False
    return bot


def test_a_reaped_bots_old_group_id_is_never_signalled_so_a_program_that_reuses_the_pid_lives_on():
    stranger = a_group_leader()
    try:
        stopped = stop_all([reaped_bot_whose_pid_is(stranger.pid)], grace_s=0.1)
        assert stopped == []
        assert answers(stranger)  # the old code killed it (SIGTERM, then SIGKILL to its group)
    finally:
        stranger.kill()
        stranger.wait()


def test_a_live_bot_is_stopped_with_its_group_and_reaped():
    leader = a_group_leader()
    assert answers(leader)
    bot = BotProcess.__new__(BotProcess)
    bot.process, bot.killed = leader, False
    assert stop_all([bot], grace_s=5.0) == []  # SIGTERM ends it within the grace
    assert leader.returncode is not None  # reaped by stop_all, after its group was signalled
