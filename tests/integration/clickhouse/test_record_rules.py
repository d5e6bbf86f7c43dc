"""ClickHouse's Kafka path applies the Flink job's field rules (fragments/*_rules.sql, sql/materialized) to the
cases of tests/fixtures/record_rules, which the Java decoder is tested on too (RecordRulesTest): a valid record
reaches its raw table, an invalid one dead_letters with exactly the case's reason -- the reason the job gives.

The views run as they are stored: each queue view's query, read back from system.tables after every migration
and view was applied, is created again over a Null table of the queue's columns plus the engine's virtual ones
(_topic, _offset, _error...), writing to the real targets; inserting the cases there is what the engine does with
a consumed block. The io_samples view's query before the rules (CLAMPED: clamping, wrapping) runs beside it into a
copy of io_samples: every case reached io_samples that way, and the valid ones must land exactly as they did.

A server of the module's own (conftest's module_private_server); the Kafka tables point at 127.0.0.1:1, where
nothing listens, so they consume nothing.
"""

from __future__ import annotations

import json
import re
from datetime import datetime, timezone

import pytest

from ioscale.provision import migrations
from ioscale.stack import process
from ioscale.stack.clickhouse import client
from ioscale.stack.settings import repo_root

pytestmark = pytest.mark.slow

CASES = repo_root() / "tests" / "fixtures" / "record_rules"
MIGRATIONS = repo_root() / "sql" / "migrations"
PLACEHOLDERS = {"kafka_bootstrap": "127.0.0.1:1", "registry_url": "http://127.0.0.1:1"}
PROBE = "record_rules_probe"
#: fixture -> (the raw table its queue's views fill, the queue's topic)
PATHS = {"io_samples.json": ("io_samples", "ioscale.io_samples"),
         "cpu_samples.json": ("cpu_samples", "ioscale.cpu_samples"),
         "port_samples.json": ("port_samples", "ioscale.port_samples"),
         "run_events.json": ("run_events", "ioscale.runs")}
VIRTUAL = "_topic LowCardinality(String), _partition UInt64, _offset UInt64, _error String, _raw_message String"
#: io_samples_mv's query before the field rules, an independent account of how a sample lands: every sample that
#: decodes, counters clamped at 0, scheme and bucket indexes cast (wrapping). A view writes by column name.
COUNTERS = ("ops", "bytes", "errors", "latency_count", "latency_sum_ns", "latency_min_ns", "latency_max_ns")
CLAMPED = f"""SELECT ts_ms AS ts, toUInt32(greatest(interval_ms, 0)) AS interval_ms, run_id, step_index, host, vm,
    target, lower(direction) AS direction, outstanding_ios, percentile_q, tags,
    {', '.join(f'toUInt64(greatest({c}, 0)) AS {c}' for c in COUNTERS)},
    toUInt8(latency_hist_scheme) AS latency_hist_scheme,
    arrayMap(i -> toUInt16(i), latency_bucket_index) AS latency_bucket_index,
    arrayMap(c -> toUInt64(greatest(c, 0)), latency_bucket_count) AS latency_bucket_count,
    arrayMap(v -> toUInt64(greatest(v, 0)), percentile_ns) AS percentile_ns
FROM {PROBE}.io_samples_queue WHERE length(_error) = 0"""


def load(name: str) -> dict:
    return json.loads((CASES / name).read_text(encoding="utf-8"))


def double(value):
    return float(value) if isinstance(value, str) else value  # "NaN", "Infinity", "-Infinity"


def tuple_names(ctype: str) -> list[str]:
    """The element names of a (Nullable, Array of) named Tuple type, in order."""
    inner = ctype[ctype.index("Tuple(") + len("Tuple("):]
    return re.findall(r"(\w+) (?=[A-Z])", inner)


def queue_row(fields: dict, columns: list[tuple[str, str]]) -> list:
    """The record as the Kafka engine hands it to the views: one value per queue column."""
    row = []
    for name, ctype in columns:
        v = fields[name]
        if "DateTime64" in ctype:
            v = None if v is None else datetime.fromtimestamp(v / 1000, tz=timezone.utc)
        elif ctype == "Float64":
            v = double(v)
        elif "Tuple(" in ctype:
            names = tuple_names(ctype)
            as_tuple = lambda item: tuple(item[n] for n in names)  # noqa: E731
            v = None if v is None else [as_tuple(i) for i in v] if ctype.startswith("Array") else as_tuple(v)
        row.append(v)
    return row


def queue_columns(ch, queue: str) -> list[tuple[str, str]]:
    return ch.query("SELECT name, type FROM system.columns WHERE database = 'ioscale' AND table = {q:String} "
                    "ORDER BY position", parameters={"q": queue}).result_rows


def send(ch, fixture: str, table: str | None = None) -> None:
    """Every case of ``fixture`` into its probe queue (or ``table``), case i at offset i with run_id
    '<base run_id>-<i>'."""
    doc = load(fixture)
    columns = queue_columns(ch, doc["queue"])
    rows = []
    for i, case in enumerate(doc["cases"]):
        fields = {**doc["base"], **case["set"], "run_id": f"{doc['base']['run_id']}-{i:03d}"}
        rows.append(queue_row(fields, columns) + [PATHS[fixture][1], 0, i, "", ""])
    ch.insert(table or f"{PROBE}.{doc['queue']}", rows,
              column_names=[n for n, _ in columns] + ["_topic", "_partition", "_offset", "_error", "_raw_message"])


@pytest.fixture(scope="module")
def server(module_private_server):
    """Every migration and view applied; per queue, its views again over a Null probe table, plus CLAMPED beside
    io_samples_mv's; then every fixture's cases sent, once."""
    comp, spec = module_private_server
    process.start(spec, comp.settings.host)
    comp.wait_ready(60)
    with client(comp.ctx, role="admin") as ch:
        migrations.apply(migrations.ClickHouseExecutor(ch), MIGRATIONS, PLACEHOLDERS)
        ch.command(f"CREATE DATABASE {PROBE}")
        for fixture, (table, _) in PATHS.items():
            queue = load(fixture)["queue"]
            ch.command(f"CREATE TABLE {PROBE}.{queue} "
                       f"({', '.join(f'{n} {t}' for n, t in queue_columns(ch, queue))}, {VIRTUAL}) ENGINE = Null")
            for view in (f"{table}_mv", f"{table}_dlq_mv"):
                create, select = ch.query("SELECT create_table_query, as_select FROM system.tables "
                                          "WHERE database = 'ioscale' AND name = {v:String}",
                                          parameters={"v": view}).result_rows[0]
                target = re.search(r" TO (\S+) ", create)[1]
                probe_select = select.replace(f"FROM ioscale.{queue}", f"FROM {PROBE}.{queue}")
                assert probe_select.count(f"FROM {PROBE}.{queue}") == 1
                ch.command(f"CREATE MATERIALIZED VIEW {PROBE}.{view} TO {target} AS {probe_select}")
        ch.command(f"CREATE TABLE {PROBE}.io_samples_before AS ioscale.io_samples")
        ch.command(f"CREATE MATERIALIZED VIEW {PROBE}.io_samples_before_mv TO {PROBE}.io_samples_before AS {CLAMPED}")
        for fixture in PATHS:
            send(ch, fixture)
    return comp


@pytest.mark.parametrize("fixture", sorted(PATHS))
def test_the_kafka_views_give_each_case_its_outcome(server, fixture: str) -> None:
    with client(server.ctx, role="admin") as ch:
        doc = load(fixture)
        cases, (table, topic), base = doc["cases"], PATHS[fixture], doc["base"]["run_id"]
        kept = {run for (run,) in ch.query(f"SELECT run_id FROM ioscale.{table} WHERE startsWith(run_id, '{base}-')")
                .result_rows}
        dead = {offset: (stage, partition, reason, raw) for offset, stage, partition, reason, raw in ch.query(
            "SELECT offset, stage, partition, reason, raw_message FROM ioscale.dead_letters WHERE topic = {t:String}",
            parameters={"t": topic}).result_rows}
    valid = {i for i, c in enumerate(cases) if c["expect"] == "valid"}
    assert valid and len(valid) < len(cases)
    assert kept == {f"{base}-{i:03d}" for i in valid}
    assert {i: reason for i, (_, _, reason, _) in dead.items()} == \
        {i: c["reason"] for i, c in enumerate(cases) if c["expect"] == "invalid"}
    for i, (stage, partition, _, raw) in dead.items():
        # No raw bytes for a message that parsed (the engine keeps them for parse errors only): the record as JSON.
        record = json.loads(raw)
        assert (stage, partition, record["run_id"]) == ("clickhouse-kafka", 0, f"{base}-{i:03d}")
        for name, value in cases[i]["set"].items():
            if isinstance(value, (int, str)) and not isinstance(value, bool) and name in record:
                expected = {"NaN": "nan", "Infinity": "inf", "-Infinity": "-inf"}.get(value, value)
                assert record[name] == expected, (cases[i]["case"], name)


def test_valid_io_samples_are_stored_as_before_and_broken_ones_no_longer(server) -> None:
    """The same cases through CLAMPED: it stored every case, wrapping and clamping; the kept ones must be identical
    to what it stored for them, and the histogram sums (io_samples_hist_*_mv) see only those."""
    doc = load("io_samples.json")
    cases, base = doc["cases"], doc["base"]["run_id"]
    run = {c["case"]: f"{base}-{i:03d}" for i, c in enumerate(cases)}
    valid = [run[c["case"]] for c in cases if c["expect"] == "valid"]
    with client(server.ctx, role="admin") as ch:
        def rows(table: str, what: str = "* EXCEPT ingested_at") -> list[tuple]:
            return ch.query(f"SELECT {what} FROM {table} WHERE startsWith(run_id, {{b:String}}) ORDER BY run_id",
                            parameters={"b": f"{base}-"}).result_rows

        now, before = rows("ioscale.io_samples"), rows(f"{PROBE}.io_samples_before")
        wrapped = dict(rows(f"{PROBE}.io_samples_before", "run_id, (latency_hist_scheme, latency_bucket_index)"))
        buckets = dict(rows("ioscale.io_samples",
                            "run_id, (length(latency_bucket_index), arraySum(latency_bucket_count))"))
        summed = {r for (r,) in rows("ioscale.io_samples_hist_by_ts", "DISTINCT run_id")}
        summed |= {r for (r,) in rows("ioscale.io_samples_hist_sums", "DISTINCT run_id")}
    assert len(before) == len(cases)  # the old path kept every case, the broken ones too
    assert [row for row in before if row[2] in valid] == now  # row[2]: run_id
    assert [row[2] for row in now] == valid and summed == set(valid)
    # What the rules now keep out: an unsupported scheme and an index past UInt16, wrapped to scheme 1, bucket 1.
    assert wrapped[run["scheme 257 with buckets (UInt8 would wrap it to 1)"]][0] == 1
    assert wrapped[run["bucket index 65537 (UInt16 would wrap it to 1)"]][1] == [1]
    counts = next(c for c in cases if c["case"] == "180 buckets")["set"]["latency_bucket_count"]
    assert buckets[run["180 buckets"]] == (180, sum(counts))


def test_only_valid_io_samples_are_cleared_without_the_rules(server) -> None:
    """io_sample_surely_valid (fragments/io_sample_surely_valid.sql) lets the views skip io_sample_invalid: it must never clear a case the
    rules reject, and must clear the plain valid samples (or the views pay for the rules on every sample again)."""
    parts = migrations.fragments(MIGRATIONS)
    doc = load("io_samples.json")
    with client(server.ctx, role="admin") as ch:
        ch.command(f"CREATE TABLE {PROBE}.io_samples_cases AS {PROBE}.{doc['queue']} ENGINE = Memory")
        send(ch, "io_samples.json", f"{PROBE}.io_samples_cases")
        judged = ch.query(f"{parts['io_sample_rules']},\n{parts['io_sample_surely_valid']}\n"
                          f"SELECT _offset, io_sample_surely_valid, io_sample_invalid "
                          f"FROM {PROBE}.io_samples_cases AS io_samples_queue ORDER BY _offset").result_rows
    cases = doc["cases"]
    assert [offset for offset, _, _ in judged] == list(range(len(cases)))
    assert [cases[i]["case"] for i, surely, invalid in judged if surely and invalid != ""] == []
    cleared = {cases[i]["case"] for i, surely, _ in judged if surely}
    valid = [c["case"] for c in cases if c["expect"] == "valid"]
    assert cleared and cleared <= set(valid)
    # The valid cases left to the rules are the edge ones (a min above the max without buckets, and the like).
    print(f"cleared {len(cleared)} of {len(valid)} valid cases; left to the rules: "
          f"{sorted(set(valid) - cleared)}")
