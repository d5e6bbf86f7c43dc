"""Column blocks (ioscale.wire.columns) encode to the bytes fastavro writes for the records they stand for.

Oracle: `block.to_records()` -- the dicts a sink without block support receives -- encoded one by one
by fastavro. Blocks are built at random from every column form (constants, numpy arrays of several
dtypes, coded columns with shared and separate codes, ragged arrays with offset bounds, plain lists),
so the encoder's per-form shortcuts and its fallbacks are all exercised.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ioscale.wire import schemas, topics
from ioscale.wire.avro_wire import AvroEncoder
from ioscale.wire.columns import Coded, Const, Ragged, RecordBlock, column_values, concat
from ioscale.wire.producer import block_keys, source_key

sys.path.insert(0, str(Path(__file__).parent))  # --import-mode=importlib: the helper module beside this file
from random_records import SCHEMA_ID, rand_double, rand_int, rand_string, rand_value, same  # noqa: E402

HOT = [topics.IO_SAMPLES, topics.CPU_SAMPLES, topics.PORT_SAMPLES]


def rand_column(rng: random.Random, t: Any, n: int, shared: np.ndarray) -> Any:
    """A random column form for a field of Avro type `t` holding n records."""
    kind = t if isinstance(t, str) else t.get("type") if isinstance(t, dict) else "union"
    if isinstance(t, dict) and kind in ("long", "int", "double", "string"):  # logical types
        t = kind
    r = rng.random()
    if r < 0.2:
        return Const(rand_value(rng, t))
    if r < 0.3:
        return [rand_value(rng, t) for _ in range(n)]
    if kind in ("long", "int"):
        choice = rng.choice(["int64", "int64", "int32", "uint64", "bool", "coded"])
        if choice == "int64":
            return np.array([rand_int(rng, "long") for _ in range(n)], dtype=np.int64)
        if choice == "int32":
            return np.array([rand_int(rng, "int") for _ in range(n)], dtype=np.int32)
        if choice == "uint64":
            return np.array([rng.randint(0, 2**63 - 1) for _ in range(n)], dtype=np.uint64)
        if choice == "bool":
            return np.array([rng.random() < 0.5 for _ in range(n)])
        return Coded(shared, tuple(rand_int(rng, kind) for _ in range(int(shared.max(initial=0)) + 1)))
    if kind == "double":
        choice = rng.choice(["float64", "float64", "float32", "int64"])
        if choice == "int64":
            return np.array([rng.randint(-2**53, 2**53) for _ in range(n)], dtype=np.int64)
        with np.errstate(over="ignore"):   # float32: huge doubles become inf, as they would in a real column
            return np.array([rand_double(rng) for _ in range(n)], dtype=choice)
    if kind in ("string", "enum"):
        codes = shared if rng.random() < 0.8 else np.array([rng.randint(0, 4) for _ in range(n)], dtype=np.int64)
        return Coded(codes, tuple(rand_value(rng, t) for _ in range(int(codes.max(initial=0)) + 1)))
    if kind == "array":
        counts = [rng.choice([0, 0, 1, 3, rng.randint(4, 40)]) for _ in range(n)]
        lead = rng.randint(0, 5)                   # bounds need not start at 0
        total = lead + sum(counts) + rng.randint(0, 5)
        if t["items"] == "double":
            values = np.array([rand_double(rng) for _ in range(total)])
        else:
            values = np.array([rand_int(rng, t["items"]) for _ in range(total)], dtype=np.int64)
        return Ragged(values, np.concatenate(([lead], lead + np.cumsum(counts))).astype(np.int64))
    return Const(rand_value(rng, t))                 # maps, unions


def rand_block(rng: random.Random, topic: str, n: int) -> RecordBlock:
    schema = schemas.schema_for_topic(topic)
    shared = np.array([rng.randint(0, 9) for _ in range(n)], dtype=np.int64)
    cols = {f["name"]: rand_column(rng, f["type"], n, shared) for f in schema["fields"]}
    return RecordBlock(topic, n, tuple(cols), cols)


def fastavro_bytes(topic: str, records: list[dict]) -> list[bytes]:
    enc = AvroEncoder(schemas.schema_for_topic(topic), SCHEMA_ID)
    return [enc.encode(r) for r in records]


@pytest.mark.parametrize("topic", HOT)
def test_random_blocks_encode_to_fastavros_bytes(topic):
    rng = random.Random(f"blocks-{topic}")
    enc = AvroEncoder(schemas.schema_for_topic(topic), SCHEMA_ID)
    records = 0
    for i in range(60):
        block = rand_block(rng, topic, rng.choice([1, 2, 5, 40, 150]))
        assert enc.encode_block(block) == fastavro_bytes(topic, block.to_records()), i
        records += block.n
    assert records > 1500 and enc.fallbacks == 0


@pytest.mark.parametrize("topic", HOT)
def test_concatenated_blocks_hold_the_same_records_and_bytes(topic):
    rng = random.Random(f"concat-{topic}")
    enc = AvroEncoder(schemas.schema_for_topic(topic), SCHEMA_ID)
    for _ in range(15):
        blocks = [rand_block(rng, topic, rng.randint(1, 30)) for _ in range(rng.randint(2, 6))]
        # shared constant and coded columns, as the simulator's blocks of one step have
        shared = {name: blocks[0].columns[name] for name in blocks[0].fields if rng.random() < 0.3
                  and not isinstance(blocks[0].columns[name], (Coded, Ragged, list, np.ndarray))}
        blocks = [RecordBlock(topic, b.n, b.fields, {**b.columns, **shared}) for b in blocks]
        merged = concat(blocks)
        expected = [r for b in blocks for r in b.to_records()]
        assert merged.n == len(expected) and same(merged.to_records(), expected)
        assert enc.encode_block(merged) == fastavro_bytes(topic, expected)


def test_concat_keeps_shared_codes_shared():
    codes = np.arange(3)
    hosts, vms = Coded(codes, ("h0", "h1", "h2")), Coded(codes, ("", "vm1", "vm2"))
    cols = {"host": hosts, "vm": vms, "n": np.arange(3)}
    merged = concat([RecordBlock("t", 3, ("host", "vm", "n"), cols)] * 3)
    assert merged.columns["host"].codes is merged.columns["vm"].codes
    assert [r["vm"] for r in merged.to_records()] == ["", "vm1", "vm2"] * 3


def test_constants_that_differ_become_per_record_values():
    a = RecordBlock("t", 2, ("x", "s", "f"), {"x": Const(1), "s": Const("a"), "f": Const(0.5)})
    b = RecordBlock("t", 1, ("x", "s", "f"), {"x": Const(2), "s": Const("b"), "f": Const(0.5)})
    c = RecordBlock("t", 1, ("x", "s", "f"), {"x": Const(True), "s": Const("b"), "f": Const(1)})
    assert concat([a, b]).to_records() == [{"x": 1, "s": "a", "f": 0.5}] * 2 + [{"x": 2, "s": "b", "f": 0.5}]
    mixed = concat([a, c]).to_records()
    assert [type(r["x"]) for r in mixed] == [int, int, bool] and [type(r["f"]) for r in mixed] == [float, float, int]
    # equal but not the same value on the wire
    z = RecordBlock("t", 1, ("f", "l"), {"f": Const(0.0), "l": Const([1])})
    nz = RecordBlock("t", 1, ("f", "l"), {"f": Const(-0.0), "l": Const([1.0])})
    assert same(concat([z, nz]).to_records(), [{"f": 0.0, "l": [1]}, {"f": -0.0, "l": [1.0]}])


def test_list_and_map_constants_are_not_shared_between_records():
    block = RecordBlock("t", 2, ("a", "m"), {"a": Const([]), "m": Const({})})
    r0, r1 = block.to_records()
    r0["a"].append(1)
    r0["m"]["k"] = "v"
    assert r1 == {"a": [], "m": {}}


def test_a_block_must_hold_n_values_per_column():
    with pytest.raises(ValueError, match="2 values for 3 records"):
        RecordBlock("t", 3, ("a",), {"a": np.arange(2)})
    with pytest.raises(ValueError, match="no column for"):
        RecordBlock("t", 1, ("a", "b"), {"a": Const(1)})


def test_uint64_beyond_int64_raises_as_fastavro_does():
    topic = topics.PORT_SAMPLES
    block = rand_block(random.Random(1), topic, 4)
    cols = {**block.columns, "rx_bytes": np.array([1, 2, 3, 2**63], dtype=np.uint64)}
    bad = RecordBlock(topic, 4, block.fields, cols)
    enc = AvroEncoder(schemas.schema_for_topic(topic), SCHEMA_ID)
    with pytest.raises(OverflowError):
        enc.encode(bad.to_records()[3])
    with pytest.raises(OverflowError):
        enc.encode_block(bad)


@pytest.mark.parametrize("topic", HOT)
def test_block_keys_are_the_source_keys_of_the_records(topic):
    rng = random.Random(f"keys-{topic}")
    for _ in range(20):
        block = rand_block(rng, topic, rng.randint(1, 30))
        block = RecordBlock(topic, block.n, block.fields,
                            {**block.columns, "run_id": Const(rand_string(rng))})   # strings, as encoding requires
        assert block_keys(block) == [source_key(r) for r in block.to_records()]


def test_column_values_of_each_form():
    assert column_values(Const(3), 2) == [3, 3]
    assert column_values(Coded(np.array([1, 0, 1]), ("a", "b")), 3) == ["b", "a", "b"]
    assert column_values(Ragged(np.arange(10), np.array([2, 4, 4, 7])), 3) == [[2, 3], [], [4, 5, 6]]
    assert column_values(np.array([1.5, 2.0]), 2) == [1.5, 2.0]
    assert column_values(["x", "y"], 2) == ["x", "y"]


@pytest.mark.parametrize("form", ["const", "coded", "mixed"])
def test_identity_group_from_constants_and_coded_columns(form):
    """The run of string / enum / int fields (run_id .. direction) in each column form the engine may give."""
    topic = topics.IO_SAMPLES
    rng = random.Random(form)
    block = rand_block(rng, topic, 12)
    codes = np.array([0, 1, 2, 1, 0, 2, 2, 1, 0, 0, 1, 2])
    names = ("interval_ms", "run_id", "step_index", "host", "vm", "target", "direction")
    values = {"interval_ms": (1000, 500, 1000), "run_id": ("r", "r", "ß"), "step_index": (0, -1, 7),
              "host": ("h1", "h2", "h3"), "vm": ("", "vm 1", "vm2"), "target": ("sdb", "#0", "PhysicalDrive1"),
              "direction": ("READ", "WRITE", "READ")}
    cols = {}
    for i, name in enumerate(names):
        if form == "const" or (form == "mixed" and i % 2 == 0):
            cols[name] = Const(values[name][0])
        else:
            cols[name] = Coded(codes, values[name])
    block = RecordBlock(topic, 12, block.fields, {**block.columns, **cols})
    enc = AvroEncoder(schemas.schema_for_topic(topic), SCHEMA_ID)
    for _ in range(2):   # the second time from the cached table
        assert enc.encode_block(block) == fastavro_bytes(topic, block.to_records())
    assert enc.fallbacks == 0


def test_strided_numpy_columns_encode_like_contiguous_ones():
    """Columns may be views into bigger arrays (every other value, a column of a matrix)."""
    topic = topics.IO_SAMPLES
    block = rand_block(random.Random("strided"), topic, 8)
    matrix = np.arange(48, dtype=np.float64).reshape(8, 6) / 7
    ints = np.arange(40, dtype=np.int64).reshape(8, 5) * 1_000_003
    cols = {**block.columns, "outstanding_ios": matrix[:, 2], "latency_sum_ns": ints[:, 1],
            "percentile_q": Ragged(np.linspace(0, 1, 40)[::2], np.array([0, 3, 3, 5, 9, 9, 12, 15, 20])),
            "latency_bucket_index": Ragged(np.arange(100, dtype=np.int64)[::3], np.arange(0, 33, 4))}
    strided = RecordBlock(topic, 8, block.fields, cols)
    enc = AvroEncoder(schemas.schema_for_topic(topic), SCHEMA_ID)
    assert enc.encode_block(strided) == fastavro_bytes(topic, strided.to_records())
    assert enc.fallbacks == 0


def test_block_keys_tell_equal_values_of_other_types_apart():
    codes = np.array([0, 0])
    blocks = [RecordBlock("t", 2, ("run_id", "vm"), {"run_id": Const("r"), "vm": Coded(codes, (v,))})
              for v in (1, True, "1")]
    assert [block_keys(b)[0] for b in blocks] == [b"r/1", b"r/True", b"r/1"]
