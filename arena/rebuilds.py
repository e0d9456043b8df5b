"""A bounded budget for the costly work done on behalf of readers: ended games re-simulated from their
replays (Spectate of a game this host does not hold, the web view's frames), rating histories
recomputed from every result.

Rebuilding what a reader sees from a replay means running the whole game
through the engine again and projecting every step into the view asked for:
a long Mose game's spectator view is about 700 KB of JSON and a second of
CPU, its omniscient view 3.6 s; a bot's rating history at 100,000 games
reads and replays every result.  A reader is anyone who can reach the
server's Spectate or the web API, so without a bound a client that asks for
many of these at once (or the same one many times) takes the CPU and,
through the GIL, the event loop that answers the bots: their moves then time
out.

`Rebuilds` is the one place such work is admitted, per process:

* at most ``running`` rebuilds at a time, on its own threads (so waiting
  requests hold no thread of anyone else's pool);
* the replays' work (the re-simulation, the view's frames or Spectate's
  events, and their encoding) runs in worker processes (``workers``, an
  `arena.workerprocesses.WorkerProcesses` of ``running`` processes, started
  when first needed, at a lower priority), not on those threads: a thread
  of this process holds the GIL whatever the number of cores, and a web
  replay flood from one address (3 requests at a time) stopped a Mose
  ladder's games outright (``scripts/bench_replay_flood.py``).  The thread
  only fetches the replay (a file's path, or the database's text) and waits
  for the worker's answer, as bytes;
* at most ``waiting`` more in line; a request beyond that is refused at once
  with `Busy` (Spectate answers RESOURCE_EXHAUSTED, the web 503 with
  Retry-After), and nothing is queued without bound;
* one rebuild per key however many readers ask for it at the same time (they
  share its future, and cost no slot), and the last ``kept`` results are
  remembered (a replay per game and view, as the bytes sent: a long Mose
  game's view is 0.7-4 MB), so a popular game is rebuilt once;
* at most ``per_reader`` of the admitted rebuilds started by one reader (its
  network address: gRPC's peer, the web's client), so one address that asks
  for many different games holds a few slots, not the whole line, and the
  other readers still get theirs.  Readers behind one proxy share an address:
  `arena web --proxy-hops` and `arena serve --web-proxy-hops` read the client's
  address from ``X-Forwarded-For`` instead.  How often an address may ask is
  its read pace's business (`arena.server.readpace`): a replay costs turns in
  proportion to its decisions (`arena.server.readpace.replay_turns`).

The rating histories and the web's standings fit stay on the budget's thread:
their input is the ladder database (every result of a ruleset), not one
replay's text, so a worker would need a connection of its own (and a
PostgreSQL ladder's credentials in a second process); they are computed once
per ruleset and remembered until another game finishes, and the pace bounds
how often one address asks.  They still take this process's GIL while they
run (one at a time): moving them is the next step if a large ladder shows it.

A reader that stops waiting (a Spectate whose client cancelled, a web
request whose connection closed) cancels nothing of the budget's: the future
the readers share cannot be cancelled, the rebuild runs (it may be asked for
again) and its slot and its reader's share are given back when it ends,
however it ends.  Otherwise cancelled calls kept their places for good, and
nine of them (three addresses) refused every reader until a restart.

Failures are not remembered: the next request tries again.  A worker that
dies under a job fails that job (`arena.workerprocesses.WorkerLost`) and the
next job gets a fresh one.  `Rebuilds.close` stops the workers with the server.
"""

from __future__ import annotations

import importlib
import sys
import threading
from collections import OrderedDict
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Callable, Hashable

from arena.workerprocesses import WorkerProcesses

#: Defaults: one rebuild at a time per process, in one worker process at a lower priority.
RUNNING = 1
WAITING = 8
KEPT = 16
#: One address may hold 3 of the 9 slots: the other readers keep 6.
PER_READER = 3


class Busy(Exception):
    """Too many rebuilds running and waiting: the reader should try again a little later."""


class Stopped(Exception):
    """The budget was closed (the server is stopping) before this rebuild ran."""


class Rebuilds:
    def __init__(self, running: int = RUNNING, waiting: int = WAITING, kept: int = KEPT,
                 per_reader: int = PER_READER, workers: WorkerProcesses | None = None) -> None:
        """``workers``: the processes the replays' work runs in (`run_in_worker`); ``running`` of them,
        started when first needed, if None."""
        if running < 1 or waiting < 0 or kept < 0 or per_reader < 1:
            raise ValueError("running and per_reader must be at least 1, waiting and kept at least 0")
        self.running = running
        self.waiting = waiting
        self.kept = kept
        self.per_reader = per_reader
        self._lock = threading.RLock()  # re-entered when a job ends before its done-callback is added
        self._changed = threading.Condition(self._lock)  # notified whenever a rebuild is admitted or settled
        self._done: "OrderedDict[Hashable, Any]" = OrderedDict()
        self._pending: dict[Hashable, Future] = {}  # key -> the future its readers share (never cancelled)
        self._starter: dict[Hashable, Hashable] = {}  # key -> the reader whose request started its rebuild
        self._started: dict[Hashable, int] = {}  # reader -> admitted rebuilds it started
        self._executor: ThreadPoolExecutor | None = None
        self.workers = workers if workers is not None else WorkerProcesses(running, preamble=rulesets_here)
        #: Counters for operators and tests: rebuilds run, requests refused, answered from memory.
        self.built = 0
        self.refused = 0
        self.remembered = 0

    def submit(self, key: Hashable, build: Callable[[], Any], reader: Hashable = None) -> "Future[Any]":
        """The result of ``build()`` for ``key``: remembered, shared with a rebuild under way, or queued.

        Raises `Busy` when ``running + waiting`` distinct rebuilds are already admitted, or when
        ``reader`` (an address; None: not counted) already started ``per_reader`` of them.
        ``build`` runs on one of this budget's threads; its exception reaches the future.
        """
        with self._lock:
            if key in self._done:
                self._done.move_to_end(key)
                self.remembered += 1
                future: Future = Future()
                future.set_result(self._done[key])
                return future
            if key in self._pending:
                return self._pending[key]
            if len(self._pending) >= self.running + self.waiting:
                self.refused += 1
                raise Busy(f"{len(self._pending)} replays are being rebuilt or waiting; try again shortly")
            if reader is not None and self._started.get(reader, 0) >= self.per_reader:
                self.refused += 1
                raise Busy(f"{self.per_reader} rebuilds asked for from your address are already under way; "
                           "try again when they are done")
            if self._executor is None:
                self._executor = ThreadPoolExecutor(self.running, thread_name_prefix="replay-rebuild")
            # The readers' future is the budget's own, marked running at once: a reader's cancellation (a
            # Spectate whose client went away: grpc.aio cancels the handler, asyncio's wrap_future then cancels
            # what it waits on) cannot cancel it, so the rebuild runs and the slot is given back.
            shared: Future = Future()
            shared.set_running_or_notify_cancel()
            self._pending[key] = shared
            if reader is not None:
                self._starter[key] = reader
                self._started[reader] = self._started.get(reader, 0) + 1
            job = self._executor.submit(build)
            # Settled when the job ends however it ends (built, failed, or cancelled in line by `close`).
            job.add_done_callback(lambda job: self._finish(key, shared, job))
            self._changed.notify_all()
            return shared

    def _finish(self, key: Hashable, shared: Future, job: Future) -> None:
        """The job of ``key`` is over: its slot given back, its result remembered, its readers told."""
        with self._lock:
            self._settle(key)
            if job.cancelled():
                error: BaseException | None = Stopped("the server is stopping: the rebuild was not run")
            else:
                error = job.exception()
            if error is None:
                result = job.result()
                self.built += 1
                if self.kept and result is not None:
                    self._done[key] = result
                    while len(self._done) > self.kept:
                        self._done.popitem(last=False)
        if error is None:
            shared.set_result(result)
        else:
            shared.set_exception(error)

    def _settle(self, key: Hashable) -> None:
        """The rebuild of ``key`` is over: its slot, and its reader's share, are free (under the lock)."""
        self._pending.pop(key, None)
        reader = self._starter.pop(key, None)
        if reader is not None:
            left = self._started[reader] - 1
            if left:
                self._started[reader] = left
            else:
                del self._started[reader]
        self._changed.notify_all()

    def run_in_worker(self, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(*args)`` in a worker process (from a build, on this budget's thread): what it returns, or
        what it raised, or `arena.workerprocesses.WorkerLost` when the worker died under it."""
        return self.workers.run(fn, *args)

    def in_flight(self) -> int:
        """Rebuilds admitted and not yet finished (running or waiting)."""
        with self._lock:
            return len(self._pending)

    def wait_in_flight(self, count: int, timeout: float) -> int:
        """Wait until at least ``count`` rebuilds are admitted (or ``timeout`` seconds passed); the number then.

        For operators' tools and tests that must know a request has reached the budget, without polling."""
        with self._changed:
            self._changed.wait_for(lambda: len(self._pending) >= count, timeout)
            return len(self._pending)

    def close(self) -> None:
        """Stop (the process is stopping): the rebuilds waiting in line fail with `Stopped`, the worker processes
        killed and reaped (a rebuild under way fails with `WorkerLost`), the threads end."""
        with self._lock:
            executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=False, cancel_futures=True)
        self.workers.close()


def rulesets_here() -> list:
    """A new worker's first job: register the rulesets this process knows that a module holds (a spawned worker
    knows only those its own imports register; one added at run time, as a plugin's or a test's
    ``registry.register(INFO)``, is found again by its module and name there)."""
    from arena.games import registry

    held = []
    for name in registry.names():
        info = registry.get(name)
        for part in (info.new_game, info.from_position):
            module = sys.modules.get(getattr(part, "__module__", None) or "")
            found = next((attr for attr, value in vars(module).items() if value is info), None) if module else None
            if found is not None:
                held.append((module.__name__, found))
                break
    return [(adopt_rulesets, (held,))]


def adopt_rulesets(held: list) -> None:
    """In a worker: register each ruleset ``(module, attribute)`` names that it does not know yet."""
    from arena.games import registry

    for module, attribute in held:
        info = getattr(importlib.import_module(module), attribute)
        if info.name not in registry.names():
            registry.register(info)
