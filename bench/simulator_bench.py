"""Fleet simulator throughput: the generator alone, + Avro encoding, + the Kafka producer.

Target (ioscale issue): simulator + producer >= 50k I/O samples/s with histograms from one process.

    .ioscale/venv/bin/python bench/simulator_bench.py                  # all three stages when Kafka is up
    .ioscale/venv/bin/python bench/simulator_bench.py --no-kafka       # generator and encoding only

The Kafka stage needs the broker (127.0.0.1:9092) and the schema registry (127.0.0.1:8081). It writes to
four private topics named ioscale.bench.<pid>.* -- never the pipeline's own topics, so no bench data
reaches ClickHouse or the dashboards -- and deletes them afterwards. The schemas it registers are the
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

from ioscale import schemas, topics
from ioscale.avro_wire import AvroEncoder
from ioscale.simulator import make_engine

TARGET_IO_SAMPLES_PER_S = 50_000


def reachable(host_port: str) -> bool:
    host, port = host_port.rsplit(":", 1)
    try:
        socket.create_connection((host, int(port)), timeout=1.0).close()
        return True
    except OSError:
        return False


def stage(label: str, scenario: str, step_s: int, sink=None, encoders: dict[str, AvroEncoder] | None = None,
          limit_s: float = 20.0) -> tuple[float, float, Counter[str]]:
    """Run the scenario (short steps) through `sink`; returns (records/s, I/O samples/s, counts)."""
    engine = make_engine(scenario, seed=1, start_ms=1_767_225_600_000, step_s=step_s, ramp_s=0)
    counts: Counter[str] = Counter()
    t0 = time.perf_counter()
    for batch in engine.batches():
        for topic, record in batch.records:
            if encoders is not None:
                encoders[topic].encode(record)
            if sink is not None:
                sink.send(topic, record)
            counts[topic] += 1
        if time.perf_counter() - t0 > limit_s:
            break
    if sink is not None:
        sink.flush()
    elapsed = time.perf_counter() - t0
    total = sum(counts.values())
    io = counts[topics.IO_SAMPLES]
    print(f"  {label:<28} {total:>9,} records in {elapsed:6.2f} s = {total / elapsed:>9,.0f} records/s, "
          f"{io / elapsed:>9,.0f} I/O samples/s")
    return total / elapsed, io / elapsed, counts


class _TopicMap:
    """Sends the pipeline's topics to private bench topics (a RecordSink for the engine's stream)."""

    def __init__(self, producer: Any, mapping: dict[str, str]):
        self.producer, self.mapping = producer, mapping

    def send(self, topic: str, record: dict[str, Any]) -> None:
        self.producer.send(self.mapping[topic], record)

    def flush(self) -> None:
        self.producer.flush()


def kafka_stage(args: argparse.Namespace, gen_io_rate: float) -> None:
    from confluent_kafka.admin import AdminClient, NewTopic

    from ioscale.producer import TelemetryProducer

    class BenchProducer(TelemetryProducer):
        """Encodes a bench topic's records with the schema (and registry id) of the pipeline topic it mirrors."""

        def __init__(self, bootstrap: str, registry_url: str, real_topic: dict[str, str]):
            super().__init__(bootstrap, registry_url)
            self.real_topic = real_topic

        def encoder(self, topic: str) -> AvroEncoder:
            return super().encoder(self.real_topic.get(topic, topic))

    prefix = f"ioscale.bench.{os.getpid()}"
    mapping = {t: f"{prefix}.{t.split('.', 1)[1]}" for t in schemas.TOPIC_SCHEMAS}
    partitions = {spec.name: spec.partitions for spec in topics.TOPICS}
    admin = AdminClient({"bootstrap.servers": args.bootstrap})
    futures = admin.create_topics([NewTopic(mapping[t], partitions[t], 1) for t in mapping])
    for f in futures.values():
        f.result(30)
    try:
        producer = BenchProducer(args.bootstrap, args.registry, {v: k for k, v in mapping.items()})
        for t in mapping:  # register / fetch schema ids before timing
            producer.encoder(t)
        # The producer alone, on records generated beforehand: what the producer path costs by itself.
        engine = make_engine(args.scenario, seed=2, start_ms=1_767_225_600_000, step_s=args.step_s, ramp_s=0)
        records = []
        for batch in engine.batches():
            records.extend(batch.records)
            if len(records) >= 150_000:
                break
        sink = _TopicMap(producer, mapping)
        t0 = time.perf_counter()
        for topic, record in records:
            sink.send(topic, record)
        sink.flush()
        elapsed = time.perf_counter() - t0
        n_io = sum(1 for t, _ in records if t == topics.IO_SAMPLES)
        print(f"  {'producer alone':<28} {len(records):>9,} records in {elapsed:6.2f} s = "
              f"{len(records) / elapsed:>9,.0f} records/s, {n_io / elapsed:>9,.0f} I/O samples/s")
        del records
        delivered_before = sum(producer.delivered.values())
        _, io_rate, counts = stage("generator + producer", args.scenario, args.step_s, sink=sink,
                                   limit_s=args.limit_s)
        delivered = sum(producer.delivered.values()) - delivered_before
        print(f"  delivered {delivered:,} of {sum(counts.values()):,}, failed {sum(producer.failed.values())}")
        print(f"  ratio to generator alone: {io_rate / gen_io_rate:.2f}; to the {TARGET_IO_SAMPLES_PER_S:,}/s target: "
              f"{io_rate / TARGET_IO_SAMPLES_PER_S:.2f}")
    finally:
        for f in admin.delete_topics(list(mapping.values())).values():
            try:
                f.result(30)
            except Exception as exc:  # noqa: BLE001 -- report and carry on deleting the others
                print(f"  could not delete a bench topic: {exc}", file=sys.stderr)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--scenario", default="s2d-vmfleet-320", help="scenario to generate (default: the 320-VM fleet)")
    p.add_argument("--step-s", type=int, default=10, help="seconds per step (shorter = more steps per record count)")
    p.add_argument("--limit-s", type=float, default=20.0, help="stop each stage after this many seconds")
    p.add_argument("--bootstrap", default="127.0.0.1:9092")
    p.add_argument("--registry", default="http://127.0.0.1:8081")
    p.add_argument("--no-kafka", action="store_true", help="skip the producer stage")
    args = p.parse_args()

    print(f"scenario {args.scenario}, steps of {args.step_s} s, 1-s intervals, {os.cpu_count()} CPUs, "
          f"load average {os.getloadavg()[0]:.2f}")
    gen_rate, gen_io, counts = stage("generator alone", args.scenario, args.step_s, limit_s=args.limit_s)
    encoders = {t: AvroEncoder(schemas.schema_for_topic(t), 1) for t in schemas.TOPIC_SCHEMAS}
    _, enc_io, _ = stage("generator + Avro encoding", args.scenario, args.step_s, encoders=encoders,
                         limit_s=args.limit_s)
    share = counts[topics.IO_SAMPLES] / max(sum(counts.values()), 1)
    print(f"  I/O samples are {share:.0%} of the records; encoding keeps {enc_io / gen_io:.2f} of the generator's rate")
    if args.no_kafka:
        return 0
    if not (reachable(args.bootstrap) and reachable(args.registry.split("//", 1)[-1])):
        print("  Kafka or the schema registry is not reachable: producer stage skipped")
        return 0
    kafka_stage(args, gen_io)
    return 0


if __name__ == "__main__":
    sys.exit(main())
