"""Worker processes for the readers' costly work: the CPU it takes is not the arena process's.

Re-simulating an ended game and turning it into what a reader asked for
(the web view's frames as JSON, Spectate's events) is pure Python: on a
thread of the arena process it holds the GIL the games' event loop needs,
whatever the number of cores.  Measured on a Mose ladder, three web replay
requests at a time from one address cut the games finished in 20 s from 11
to 0 and stalled the loop for seconds (``scripts/bench_replay_flood.py``).
So that work runs here, in processes of its own (`arena.rebuilds` decides
what is admitted; this module only runs it):

* ``workers`` processes (default 1), each started on first use with the
  ``spawn`` start method, never ``fork``: the arena process has gRPC's and
  trio's threads, and a forked copy of a process with threads may inherit a
  lock held by one of them.  (``forkserver`` would leave a server process
  behind for the arena's lifetime; ``spawn``'s children are all this pool's.)
* each lowers its own priority (``os.nice(NICE)``), so the games' process
  wins the CPU when both want it, and ignores SIGINT: Ctrl-C at a terminal
  reaches the whole process group, and the arena stops its workers itself.
* a job is a module-level function and its arguments (pickled by reference;
  the replay's text or path goes over, the encoded answer comes back).  Its
  exception comes back as itself.  A worker that dies under a job (killed,
  crashed, out of memory) fails that job with `WorkerLost`, a clear one-line
  error; the next job starts a fresh worker.
* `WorkerProcesses.close` kills the workers and waits for them (no orphan
  process, whatever a worker was doing); a worker whose arena process dies
  without closing sees its pipe end and exits after its job.

`concurrent.futures.ProcessPoolExecutor` does most of this, but before
Python 3.14 it cannot stop a worker that is busy (its shutdown waits for the
job: seconds for a long game) and does not say which processes it runs; a
process per slot and a pipe to it are all this needs.
"""

from __future__ import annotations

import multiprocessing
import os
import queue
import signal
import threading
from typing import Any, Callable

#: How much the workers lower their priority (``os.nice``): the games' process wins the CPU.
NICE = 10
#: How the workers are started: a fresh interpreter each (see the module docstring).
START_METHOD = "spawn"


class WorkerLost(RuntimeError):
    """The worker process ended (killed, crashed, stopped with the server) while doing a job."""


def _serve(connection: Any, nice: int, preamble: list) -> None:
    """A worker's life: its ``preamble`` jobs, then each job sent, answered ("ok", result) or ("error",
    exception), until the pipe ends."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if nice:
        try:
            os.nice(nice)
        except OSError:  # not allowed here: the job still runs
            pass
    for fn, args in preamble:
        try:
            fn(*args)
        except Exception:  # what it would have set up stays missing: the jobs that need it fail, one by one
            pass
    while True:
        try:
            job = connection.recv()
        except (EOFError, OSError):  # the arena process closed the pipe, or is gone
            return
        if job is None:
            return
        fn, args = job
        try:
            answer = ("ok", fn(*args))
        except Exception as problem:
            answer = ("error", problem)
        try:
            connection.send(answer)
        except (EOFError, OSError):
            return
        except Exception:  # an answer or an exception that does not pickle
            kind, value = answer
            connection.send(("error", RuntimeError(f"the worker's {'answer' if kind == 'ok' else 'error'} "
                                                   f"could not be sent back: {value!r}"[:300])))


class _Worker:
    """One worker process and the pipe to it; used by one thread at a time (`WorkerProcesses` hands it out)."""

    def __init__(self) -> None:
        self.process: Any = None
        self.connection: Any = None
        self.busy = False  # a thread is waiting on its pipe: only that thread closes the pipe


class WorkerProcesses:
    """``workers`` processes that run jobs for threads of this process (`run`), started when first needed."""

    def __init__(self, workers: int = 1, nice: int = NICE, start_method: str = START_METHOD,
                 preamble: Callable[[], list] | None = None) -> None:
        """``preamble()``: the jobs ((fn, args) pairs) each new worker runs first, asked for when it starts
        (what it must know of this process's state: `arena.rebuilds` sends the rulesets registered here)."""
        if workers < 1:
            raise ValueError("workers must be at least 1")
        if start_method == "fork":
            raise ValueError("the arena has threads: its workers are started with spawn or forkserver, never fork")
        self.workers = workers
        self.nice = nice
        self.preamble = preamble
        self._context = multiprocessing.get_context(start_method)
        self._all = [_Worker() for _ in range(workers)]
        self._idle: "queue.SimpleQueue[_Worker]" = queue.SimpleQueue()
        for worker in self._all:
            self._idle.put(worker)
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._closed = False
        #: Counters for operators and tests: workers started, jobs sent, jobs lost with their worker.
        self.started = 0
        self.jobs = 0
        self.lost = 0

    def run(self, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(*args)`` in a worker process, waiting for its answer (on a free worker: at most ``workers``
        jobs run at once, the others' threads wait here).  Raises what ``fn`` raised, or `WorkerLost`."""
        worker = self._idle.get()
        try:
            return self._run(worker, fn, args)
        finally:
            self._idle.put(worker)

    def _run(self, worker: _Worker, fn: Callable[..., Any], args: tuple) -> Any:
        with self._lock:
            if self._closed:
                raise WorkerLost("the server is stopping: its replay worker is closed")
            if worker.process is None or not worker.process.is_alive() or worker.connection.poll():
                # never started, or died while idle (an idle worker's pipe has nothing to read but its end)
                self._discard(worker)
                self._start(worker)
            process, connection = worker.process, worker.connection
            worker.busy = True
            self.jobs += 1
            self._changed.notify_all()
        try:
            connection.send((fn, args))
            kind, value = connection.recv()
        except (EOFError, OSError) as broken:  # the worker died under the job (or the server closed it)
            with self._lock:
                worker.busy = False
                self.lost += 1
                if worker.process is process:
                    code = self._discard(worker)
                else:  # `close` took the process: the pipe is this thread's to close
                    connection.close()
                    raise WorkerLost("the server is stopping: the replay worker was closed under this "
                                     "request") from broken
            how = f"ended with exit code {code}" if code is not None and code >= 0 else (
                f"was killed by signal {-code}" if code is not None else "went away")
            raise WorkerLost(f"the replay worker process {how} while building this answer; "
                             "ask again (a fresh worker takes the next request)") from broken
        with self._lock:
            worker.busy = False
            if worker.process is not process:
                connection.close()
        if kind == "error":
            raise value
        return value

    def _start(self, worker: _Worker) -> None:
        """A fresh process for ``worker`` (under the lock)."""
        ours, theirs = self._context.Pipe()
        preamble = self.preamble() if self.preamble is not None else []
        process = self._context.Process(target=_serve, args=(theirs, self.nice, preamble),
                                        name="arena-reader-worker", daemon=True)
        process.start()
        theirs.close()  # only the worker holds its end: its death is our end of file
        worker.process, worker.connection = process, ours
        self.started += 1

    def _discard(self, worker: _Worker) -> int | None:
        """Forget ``worker``'s process, killing it if it still runs, and reap it: its exit code (under the
        lock, by the thread that uses it or for an idle worker)."""
        process, connection = worker.process, worker.connection
        worker.process = worker.connection = None
        if connection is not None:
            connection.close()
        return _end(process)

    def pids(self) -> list[int]:
        """The workers' process ids now (none before the first job)."""
        with self._lock:
            return [w.process.pid for w in self._all if w.process is not None and w.process.is_alive()]

    def wait_jobs(self, count: int, timeout: float) -> int:
        """Wait until at least ``count`` jobs have been sent (or ``timeout`` seconds passed); the number then.
        For tests and tools that must know a job has reached a worker, without polling."""
        with self._changed:
            self._changed.wait_for(lambda: self.jobs >= count, timeout)
            return self.jobs

    def close(self) -> None:
        """Kill every worker and reap it (the server is stopping); a job under way fails with `WorkerLost`.
        No job starts afterwards.  Safe to call more than once."""
        with self._lock:
            self._closed = True
            for worker in self._all:
                process, connection = worker.process, worker.connection
                worker.process = worker.connection = None
                _end(process)
                if connection is not None and not worker.busy:
                    connection.close()


def _end(process: Any) -> int | None:
    """Kill ``process`` if it still runs and reap it (no zombie, no orphan): its exit code."""
    if process is None:
        return None
    if process.is_alive():
        process.kill()
    process.join()
    code = process.exitcode
    process.close()
    return code
