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

import os
import shutil
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from ioscale.provision import analysis_check
from ioscale.provision.launcher import Launcher
from ioscale.stack.progress import SilentProgress

from fault_checks import (FAULTS, RECOVERY_S, expected_raw, fresh_rows_after, kill9, raw_state, reader, results,
                          rollups_vs_raw, settle)
from disk_full import fill
from live_sweep import LiveSweep

pytestmark = pytest.mark.slow

SEED = 11
#: Fraction of the run after which the component dies.
KILL_AT = 0.45


@pytest.fixture(autouse=True)
def whole_stack_after(stack):
    """Every component up again after each case, whatever it did: one failed restart must not fail the tests
    that follow (a no-op, ~5 s, when all run)."""
    yield
    Launcher(stack.settings, SilentProgress()).up()


@pytest.fixture(scope="module")
def fault_free(stack) -> dict:
    sweep = LiveSweep(stack, SEED)
    sweep.start()
    settle(stack, sweep)
    with reader(stack) as ch:
        assert raw_state(ch, sweep.run_id) == expected_raw(sweep.oracle)
        out = results(ch, sweep.run_id)
    assert len(out["steps"]) == len(sweep.oracle.io) - (1 if -1 in sweep.oracle.io else 0)
    assert {row[2] for row in out["port_capacity"]} == {"run_event"}  # every port declared by the run
    return out


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_a_killed_component_costs_nothing(stack, fault_free, fault):
    component, proc_name = FAULTS[fault]
    sweep = LiveSweep(stack, SEED)
    sweep.start()
    time.sleep(max(0.0, sweep.start_ms / 1000 + sweep.seconds * KILL_AT - time.time()))
    killed_ms = int(time.time() * 1000)
    kill9(stack, proc_name)
    # The operator's restart runs beside the watch for fresh rows: a component the pipeline does not need
    # (Superset) must not hold them back while it starts.
    def restart_seconds() -> float:
        t0 = time.monotonic()
        Launcher(stack.settings, SilentProgress()).up([component])
        return time.monotonic() - t0

    with ThreadPoolExecutor(1) as pool:
        restart = pool.submit(restart_seconds)
        recovered_s = fresh_rows_after(stack, sweep, killed_ms)
        restart_s = restart.result()
    settle(stack, sweep)
    print(f"\n{fault}: restart {restart_s:.1f} s, fresh rows {recovered_s} s after the kill; "
          f"{sum(sweep.oracle.records.values())} records in {sweep.seconds:.0f} s")
    assert_as_fault_free(stack, sweep, fault_free)
    assert recovered_s is not None and recovered_s < RECOVERY_S, (
        f"no result row for a second after the kill within {RECOVERY_S:.0f} s (restart took {restart_s:.1f} s)")


def assert_as_fault_free(stack, sweep: LiveSweep, fault_free: dict) -> None:
    with reader(stack) as ch:
        assert raw_state(ch, sweep.run_id) == expected_raw(sweep.oracle)
        assert analysis_check.check(ch, sweep.run_id).mismatches == ()
        assert rollups_vs_raw(ch, sweep.run_id) == []
        got = results(ch, sweep.run_id)
    assert got["port_capacity"] == fault_free["port_capacity"]
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
