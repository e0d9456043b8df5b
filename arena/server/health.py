"""The standard gRPC health service (``grpc.health.v1.Health``) on the arena's port, for load balancers.

Load balancers, Kubernetes probes and ``grpc_health_probe`` all speak this protocol, so the arena
serves it (from the well-kept ``grpcio-health-checking`` package) rather than a call of its own.
The overall status (service ``""``) and the Arena service's (``mauarena.v1.Arena``) move together:
SERVING while the arena admits bots and schedules games; NOT_SERVING while it drains on the way
out, and whenever the director says it cannot take new games (a ladder host whose database is
unreachable), so a balancer sends new bots elsewhere.  `arena serve` starts NOT_SERVING
(`ServerConfig.serving_at_start`) and its ladder says SERVING once it schedules games and has
its SIGTERM handler in place, so "ready" also means "a stop now drains".

``Check`` is answered as the package does, from a dict, but at a pace per address (`ReadPace`:
`ServerConfig.health_checks_burst` at once, then `health_checks_per_second`; 20 and 10 by default).
It needs no login and is answered on the games' loop: unpaced, 16 callers from one address asking 820
times a second took the loop's lag from 40 to 287 ms (p99; the same flood against another process on
the machine: 27 ms).  As for the read-only calls, a Check beyond the pace waits for its turn, and only
one whose turn is more than `health_checks_max_wait_s` (5 s) away is refused, RESOURCE_EXHAUSTED at
once: refusing every call beyond the pace at once did not help (a refusal costs the loop what an
answer does, and a caller that waits for its answer simply asks again), while held, a caller that
waits for its answers is held to the pace.  Probes and monitoring systems ask every few seconds and
never meet it.  ``Watch`` is a stream that lasts as
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
from arena.server.readpace import ReadPace, wait_turn
from arena.server.streambudget import Crowded, StreamBudget

SERVICES = ("", "mauarena.v1.Arena")
#: Watch streams at once, in all and per peer address (`ServerConfig.max_health_watchers`, `health_watchers_per_address`).
MAX_WATCHERS = 64
WATCHERS_PER_ADDRESS = 4
#: Check calls per peer address: at once, then a second (`ServerConfig.health_checks_burst`, `health_checks_per_second`).
CHECKS_BURST = 20
CHECKS_PER_SECOND = 10.0
CHECKS_MAX_WAIT_S = 5.0


class BudgetedHealthServicer(health_aio.HealthServicer):
    """The package's servicer, with its Watch streams held to a `StreamBudget` and its Checks to a `ReadPace`."""

    def __init__(self, watchers: StreamBudget, checks: ReadPace) -> None:
        super().__init__()
        self.watchers = watchers
        self.checks = checks

    async def Check(self, request: health_pb2.HealthCheckRequest, context: Any) -> health_pb2.HealthCheckResponse:
        checks = self.checks
        await wait_turn(checks, context, f"too many health Checks from this address (at most {checks.burst} at once, "
                        f"then {checks.per_second:g} a second); ask every few seconds, or use Watch")
        return await super().Check(request, context)

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

    def __init__(self, server: Any = None, watchers: Optional[StreamBudget] = None,
                 checks: Optional[ReadPace] = None) -> None:
        #: The Watch streams' budget (its own: a flood of Watches takes no place from spectators).
        self.watchers = watchers if watchers is not None else StreamBudget(
            MAX_WATCHERS, WATCHERS_PER_ADDRESS, "health Watch streams")
        #: The Check calls' pace per address.
        self.checks = checks if checks is not None else ReadPace(CHECKS_PER_SECOND, CHECKS_BURST, CHECKS_MAX_WAIT_S)
        self.servicer = BudgetedHealthServicer(self.watchers, self.checks)
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
