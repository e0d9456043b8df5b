"""mau_arena_sdk.timerfd: the ctypes timerfd both the SDK's stand-by thread and the server's loop wait on."""

from __future__ import annotations

import select
import sys
import time

import pytest

from mau_arena_sdk.timerfd import TimerFd

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="timerfd is Linux only")


@pytest.fixture
def timer():
    made = TimerFd.create(nonblocking=True)
    assert made is not None, "Linux with a libc that has timerfd_create"
    yield made
    made.close()


def _readable(timer: TimerFd, wait_s: float) -> bool:
    return select.select([timer.fd], [], [], wait_s)[0] == [timer.fd]


def test_a_new_timer_is_disarmed_and_a_non_blocking_read_takes_nothing(timer):
    assert not _readable(timer, 0.02)
    assert timer.read() == 0


def test_a_relative_one_shot_fires_once_after_its_delay(timer):
    start = time.monotonic()
    timer.set(0.02)
    assert _readable(timer, 2.0) and time.monotonic() - start >= 0.02
    assert timer.read() == 1
    assert not _readable(timer, 0.05)  # once: not again


def test_an_absolute_time_in_the_past_fires_at_once(timer):
    timer.set(time.monotonic() - 1.0, absolute=True)
    assert _readable(timer, 0.5) and timer.read() == 1


def test_a_period_keeps_firing_until_disarmed(timer):
    timer.set(0.005, 0.005)
    assert _readable(timer, 2.0)
    assert _readable(timer, 2.0) and timer.read() >= 1
    assert _readable(timer, 2.0)  # it fires again after the read
    timer.disarm()
    timer.read()
    assert not _readable(timer, 0.05)


def test_a_blocking_read_waits_for_the_expiry_and_close_is_idempotent():
    timer = TimerFd.create()
    assert timer is not None
    start = time.monotonic()
    timer.set(0.02)
    assert timer.read() == 1 and time.monotonic() - start >= 0.02
    timer.close()
    timer.close()
    assert timer.fd == -1
