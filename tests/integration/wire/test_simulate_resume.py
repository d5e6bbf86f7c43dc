"""`ioscale simulate` killed -9 mid-run and started again with --resume (issue 17, point 2): Kafka holds every record
of the fault-free run exactly once, nothing duplicated, nothing missing.

The demo in real time, 4 steps of 4 s (16 s, 10 events and 16 intervals of samples), under a run id prefix of the
test's own; killed a second after its first progress line (5 s into the run), resumed at once. The records are read
back from the four topics (from a minute before the run's start to their end) and compared, by key and identity,
with the run the engine makes again.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections import Counter

from confluent_kafka import Consumer, TopicPartition

from ioscale.simulator import make_engine
from ioscale.simulator.resume import TOPICS
from ioscale.wire import schemas
from ioscale.wire.producer import source_key
from ioscale.wire.resume import FrameDecoder, record_identity, run_of_key

from isolation import unique

SEED, STEP_S = 7, 4


def _read_back(stack, run_ids: list[str], since_ms: int, timeout_s: float = 60) -> list[tuple[str, bytes, dict]]:
    """Every record of the runs on the topics, stamped by Kafka at or after since_ms, in log order per partition."""
    runs = {r.encode() for r in run_ids}
    decode = FrameDecoder(lambda i: schemas.fetch_schema(stack.registry_url, i))
    consumer = Consumer({"bootstrap.servers": stack.kafka_bootstrap, "group.id": unique("resume-read"),
                         "enable.auto.commit": False})
    try:
        meta = consumer.list_topics(timeout=15).topics
        parts = [TopicPartition(t, p, since_ms) for t in TOPICS for p in meta[t].partitions]
        ranges = {}
        for tp in consumer.offsets_for_times(parts, timeout=15):
            hi = consumer.get_watermark_offsets(TopicPartition(tp.topic, tp.partition), timeout=15)[1]
            if 0 <= tp.offset < hi:
                ranges[(tp.topic, tp.partition)] = (tp.offset, hi)
        consumer.assign([TopicPartition(t, p, lo) for (t, p), (lo, _) in ranges.items()])
        out, open_parts = [], set(ranges)
        deadline = time.monotonic() + timeout_s
        while open_parts and time.monotonic() < deadline:
            msg = consumer.poll(1.0)
            if msg is None or msg.error():
                continue
            tp = (msg.topic(), msg.partition())
            if tp not in open_parts or msg.offset() >= ranges[tp][1]:
                open_parts.discard(tp)
                continue
            if msg.key() is not None and run_of_key(msg.key()) in runs:
                out.append((msg.topic(), msg.key(), decode(msg.value())))
            if msg.offset() + 1 >= ranges[tp][1]:
                open_parts.discard(tp)
        assert not open_parts, f"partitions not read to their end in {timeout_s} s: {sorted(open_parts)}"
        return out
    finally:
        consumer.close()


def test_a_simulation_killed_and_resumed_puts_each_record_on_kafka_exactly_once(stack, tmp_path):
    prefix = unique("resume") + "-"
    start_ms = int(time.time()) * 1000          # on the demo's 1 s interval boundary
    args = [sys.executable, "-m", "ioscale.cli", "simulate", "--scenario", "demo", "--seed", str(SEED),
            "--start-ms", str(start_ms), "--step-s", str(STEP_S), "--ramp-s", "0", "--run-id-prefix", prefix,
            "--bootstrap", stack.kafka_bootstrap, "--registry-url", stack.registry_url]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    log = tmp_path / "first.log"
    with log.open("w") as out:
        first = subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True)
        try:
            deadline = time.monotonic() + 60
            while "[simulate]" not in log.read_text() and first.poll() is None and time.monotonic() < deadline:
                time.sleep(0.1)
            assert first.poll() is None, log.read_text()
            time.sleep(1.0)
        finally:
            os.kill(first.pid, signal.SIGKILL)
            first.wait(10)
    assert first.returncode == -signal.SIGKILL

    resumed_at = time.time()
    second = subprocess.run(args + ["--resume"], capture_output=True, text=True, env=env, timeout=180)
    ended_at = time.time()
    assert second.returncode == 0, second.stdout + second.stderr
    found = re.search(r"^resume: (\d+) of (\d+) records already on Kafka \(the latest stamped (\S+)\); (\d+) records "
                      r"to send$", second.stdout, re.MULTILINE)
    assert found, second.stdout
    already, total, _latest, to_send = int(found[1]), int(found[2]), found[3], int(found[4])
    sent = re.search(r"^sent (\d+) records for run\(s\) (\S+) in [\d.]+ s \((\d+) were on Kafka already\)",
                     second.stdout, re.MULTILINE)
    assert sent, second.stdout

    engine = make_engine("demo", SEED, start_ms, step_s=STEP_S, ramp_s=0, run_id_prefix=prefix)
    expected = [(t, source_key(r), record_identity(r)) for t, r in engine.records()]
    # 10 events; per step of k VMs and 4 intervals: 2k I/O, 2 + k CPU and 1 port samples each interval
    assert total == len(expected) == 10 + 4 * (2 + 4 + 6 + 8) + 4 * (3 + 4 + 5 + 6) + 16 == 178
    assert 0 < already < total and to_send == total - already
    assert (int(sent[1]), sent[2], int(sent[3])) == (to_send, engine.run_ids()[0], already)
    # On the run's own timeline: what was due went at once, and the run ended at its end (start + 16 s), not 16 s
    # after the resumed process started. 6 s of slack: start-up, the scan, a busy machine.
    start_s = start_ms / 1000
    assert ended_at - start_s < max(4 * STEP_S, resumed_at - start_s) + 6, (resumed_at - start_s, ended_at - start_s)

    on_kafka = _read_back(stack, engine.run_ids(), start_ms - 60_000)
    got = Counter((t, k, record_identity(r)) for t, k, r in on_kafka)
    want = Counter(expected)
    duplicates = sum(n - 1 for n in got.values() if n > 1)
    missing = sum((want - got).values())
    extra = sum((got - want).values())
    print(f"records of the run on Kafka before the kill: {already}; resent: {to_send}; of {total}: "
          f"duplicates {duplicates}, missing {missing}, not of the run {extra}")
    assert (duplicates, missing, extra) == (0, 0, 0)
    # Per key, Kafka holds the key's sequence in the engine's order (one partition per key).
    per_key: dict = {}
    for t, k, r in on_kafka:
        per_key.setdefault((t, k), []).append(record_identity(r))
    for key, identities in per_key.items():
        assert identities == [i for t, k, i in expected if (t, k) == key]
    # And the records themselves are the engine's, field for field.
    regenerated = {(t, source_key(r), record_identity(r)): r for t, r in engine.records()}
    assert all(r == regenerated[(t, k, record_identity(r))] for t, k, r in on_kafka)
