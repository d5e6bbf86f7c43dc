"""TelemetryProducer's three ways in (send, send_many, send_blocks) put the same bytes and keys on Kafka, in
order, and its delivery accounting holds. librdkafka is replaced by a recorder (no broker in unit tests)."""

from __future__ import annotations

from collections import defaultdict
from types import SimpleNamespace

import pytest
from confluent_kafka import KafkaError

from ioscale.errors import IoscaleError
from ioscale.simulator import make_engine
from ioscale.wire import producer as producer_mod
from ioscale.wire import schemas, topics
from ioscale.wire.producer import TelemetryProducer, source_key
from ioscale.wire.publish import publish_import

START_MS = 1_767_225_600_000


class FakeMessage:
    def __init__(self, topic: str):
        self._topic = topic

    def topic(self) -> str:
        return self._topic


class FakeKafka:
    """Records produce() calls; can refuse with BufferError (a full queue) and fail deliveries at flush."""

    def __init__(self, conf: dict):
        self.conf = conf
        self.messages: list[tuple[str, bytes, bytes]] = []
        self.full_every = 0          # every n-th produce() finds the queue full until the next poll
        self.fail_topics: set[str] = set()
        self._calls = 0
        self._full = False
        self.polls = 0

    def produce(self, topic, value=None, key=None, *args, **kwargs):
        self._calls += 1
        if self.full_every and (self._full or self._calls % self.full_every == 0):
            self._full = True
            raise BufferError("Local: Queue full")
        self.messages.append((topic, value, key))

    def poll(self, timeout=0):
        self.polls += 1
        self._full = False
        return 0

    def flush(self, timeout=None):
        for topic, _, _ in self.messages:
            if topic in self.fail_topics:
                self.conf["on_delivery"](KafkaError(KafkaError.MSG_SIZE_TOO_LARGE), FakeMessage(topic))
        return 0

    def __len__(self):
        return 0


@pytest.fixture
def make_producer(monkeypatch):
    monkeypatch.setattr(producer_mod, "Producer", FakeKafka)
    monkeypatch.setattr(schemas, "register", lambda url, topic, schema, timeout_s=10.0: 40 + len(topic))

    def make(**kw) -> TelemetryProducer:
        return TelemetryProducer("127.0.0.1:1", "http://registry", **kw)
    return make


def engine_batches(name="hyperv-vmq-10gbe"):
    return list(make_engine(name, seed=2, start_ms=START_MS, step_s=3, ramp_s=1).batches())


def by_topic(messages):
    out = defaultdict(list)
    for topic, value, key in messages:
        out[topic].append((value, key))
    return out


def test_blocks_many_and_single_records_produce_the_same_messages(make_producer):
    batches = engine_batches()
    single, many, blocks, ahead = make_producer(), make_producer(), make_producer(), make_producer()
    for batch in batches:
        for topic, record in batch.records:
            single.send(topic, record)
        for topic, record in batch.events:
            many.send(topic, record)
            blocks.send(topic, record)
            ahead.send(topic, record)
        sent_before = len(ahead._producer.messages)
        encoded = [ahead.encode_many(block.topic, block.to_records()) for block in batch.blocks]
        assert len(ahead._producer.messages) == sent_before   # encoding sends nothing
        for block in batch.blocks:
            many.send_many(block.topic, block.to_records())
        blocks.send_blocks(batch.blocks)
        for e in encoded:   # encoded first, sent later: the same messages
            ahead.send_encoded(e)
    expected = by_topic(single._producer.messages)
    assert set(expected) == {topics.RUNS, topics.IO_SAMPLES, topics.CPU_SAMPLES, topics.PORT_SAMPLES}
    assert by_topic(many._producer.messages) == expected
    assert by_topic(blocks._producer.messages) == expected
    assert by_topic(ahead._producer.messages) == expected and ahead.produced == single.produced
    assert all(v[:5] == b"\x00" + (40 + len(t)).to_bytes(4, "big") for t, v, _ in blocks._producer.messages)
    assert blocks.produced == single.produced and sum(blocks.produced.values()) == sum(len(b) for b in batches)


def test_send_many_keys_follow_source_key_even_with_extra_fields(make_producer):
    records = [r for b in engine_batches() for t, r in b.records if t == topics.IO_SAMPLES][:50]
    odd = [dict(r) for r in records]
    odd[3]["port_id"] = "fc0"          # not an IoSample field, but source_key includes it
    p = make_producer()
    p.send_many(topics.IO_SAMPLES, odd)
    assert [k for _, _, k in p._producer.messages] == [source_key(r) for r in odd]
    assert source_key(odd[3]).endswith(b"/fc0")
    # as many keys as the schema has fields, one of them not a field: fastavro's default fills the gap
    odd[3] = {k: v for k, v in odd[3].items() if k != "tags"}
    p.send_many(topics.IO_SAMPLES, odd)
    assert [k for _, _, k in p._producer.messages[50:]] == [source_key(r) for r in odd]


def test_a_full_queue_is_waited_out_without_reordering(make_producer):
    batches = engine_batches()
    p = make_producer()
    p._producer.full_every = 7
    for batch in batches:
        p.send_blocks(batch.blocks)
    reference = make_producer()
    for batch in batches:
        reference.send_blocks(batch.blocks)
    assert p._producer.messages == reference._producer.messages
    assert p._producer.polls > len(p._producer.messages) // 7


def test_delivered_is_produced_minus_failed_after_flush(make_producer):
    p = make_producer()
    records = [r for b in engine_batches() for t, r in b.records if t == topics.CPU_SAMPLES][:40]
    p.send_many(topics.CPU_SAMPLES, records)
    p.send(topics.CPU_SAMPLES, records[0])
    p.flush()
    assert p.delivered[topics.CPU_SAMPLES] == 41 and not p.failed


def test_failed_deliveries_are_counted_and_raised(make_producer):
    p = make_producer()
    ports = [r for b in engine_batches() for t, r in b.records if t == topics.PORT_SAMPLES][:10]
    cpus = [r for b in engine_batches() for t, r in b.records if t == topics.CPU_SAMPLES][:5]
    p.send_many(topics.PORT_SAMPLES, ports)
    p.send_many(topics.CPU_SAMPLES, cpus)
    p._producer.fail_topics = {topics.PORT_SAMPLES}
    with pytest.raises(IoscaleError, match=r"Kafka refused records: .*too large; delivered 5 of 15 records "
                                           r"\(5 of 5 to ioscale.cpu_samples, 0 of 10 to ioscale.port_samples\), "
                                           r"10 not delivered"):
        p.flush()
    assert p.failed[topics.PORT_SAMPLES] == 10 and p.delivered[topics.PORT_SAMPLES] == 0
    assert p.delivered[topics.CPU_SAMPLES] == 5


def test_topic_map_writes_elsewhere_with_the_original_schema(make_producer):
    p = make_producer(topic_map={topics.IO_SAMPLES: "bench.io"})
    batch = next(b for b in engine_batches() if b.blocks)
    p.send_blocks(batch.blocks)
    assert {t for t, _, _ in p._producer.messages} == {"bench.io", topics.CPU_SAMPLES, topics.PORT_SAMPLES}
    sid = (40 + len(topics.IO_SAMPLES)).to_bytes(4, "big")
    assert all(v[1:5] == sid for t, v, _ in p._producer.messages if t == "bench.io")


def test_delivery_reports_are_for_failures_only(make_producer):
    p = make_producer()
    assert p._producer.conf["delivery.report.only.error"] is True
    assert p._producer.conf["on_delivery"] == p._on_delivery


def test_publish_import_sends_batches_with_the_bytes_of_single_sends(make_producer, monkeypatch):
    monkeypatch.setattr("ioscale.wire.publish.PUBLISH_BATCH", 7)
    recs = [(t, r) for b in engine_batches() for t, r in b.records]
    result = SimpleNamespace(run_id="r", errors=[], **{
        name: [r for t, r in recs if t == topic] for name, topic in (
            ("run_events", topics.RUNS), ("io_samples", topics.IO_SAMPLES), ("cpu_samples", topics.CPU_SAMPLES),
            ("port_samples", topics.PORT_SAMPLES))})
    batched, single = make_producer(), make_producer()
    counts = publish_import(result, batched)
    for name, topic in (("run_events", topics.RUNS), ("io_samples", topics.IO_SAMPLES),
                        ("cpu_samples", topics.CPU_SAMPLES), ("port_samples", topics.PORT_SAMPLES)):
        for r in getattr(result, name):
            single.send(topic, r)
    assert batched._producer.messages == single._producer.messages    # runs first, then samples, in order
    assert counts == {t: n for t, n in single.produced.items()}


def test_real_librdkafka_reports_failures_through_the_config_callback(monkeypatch):
    """No broker at port 1: every record times out, and the failure-only reports reach the counters."""
    monkeypatch.setattr(schemas, "register", lambda url, topic, schema, timeout_s=10.0: 7)
    p = TelemetryProducer("127.0.0.1:1", "http://registry", {"delivery.timeout.ms": 300, "linger.ms": 5,
                                                            "log_level": 0})
    batch = next(b for b in engine_batches("demo") if b.blocks)
    p.send_blocks(batch.blocks)
    with pytest.raises(IoscaleError, match=r"gave up on Kafka at 127.0.0.1:1: a record waited 0.3 s .*; "
                                           rf"delivered 0 of {len(batch)} records .*, {len(batch)} not delivered"):
        p.flush(10)
    assert p.failed == p.produced and sum(p.produced.values()) == len(batch)
    assert sum(p.delivered.values()) == 0
