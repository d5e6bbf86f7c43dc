"""A fuzz corpus through both decode paths of the stack (issue 17, point 3): mutated Confluent Avro frames on the
four topics, read by the Flink job and by ClickHouse's Kafka-engine tables. Nothing stops either path, every bad
frame is a dead letter with a reason, the good frames between them arrive intact, and both paths reject the same
frames.

The corpus: frames of real simulator records (the live sweep's run), each mutated by one of the kinds the Java
DecoderFuzzTest uses (truncation, flipped bits, a huge length, overwritten, inserted or deleted bytes, bytes
appended, a bad magic byte, an unknown schema id, another topic's schema id). Body mutations start after the
run_id field, so whatever a path decodes from a mutated frame still belongs to this test's run (and is deleted
afterwards, isolation.delete_rows); a RANDOM_BODY kind, which could name any run, is left to the Java test. Every
50th frame is a good one of another run of the test's own, stamped now (each on a host of its own, so no two share
a key of the raw tables), whose raw rows and 1 s rollups are counted.

Frames go to partition 0 of each topic; a frame's (topic, offset) names it in `dead_letters` on both paths
(stage 'flink' and 'clickhouse-kafka').
"""

from __future__ import annotations

import os
import random
import time
from collections import Counter, defaultdict

import pytest
import requests
from confluent_kafka import Producer

from ioscale.stack.clickhouse import client
from ioscale.wire import schemas, topics
from ioscale.wire.avro_fast import varint
from ioscale.wire.avro_wire import AvroEncoder

from isolation import delete_rows, unique
from live_sweep import first_run_batches

pytestmark = pytest.mark.slow

#: Frames per topic (the issue asks for at least 10^5; IOSCALE_FUZZ_FRAMES lowers it for a quick look).
FRAMES = int(os.environ.get("IOSCALE_FUZZ_FRAMES", "100000"))
GOOD_EVERY = 50
KINDS = ("truncate", "flip_bits", "huge_length", "overwrite", "insert_or_delete", "append", "bad_magic",
         "unknown_id", "other_id")
TOPICS = (topics.IO_SAMPLES, topics.CPU_SAMPLES, topics.PORT_SAMPLES, topics.RUNS)
RAW = {topics.IO_SAMPLES: "io_samples", topics.CPU_SAMPLES: "cpu_samples", topics.PORT_SAMPLES: "port_samples",
       topics.RUNS: "run_events"}
ROLLUP_1S = {topics.IO_SAMPLES: "io_samples_1s", topics.CPU_SAMPLES: "cpu_samples_1s",
             topics.PORT_SAMPLES: "port_samples_1s"}
SETTLE_S = 600


def mutate(frame: bytes, body_from: int, kind: str, rng: random.Random, unknown_id: int, other_ids: list[int]) -> bytes:
    b = bytearray(frame)
    at = rng.randrange(body_from, len(b)) if body_from < len(b) else len(b)
    if kind == "truncate":
        return bytes(b[:max(body_from, at)])
    if kind == "flip_bits":
        for _ in range(rng.randint(1, 3)):
            i = rng.randrange(body_from, len(b))
            b[i] ^= 1 << rng.randrange(8)
    elif kind == "huge_length":
        b[at:at + 1] = varint(rng.choice([600_000_000, 2**31 - 1, 2**40, 2**62, -3]))
    elif kind == "overwrite":
        n = rng.randint(1, 8)
        b[at:at + n] = bytes(rng.randrange(256) for _ in range(n))
    elif kind == "insert_or_delete":
        if rng.random() < 0.5:
            b[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 4)))
        else:
            del b[at:at + rng.randint(1, 4)]
    elif kind == "append":  # never a 0 first: the bytes must not read as the start of another framed record
        b += bytes([rng.randint(1, 255)] + [rng.randrange(256) for _ in range(rng.randint(0, 16))])
    elif kind == "bad_magic":
        b[0] = rng.randint(1, 255)
    elif kind == "unknown_id":
        b[1:5] = unknown_id.to_bytes(4, "big")
    elif kind == "other_id":
        b[1:5] = rng.choice(other_ids).to_bytes(4, "big")
    return bytes(b)


def base_records(seed: int) -> dict[str, list[dict]]:
    """The sweep's records per topic (a few seconds of the simulator in fast mode)."""
    out: dict[str, list[dict]] = defaultdict(list)
    for batch in first_run_batches(seed, 1_000_000_000_000):
        for topic, record in batch.records:
            out[topic].append(record)
    return out


def reader(stack):
    return client(stack.settings, stack.secrets, role="reader", database="ioscale")


def classify(ch, stage: str, topic: str, offsets: range) -> dict[int, str]:
    rows = ch.query("SELECT offset, any(reason) FROM dead_letters WHERE stage = {s:String} AND topic = {t:String} "
                    "AND partition = 0 AND offset BETWEEN {lo:Int64} AND {hi:Int64} GROUP BY offset",
                    parameters={"s": stage, "t": topic, "lo": offsets.start, "hi": offsets.stop - 1}).result_rows
    return dict(rows)


def category(reason: str) -> str:
    """A reason's kind, so both paths' wordings compare: a field rule (same words on both) or a decode failure."""
    return reason if reason.startswith("invalid: ") else "rejected"


def analytics_restarts(stack) -> int:
    jobs = requests.get(f"{stack.flink_url}/jobs/overview", timeout=10).json()["jobs"]
    job = next(j for j in jobs if j["name"] == "ioscale-analytics" and j["state"] == "RUNNING")
    metrics = requests.get(f"{stack.flink_url}/jobs/{job['jid']}/metrics", params={"get": "numRestarts"},
                           timeout=10).json()
    return int(float(metrics[0]["value"])) if metrics else 0


def test_a_fuzz_corpus_is_dead_lettered_alike_by_both_paths(stack):
    rng = random.Random(17)
    fuzz_run, good_run = unique("fuzz"), unique("fuzz-good")
    registered = {r.topic: r.schema_id for r in schemas.register_all(stack.registry_url)}
    unknown_id = max(registered.values()) + 1000
    restarts_before = analytics_restarts(stack)
    bases = base_records(11)
    encoders = {t: AvroEncoder(schemas.schema_for_topic(t), registered[t]) for t in TOPICS}
    producer = Producer({"bootstrap.servers": stack.kafka_bootstrap, "linger.ms": 20, "log_level": 0,
                         "queue.buffering.max.messages": 2_000_000})
    sent: dict[str, dict[int, str]] = {t: {} for t in TOPICS}   # topic -> offset -> kind ("good" for good ones)
    good: Counter = Counter()

    def delivered(err, msg, kind):
        assert err is None, err
        sent[msg.topic()][msg.offset()] = kind

    goods_left = {t: list(range(len(bases[t]))) for t in TOPICS}
    for t in TOPICS:
        rng.shuffle(goods_left[t])
    for t in TOPICS:
        others = [i for tt, i in registered.items() if tt != t]
        for n in range(FRAMES):
            now_ms = int(time.time() * 1000)
            if n % GOOD_EVERY == 0 and goods_left[t]:
                record = {**bases[t][goods_left[t].pop()], "run_id": good_run, "ts_ms": now_ms - now_ms % 1000}
                if t != topics.RUNS:  # a host of its own: stamped now, two samples must not share a table key
                    record["host"] = f"{record['host']}-{good[t]}"
                if t == topics.RUNS:
                    record["start_ms"] = record["end_ms"] = record["ts_ms"]
                producer.produce(t, encoders[t].encode(record), partition=0,
                                 on_delivery=lambda e, m: delivered(e, m, "good"))
                good[t] += 1
            else:
                record = {**rng.choice(bases[t]), "run_id": fuzz_run, "ts_ms": now_ms - now_ms % 1000}
                frame = encoders[t].encode(record)
                body_from = frame.index(fuzz_run.encode()) + len(fuzz_run)
                kind = KINDS[n % len(KINDS)]
                producer.produce(t, mutate(frame, body_from, kind, rng, unknown_id, others), partition=0,
                                 on_delivery=lambda e, m, k=kind: delivered(e, m, k))
            if n % 1000 == 0:
                producer.poll(0)
    assert producer.flush(120) == 0

    # Settle: every bad frame dead-lettered by both paths and every good one in its raw table and 1 s rollup.
    bad = {t: {o for o, k in sent[t].items() if k != "good"} for t in TOPICS}
    spans = {t: range(min(sent[t]), max(sent[t]) + 1) for t in TOPICS}
    deadline = time.monotonic() + SETTLE_S
    last = None
    with reader(stack) as ch:
        while True:
            flink = {t: classify(ch, "flink", t, spans[t]) for t in TOPICS}
            house = {t: classify(ch, "clickhouse-kafka", t, spans[t]) for t in TOPICS}
            raw_good = {t: ch.query(f"SELECT count() FROM {RAW[t]} WHERE run_id = {{r:String}}",
                                    parameters={"r": good_run}).result_rows[0][0] for t in TOPICS}
            rolled = {t: ch.query(f"SELECT sum(samples) FROM {ROLLUP_1S[t]} FINAL WHERE run_id = {{r:String}}",
                                  parameters={"r": good_run}).result_rows[0][0] for t in ROLLUP_1S}
            counts = ({t: len(flink[t]) for t in TOPICS}, {t: len(house[t]) for t in TOPICS})
            complete = raw_good == dict(good) and all(rolled[t] == good[t] for t in ROLLUP_1S)
            if (complete and counts == last) or time.monotonic() > deadline:
                break
            last = counts
            time.sleep(10)
        tables = [r[0] for r in ch.query("SELECT DISTINCT table FROM system.columns WHERE database = 'ioscale' "
                                         "AND name = 'run_id' AND table IN (SELECT name FROM system.tables WHERE "
                                         "database = 'ioscale' AND engine LIKE '%MergeTree')").result_rows]
    restarts_after = analytics_restarts(stack)

    report = []
    for t in TOPICS:
        only_flink = sorted(set(flink[t]) - set(house[t]))
        only_house = sorted(set(house[t]) - set(flink[t]))
        differ = sorted(o for o in set(flink[t]) & set(house[t]) if category(flink[t][o]) != category(house[t][o]))
        by_kind = Counter(sent[t][o] for o in only_flink + only_house)
        report.append(f"{t}: sent {len(sent[t])} ({good[t]} good); rejected by Flink {len(flink[t])}, by ClickHouse "
                      f"{len(house[t])}; only Flink {len(only_flink)}, only ClickHouse {len(only_house)}, other "
                      f"rule {len(differ)}; kinds of the differences {dict(by_kind)}")
        for o in (only_flink[:2] + only_house[:2] + differ[:2]):
            report.append(f"   offset {o} ({sent[t][o]}): flink={flink[t].get(o)!r:.160} "
                          f"clickhouse={house[t].get(o)!r:.160}")
    print("\n" + "\n".join(report))

    with client(stack.settings, stack.secrets, "admin") as admin:
        for table in tables:
            for run in (fuzz_run, good_run):
                delete_rows(admin, table, run)

    assert restarts_after == restarts_before, "the Flink job restarted on the corpus"

    assert raw_good == dict(good), "good frames between the bad ones did not all reach the raw tables"
    assert rolled == {t: good[t] for t in ROLLUP_1S}, "good frames did not all reach the Flink job's 1 s rollups"
    for t in TOPICS:
        assert not set(flink[t]) - bad[t] and not set(house[t]) - bad[t], f"{t}: a good frame was dead-lettered"
    assert all(set(flink[t]) == set(house[t]) for t in TOPICS), "the paths reject different frames (see above)"
