"""The engine's column blocks: the records Batch.records builds (as dicts), the same bytes on the wire through
the fast encoder as through fastavro, and run_simulation hands them to block-capable sinks in order."""

from __future__ import annotations

from collections import Counter, defaultdict

import pytest

from ioscale.simulator import list_scenarios, make_engine, run_simulation, simulate
from ioscale.simulator.runner import BLOCK_RECORDS
from ioscale.wire import schemas, topics
from ioscale.wire.avro_wire import AvroEncoder

START_MS = 1_767_225_600_000
ALL = [s.name for s in list_scenarios()]


@pytest.mark.parametrize("name", ALL)
def test_blocks_encode_to_fastavros_bytes(name):
    encoders = {t: AvroEncoder(schemas.schema_for_topic(t), 9) for t in schemas.TOPIC_SCHEMAS}
    engine = make_engine(name, seed=3, start_ms=START_MS, step_s=3, ramp_s=1)
    blocks = Counter()
    for batch in engine.batches():
        records = [r for b in batch.blocks for r in b.to_records()]
        assert len(batch) == len(batch.events) + len(records)
        assert batch.records == batch.events + [(b.topic, r) for b in batch.blocks for r in b.to_records()]
        for block in batch.blocks:
            enc = encoders[block.topic]
            assert enc.encode_block(block) == [enc.encode(r) for r in block.to_records()]
            blocks[block.topic] += 1
    assert set(blocks) == {topics.IO_SAMPLES, topics.CPU_SAMPLES, topics.PORT_SAMPLES}
    assert all(e.fallbacks == 0 for e in encoders.values())


def test_identity_columns_share_codes_so_the_encoder_works_per_source():
    engine = make_engine("s2d-vmfleet-320", seed=1, start_ms=START_MS, step_s=2, ramp_s=0)
    io = next(b for batch in engine.batches() for b in batch.blocks if b.topic == topics.IO_SAMPLES)
    codes = {id(io.columns[f].codes) for f in ("host", "vm", "target", "direction")}
    assert len(codes) == 1


class BlockSink:
    def __init__(self):
        self.calls: list[tuple[str, object]] = []
        self.flushed = 0

    def send(self, topic, record):
        self.calls.append(("record", (topic, record)))

    def send_blocks(self, blocks):
        assert blocks, "never an empty hand-over"
        self.calls.append(("blocks", list(blocks)))

    def flush(self):
        self.flushed += 1

    def stream(self) -> list[tuple[str, dict]]:
        out = []
        for kind, item in self.calls:
            out.extend([item] if kind == "record" else [(b.topic, r) for b in item for r in b.to_records()])
        return out


def per_topic(stream):
    out = defaultdict(list)
    for t, r in stream:
        out[t].append(r)
    return out


def test_fast_run_gathers_blocks_and_keeps_the_order():
    sink = BlockSink()
    report = run_simulation("demo", sink, seed=5, start_ms=START_MS, step_s=40, ramp_s=1)
    expected = list(simulate("demo", seed=5, start_ms=START_MS, step_s=40, ramp_s=1))
    got = sink.stream()
    assert got == expected                               # events go out before the samples that follow them
    assert sink.flushed == 1 and report.records_sent == len(expected)
    assert report.by_topic == Counter(t for t, _ in expected)
    hand_overs = [item for kind, item in sink.calls if kind == "blocks"]
    assert len(hand_overs) < sum(len(h) for h in hand_overs) / 3, "blocks of several intervals go together"
    assert all(sum(b.n for b in h) < BLOCK_RECORDS + 2000 for h in hand_overs)


def test_realtime_run_hands_over_each_interval_at_once():
    class Clock:
        t = START_MS / 1000

        def time(self):
            return self.t

        def sleep(self, s):
            self.t += s

    clock = Clock()
    sink = BlockSink()
    run_simulation("demo", sink, seed=5, realtime=True, step_s=2, ramp_s=0, clock=clock.time, sleep=clock.sleep)
    hand_overs = [item for kind, item in sink.calls if kind == "blocks"]
    expected = list(simulate("demo", seed=5, start_ms=int(START_MS), step_s=2, ramp_s=0))
    assert per_topic(sink.stream()) == per_topic(expected)
    intervals = {b.columns["ts_ms"].value for h in hand_overs for b in h}
    assert len(hand_overs) == len(intervals)              # one hand-over per interval: nothing held back
