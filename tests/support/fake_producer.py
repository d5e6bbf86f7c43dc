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
