"""`Stopping`: how a ladder stops, and what it says about it.

A ladder stops on ``--duration``, ``--max-games``, Ctrl-C or SIGTERM: no new game starts; the running
games may finish for ``drain_s`` seconds (`drain`), then the rest are cancelled and recorded as aborted.
A Ctrl-C or SIGTERM while they drain cancels them at once, and the final reason says so after what
stopped the ladder ("Ctrl-C, aborted by a second Ctrl-C"); `interrupted` tells `arena serve` to exit
130 when Ctrl-C played a part.  A stop that comes while the process is still starting (`arena serve`
owns the signals from its start) makes the ladder stop as soon as it runs, without a game.

The director owns the games; this object owns the decision and its words: it wakes the director's
planning loop (``kick``), counts the running games through it (``running``) and cancels the games'
scope (`sets_scope`) to abort them.
"""

from __future__ import annotations

import signal
from typing import Any, Callable

import trio


class Stopping:
    """Whether, why and how far a ladder is stopping (`LadderDirector.stop`, `on_signal`, `abort_now`)."""

    def __init__(self, kick: Callable[[], None], running: Callable[[], int], say: Callable[[str], None]) -> None:
        """kick: wake the planning loop; running: the game sets running now; say: a stopping message, shown."""
        self._kick = kick
        self._running = running
        self._say = say
        self.event: trio.Event | None = None  # created inside trio (`start`)
        self.reason = ""  # what stopped the ladder, as the final line says it ("Ctrl-C", "--max-games 4 reached")
        #: What the stopping message adds while games drain: how to abort them ("again to abort running games"
        #: after a signal); not part of `reason`, which is said once it can no longer be followed.
        self.hint = ""
        self.interrupted = False  # a Ctrl-C reached the ladder (`LadderSummary.interrupted`)
        self._aborted_by = ""  # the signal that aborted the draining games, once one has
        self._at_start = False  # `stop` was called before the ladder ran: it stops as soon as it does
        #: The scope of the running games' nursery, while there is one: cancelled to abort them.
        self.sets_scope: trio.CancelScope | None = None

    def start(self) -> trio.Event:
        """The ladder runs (inside trio): the stopping event, already set if a stop came first."""
        self.event = trio.Event()
        if self._at_start:  # told to stop while the process was still starting (`arena serve`'s signals)
            self.event.set()
        return self.event

    def is_set(self) -> bool:
        """Whether the ladder is stopping (False before it runs)."""
        return self.event is not None and self.event.is_set()

    def stop(self, reason: str, hint: str = "") -> None:
        """Stop scheduling; running games drain (call from trio).  Called before the ladder runs, it makes the
        ladder stop as soon as it starts, without a game.  ``hint`` is what the stopping message adds while games
        drain (kept in `hint`)."""
        if self.event is None:
            if not self._at_start:
                self.reason, self._at_start = reason, True
        elif not self.event.is_set():
            self.reason, self.hint = reason, hint
            self.event.set()
            self._kick()

    def on_signal(self, signum: int) -> None:
        """SIGINT (Ctrl-C) or SIGTERM: the first stops scheduling and lets the running games finish (`drain_s`),
        the second aborts them; before the ladder runs, the first makes it stop as soon as it does.  The ladder's
        own receiver calls this (`LadderSettings.handle_signals`), or the program that owns the process's signals
        does (`arena serve`, whose receiver is open from its start)."""
        name = "Ctrl-C" if signum == signal.SIGINT else "SIGTERM"
        self.interrupted = self.interrupted or signum == signal.SIGINT
        if self.event is None:
            self.stop(f"{name} during start-up, before any game")
        elif self.event.is_set():
            self._abort_draining(name)
        else:
            self.stop(name, hint="again to abort running games")

    def _abort_draining(self, name: str) -> None:
        """A signal while the ladder drains (after any stop: a signal, ``--duration``, ``--max-games``): the running
        games are aborted at once, which the stopping message says now and the final reason says after what
        stopped the ladder ("Ctrl-C, aborted by a second Ctrl-C", "--duration 60 s reached, aborted by Ctrl-C")."""
        running = self._running()
        if not self._aborted_by and running:
            self._aborted_by = name
            self.reason += f", aborted by {'a second ' if self.reason == name else ''}{name}"
            self._say(f"stopping ({name}): aborting {running} running games")
        self.abort_now(name)

    def abort_now(self, reason: str) -> None:
        """Stop, and cancel the running games at once (they are recorded as aborted)."""
        self.stop(reason)
        if self.sets_scope is not None:
            self.sets_scope.cancel()

    async def drain(self, all_done: trio.Event, drain_s: float) -> None:
        """Let the running games finish for ``drain_s`` seconds (``all_done`` is set when none is left), saying
        so; the caller cancels the games still running after it."""
        if self._running():
            hint = f"; {self.hint}" if self.hint else ""
            self._say(f"stopping ({self.reason}{hint}): letting {self._running()} running games finish")
            with trio.move_on_after(drain_s):
                await all_done.wait()
            if self._running():
                self._say(f"stopping: aborting {self._running()} games still running")

    async def stop_after(self, seconds: float) -> None:
        """``--duration``: stop once ``seconds`` have passed."""
        await trio.sleep(seconds)
        self.stop(f"--duration {seconds:g} s reached")

    async def watch_signals(self, task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
        """The ladder's own receiver of SIGINT and SIGTERM (`LadderSettings.handle_signals`); started once open."""
        with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as received:
            task_status.started()
            async for signum in received:
                self.on_signal(signum)
