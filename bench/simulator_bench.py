"""Fleet simulator throughput: the generator alone, + Avro encoding, + the Kafka producer, in one process.

Target (ioscale issue): simulator + producer >= 50k I/O samples/s with histograms from one process.

    .ioscale/venv/bin/python bench/simulator_bench.py                  # all stages when Kafka is up
    .ioscale/venv/bin/python bench/simulator_bench.py --no-kafka       # generator and encoding only
    .ioscale/venv/bin/python bench/simulator_bench.py --step-s 10 --ramp-s 0   # shorter steps

Stages (each is `run_simulation` of the whole scenario, seed 1, fast mode, with the scenario's own step
and ramp-up lengths unless overridden -- what `ioscale simulate <scenario> --fast` sends -- into):
- generator: a sink that takes column blocks (ioscale.wire.columns) and drops them: no dicts;
- generator + dicts: a sink without block support, which gets every record built as a dict;
- generator + encoding: blocks encoded as the producer encodes them (ioscale.wire.avro_fast), and, for
  comparison, the dicts encoded one by one by fastavro (the per-record path);
- the target stage, generator + producer: a TelemetryProducer -- the production path -- every record
  produced to Kafka and flushed, i.e. acknowledged by the broker (acks=all); the bench then checks the
  topics' end offsets against the counts.

The Kafka stages need the broker (127.0.0.1:9092) and the schema registry (127.0.0.1:8081). They write to
four private topics named ioscale.bench.<pid>.* -- never the pipeline's own topics, so no bench data
reaches ClickHouse or the dashboards -- and delete them afterwards. The schemas registered are the
pipeline's own subjects (same schema, same id), so the registry gains nothing new.
"""

from __future__ import annotations

import argparse
import os
import socket
import sys
import time
from collections import Counter
from typing import Any

from ioscale.simulator import make_engine, run_simulation
from ioscale.wire import schemas, topics
from ioscale.wire.avro_wire import AvroEncoder
from ioscale.wire.columns import RecordBlock, concat

TARGET_IO_SAMPLES_PER_S = 50_000
START_MS = 1_767_225_600_000


def reachable(host_port: str) -> bool:
    host, port = host_port.rsplit(":", 1)
    try:
        socket.create_connection((host, int(port)), timeout=1.0).close()
        return True
    except OSError:
        return False


def report(label: str, counts: Counter[str], elapsed_s: float) -> float:
    total = sum(counts.values())
    io_rate = counts[topics.IO_SAMPLES] / elapsed_s
    print(f"  {label:<38} {total:>9,} records in {elapsed_s:6.2f} s = {total / elapsed_s:>9,.0f} records/s, "
          f"{io_rate:>9,.0f} I/O samples/s", flush=True)
    return io_rate


class NullSink:
    """Takes the stream and drops it: the generator (and run_simulation's gathering) alone."""

    def __init__(self, blocks: bool = True):
        if blocks:
            self.send_blocks = lambda blocks: None

    def send(self, topic: str, record: dict[str, Any]) -> None:
        pass

    def flush(self) -> None:
        pass


class EncodeSink(NullSink):
    """Encodes what it gets as TelemetryProducer does, without producing it: blocks of one topic together
    through the vectorised encoder, or (blocks=False) every record as a dict through fastavro."""

    def __init__(self, encoders: dict[str, AvroEncoder], blocks: bool = True):
        super().__init__(blocks)
        self.encoders = encoders
        if blocks:
            self.send_blocks = self._encode_blocks

    def send(self, topic: str, record: dict[str, Any]) -> None:
        self.encoders[topic].encode(record)

    def _encode_blocks(self, blocks: list[RecordBlock]) -> None:
        by_topic: dict[str, list[RecordBlock]] = {}
        for b in blocks:
            by_topic.setdefault(b.topic, []).append(b)
        for topic, group in by_topic.items():
            self.encoders[topic].encode_block(concat(group))


def stage(args: argparse.Namespace, label: str, sink: Any) -> float:
    t0 = time.perf_counter()
    rep = run_simulation(args.scenario, sink, seed=1, start_ms=START_MS, step_s=args.step_s, ramp_s=args.ramp_s)
    return report(label, rep.by_topic, time.perf_counter() - t0)


def end_offsets(bootstrap: str, names: list[str]) -> dict[str, int]:
    """Records the broker holds per topic: the sum of its partitions' high watermarks."""
    from confluent_kafka import Consumer, TopicPartition

    c = Consumer({"bootstrap.servers": bootstrap, "group.id": f"ioscale-bench-{os.getpid()}", "log_level": 3,
                  "enable.auto.commit": False})
    try:
        out = {}
        for name in names:
            parts = c.list_topics(name, timeout=10).topics[name].partitions
            out[name] = sum(c.get_watermark_offsets(TopicPartition(name, p), timeout=10)[1] for p in parts)
        return out
    finally:
        c.close()


def kafka_stage(args: argparse.Namespace, gen_io_rate: float) -> float:
    from confluent_kafka.admin import AdminClient, NewTopic

    from ioscale.wire.producer import TelemetryProducer

    prefix = f"ioscale.bench.{os.getpid()}"
    mapping = {t: f"{prefix}.{t.split('.', 1)[1]}" for t in schemas.TOPIC_SCHEMAS}
    partitions = {spec.name: spec.partitions for spec in topics.TOPICS}
    admin = AdminClient({"bootstrap.servers": args.bootstrap, "log_level": 3})
    for f in admin.create_topics([NewTopic(mapping[t], partitions[t], 1) for t in mapping]).values():
        f.result(30)
    try:
        producer = TelemetryProducer(args.bootstrap, args.registry, topic_map=mapping)
        for t in mapping:  # register / fetch schema ids before timing
            producer.encoder(t)

        t0 = time.perf_counter()
        rep = run_simulation(args.scenario, producer, seed=1, start_ms=START_MS, step_s=args.step_s,
                             ramp_s=args.ramp_s)
        elapsed = time.perf_counter() - t0            # run_simulation returns after flush(): all acknowledged
        io_rate = report("generator + producer (run_simulation)", rep.by_topic, elapsed)
        sent = {mapping[t]: n for t, n in rep.by_topic.items()}
        held = end_offsets(args.bootstrap, list(mapping.values()))
        delivered = sum(producer.delivered.values())
        ok = held == sent and delivered == rep.records_sent and not producer.failed
        print(f"  delivered {delivered:,} of {rep.records_sent:,} (failed {sum(producer.failed.values())}); "
              f"broker end offsets {'match' if held == sent else 'DIFFER: ' + str(held)} the counts per topic"
              f"{'' if ok else '  <-- NOT ALL DELIVERED'}")
        print(f"  fast-path fallbacks to fastavro: "
              f"{sum(producer.encoder(t).fallbacks for t in mapping)} batch(es)")
        print(f"  ratio to the generator alone: {io_rate / gen_io_rate:.2f}; "
              f"to the {TARGET_IO_SAMPLES_PER_S:,}/s target: {io_rate / TARGET_IO_SAMPLES_PER_S:.2f} "
              f"({'met' if io_rate >= TARGET_IO_SAMPLES_PER_S and ok else 'NOT met'}), "
              f"load average {os.getloadavg()[0]:.2f}")

        # The importers' path for comparison: dicts of one topic at a time through send_many.
        records: dict[str, list[dict[str, Any]]] = {}
        engine = make_engine(args.scenario, seed=2, start_ms=START_MS, step_s=args.step_s, ramp_s=args.ramp_s)
        n = 0
        for batch in engine.batches():
            for topic, record in batch.records:
                records.setdefault(topic, []).append(record)
            n += len(batch)
            if n >= 150_000:
                break
        t0 = time.perf_counter()
        for topic, recs in records.items():
            for i in range(0, len(recs), 5000):
                producer.send_many(topic, recs[i:i + 5000])
        producer.flush()
        report("producer alone (dicts, send_many)", Counter({t: len(r) for t, r in records.items()}),
               time.perf_counter() - t0)
        return io_rate
    finally:
        for f in admin.delete_topics(list(mapping.values())).values():
            try:
                f.result(30)
            except Exception as exc:  # noqa: BLE001 -- report and carry on deleting the others
                print(f"  could not delete a bench topic: {exc}", file=sys.stderr)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--scenario", default="s2d-vmfleet-320", help="scenario to generate (default: the 320-VM fleet)")
    p.add_argument("--step-s", type=int, default=None, help="measured seconds per step (default: the scenario's)")
    p.add_argument("--ramp-s", type=int, default=None, help="ramp-up seconds per step (default: the scenario's)")
    p.add_argument("--bootstrap", default="127.0.0.1:9092")
    p.add_argument("--registry", default="http://127.0.0.1:8081")
    p.add_argument("--no-kafka", action="store_true", help="skip the producer stages")
    args = p.parse_args()

    engine = make_engine(args.scenario, seed=1, start_ms=START_MS, step_s=args.step_s, ramp_s=args.ramp_s)
    print(f"scenario {args.scenario}, steps of {engine.step_s} s + {engine.ramp_s} s ramp-up, 1-s intervals, "
          f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}", flush=True)
    gen_io = stage(args, "generator (column blocks)", NullSink())
    stage(args, "generator + dicts", NullSink(blocks=False))
    encoders = {t: AvroEncoder(schemas.schema_for_topic(t), 1) for t in schemas.TOPIC_SCHEMAS}
    enc_io = stage(args, "generator + encoding (vectorised)", EncodeSink(encoders))
    avro_io = stage(args, "generator + dicts + fastavro", EncodeSink(encoders, blocks=False))
    print(f"  vectorised encoding is {enc_io / avro_io:.1f}x the fastavro path's rate "
          f"(fast-path fallbacks: {sum(e.fallbacks for e in encoders.values())})")
    if args.no_kafka:
        return 0
    if not (reachable(args.bootstrap) and reachable(args.registry.split("//", 1)[-1])):
        print("  Kafka or the schema registry is not reachable: producer stages skipped")
        return 0
    kafka_stage(args, gen_io)
    return 0


if __name__ == "__main__":
    sys.exit(main())
