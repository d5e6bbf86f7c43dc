"""The stack's ClickHouse consumes a real Kafka topic: Kafka table engine -> materialized view -> MergeTree.

This is the path the product's ``*_queue`` tables rely on; here with JSONEachRow, its own topic
(``itest-clickhouse-kafka-<random>``) and its own database (``itest_kafka_<random>``), both deleted afterwards.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import pytest
from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient

from ioscale.provision.kafka import ensure_topics
from ioscale.stack.clickhouse import client
from ioscale.wire.topics import TopicSpec

from isolation import PREFIX, scratch_name, unique

MESSAGES = 2000
PARTITIONS = 3


@pytest.fixture
def topic(stack) -> Iterator[str]:
    name = unique("clickhouse-kafka")
    admin = AdminClient({"bootstrap.servers": stack.kafka_bootstrap})
    ensure_topics(admin, [TopicSpec(name, PARTITIONS)])
    yield name
    admin.delete_topics([name], operation_timeout=10)


@pytest.fixture
def database(stack) -> Iterator[str]:
    name = scratch_name("kafka")
    with client(stack.settings, stack.secrets, "admin") as admin:
        admin.command(f"CREATE DATABASE {name}")
        yield name
        # Drop the consumer first so it leaves its group before the topic disappears.
        admin.command(f"DROP DATABASE IF EXISTS {name} SYNC")


def test_kafka_engine_table_and_view_fill_a_mergetree(stack, topic: str, database: str) -> None:
    ddl = [
        f"""CREATE TABLE {database}.samples (ts_ms UInt64, host String, ops UInt64)
            ENGINE = MergeTree ORDER BY (host, ts_ms)""",
        f"""CREATE TABLE {database}.samples_queue (ts_ms UInt64, host String, ops UInt64)
            ENGINE = Kafka SETTINGS
                kafka_broker_list = '{stack.kafka_bootstrap}',
                kafka_topic_list = '{topic}',
                kafka_group_name = '{PREFIX}clickhouse-{database}',
                kafka_format = 'JSONEachRow',
                kafka_num_consumers = 1,
                kafka_flush_interval_ms = 500""",
        f"""CREATE MATERIALIZED VIEW {database}.samples_mv TO {database}.samples AS
            SELECT ts_ms, host, ops FROM {database}.samples_queue""",
    ]
    with client(stack.settings, stack.secrets, "admin") as admin:
        for sql in ddl:
            admin.command(sql)
        # A new consumer group starts at the earliest offset (the engine sets auto.offset.reset).
        producer = Producer({"bootstrap.servers": stack.kafka_bootstrap, "linger.ms": 5})
        for i in range(MESSAGES):
            producer.produce(topic, json.dumps({"ts_ms": 1_790_000_000_000 + i, "host": f"h{i % 7}", "ops": i}).encode(),
                             key=str(i % 7).encode())
        assert producer.flush(30) == 0

        count, deadline = 0, time.monotonic() + 90
        while time.monotonic() < deadline:
            count = admin.command(f"SELECT count() FROM {database}.samples")
            if count >= MESSAGES:
                break
            time.sleep(1)
        assert count == MESSAGES
        total, hosts, first = admin.query(
            f"SELECT sum(ops), uniqExact(host), min(ts_ms) FROM {database}.samples").result_rows[0]
        assert total == MESSAGES * (MESSAGES - 1) // 2
        assert hosts == 7
        assert first == 1_790_000_000_000
        consumers = admin.query(
            f"SELECT sum(num_messages_read), countIf(length(exceptions.text) > 0) "
            f"FROM system.kafka_consumers WHERE database = '{database}'").result_rows[0]
        assert consumers == (MESSAGES, 0)
