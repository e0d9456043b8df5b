"""The standard gRPC health service (``grpc.health.v1.Health``) on the arena's port, for load balancers.

Load balancers, Kubernetes probes and ``grpc_health_probe`` all speak this protocol, so the arena
serves it (from the well-kept ``grpcio-health-checking`` package) rather than a call of its own.
The overall status (service ``""``) and the Arena service's (``mauarena.v1.Arena``) move together:
SERVING while the arena admits bots and schedules games; NOT_SERVING while it drains on the way
out, and whenever the director says it cannot take new games (a ladder host whose database is
unreachable), so a balancer sends new bots elsewhere.  `arena serve` starts NOT_SERVING
(`ServerConfig.serving_at_start`) and its ladder says SERVING once it schedules games and has
its SIGTERM handler in place, so "ready" also means "a stop now drains".

``Check`` is answered as the package does, unlimited: a unary call answered at once from a dict,
which costs what any other call does (an unknown method's UNIMPLEMENTED too), and probes call it
every few seconds, so pacing it would only make them fail.  ``Watch`` is a stream that lasts as
long as its caller wants and needs no login: unbounded, ~6,000 of them took a server from 76 to
197 MB and slowed its games, and a connection with one open never counts as idle
(`ServerConfig.connection_idle_s`).  So Watch streams are a budget (`StreamBudget`:
`ServerConfig.health_watchers_per_address` from one address, `max_health_watchers` in all); one
beyond is RESOURCE_EXHAUSTED at once, and a place comes back when its stream ends.  A balancer
watches with one stream per server, so the budget costs it nothing.
"""

from __future__ import annotations

import asyncio
from typing import Any, Optional

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1.health import aio as health_aio  # the package's asyncio servicer, as it exports it

from arena.server.peers import peer_address
from arena.server.streambudget import Crowded, StreamBudget

SERVICES = ("", "mauarena.v1.Arena")
#: Watch streams at once, in all and per peer address (`ServerConfig.max_health_watchers`, `health_watchers_per_address`).
MAX_WATCHERS = 64
WATCHERS_PER_ADDRESS = 4


class BudgetedHealthServicer(health_aio.HealthServicer):
    """The package's servicer, with its Watch streams held to a `StreamBudget`."""

    def __init__(self, watchers: StreamBudget) -> None:
        super().__init__()
        self.watchers = watchers

    async def Watch(self, request: health_pb2.HealthCheckRequest, context: Any) -> None:
        address = peer_address(context.peer() or "")
        try:
            self.watchers.enter(address)
        except Crowded as crowded:
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, str(crowded))
        try:
            await super().Watch(request, context)
        finally:
            self.watchers.leave(address)


class Health:
    """The health servicer and the loop it lives on; `set_serving` may be called from trio (same thread)."""

    def __init__(self, server: Any = None, watchers: Optional[StreamBudget] = None) -> None:
        #: The Watch streams' budget (its own: a flood of Watches takes no place from spectators).
        self.watchers = watchers if watchers is not None else StreamBudget(
            MAX_WATCHERS, WATCHERS_PER_ADDRESS, "health Watch streams")
        self.servicer = BudgetedHealthServicer(self.watchers)
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
