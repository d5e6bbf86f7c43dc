"""`ioscale analyze` checks its own work: samples and ops in every I/O result table equal the raw samples of the
run, per step, or it exits with ExitStatus.RESULTS_DIFFER naming the table, step and difference.

Two levels:
- the comparison query (sql/queries/analysis_counts.sql) against a scratch database built from the real
  migrations with known rows: what a correct job writes, then rows lost from one table and step, a step row
  missing, a redelivered raw sample (FINAL counts it once) and samples of no step (-1);
- the command end to end: a past-stamped simulated run analysed by `ioscale analyze` passes the check; with
  rows of one result table deleted (the test run's own, by run id), `ioscale analyze --check-only` fails naming
  that table and step.
"""

from __future__ import annotations

import re
import time
import uuid
from collections.abc import Iterator

import pytest

from ioscale.cli import main
from ioscale.errors import ExitStatus
from ioscale.provision.analysis_check import QUERY, RESULT_TABLES, compare, split_rows
from ioscale.query import bind, execute, load
from ioscale.simulator import make_engine
from ioscale.stack.clickhouse import client
from ioscale.wire import topics
from ioscale.wire.producer import TelemetryProducer

from isolation import PREFIX, delete_rows, prefixed, scratch_database, wait_for_io_samples

pytestmark = pytest.mark.slow

MIGRATIONS = ("0010_create_table_io_samples.sql", "0019_create_table_port_samples.sql",
              "0023_create_table_run_events.sql",
              "0100_create_table_io_samples_1s.sql", "0101_create_table_io_samples_10s.sql",
              "0102_create_table_io_samples_1m.sql", "0103_create_table_io_fleet_1s.sql",
              "0104_create_table_io_fleet_10s.sql", "0105_create_table_io_fleet_1m.sql",
              "0108_create_table_scaling_curves.sql", "0180_alter_table_scaling_curves_throughput_basis.sql")
T0 = "toDateTime64('2026-01-01 10:00:00', 3, 'UTC')"


# --- the query, on known rows -----------------------------------------------------------------------------
@pytest.fixture
def scratch(stack) -> Iterator[tuple[str, object]]:
    """(database, admin client) holding one run as a correct job would have analysed it; dropped afterwards.

    run-a: 3 steps of 20 s (STEP_STARTED at 20k s, measured from 20k + 5 s), sources h/v1 and h/v2, reads and
    writes, one sample per second stamped at .500 with ops = 100 + second; a collector that knows no step (-1)
    sends 20 samples of 7 ops in step 1's seconds; one sample arrives twice. run-b must not count."""
    with scratch_database(stack, "check", MIGRATIONS) as (db, admin):
        fill(admin, db)
        yield db, admin


def fill(admin, db: str) -> None:
    cols = "ts, interval_ms, run_id, step_index, host, vm, target, direction, ops, bytes"
    admin.command(f"""INSERT INTO {db}.io_samples ({cols})
        SELECT {T0} + toIntervalMillisecond(500 + 1000 * number), 1000, 'run-a', intDiv(number, 20), 'h', vm, 't',
               dir, 100 + number, 4096 * (100 + number)
        FROM numbers(60) ARRAY JOIN ['v1', 'v2'] AS vm ARRAY JOIN ['read', 'write'] AS dir""")
    admin.command(f"""INSERT INTO {db}.io_samples ({cols})
        SELECT {T0} + toIntervalMillisecond(500 + 1000 * (20 + number)), 1000, 'run-a', -1, 'h', 'x', 't', 'read', 7, 7
        FROM numbers(20)""")
    admin.command(f"""INSERT INTO {db}.io_samples ({cols})
        SELECT {T0} + toIntervalMillisecond(500), 1000, 'run-a', 0, 'h', 'v1', 't', 'read', 100, 409600""")
    admin.command(f"""INSERT INTO {db}.io_samples ({cols})
        SELECT {T0} + toIntervalMillisecond(500 + 1000 * number), 1000, 'run-b', 0, 'h', 'v1', 't', 'read', 5, 5
        FROM numbers(10)""")
    for k in range(3):
        admin.command(f"""INSERT INTO {db}.run_events (ts, event_type, run_id, step_index, start_ts, end_ts) VALUES
            ({T0} + toIntervalSecond({20 * k}), 'step_started', 'run-a', {k}, NULL, NULL),
            ({T0} + toIntervalSecond({20 * k + 20}), 'step_ended', 'run-a', {k}, {T0} + toIntervalSecond({20 * k + 5}),
             {T0} + toIntervalSecond({20 * k + 20}))""")
    # The rollups as the job computes them: each sample in the window holding its ts.
    for grain, seconds in (("1s", 1), ("10s", 10), ("1m", 60)):
        admin.command(f"""INSERT INTO {db}.io_samples_{grain} (window_start, window_end, run_id, step_index, host, vm,
                target, direction, samples, ops, version, emitted_at)
            SELECT toStartOfInterval(ts, toIntervalSecond({seconds})) AS w, w + toIntervalSecond({seconds}), run_id,
                   step_index, host, vm, target, direction, count(), sum(ops), count(), now64(3)
            FROM {db}.io_samples FINAL GROUP BY ALL""")
        admin.command(f"""INSERT INTO {db}.io_fleet_{grain} (window_start, window_end, run_id, step_index, samples, ops,
                version, emitted_at)
            SELECT toStartOfInterval(ts, toIntervalSecond({seconds})) AS w, w + toIntervalSecond({seconds}), run_id,
                   step_index, count(), sum(ops), count(), now64(3)
            FROM {db}.io_samples FINAL GROUP BY ALL""")
    # Step rows: step_samples over the step's seconds, ops over the steady seconds [start + 5, start + 18), both
    # with the samples of no step in those seconds.
    for k in range(3):
        start, steady, steady_end, end = (f"{T0} + toIntervalSecond({20 * k + s})" for s in (0, 5, 18, 20))
        admin.command(f"""INSERT INTO {db}.scaling_curves (run_id, step_index, step_start, step_end, steady_start,
                steady_end, step_samples, ops, version)
            SELECT 'run-a', {k}, {start}, {end}, {steady}, {steady_end},
                   countIf(toStartOfSecond(ts) >= {start} AND toStartOfSecond(ts) < {end}),
                   sumIf(ops, toStartOfSecond(ts) >= {steady} AND toStartOfSecond(ts) < {steady_end}), 1
            FROM {db}.io_samples FINAL WHERE run_id = 'run-a' AND step_index IN ({k}, -1)""")


def counts_in(scratch, run_id: str = "run-a") -> list[tuple]:
    db, admin = scratch
    q = load(QUERY)
    result = execute(q, bind(q, {"run_id": run_id}), admin, sql=q.sql.replace("ioscale.", f"{db}."))
    assert result.columns == tuple(c.name for c in q.columns)
    return [tuple(r) for r in result.rows]


#: Per step: raw samples, raw ops (hand-computed: 4 sources x 20 s, ops 100 + second; step -1: 20 x 7).
STEPS = {-1: (20, 140), 0: (80, 4 * sum(range(100, 120))), 1: (80, 4 * sum(range(120, 140))),
         2: (80, 4 * sum(range(140, 160)))}
#: scaling_curves: samples in [20k, 20k + 20) s (step 1 with the 20 of no step), ops in [20k + 5, 20k + 18) s.
CURVES = {0: (80, 4 * sum(range(105, 118))), 1: (100, 4 * sum(range(125, 138)) + 13 * 7),
          2: (80, 4 * sum(range(145, 158)))}


def test_a_complete_analysis_counts_every_raw_sample_once(scratch) -> None:
    assert (STEPS[0], CURVES[0], CURVES[1]) == ((80, 8760), (80, 5772), (100, 6903))
    expected = [(t, s, *c, *c) for t in RESULT_TABLES[:-1] for s, c in sorted(STEPS.items())]
    expected += [("scaling_curves", s, *c, *c) for s, c in sorted(CURVES.items())]
    assert counts_in(scratch) == expected
    assert compare(*split_rows(counts_in(scratch))) == []


def test_lost_rows_and_a_missing_step_row_are_named(scratch) -> None:
    db, admin = scratch
    # The reported failure's shape: a source's first seconds missing from one rollup, a whole step from another.
    admin.command(f"DELETE FROM {db}.io_samples_1s WHERE run_id = 'run-a' AND step_index = 0 AND vm = 'v1' "
                  f"AND window_start < {T0} + toIntervalSecond(3)")
    admin.command(f"DELETE FROM {db}.io_fleet_10s WHERE run_id = 'run-a' AND step_index = 1")
    admin.command(f"DELETE FROM {db}.scaling_curves WHERE run_id = 'run-a' AND step_index = 2")
    differ = [r for r in counts_in(scratch) if r[2:4] != r[4:6]]
    assert differ == [
        ("io_samples_1s", 0, 80, 8760, 74, 8760 - 2 * (100 + 101 + 102)),
        ("io_fleet_10s", 1, 80, 10360, None, None),
        # No row: expected over the whole step, from its STEP_STARTED to STEP_ENDED's end.
        ("scaling_curves", 2, 80, 11960, None, None),
    ]


def test_an_unknown_run_has_no_counts(scratch) -> None:
    assert counts_in(scratch, "no-such-run") == []


# --- the command, end to end ------------------------------------------------------------------------------
def test_analyze_passes_its_check_and_names_what_was_deleted(stack, capsys) -> None:
    now_ms = int(time.time() * 1000)
    engine = make_engine("demo", seed=int(uuid.uuid4().int % 10_000), start_ms=now_ms - now_ms % 1000 - 7_200_000,
                         step_s=20, ramp_s=2)
    producer = TelemetryProducer(stack.kafka_bootstrap, stack.registry_url)
    run_id, sent_io, sent_ops = None, 0, 0
    for batch in engine.batches():
        for topic, record in batch.records:
            record = prefixed(record)
            producer.send(topic, record)
            if topic == topics.IO_SAMPLES:
                run_id, sent_io, sent_ops = record["run_id"], sent_io + 1, sent_ops + record["ops"]
    producer.flush(60)
    with client(stack.settings, stack.secrets, "reader") as ch:
        wait_for_io_samples(ch, run_id, sent_io)
    capsys.readouterr()

    assert main(["analyze", run_id, "--timeout-s", "600"]) == ExitStatus.OK
    err = capsys.readouterr().err
    assert re.search(rf"ok checked 7 tables x 4 steps: {sent_io:,} samples, {sent_ops:,} ops, equal to the raw "
                     rf"tables \(\d+\.\d s\)", err), err

    with client(stack.settings, stack.secrets, "admin") as admin:
        # One step lost from one rollup (kept to this test's run, as isolation.delete_rows keeps its deletes) ...
        admin.command(f"DELETE FROM ioscale.io_fleet_10s WHERE run_id = {{run:String}} AND step_index = 1 "
                      f"AND startsWith(run_id, '{PREFIX}')", parameters={"run": run_id})
        # ... and every step row.
        delete_rows(admin, "scaling_curves", run_id)
    assert main(["analyze", run_id, "--check-only"]) == ExitStatus.RESULTS_DIFFER
    err = capsys.readouterr().err
    assert f"Error: the analysis of {run_id} does not account for every raw I/O sample: 5 (table, step) pairs " \
           f"in io_fleet_10s, scaling_curves differ" in err, err
    assert re.search(r"^io_fleet_10s\s+1\s+samples\s+[\d,]+\s+no row\s+-[\d,]+$", err, re.M), err
    assert re.search(r"^io_fleet_10s\s+1\s+ops\s+[\d,]+\s+no row\s+-[\d,]+$", err, re.M), err
    for step in range(4):
        assert re.search(rf"^scaling_curves\s+{step}\s+samples\s+[\d,]+\s+no row\s+-[\d,]+$", err, re.M), err
    named = {line.split()[0] for line in err.splitlines() if line.split() and line.split()[0] in RESULT_TABLES}
    assert named == {"io_fleet_10s", "scaling_curves"}
    assert f"Hint: re-run `ioscale analyze {run_id}`" in err

    # A replay writes the rows again and the check passes.
    assert main(["analyze", run_id, "--timeout-s", "600"]) == ExitStatus.OK
    assert "equal to the raw tables" in capsys.readouterr().err
