"""Kafka topics of ioscale: one place that names them and says how they are laid out.

Samples are keyed by run/host/VM/target so per-source order holds within a partition. Six
partitions for the sample streams let a Flink job read them with parallelism up to six on a
bigger box; retention is a week (raw samples also land in ClickHouse, which is the archive).

Replication is the cluster's, not the topic's: one broker (the local stack, single-node compose) takes factor 1,
a cluster (docker-compose.multinode.yml) 3 with ``min.insync.replicas`` 2, so that an acks=all producer loses
nothing while one broker is down. ``Replication.from_env`` reads it where the topics are created.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field

from ioscale.errors import ConfigError

DAY_MS = 24 * 3600 * 1000


@dataclass(frozen=True)
class TopicSpec:
    name: str
    partitions: int
    config: dict[str, str] = field(default_factory=dict)
    doc: str = ""


#: Variables that set the replication of the topics ioscale creates (empty or unset: one broker's values).
REPLICATION_FACTOR_ENV = "IOSCALE_KAFKA_REPLICATION_FACTOR"
MIN_INSYNC_ENV = "IOSCALE_KAFKA_MIN_INSYNC_REPLICAS"


@dataclass(frozen=True)
class Replication:
    """Replicas of each partition, and how many must hold a write before an acks=all producer is answered."""

    factor: int = 1
    min_insync: int = 1

    def __post_init__(self) -> None:
        if not 1 <= self.min_insync <= self.factor:
            raise ConfigError(f"Kafka replication: min.insync.replicas {self.min_insync} is not in 1..{self.factor} "
                              f"(the replication factor)")

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> "Replication":
        env = os.environ if env is None else env
        values = {}
        for attr, name in (("factor", REPLICATION_FACTOR_ENV), ("min_insync", MIN_INSYNC_ENV)):
            text = env.get(name, "").strip()
            if text:
                if not text.isdigit():
                    raise ConfigError(f"{name}={text!r} is not a whole number")
                values[attr] = int(text)
        return cls(**values)

    def topic_config(self) -> dict[str, str]:
        """Topic settings beyond the factor; none at the broker's default (1), so one broker's topics stay as
        they were."""
        return {"min.insync.replicas": str(self.min_insync)} if self.min_insync != 1 else {}


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
