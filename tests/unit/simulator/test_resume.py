"""Resuming a killed run: which records go again, counted exactly, and when (ioscale.simulator.resume, runner).

"On Kafka" is played by per-key prefixes of the engine's own sequence (what an idempotent producer leaves per
partition); the last record of each prefix goes through Avro and back, as the scan hands it over.

The demo with 2 s steps and 1 s ramp-up, by hand: 4 steps of 3 intervals; step k (k = 1..4 VMs, one disk each)
makes per interval 2k I/O samples (READ, WRITE), 2 + k CPU samples (HOST, ROOT_PARTITION, one per VM) and one port
sample; 10 run events. Total 10 + 3 * (2+4+6+8) + 3 * (3+4+5+6) + 12 = 10 + 60 + 54 + 12 = 136 records, 11 keys:
the run's events; VM1..VM4's disk; the host's CPU and each VM's CPU; the HBA port.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from ioscale.errors import ExitStatus
from ioscale.simulator import list_scenarios, make_engine, run_simulation
from ioscale.simulator.resume import (ResumeUsageError, RunMismatch, check_resumable, locate, scan_since_ms,
                                      skip_delivered)
from ioscale.wire import schemas, topics
from ioscale.wire.avro_wire import AvroEncoder
from ioscale.wire.producer import source_key
from ioscale.wire.resume import FrameDecoder, LastDelivered, record_identity

START_MS = 1_767_225_600_000
DEMO = dict(seed=5, start_ms=START_MS, step_s=2, ramp_s=1)


def engine(name="demo", **kw):
    return make_engine(name, **{**DEMO, **kw})


def sequence(eng) -> list[tuple[str, bytes, dict]]:
    return [(t, source_key(r), r) for t, r in eng.records()]


def on_kafka(prefixes: dict[tuple[str, bytes], list[dict]]) -> dict[tuple[str, bytes], LastDelivered]:
    """The last record of each non-empty prefix, encoded and decoded as on the wire."""
    out = {}
    for (topic, key), recs in prefixes.items():
        if recs:
            schema = schemas.schema_for_topic(topic)
            frame = AvroEncoder(schema, 41).encode(recs[-1])
            record = FrameDecoder(lambda _id, s=schema: s)(frame)
            out[(topic, key)] = LastDelivered(topic, key, 0, len(recs) - 1, record)
    return out


def prefixes_by(seq, keep) -> dict[tuple[str, bytes], list[dict]]:
    """Per key the records keep(topic, key, record, position in key) accepts; keep must accept a prefix."""
    out: dict[tuple[str, bytes], list[dict]] = {}
    pos: Counter = Counter()
    for topic, key, r in seq:
        out.setdefault((topic, key), [])
        if keep(topic, key, r, pos[(topic, key)]):
            assert len(out[(topic, key)]) == pos[(topic, key)], "not a prefix"
            out[(topic, key)].append(r)
        pos[(topic, key)] += 1
    return out


def resumed(eng, skip) -> list[tuple[str, bytes, dict]]:
    return [(t, source_key(r), r) for b in skip_delivered(eng.batches(), skip) for t, r in b.records]


def ids(items) -> Counter:
    return Counter((t, k, record_identity(r)) for t, k, r in items)


def test_the_demo_has_the_hand_counted_records_and_keys():
    seq = sequence(engine())
    assert Counter(t for t, _, _ in seq) == {topics.RUNS: 10, topics.IO_SAMPLES: 60, topics.CPU_SAMPLES: 54,
                                             topics.PORT_SAMPLES: 12}
    assert len({(t, k) for t, k, _ in seq}) == 11


@pytest.mark.parametrize("name", [s.name for s in list_scenarios()])
def test_identity_tells_apart_every_record_of_a_key(name):
    seq = sequence(engine(name, step_s=2, ramp_s=1))
    counts = ids(seq)
    assert max(counts.values()) == 1, [k for k, n in counts.items() if n > 1][:3]
    stamps: dict = {}
    for t, k, r in seq:   # what locate relies on: a key's timestamps never go back
        assert r["ts_ms"] >= stamps.get((t, k), 0)
        stamps[(t, k)] = r["ts_ms"]


def test_a_kill_after_the_interval_at_4_s_skips_40_records_and_sends_96():
    eng = engine()
    seq = sequence(eng)
    cut = START_MS + 5000
    # ts < 5 s: RUN_STARTED, STEP_STARTED 0, STEP_ENDED 0, STEP_STARTED 1 (4 events); I/O 3 x 2 + 2 x 4 = 14;
    # CPU 3 x 3 + 2 x 4 = 17; port 5.
    prefixes = prefixes_by(seq, lambda t, k, r, i: r["ts_ms"] < cut)
    point = locate(eng.batches(), on_kafka(prefixes))
    assert (point.total, point.delivered, point.to_send) == (136, 40, 96)
    by_topic = Counter()
    for (t, _), n in point.skip.items():
        by_topic[t] += n
    assert by_topic == {topics.RUNS: 4, topics.IO_SAMPLES: 14, topics.CPU_SAMPLES: 17, topics.PORT_SAMPLES: 5}
    assert point.last_ts_ms == START_MS + 4000
    again = resumed(eng, point.skip)
    assert len(again) == 96
    assert all(r["ts_ms"] >= cut for _, _, r in again)
    delivered = [(t, k, r) for (t, k), recs in prefixes.items() for r in recs]
    assert ids(delivered) + ids(again) == ids(seq)      # the whole run, each record once
    assert max((ids(delivered) + ids(again)).values()) == 1


def test_a_partly_delivered_batch_sends_its_missing_records_one_by_one_and_later_blocks_unchanged():
    eng = engine()
    seq = sequence(eng)
    vm2 = next(k for t, k, r in seq if t == topics.IO_SAMPLES and r["vm"].endswith("2"))
    # Everything through the interval at 4 s, but VM2's disk (its partition lagged) only through 3 s.
    prefixes = prefixes_by(seq, lambda t, k, r, i: r["ts_ms"] < START_MS + (4000 if k == vm2 else 5000))
    point = locate(eng.batches(), on_kafka(prefixes))
    assert (point.delivered, point.to_send) == (38, 98)
    batches = list(skip_delivered(eng.batches(), point.skip))
    first = batches[0]
    assert first.due_ms == START_MS + 5000 and not first.blocks   # the interval at 4 s: only VM2's READ, WRITE
    assert [(t, r["vm"][-1], r["direction"], r["ts_ms"] - START_MS) for t, r in first.events] == [
        (topics.IO_SAMPLES, "2", "READ", 4000), (topics.IO_SAMPLES, "2", "WRITE", 4000)]
    originals = [b for b in eng.batches() if b.due_ms > START_MS + 5000]
    assert len(batches) == 1 + len(originals)
    for b, o in zip(batches[1:], originals):   # after the partial one: every batch whole, samples as blocks
        assert (b.due_ms, b.events, [blk.n for blk in b.blocks]) == (o.due_ms, o.events, [blk.n for blk in o.blocks])
    delivered = [(t, k, r) for (t, k), recs in prefixes.items() for r in recs]
    assert ids(delivered) + ids(resumed(eng, point.skip)) == ids(seq)


def test_random_prefixes_per_key_of_a_fleet_give_the_run_back_exactly_once():
    eng = engine("s2d-vmfleet-320", step_s=2, ramp_s=0)
    seq = sequence(eng)
    rng = random.Random(11)
    lengths: dict = {}
    for t, k, _ in seq:
        lengths[(t, k)] = lengths.get((t, k), 0) + 1
    cut = {k: rng.randint(0, n) for k, n in lengths.items()}      # none, some or all of each key
    prefixes = prefixes_by(seq, lambda t, k, r, i: i < cut[(t, k)])
    point = locate(eng.batches(), on_kafka(prefixes))
    assert point.total == len(seq) == 22000   # 72 events + 2/3 of the samples of 3-interval steps (32892)
    assert point.delivered == sum(cut.values())
    assert point.skip == {k: n for k, n in cut.items() if n}
    again = resumed(eng, point.skip)
    assert len(again) == len(seq) - sum(cut.values())
    total = ids([(t, k, r) for (t, k), recs in prefixes.items() for r in recs]) + ids(again)
    assert total == ids(seq) and max(total.values()) == 1
    # per key, the resumed records are the rest of the key's sequence, in order
    rest: dict = {}
    for t, k, r in again:
        rest.setdefault((t, k), []).append(r["ts_ms"])
    for key, stamps in rest.items():
        expected = [r["ts_ms"] for t, k, r in seq if (t, k) == key][cut[key]:]
        assert stamps == expected


def test_nothing_on_kafka_sends_everything_and_everything_on_kafka_sends_nothing():
    eng = engine()
    seq = sequence(eng)
    none = locate(eng.batches(), {})
    assert (none.total, none.delivered, none.last_ts_ms) == (136, 0, None)
    assert len(resumed(eng, none.skip)) == 136
    whole = locate(eng.batches(), on_kafka(prefixes_by(seq, lambda *a: True)))
    assert (whole.delivered, whole.to_send) == (136, 0)
    assert list(skip_delivered(eng.batches(), whole.skip)) == []


def test_records_of_other_settings_on_kafka_stop_the_resume():
    seq = sequence(engine(step_s=3))    # same run id (seed, start), 3 s steps: other samples, other event times
    prefixes = prefixes_by(seq, lambda t, k, r, i: r["ts_ms"] < START_MS + 5000)
    with pytest.raises(RunMismatch, match=r"do not match this scenario, seed and start: the last record of "
                                          r".*/vm01/Disk1 on ioscale.io_samples .* differs .* in bytes, ") as e:
        locate(engine().batches(), on_kafka(prefixes))
    assert e.value.exit_status == ExitStatus.BAD_INPUT
    assert "--seed, --start-ms, --step-s and --ramp-s" in e.value.hint
    # the run's events alone: its last one on Kafka, STEP_STARTED 1 at 4 s, is nowhere in the 2 s-step run
    events = {k: v for k, v in on_kafka(prefixes).items() if k[0] == topics.RUNS}
    with pytest.raises(RunMismatch, match=r"1 of the 1 sources on Kafka end in a record the regenerated run does "
                                          r"not have, e.g. .* at 2026-01-01T00:00:04.000Z \(\{'event_type': "
                                          r"'STEP_STARTED', 'step_index': 1\}\)"):
        locate(engine().batches(), events)


def test_a_last_record_that_differs_in_a_field_stops_the_resume():
    eng = engine()
    prefixes = prefixes_by(sequence(eng), lambda t, k, r, i: r["ts_ms"] < START_MS + 5000)
    found = on_kafka(prefixes)
    key = next(k for k in found if k[0] == topics.IO_SAMPLES)
    d = found[key]
    found[key] = LastDelivered(d.topic, d.key, d.partition, d.offset, {**d.record, "ops": d.record["ops"] + 1})
    with pytest.raises(RunMismatch, match="differs from the regenerated one in ops$"):
        locate(eng.batches(), found)


def test_resume_needs_seed_and_a_start_in_the_past():
    now = lambda: START_MS / 1000 + 10   # noqa: E731
    check_resumable(START_MS, 5, now)
    with pytest.raises(ResumeUsageError, match="needs the --seed and --start-ms") as e:
        check_resumable(START_MS, None, now)
    assert e.value.exit_status == ExitStatus.USAGE
    with pytest.raises(ResumeUsageError, match="needs the --seed"):
        check_resumable(None, 5, now)
    with pytest.raises(ResumeUsageError, match=r"--start-ms 1767225620000 is 10 s in the future"):
        check_resumable(START_MS + 20_000, 5, now)
    assert scan_since_ms(START_MS) == START_MS - 60_000


class ClockedProducer:
    """Notes the (fake) wall time of every record it is given."""

    def __init__(self, clock):
        self.clock, self.sent = clock, []

    def send(self, topic, record):
        self.sent.append((self.clock.t, topic, record))

    def flush(self):
        pass


class FakeClock:
    def __init__(self, t: float):
        self.t = t

    def time(self) -> float:
        self.t += 0.0001
        return self.t

    def sleep(self, seconds: float) -> None:
        self.t += seconds


def due_s(topic: str, record: dict) -> float:
    """When the engine releases a record: events at their time, samples at the end of their interval."""
    return (record["ts_ms"] + (0 if topic == topics.RUNS else record["interval_ms"])) / 1000


@pytest.mark.parametrize("speed, now_offset_s", [(1.0, 6.5), (2.0, 3.25)])
def test_a_resumed_real_time_run_sends_what_is_due_at_once_and_the_rest_on_the_runs_timeline(speed, now_offset_s):
    eng = engine()
    seq = sequence(eng)
    prefixes = prefixes_by(seq, lambda t, k, r, i: r["ts_ms"] < START_MS + 5000)
    clock = FakeClock(START_MS / 1000 + now_offset_s)      # killed at ~5 s, restarted 6.5 s into the run
    now0 = clock.t
    producer = ClockedProducer(clock)
    points = []
    report = run_simulation("demo", producer, realtime=True, speed=speed, resume=on_kafka(prefixes),
                            on_resume=points.append, clock=clock.time, sleep=clock.sleep, **DEMO)
    assert (points[0].delivered, report.already_delivered, report.records_sent, len(producer.sent)) == (40, 40, 96, 96)
    assert report.run_ids == ["sim-demo-fc4-8k-20260101T000000Z-s5"]
    start = START_MS / 1000
    timeline = [(start + (due_s(t, r) - start) / speed, t_sent) for t_sent, t, r in producer.sent]
    due_now = [sent for at, sent in timeline if at <= now0]
    later = [(at, sent) for at, sent in timeline if at > now0]
    # speed 1: the interval at 5 s (due at 6 s) went at once; speed 2: due at 3 s of wall time, likewise
    # I/O (2 VMs x READ, WRITE), CPU (2 + 2 VMs), port, STEP_ENDED 1, STEP_STARTED 2
    assert len(due_now) == 4 + 4 + 1 + 2
    assert max(due_now) - now0 < 0.01
    assert len(later) == 96 - 11
    assert max(abs(sent - at) for at, sent in later) < 0.01
    assert clock.t - (start + 12 / speed) < 0.01   # the run ends at its own end, not 6.5 s later


def test_a_resumed_fast_run_sends_the_rest_without_waiting():
    eng = engine()
    prefixes = prefixes_by(sequence(eng), lambda t, k, r, i: r["ts_ms"] < START_MS + 5000)
    clock = FakeClock(START_MS / 1000 + 100)
    t0 = clock.t
    producer = ClockedProducer(clock)
    report = run_simulation("demo", producer, resume=on_kafka(prefixes), clock=clock.time, sleep=clock.sleep, **DEMO)
    assert (report.records_sent, report.already_delivered) == (96, 40)
    assert clock.t - t0 < 0.1

