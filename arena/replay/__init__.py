"""Replays: the file format, the crash-safe writer, the reader, the verifier and the viewer.

    >>> from arena.replay import ReplayWriter, load, verify
    >>> writer = ReplayWriter.create("replays", header)       # header: ReplayHeader or a dict
    >>> writer.decision(seat, "play 7h", think_ms=12, timeout=False, strike=False, state_hash=state.state_hash())
    >>> writer.finish(result)                                  # or writer.abort("server shutdown")
    >>> replay = load(writer.path); replay.state_at(10)
    >>> verify(writer.path).ok

See `arena/replay/README.md` for the format.
"""

from arena.replay.format import (
    FORMAT_NAME,
    FORMAT_VERSION,
    DecisionRecord,
    ReplayFormatError,
    ReplayHeader,
    SeatInfo,
)
from arena.replay.reader import Replay, Simulation, load
from arena.replay.verify import Divergence, VerifyReport, verify
from arena.replay.writer import (
    DEFAULT_DIRECTORY,
    ReplayWriter,
    ReplayWriterError,
    ThreadedCloseRecorder,
    replay_path,
    seal_complete,
    seal_partial,
)

__all__ = [
    "DEFAULT_DIRECTORY",
    "FORMAT_NAME",
    "FORMAT_VERSION",
    "DecisionRecord",
    "Divergence",
    "Replay",
    "ReplayFormatError",
    "ReplayHeader",
    "ReplayWriter",
    "ReplayWriterError",
    "SeatInfo",
    "ThreadedCloseRecorder",
    "Simulation",
    "VerifyReport",
    "load",
    "replay_path",
    "seal_complete",
    "seal_partial",
    "verify",
]
