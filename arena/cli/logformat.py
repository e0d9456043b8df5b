"""`arena serve --log-format json`: one JSON object per log record, for log collectors.

Every record carries the time (UTC, ISO 8601), level, logger, message and the host's name, so the
lines of several hosts of one ladder can be merged and told apart; an exception's traceback goes in
``exc``.  Text from bots is already escaped where it is logged; JSON escaping does the rest.
"""

from __future__ import annotations

import json
import logging
from datetime import datetime, timezone


class JsonFormatter(logging.Formatter):
    def __init__(self, host: str) -> None:
        super().__init__()
        self.host = host

    def format(self, record: logging.LogRecord) -> str:
        line = {
            "time": datetime.fromtimestamp(record.created, timezone.utc).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "host": self.host,
            "message": record.getMessage(),
        }
        if record.exc_info:
            line["exc"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False)


def configure(log_format: str, host: str, level: int = logging.WARNING) -> None:
    """The process's logging: plain text lines (the default) or JSON lines naming ``host``."""
    handler = logging.StreamHandler()
    if log_format == "json":
        handler.setFormatter(JsonFormatter(host))
    else:
        handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
