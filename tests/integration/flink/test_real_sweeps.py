"""Real sweeps nobody here wrote, imported and analysed as a user would (`ioscale import ... --analyze`), against
figures read from the files by hand (tests/fixtures/real/expected_curves.json, recomputed by the stdlib oracle
devtools/expected_curves.py) and against the SQL library's raw curve.

Each fio JSON is a whole-step result (one sample per job and direction spanning the measured time): Flink must make
the step's measured window its steady state and give the IOPS, MB/s and mean latency the tool printed, a verdict,
and a USL fit, as it does for per-second samples.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ioscale.stack.clickhouse import client

from isolation import unique

pytestmark = pytest.mark.slow

REAL = Path(__file__).resolve().parents[2] / "fixtures" / "real"
EXPECTED = json.loads((REAL / "expected_curves.json").read_text())
SWEEPS = [s for s in EXPECTED["sweeps"] if s["tool"] == "fio"]
#: fio prints IOPS and means rounded to 6 decimals; the JSON's own totals hold them exactly.
REL = 1e-3
#: scaling_curve_raw rounds its figures to 2 decimals.
ROUNDED = 0.0051


def ioscale(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ioscale.cli", *args], capture_output=True, text=True, timeout=900)


@pytest.fixture(scope="module", params=SWEEPS, ids=lambda s: s["id"])
def analysed(request, stack):
    sweep = request.param
    run_id = unique("real-" + sweep["axis"])
    files = [str(REAL / sweep["dir"] / step["file"]) for step in sweep["steps"]]
    done = ioscale("import", "fio", *files, "--run-id", run_id, "--sweep-axis", sweep["axis"], "--analyze")
    assert done.returncode == 0, done.stdout + done.stderr  # includes analyze's own count check
    with client(stack.settings, stack.secrets, "reader") as ch:
        rows = ch.query(
            "SELECT step_index, load, iops, mb_per_s, latency_mean_ns, latency_n, p99_ns, steady_reason, steady_usable, "
            "saturation_status, saturation_bottleneck, littles_basis, littles_consistent "
            "FROM ioscale.scaling_curves FINAL WHERE run_id = {r:String} ORDER BY step_index",
            parameters={"r": run_id}).named_results()
        usl = ch.query("SELECT fitted, reason, points FROM ioscale.usl_fits FINAL WHERE run_id = {r:String} "
                       "ORDER BY through_step DESC LIMIT 1", parameters={"r": run_id}).named_results()
    raw = ioscale("sql", "scaling_curve_raw", "-p", f"run_id={run_id}", "-f", "json")
    assert raw.returncode == 0, raw.stderr
    return sweep, run_id, list(rows), list(usl), json.loads(raw.stdout)


def test_every_step_is_its_whole_measured_window_with_the_tools_figures(analysed):
    sweep, run_id, rows, _, _ = analysed
    assert [r["load"] for r in rows] == [float(s["load"]) for s in sweep["steps"]]
    for row, step in zip(rows, sweep["steps"]):
        assert row["steady_reason"] == "WHOLE_STEP" and row["steady_usable"], row
        assert row["iops"] == pytest.approx(step["iops"], rel=REL), (step["file"], row)
        assert row["mb_per_s"] == pytest.approx(step["mb_s"], rel=REL), (step["file"], row)
        assert row["latency_mean_ns"] / 1e6 == pytest.approx(step["clat_mean_ms"], rel=REL), (step["file"], row)
        # plain fio json reports percentiles, not a histogram: no N, so no percentile of ours, not a made-up one
        assert (row["latency_n"], row["p99_ns"]) == (0, None)
        assert row["littles_basis"] == "CONFIGURED"  # iodepth x numjobs, as fio was told


def test_the_flink_curve_equals_the_raw_curve(analysed):
    _, _, rows, _, raw = analysed
    assert len(raw) == len(rows)
    for row, r in zip(rows, sorted(raw, key=lambda r: r["step_index"])):
        assert r["iops"] == pytest.approx(row["iops"], rel=1e-3, abs=ROUNDED)
        assert r["mb_per_s"] == pytest.approx(row["mb_per_s"], rel=1e-3, abs=ROUNDED)
        assert r["mean_latency_us"] == pytest.approx(row["latency_mean_ns"] / 1000, rel=1e-3, abs=ROUNDED)


def test_the_plateau_is_flagged_and_a_usl_curve_fitted(analysed):
    sweep, _, rows, usl, _ = analysed
    expected = sweep["saturation"]["index"]
    status = [r["saturation_status"] for r in rows]
    # From the step the curve flattens at (read by hand: gain < 10 % while latency rose >= 20 %), every step
    # is saturated.
    assert all(s == "SATURATED" for s in status[expected:]), status
    assert usl and usl[0]["points"] == len(rows), usl


UNIT_DATA = Path(__file__).resolve().parents[2] / "unit" / "importers" / "data"
#: Every importer's whole-run fixtures: real files, and hand-made ones where no licensed real file exists.
FIXTURES = [
    ("diskspd", [REAL / "pkb_diskspd_result_nolatency.xml"]),
    # (vc_diskspd-2.0.21a_rxml_readwrite_70_30.xml is not whole-run: its -D series imports as 1 s samples)
    ("diskspd", [REAL / "diskspd_text_readwrite_70_30_vc.txt"]),
    ("diskspd", [REAL / "diskspd_text_v2.2_multinuma_writeonly_vc.txt"]),
    ("fio", [REAL / "vc_fio-3.26_windowsaio_randwrite.json"]),
    ("fio", [REAL / "pkb_fio-2.17_hist_run.json"]),
    ("diskspd", [UNIT_DATA / "diskspd_2.0_xml_latency_2targets_2timespans.xml"]),
    ("fio", [UNIT_DATA / "fio-3.36_jsonplus_2groups.json"]),
    ("iometer", [UNIT_DATA / "iometer_1.1.0_qd_cycling.csv"]),
    ("iometer", [UNIT_DATA / "iometer_1.1.0_3specs_qd_cycling.csv"]),
    ("vmfleet", [UNIT_DATA / "vmfleet_sweep"]),
]


@pytest.mark.parametrize("tool,paths", FIXTURES, ids=[f"{t}-{p[0].name}" for t, p in FIXTURES])
def test_every_importer_fixture_gets_the_raw_curve_from_flink(stack, tool, paths):
    run_id = unique("fixture-" + tool)
    done = ioscale("import", tool, *map(str, paths), "--run-id", run_id, "--analyze")
    assert done.returncode == 0, done.stdout + done.stderr
    with client(stack.settings, stack.secrets, "reader") as ch:
        runs = [r for (r,) in ch.query("SELECT DISTINCT run_id FROM ioscale.run_events WHERE startsWith(run_id, "
                                       "{r:String})", parameters={"r": run_id}).result_rows]
        assert runs
        for run in runs:
            rows = ch.query("SELECT step_index, iops, mb_per_s, latency_mean_ns, steady_reason "
                            "FROM ioscale.scaling_curves FINAL WHERE run_id = {r:String} ORDER BY step_index",
                            parameters={"r": run}).named_results()
            rows = list(rows)
            raw = ioscale("sql", "scaling_curve_raw", "-p", f"run_id={run}", "-f", "json")
            assert raw.returncode == 0, raw.stderr
            raw = sorted(json.loads(raw.stdout), key=lambda r: r["step_index"])
            assert [r["step_index"] for r in rows] == [r["step_index"] for r in raw] != []
            for row, r in zip(rows, raw):
                assert row["steady_reason"] == "WHOLE_STEP", (run, row)
                assert row["iops"] == pytest.approx(r["iops"], rel=1e-3, abs=ROUNDED), (run, row, r)
                assert row["mb_per_s"] == pytest.approx(r["mb_per_s"], rel=1e-3, abs=ROUNDED), (run, row, r)
                if r["mean_latency_us"] is not None:
                    assert row["latency_mean_ns"] / 1000 == pytest.approx(r["mean_latency_us"], rel=1e-3,
                                                                          abs=ROUNDED), (run, row, r)


def test_a_diskspd_iops_series_is_analysed_second_by_second(stack):
    """VirtualClient's DISKSPD -D result (120 one-second buckets per target and direction) through the Flink job:
    every I/O the file counts lands in the 1 s rollups, one window per bucket, and the step's steady state is
    a window of those seconds, not the whole run."""
    run_id = unique("fixture-diskspd-series")
    done = ioscale("import", "diskspd", str(REAL / "vc_diskspd-2.0.21a_rxml_readwrite_70_30.xml"), "--run-id",
                   run_id, "--analyze")
    assert done.returncode == 0, done.stdout + done.stderr
    with client(stack.settings, stack.secrets, "reader") as ch:
        per_dir = dict(ch.query(
            "SELECT lower(direction), (sum(ops), countIf(ops > 0), sum(latency_count)) FROM ioscale.io_samples_1s FINAL "
            "WHERE run_id = {r:String} GROUP BY direction", parameters={"r": run_id}).result_rows)
        step = ch.query("SELECT iops, latency_mean_ns, steady_reason, steady_usable FROM ioscale.scaling_curves "
                        "FINAL WHERE run_id = {r:String}", parameters={"r": run_id}).named_results()
        step = list(step)
    # <ReadCount> 37162 and <WriteCount> 15753 in the file; the buckets plus the last 10 ms hold the same (the
    # whole-run percentile table rides on a '*' sample of its own, with no I/Os)
    assert {d: v[0] for d, v in per_dir.items()} == {"read": 37162, "write": 15753}
    assert {d: v[1] for d, v in per_dir.items()} == {"read": 120, "write": 120}
    # latencies: every bucket's I/Os but the 3 reads and 2 writes after the last bucket (no latency for them)
    assert {d: v[2] for d, v in per_dir.items()} == {"read": 37159, "write": 15751}
    assert len(step) == 1 and step[0]["steady_usable"] and step[0]["steady_reason"] != "WHOLE_STEP", step
    # the whole run's 52,915 I/Os in 120.01 s are 440.9 IOPS; a steady window of its seconds is within 5 % of it
    assert step[0]["iops"] == pytest.approx(52915 / 120.01, rel=0.05), step
