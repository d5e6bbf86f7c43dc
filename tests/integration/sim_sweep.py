"""A short simulated sweep for the dashboard and report tests: produced once per session through the real pipeline
(the fixtures are the root conftest's, so both packages share one sweep).

Two scenarios in fast mode (simulated timestamps), seeds fixed, a start time unique to this session so the run ids
(``itest-sim-...``, isolation.prefixed) are new: `demo` (1-4 VMs on one 4 Gbps FC port; the read channel
saturates, the Flink job raises a PORT saturation alert) and `hyperv-vmq-10gbe` (two runs, VMQ off and on: the
comparison). `sweep` waits until ClickHouse holds every raw sample; `analysed_sweep` also until the Flink analytics
job has written a step row for every step. When the job is not running, the tests of the dashboards built on its
results skip, saying so.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

import pytest
import requests

from ioscale.stack.clickhouse import client
from ioscale.wire import topics

from isolation import delete_rows, prefixed, unique

SEED = 7
SCENARIOS = ("demo", "hyperv-vmq-10gbe")
STEP_S, RAMP_S = 12, 2          # 4 steps x 14 s = 56 s per run: inside the job's one-minute --max-ahead
#: Where the watermark marker's single sample can end up (raw table and the Flink job's rollups).
MARKER_TABLES = ("io_samples", "io_samples_1s", "io_samples_10s", "io_samples_1m", "io_fleet_1s", "io_fleet_10s",
                 "io_fleet_1m")
ANALYSIS_TIMEOUT_S = 600        # the job trails the wall clock by minutes on a busy 2-core machine
FLINK_JOB = "ioscale-analytics"


@dataclass
class Sweep:
    runs: dict[str, list[str]]                    # scenario -> run ids
    steps: dict[str, int] = field(default_factory=dict)  # run id -> steps
    marker_run: str = ""                           # the run whose samples move the job's watermark on
    marker_sample: dict = field(default_factory=dict, repr=False)
    end_ms: int = 0                                # the sweep's last timestamp
    producer: object = field(default=None, repr=False)

    def push_watermark(self) -> None:
        """The job's watermark trails the newest record it has seen: after the sweep nothing would carry it past
        the last step's end, and that step would wait for whatever run comes next. A sample of a run of its own,
        stamped now (the job drops records over a minute ahead), moves it on; deleted at the end of the session."""
        self.producer.send(topics.IO_SAMPLES, {**self.marker_sample, "run_id": self.marker_run,
                                               "step_index": 0, "ts_ms": int(time.time()) * 1000})
        self.producer.flush(30)

    @property
    def demo(self) -> str:
        return self.runs["demo"][0]

    @property
    def vmq(self) -> list[str]:
        return self.runs["hyperv-vmq-10gbe"]


def _flink_job_running(stack) -> bool:
    try:
        jobs = requests.get(f"{stack.flink_url}/jobs/overview", timeout=10).json()["jobs"]
    except (requests.RequestException, ValueError, KeyError):
        return False
    return any(j["name"] == FLINK_JOB and j["state"] == "RUNNING" for j in jobs)


def _produce(stack) -> Sweep:
    from ioscale.simulator import get_scenario
    from ioscale.simulator.engine import Engine
    from ioscale.wire.producer import TelemetryProducer

    # Every run starts now (whole seconds: run ids carry the start time, so they are new each session) and is
    # STEP_S + RAMP_S per step long: the Flink job analyses records stamped at most a minute ahead of the wall
    # clock (--max-ahead) and drops later ones, so a fast-mode run must fit in that minute. The two VMQ runs
    # run side by side in simulated time instead of one after the other, for the same reason.
    start_ms = int(time.time()) * 1000
    producer = TelemetryProducer(stack.kafka_bootstrap, stack.registry_url)
    runs: dict[str, list[str]] = {}
    steps: dict[str, int] = {}
    last_sample: dict | None = None
    end_ms = start_ms
    for name in SCENARIOS:
        scenario = get_scenario(name)
        for run in scenario.runs:
            engine = Engine(replace(scenario, runs=(run,)), SEED, start_ms, step_s=STEP_S, ramp_s=RAMP_S)
            end_ms = max(end_ms, engine.end_ms)
            for batch in engine.batches():
                for topic, record in batch.records:
                    record = prefixed(record)
                    producer.send(topic, record)
                    if record.get("event_type") == "RUN_STARTED":
                        runs.setdefault(name, []).append(record["run_id"])
                        steps[record["run_id"]] = len(run.steps)
                    if topic == topics.IO_SAMPLES:
                        last_sample = record
    producer.flush(60)
    assert last_sample is not None
    return Sweep(runs, steps, unique("superset-watermark"), last_sample, end_ms, producer)


def _wait(stack, sweep: Sweep, table: str, timeout_s: float, push: bool = False) -> dict[str, int]:
    """Until `table` holds a row for every step of every run (steps per run: uniqExact(step_index))."""
    final = "FINAL" if table == "scaling_curves" else ""
    deadline = time.monotonic() + timeout_s
    with client(stack.settings, stack.secrets, "reader") as ch:
        while True:
            if push and time.time() * 1000 > sweep.end_ms:
                sweep.push_watermark()
            got = dict(ch.query(
                f"SELECT run_id, uniqExact(step_index) FROM ioscale.{table} {final} "
                "WHERE run_id IN {runs:Array(String)} GROUP BY run_id",
                parameters={"runs": list(sweep.steps)}).result_rows)
            if all(got.get(r, 0) >= n for r, n in sweep.steps.items()) or time.monotonic() > deadline:
                return got
            time.sleep(5)


@pytest.fixture(scope="session")
def sweep(stack):
    """The sweep with every raw sample in ClickHouse (what the live and fleet-balance dashboards read)."""
    s = _produce(stack)
    got = _wait(stack, s, "io_samples", 120)
    assert all(got.get(r, 0) >= n for r, n in s.steps.items()), f"ClickHouse holds steps {got} of {s.steps}"
    yield s
    # The sweep's runs stay (they are real data, and the dashboards' screenshots show them); the marker goes.
    with client(stack.settings, stack.secrets, "admin") as ch:
        for table in MARKER_TABLES:
            delete_rows(ch, table, s.marker_run)


@pytest.fixture(scope="session")
def analysed_sweep(stack, sweep) -> Sweep:
    """The sweep once the Flink job has written a step row for every step (scaling, saturation, comparison)."""
    if not _flink_job_running(stack):
        pytest.skip(f"the Flink job {FLINK_JOB} is not running: the result dashboards have nothing to show")
    got = _wait(stack, sweep, "scaling_curves", ANALYSIS_TIMEOUT_S, push=True)
    if not all(got.get(r, 0) >= n for r, n in sweep.steps.items()):
        pytest.fail(f"after {ANALYSIS_TIMEOUT_S} s the Flink job has written step rows {got} of {sweep.steps} "
                    f"(is it keeping up? see the Flink UI at {stack.flink_url})")
    return sweep
