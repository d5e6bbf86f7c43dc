"""Helpers for collector tests: a list-backed producer with Avro validation (tests/support)."""

from __future__ import annotations

import pytest
from fake_producer import FakeProducer


@pytest.fixture
def producer() -> FakeProducer:
    return FakeProducer()
