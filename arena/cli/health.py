"""`arena health HOST:PORT`: ask an arena's standard gRPC health service (grpc.health.v1) how it is.

Exit status 0 when it answers SERVING, 1 otherwise (NOT_SERVING while it drains or cannot reach its
database, or no answer at all), with one line saying which: what a load balancer's or systemd's
check wants.  Any grpc.health.v1 client (grpc_health_probe, a Kubernetes gRPC probe) asks the same.
"""

from __future__ import annotations

from pathlib import Path

from arena.cli import CommandError, RunFailure


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "health",
        help="check an arena's health service (exit 0 when SERVING)",
        description="Ask the arena at HOST:PORT through the standard gRPC health service (grpc.health.v1): "
        "exit 0 and print SERVING when it admits bots and schedules games, exit 1 otherwise.",
    )
    parser.add_argument("address", metavar="HOST:PORT", help="the arena's address")
    parser.add_argument("--timeout", type=float, default=5.0, metavar="S", help="seconds to wait (default 5)")
    parser.add_argument("--tls-ca", metavar="PEM", help="CA certificate(s) to check a TLS arena's certificate with")
    parser.add_argument("--service", default="", metavar="NAME",
                        help="the service to ask about (default: the whole server; mauarena.v1.Arena: the arena)")
    parser.set_defaults(func=run)


def run(args) -> int:
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    if not args.timeout > 0:  # NaN too: it reached gRPC as a deadline (watch hung, health failed oddly)
        raise CommandError(f"--timeout must be above 0, not {args.timeout:g}")
    host, sep, port = args.address.rpartition(":")
    if not sep or not host or not port.isdigit():
        raise CommandError(f"expected HOST:PORT, got {args.address!r}")
    if args.tls_ca:
        try:
            roots = Path(args.tls_ca).read_bytes()
        except OSError as error:
            raise CommandError(f"--tls-ca {args.tls_ca}: {error.strerror or error}") from None
        channel = grpc.secure_channel(args.address, grpc.ssl_channel_credentials(root_certificates=roots))
    else:
        channel = grpc.insecure_channel(args.address)
    with channel:
        try:
            reply = health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(service=args.service), timeout=args.timeout, wait_for_ready=False)
        except grpc.RpcError as error:
            raise RunFailure(f"{args.address}: no health answer ({error.code().name}: {error.details()})") from None
    status = health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)
    print(f"{args.address}: {status}")
    return 0 if reply.status == health_pb2.HealthCheckResponse.SERVING else 1
