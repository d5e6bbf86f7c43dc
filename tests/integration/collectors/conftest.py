"""Helpers for collector tests: a list-backed producer and Avro validation against schema/*.avsc."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import fastavro
import pytest

from ioscale.wire import topics

SCHEMA_DIR = Path(__file__).resolve().parents[3] / "schema"
_FILES = {topics.IO_SAMPLES: "io_sample.avsc", topics.CPU_SAMPLES: "cpu_sample.avsc",
          topics.PORT_SAMPLES: "port_sample.avsc", topics.RUNS: "run_event.avsc"}


class FakeProducer:
    def __init__(self) -> None:
        self.records: list[tuple[str, dict[str, Any]]] = []

    def send(self, topic: str, record: dict[str, Any]) -> None:
        self.records.append((topic, record))

    def of(self, topic: str) -> list[dict[str, Any]]:
        return [r for t, r in self.records if t == topic]

    def validate(self) -> None:
        """Every record has exactly its schema's fields and validates against the Avro schema."""
        for topic, rec in self.records:
            schema = fastavro.parse_schema(json.loads((SCHEMA_DIR / _FILES[topic]).read_text()))
            assert set(rec) == {f["name"] for f in schema["fields"]}, topic
            fastavro.validation.validate(rec, schema, raise_errors=True)


@pytest.fixture
def producer() -> FakeProducer:
    return FakeProducer()
