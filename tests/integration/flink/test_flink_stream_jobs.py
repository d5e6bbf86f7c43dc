"""The Flink session cluster runs the sample monitor, and the monitor counts what Kafka carries.

Each test record has a schema id drawn at random for this run, so the count line it produces in the
TaskManager log (read over Flink's REST API, as the UI shows it) cannot come from anyone else's data.
"""

from __future__ import annotations

import random
import re
import struct
import time
from datetime import datetime

import requests
from confluent_kafka import Producer

from ioscale.stack.component import StackContext
from ioscale.stack.flink import FlinkComponent
from ioscale.stack.progress import SilentProgress
from ioscale.wire import avro_wire, topics

JOB = "ioscale-sample-monitor"
#: window (10 s) + the time a record takes to reach the window operator, with room for a loaded box
COUNT_TIMEOUT_S = 60.0


def _flink(stack) -> FlinkComponent:
    return FlinkComponent(StackContext(stack.settings, stack.secrets, SilentProgress()))


def _taskmanager_logs(url: str) -> str:
    tms = requests.get(f"{url}/taskmanagers", timeout=10).json()["taskmanagers"]
    return "\n".join(requests.get(f"{url}/taskmanagers/{tm['id']}/log", timeout=30).text for tm in tms)


def _epoch_ms(iso: str) -> int:
    return int(datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp() * 1000)


def test_cluster_has_a_taskmanager_and_runs_the_sample_monitor(stack):
    flink = _flink(stack)
    overview = flink.overview()
    assert overview["taskmanagers"] >= 1
    assert overview["slots-total"] >= 4
    assert flink.jobs()[JOB] == "RUNNING"
    assert flink.health().ok


def test_produced_records_are_counted_per_schema_id_and_bad_headers_apart(stack):
    url = _flink(stack).rest_url
    schema_id = random.randint(10_000_000, 2**31 - 1)  # no registry hands out ids this large
    good = [struct.pack(">bI", avro_wire.MAGIC, schema_id) + bytes(n) for n in (11, 29, 40)]
    bad_size = random.randint(6_000, 9_000)  # wrong magic byte, a size nobody else sends
    bad = b"\x07" + bytes(bad_size - 1)

    producer = Producer({"bootstrap.servers": stack.kafka_bootstrap, "linger.ms": 0})
    sent_ms = int(time.time() * 1000)
    for value in [*good, bad]:
        producer.produce(topics.IO_SAMPLES, value)
    assert producer.flush(30) == 0

    # The three records normally share one 10 s window; a window boundary may split them over two lines.
    line = re.compile(rf"window=\[\S+,\S+\) schema_id={schema_id} records=(\d+) bytes=(\d+)")

    def counted() -> tuple[int, int]:
        rows = line.findall(_taskmanager_logs(url))
        return sum(int(r) for r, _ in rows), sum(int(b) for _, b in rows)

    deadline = time.monotonic() + COUNT_TIMEOUT_S
    while counted()[0] < len(good) and time.monotonic() < deadline:
        time.sleep(2.0)
    assert counted() == (len(good), sum(len(v) for v in good))

    # Bad headers get a row of their own; someone else's bad record may share the window, so >=.
    bad_row = re.compile(r"window=\[\S+,(\S+)\) bad_header records=(\d+) bytes=(\d+)")

    def bad_counted() -> bool:
        return any(_epoch_ms(end) > sent_ms and int(n) >= 1 and int(b) >= bad_size
                   for end, n, b in bad_row.findall(_taskmanager_logs(url)))

    deadline = time.monotonic() + COUNT_TIMEOUT_S
    while not bad_counted() and time.monotonic() < deadline:
        time.sleep(2.0)
    assert bad_counted(), "the bad-header record was not counted in a window after it was sent"
