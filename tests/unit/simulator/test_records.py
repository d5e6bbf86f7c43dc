"""Every record is valid Avro, internally consistent (histogram vs exact statistics), and the stream is
a deterministic function of (scenario, seed, start time)."""

from __future__ import annotations

import io
import json
from collections import Counter, defaultdict
from pathlib import Path

import fastavro
import fastavro.validation
import pytest

from ioscale.histogram import LatencyHistogram, bucket_index, bucket_lower_ns, bucket_upper_ns
from ioscale.simulator import get_scenario, list_scenarios, simulate
from ioscale.wire import schemas, topics

SCHEMA_DIR = Path(__file__).resolve().parents[3] / "schema"
START_MS = 1_767_225_600_000
ALL = [s.name for s in list_scenarios()]


def parsed_schemas() -> dict[str, dict]:
    return {t: fastavro.parse_schema(json.loads((SCHEMA_DIR / f).read_text())) for t, f in schemas.TOPIC_SCHEMAS.items()}


def test_catalogue_names_every_study_and_the_demos():
    assert set(ALL) == {"hyperv-fc8-iometer", "esx-fc4-vs-fc8", "s2d-vmfleet-320", "vsphere-pvscsi-vs-lsi",
                        "hyperv-vmq-10gbe", "demo", "saturation-demo"}
    for s in list_scenarios():
        assert s.title and s.reproduces and s.runs and s.duration_s() > 0


def test_unknown_scenario_is_a_clear_error():
    from ioscale.errors import IoscaleError

    with pytest.raises(IoscaleError, match="unknown scenario 'nope'") as exc:
        list(simulate("nope"))
    assert "demo" in exc.value.hint


@pytest.mark.parametrize("name", ALL)
def test_records_validate_against_the_avro_schemas(name, records):
    parsed = parsed_schemas()
    recs = records(name)
    by_topic: dict[str, list] = defaultdict(list)
    for topic, r in recs:
        by_topic[topic].append(r)
    assert set(by_topic) == {topics.RUNS, topics.IO_SAMPLES, topics.CPU_SAMPLES, topics.PORT_SAMPLES}
    for topic, rs in by_topic.items():
        sample = rs if len(rs) <= 6000 else rs[:: len(rs) // 6000]   # the fleet: a spread-out sample
        assert fastavro.validation.validate_many(sample, parsed[topic], raise_errors=True)
        # every field is present (no reliance on defaults) and the record encodes
        names = [f["name"] for f in json.loads((SCHEMA_DIR / schemas.TOPIC_SCHEMAS[topic]).read_text())["fields"]]
        assert all(list(r) == names for r in sample)
        fastavro.schemaless_writer(io.BytesIO(), parsed[topic], sample[0])


@pytest.mark.parametrize("name", ALL)
def test_histograms_agree_with_the_exact_statistics(name, records):
    for topic, r in records(name):
        if topic != topics.IO_SAMPLES:
            continue
        idx, cnt = r["latency_bucket_index"], r["latency_bucket_count"]
        assert r["latency_count"] == r["ops"] == sum(cnt)
        assert r["latency_hist_scheme"] == 1
        assert r["errors"] == 0 and r["percentile_q"] == [] and r["percentile_ns"] == []
        if r["ops"] == 0:
            assert idx == [] and r["latency_sum_ns"] == 0 and r["latency_min_ns"] == 0
            continue
        assert all(a < b for a, b in zip(idx, idx[1:])) and min(cnt) > 0
        assert bucket_index(r["latency_min_ns"]) == idx[0]
        assert bucket_index(r["latency_max_ns"]) == idx[-1]
        low = sum(c * bucket_lower_ns(i) for i, c in zip(idx, cnt))
        high = sum(c * bucket_upper_ns(i) for i, c in zip(idx, cnt))
        assert low <= r["latency_sum_ns"] < high
        assert r["latency_min_ns"] * r["ops"] <= r["latency_sum_ns"] <= r["latency_max_ns"] * r["ops"]
        # outstanding = time-average of I/Os in flight = latency sum / interval (Little's law per interval)
        assert r["outstanding_ios"] == pytest.approx(r["latency_sum_ns"] / (r["interval_ms"] * 1e6), rel=1e-12)
        LatencyHistogram.from_sparse(idx, cnt, sum_ns=r["latency_sum_ns"], min_ns=r["latency_min_ns"],
                                     max_ns=r["latency_max_ns"])
        assert len(idx) <= 40   # the sparse form stays small: ~20 buckets, stalls add a few


@pytest.mark.parametrize("name", ALL)
def test_littles_law_holds_for_every_step(name, steps):
    """outstanding (workers x queue depth, as configured) = IOPS x mean latency, within 5 %."""
    scenario = get_scenario(name)
    for (run_key, step_index), st in steps(name).items():
        run = next(r for r in scenario.runs if r.key == run_key)
        step = run.steps[step_index]
        configured = len(run.host.names) * sum(w.classes_per_host * w.population for w in step.workloads)
        assert st.iops * st.mean_latency_s == pytest.approx(configured, rel=0.05), (run_key, step_index)
        assert st.outstanding == pytest.approx(configured, rel=0.05), (run_key, step_index)


def test_bytes_match_ops_times_block_size(records):
    recs = records("esx-fc4-vs-fc8")
    block_of_step = {}
    for topic, r in recs:
        if topic == topics.RUNS and r["event_type"] == "STEP_STARTED":
            block_of_step[(r["run_id"], r["step_index"])] = r["load"]["block_size_bytes"]
    for topic, r in recs:
        if topic == topics.IO_SAMPLES:
            assert r["bytes"] == r["ops"] * block_of_step[(r["run_id"], r["step_index"])]


def test_run_events_frame_every_step(records, sim_settings):
    recs = records("hyperv-vmq-10gbe")
    events = [r for t, r in recs if t == topics.RUNS]
    scenario = get_scenario("hyperv-vmq-10gbe")
    assert [e["event_type"] for e in events] == (
        ["RUN_STARTED"] + ["STEP_STARTED", "STEP_ENDED"] * len(scenario.runs[0].steps) + ["RUN_ENDED"]) * 2
    started = events[0]
    assert started["hosts"][0]["logical_processors"] == 8 and started["tool"] == "SIMULATOR"
    assert started["links"] == [{"host": "r610", "port_id": "Intel-AT-10GbE", "kind": "NIC", "speed_bps": 10_000_000_000,
                                 "payload_bytes_per_s": 1_176_000_000, "full_duplex": True}]
    step = events[1]
    assert step["load"]["vm_count"] == 4 and step["load"]["config_labels"]["vmq"] == "off"
    assert step["links"] == started["links"]
    ended = events[2]
    # the measured part excludes ramp-up; samples of the step lie within [STEP_STARTED, STEP_ENDED]
    assert ended["start_ms"] == step["ts_ms"] + sim_settings.ramp_s * 1000 and ended["end_ms"] == ended["ts_ms"]
    assert ended["end_ms"] - ended["start_ms"] == sim_settings.step_s * 1000
    run_ids = {e["run_id"] for e in events}
    assert len(run_ids) == 2 and all(rid.startswith("sim-hyperv-vmq-10gbe-vmq-") for rid in run_ids)
    # VM queues are reported per VM with VMQ on, and only then
    vmq_queues = Counter((r["run_id"], r["kind"]) for t, r in recs if t == topics.PORT_SAMPLES and r["queue"] >= 0)
    assert {k[1] for k in vmq_queues} == {"NIC_VMQ"} and len({k[0] for k in vmq_queues}) == 1


def test_cpu_scopes_per_platform(records):
    scopes = lambda name: {(r["scope"], r["vm"] != "") for t, r in records(name) if t == topics.CPU_SAMPLES}  # noqa: E731
    assert scopes("hyperv-vmq-10gbe") == {("HOST", False), ("ROOT_PARTITION", False), ("VM", True)}
    assert scopes("vsphere-pvscsi-vs-lsi") == {("HOST", False), ("HYPERVISOR", False), ("VM", True)}
    host_only = {r["scope"] for t, r in records("hyperv-fc8-iometer")
                 if t == topics.CPU_SAMPLES and r["run_id"].startswith("sim-hyperv-fc8-iometer-host-")}
    assert host_only == {"HOST"}
    for t, r in records("s2d-vmfleet-320")[:20000]:
        if t == topics.CPU_SAMPLES:
            assert 0.0 <= r["utilization_pct"] <= 100.0
            assert r["user_pct"] + r["privileged_pct"] == pytest.approx(r["utilization_pct"], abs=1e-9)


def encoded(stream) -> list[bytes]:
    parsed = parsed_schemas()
    out = []
    for topic, r in stream:
        buf = io.BytesIO()
        fastavro.schemaless_writer(buf, parsed[topic], r)
        out.append(topic.encode() + b"\0" + buf.getvalue())
    return out


def test_same_seed_same_bytes_different_seed_different_stream():
    a = encoded(simulate("demo", seed=11, start_ms=START_MS, step_s=3, ramp_s=1))
    b = encoded(simulate("demo", seed=11, start_ms=START_MS, step_s=3, ramp_s=1))
    c = encoded(simulate("demo", seed=12, start_ms=START_MS, step_s=3, ramp_s=1))
    assert a == b
    assert len(a) == len(c) and a != c
    # only values differ, not the shape of the stream
    assert sum(x != y for x, y in zip(a, c)) > len(a) // 2


def test_realtime_mode_paces_the_same_records():
    clock = FakeClock(START_MS / 1000 + 0.3)
    fast = encoded(simulate("demo", seed=3, start_ms=START_MS, step_s=2, ramp_s=1))
    paced = encoded(simulate("demo", seed=3, mode="realtime", start_ms=START_MS, step_s=2, ramp_s=1,
                             clock=clock.time, sleep=clock.sleep))
    assert paced == fast
    # 4 steps x 3 s of simulated time took 12 s of (fake) wall clock
    assert clock.slept == pytest.approx(12.0, abs=0.01)


def test_realtime_speed_and_default_start_is_now():
    clock = FakeClock(1_800_000_000.4)
    recs = list(simulate("saturation-demo", seed=1, mode="realtime", speed=10.0, step_s=1, ramp_s=0,
                         clock=clock.time, sleep=clock.sleep))
    assert recs[0][1]["ts_ms"] == 1_800_000_000_000          # now, on an interval boundary
    assert clock.slept == pytest.approx(9 * 1 / 10.0, abs=0.01)


class FakeClock:
    def __init__(self, t: float):
        self.t = t
        self.slept = 0.0

    def time(self) -> float:
        return self.t

    def sleep(self, seconds: float) -> None:
        self.t += seconds
        self.slept += seconds
