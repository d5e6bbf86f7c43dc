"""Live collectors: sample the running machine (Linux counters) or drive a tool (fio, iperf3) and emit records.

Every collector takes a ``producer_like`` (anything with ``send(topic, record)``; ``TelemetryProducer``
in production, a list-backed fake in tests) so the sampling logic is testable without Kafka.
"""

from __future__ import annotations

from typing import Any, Protocol


class RecordSink(Protocol):
    def send(self, topic: str, record: dict[str, Any]) -> None: ...
