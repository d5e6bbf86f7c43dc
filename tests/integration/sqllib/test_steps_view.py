"""The steps view (sql/views/steps.sql) is the one account of a run's steps: the SQL library's run_steps and the
dashboards' dash_run_steps give the same label, load and windows for every step. A collector's STEP_ENDED often
carries no label (the analytics job's live tests send none); the label is the latest one given."""

from __future__ import annotations

import time

from ioscale.stack.clickhouse import client
from ioscale.wire import topics
from ioscale.wire.producer import TelemetryProducer

from isolation import PREFIX, unique
from live_records import load, run_event


def test_the_library_and_the_dashboard_agree_on_a_step_whose_end_has_no_label(stack, sql) -> None:
    run_id = unique("steps")
    start_ms = int(time.time() * 1000) - 600_000
    producer = TelemetryProducer(stack.kafka_bootstrap, stack.registry_url)
    producer.send(topics.RUNS, run_event("STEP_STARTED", run_id, start_ms, 0, load=load(4), step_label="4 VMs"))
    # closed as a collector that only ends the step does: no label, no load
    producer.send(topics.RUNS, run_event("STEP_ENDED", run_id, start_ms + 35_000, 0, start_ms=start_ms + 5_000,
                                         end_ms=start_ms + 35_000))
    producer.flush(60)

    columns = "step_index, step_label, vm_count, outstanding_ios_per_target, read_pct, measured_start, measured_end"
    with client(stack.settings, stack.secrets, "reader") as ch:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            dash = ch.query(f"SELECT {columns}, state, scenario FROM ioscale.dash_run_steps WHERE run_id = {{r:String}}",
                            parameters={"r": run_id}).result_rows
            if dash and dash[0][-2] == "ended":
                break
            time.sleep(0.5)
    library = [tuple(row[c] for c in columns.split(", ")) for row in sql("run_steps", run_id=run_id).rows]
    assert [row[:-2] for row in dash] == library
    assert library[0][:5] == (0, "4 VMs", 4, 32, 100.0)
    assert dash[0][-2:] == ("ended", f"{PREFIX}e2e-analytics")
