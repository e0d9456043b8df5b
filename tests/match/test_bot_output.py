"""An in-process bot's prints go to its own stream, while the program's own prints, from any thread, stay on stdout."""

from __future__ import annotations

import io
import sys
import threading

from arena.match.bot_output import RoutedStream, bot_output, routed_output


def test_a_bots_prints_on_a_worker_thread_and_the_programs_meanwhile_go_apart(monkeypatch):
    program_out, program_err, bot_log = io.StringIO(), io.StringIO(), io.StringIO()
    monkeypatch.setattr(sys, "stdout", program_out)
    monkeypatch.setattr(sys, "stderr", program_err)
    in_call, program_printed = threading.Event(), threading.Event()

    def bot() -> None:
        with bot_output(bot_log):
            print("bot: before")
            in_call.set()
            program_printed.wait(10)  # the program prints while this call is under way
            print("bot: after")
            print("bot: a warning", file=sys.stderr)

    with routed_output() as stderr:
        assert stderr is program_err
        worker = threading.Thread(target=bot)
        worker.start()
        assert in_call.wait(10)
        print('{"json": "of the program"}')  # the main thread, in the middle of the bot's call
        program_printed.set()
        worker.join(10)
    assert program_out.getvalue() == '{"json": "of the program"}\n'
    assert bot_log.getvalue() == "bot: before\nbot: after\nbot: a warning\n"
    assert program_err.getvalue() == ""
    assert sys.stdout is program_out and sys.stderr is program_err  # put back once no bot call is under way


def test_the_routing_stays_while_a_bot_cut_off_at_its_deadline_is_still_printing(monkeypatch):
    program_out, bot_log = io.StringIO(), io.StringIO()
    monkeypatch.setattr(sys, "stdout", program_out)
    in_call, match_over = threading.Event(), threading.Event()

    def stuck_bot() -> None:
        with bot_output(bot_log):
            in_call.set()
            match_over.wait(10)
            print("late")

    worker = threading.Thread(target=stuck_bot)
    with routed_output():
        worker.start()
        assert in_call.wait(10)
    assert isinstance(sys.stdout, RoutedStream)  # the match is over, the abandoned call is not
    print("result")
    match_over.set()
    worker.join(10)
    assert program_out.getvalue() == "result\n" and bot_log.getvalue() == "late\n"
    with routed_output():  # once no call is under way, the next match's end restores the streams
        pass
    assert sys.stdout is program_out
