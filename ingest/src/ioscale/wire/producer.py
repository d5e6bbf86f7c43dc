"""The one producer path every importer, collector and the simulator use.

Records are Avro in the Confluent wire format, keyed by their source (run/host/VM/target) so order
holds per source within a partition. The producer is idempotent (no duplicates on retry), batches
and compresses; librdkafka retries delivery on its own, and what still fails is counted and
reported, never dropped silently.

Three ways in, one encoder and one produce path:
- `send(topic, record)`: one dict (collectors, tests);
- `send_many(topic, records)`: a list of dicts of one topic (importers), encoded as one batch; in two
  halves, `encode_many` then `send_encoded`, where the encoding must not delay the sending (a bench that
  plays a fleet of collectors, each of which would encode its own few samples);
- `send_blocks(blocks)`: ioscale.wire.columns.RecordBlock (the simulator), encoded from the columns.
Batches go through ioscale.wire.avro_wire.AvroEncoder, whose vectorised path (ioscale.wire.avro_fast) writes the
bytes fastavro writes and falls back to fastavro for anything it does not cover.

Delivery accounting: librdkafka reports failures only (`delivery.report.only.error`): a Python callback
per acknowledged record would cost more than encoding it. `flush()` waits until every record is
acknowledged by the broker (acks=all) or has failed, so after it returns `delivered` = produced - failed.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import Any

from confluent_kafka import KafkaError, Producer

from ioscale.errors import IoscaleError
from ioscale.wire import schemas
from ioscale.wire.avro_wire import AvroEncoder
from ioscale.wire.columns import Coded, Const, RecordBlock, column_values, concat

DEFAULT_PRODUCER_CONFIG = {
    "enable.idempotence": True,  # implies acks=all and in-order retries
    "compression.type": "lz4",
    "linger.ms": 20,
    "batch.num.messages": 10000,
    "queue.buffering.max.messages": 500000,
    "delivery.timeout.ms": 120000,
    "delivery.report.only.error": True,
    "log_level": 3,
}

#: How often the produce path serves librdkafka's callbacks (flush() serves what is left).
POLL_INTERVAL_S = 0.5

#: Fields that identify a record's source, in key order after the run id (see source_key).
KEY_FIELDS = ("host", "vm", "target", "port_id")


def source_key(record: dict[str, Any]) -> bytes:
    """Partition key: the identity of the source that produced the record."""
    parts = [record.get("run_id", "")]
    for field in KEY_FIELDS:
        if field in record:
            parts.append(str(record[field]))
    return "/".join(parts).encode()


def _key_of(values: tuple) -> bytes:
    return "/".join([values[0], *map(str, values[1:])]).encode()


_KEY_TABLES: dict[tuple, list[bytes]] = {}   # per distinct identity columns (one entry per simulated step)


def block_keys(block: RecordBlock) -> list[bytes]:
    """source_key of every record of the block, computed per distinct source where the columns allow."""
    if "run_id" not in block.fields:
        return [source_key(r) for r in block.to_records()]
    cols = [block.columns[f] for f in ("run_id", *KEY_FIELDS) if f in block.fields]
    coded = [c for c in cols if isinstance(c, Coded)]
    if not all(isinstance(c, (Const, Coded)) for c in cols) or any(c.codes is not coded[0].codes for c in coded):
        return list(map(_key_of, zip(*[column_values(c, block.n) for c in cols])))
    if not coded:
        return [_key_of(tuple(c.value for c in cols))] * block.n
    spec = tuple((c.value,) if isinstance(c, Const) else c.values for c in cols)
    cacheable = all(type(v) is str for part in spec for v in part)   # str(1) != str(True), yet 1 == True
    table = _KEY_TABLES.get(spec) if cacheable else None
    if table is None:
        rows = zip(*[c.values if isinstance(c, Coded) else [c.value] * len(coded[0].values) for c in cols])
        table = list(map(_key_of, rows))
        if cacheable:
            if len(_KEY_TABLES) >= 64:
                _KEY_TABLES.clear()
            _KEY_TABLES[spec] = table
    return list(map(table.__getitem__, coded[0].codes.tolist()))


@dataclass(frozen=True)
class EncodedBatch:
    """Records of one topic encoded (Confluent-framed Avro) and keyed, ready for send_encoded."""

    topic: str
    values: list[bytes]
    keys: list[bytes]


class TelemetryProducer:
    """topic_map (benchmarks, tests): write a topic's records to another topic, with the original's schema."""

    def __init__(self, bootstrap: str, registry_url: str, config: dict[str, Any] | None = None,
                 topic_map: dict[str, str] | None = None):
        conf = {"bootstrap.servers": bootstrap, **DEFAULT_PRODUCER_CONFIG, "on_delivery": self._on_delivery,
                **(config or {})}
        self._topic_map = dict(topic_map or {})
        self._producer = Producer(conf)
        self._registry_url = registry_url
        self._encoders: dict[str, AvroEncoder] = {}
        self._lock = threading.Lock()
        self._last_poll = 0.0
        self.produced: Counter[str] = Counter()
        self.delivered: Counter[str] = Counter()   # exact once flush() has returned
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
        if err is None:  # only with delivery.report.only.error overridden to false: counted at flush
            return
        with self._lock:
            self.failed[msg.topic()] += 1
            self.last_error = str(err)

    # -- ways in --------------------------------------------------------------------------------------------
    def send(self, topic: str, record: dict[str, Any], key: bytes | None = None) -> None:
        """One record (collectors): encoded by fastavro."""
        self._produce(topic, [self.encoder(topic).encode(record)], [key or source_key(record)])

    def send_many(self, topic: str, records: Sequence[dict[str, Any]], keys: Sequence[bytes] | None = None) -> None:
        """Records of one topic, in order; encoded as one batch."""
        if records:
            self.send_encoded(self.encode_many(topic, records, keys))

    def encode_many(self, topic: str, records: Sequence[dict[str, Any]],
                    keys: Sequence[bytes] | None = None) -> EncodedBatch:
        """send_many's first half: the records encoded and keyed, nothing sent."""
        enc = self.encoder(topic)
        values = enc.encode_many(records) if records else []
        return EncodedBatch(topic, values, list(keys) if keys is not None else self._keys(topic, enc, records))

    def send_encoded(self, batch: EncodedBatch) -> None:
        """send_many's second half: an encoded batch onto Kafka, in order."""
        self._produce(batch.topic, batch.values, batch.keys)

    def send_blocks(self, blocks: Iterable[RecordBlock]) -> None:
        """Column blocks, in order per topic; blocks of one topic are encoded together."""
        by_topic: dict[str, list[RecordBlock]] = {}
        for b in blocks:
            if b.n:
                by_topic.setdefault(b.topic, []).append(b)
        for topic, group in by_topic.items():
            block = concat(group)
            self._produce(topic, self.encoder(topic).encode_block(block), block_keys(block))

    def _keys(self, topic: str, enc: AvroEncoder, records: Sequence[dict[str, Any]]) -> list[bytes]:
        """source_key of each record, with one itemgetter call per record when the records hold exactly
        the schema's fields (then the key fields are the schema's own): the fast encoder found every one
        of them in each record, and no record has more keys than the schema has fields."""
        names = enc.field_names
        if not enc.last_batch_fast or "run_id" not in names or {len(r) for r in records} != {len(names)}:
            return [source_key(r) for r in records]
        fields = ["run_id", *(f for f in KEY_FIELDS if f in names)]
        if len(fields) == 1:
            return [_key_of((r["run_id"],)) for r in records]
        return list(map(_key_of, map(itemgetter(*fields), records)))

    # -- the produce path -----------------------------------------------------------------------------------
    def _produce(self, topic: str, values: list[bytes], keys: list[bytes]) -> None:
        # One produce() per record, positional and without a per-call callback (~1 us): as cheap as
        # produce_batch, and a full local queue is waited out record by record, so nothing is reordered.
        topic = self._topic_map.get(topic, topic)
        p = self._producer
        produce = p.produce
        for value, key in zip(values, keys):
            try:
                produce(topic, value, key)
            except BufferError:  # local queue full: let librdkafka drain, then retry
                while True:
                    p.poll(0.05)
                    try:
                        produce(topic, value, key)
                        break
                    except BufferError:
                        continue
        self.produced[topic] += len(values)
        # Serve librdkafka's callbacks (failed deliveries) twice a second, not per batch: a poll waits on
        # the queue the broker threads fill and costs milliseconds, as much as producing 5000 records.
        now = time.monotonic()
        if now - self._last_poll >= POLL_INTERVAL_S:
            p.poll(0)
            self._last_poll = now

    def flush(self, timeout_s: float = 60.0) -> None:
        remaining = self._producer.flush(timeout_s)
        if remaining:
            raise IoscaleError(
                f"{remaining} record(s) not delivered after {timeout_s:.0f}s",
                "check that Kafka is up (`ioscale stack status kafka`)",
            )
        with self._lock:
            for topic, n in self.produced.items():
                self.delivered[topic] = n - self.failed[topic]
        if self.failed:
            raise IoscaleError(
                f"delivery failed for {sum(self.failed.values())} record(s): {self.last_error}",
                "check the broker log (`ioscale stack logs kafka`)",
            )
