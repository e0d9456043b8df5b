"""The server freezes its start-up objects (ServerConfig.freeze_gc) so that full GC passes stay short."""

from __future__ import annotations

import gc

from server_helpers import serve


async def _frozen_while_serving(handle):
    return gc.get_freeze_count(), len(gc.get_objects())


def test_start_up_objects_are_frozen_so_a_full_collection_walks_only_newer_ones():
    gc.unfreeze()
    try:
        frozen, tracked = serve(_frozen_while_serving)
        # Modules, classes, grpc's and trio's internals are out of every collection; what a full
        # pass still walks (objects made since start-up) is a small fraction of them.
        assert frozen > 10_000
        assert tracked < frozen / 2
    finally:
        gc.unfreeze()


def test_freeze_gc_can_be_turned_off():
    gc.unfreeze()
    try:
        frozen, _ = serve(_frozen_while_serving, freeze_gc=False)
        assert frozen == 0
    finally:
        gc.unfreeze()
