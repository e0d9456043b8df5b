"""Operations: the standard gRPC health service on a real `arena serve`, `arena health`, and JSON logs."""

from __future__ import annotations

import json
import signal
import socket
import threading

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from test_serve_e2e import Server, cleanup  # noqa: F401 (cleanup: a fixture)

SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING


def arena(capsys, *argv: str) -> tuple[int, str, str]:
    """`arena ARGV` in this process (a client command: no process of its own is what is tested): exit
    status, stdout and stderr.  An uncaught exception (a user's traceback) fails the test."""
    from arena.cli import main

    capsys.readouterr()
    try:
        status = main(list(argv))
    except SystemExit as exit_:  # argparse's own usage errors
        status = exit_.code
    out, err = capsys.readouterr()
    return status, out, err


def test_health_says_serving_then_not_serving_while_draining_and_the_command_exits_accordingly(tmp_path, cleanup,
                                                                                                capsys):
    server = Server(tmp_path, "--log-format", "json", "--log-level", "info")
    cleanup.append(server)

    # A balancer's watch from the moment the port is open: NOT_SERVING while the ladder gets ready (it may be
    # quick enough that the first status is SERVING already), SERVING once it schedules games and a SIGTERM
    # would drain it, NOT_SERVING once the arena starts to stop.
    channel = grpc.insecure_channel(f"127.0.0.1:{server.port}")
    watch = health_pb2_grpc.HealthStub(channel).Watch(health_pb2.HealthCheckRequest(service="mauarena.v1.Arena"))
    statuses: list[int] = []
    ready = threading.Event()

    def follow() -> None:
        try:
            for reply in watch:
                statuses.append(reply.status)
                if reply.status == SERVING:
                    ready.set()
        except grpc.RpcError:
            pass
        finally:
            ready.set()

    reader = threading.Thread(target=follow, daemon=True)
    reader.start()
    assert ready.wait(30) and statuses[-1] == SERVING, statuses
    status, out, err = arena(capsys, "health", f"127.0.0.1:{server.port}", "--timeout", "5")
    assert status == 0 and out.strip() == f"127.0.0.1:{server.port}: SERVING", out + err

    # SIGTERM the moment it says SERVING (as a deploy script would): a drain and exit 0, not the default action.
    server.process.send_signal(signal.SIGTERM)
    assert server.wait(60) == 0, server.rest()
    reader.join(20)
    channel.close()
    assert statuses.index(SERVING) < len(statuses) - 1 and statuses[-1] == NOT_SERVING, statuses

    status, out, err = arena(capsys, "health", f"127.0.0.1:{server.port}", "--timeout", "5")
    assert status == 1 and "no health answer (UNAVAILABLE" in err, out + err

    records = [json.loads(line) for line in server.rest().splitlines() if line.startswith("{")]
    assert records, server.rest()
    assert all(r["host"] == socket.gethostname() and {"time", "level", "logger", "message"} <= set(r) for r in records)
    assert any("listening on" in r["message"] for r in records)


def test_arena_health_refuses_a_bad_address_in_one_line(capsys):
    status, _, err = arena(capsys, "health", "nowhere")
    assert status == 2 and "expected HOST:PORT, got 'nowhere'" in err
