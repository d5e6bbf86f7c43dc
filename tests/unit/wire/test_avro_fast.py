"""ioscale.wire.avro_fast writes exactly the bytes fastavro writes, and fastavro reads them back to the same record.

Oracle: fastavro's schemaless_writer (the generic path, ioscale.wire.avro_wire.AvroEncoder.encode) on the same
records. Random records with fixed seeds (hypothesis is not a dependency) cover the edges the varint and
assembly code can get wrong: empty and long histograms, counts up to 2^63 - 1, negative values (zigzag),
-2^63, multi-byte UTF-8, NUL, empty strings, NaN / inf / -0.0, non-empty maps, every enum symbol, and
batches of one record as well as hundreds.
"""

from __future__ import annotations

import copy
import io
import json
import random
import sys
from pathlib import Path
from typing import Any

import fastavro
import numpy as np
import pytest

from ioscale.wire import schemas, topics
from ioscale.wire.avro_fast import BatchEncoder, Unsupported, compile_schema, varint
from ioscale.wire.avro_wire import AvroEncoder, split

sys.path.insert(0, str(Path(__file__).parent))  # --import-mode=importlib: the helper module beside this file
from random_records import SCHEMA_ID, rand_records, same  # noqa: E402

SCHEMA_DIR = Path(__file__).resolve().parents[3] / "schema"
HOT = [topics.IO_SAMPLES, topics.CPU_SAMPLES, topics.PORT_SAMPLES]

def schema_of(topic: str) -> dict:
    return schemas.schema_for_topic(topic)


def generic(schema: dict, records: list[dict]) -> list[bytes]:
    """fastavro's framed bytes, one record at a time."""
    enc = AvroEncoder(schema, SCHEMA_ID)
    return [enc.encode(r) for r in records]


def bodies(schema: dict, records: list[dict]) -> list[bytes]:
    """fastavro's Avro bodies (without the 5-byte frame)."""
    return [b[5:] for b in generic(schema, records)]


def without_logical_types(schema: Any) -> Any:
    """The schema with logicalType dropped, so fastavro reads timestamp-millis back as the long it is."""
    if isinstance(schema, dict):
        return {k: without_logical_types(v) for k, v in schema.items() if k != "logicalType"}
    if isinstance(schema, list):
        return [without_logical_types(x) for x in schema]
    return schema


# -- the hot schemas --------------------------------------------------------------------------------------
@pytest.mark.parametrize("topic", HOT)
def test_random_records_encode_to_fastavros_bytes(topic):
    schema = schema_of(topic)
    fast = AvroEncoder(schema, SCHEMA_ID)
    assert fast.fast is not None, "the hot schemas are covered by the fast path"
    rng = random.Random(topic)
    total = 0
    for size in [1, 1, 2, 3, 7, 50, 200, 500, 1000, 1237]:
        records = rand_records(rng, schema, size)
        assert fast.fast.encode_many(records) == generic(schema, records)
        total += size
    assert total >= 3000 and fast.fallbacks == 0


@pytest.mark.parametrize("topic", HOT)
def test_fastavro_reads_the_fast_bytes_back_to_the_same_records(topic):
    schema = schema_of(topic)
    reader = fastavro.parse_schema(without_logical_types(schema))
    records = rand_records(random.Random(f"{topic}-read"), schema, 800)
    out = BatchEncoder.for_schema(schema, b"").encode_many(records)
    for record, body in zip(records, out):
        buf = io.BytesIO(body)
        back = fastavro.schemaless_reader(buf, reader, None)
        assert buf.tell() == len(body), "no trailing bytes"
        assert same(back, record)


def test_frame_carries_magic_and_schema_id():
    schema = schema_of(topics.IO_SAMPLES)
    rec = rand_records(random.Random(1), schema, 1)
    framed = AvroEncoder(schema, SCHEMA_ID).encode_many(rec)[0]
    assert framed[:5] == b"\x00\x01\x02\x03\x04"
    assert split(framed)[0] == SCHEMA_ID


@pytest.mark.parametrize("values", [
    [0], [1], [-1], [63, -64], [64, -65], [2**63 - 1], [-2**63], list(range(-20000, 20000, 7)),
    [2**k for k in range(63)] + [-(2**k) for k in range(64)] + [2**k - 1 for k in range(1, 64)],
])
def test_vectorised_varints_match_the_scalar_encoder(values):
    schema = {"type": "record", "name": "V", "fields": [{"name": "v", "type": "long"},
                                                         {"name": "a", "type": {"type": "array", "items": "long"}}]}
    records = [{"v": v, "a": values[: i % 5]} for i, v in enumerate(values)] + [{"v": 0, "a": values}]
    enc = BatchEncoder.for_schema(schema)
    assert enc.encode_many(records) == bodies(schema, records)
    scalar = {"type": "record", "name": "W", "fields": [{"name": "v", "type": "long"}]}
    assert [varint(v) for v in values] == bodies(scalar, [{"v": v} for v in values])


def test_histogram_records_as_the_simulator_makes_them():
    """~20 buckets per record, indexes < 4352, counts from 1 to a few thousand: the common case."""
    schema = schema_of(topics.IO_SAMPLES)
    rng = random.Random(7)
    base = rand_records(rng, schema, 1)[0]
    records = []
    for i in range(600):
        idx = sorted(rng.sample(range(4352), rng.randint(0, 30)))
        r = {**base, "latency_bucket_index": idx, "latency_bucket_count": [rng.randint(1, 5000) for _ in idx],
             "ops": i, "latency_sum_ns": rng.randint(0, 10**13), "percentile_q": [], "percentile_ns": [], "tags": {}}
        records.append(r)
    assert BatchEncoder.for_schema(schema).encode_many(records) == bodies(schema, records)


# -- unions and schemas outside the fast path -------------------------------------------------------------
UNION_SCHEMA = {"type": "record", "name": "U", "namespace": "t", "fields": [
    {"name": "a", "type": ["null", "long"]},
    {"name": "b", "type": ["string", "null"]},
    {"name": "c", "type": ["null", "double"]},
    {"name": "d", "type": ["null", "int"]},
    {"name": "e", "type": "string"},
    {"name": "f", "type": {"type": "enum", "name": "E", "symbols": ["X", "Y", "Z"]}},
    {"name": "g", "type": "int"},
    {"name": "h", "type": {"type": "array", "items": "double"}},
    {"name": "m", "type": {"type": "map", "values": "string"}},
]}


def test_null_unions_encode_to_fastavros_bytes():
    assert compile_schema(UNION_SCHEMA) is not None
    rng = random.Random("unions")
    records = rand_records(rng, UNION_SCHEMA, 1500)
    assert any(r["a"] is None for r in records) and any(r["a"] is not None for r in records)
    enc = BatchEncoder.for_schema(UNION_SCHEMA)
    for i in range(0, 1500, 300):
        assert enc.encode_many(records[i:i + 300]) == bodies(UNION_SCHEMA, records[i:i + 300])


def test_run_event_schema_is_left_to_fastavro():
    schema = schema_of(topics.RUNS)
    assert compile_schema(schema) is None          # nested records: not covered
    enc = AvroEncoder(schema, SCHEMA_ID)
    event = {"event_type": "RUN_STARTED", "ts_ms": 5, "run_id": "r", "scenario": "s", "tool": "SIMULATOR",
             "description": "d", "hosts": [], "step_index": -1, "step_label": "", "load": None, "links": [],
             "start_ms": None, "end_ms": 7, "tags": {"k": "v"}}
    assert enc.encode_many([event, event]) == [enc.encode(event)] * 2


def good_io_record() -> dict:
    return rand_records(random.Random("good"), schema_of(topics.IO_SAMPLES), 1)[0]


@pytest.mark.parametrize("change", [
    {"ops": 5.0},                    # fastavro truncates floats in long fields
    {"ops": 5.7},
    {"interval_ms": 1000.0},         # an int inside the cached identity group
    {"step_index": 2.5},
    {"latency_bucket_index": [1, 2.0]},
    {"latency_bucket_count": (1, 2)},          # a tuple is an array too
    {"latency_bucket_count": np.array([1, 2])},
    {"outstanding_ios": "2.5"},      # fastavro parses strings in double fields
    {"ops": np.int64(7)},
    {"ops": True},
    {"tags": {"k": "v", "ü": "ß"}},
    {"percentile_q": [0.5, 1]},      # an int among doubles
])
def test_odd_values_give_fastavros_bytes(change):
    schema = schema_of(topics.IO_SAMPLES)
    records = [good_io_record(), {**good_io_record(), **change}]
    enc = AvroEncoder(schema, SCHEMA_ID)
    assert enc.encode_many(records) == generic(schema, records)


def test_missing_field_falls_back_to_fastavros_default():
    schema = schema_of(topics.IO_SAMPLES)
    r = good_io_record()
    del r["tags"]                     # has a default: fastavro writes {}
    enc = AvroEncoder(schema, SCHEMA_ID)
    with pytest.raises(Unsupported):
        enc.fast.encode_many([r])
    assert enc.encode_many([r]) == generic(schema, [r]) and enc.fallbacks == 1


@pytest.mark.parametrize("change, error", [
    ({"host": b"bytes"}, TypeError),
    ({"host": "lone \ud800 surrogate"}, UnicodeEncodeError),
    ({"direction": "SIDEWAYS"}, ValueError),
    ({"ops": None}, TypeError),
    ({"bytes": 2**63}, OverflowError),
])
def test_invalid_records_raise_as_fastavro_does(change, error):
    schema = schema_of(topics.IO_SAMPLES)
    bad = {**good_io_record(), **change}
    with pytest.raises(error):
        generic(schema, [bad])
    with pytest.raises(error):
        AvroEncoder(schema, SCHEMA_ID).encode_many([good_io_record(), bad])


def test_extra_keys_are_ignored_like_fastavro():
    schema = schema_of(topics.CPU_SAMPLES)
    r = rand_records(random.Random(3), schema, 2)
    r[1] = {**r[1], "not_in_schema": object()}
    assert AvroEncoder(schema, SCHEMA_ID).encode_many(r) == generic(schema, r)


def test_identity_cache_does_not_confuse_equal_values_of_other_types():
    """1 == 1.0 == True as dict keys: the cached identity bytes must still match fastavro for each."""
    schema = schema_of(topics.CPU_SAMPLES)
    base = rand_records(random.Random(4), schema, 1)[0]
    enc = AvroEncoder(schema, SCHEMA_ID)
    for cpu in [1, True, 1.0, np.int64(1)]:
        records = [{**base, "cpu": cpu}] * 3
        assert enc.encode_many(records) == generic(schema, records), cpu


def test_schemas_in_schema_dir_are_the_ones_compiled():
    for topic in HOT:
        fields = json.loads((SCHEMA_DIR / schemas.TOPIC_SCHEMAS[topic]).read_text())["fields"]
        assert BatchEncoder.for_schema(schema_of(topic)).names == tuple(f["name"] for f in fields)


def test_encoding_does_not_modify_the_records():
    schema = schema_of(topics.IO_SAMPLES)
    records = rand_records(random.Random(9), schema, 50)
    before = copy.deepcopy(records)
    AvroEncoder(schema, SCHEMA_ID).encode_many(records)
    assert same(records, before)
