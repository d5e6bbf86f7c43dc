"""A network test through the analysis: iperf3's own output of a parallel-streams sweep over a 1 Gbit/s link
(tests/fixtures/recorded/iperf3/link1g, recorded here through a shaped veth pair), imported as a user would
(`ioscale import iperf3 ... --link-speed 1G --analyze`).

The run has no I/O samples, only port samples: every step must get its row, measured by its ports' payload
(throughput_basis PORT), with MB/s equal to the raw whole-port samples over the row's steady window, the
raw samples adding up to iperf3's own end sums, and the verdict naming the link once four streams fill it.
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

SWEEP = Path(__file__).resolve().parents[2] / "fixtures" / "recorded" / "iperf3" / "link1g"
FILES = [SWEEP / f"tcp_P{p}_client.json" for p in (1, 2, 4, 8)]


@pytest.fixture(scope="module")
def analysed(stack):
    run_id = unique("net-link1g")
    done = subprocess.run([sys.executable, "-m", "ioscale.cli", "import", "iperf3", *map(str, FILES), "--run-id",
                           run_id, "--link-speed", "1G", "--analyze"], capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr  # includes analyze's own count check
    with client(stack.settings, stack.secrets, "reader") as ch:
        rows = list(ch.query(
            "SELECT step_index, load, throughput_basis, ops, bytes, iops, mb_per_s, steady_start, steady_end, "
            "steady_seconds, step_start, step_end, step_samples, latency_count, port_max_utilization_pct, "
            "port_hottest, saturation_status, saturation_bottleneck, saturation_evidence "
            "FROM ioscale.scaling_curves FINAL WHERE run_id = {r:String} ORDER BY step_index",
            parameters={"r": run_id}).named_results())
        # The oracle: the raw whole-port samples (queue -1), per step and over each row's own windows.
        raw = {}
        for row in rows:
            raw[row["step_index"]] = ch.query(
                "SELECT countIf(ts >= toStartOfSecond({s:DateTime64(3)}) AND ts < {e:DateTime64(3)}) AS step_n,"
                " sumIf(tx_bytes, ts >= {a:DateTime64(3)} AND ts < {b:DateTime64(3)}) AS steady_bytes,"
                " uniqExactIf(toStartOfSecond(ts), ts >= {a:DateTime64(3)} AND ts < {b:DateTime64(3)}) AS steady_s,"
                " sumIf(tx_bytes, step_index = {i:Int32}) AS step_tx "
                "FROM ioscale.port_samples FINAL WHERE run_id = {r:String} AND queue = -1",
                parameters={"r": run_id, "i": row["step_index"], "s": row["step_start"], "e": row["step_end"],
                            "a": row["steady_start"], "b": row["steady_end"]}).first_item
        usl = list(ch.query("SELECT metric, points, fitted FROM ioscale.usl_fits FINAL WHERE run_id = {r:String} "
                            "ORDER BY through_step DESC LIMIT 1", parameters={"r": run_id}).named_results())
        alerts = list(ch.query("SELECT step_index, phase, resource FROM ioscale.alerts FINAL "
                               "WHERE run_id = {r:String} AND kind = 'saturation' ORDER BY step_index, phase",
                               parameters={"r": run_id}).named_results())
        # What the scaling dashboard's USL charts read: the measured MB/s beside the MB/s model.
        views = ch.query(
            "SELECT (SELECT groupArray(usl_mb_per_s IS NOT NULL) FROM ioscale.dash_scaling_points"
            "        WHERE run_id = {r:String}) AS model_at_steps,"
            " (SELECT groupArray(throughput) FROM (SELECT throughput FROM ioscale.dash_usl_curve"
            "        WHERE run_id = {r:String} AND point_kind = 'measured' ORDER BY n)) AS measured",
            parameters={"r": run_id}).first_item
    return rows, raw, usl, {"alerts": alerts, "views": views}


def test_every_step_is_measured_by_its_ports_payload(analysed):
    rows, raw, _, _ = analysed
    assert [(r["step_index"], r["load"]) for r in rows] == [(0, 1.0), (1, 2.0), (2, 4.0), (3, 8.0)]
    for row in rows:
        oracle = raw[row["step_index"]]
        assert row["throughput_basis"] == "PORT", row
        assert row["latency_count"] == 0 and row["ops"] == 0 and row["iops"] == 0, row  # TCP: no frames counted
        assert row["steady_seconds"] == oracle["steady_s"] >= 10, (row, oracle)
        assert row["bytes"] == oracle["steady_bytes"], (row, oracle)
        assert row["mb_per_s"] == pytest.approx(oracle["steady_bytes"] / oracle["steady_s"] / 1e6, rel=1e-12)
        assert row["step_samples"] == oracle["step_n"], (row, oracle)


def test_the_raw_port_samples_add_up_to_iperf3s_own_end_sums(analysed):
    _, raw, _, _ = analysed
    for i, path in enumerate(FILES):
        sent = json.loads(path.read_text())["end"]["sum_sent"]["bytes"]
        assert raw[i]["step_tx"] == sent, (path.name, raw[i])


def test_the_link_is_named_where_four_streams_fill_it(analysed):
    rows, _, usl, found = analysed
    alerts = found["alerts"]
    assert [r["saturation_status"] for r in rows] == ["UNDETERMINED", "SCALING", "SCALING", "SATURATED"]
    last = rows[-1]
    assert last["saturation_bottleneck"] == "PORT" and last["port_hottest"].endswith(" TX"), last
    assert last["port_max_utilization_pct"] > 95, last
    assert "mean latency unknown" in last["saturation_evidence"], last
    # -b 350M per stream: 1 and 2 streams get what they ask for (43.75 and 87.5 MB/s), 4 and 8 the link's ~119.
    assert [round(r["mb_per_s"], 1) for r in rows[:2]] == [43.8, 87.5]
    assert rows[3]["mb_per_s"] == pytest.approx(rows[2]["mb_per_s"], rel=0.02)
    assert usl and usl[0]["metric"] == "mb_per_s" and usl[0]["points"] == 4 and usl[0]["fitted"], usl
    assert [(a["step_index"], a["resource"].split(" ")[0]) for a in alerts if a["phase"] == "final"] == [(3, "port")]
    # The dashboard's views take the fit as MB/s (usl_fits.metric names the scaling_curves column it fitted).
    assert found["views"]["model_at_steps"] == [True] * 4
    assert found["views"]["measured"] == pytest.approx([r["mb_per_s"] for r in rows], rel=1e-12)


REAL = Path(__file__).resolve().parents[2] / "fixtures" / "real"
PUBLIC = sorted(REAL.glob("iperf3-*.json"))


@pytest.mark.parametrize("path", PUBLIC, ids=lambda p: p.stem)
def test_each_public_iperf3_result_gets_a_step_row_from_its_ports(stack, path):
    """Files nobody here wrote (iperf3 3.0.11 to 3.14, TCP and UDP): one test each, one step row measured by the
    port's payload, equal to the raw whole-port samples over its steady window; UDP datagrams count as frames."""
    run_id = unique("net-public")
    done = subprocess.run([sys.executable, "-m", "ioscale.cli", "import", "iperf3", str(path), "--run-id", run_id,
                           "--analyze"], capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr
    with client(stack.settings, stack.secrets, "reader") as ch:
        row = ch.query("SELECT throughput_basis, ops, bytes, mb_per_s, steady_start, steady_end, steady_seconds "
                       "FROM ioscale.scaling_curves FINAL WHERE run_id = {r:String}",
                       parameters={"r": run_id}).first_item
        oracle = ch.query(
            "SELECT sum(greatest(rx, tx)) AS bytes, sum(frames) AS frames, count() AS seconds FROM ("
            " SELECT toStartOfSecond(ts) AS s, sum(rx_bytes) AS rx, sum(tx_bytes) AS tx,"
            "  if(sum(rx_bytes) >= sum(tx_bytes), sum(rx_frames), sum(tx_frames)) AS frames"
            " FROM ioscale.port_samples FINAL WHERE run_id = {r:String} AND queue = -1"
            "  AND ts >= {a:DateTime64(3)} AND ts < {b:DateTime64(3)} GROUP BY s)",
            parameters={"r": run_id, "a": row["steady_start"], "b": row["steady_end"]}).first_item
    assert row["throughput_basis"] == "PORT", row
    assert row["steady_seconds"] == oracle["seconds"] > 0, (row, oracle)
    assert (row["bytes"], row["ops"]) == (oracle["bytes"], oracle["frames"]), (row, oracle)
    assert row["mb_per_s"] == pytest.approx(oracle["bytes"] / oracle["seconds"] / 1e6, rel=1e-12)
