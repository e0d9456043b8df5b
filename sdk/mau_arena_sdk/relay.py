"""Who runs bot code: the thread that owns the client's asyncio loop, a stand-by thread, or a game's worker.

With room for one game (``max_games`` = 1) bot code (``act``, ``on_game_start``, ``on_game_end``) runs
right where its message is read, inside the loop, since no other game could wait meanwhile (the loop is
hidden from it: ``asyncio.run`` in ``act`` still works, and Ctrl-C interrupts it).  That holds even when a
call outlives its game (its time ran out, the arena forfeited the seat and ended the game): the arena
keeps the game's slot until the late answer arrives (`arena.server.sessions.Hub.release`), so no new
game is started for this bot while the loop cannot read (before, each one started meanwhile was lost
unseen).  The alternative, bot code always off the loop and a new game served while the stale call
finishes, would cost every decision a hand-off and show a one-game bot two calls at once; the arena
knows the answer is owed, and waiting for it keeps the bot's code single-threaded.  With room for more,
the thread that owns the loop runs it until bot code is due, then runs that code itself, outside the
loop, and goes back to the loop: a turn costs no thread hand-off at all.  A slow ``act`` must not hold up
the other games, so a stand-by thread sleeps on a Linux ``timerfd`` that ticks every `Relay.TICK_S` while
bot code runs: a call still running on two ticks in a row (10-20 ms) is taken over, that is, the
stand-by thread becomes the loop's owner and serves the other games, while the slow call's thread
finishes it (and whatever that game received meanwhile, in order) and then stands by in turn.  A game
with a call taken over is slow: its next calls go to a worker thread of its own (`GameWorker`; a
hand-off per call costs little next to them).  The calls of one game always run in order, one at a
time.  Without timerfd (not Linux) every game gets its own worker thread instead.

Why: measured on the 2-core build machine (server README, "Fourth pass"), each hand-off between threads
costs tens of microseconds of CPU there (a wake-up across cores), and the per-game worker threads of an
earlier client (synchronous grpcio: a polling thread notifying the reader, the reader handing each turn to
the game's worker, the worker to grpc's request-consumer thread) spent ~100 us more per decision than a
bot answering on the reading thread.

The relay knows a game by the fields it keeps on it (``busy``, ``slow``, ``queued``, ``pending``,
``worker``, ``game_id``) and sends what bot code returns through ``outgoing_of(game)``, the game's
stream's `Outgoing` (None while disconnected: the message is dropped; the client re-sends its last
answer when the request comes back).  `lock` also guards the client's changes to a stream's `Outgoing`,
so that a thread never sends into a half-replaced one.
"""

from __future__ import annotations

import asyncio
import threading
from collections import deque
from typing import Any, Callable, Optional

from mau_arena_sdk.event_loops import hide_running_loop
from mau_arena_sdk.game_worker import GameWorker
from mau_arena_sdk.timerfd import TimerFd


class Relay:
    """Runs bot calls for the client's games on the right thread (see the module docstring).

    `run` drives the loop on the calling thread until the session's task is done; handlers on the loop
    hand bot calls over with `dispatch`; `close` ends the stand-by thread.
    """

    #: The stand-by thread's tick while bot code runs: a call still running on two ticks in a row
    #: (so after 1-2 ticks) is taken over.  A periodic timer rather than one armed and disarmed
    #: around each call: in the 2-core VM this was measured on, two ``timerfd_settime`` per call
    #: cost 20-120 us per decision under load (8 us idle), more than the hand-off they replace; a
    #: tick every 10 ms costs one wake-up.
    TICK_S = 0.010
    #: Ticks in a row that find no bot call running, after which the stand-by thread stops ticking
    #: (the next call starts it again).
    IDLE_TICKS = 50

    def __init__(self, loop: asyncio.AbstractEventLoop, max_games: int,
                 outgoing_of: Callable[[Any], Any]) -> None:
        self.loop = loop
        self.outgoing_of = outgoing_of
        #: One game at most: bot code runs inside the loop (`_call_in_loop`).
        self.inline = max_games == 1 and hide_running_loop is not None
        self.lock = threading.Lock()
        self._timer: TimerFd | None = TimerFd.create() if max_games > 1 else None
        #: Several games and no timerfd: every game gets its own worker thread.
        self.worker_per_game = max_games > 1 and self._timer is None
        self._task: Any = None                # the session: when it is done, the loop's owner stops
        self._work: deque = deque()           # (game, fn, args) due, in arrival order
        self._owner = threading.get_ident()   # the thread that owns the loop: the one that made it
        self._owner_in_bot = False            # the owner is running bot code (the loop is not running)
        self._standby: int | None = None      # ident of the thread sleeping on the timer
        self._calls = 0                       # bot calls started on the owner's path so far
        self._current: Any = None             # the game of the owner's current bot call
        self._ticking = False                 # the timer is running
        self._closing = False
        self._finished = threading.Event()
        self._threads: list[threading.Thread] = []   # stand-by threads started (joined at the end)

    # ------------------------------------------------------------------ the loop's owner
    def run(self, task: Any) -> None:
        """On the thread that made the loop: own it and run bot code until ``task`` (the session) is
        done, then return (after the thread that took the loop over has ended the session, if one did)."""
        self._task = task
        if self._drive():
            self._finished.wait()   # another thread owns the loop now: it ends the session

    def _drive(self) -> bool:
        """Own the loop: run it until bot code is due, run that code here, repeat.

        Returns False when the session is over, True when another thread took the loop over
        during a slow bot call (this thread has then finished that game's calls)."""
        loop = self.loop
        me = threading.get_ident()
        while True:
            item = self._next_item()
            if item is None:
                if self._task.done():
                    self._finished.set()
                    return False
                loop.run_forever()  # until `dispatch` has work for us, or the session is over
                continue
            game, fn, args = item
            message = fn(*args)
            if not self._after_item(me, game, message):
                self._finish_detached(game)
                return True

    def _next_item(self) -> Optional[tuple]:
        with self.lock:
            while self._work:
                item = self._work.popleft()
                game = item[0]
                game.queued -= 1
                if game.busy:  # its last call still runs on another thread: that thread runs this one next
                    game.pending.append(item)
                    continue
                game.busy = True
                self._owner_in_bot = True
                self._current = game
                self._calls += 1
                if self._timer is not None:
                    if self._standby is None:
                        self._start_standby(self._timer)
                    if not self._ticking:  # the stand-by thread stops it after a while without bot calls
                        self._ticking = True
                        self._timer.set(self.TICK_S, self.TICK_S)
                return item
        return None

    def _after_item(self, me: int, game: Any, message: Any) -> bool:
        """After a bot call on the owner's path: True if this thread still owns the loop."""
        with self.lock:
            owner = self._owner == me
            if owner:
                self._owner_in_bot = False
                game.busy = False
                while game.pending:  # nothing is queued while we own the loop, but keep the order if so
                    game.queued += 1
                    self._work.appendleft(game.pending.pop())
            outgoing = self.outgoing_of(game)
            if message is not None and outgoing is not None:
                if owner:
                    outgoing.put_owned(message)
                else:
                    outgoing.put_threadsafe(message)
        return owner

    def _finish_detached(self, game: Any) -> None:
        """Taken over during a slow call: run the calls this game got meanwhile, in order."""
        while True:
            with self.lock:
                if not game.pending:
                    game.busy = False
                    return
                _, fn, args = game.pending.popleft()
            message = fn(*args)
            if message is not None:
                with self.lock:
                    outgoing = self.outgoing_of(game)
                if outgoing is not None:
                    outgoing.put_threadsafe(message)

    # ------------------------------------------------------------------ the stand-by thread
    def _start_standby(self, timer: TimerFd) -> None:
        # The timer goes in as an argument: the session may end (and `close` clear `_timer`)
        # before the new thread first runs, and the thread must still sleep on it, see
        # `_closing` and leave.
        thread = threading.Thread(target=self._stand_by, args=(timer,), name="sdk-standby", daemon=True)
        self._standby = -1  # reserved until the thread knows its ident
        self._threads.append(thread)
        thread.start()

    def _stand_by(self, timer: TimerFd) -> None:
        """Sleep on the timer; when a bot call outlasts it, take the loop over and serve."""
        me = threading.get_ident()
        with self.lock:
            self._standby = me
        seen, idle = -1, 0
        while True:
            timer.read()
            with self.lock:
                if self._closing:
                    if self._standby == me:
                        self._standby = None
                    return
                if not self._owner_in_bot:
                    seen, idle = -1, idle + 1
                    if idle >= self.IDLE_TICKS and self._ticking:
                        self._ticking = False  # no bot code for a while: stop ticking until the next call
                        timer.disarm()
                    continue
                idle = 0
                if self._calls != seen:  # a call that started since the last tick: give it one more
                    seen = self._calls
                    continue
                self._owner, self._owner_in_bot, self._standby = me, False, None
                if self._current is not None:
                    self._current.slow = True
            seen = -1
            if not self._drive():
                return  # the session is over
            with self.lock:  # taken over in turn: stand by again unless another thread does
                if self._closing or self._standby is not None:
                    return
                self._standby = me

    # ------------------------------------------------------------------ handing calls over (on the loop)
    def dispatch(self, game: Any, fn: Callable[..., Any], *args: Any) -> None:
        """On the loop: have ``fn(*args)`` (bot code; may return a message to send) run for ``game``."""
        if self.inline:
            message = self._call_in_loop(fn, args)
            if message is not None:
                outgoing = self.outgoing_of(game)
                if outgoing is not None:
                    outgoing.put_owned(message)
            return
        with self.lock:
            if game.busy:  # a taken-over thread still runs this game's last call
                game.pending.append((game, fn, args))
                return
            if game.slow and game.worker is None and not game.queued:
                # Its calls take long: a hand-off per call costs little next to them, and
                # taking each one over would cost a tick or two and a thread.
                game.worker = GameWorker(f"game-{game.game_id[:12]}")
            if game.worker is None:
                game.queued += 1
                self._work.append((game, fn, args))
        if game.worker is not None:
            game.worker.submit(self._on_worker, game, fn, args)
            return
        self.loop.stop()  # the owner runs it as soon as this loop iteration is over

    def _call_in_loop(self, fn: Callable[..., Any], args: tuple) -> Any:
        """Bot code right here, inside the loop: one game, so nothing else waits meanwhile, and no
        exit from the loop, relay and re-entry per call (20-40 us less bot CPU per decision at one
        game, same-run A/Bs).  The loop is hidden from the call meanwhile, as if it ran outside:
        ``asyncio.run`` in it works, and the signal handler sees bot code and interrupts it."""
        loop = self.loop
        hide_running_loop(None)
        try:
            return fn(*args)
        finally:
            hide_running_loop(loop)

    def _on_worker(self, game: Any, fn: Callable[..., Any], args: tuple) -> None:
        message = fn(*args)
        outgoing = self.outgoing_of(game)
        if message is not None and outgoing is not None:
            outgoing.put_threadsafe(message)

    # ------------------------------------------------------------------ the end
    def close(self) -> None:
        """The session is over: the stand-by thread leaves (and is joined, unless stuck in bot code)."""
        with self.lock:  # _next_item reads _timer under the lock: never a half-closed view
            self._closing = True
            timer, self._timer = self._timer, None
        self._finished.set()
        if timer is not None:
            timer.set(1e-6)  # wakes the stand-by thread, which sees _closing and leaves
            for thread in self._threads:
                if thread is not threading.current_thread():
                    thread.join(1.0)
            if not any(thread.is_alive() for thread in self._threads):
                timer.close()  # else a thread still runs a stuck bot call: leave the fd to the process

    def interrupted(self) -> None:
        """Ctrl-C raised in bot code on this thread, after the client was told to stop: let the session
        end cleanly (run the loop to its end if this thread still owns it, else wait for the owner)."""
        with self.lock:
            owner = self._owner == threading.get_ident()
            if owner:
                self._owner_in_bot = False
        if owner:
            try:
                self.loop.run_until_complete(self._task)
            except BaseException:
                pass
        else:
            self._finished.wait(10)
