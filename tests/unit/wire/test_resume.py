"""The scan's pure parts (ioscale.wire.resume): the last message per key of the run, decoded by the writer schema
from a real registry (the project's own, in memory). The Kafka scan itself runs in
tests/integration/wire/test_simulate_resume.py."""

from __future__ import annotations

import pytest

from ioscale.errors import IoscaleError
from ioscale.simulator import make_engine
from ioscale.wire import schemas, topics
from ioscale.wire.avro_wire import AvroEncoder
from ioscale.wire.resume import (FrameDecoder, decode_last, keep_last, record_identity, run_of_key,
                                 without_logical_types)

from memory_registry import memory_registry

START_MS = 1_767_225_600_000
RUN = "sim-demo-fc4-8k-20260101T000000Z-s5"


def test_keep_last_keeps_the_last_message_of_each_key_of_the_runs_only():
    messages = [
        (topics.IO_SAMPLES, 2, 10, f"{RUN}/h/vm01/Disk1".encode(), b"a"),
        (topics.IO_SAMPLES, 2, 11, f"{RUN}0/h/vm01/Disk1".encode(), b"other run: s50"),
        (topics.IO_SAMPLES, 2, 12, f"{RUN}/h/vm01/Disk1".encode(), b"b"),
        (topics.RUNS, 0, 7, RUN.encode(), b"e"),
        (topics.RUNS, 0, 8, None, b"no key"),
        (topics.RUNS, 0, 9, RUN.encode(), None),            # a tombstone says nothing
        (topics.CPU_SAMPLES, 1, 3, f"{RUN}/h/".encode(), b"c"),
    ]
    assert keep_last(messages, [RUN]) == {
        (topics.IO_SAMPLES, f"{RUN}/h/vm01/Disk1".encode()): (2, 12, b"b"),
        (topics.RUNS, RUN.encode()): (0, 7, b"e"),
        (topics.CPU_SAMPLES, f"{RUN}/h/".encode()): (1, 3, b"c"),
    }
    assert run_of_key(f"{RUN}/h/vm01/Disk1".encode()) == RUN.encode() == run_of_key(RUN.encode())


def test_the_last_records_decode_by_their_writer_id_as_the_producer_was_given_them():
    engine = make_engine("demo", seed=5, start_ms=START_MS, step_s=2, ramp_s=1)
    records = list(engine.records())
    event = records[0][1]
    sample = next(r for t, r in records if t == topics.IO_SAMPLES)
    with memory_registry() as url:
        ids = {t: schemas.register(url, t, schemas.schema_for_topic(t)) for t in (topics.RUNS, topics.IO_SAMPLES)}
        frames = {t: AvroEncoder(schemas.schema_for_topic(t), ids[t]) for t in ids}
        fetched = []
        decode = FrameDecoder(lambda i: fetched.append(i) or schemas.fetch_schema(url, i))
        last = {(topics.RUNS, RUN.encode()): (0, 5, frames[topics.RUNS].encode(event)),
                (topics.IO_SAMPLES, b"k1"): (3, 9, frames[topics.IO_SAMPLES].encode(sample)),
                (topics.IO_SAMPLES, b"k2"): (4, 1, frames[topics.IO_SAMPLES].encode(sample))}
        got = decode_last(last, decode)
        with pytest.raises(IoscaleError, match="schema id 999 at .*: HTTP 404"):
            schemas.fetch_schema(url, 999)
    assert sorted(fetched) == sorted(ids.values())        # once per writer id
    assert got[(topics.RUNS, RUN.encode())].record == event   # ts_ms an int again, not a datetime
    assert got[(topics.IO_SAMPLES, b"k1")].record == sample
    assert (got[(topics.IO_SAMPLES, b"k1")].partition, got[(topics.IO_SAMPLES, b"k1")].offset) == (3, 9)
    assert got[(topics.RUNS, RUN.encode())].identity == (START_MS, "RUN_STARTED", -1, None, None, None, None)
    assert record_identity(sample) == (START_MS, None, 0, "READ", None, None, None)


def test_a_last_message_that_is_not_ioscales_says_so():
    decode = FrameDecoder(lambda i: schemas.schema_for_topic(topics.IO_SAMPLES))
    with pytest.raises(IoscaleError, match=r"the last record of key k on ioscale.io_samples \(partition 1, offset 2\) "
                                           r"does not decode: magic byte is 123"):
        decode_last({(topics.IO_SAMPLES, b"k"): (1, 2, b'{"json": 1}')}, decode)


def test_logical_types_are_dropped_everywhere_else_kept():
    schema = schemas.schema_for_topic(topics.RUNS)
    plain = without_logical_types(schema)
    assert "logicalType" in str(schema) and "logicalType" not in str(plain)
    assert [f["name"] for f in plain["fields"]] == [f["name"] for f in schema["fields"]]
    assert next(f for f in plain["fields"] if f["name"] == "start_ms")["type"] == ["null", {"type": "long"}]
