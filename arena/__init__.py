"""Mau Arena: rules engines, a gRPC arena server, replays and ratings for card-playing bots."""

__version__ = "0.3.0"
