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

While Kafka is unreachable: librdkafka's own log (a line per failed connection attempt, twice a second)
is off; its errors reach `error_cb`, and a watcher thread prints one status line every `STATUS_EVERY_S`
(how long Kafka has been unreachable, how many records are buffered) to stderr. The buffer is bounded
(`queue.buffering.max.*`): when it is full, sending waits, said in the same line. A record still not
delivered after `delivery.timeout.ms` makes the producer give up: the next send or flush drops what is
still buffered and raises `NotDelivered` with the counts delivered and not delivered.
"""

from __future__ import annotations

import json
import sys
import threading
import time
import weakref
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import Any

from confluent_kafka import KafkaError, Producer

from ioscale.errors import ExitStatus, IoscaleError
from ioscale.wire import schemas
from ioscale.wire.avro_wire import AvroEncoder
from ioscale.wire.columns import Coded, Const, RecordBlock, column_values, concat

DEFAULT_PRODUCER_CONFIG = {
    "enable.idempotence": True,  # implies acks=all and in-order retries
    "compression.type": "lz4",
    "linger.ms": 20,
    "batch.num.messages": 10000,
    # The buffer while Kafka is slow or away: whichever bound is reached first makes sending wait.
    "queue.buffering.max.messages": 500000,
    "queue.buffering.max.kbytes": 262144,
    "delivery.timeout.ms": 120000,
    "delivery.report.only.error": True,
    # Off: librdkafka logs every failed connection attempt (twice a second while Kafka is down); the same
    # errors reach error_cb, and the producer says it once every STATUS_EVERY_S.
    "log_level": 0,
    # Whether Kafka took records (stats "txmsgs") ends an unreachable spell; once a second costs ~0.1 ms.
    "statistics.interval.ms": 1000,
}

#: How often the produce path serves librdkafka's callbacks (flush() serves what is left).
POLL_INTERVAL_S = 0.5

#: Seconds between two status lines while Kafka is unreachable or the buffer is full; the first comes
#: after STATUS_AFTER_S (a single failed connection attempt in a broker restart is not news).
STATUS_EVERY_S = 5.0
STATUS_AFTER_S = 2.0

#: librdkafka errors that mean it cannot reach (or talk to) the brokers; it keeps retrying on its own.
UNREACHABLE_ERRORS = frozenset({KafkaError._TRANSPORT, KafkaError._ALL_BROKERS_DOWN, KafkaError._RESOLVE,
                                KafkaError._AUTHENTICATION, KafkaError._SSL, KafkaError._TIMED_OUT})


class NotDelivered(IoscaleError):
    """Records that were not all delivered: Kafka unreachable past the delivery timeout, or refused some."""

    exit_status = ExitStatus.NOT_DELIVERED


def _records(n: int) -> str:
    return f"{n} record" if n == 1 else f"{n} records"


def _to_stderr(line: str) -> None:
    sys.stderr.write(line + "\n")
    sys.stderr.flush()


def _watch(ref: "weakref.ref[TelemetryProducer]", stop: threading.Event, tick_s: float) -> None:
    # Holds the producer weakly: a producer nobody uses any more is closed, and this thread ends with it.
    while not stop.wait(tick_s):
        producer = ref()
        if producer is None:
            return
        producer._tick()
        del producer

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
                 topic_map: dict[str, str] | None = None, status: Callable[[str], None] | None = _to_stderr,
                 status_every_s: float = STATUS_EVERY_S):
        conf = {"bootstrap.servers": bootstrap, **DEFAULT_PRODUCER_CONFIG, "on_delivery": self._on_delivery,
                "error_cb": self._on_error, "stats_cb": self._on_stats, **(config or {})}
        self._topic_map = dict(topic_map or {})
        self.bootstrap = bootstrap
        self.delivery_timeout_s = int(conf.get("delivery.timeout.ms", conf.get("message.timeout.ms", 300000))) / 1000
        self._producer = Producer(conf)
        self._registry_url = registry_url
        self._encoders: dict[str, AvroEncoder] = {}
        self._lock = threading.Lock()
        self._last_poll = 0.0
        self.produced: Counter[str] = Counter()
        self.delivered: Counter[str] = Counter()   # exact once flush() has returned
        self.failed: Counter[str] = Counter()
        self.last_error: str | None = None
        # What the watcher thread reports (under _lock): an unreachable spell, a full buffer, giving up.
        self._status = status
        self._status_every_s = status_every_s
        self.status_lines = 0
        self._spell_lines = 0
        self._unreachable_since: float | None = None
        self._kafka_error = ""
        self._txmsgs = 0
        self._stats_msg_cnt: int | None = None
        self._full_since: float | None = None
        self._next_status = 0.0
        self._gave_up: str | None = None
        self._not_delivered: NotDelivered | None = None
        self._stop = threading.Event()
        self._watcher: threading.Thread | None = None

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
            self.last_error = err.str()
            if self._gave_up is None and err.code() == KafkaError._MSG_TIMED_OUT:
                self._gave_up = (f"a record waited {self.delivery_timeout_s:g} s (delivery.timeout.ms) without "
                                 f"being delivered ({self._kafka_error or err.str()})")

    def _on_error(self, err: KafkaError) -> None:
        with self._lock:
            if err.fatal():
                self._gave_up = self._gave_up or f"fatal Kafka error: {err.str()}"
            if err.code() in UNREACHABLE_ERRORS:
                if err.code() != KafkaError._ALL_BROKERS_DOWN or not self._kafka_error:  # "1/1 brokers are down"
                    # "host:port/bootstrap: Connect to ... failed: ..." -> the part after the broker's name
                    self._kafka_error = err.str().split(": ", 1)[-1]
                if self._unreachable_since is None:
                    self._unreachable_since = time.monotonic()
                    self._next_status = self._unreachable_since + STATUS_AFTER_S
                    self._spell_lines = 0

    def _on_stats(self, text: str) -> None:
        # Kafka is back when librdkafka transmitted records since the last statistics, or holds a connection.
        stats = json.loads(text)
        txmsgs = stats.get("txmsgs", 0)
        up = any(b.get("state") == "UP" for b in stats.get("brokers", {}).values())
        with self._lock:
            self._stats_msg_cnt = stats.get("msg_cnt")
            if (txmsgs > self._txmsgs or up) and self._unreachable_since is not None:
                self._reachable_again()
            self._txmsgs = txmsgs

    # -- status: the watcher thread ---------------------------------------------------------------------------
    def _start_watcher(self) -> None:
        self._watcher = threading.Thread(target=_watch, args=(weakref.ref(self), self._stop,
                                                              min(0.25, self._status_every_s / 4)),
                                         name="ioscale-kafka-status", daemon=True)
        self._watcher.start()

    def _tick(self) -> None:
        """Serve librdkafka's callbacks (error_cb, stats) while the sender sleeps; print a status line when due."""
        self._producer.poll(0)
        queued = len(self._producer)  # records, and also events (errors, statistics) not yet served
        with self._lock:
            now = time.monotonic()
            # The records librdkafka holds (the count its buffer bounds), as of its last statistics.
            buffered = queued if self._stats_msg_cnt is None else self._stats_msg_cnt
            if buffered == 0 or (self._unreachable_since is None and self._full_since is None):
                return  # nothing waits for Kafka: nothing to say
            if now < self._next_status or self._status is None:
                return
            self._next_status = now + self._status_every_s
            line = self._status_line(now, buffered)
            self.status_lines += 1
            self._spell_lines += 1
        self._status(line)

    def _status_line(self, now: float, buffered: int) -> str:
        full = ""
        if self._full_since is not None:
            full = f" (buffer full for {now - self._full_since:.0f} s: sending waits)"
        if self._unreachable_since is None:
            return f"[kafka] {_records(buffered)} buffered{full}, Kafka at {self.bootstrap} is slow to take them"
        return (f"[kafka] Kafka at {self.bootstrap} unreachable for {now - self._unreachable_since:.0f} s "
                f"({self._kafka_error}); {_records(buffered)} buffered{full}; a record not delivered within "
                f"{self.delivery_timeout_s:g} s makes ioscale give up")

    def _reachable_again(self) -> None:
        if self._spell_lines and self._status is not None:
            spell = time.monotonic() - self._unreachable_since
            self._status(f"[kafka] Kafka at {self.bootstrap} reachable again after {spell:.0f} s")
        self._unreachable_since = None

    # -- giving up -------------------------------------------------------------------------------------------
    def _check(self) -> None:
        if self._gave_up is not None:
            self._give_up(self._gave_up)

    def _give_up(self, reason: str) -> None:
        """Drop what is still buffered, count it as not delivered, and raise NotDelivered with the counts."""
        if self._not_delivered is None:
            self._producer.purge()
            self._producer.flush(5)  # serves the purged records' reports: counted as failed
            self._not_delivered = self._counted_error(f"gave up on Kafka at {self.bootstrap}: {reason}")
        raise self._not_delivered

    def _counted_error(self, what: str) -> NotDelivered:
        with self._lock:
            for topic, n in self.produced.items():
                self.delivered[topic] = n - self.failed[topic]
            produced, failed = sum(self.produced.values()), sum(self.failed.values())
            by_topic = ", ".join(f"{self.delivered[t]} of {n} to {t}" for t, n in sorted(self.produced.items()))
        return NotDelivered(
            f"{what}; delivered {produced - failed} of {_records(produced)} ({by_topic}), {failed} not delivered",
            f"check that Kafka at {self.bootstrap} is up (`ioscale stack status kafka`, `ioscale stack logs kafka`), "
            "then send the records again")

    # -- ways in --------------------------------------------------------------------------------------------
    def send_raw(self, topic: str, value: bytes, key: bytes | None = None) -> None:
        """Bytes as they are (the dead-letter topic's JSON): no schema, the same delivery accounting."""
        self._produce(topic, [value], [key])  # type: ignore[list-item]

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
        self._check()
        if self._watcher is None:
            self._start_watcher()
        topic = self._topic_map.get(topic, topic)
        p = self._producer
        produce = p.produce
        pairs = zip(values, keys)
        handed_all = False
        try:
            for value, key in pairs:
                try:
                    produce(topic, value, key)
                except BufferError:
                    if not self._wait_for_room(topic, value, key):
                        break  # gave up: counted below, then raised
            else:
                handed_all = True
        finally:
            # Counted here, not per record in the loop: handed over are those before the one that stopped it.
            self.produced[topic] += len(values) if handed_all else len(values) - sum(1 for _ in pairs) - 1
        self._check()
        # Serve librdkafka's callbacks (failed deliveries) twice a second, not per batch: a poll waits on
        # the queue the broker threads fill and costs milliseconds, as much as producing 5000 records.
        now = time.monotonic()
        if now - self._last_poll >= POLL_INTERVAL_S:
            p.poll(0)
            self._last_poll = now

    def _wait_for_room(self, topic: str, value: bytes, key: bytes) -> bool:
        """The buffer is full: let librdkafka drain it (the watcher says so after a while), then hand the record;
        False when the producer gave up meanwhile."""
        with self._lock:
            self._full_since = time.monotonic()
            self._next_status = max(self._next_status, self._full_since + STATUS_AFTER_S)
        try:
            while True:
                self._producer.poll(0.05)
                if self._gave_up is not None:
                    return False
                try:
                    self._producer.produce(topic, value, key)
                    return True
                except BufferError:
                    continue
        finally:
            with self._lock:
                self._full_since = None

    def flush(self, timeout_s: float | None = None) -> None:
        """Wait until every record is delivered or failed (at most ``timeout_s``, by default the delivery
        timeout and 5 s); raise NotDelivered with the counts unless every record was delivered."""
        limit = self.delivery_timeout_s + 5 if timeout_s is None else timeout_s
        deadline = time.monotonic() + limit
        try:
            while self._producer.flush(max(0.0, min(1.0, deadline - time.monotonic()))):
                self._check()  # the delivery timeout came first: say so
                if time.monotonic() >= deadline:
                    self._give_up(f"records still not delivered after waiting {limit:g} s")
        except KeyboardInterrupt:
            self._give_up("interrupted while waiting for Kafka")
        self._check()
        if self.failed:
            raise self._counted_error(f"Kafka refused records: {self.last_error}")
        with self._lock:
            for topic, n in self.produced.items():
                self.delivered[topic] = n - self.failed[topic]

    def close(self) -> None:
        """Stop the status watcher (the process exiting does too)."""
        self._stop.set()
