"""Hostile participants for the fair-play battery (`scripts/battery.py`, tests/e2e/test_battery.py).

Every client here speaks the wire protocol directly (grpc.aio and the
generated `mau_arena_sdk.wire` messages), so it can do what the SDK never would:
resume other bots' sessions, stall, hang, send bytes that are not a
message, open streams that never say Hello.  Modules, one concept each:

* `stream`   - one Play stream (`BotStream`) and the messages a bot sends;
* `players`  - bots that sit at ladder tables: honest, hanging, slow,
  stalling, remembering hands, answering with another game's id;
* `attacks`  - attacks that are not a seat at a table: session takeover,
  wrong-token flood, name tricks, silent streams, undecodable bytes,
  name churn;
* `control`  - the honest control bots, a process of their own;
* `server`   - an `arena serve` subprocess: start, port, RSS, CPU, stop;
* `relay`    - the attackers' way in, from 127.0.0.2 (the honest bots use 127.0.0.1);
* `measure`  - what the battery reads back: stuck games, lost games, think
  times, deal reuse;
* `battery`  - the baseline and the attacked run, and the report with its targets.

Every attack is bounded in time and in requests, and stops by itself.
"""
