"""What a producing process killed mid-run already put on Kafka: the last delivered record of each source.

Why that is enough: the producer is idempotent, so each partition holds a gap-free prefix of what was sent to it,
in send order; every record is keyed by its source (``source_key``: run id, host, VM, target, port), so all the
records of one key went to one partition in the order they were made. For each key the delivered records are
therefore a prefix of the key's sequence, and the last of them says how long that prefix is. A producer that can
make the same sequence again (the simulator, same scenario, seed and start) sends only what follows it: no journal
on disk, and no window of duplicates.

`last_delivered` reads each partition from the first message at or after a time bound up to the end it had when the
scan began, keeps the last message of every key of the given runs, and decodes those (the writer schema by the id
in the frame header, from the registry).
"""

from __future__ import annotations

import io
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import fastavro
from confluent_kafka import Consumer, KafkaError, KafkaException, TopicPartition

from ioscale.errors import IoscaleError
from ioscale.wire import avro_wire, schemas

#: Fields that tell apart the records of one key (one source): its time, then what a source emits several of at
#: one time (the run's events, a target's READ and WRITE, a host's HOST and ROOT_PARTITION CPU rows, VMQ queues).
IDENTITY_FIELDS = ("ts_ms", "event_type", "step_index", "direction", "scope", "cpu", "queue")

#: Seconds between two progress lines while scanning; the first comes after as long (a short scan says nothing).
PROGRESS_EVERY_S = 2.0
#: A scan that gets no message for this long while partitions are still short of their end gives up.
STALL_S = 60.0


def record_identity(record: Mapping[str, Any]) -> tuple:
    """Where a record sits in its key's sequence: unique within a key (tests check every scenario)."""
    return tuple(record.get(f) for f in IDENTITY_FIELDS)


def run_of_key(key: bytes) -> bytes:
    """The run id a key starts with (``source_key`` joins run id and source with '/')."""
    return key.partition(b"/")[0]


@dataclass(frozen=True)
class LastDelivered:
    """The last record of one key on Kafka."""

    topic: str
    key: bytes
    partition: int
    offset: int
    record: dict[str, Any]

    @property
    def identity(self) -> tuple:
        return record_identity(self.record)


def keep_last(messages: Iterable[tuple[str, int, int, bytes | None, bytes | None]],
              run_ids: Iterable[str]) -> dict[tuple[str, bytes], tuple[int, int, bytes]]:
    """{(topic, key): (partition, offset, value)} of the last message of each key of the runs, from (topic,
    partition, offset, key, value) in log order (per partition)."""
    runs = {r.encode() for r in run_ids}
    last: dict[tuple[str, bytes], tuple[int, int, bytes]] = {}
    for topic, partition, offset, key, value in messages:
        if key is not None and value is not None and run_of_key(key) in runs:
            last[(topic, key)] = (partition, offset, value)
    return last


def without_logical_types(schema: Any) -> Any:
    """The schema with every logicalType dropped: fastavro would read timestamp-millis as datetime, and the records
    are compared with the ones the producer is given (ts_ms in epoch ms)."""
    if isinstance(schema, dict):
        return {k: without_logical_types(v) for k, v in schema.items() if k != "logicalType"}
    if isinstance(schema, list):
        return [without_logical_types(v) for v in schema]
    return schema


class FrameDecoder:
    """Confluent-framed Avro -> dict as the producer was given it, the writer schema fetched once per id."""

    def __init__(self, schema_of: Callable[[int], dict]):
        self._schema_of = schema_of
        self._parsed: dict[int, Any] = {}

    def __call__(self, message: bytes) -> dict[str, Any]:
        schema_id, body = avro_wire.split(message)
        parsed = self._parsed.get(schema_id)
        if parsed is None:
            parsed = self._parsed[schema_id] = fastavro.parse_schema(without_logical_types(self._schema_of(schema_id)))
        return fastavro.schemaless_reader(io.BytesIO(body), parsed)


def decode_last(last: Mapping[tuple[str, bytes], tuple[int, int, bytes]],
                decode: Callable[[bytes], dict[str, Any]]) -> dict[tuple[str, bytes], LastDelivered]:
    out = {}
    for (topic, key), (partition, offset, value) in last.items():
        try:
            record = decode(value)
        except (avro_wire.WireFormatError, ValueError, EOFError, TypeError) as e:
            raise IoscaleError(f"the last record of key {key.decode(errors='replace')} on {topic} (partition "
                               f"{partition}, offset {offset}) does not decode: {e}",
                               "it was not written by ioscale's producer; resume cannot tell what was delivered") from e
        out[(topic, key)] = LastDelivered(topic, key, partition, offset, record)
    return out


def last_delivered(bootstrap: str, registry_url: str, run_ids: Sequence[str], topic_names: Sequence[str],
                   since_ms: int, *, progress: Callable[[str], None] | None = None,
                   timeout_s: float = 15.0) -> dict[tuple[str, bytes], LastDelivered]:
    """{(topic, key): last record on Kafka} for every key of the runs that has records in `topic_names`.

    Reads each partition from the first message stamped at or after `since_ms` (Kafka's message timestamp: when
    the record was produced) to the end it had when the scan began; messages appended meanwhile are not the
    killed process's. A consumer group of its own, nothing committed. `progress` gets a line every
    PROGRESS_EVERY_S once the scan takes longer than that.
    """
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"ioscale-resume-{uuid.uuid4().hex}",
                         "enable.auto.commit": False, "auto.offset.reset": "earliest", "log_level": 0})
    try:
        ranges = _ranges(consumer, bootstrap, topic_names, since_ms, timeout_s)
        last = keep_last(_messages(consumer, ranges, progress), run_ids)
    finally:
        consumer.close()
    return decode_last(last, FrameDecoder(lambda schema_id: schemas.fetch_schema(registry_url, schema_id)))


def _unreachable(bootstrap: str, e: Exception) -> IoscaleError:
    return IoscaleError(f"cannot read Kafka at {bootstrap} to find what the run already delivered: {e}",
                        "check that Kafka is up (`ioscale stack status kafka`), then run the same command again")


def _ranges(consumer: Consumer, bootstrap: str, topic_names: Sequence[str], since_ms: int,
            timeout_s: float) -> dict[tuple[str, int], tuple[int, int]]:
    """{(topic, partition): (first offset to read, end)} of the partitions with something to read."""
    try:
        meta = consumer.list_topics(timeout=timeout_s).topics
        missing = [t for t in topic_names if t not in meta or meta[t].error is not None]
        if missing:
            raise IoscaleError(f"Kafka at {bootstrap} has no topic {', '.join(missing)}",
                               "create the topics (`ioscale stack up` provisions them)")
        parts = [TopicPartition(t, p, since_ms) for t in topic_names for p in sorted(meta[t].partitions)]
        starts = consumer.offsets_for_times(parts, timeout=timeout_s)
        ranges = {}
        for tp in starts:
            if tp.error is not None:
                raise KafkaException(tp.error)
            _lo, hi = consumer.get_watermark_offsets(TopicPartition(tp.topic, tp.partition), timeout=timeout_s)
            start = hi if tp.offset < 0 else tp.offset   # -1: no message stamped at or after since_ms
            if start < hi:
                ranges[(tp.topic, tp.partition)] = (start, hi)
        return ranges
    except KafkaException as e:
        raise _unreachable(bootstrap, e) from e


def _messages(consumer: Consumer, ranges: dict[tuple[str, int], tuple[int, int]],
              progress: Callable[[str], None] | None) -> Iterator[tuple[str, int, int, bytes | None, bytes | None]]:
    """(topic, partition, offset, key, value) of every message in `ranges`, in log order per partition."""
    if not ranges:
        return
    total = sum(hi - lo for lo, hi in ranges.values())
    consumer.assign([TopicPartition(t, p, lo) for (t, p), (lo, _hi) in ranges.items()])
    open_parts = set(ranges)
    scanned = 0
    t0 = last_msg = time.monotonic()
    next_progress = t0 + PROGRESS_EVERY_S

    def close(tp: tuple[str, int]) -> None:
        open_parts.discard(tp)
        consumer.pause([TopicPartition(*tp)])

    while open_parts:
        msgs = consumer.consume(num_messages=10000, timeout=0.5)
        now = time.monotonic()
        if progress is not None and now >= next_progress:
            progress(f"[resume] read {scanned} of {total} records on Kafka since the run's start "
                     f"({scanned / (now - t0):.0f}/s)")
            next_progress = now + PROGRESS_EVERY_S
        if not msgs:
            if now - last_msg > STALL_S:
                short = ", ".join(f"{t}[{p}]" for t, p in sorted(open_parts))
                raise IoscaleError(f"reading Kafka stalled: no message for {STALL_S:g} s, {short} not read to the end",
                                   "check that Kafka is up (`ioscale stack status kafka`), then run the same "
                                   "command again")
            continue
        last_msg = now
        for msg in msgs:
            err = msg.error()
            if err is not None:
                if err.code() == KafkaError._PARTITION_EOF:
                    continue
                raise IoscaleError(f"reading Kafka failed: {err.str()}",
                                   "check that Kafka is up (`ioscale stack status kafka`), then run the same "
                                   "command again")
            tp = (msg.topic(), msg.partition())
            if tp not in open_parts:
                continue
            offset = msg.offset()
            end = ranges[tp][1]
            if offset >= end:   # appended after the scan began: not the killed process's
                close(tp)
                continue
            scanned += 1
            yield tp[0], tp[1], offset, msg.key(), msg.value()
            if offset + 1 >= end:
                close(tp)
    if progress is not None and time.monotonic() - t0 >= PROGRESS_EVERY_S:
        progress(f"[resume] read {scanned} records on Kafka in {time.monotonic() - t0:.1f} s")
