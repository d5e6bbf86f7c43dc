"""The topics' replication comes from IOSCALE_KAFKA_REPLICATION_FACTOR / _MIN_INSYNC_REPLICAS (the multinode
compose profile sets 3 and 2); unset, the topics are created as on one broker, exactly as before."""

from __future__ import annotations

import pytest

from ioscale.errors import ConfigError
from ioscale.provision.kafka import ensure_topics
from ioscale.wire import topics
from ioscale.wire.topics import Replication


class FakeAdmin:
    def __init__(self, existing=()):
        self.existing = set(existing)
        self.created = []

    def list_topics(self, timeout=None):
        return type("Md", (), {"topics": {n: None for n in self.existing}})()

    def create_topics(self, new, request_timeout=None):
        from concurrent.futures import Future

        self.created += new
        out = {}
        for t in new:
            out[t.topic] = Future()
            out[t.topic].set_result(None)
        return out


def test_unset_means_one_broker_and_the_topic_configs_of_before():
    admin = FakeAdmin(existing={topics.ALERTS})
    created = ensure_topics(admin, topics.TOPICS, Replication.from_env({}))
    assert created == [s.name for s in topics.TOPICS if s.name != topics.ALERTS]
    specs = {s.name: s for s in topics.TOPICS}
    for t in admin.created:
        assert t.replication_factor == 1
        assert t.config == specs[t.topic].config  # no min.insync.replicas of its own


def test_a_cluster_replicates_every_topic_and_needs_two_in_sync_replicas():
    admin = FakeAdmin()
    rep = Replication.from_env({"IOSCALE_KAFKA_REPLICATION_FACTOR": "3", "IOSCALE_KAFKA_MIN_INSYNC_REPLICAS": "2"})
    ensure_topics(admin, topics.TOPICS, rep)
    assert {t.topic for t in admin.created} == {s.name for s in topics.TOPICS}
    for t in admin.created:
        assert t.replication_factor == 3 and t.config["min.insync.replicas"] == "2"
        assert "retention.ms" in t.config


@pytest.mark.parametrize("env, named", [
    ({"IOSCALE_KAFKA_REPLICATION_FACTOR": "three"}, "IOSCALE_KAFKA_REPLICATION_FACTOR"),
    ({"IOSCALE_KAFKA_MIN_INSYNC_REPLICAS": "2"}, "min.insync.replicas 2"),  # more than the factor (1)
    ({"IOSCALE_KAFKA_REPLICATION_FACTOR": "3", "IOSCALE_KAFKA_MIN_INSYNC_REPLICAS": "0"}, "min.insync.replicas 0"),
])
def test_a_bad_value_is_named(env, named):
    with pytest.raises(ConfigError, match=named):
        Replication.from_env(env)
