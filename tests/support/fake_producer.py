"""A list-backed stand-in for TelemetryProducer that checks what it was sent against schema/*.avsc.

Shared by the unit and integration collector tests (tests/support is on pytest's pythonpath).
"""

from __future__ import annotations

from typing import Any

import fastavro

from ioscale.wire import schemas


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
            schema = fastavro.parse_schema(schemas.schema_for_topic(topic))
            assert set(rec) == {f["name"] for f in schema["fields"]}, topic
            fastavro.validation.validate(rec, schema, raise_errors=True)


class FlushingFakeProducer(FakeProducer):
    """Counts flushes and what it was sent per topic; the CLI tests put it in TelemetryProducer's place."""

    instances: list["FlushingFakeProducer"] = []

    def __init__(self, bootstrap: str, registry: str, config: dict | None = None) -> None:
        super().__init__()
        self.flushes = 0
        FlushingFakeProducer.instances.append(self)

    def flush(self, timeout_s: float = 60.0) -> None:
        self.flushes += 1

    def send_raw(self, topic: str, value: bytes) -> None:
        self.records.append((topic, {"raw": value}))

    @property
    def delivered(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for topic, _ in self.records:
            counts[topic] = counts.get(topic, 0) + 1
        return counts
