"""Operations: the standard gRPC health service on a real `arena serve`, `arena health`, and JSON logs."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import threading

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from test_serve_e2e import ROOT, Server, cleanup  # noqa: F401 (cleanup: a fixture)

SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING


def arena_health(port: int) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "arena", "health", f"127.0.0.1:{port}", "--timeout", "5"],
                          capture_output=True, text=True, timeout=60, cwd=str(ROOT))


def test_health_says_serving_then_not_serving_while_draining_and_the_command_exits_accordingly(tmp_path, cleanup):
    server = Server(tmp_path, "--log-format", "json", "--log-level", "info")
    cleanup.append(server)
    ok = arena_health(server.port)
    assert ok.returncode == 0 and ok.stdout.strip() == f"127.0.0.1:{server.port}: SERVING", ok.stdout + ok.stderr

    # A balancer's watch: SERVING now, NOT_SERVING once the arena starts to stop.
    channel = grpc.insecure_channel(f"127.0.0.1:{server.port}")
    watch = health_pb2_grpc.HealthStub(channel).Watch(health_pb2.HealthCheckRequest(service="mauarena.v1.Arena"))
    statuses: list[int] = []
    first = threading.Event()

    def follow() -> None:
        try:
            for reply in watch:
                statuses.append(reply.status)
                first.set()
        except grpc.RpcError:
            pass
        finally:
            first.set()

    reader = threading.Thread(target=follow, daemon=True)
    reader.start()
    assert first.wait(10) and statuses[0] == SERVING
    server.process.send_signal(signal.SIGTERM)
    assert server.wait(60) == 0, server.rest()
    reader.join(20)
    channel.close()
    assert NOT_SERVING in statuses, statuses

    gone = arena_health(server.port)
    assert gone.returncode == 1 and "no health answer (UNAVAILABLE" in gone.stderr, gone.stdout + gone.stderr

    records = [json.loads(line) for line in server.rest().splitlines() if line.startswith("{")]
    assert records, server.rest()
    assert all(r["host"] == socket.gethostname() and {"time", "level", "logger", "message"} <= set(r) for r in records)
    assert any("listening on" in r["message"] for r in records)


def test_arena_health_refuses_a_bad_address_in_one_line():
    ran = subprocess.run([sys.executable, "-m", "arena", "health", "nowhere"], capture_output=True, text=True,
                         timeout=60, cwd=str(ROOT))
    assert ran.returncode == 2 and "expected HOST:PORT, got 'nowhere'" in ran.stderr and "Traceback" not in ran.stderr
