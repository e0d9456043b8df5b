"""Attack a real arena with every hostile trick at once and measure what its honest bots lose.

    python scripts/battery.py                    # 60 s under attack, 2 x 30 s of the control alone around it
    python scripts/battery.py --seconds 20 --keep /tmp/battery

Three `arena serve` processes on 127.0.0.1 one after the other, with the same
settings: the control alone (four honest bots on their own ruleset) for half
the window, the same control beside every attack of `scripts/hostile` for
the whole window, the control alone again for the other half (session
takeover, stalling, hanging and slow bots, hand memory, wrong-token flood,
name tricks, silent streams, answers naming another game, undecodable
bytes, name churn).  It prints the server's crashes, stuck and lost games,
the control's strikes, think time p99 and games per minute against the
baseline, the server's memory growth and each attack's outcome.

Exit status 0 when every target is met, 1 when one is missed (or could not be
measured), 2 on bad arguments.  Bounded in time and requests; every process
it starts is stopped before it returns.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scripts.hostile.battery import BatterySettings, run_battery  # noqa: E402


def positive(kind):
    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number, not {text!r}") from None
        if value <= 0:
            raise argparse.ArgumentTypeError(f"must be positive, not {text}")
        return value
    return parse


def port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a port number, not {text!r}") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"a port is 0-65535, not {value}")
    return value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     epilog="Targets: 0 crashes, 0 stuck, 0 lost, 0 control strikes, control games "
                                            "per minute >= 80%% of the baseline, RSS growth <= 30 MB, 0 takeovers, "
                                            "0 deal-leak hits, the honest bot admitted under the silent flood.")
    parser.add_argument("--seconds", type=positive(float), default=60.0,
                        help="the attacked window and the baseline's total (default 60)")
    parser.add_argument("--port", type=port, default=0, help="the arena's port (default 0: a free one)")
    parser.add_argument("--silent-streams", type=positive(int), default=300, help="streams that never say Hello")
    parser.add_argument("--flood-hellos", type=positive(int), default=200, help="wrong-token Hellos")
    parser.add_argument("--churn-names", type=positive(int), default=300, help="distinct names of the churner")
    parser.add_argument("--keep", type=Path, metavar="DIR",
                        help="keep the databases, replays and logs in DIR (default: a temporary folder, removed)")
    args = parser.parse_args(argv)
    settings = BatterySettings(seconds=args.seconds, port=args.port, silent_streams=args.silent_streams,
                               flood_hellos=args.flood_hellos, churn_names=args.churn_names, workdir=args.keep)
    try:
        report = run_battery(settings)
    except KeyboardInterrupt:
        print("interrupted: every process it started was stopped", file=sys.stderr)
        return 130
    except RuntimeError as error:
        print(f"battery: {error}", file=sys.stderr)
        return 1
    print("\n".join(report.lines()), flush=True)
    missed = report.missed()
    if missed:
        print(f"\n{len(missed)} target(s) missed: {', '.join(t.name for t in missed)}", flush=True)
        return 1
    print("\nevery target met", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
