"""`arena bots` (not written yet)."""

from __future__ import annotations


def register(subparsers) -> None:
    parser = subparsers.add_parser("bots", help="(not written yet)")
    parser.set_defaults(func=lambda args: print("arena bots: not written yet") or 2)
