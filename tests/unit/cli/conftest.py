"""The `ioscale run` tests' environment: clean_env as the working directory (run directories go there), with a
FlushingFakeProducer in TelemetryProducer's place."""

import pytest
from fake_producer import FlushingFakeProducer

from ioscale.wire import producer as wire_producer


@pytest.fixture
def env(clean_env, monkeypatch):
    monkeypatch.chdir(clean_env)
    FlushingFakeProducer.instances = []
    monkeypatch.setattr(wire_producer, "TelemetryProducer", FlushingFakeProducer)
    return clean_env
