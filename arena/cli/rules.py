"""`arena rules` (not written yet)."""

from __future__ import annotations


def register(subparsers) -> None:
    parser = subparsers.add_parser("rules", help="(not written yet)")
    parser.set_defaults(func=lambda args: print("arena rules: not written yet") or 2)
