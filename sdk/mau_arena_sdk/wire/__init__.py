"""The generated protocol code (see scripts/gen_proto.py): ``pb`` messages, ``rpc`` stubs and servicers."""

from . import arena_pb2 as pb
from . import arena_pb2_grpc as rpc

__all__ = ["pb", "rpc"]
