"""What the flood benches share: an `arena serve` process on loopback and a probe of its games' event loop.

`start` runs ``arena serve --port 0 --web 0`` with a fresh database and replay folder in ``folder`` and returns the
process, its web view's HOST:PORT and its gRPC port, read from its first lines (its output is drained after, so it
never blocks on a full pipe).  `probe` times grpc.health.v1 Check round trips, which the games' loop answers, every
`PROBE_EVERY_S`: inside the Check pace of one address (`arena.server.health`: 20 at once, then 10 a second), so the
probe measures the loop's lag and is never held by that pace itself.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

ROOT = Path(__file__).resolve().parents[1]
#: The probe's pace: within the health Check pace of one address (10 a second after a burst of 20).
PROBE_EVERY_S = 0.125


def start(folder: Path, *serve_args: str) -> tuple[subprocess.Popen, str, int]:
    """`arena serve --web 0 SERVE_ARGS...` on loopback: (the process, the web view's host:port, the arena's gRPC port)."""
    server = subprocess.Popen(
        [sys.executable, "-m", "arena", "serve", "--port", "0", "--web", "0", "--db", str(folder / "ladder.db"),
         "--replays", str(folder / "replays"), "--plain", "--summary-every", "1000", *serve_args],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True,
        env=dict(os.environ, PYTHONUNBUFFERED="1", PYTHONPATH=str(ROOT)))
    web = port = None
    for line in server.stdout:
        found = re.search(r"web view on http://([^/\s]+)", line)
        if found:
            web = found.group(1)
        found = re.search(r"arena listening on \S+:(\d+)", line)
        if found:
            port = int(found.group(1))
        if web and port:
            break
    if not (web and port):
        server.kill()
        raise SystemExit("the server did not start")
    threading.Thread(target=lambda: [None for _ in server.stdout], daemon=True).start()  # keep its pipe drained
    return server, web, port


def probe(address: str, stop: threading.Event, out: list[float]) -> None:
    """Check round trips (ms) to ``address`` every `PROBE_EVERY_S` until ``stop``."""
    stub = health_pb2_grpc.HealthStub(grpc.insecure_channel(address, options=[("grpc.use_local_subchannel_pool", 1)]))
    while not stop.wait(PROBE_EVERY_S):
        began = time.perf_counter()
        try:
            stub.Check(health_pb2.HealthCheckRequest(), timeout=10)
            out.append((time.perf_counter() - began) * 1000)
        except grpc.RpcError:
            pass


def percentile(values: list[float], share: float) -> float:
    """The value at ``share`` of the sorted values (nan for none)."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * share))]
