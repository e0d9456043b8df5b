"""The server freezes its start-up objects (ServerConfig.freeze_gc) so that full GC passes stay short."""

from __future__ import annotations

import gc

import pytest
from server_helpers import serve

from arena.server import ServerConfig
from arena.server.config import ConfigError


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


async def _thresholds_while_serving(handle):
    return gc.get_threshold()


def test_the_collector_thresholds_are_the_config_s_while_serving_and_restored_after():
    before = gc.get_threshold()
    assert serve(_thresholds_while_serving) == ServerConfig().gc_threshold == (10_000, 10, 10)
    assert serve(_thresholds_while_serving, gc_threshold=(2_000, 5, 5)) == (2_000, 5, 5)
    assert serve(_thresholds_while_serving, gc_threshold=None) == before
    assert gc.get_threshold() == before


def test_a_bad_gc_threshold_is_a_clear_error():
    with pytest.raises(ConfigError, match="gc_threshold must be three whole numbers"):
        ServerConfig(gc_threshold=(0, 10, 10)).validate()
