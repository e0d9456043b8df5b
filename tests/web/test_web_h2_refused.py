"""The attack: a cleartext HTTP/2 client that opens streams and resets them at once ("rapid reset").

With hypercorn serving the web view, one such anonymous client (prior knowledge: the HTTP/2 preface, then
HEADERS + RST_STREAM by the thousand) froze the whole arena: every stream's removal rebuilt hypercorn's
priority tree in Python on the games' own loop, so games stopped, bots were struck to forfeit, and the process
grew to ~1 GB and ignored SIGTERM, all before the web pace saw a single request.  The web view now speaks
HTTP/1.1 only: the preface is answered as a malformed HTTP/1.1 request and the connection closed,
``Upgrade: h2c`` is answered in HTTP/1.1, and the next reader is served at once.

Against a real `arena serve --web 0` (its ladder running); frames are built by hand (RFC 9113, RFC 7541).
"""

from __future__ import annotations

import json
import socket
import struct
import subprocess
import sys
import urllib.parse
import urllib.request

import pytest

pytest.importorskip("uvicorn", reason="the web view needs uvicorn (pip install -e '.[test]')")

from tests.process_lines import Lines  # noqa: E402
from tests.terminal_signals import sigint_as_at_a_terminal  # noqa: E402
from tests.web.web_process import stop  # noqa: E402

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
STREAMS = 300
PATH = b"/api/v1/rulesets"
HEADERS, RST_STREAM, SETTINGS = 1, 3, 4
END_STREAM, END_HEADERS = 0x1, 0x4
CANCEL = 0x8


def frame(kind: int, flags: int, stream: int, payload: bytes = b"") -> bytes:
    return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(">I", stream) + payload


def get_request(authority: bytes) -> bytes:
    """HPACK: :method GET, :scheme http (static table), :path and :authority literal with indexed names."""
    return (b"\x82\x86" + b"\x04" + bytes([len(PATH)]) + PATH + b"\x01" + bytes([len(authority)]) + authority)


def rapid_reset(streams: int, authority: bytes) -> bytes:
    """The client's side of the attack: preface, SETTINGS, then each stream opened and cancelled at once."""
    out = [PREFACE, frame(SETTINGS, 0, 0)]
    for n in range(streams):
        stream = 2 * n + 1  # client streams are odd
        out.append(frame(HEADERS, END_STREAM | END_HEADERS, stream, get_request(authority)))
        out.append(frame(RST_STREAM, 0, stream, struct.pack(">I", CANCEL)))
    return b"".join(out)


def exchange(address: tuple[str, int], data: bytes, until_closed: bool) -> tuple[bytes, bool]:
    """Send ``data``; read the first answer (and, with ``until_closed``, on until the server closes).
    (what came back, whether the server closed the connection).  The socket timeout bounds a wait, nothing more."""
    received, closed = b"", False
    with socket.create_connection(address, timeout=30) as client:
        try:
            client.sendall(data)
        except (BrokenPipeError, ConnectionResetError):  # closed on us while the frames were still going out
            pass
        try:
            while until_closed or len(received) < 9:  # 9 bytes: an HTTP/2 frame header, or "HTTP/1.1 "
                chunk = client.recv(65536)
                if not chunk:
                    closed = True
                    break
                received += chunk
        except ConnectionResetError:
            closed = True
        except socket.timeout:
            pass
    return received, closed


@pytest.fixture
def arena_web(tmp_path):
    """`arena serve --web 0` with its ladder running (no bots needed to be attacked): its web view's address."""
    server = subprocess.Popen(
        [sys.executable, "-m", "arena", "serve", "--port", "0", "--web", "0", "--game", "maumau", "--plain",
         "--summary-every", "3600", "--db", str(tmp_path / "arena.db"), "--replays", str(tmp_path / "replays"),
         "--drain", "0"],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True,
        preexec_fn=sigint_as_at_a_terminal)
    try:
        web = Lines(server).until(r"web view on (http://\S+)").group(1)
        yield web
    finally:
        stop(server)
    assert server.returncode == 130  # Ctrl-C still stops the arena, as always, after the attack


def rulesets(web: str) -> list[str]:
    with urllib.request.urlopen(f"{web}api/v1/rulesets", timeout=30) as response:
        assert response.status == 200
        return [row["name"] for row in json.load(response)["rulesets"]]


def test_a_rapid_reset_flood_in_cleartext_http2_is_not_spoken_to(arena_web):
    url = urllib.parse.urlsplit(arena_web)
    address = (url.hostname, url.port)
    authority = url.netloc.encode()

    # prior knowledge: an HTTP/2 server's first bytes would be its SETTINGS frame (type 4 on stream 0)
    answer, closed = exchange(address, rapid_reset(STREAMS, authority), until_closed=True)
    assert not (len(answer) >= 9 and answer[3] == SETTINGS and answer[5:9] == bytes(4)), answer[:64]
    assert answer.startswith(b"HTTP/1.1 "), answer[:64]
    assert b"HTTP/1.1 400" in answer and closed  # what follows the preface is no HTTP/1.1: refused and hung up

    # Upgrade: h2c (RFC 7540 3.2) is not taken up: no 101, the request is answered in HTTP/1.1
    upgrade = (b"GET " + PATH + b" HTTP/1.1\r\nHost: " + authority + b"\r\nConnection: Upgrade, HTTP2-Settings\r\n"
               b"Upgrade: h2c\r\nHTTP2-Settings: \r\n\r\n")
    answer, _ = exchange(address, upgrade, until_closed=False)
    assert answer.startswith(b"HTTP/1.1 200"), answer[:64]

    # and the next reader is served at once
    assert "maumau" in rulesets(arena_web)
