"""The JavaScript starter kit against an arena host that dies for good (kill -9): it tries its eight
reconnects, then says it gives up and exits 4 ("lost"), as the Python SDK does.

Before, its last line was grpc-js's status text with an empty "Resolution note:" and no word that it had
given up.  Slow: the kit's backoff spends about 21 s on the eight tries.  Skipped (with the reason)
where Node.js or npm is missing."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from test_serve_e2e import Server

KIT = Path(__file__).resolve().parents[2] / "starter_kits" / "node"


@pytest.mark.slow
def test_the_node_bot_whose_host_was_killed_says_it_gives_up_and_exits_lost(node_kit, tmp_path):
    node, _ = node_kit
    server = Server(tmp_path)
    try:
        bot = subprocess.Popen([node, str(KIT / "bot.js"), "--arena", f"127.0.0.1:{server.port}", "--name", "node"],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            first = bot.stdout.readline()  # the kit prints its Welcome (or, failing, exits: then "" or its error)
            assert first.startswith("welcomed as node"), first + bot.stdout.read()
            server.kill()  # SIGKILL: no SHUTTING_DOWN, the streams just end
            rest, _ = bot.communicate(timeout=120)
            output = first + rest
        finally:
            if bot.poll() is None:
                bot.kill()
                bot.wait()
    finally:
        server.kill()
    assert bot.returncode == 4, output
    assert "reconnecting in 0.2 s (attempt 1 of 8)" in output and "attempt 8 of 8" in output
    assert output.rstrip().endswith(f"bot.js: giving up after 8 reconnects to 127.0.0.1:{server.port}; "
                                    "its games there are lost"), output
    assert "Resolution note" not in output, output  # grpc-js's empty trailing note is cut
