"""step_reported_percentiles: fleet bounds from per-source percentile tables (VMFleet / DISKSPD), through the real
pipeline (importer -> TelemetryProducer -> Kafka -> ClickHouse), against the importer's own records."""

from __future__ import annotations

import time
from collections import defaultdict
from pathlib import Path

import pytest

from ioscale.importers import import_files
from ioscale.wire.producer import TelemetryProducer
from ioscale.wire.publish import publish_import
from ioscale.stack.clickhouse import client

from isolation import unique

SWEEP = Path(__file__).resolve().parents[2] / "unit" / "importers" / "data" / "vmfleet_sweep"


@pytest.fixture(scope="module")
def fleet(stack):
    result = import_files("vmfleet", [SWEEP], run_id=unique("reported"))
    assert not result.has_errors and len(result.io_samples) == 12  # 2 steps x 3 VMs x 2 directions
    producer = TelemetryProducer(stack.kafka_bootstrap, stack.registry_url)
    publish_import(result, producer)
    producer.flush(60)
    deadline = time.monotonic() + 120
    with client(stack.settings, stack.secrets, "reader") as ch:
        while time.monotonic() < deadline and ch.query(
                "SELECT count() FROM ioscale.io_samples FINAL WHERE run_id = {r:String}",
                parameters={"r": result.run_id}).result_rows[0][0] < len(result.io_samples):
            time.sleep(1)
    return result


def test_bounds_are_the_min_and_max_of_the_sources_never_an_average(sql, fleet):
    want: dict[tuple[int, str, float], list[tuple[int, str]]] = defaultdict(list)
    for s in fleet.io_samples:
        for q, ns in zip(s["percentile_q"], s["percentile_ns"]):
            want[(s["step_index"], s["direction"].lower(), q)].append((ns, s["vm"]))
    rows = sql("step_reported_percentiles", run_id=fleet.run_id).rows
    got = {(r["step_index"], r["direction"].lower(), r["quantile"]): r for r in rows}
    assert got.keys() == want.keys() and len(got) == 2 * 2 * 106
    for key, values in want.items():
        row = got[key]
        positive = [ns for ns, _ in values if ns > 0]
        assert row["sources"] == 3
        assert row["upper_bound_us"] == pytest.approx(max(values)[0] / 1e3, abs=5e-4)
        assert row["lower_bound_us"] == (pytest.approx(min(positive) / 1e3, abs=5e-4) if positive else None)
        assert row["slowest_source"].split(" / ")[1] == max(values)[1]
    # the slow VM holds every read p99 upper bound, and the bound is not the mean of the three
    p99 = got[(0, "read", 0.99)]
    assert p99["slowest_source"].split(" / ")[1] == "vm-base-NODE2-1"
    mean_us = sum(ns for ns, _ in want[(0, "read", 0.99)]) / 3 / 1e3
    assert p99["upper_bound_us"] > 1.5 * mean_us > p99["lower_bound_us"]
