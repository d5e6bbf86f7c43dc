"""Smoke: the registry, Kafka and ClickHouse carry a real Avro record end to end.

- the registry registers a schema and returns it by id;
- a record framed in the Confluent wire format round-trips through a real Kafka topic;
- ClickHouse's Kafka engine decodes the same framing with AvroConfluent (writer schema fetched
  from our registry) into ioscale.io_samples, and a garbage message lands in dead_letters.
"""

from __future__ import annotations

import json
import time

import clickhouse_connect
import requests
from confluent_kafka import Consumer, Producer
from confluent_kafka.admin import AdminClient

from ioscale.provision.kafka import ensure_topics
from ioscale.wire import avro_wire, schemas, topics
from ioscale.wire.producer import TelemetryProducer
from ioscale.wire.topics import TopicSpec

from isolation import PREFIX, unique


def _sample(run_id: str, i: int) -> dict:
    return {
        "ts_ms": 1_790_000_000_000 + i * 1000, "interval_ms": 1000, "run_id": run_id, "step_index": 0,
        "host": f"{PREFIX}host-a", "vm": "vm-01", "target": "disk-1", "direction": "READ" if i % 2 == 0 else "WRITE",
        "ops": 1000 + i, "bytes": (1000 + i) * 4096, "outstanding_ios": 8.0, "errors": 0,
        "latency_count": 1000 + i, "latency_sum_ns": (1000 + i) * 250_000, "latency_min_ns": 90_000,
        "latency_max_ns": 4_000_000, "latency_hist_scheme": 1,
        "latency_bucket_index": [1900, 1950], "latency_bucket_count": [900 + i, 100],
        "percentile_q": [], "percentile_ns": [], "tags": {"smoke": "yes"},
    }


def test_registry_registers_and_returns_schema(stack):
    schema = schemas.schema_for_topic(topics.IO_SAMPLES)
    schema_id = schemas.register(stack.registry_url, topics.IO_SAMPLES, schema)
    again = schemas.register(stack.registry_url, topics.IO_SAMPLES, schema)
    assert again == schema_id  # same schema, same id
    got = requests.get(f"{stack.registry_url}/schemas/ids/{schema_id}", timeout=5).json()
    assert json.loads(got["schema"])["name"] == "IoSample"
    subjects = requests.get(f"{stack.registry_url}/subjects", timeout=5).json()
    assert schemas.subject_for(topics.IO_SAMPLES) in subjects


def test_avro_record_round_trips_through_kafka(stack):
    topic = unique("smoke-roundtrip")
    admin = AdminClient({"bootstrap.servers": stack.kafka_bootstrap})
    ensure_topics(admin, [TopicSpec(topic, 1)])
    schema = schemas.schema_for_topic(topics.IO_SAMPLES)
    schema_id = schemas.register(stack.registry_url, topics.IO_SAMPLES, schema)
    enc = avro_wire.AvroEncoder(schema, schema_id)
    run_id = unique("smoke-roundtrip")
    sent = [_sample(run_id, i) for i in range(50)]
    p = Producer({"bootstrap.servers": stack.kafka_bootstrap, "enable.idempotence": True})
    for rec in sent:
        p.produce(topic, enc.encode(rec))
    assert p.flush(30) == 0
    c = Consumer({"bootstrap.servers": stack.kafka_bootstrap, "group.id": unique("smoke"),
                  "auto.offset.reset": "earliest"})
    c.subscribe([topic])
    got = []
    deadline = time.monotonic() + 30
    while len(got) < len(sent) and time.monotonic() < deadline:
        msg = c.poll(1.0)
        if msg is None or msg.error():
            continue
        sid, _ = avro_wire.split(msg.value())
        writer = json.loads(requests.get(f"{stack.registry_url}/schemas/ids/{sid}", timeout=5).json()["schema"])
        got.append(avro_wire.decode(msg.value(), writer))
    c.close()
    admin.delete_topics([topic])
    assert len(got) == len(sent)
    assert got[7]["ops"] == sent[7]["ops"] and got[7]["direction"] == sent[7]["direction"]
    assert got[7]["latency_bucket_count"] == sent[7]["latency_bucket_count"]


def test_clickhouse_ingests_avro_confluent_and_dead_letters_garbage(stack):
    run_id = unique("smoke")
    prod = TelemetryProducer(stack.kafka_bootstrap, stack.registry_url)
    for i in range(20):
        prod.send(topics.IO_SAMPLES, _sample(run_id, i))
    prod.flush()
    assert prod.delivered[topics.IO_SAMPLES] == 20
    # A message that is not in the Confluent framing must be dead-lettered, not block the partition.
    raw = Producer({"bootstrap.servers": stack.kafka_bootstrap})
    raw.produce(topics.IO_SAMPLES, b"not avro at all " + run_id.encode(), key=run_id.encode())
    raw.flush(10)

    user, pw = stack.clickhouse_credentials("reader")
    ch = clickhouse_connect.get_client(host=stack.clickhouse_host, port=stack.clickhouse_http_port,
                                       username=user, password=pw)
    deadline = time.monotonic() + 60
    rows = 0
    while time.monotonic() < deadline:
        rows = ch.command(f"SELECT count() FROM ioscale.io_samples FINAL WHERE run_id = '{run_id}'")
        # The Flink job dead-letters the same record under stage 'flink'; ClickHouse's own stage counts it once.
        dead = ch.command(f"SELECT count() FROM ioscale.dead_letters WHERE stage = 'clickhouse-kafka' "
                          f"AND position(raw_message, '{run_id}') > 0")
        if rows == 20 and dead >= 1:
            break
        time.sleep(1)
    assert rows == 20
    assert dead == 1
    total_ops, directions, buckets = ch.query(
        f"SELECT sum(ops), groupUniqArray(direction), sumMap(latency_bucket_index, latency_bucket_count) "
        f"FROM ioscale.io_samples FINAL WHERE run_id = '{run_id}'"
    ).result_rows[0]
    assert total_ops == sum(1000 + i for i in range(20))
    assert sorted(directions) == ["read", "write"]
    assert dict(zip(*buckets)) == {1900: sum(900 + i for i in range(20)), 1950: 20 * 100}


def test_historical_import_is_not_expired_by_ttl(stack):
    """Regression: raw-table TTLs keyed on sample time deleted imported results from 2009 at the first merge."""
    run_id = unique("smoke-2009")
    rec = _sample(run_id, 0)
    rec["ts_ms"] = 1_243_814_400_000  # 2009-06-01, when the seed studies ran
    prod = TelemetryProducer(stack.kafka_bootstrap, stack.registry_url)
    prod.send(topics.IO_SAMPLES, rec)
    prod.flush()
    user, pw = stack.clickhouse_credentials("admin")
    ch = clickhouse_connect.get_client(host=stack.clickhouse_host, port=stack.clickhouse_http_port,
                                       username=user, password=pw)
    query = f"SELECT count() FROM ioscale.io_samples WHERE run_id = '{run_id}'"
    deadline = time.monotonic() + 60
    while ch.command(query) == 0 and time.monotonic() < deadline:
        time.sleep(1)
    assert ch.command(query) == 1
    ch.command("OPTIMIZE TABLE ioscale.io_samples PARTITION ID '200906' FINAL")  # merges apply TTLs; this row's month
    assert ch.command(query) == 1
