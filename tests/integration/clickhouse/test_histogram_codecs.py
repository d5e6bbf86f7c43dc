"""Histogram columns are stored through T64 (counts) and Delta (indexes) before ZSTD (as io_samples, migration
0010, explains): cheaper merges for wide, fio-like histograms. These codecs must be lossless over the whole range
a bucket count can take, through inserts and merges, in every table that keeps a histogram."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from ioscale.stack.clickhouse import client

from isolation import scratch_name

ARRAY_TABLES = ["io_samples", "io_samples_1s", "io_samples_10s", "io_samples_1m",
                "io_fleet_1s", "io_fleet_10s", "io_fleet_1m", "scaling_curves"]
MAP_TABLES = {"io_samples_hist_by_ts": "hist", "io_samples_hist_sums": "hist"}
# Extremes of UInt64 and UInt16 and a jumpy sequence: T64 packs by the block's bit range, Delta wraps.
COUNTS = [0, 1, 2**32 - 1, 2**32, 2**63, 2**64 - 1]
INDEXES = [0, 1, 700, 65535, 65534, 3]


@pytest.fixture
def scratch(stack) -> Iterator[tuple[object, str]]:
    name = scratch_name("codec")
    with client(stack.settings, stack.secrets, "admin") as admin:
        admin.command(f"CREATE DATABASE {name}")
        try:
            yield admin, name
        finally:
            admin.command(f"DROP DATABASE IF EXISTS {name} SYNC")


def test_histogram_columns_use_the_cheap_codecs(stack) -> None:
    with client(stack.settings, stack.secrets, "admin") as admin:
        rows = admin.query(
            "SELECT table, name, compression_codec FROM system.columns WHERE database = 'ioscale' "
            "AND (name IN ('latency_bucket_index', 'latency_bucket_count') OR (name = 'hist' AND table IN "
            "('io_samples_hist_by_ts', 'io_samples_hist_sums')))").result_rows
    codecs = {(t, n): c for t, n, c in rows}
    for t in ARRAY_TABLES:
        assert codecs[(t, "latency_bucket_index")] == "CODEC(Delta(2), ZSTD(1))", t
        assert codecs[(t, "latency_bucket_count")] == "CODEC(T64, ZSTD(1))", t
    for t, col in MAP_TABLES.items():
        assert codecs[(t, col)] == "CODEC(T64, ZSTD(1))", t


def column_def(admin, table: str, column: str) -> str:
    """The column's type and codec as the stack's table has them."""
    ctype, codec = admin.query(
        "SELECT type, compression_codec FROM system.columns WHERE database = 'ioscale' "
        "AND table = {t:String} AND name = {c:String}", parameters={"t": table, "c": column}).result_rows[0]
    return f"{ctype} {codec}"


def histograms(k: int) -> tuple[list[int], list[int]]:
    """Row k's bucket indexes and counts: 0-6 buckets, counts at the edges of UInt32 and UInt64."""
    n = k % (len(COUNTS) + 1)
    return INDEXES[:n], [c - (k % 2) if c else c for c in COUNTS[:n]]


def insert_in_parts_and_merge(admin, table: str, rows: list[str]) -> None:
    """Four inserts (four parts), then one merge through the codecs."""
    quarter = len(rows) // 4
    for part in range(4):
        admin.command(f"INSERT INTO {table} VALUES {', '.join(rows[part * quarter:(part + 1) * quarter])}")
    admin.command(f"OPTIMIZE TABLE {table} FINAL")


@pytest.mark.parametrize("table", ARRAY_TABLES)
def test_bucket_arrays_survive_inserts_and_merges_exactly(scratch, table: str) -> None:
    admin, db = scratch
    admin.command(f"CREATE TABLE {db}.t (k UInt32, "
                  f"i {column_def(admin, table, 'latency_bucket_index')}, "
                  f"c {column_def(admin, table, 'latency_bucket_count')}) ENGINE = MergeTree ORDER BY k")
    expected = {k: histograms(k) for k in range(200)}
    insert_in_parts_and_merge(admin, f"{db}.t", [f"({k}, {list(i)}, {list(c)})" for k, (i, c) in expected.items()])
    assert admin.query(f"SELECT count() FROM system.parts WHERE database = '{db}' AND table = 't' "
                       f"AND active").result_rows[0][0] == 1
    got = {k: (list(i), list(c)) for k, i, c in admin.query(f"SELECT k, i, c FROM {db}.t").result_rows}
    assert got == expected


@pytest.mark.parametrize("table", sorted(MAP_TABLES))
def test_histogram_maps_survive_inserts_and_merges_exactly(scratch, table: str) -> None:
    admin, db = scratch
    admin.command(f"CREATE TABLE {db}.t (k UInt32, h {column_def(admin, table, MAP_TABLES[table])}) "
                  f"ENGINE = MergeTree ORDER BY k")
    expected = {k: dict(zip(*histograms(k))) for k in range(200)}
    insert_in_parts_and_merge(admin, f"{db}.t", [
        f"({k}, map({', '.join(f'{i}, {c}' for i, c in h.items())}))" for k, h in expected.items()])
    got = {k: dict(h) for k, h in admin.query(f"SELECT k, h FROM {db}.t").result_rows}
    assert got == expected
