"""run_simulation drives any producer-like sink: every record sent once, flushed, progress reported."""

from __future__ import annotations

from collections import Counter

import pytest

from ioscale.simulator import make_engine, run_simulation, simulate
from ioscale.wire import topics

START_MS = 1_767_225_600_000


class ListProducer:
    def __init__(self):
        self.sent: list[tuple[str, dict]] = []
        self.flushed = 0

    def send(self, topic, record):
        assert self.flushed == 0, "send after flush"
        self.sent.append((topic, record))

    def flush(self):
        self.flushed += 1


class FakeClock:
    def __init__(self, t: float):
        self.t = t

    def time(self) -> float:
        self.t += 0.001        # every look at the clock costs a millisecond of (fake) work
        return self.t

    def sleep(self, seconds: float) -> None:
        self.t += seconds


def test_fast_run_sends_the_simulated_stream_and_flushes():
    producer = ListProducer()
    progress = []
    report = run_simulation("demo", producer, seed=5, start_ms=START_MS, step_s=2, ramp_s=1, progress=progress.append)
    expected = list(simulate("demo", seed=5, start_ms=START_MS, step_s=2, ramp_s=1))
    assert producer.sent == expected
    assert producer.flushed == 1
    assert report.records_sent == len(expected)
    assert report.by_topic == Counter(t for t, _ in expected)
    assert report.run_ids == ["sim-demo-fc4-8k-20260101T000000Z-s5"]
    assert report.end_ms - report.start_ms == 4 * 3 * 1000
    assert progress[-1].done and progress[-1].fraction_done == 1.0 and progress[-1].records_sent == len(expected)


def test_realtime_run_reports_progress_every_few_seconds():
    producer = ListProducer()
    clock = FakeClock(START_MS / 1000)
    progress = []
    run_simulation("demo", producer, seed=1, realtime=True, progress=progress.append, progress_every_s=5.0,
                   clock=clock.time, sleep=clock.sleep)
    # the demo lasts ~2 minutes of wall clock: about one report per 5 s, plus the final one
    assert 20 <= len(progress) <= 30
    assert progress[-1].done
    fractions = [p.fraction_done for p in progress]
    assert fractions == sorted(fractions)
    mid = progress[len(progress) // 2]
    assert mid.run_key == "fc4-8k" and mid.step_label.endswith(("VM", "VMs"))
    assert mid.by_topic[topics.IO_SAMPLES] > 0 and mid.sim_ms > START_MS - 10_000


def test_speed_must_be_positive_and_mode_known():
    from ioscale.errors import IoscaleError

    with pytest.raises(IoscaleError, match="speed"):
        list(simulate("demo", mode="realtime", speed=0))
    with pytest.raises(IoscaleError, match="unknown mode"):
        list(simulate("demo", mode="turbo"))


def test_a_run_started_now_begins_on_an_interval_boundary_with_the_id_the_demo_links_to():
    from ioscale.simulator import get_scenario, make_engine
    from ioscale.simulator.engine import run_id_for
    from ioscale.simulator.runner import start_now_ms

    clock = lambda: 1_767_225_600.7  # noqa: E731 -- 700 ms past a second
    spec = get_scenario("demo")
    start = start_now_ms(spec.interval_ms, clock)
    assert start % spec.interval_ms == 0 and 0 <= 1_767_225_600_700 - start < spec.interval_ms
    engine = make_engine("demo", seed=1, clock=clock)
    assert engine.start_ms == start
    first = next(iter(engine.batches()))  # RUN_STARTED of the first run
    assert first.records[0][1]["run_id"] == run_id_for(spec.name, spec.runs[0].key, start, 1)


def test_run_ids_take_the_prefix_and_are_known_before_generating():
    eng = make_engine("hyperv-vmq-10gbe", seed=5, start_ms=START_MS, step_s=2, ramp_s=1, run_id_prefix="itest-x-")
    ids_ = eng.run_ids()
    assert len(ids_) == 2 and all(i.startswith("itest-x-sim-hyperv-vmq-10gbe-") for i in ids_)
    assert ids_ == [r["run_id"] for t, r in eng.records() if r.get("event_type") == "RUN_STARTED"]
    with pytest.raises(ValueError, match="no '/'"):
        make_engine("demo", run_id_prefix="a/b")
