"""TLS is one config away: a TLS client is welcomed, a plaintext one is not."""

from __future__ import annotations

import queue
import shutil
import subprocess

import grpc
import pytest

from arena.server import ConfigError, ServerConfig
from server_helpers import blocking, hello, serve
from mau_arena_sdk.wire import pb, rpc


@pytest.fixture
def certificate(tmp_path):
    if shutil.which("openssl") is None:
        pytest.skip("openssl is needed to make a throwaway certificate")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost",
         "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True, timeout=60,
    )
    return cert, key


def first_reply(channel: grpc.Channel) -> "pb.ArenaMessage | grpc.StatusCode":
    outbox: queue.Queue = queue.Queue()
    outbox.put(hello("secure"))
    call = rpc.ArenaStub(channel).Play(iter(outbox.get, None), timeout=10)
    try:
        return next(call)
    except grpc.RpcError as error:
        return error.code()
    finally:
        outbox.put(None)
        call.cancel()
        channel.close()


def test_a_tls_server_welcomes_tls_clients_only(certificate):
    cert, key = certificate

    async def director(handle):
        address = f"127.0.0.1:{handle.port}"
        secure = grpc.secure_channel(address, grpc.ssl_channel_credentials(cert.read_bytes()),
                                     options=[("grpc.ssl_target_name_override", "localhost")])
        welcomed = await blocking(first_reply, secure)
        plain = await blocking(first_reply, grpc.insecure_channel(address))
        return welcomed, plain

    welcomed, plain = serve(director, tls_cert=cert, tls_key=key)
    assert welcomed.WhichOneof("kind") == "welcome"
    assert plain == grpc.StatusCode.UNAVAILABLE


def test_missing_tls_files_are_refused_before_listening(tmp_path):
    with pytest.raises(ConfigError, match="not found"):
        ServerConfig(tls_cert=tmp_path / "no.pem", tls_key=tmp_path / "no.key").validate()
