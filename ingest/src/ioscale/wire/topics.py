"""Kafka topics of ioscale: one place that names them and says how they are laid out.

Samples are keyed by run/host/VM/target so per-source order holds within a partition. Six
partitions for the sample streams let a Flink job read them with parallelism up to six on a
bigger box; retention is a week (raw samples also land in ClickHouse, which is the archive).
"""

from __future__ import annotations

from dataclasses import dataclass, field

DAY_MS = 24 * 3600 * 1000


@dataclass(frozen=True)
class TopicSpec:
    name: str
    partitions: int
    config: dict[str, str] = field(default_factory=dict)
    doc: str = ""


RUNS = "ioscale.runs"
IO_SAMPLES = "ioscale.io_samples"
CPU_SAMPLES = "ioscale.cpu_samples"
PORT_SAMPLES = "ioscale.port_samples"
ALERTS = "ioscale.alerts"
DEAD_LETTER = "ioscale.dead_letter"

TOPICS: tuple[TopicSpec, ...] = (
    TopicSpec(RUNS, 3, {"retention.ms": str(90 * DAY_MS)}, "run and step events (Avro)"),
    TopicSpec(IO_SAMPLES, 6, {"retention.ms": str(7 * DAY_MS)}, "per-interval I/O samples with latency histograms (Avro)"),
    TopicSpec(CPU_SAMPLES, 3, {"retention.ms": str(7 * DAY_MS)}, "per-interval CPU and interrupt samples (Avro)"),
    TopicSpec(PORT_SAMPLES, 3, {"retention.ms": str(7 * DAY_MS)}, "per-interval HBA/NIC/VMQ port samples (Avro)"),
    TopicSpec(ALERTS, 1, {"retention.ms": str(90 * DAY_MS)}, "saturation and SLO events"),
    TopicSpec(DEAD_LETTER, 1, {"retention.ms": str(30 * DAY_MS)}, "undecodable records with the reason"),
)
