"""kill -9 of each component during a live seeded sweep: after `ioscale stack up <component>`, nothing lost,
nothing duplicated, every result as in a fault-free run of the same seed, fresh rows within 30 s.

The sweep is the first run of s2d-vmfleet-320 (1-80 VMs per node on 4 nodes, 6 s steps: 32,476 records in
77 s, up to 320 I/O samples a second). The kill comes 45 % into it (mid-step, with windows open and inserts
in flight); the component is restarted at once, as an operator would. Then, per run:
- raw tables (the Kafka engine path) against the records sent: per step, samples, ops, bytes, latency N and
  histogram buckets of io_samples (read with and without FINAL: no duplicate either way), cpu and port samples,
  run events; the SQL library's raw scaling curve and five-nines latency (over io_samples_hist_sums, where a
  sample the Kafka engine redelivers counts twice and is detected) against the fault-free run;
- every I/O rollup and the scaling curve against the raw samples (analysis_check), the CPU and port 10 s rollups
  against the raw CPU and port samples;
- step rows, USL fits and alerts against the fault-free run of the same seed (values do not depend on start).
The producing process killed and resumed is tests/integration/wire/test_simulate_resume.py (every record on the
topics exactly once).
"""

from __future__ import annotations

import errno
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from ioscale.provision import analysis_check
from ioscale.provision.launcher import Launcher
from ioscale.query.execution import execute
from ioscale.query.model import load
from ioscale.query.params import bind
from ioscale.stack import process
from ioscale.stack.clickhouse import client
from ioscale.stack.progress import SilentProgress

from live_sweep import LiveSweep, Oracle

pytestmark = pytest.mark.slow

SEED = 11
#: Fraction of the run after which the component dies.
KILL_AT = 0.45
#: The issue's bound, from the kill to a result row for a second after it.
RECOVERY_S = 30.0
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
    deadline = time.monotonic() + 10
    while process.read_pid(specs[0].pid_file) is not None and time.monotonic() < deadline:
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


@pytest.fixture(scope="module")
def fault_free(stack) -> dict:
    sweep = LiveSweep(stack, SEED)
    sweep.start()
    settle(stack, sweep)
    with reader(stack) as ch:
        assert raw_state(ch, sweep.run_id) == expected_raw(sweep.oracle)
        out = results(ch, sweep.run_id)
    assert len(out["steps"]) == len(sweep.oracle.io) - (1 if -1 in sweep.oracle.io else 0)
    return out


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_a_killed_component_costs_nothing(stack, fault_free, fault):
    component, proc_name = FAULTS[fault]
    sweep = LiveSweep(stack, SEED)
    sweep.start()
    time.sleep(max(0.0, sweep.start_ms / 1000 + sweep.seconds * KILL_AT - time.time()))
    killed_ms = int(time.time() * 1000)
    kill9(stack, proc_name)
    t0 = time.monotonic()
    Launcher(stack.settings, SilentProgress()).up([component])
    restart_s = time.monotonic() - t0

    recovered_s = fresh_rows_after(stack, sweep, killed_ms)
    settle(stack, sweep)
    print(f"\n{fault}: restart {restart_s:.1f} s, fresh rows {recovered_s} s after the kill; "
          f"{sum(sweep.oracle.records.values())} records in {sweep.seconds:.0f} s")
    assert_as_fault_free(stack, sweep, fault_free)
    assert recovered_s is not None and recovered_s < RECOVERY_S, (
        f"no result row for a second after the kill within {RECOVERY_S:.0f} s (restart took {restart_s:.1f} s)")


def fresh_rows_after(stack, sweep: LiveSweep, since_ms: int) -> float | None:
    """Seconds from since_ms to a fleet row for a second that began after it (None: not within 3 x the bound)."""
    with reader(stack) as ch:
        while time.time() - since_ms / 1000 < 3 * RECOVERY_S:
            newest = query(ch, "SELECT toUnixTimestamp64Milli(max(window_start)) FROM io_fleet_1s "
                               "WHERE run_id = {r:String}", sweep.run_id)[0][0]
            if newest and newest >= since_ms:
                return time.time() - since_ms / 1000
            time.sleep(0.25)
    return None


def assert_as_fault_free(stack, sweep: LiveSweep, fault_free: dict) -> None:
    with reader(stack) as ch:
        assert raw_state(ch, sweep.run_id) == expected_raw(sweep.oracle)
        assert analysis_check.check(ch, sweep.run_id).mismatches == ()
        assert rollups_vs_raw(ch, sweep.run_id) == []
        got = results(ch, sweep.run_id)
    assert got["scaling_curve_raw"] == fault_free["scaling_curve_raw"]
    assert got["step_latency_five_nines"] == fault_free["step_latency_five_nines"]
    assert got["steps"] == fault_free["steps"]
    assert got["usl"] == fault_free["usl"]
    assert got["alerts"] == fault_free["alerts"]


#: How long ClickHouse's disk stays full, from 30 % into the sweep: several steps' samples.
FULL_S = 20.0
#: Room on the tmpfs beyond the data already there: the sweep writes ~60 MB, merges need as much again.
TMPFS_HEADROOM = 512 << 20


def du(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file() and not f.is_symlink())


@pytest.fixture
def clickhouse_on_tmpfs(stack):
    """ClickHouse's data directory moved onto a tmpfs of its own for the test, then back onto the disk."""
    data = stack.settings.data_dir / "clickhouse"
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a tmpfs under ClickHouse's data directory needs root and mount(8)")
    used = du(data)
    if used > 4 << 30:
        pytest.skip(f"ClickHouse holds {used >> 20} MiB here: too much to copy onto a tmpfs for this test")
    launcher = Launcher(stack.settings, SilentProgress())
    before = data.with_name("clickhouse.before-disk-full")
    after = data.with_name("clickhouse.after-disk-full")
    launcher.down(["clickhouse"])
    data.rename(before)
    data.mkdir(mode=0o700)
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={used + TMPFS_HEADROOM},mode=0700", "ioscale-disk-full",
                    str(data)], check=True)
    try:
        subprocess.run(["cp", "-a", f"{before}/.", str(data)], check=True)
        launcher.up(["clickhouse"])
        yield data
    finally:
        # What ClickHouse wrote meanwhile goes back to the disk; on any failure the copies stay, named.
        launcher.down(["clickhouse"])
        subprocess.run(["cp", "-a", str(data), str(after)], check=True)
        subprocess.run(["umount", str(data)], check=True)
        data.rmdir()
        after.rename(data)
        shutil.rmtree(before)
        launcher.up(["clickhouse"])


def fill(directory: Path) -> Path:
    """Writes a ballast file until the file system has no byte left (ENOSPC)."""
    ballast = directory / "ballast"
    chunk = b"\0" * (1 << 20)
    with open(ballast, "wb", buffering=0) as f:
        while chunk:
            try:
                f.write(chunk)
            except OSError as e:
                if e.errno != errno.ENOSPC:
                    raise
                chunk = chunk[: len(chunk) // 2]
    assert os.statvfs(directory).f_bavail == 0
    return ballast


def raw_rows(stack, sweep: LiveSweep) -> int | str:
    """io_samples rows of the run, for the report; a query may fail on a full disk (its answer is cut short)."""
    try:
        with reader(stack) as ch:
            return ch.query("SELECT count() FROM io_samples WHERE run_id = {r:String}",
                            parameters={"r": sweep.run_id}).result_rows[0][0]
    except Exception as e:  # what the reader meets then is part of the report, not a failure of the test
        return f"query failed: {str(e).splitlines()[0][:120]}"


def test_a_full_disk_pauses_clickhouse_and_loses_nothing(stack, fault_free, clickhouse_on_tmpfs):
    sweep = LiveSweep(stack, SEED)
    sweep.start()
    time.sleep(max(0.0, sweep.start_ms / 1000 + sweep.seconds * 0.3 - time.time()))
    ballast = fill(clickhouse_on_tmpfs)
    full_ms = int(time.time() * 1000)
    rows_full = raw_rows(stack, sweep)
    time.sleep(FULL_S)
    rows_still = raw_rows(stack, sweep)
    ballast.unlink()
    freed_ms = int(time.time() * 1000)
    recovered_s = fresh_rows_after(stack, sweep, freed_ms)
    settle(stack, sweep)
    print(f"\ndisk full for {(freed_ms - full_ms) / 1000:.0f} s: io_samples {rows_full} -> {rows_still} rows "
          f"meanwhile; fresh rows {recovered_s} s after space returned; {sweep.oracle.io} ")
    launcher = Launcher(stack.settings, SilentProgress())
    clickhouse = next(st for st in launcher.status() if st.name == "clickhouse")
    assert all(pid is not None for _, pid in clickhouse.processes), "ClickHouse died of a full disk"
    assert_as_fault_free(stack, sweep, fault_free)
    assert recovered_s is not None and recovered_s < RECOVERY_S
