"""What the fault suite (tests/integration/faults) and the soak benchmark (bench/fault_soak.py) share: how a
component is killed, and what the tables must hold for a live seeded sweep (live_sweep.py) once it settled."""

from __future__ import annotations

import os
import signal
import time

from ioscale.provision import analysis_check
from ioscale.provision.launcher import Launcher
from ioscale.query.execution import execute
from ioscale.query.model import load
from ioscale.query.params import bind
from ioscale.stack import process
from ioscale.stack.clickhouse import client
from ioscale.stack.progress import SilentProgress

from live_sweep import LiveSweep, Oracle

#: The issue's bound, from the kill to a result row for a second after it.
RECOVERY_S = 30.0
#: How long a process killed with SIGKILL may take to be gone (its pid and its ports).
KILLED_GONE_S = 60.0
#: After RUN_ENDED: the last step closes 10 s after its seconds stop; a minute window 5 s after it ends.
SETTLE_S = 200.0

#: component to restart -> process killed (every process of the component when None).
FAULTS = {
    "kafka": ("kafka", "kafka"),
    "registry": ("registry", "registry"),
    "clickhouse": ("clickhouse", "clickhouse"),
    "flink-jobmanager": ("flink", "flink-jobmanager"),
    "flink-taskmanager": ("flink", "flink-taskmanager"),
    "superset": ("superset", "superset"),
}

STEP_ROW = ("step_index, step_samples, ops, bytes, latency_count, latency_n, arraySum(latency_bucket_count), "
            "p50_ns, p99_ns, p99_999_ns, steady_seconds, steady_reason, "
            "toUnixTimestamp64Milli(steady_start) - toUnixTimestamp64Milli(step_start), "
            "round(iops, 3), round(cpu_utilization_pct, 6), round(port_max_utilization_pct, 6), "
            "saturation_status, saturation_bottleneck")


def reader(stack):
    return client(stack.settings, stack.secrets, role="reader", database="ioscale")


def kill9(stack, proc_name: str) -> None:
    launcher = Launcher(stack.settings, SilentProgress())
    specs = [s for c in launcher.components for s in launcher.component(c).processes() if s.name == proc_name]
    pid = process.read_pid(specs[0].pid_file)
    assert pid, f"{proc_name} is not running"
    os.killpg(pid, signal.SIGKILL)  # the process and whatever it forked, as a crash of its host would
    # Restarted once it is gone, as after a real crash: a killed JVM with a large heap can take seconds to exit
    # on a loaded machine, and until then it still counts as running (and holds its ports).
    spec = specs[0]
    deadline = time.monotonic() + KILLED_GONE_S
    while process.read_pid(spec.pid_file) is not None or any(process.port_in_use(stack.settings.host, p)
                                                             for p in spec.ports):
        assert time.monotonic() < deadline, f"{proc_name} (pid {pid}) still there {KILLED_GONE_S:.0f} s after SIGKILL"
        time.sleep(0.05)


def query(ch, sql: str, run_id: str) -> list[tuple]:
    return [tuple(r) for r in ch.query(sql, parameters={"r": run_id}).result_rows]


def raw_state(ch, run_id: str) -> dict:
    """What the raw tables hold for the run, in the Oracle's shape."""
    io = {s: list(v) for s, *v in query(
        ch, "SELECT step_index, count(), sum(ops), sum(bytes), sum(latency_count) FROM io_samples FINAL "
            "WHERE run_id = {r:String} GROUP BY step_index", run_id)}
    return {
        "io": io,
        "io_no_final": dict(query(ch, "SELECT step_index, count() FROM io_samples WHERE run_id = {r:String} "
                                      "GROUP BY step_index", run_id)),
        "buckets": dict(query(ch, "SELECT step_index, sum(arraySum(latency_bucket_count)) FROM io_samples "
                                  "WHERE run_id = {r:String} GROUP BY step_index", run_id)),
        "cpu": dict(query(ch, "SELECT step_index, count() FROM cpu_samples WHERE run_id = {r:String} "
                              "GROUP BY step_index", run_id)),
        "port": {s: [n, rx] for s, n, rx in query(
            ch, "SELECT step_index, count(), sum(rx_bytes) FROM port_samples WHERE run_id = {r:String} "
                "GROUP BY step_index", run_id)},
        "events": query(ch, "SELECT count() FROM run_events WHERE run_id = {r:String}", run_id)[0][0],
    }


def expected_raw(o: Oracle) -> dict:
    return {
        "io": {s: list(v) for s, v in o.io.items()},
        "io_no_final": {s: v[0] for s, v in o.io.items()},
        "buckets": dict(o.buckets),
        "cpu": dict(o.cpu),
        "port": {s: list(v) for s, v in o.port.items()},
        "events": o.records["ioscale.runs"],
    }


def rollups_vs_raw(ch, run_id: str) -> list:
    """Differences of the CPU and port 10 s rollups from the raw samples, per step."""
    cpu = query(ch, "SELECT step_index, sum(samples) FROM cpu_samples_10s FINAL WHERE run_id = {r:String} "
                    "GROUP BY step_index ORDER BY step_index", run_id)
    cpu_raw = query(ch, "SELECT step_index, count() FROM cpu_samples FINAL WHERE run_id = {r:String} "
                        "GROUP BY step_index ORDER BY step_index", run_id)
    port = query(ch, "SELECT step_index, sum(samples), sum(rx_bytes) FROM port_samples_10s FINAL "
                     "WHERE run_id = {r:String} GROUP BY step_index ORDER BY step_index", run_id)
    port_raw = query(ch, "SELECT step_index, count(), sum(rx_bytes) FROM port_samples FINAL "
                         "WHERE run_id = {r:String} GROUP BY step_index ORDER BY step_index", run_id)
    return [d for d in (("cpu", cpu, cpu_raw), ("port", port, port_raw)) if d[1] != d[2]]


def library(ch, name: str, run_id: str) -> list[tuple]:
    """A named query of the SQL library over the run (they read io_samples_hist_sums, which sums a redelivered
    sample twice and detects it: the answer must not change)."""
    named = load(name)
    rows = execute(named, bind(named, {"run_id": run_id}), ch).rows
    # Floats to 6 decimals: sums of floats (CPU %) may take another order when the parts merge otherwise.
    return [tuple(round(v, 6) if isinstance(v, float) else v for v in r) for r in rows]


def results(ch, run_id: str) -> dict:
    return {
        "scaling_curve_raw": library(ch, "scaling_curve_raw", run_id),
        "step_latency_five_nines": library(ch, "step_latency_five_nines", run_id),
        "steps": query(ch, f"SELECT {STEP_ROW} FROM scaling_curves FINAL WHERE run_id = {{r:String}} "
                           "ORDER BY step_index", run_id),
        "usl": query(ch, "SELECT through_step, metric, points, fitted, reason, round(lambda, 6), round(sigma, 9), "
                         "round(kappa, 12), round(r_squared, 9), peak_n FROM usl_fits FINAL "
                         "WHERE run_id = {r:String} ORDER BY through_step, metric", run_id),
        "alerts": query(ch, "SELECT kind, phase, severity, step_index, resource FROM alerts FINAL "
                            "WHERE run_id = {r:String} ORDER BY kind, phase, step_index, resource", run_id),
        # Which capacity the port rollups carry: the run's declared links, whatever order the topics came in.
        "port_capacity": query(ch, "SELECT DISTINCT step_index, port_id, capacity_source, full_duplex, "
                                   "capacity_bytes_per_s FROM port_samples_1s FINAL WHERE run_id = {r:String} "
                                   "ORDER BY ALL", run_id),
    }


def settle(stack, sweep: LiveSweep) -> None:
    """Waits until the raw tables hold the records sent and every rollup holds the raw samples."""
    sweep.join(timeout=sweep.seconds + 200)
    assert not sweep.is_alive(), "the live sweep did not finish"
    assert sweep.error is None, f"the producer failed: {sweep.error!r}"
    want = expected_raw(sweep.oracle)
    deadline = time.monotonic() + SETTLE_S
    with reader(stack) as ch:
        while True:
            raw = raw_state(ch, sweep.run_id)
            check = analysis_check.check(ch, sweep.run_id)
            other = rollups_vs_raw(ch, sweep.run_id)
            if (raw == want and check.ok and not other) or time.monotonic() > deadline:
                return
            time.sleep(3)




def fresh_rows_after(stack, sweep: LiveSweep, since_ms: int) -> float | None:
    """Seconds from since_ms to a fleet row for a second that began after it (None: not within 3 x the bound).
    ClickHouse may be down or restarting meanwhile: a failed query is asked again."""
    while time.time() - since_ms / 1000 < 3 * RECOVERY_S:
        try:
            with reader(stack) as ch:
                newest = query(ch, "SELECT toUnixTimestamp64Milli(max(window_start)) FROM io_fleet_1s "
                                   "WHERE run_id = {r:String}", sweep.run_id)[0][0]
        except Exception:  # the server is not back yet
            newest = None
        if newest and newest >= since_ms:
            return time.time() - since_ms / 1000
        time.sleep(0.25)
    return None
