"""`arena watch`: follow a live game from the terminal through the server's Spectate call (public view only)."""

from __future__ import annotations

import argparse

from arena.cli import CommandError, RunFailure

DEFAULT_ARENA = "127.0.0.1:50051"


def register(subparsers) -> None:
    watch = subparsers.add_parser(
        "watch",
        help="watch a live game on a running arena (public view only)",
        description=(
            "Follow a game as it is played, through the arena's Spectate call: the public view only (no hand "
            "but the card counts), the same drawing as the replay viewer. Without GAME_ID, the newest running "
            "game. On a terminal the frame updates in place; otherwise (or with --plain) one line per decision."
        ),
    )
    watch.add_argument("game_id", nargs="?", metavar="GAME_ID", help="the game (see the dashboard or ListGames)")
    watch.add_argument("--arena", default=DEFAULT_ARENA, metavar="HOST:PORT",
                       help=f"the arena's address (default {DEFAULT_ARENA})")
    watch.add_argument("--game", metavar="RULESET", help="without GAME_ID: the newest running game of this ruleset")
    watch.add_argument("--plain", action="store_true", help="one line per decision, even on a terminal")
    watch.add_argument("--timeout", type=float, default=5.0, metavar="SECONDS",
                       help="how long to wait for the arena to answer (default 5)")
    watch.set_defaults(func=run_watch)


def run_watch(args: argparse.Namespace) -> int:
    import grpc
    from rich.console import Console
    from rich.live import Live

    from arena.replay.spectator import WatchedGame
    from mau_arena_sdk.observation import Observation
    from mau_arena_sdk.wire import arena_pb2 as pb
    from mau_arena_sdk.wire import arena_pb2_grpc as rpc

    if not args.timeout > 0:  # NaN too: it reached gRPC as a deadline (watch hung, health failed oddly)
        raise CommandError("--timeout must be positive")
    channel = grpc.insecure_channel(args.arena)
    try:
        try:
            grpc.channel_ready_future(channel).result(timeout=args.timeout)
        except grpc.FutureTimeoutError:
            raise RunFailure(f"cannot reach an arena at {args.arena} (is `arena serve` running there?)") from None
        stub = rpc.ArenaStub(channel)
        game_id = args.game_id or _newest_running(stub, pb, args)
        console = Console(highlight=False)
        plain = args.plain or not console.is_terminal
        game = WatchedGame(game_id)
        live = None if plain else Live(console=console, auto_refresh=False, transient=False)
        if live is not None:
            live.start()
        headed = False
        try:
            for event in stub.Spectate(pb.SpectateRequest(game_id=game_id)):
                observation = Observation.from_pb(event.view).to_dict() if event.HasField("view") else {}
                names = [seat.name for seat in event.view.seats] if event.HasField("view") else []
                played = game.add(event.index, event.seat, event.action, observation, names)
                if plain and not headed:  # which game the lines below are about, from its first event
                    print(game.heading(args.arena), flush=True)
                    headed = True
                if event.HasField("ended"):
                    game.end([{"seat": r.seat, "name": r.name, "placement": r.placement, "points": r.points,
                               "forfeited": r.forfeited} for r in event.ended.results], event.ended.reason)
                if live is not None:
                    live.update(game.frame(args.arena), refresh=True)
                elif played is not None:
                    print(game.line(played), flush=True)
        except grpc.RpcError as error:
            if error.code() == grpc.StatusCode.NOT_FOUND and _running_elsewhere(error):
                raise RunFailure(error.details()) from None  # "game ID is running on host A (ADDR): watch it there"
            if error.code() == grpc.StatusCode.NOT_FOUND:
                raise CommandError(f"no game {game_id!r} on {args.arena} (it may have finished long ago; "
                                   "`arena watch` without an id follows the newest)") from None
            raise RunFailure(f"the arena at {args.arena} stopped the stream: {error.details()}") from None
        finally:
            if live is not None:
                live.stop()
        if plain:
            print(game.result_line().plain if game.results is not None else "stream ended before the game did")
        return 0 if game.results is not None else 1
    finally:
        channel.close()


def _running_elsewhere(error) -> bool:
    """Whether the arena's NOT_FOUND says another host of its ladder runs the game (its details say which)."""
    from arena.server.service import RUNNING_ELSEWHERE

    return any(key == RUNNING_ELSEWHERE for key, _value in (error.trailing_metadata() or ()))


def _newest_running(stub, pb, args: argparse.Namespace) -> str:
    reply = stub.ListGames(pb.ListGamesRequest(live_only=True, ruleset=args.game or "", limit=100),
                           timeout=args.timeout)
    running = [g for g in reply.games if g.status == "running"]
    if not running:
        what = f"no {args.game} game" if args.game else "no game"
        raise RunFailure(f"{what} is running on {args.arena} right now")  # nothing to watch: not a usage error
    return max(running, key=lambda g: g.started_at).game_id
