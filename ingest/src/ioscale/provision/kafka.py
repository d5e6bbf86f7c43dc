"""Kafka's topics: created with their layout (``ioscale.wire.topics``) once the broker answers."""

from __future__ import annotations

from ioscale.errors import StackError
from ioscale.stack.kafka import KafkaComponent
from ioscale.wire import topics as topic_specs


class KafkaTopics(KafkaComponent):
    """The broker with ioscale's topics."""

    def configure(self) -> None:
        ensure_topics(self._admin(), topic_specs.TOPICS)


def ensure_topics(admin, specs, replication: topic_specs.Replication = topic_specs.Replication()) -> list[str]:
    """Create the topics that do not exist yet, replicated as ``replication`` says; existing ones are left as they
    are. Returns created names."""
    from confluent_kafka.admin import NewTopic

    existing = set(admin.list_topics(timeout=10).topics)
    new = [NewTopic(s.name, num_partitions=s.partitions, replication_factor=replication.factor,
                    config={**s.config, **replication.topic_config()})
           for s in specs if s.name not in existing]
    if not new:
        return []
    for name, fut in admin.create_topics(new, request_timeout=15).items():
        try:
            fut.result()
        except Exception as e:  # a concurrent creator is fine; anything else is fatal
            if "TOPIC_ALREADY_EXISTS" not in str(e):
                raise StackError("kafka", f"creating topic {name} failed: {e}") from e
    return [t.topic for t in new]
