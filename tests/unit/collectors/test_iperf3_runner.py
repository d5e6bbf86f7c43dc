"""`run_iperf3` with the real iperf3 over 127.0.0.1 and a FakeProducer in Kafka's place: the samples of each step
(intervals x streams, plus one whole-port row per interval) against iperf3's own end sums in the kept files, the
events, the server the runner starts and stops, and the errors a user meets. Rates are capped with -b so a step
costs little CPU on the shared machine."""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from ioscale.collectors.iperf3_runner import (Iperf3RunError, _EventStream, _StepFeed, _listening, check_extra_args,
                                              free_port, report_totals, run_iperf3, summary_line)
from ioscale.importers.common import Issues
from ioscale.importers.iperf3 import IntervalMapper, read_documents
from ioscale.wire import topics

pytestmark = pytest.mark.skipif(shutil.which("iperf3") is None, reason="iperf3 not installed (scripts/bootstrap.sh "
                                                                        "--test installs it)")
RECORDED = Path(__file__).resolve().parents[3] / "tests" / "fixtures" / "recorded" / "iperf3"


def _doc(path: Path) -> dict:
    return json.loads(path.read_text())


def test_sweep_of_parallel_streams_against_a_local_server(tmp_path, producer):
    out = tmp_path / "run"
    lines: list[str] = []
    run = run_iperf3(producer, sweep=("parallel", ["1", "2", "4"]), duration_s=2, run_id="r1", host="h1",
                     out_dir=out, extra_args=["-b", "50M"], link_speed_bps=10_000_000_000, log=lines.append)
    producer.validate()
    port = run.port
    assert run.server == "127.0.0.1" and not _listening("127.0.0.1", port)  # the runner's server is gone
    assert sorted(p.name for p in out.iterdir()) == ["iperf3-server.log", *(f"step-{i:03d}.{k}" for i in range(3)
                                                                            for k in ("json", "stderr.txt"))]
    samples = producer.of(topics.PORT_SAMPLES)
    assert {s["run_id"] for s in samples} == {"r1"} and {s["host"] for s in samples} == {"h1"}
    assert {s["link_speed_bps"] for s in samples} == {10_000_000_000}
    for step, streams in ((0, 1), (1, 2), (2, 4)):
        doc = _doc(out / f"step-{step:03d}.json")
        mine = [s for s in samples if s["step_index"] == step]
        n = len(doc["intervals"])
        assert n == 2 and doc["start"]["test_start"]["num_streams"] == streams
        assert len([s for s in mine if s["queue"] >= 0]) == n * streams
        whole = [s for s in mine if s["queue"] == -1]
        assert len(whole) == n
        # exact: the samples are iperf3's interval figures; they add up to its end summary
        assert sum(s["tx_bytes"] for s in whole) == doc["end"]["sum_sent"]["bytes"] > 0
        assert sum(s["tx_bytes"] for s in mine if s["queue"] >= 0) == doc["end"]["sum_sent"]["bytes"]
        assert [s["tx_bytes"] for s in whole] == [i["sum"]["bytes"] for i in doc["intervals"]]
        assert run.steps[step].emitted == {"tx": doc["end"]["sum_sent"]["bytes"], "rx": 0} == run.steps[step].reported
        # the rate over the step's window is iperf3's own (ms-rounded window); -b 50M is per stream, paced on a
        # machine shared with other work, hence the loose second check
        st = run.steps[step]
        rate = st.emitted["tx"] * 8 / ((st.end_ms - st.start_ms) / 1000)
        assert rate == pytest.approx(doc["end"]["sum_sent"]["bits_per_second"], rel=1e-3)
        assert rate == pytest.approx(50e6 * streams, rel=0.1)
    events = producer.of(topics.RUNS)
    assert [(e["event_type"], e["step_index"]) for e in events] == [
        ("RUN_STARTED", -1), ("STEP_STARTED", 0), ("STEP_ENDED", 0), ("STEP_STARTED", 1), ("STEP_ENDED", 1),
        ("STEP_STARTED", 2), ("STEP_ENDED", 2), ("RUN_ENDED", -1)]
    started, ended = events[5], events[6]
    assert started["load"]["workers_per_target"] == ended["load"]["workers_per_target"] == 4
    assert started["step_label"] == ended["step_label"] == "TCP 4 streams -b 50M"
    assert ended["links"] == [{"host": "h1", "port_id": "127.0.0.1/client", "kind": "NIC", "speed_bps": 10_000_000_000,
                               "payload_bytes_per_s": 0, "full_duplex": True}]
    assert "iperf3_client_cpu_total_pct" in ended["tags"] and ended["tags"]["sweep_value"] == "4"
    assert events[0]["tags"]["iperf3_output"] == "json (at each step's end)"
    # the step's window is the intervals' span on the runner's clock
    step2 = [s for s in samples if s["step_index"] == 2 and s["queue"] == -1]
    assert ended["start_ms"] == step2[0]["ts_ms"] and ended["end_ms"] == step2[-1]["ts_ms"] + step2[-1]["interval_ms"]
    assert summary_line(run).endswith(f"the samples add up to iperf3's end sums in every step; iperf3's output in "
                                      f"{out}")
    assert report_totals(run)[0].startswith("step 0 TCP 1 stream -b 50M: 2 stream + 2 port samples; tx ")
    assert any("local iperf3 server on 127.0.0.1" in m for m in lines)


def test_a_server_of_the_users_with_reverse_udp(tmp_path, producer):
    port = free_port()
    server = subprocess.Popen(["iperf3", "-s", "-1", "-B", "127.0.0.1", "-p", str(port)], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 10
        while not _listening("127.0.0.1", port) and time.monotonic() < deadline:
            time.sleep(0.05)
        run = run_iperf3(producer, server="127.0.0.1", port=port, duration_s=2, run_id="r2", out_dir=tmp_path / "o",
                         extra_args=["-u", "-R", "-b", "20M"])
    finally:
        server.kill()
        server.wait()
    producer.validate()
    doc = _doc(tmp_path / "o" / "step-000.json")
    whole = [s for s in producer.of(topics.PORT_SAMPLES) if s["queue"] == -1]
    assert sum(s["rx_bytes"] for s in whole) == doc["end"]["sum_received"]["bytes"] > 0
    assert sum(s["tx_bytes"] for s in whole) == 0
    lost = doc["end"]["sum_received"]["lost_packets"]
    assert sum(s["rx_frames"] for s in whole) == doc["end"]["sum_received"]["packets"] - lost
    ended = producer.of(topics.RUNS)[2]
    assert ended["load"]["read_pct"] == 100.0 and ended["load"]["adapter"] == "iperf3 UDP"
    assert run.steps[0].emitted == run.steps[0].reported == {"tx": 0, "rx": doc["end"]["sum_received"]["bytes"]}
    assert not (tmp_path / "o" / "iperf3-server.log").exists()


def test_no_server_is_an_error_that_closes_the_step_and_the_run(tmp_path, producer):
    port = free_port()
    with pytest.raises(Iperf3RunError) as e:
        run_iperf3(producer, server="127.0.0.1", port=port, duration_s=1, run_id="r3", out_dir=tmp_path / "o")
    assert "iperf3 failed: unable to connect to server" in str(e.value)
    assert "is an iperf3 server (iperf3 -s) running" in e.value.hint
    events = producer.of(topics.RUNS)
    assert [x["event_type"] for x in events] == ["RUN_STARTED", "STEP_STARTED", "STEP_ENDED", "RUN_ENDED"]
    assert "unable to connect" in events[2]["tags"]["iperf3_error"] and events[3]["tags"]["iperf3_error"] == "step 0"
    assert producer.of(topics.PORT_SAMPLES) == []


@pytest.mark.parametrize("args,sweep,message", [
    (["-J"], None, "-J cannot pass through to iperf3"),
    (["--logfile=x"], None, "--logfile cannot pass through"),
    (["-t", "5"], None, "-t cannot pass through to iperf3: use --duration"),
    (["-P", "2"], ("parallel", ["1", "2"]), "-P cannot pass through to iperf3: --sweep parallel=... sets it"),
])
def test_options_the_runner_sets_are_refused(args, sweep, message):
    with pytest.raises(Iperf3RunError) as e:
        check_extra_args(args, sweep)
    assert message in str(e.value)
    check_extra_args(["-P", "2", "-u", "-b", "1G"], None)  # without a parallel sweep -P is the user's


def test_unknown_sweep_and_missing_iperf3_say_what_to_do(producer):
    with pytest.raises(Iperf3RunError) as e:
        run_iperf3(producer, sweep=("bitrate", ["1G"]))
    assert "cannot sweep 'bitrate'" in str(e.value) and "parallel, length" in e.value.hint
    with pytest.raises(Iperf3RunError) as e:
        run_iperf3(producer, iperf3="no-such-iperf3")
    assert "apt-get install iperf3" in e.value.hint and producer.records == []


def test_json_stream_events_are_sent_as_they_arrive(producer):
    """iperf3 >= 3.17 streams events; bookworm's 3.12 cannot, so the events come from a 3.12 recording split into
    the event lines iperf3 --json-stream prints ({"event": ..., "data": ...})."""
    path = RECORDED / "tcp_bidir_p2_client.json"
    doc = _doc(path)
    feed = _StepFeed(producer.send, "r", 0, 1_000_000, 0, "h")
    events = _EventStream(feed)
    events.line(json.dumps({"event": "start", "data": doc["start"]}))
    sent = []
    for interval in doc["intervals"]:
        events.line(json.dumps({"event": "interval", "data": interval}))
        sent.append(len(producer.records))
    events.line(json.dumps({"event": "end", "data": doc["end"]}))
    assert sent == [5, 10, 15]  # 4 streams + 1 whole-port row on each interval's arrival
    (full,) = read_documents("x", path.read_bytes(), Issues("x", []))
    mapper = IntervalMapper(full, Issues("x", []), run_id="r", step_index=0, t0_ms=1_000_000,
                            time_basis="runner_clock", host="h", source="iperf3 --json-stream")
    expected = [s for i in full.intervals for s in mapper.samples(i)]
    assert [r for _, r in producer.records] == expected
    assert events.doc.end == doc["end"] and events.doc.bidir
