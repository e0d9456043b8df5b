"""The standard gRPC health service (``grpc.health.v1.Health``) on the arena's port, for load balancers.

Load balancers, Kubernetes probes and ``grpc_health_probe`` all speak this protocol, so the arena
serves it (from the well-kept ``grpcio-health-checking`` package) rather than a call of its own.
The overall status (service ``""``) and the Arena service's (``mauarena.v1.Arena``) move together:
SERVING while the arena admits bots and schedules games; NOT_SERVING while it drains on the way
out, and whenever the director says it cannot take new games (a ladder host whose database is
unreachable), so a balancer sends new bots elsewhere.  `arena serve` starts NOT_SERVING
(`ServerConfig.serving_at_start`) and its ladder says SERVING once it schedules games and has
its SIGTERM handler in place, so "ready" also means "a stop now drains".
"""

from __future__ import annotations

import asyncio
from typing import Any

from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1.health import aio as health_aio  # the package's asyncio servicer, as it exports it

SERVICES = ("", "mauarena.v1.Arena")


class Health:
    """The health servicer and the loop it lives on; `set_serving` may be called from trio (same thread)."""

    def __init__(self, server: Any = None) -> None:
        self.servicer = health_aio.HealthServicer()
        if server is not None:
            self.add_to(server)
        self.serving = False
        self._pending: set[asyncio.Task] = set()

    def add_to(self, server: Any) -> None:
        """Serve this status on ``server`` too (every acceptor of the port answers it alike)."""
        health_pb2_grpc.add_HealthServicer_to_server(self.servicer, server)

    async def set(self, serving: bool) -> None:
        self.serving = serving
        status = health_pb2.HealthCheckResponse.SERVING if serving else health_pb2.HealthCheckResponse.NOT_SERVING
        for service in SERVICES:
            await self.servicer.set(service, status)

    def set_soon(self, serving: bool) -> None:
        """Change the status from synchronous code running on the arena's loop (the trio director)."""
        if serving == self.serving:
            return
        self.serving = serving
        task = asyncio.get_running_loop().create_task(self.set(serving))
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    async def shutting_down(self) -> None:
        """NOT_SERVING from now on, for good."""
        self.serving = False
        await self.servicer.enter_graceful_shutdown()
