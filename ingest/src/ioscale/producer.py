"""The one producer path every importer, collector and the simulator use.

Records are Avro in the Confluent wire format, keyed by their source (run/host/VM/target) so order
holds per source within a partition. The producer is idempotent (no duplicates on retry), batches
and compresses; librdkafka retries delivery on its own, and what still fails is counted and
reported, never dropped silently.
"""

from __future__ import annotations

import threading
from collections import Counter
from typing import Any

from confluent_kafka import KafkaError, Producer

from ioscale import schemas
from ioscale.avro_wire import AvroEncoder
from ioscale.errors import IoscaleError

DEFAULT_PRODUCER_CONFIG = {
    "enable.idempotence": True,  # implies acks=all and in-order retries
    "compression.type": "lz4",
    "linger.ms": 20,
    "batch.num.messages": 10000,
    "queue.buffering.max.messages": 500000,
    "delivery.timeout.ms": 120000,
    "log_level": 3,
}


def source_key(record: dict[str, Any]) -> bytes:
    """Partition key: the identity of the source that produced the record."""
    parts = [record.get("run_id", "")]
    for field in ("host", "vm", "target", "port_id"):
        if field in record:
            parts.append(str(record[field]))
    return "/".join(parts).encode()


class TelemetryProducer:
    def __init__(self, bootstrap: str, registry_url: str, config: dict[str, Any] | None = None):
        self._producer = Producer({"bootstrap.servers": bootstrap, **DEFAULT_PRODUCER_CONFIG, **(config or {})})
        self._registry_url = registry_url
        self._encoders: dict[str, AvroEncoder] = {}
        self._lock = threading.Lock()
        self.delivered: Counter[str] = Counter()
        self.failed: Counter[str] = Counter()
        self.last_error: str | None = None

    def encoder(self, topic: str) -> AvroEncoder:
        enc = self._encoders.get(topic)
        if enc is None:
            schema = schemas.schema_for_topic(topic)
            enc = AvroEncoder(schema, schemas.register(self._registry_url, topic, schema))
            self._encoders[topic] = enc
        return enc

    def _on_delivery(self, err: KafkaError | None, msg) -> None:
        with self._lock:
            if err is None:
                self.delivered[msg.topic()] += 1
            else:
                self.failed[msg.topic()] += 1
                self.last_error = str(err)

    def send(self, topic: str, record: dict[str, Any], key: bytes | None = None) -> None:
        value = self.encoder(topic).encode(record)
        while True:
            try:
                self._producer.produce(topic, value, key or source_key(record), on_delivery=self._on_delivery)
                break
            except BufferError:  # local queue full: let librdkafka drain, then retry
                self._producer.poll(0.05)
        self._producer.poll(0)

    def flush(self, timeout_s: float = 60.0) -> None:
        remaining = self._producer.flush(timeout_s)
        if remaining:
            raise IoscaleError(
                f"{remaining} record(s) not delivered after {timeout_s:.0f}s",
                "check that Kafka is up (`ioscale stack status kafka`)",
            )
        if self.failed:
            raise IoscaleError(
                f"delivery failed for {sum(self.failed.values())} record(s): {self.last_error}",
                "check the broker log (`ioscale stack logs kafka`)",
            )
