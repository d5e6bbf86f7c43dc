"""Registry state (subjects, versions, ids, compatibility configs) and where it is kept.

The state is a projection of a log of Confluent-format records, the same records Confluent's
registry writes to its compacted ``_schemas`` topic (one partition, so the log order is the write
order). Keys and values are compact JSON, key fields in Confluent's order so compaction and a real
Confluent registry treat them as the same keys:

    key   {"keytype":"SCHEMA","subject":S,"version":V,"magic":1}
    value {"subject":S,"version":V,"id":N,"schema":CANONICAL,"deleted":false}   null = permanently deleted
    key   {"keytype":"CONFIG","subject":S,"magic":0}         (global: {"keytype":"CONFIG","magic":0})
    value {"subject":S,"compatibilityLevel":"BACKWARD"}       null = subject config removed
    key   {"keytype":"DELETE_SUBJECT","subject":S,"magic":0}
    value {"subject":S,"version":V}                           soft-delete versions <= V
    other keytypes (NOOP, MODE, CONTEXT, CLEAR_SUBJECT) are read and ignored

``InMemoryStore`` applies records directly (tests). ``KafkaStore`` rebuilds the state by reading
the topic to its end before the server listens, and writes every change synchronously (produce,
flush, delivery confirmed with acks=all by an idempotent producer) before the state changes and the
HTTP answer goes out: what a client was told is durable, and a restart gives the same ids.

One registry process writes a topic (as with Confluent's single leader); a second instance on the
same topic would not see the first one's writes after its start.
"""

from __future__ import annotations

import json
import logging
import threading
import time
import uuid
from abc import ABC, abstractmethod
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from ioscale.services.registry.errors import StoreError
from ioscale.wire.topics import Replication

log = logging.getLogger("ioscale.registry.store")

DEFAULT_TOPIC = "_schemas"


@dataclass(frozen=True)
class SchemaValue:
    subject: str
    version: int
    id: int
    schema: str  # canonical form
    deleted: bool = False

    def to_record(self) -> dict[str, Any]:
        return {"subject": self.subject, "version": self.version, "id": self.id, "schema": self.schema,
                "deleted": self.deleted}


# -- record formats ----------------------------------------------------------------------------------

def schema_key(subject: str, version: int) -> dict[str, Any]:
    return {"keytype": "SCHEMA", "subject": subject, "version": version, "magic": 1}


def config_key(subject: str | None) -> dict[str, Any]:
    if subject is None:
        return {"keytype": "CONFIG", "magic": 0}
    return {"keytype": "CONFIG", "subject": subject, "magic": 0}


def config_value(subject: str | None, level: str) -> dict[str, Any]:
    if subject is None:
        return {"compatibilityLevel": level}
    return {"subject": subject, "compatibilityLevel": level}


def delete_subject_key(subject: str) -> dict[str, Any]:
    return {"keytype": "DELETE_SUBJECT", "subject": subject, "magic": 0}


def encode(record: dict[str, Any]) -> bytes:
    return json.dumps(record, separators=(",", ":"), ensure_ascii=False).encode()


# -- state -------------------------------------------------------------------------------------------

class RegistryState:
    """Indexes over the applied records. Mutated only through ``apply`` by the store's writer."""

    def __init__(self) -> None:
        self.versions_by_subject: dict[str, dict[int, SchemaValue]] = {}
        self.schema_by_id: dict[int, str] = {}
        self.keys_by_id: dict[int, set[tuple[str, int]]] = {}
        self.id_by_schema: dict[str, int] = {}
        self.configs: dict[str | None, str] = {}
        self.max_id = 0
        self.records_applied = 0
        self._mutex = threading.Lock()  # readers that iterate take it; single dict gets need not

    # -- applying the log ---------------------------------------------------------------------------
    def apply(self, key: dict[str, Any], value: dict[str, Any] | None) -> None:
        keytype = key.get("keytype")
        with self._mutex:
            self.records_applied += 1
            if keytype == "SCHEMA":
                self._apply_schema(str(key["subject"]), int(key["version"]), value)
            elif keytype == "CONFIG":
                subject = key.get("subject")
                if value is None or value.get("compatibilityLevel") is None:
                    self.configs.pop(subject, None)
                else:
                    self.configs[subject] = str(value["compatibilityLevel"])
            elif keytype == "DELETE_SUBJECT" and value is not None:
                self._mark_deleted(str(value["subject"]), int(value["version"]))
            # NOOP, MODE, CONTEXT, CLEAR_SUBJECT, ...: nothing this registry keeps

    def _apply_schema(self, subject: str, version: int, value: dict[str, Any] | None) -> None:
        versions = self.versions_by_subject.setdefault(subject, {})
        old = versions.pop(version, None)
        if old is not None:
            self._unindex(old)
        if value is None:
            if not versions:
                del self.versions_by_subject[subject]
            return
        if value.get("schemaType", "AVRO") != "AVRO":
            log.warning("ignoring %s schema %s v%s in the log: only AVRO is served", value.get("schemaType"), subject, version)
            return
        sv = SchemaValue(subject, version, int(value["id"]), str(value["schema"]), bool(value.get("deleted", False)))
        versions[version] = sv
        self.schema_by_id[sv.id] = sv.schema
        self.keys_by_id.setdefault(sv.id, set()).add((subject, version))
        self.id_by_schema.setdefault(sv.schema, sv.id)
        self.max_id = max(self.max_id, sv.id)

    def _unindex(self, old: SchemaValue) -> None:
        keys = self.keys_by_id.get(old.id)
        if keys is not None:
            keys.discard((old.subject, old.version))
            if not keys:  # no version holds this id any more: it is gone, as in Confluent
                del self.keys_by_id[old.id]
                self.schema_by_id.pop(old.id, None)
                if self.id_by_schema.get(old.schema) == old.id:
                    del self.id_by_schema[old.schema]

    def _mark_deleted(self, subject: str, up_to_version: int) -> None:
        versions = self.versions_by_subject.get(subject, {})
        for v, sv in list(versions.items()):
            if v <= up_to_version and not sv.deleted:
                versions[v] = SchemaValue(sv.subject, sv.version, sv.id, sv.schema, True)

    # -- queries ------------------------------------------------------------------------------------
    def versions(self, subject: str) -> list[SchemaValue]:
        """Every version of ``subject``, soft-deleted ones included, oldest first."""
        with self._mutex:
            return sorted(self.versions_by_subject.get(subject, {}).values(), key=lambda v: v.version)

    def get(self, subject: str, version: int) -> SchemaValue | None:
        return self.versions_by_subject.get(subject, {}).get(version)

    def subjects(self, include_deleted: bool = False) -> list[str]:
        with self._mutex:
            return sorted(
                s for s, vs in self.versions_by_subject.items()
                if include_deleted or any(not v.deleted for v in vs.values())
            )

    def schema_for_id(self, schema_id: int) -> str | None:
        return self.schema_by_id.get(schema_id)

    def keys_for_id(self, schema_id: int) -> list[tuple[str, int]]:
        with self._mutex:
            return sorted(self.keys_by_id.get(schema_id, ()))

    def id_for_schema(self, canonical: str) -> int | None:
        return self.id_by_schema.get(canonical)

    def config(self, subject: str | None) -> str | None:
        return self.configs.get(subject)

    def next_id(self) -> int:
        return self.max_id + 1

    def counts(self) -> dict[str, int]:
        with self._mutex:
            return {
                "subjects": sum(1 for vs in self.versions_by_subject.values() if any(not v.deleted for v in vs.values())),
                "versions": sum(len(vs) for vs in self.versions_by_subject.values()),
                "schemas": len(self.schema_by_id),
            }


# -- stores ------------------------------------------------------------------------------------------

class SchemaStore(ABC):
    """The registry's state plus its persistence.

    Reads go to ``state`` without locking. A read-modify-write (register, delete) runs inside
    ``writing()``, so version numbers and ids are assigned once and from an up-to-date state; every
    write is durable before ``state`` changes.
    """

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.state = RegistryState()

    @contextmanager
    def writing(self) -> Iterator[RegistryState]:
        """Hold the write lock; yields the state to decide on (current as of now)."""
        with self.lock:
            self._before_write()
            yield self.state

    def _before_write(self) -> None:
        pass

    @abstractmethod
    def _write(self, key: dict[str, Any], value: dict[str, Any] | None) -> None:
        """Persist one record, then apply it to ``state``; raise ``StoreError`` if not persisted."""

    def put_schema(self, value: SchemaValue) -> None:
        self._write(schema_key(value.subject, value.version), value.to_record())

    def tombstone_schema(self, subject: str, version: int) -> None:
        self._write(schema_key(subject, version), None)

    def delete_subject(self, subject: str, up_to_version: int) -> None:
        self._write(delete_subject_key(subject), {"subject": subject, "version": up_to_version})

    def put_config(self, subject: str | None, level: str) -> None:
        self._write(config_key(subject), config_value(subject, level))

    def delete_config(self, subject: str | None) -> None:
        self._write(config_key(subject), None)

    def describe(self) -> str:
        return type(self).__name__

    def close(self) -> None:
        pass


class InMemoryStore(SchemaStore):
    """State only, lost at exit: for unit tests and throwaway demos."""

    def __init__(self) -> None:
        super().__init__()
        self.log: list[tuple[dict[str, Any], dict[str, Any] | None]] = []  # what would have gone to Kafka

    def _write(self, key: dict[str, Any], value: dict[str, Any] | None) -> None:
        with self.lock:
            self.log.append((key, value))
            self.state.apply(key, value)


@dataclass(frozen=True)
class LoadStats:
    records: int
    end_offset: int
    seconds: float


class KafkaStore(SchemaStore):
    """State persisted in a compacted single-partition Kafka topic, in Confluent's record format."""

    def __init__(self, bootstrap: str, topic: str = DEFAULT_TOPIC, timeout_s: float = 30.0,
                 startup_timeout_s: float = 60.0, client_config: dict[str, Any] | None = None,
                 replication: Replication = Replication()):
        super().__init__()
        self.bootstrap = bootstrap
        self.replication = replication
        self.topic = topic
        self.timeout_s = timeout_s
        # log_level 3: librdkafka errors reach the registry log, its chatter does not.
        self._client_config = {"bootstrap.servers": bootstrap, "log_level": 3, **(client_config or {})}
        self._ensure_topic(startup_timeout_s)
        self.load_stats = self._load(self.state)
        self._producer = self._new_producer()
        self._resync_needed = False

    def describe(self) -> str:
        return f"KafkaStore(topic={self.topic}, bootstrap={self.bootstrap})"

    # -- topic --------------------------------------------------------------------------------------
    def _ensure_topic(self, startup_timeout_s: float) -> None:
        from confluent_kafka import KafkaError, KafkaException
        from confluent_kafka.admin import AdminClient, ConfigResource, NewTopic, ResourceType

        # log_level 0: while Kafka starts librdkafka would log every refused connect (20 lines/s);
        # this loop reports instead, every 10 s and on giving up.
        admin = AdminClient({**self._client_config, "log_level": 0})
        t0 = time.monotonic()
        deadline, next_note = t0 + startup_timeout_s, t0 + 10
        last: Exception | None = None
        while True:
            try:
                md = admin.list_topics(timeout=5)
                if self.topic not in md.topics:
                    # Confluent's layout: one partition (a total order of writes), compacted (keep the
                    # latest value per key forever), replicated as the cluster's other topics.
                    rep = self.replication
                    futures = admin.create_topics([NewTopic(
                        self.topic, num_partitions=1, replication_factor=rep.factor,
                        config={"cleanup.policy": "compact", **rep.topic_config()})], operation_timeout=10)
                    try:
                        futures[self.topic].result(timeout=15)
                        log.info("created topic %s (1 partition, cleanup.policy=compact, RF %d, min ISR %d)",
                                 self.topic, rep.factor, rep.min_insync)
                    except KafkaException as e:
                        if e.args[0].code() != KafkaError.TOPIC_ALREADY_EXISTS:
                            raise
                md = admin.list_topics(self.topic, timeout=5)
                meta = md.topics[self.topic]
                if meta.error is not None:
                    raise KafkaException(meta.error)
                partitions = len(meta.partitions)
                res = ConfigResource(ResourceType.TOPIC, self.topic)
                policy = admin.describe_configs([res])[res].result(timeout=10)["cleanup.policy"].value
                break
            except KafkaException as e:
                last = e
                now = time.monotonic()
                if now > deadline:
                    raise StoreError(
                        f"Kafka at {self.bootstrap} did not answer within {startup_timeout_s:.0f}s "
                        f"(last error: {last})") from None
                if now > next_note:
                    log.info("waiting for Kafka at %s (%.0fs): %s", self.bootstrap, now - t0, last)
                    next_note = now + 10
                time.sleep(1.0)
        if partitions != 1:
            raise StoreError(f"topic {self.topic} has {partitions} partitions; the schema log must have exactly 1")
        if "compact" not in policy.split(","):
            raise StoreError(
                f"topic {self.topic} has cleanup.policy={policy}; it must be 'compact' or schemas would "
                f"be deleted by retention")

    # -- reading ------------------------------------------------------------------------------------
    def _load(self, state: RegistryState) -> LoadStats:
        """Apply every record of the topic, from the beginning to the end offset seen at the start."""
        from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaError, KafkaException, TopicPartition

        t0 = time.monotonic()
        consumer = Consumer({
            **self._client_config,
            # assign() only: no group membership, no offset commits; the id just has to be unique.
            "group.id": f"ioscale-registry-{uuid.uuid4()}",
            "enable.auto.commit": False,
            "enable.partition.eof": True,
            "auto.offset.reset": "earliest",
            "fetch.wait.max.ms": 50,
        })
        records = 0
        try:
            low, high = consumer.get_watermark_offsets(TopicPartition(self.topic, 0), timeout=self.timeout_s)
            if high > low:
                consumer.assign([TopicPartition(self.topic, 0, OFFSET_BEGINNING)])
                deadline = time.monotonic() + max(self.timeout_s, 120.0)
                done = False
                while not done:
                    if time.monotonic() > deadline:
                        raise StoreError(f"reading {self.topic} did not reach offset {high} in time")
                    # consume() waits for a full batch or the timeout: keep the timeout short.
                    for msg in consumer.consume(num_messages=5000, timeout=0.05):
                        err = msg.error()
                        if err is not None:
                            if err.code() == KafkaError._PARTITION_EOF:
                                done = True
                                continue
                            raise KafkaException(err)
                        self._apply_raw(state, msg.key(), msg.value(), msg.offset())
                        records += 1
                        if msg.offset() >= high - 1:
                            done = True
        except KafkaException as e:
            raise StoreError(f"reading {self.topic} failed: {e}") from None
        finally:
            consumer.close()
        return LoadStats(records, high, time.monotonic() - t0)

    @staticmethod
    def _apply_raw(state: RegistryState, key: bytes | None, value: bytes | None, offset: int) -> None:
        try:
            k = json.loads(key) if key else None
            v = json.loads(value) if value is not None else None
            if not isinstance(k, dict):
                raise ValueError("key is not a JSON object")
            state.apply(k, v)
        except (ValueError, KeyError, TypeError) as e:
            # Confluent skips records it cannot deserialize too; one bad record must not brick the registry.
            log.warning("skipping unreadable record at offset %d: %s", offset, e)

    # -- writing ------------------------------------------------------------------------------------
    def _new_producer(self):
        from confluent_kafka import Producer

        return Producer({
            **self._client_config,
            "acks": "all",
            "enable.idempotence": True,
            "linger.ms": 0,  # one record per write, sent at once
            "message.timeout.ms": int(self.timeout_s * 1000),
        })

    def _before_write(self) -> None:
        if self._resync_needed:
            self._resync()

    def _write(self, key: dict[str, Any], value: dict[str, Any] | None) -> None:
        with self.lock:
            if self._resync_needed:
                # An earlier write of this operation failed; the caller decided on a stale state.
                raise StoreError(f"the Kafka store ({self.topic}) must be re-read after a failed write; retry")
            outcome: dict[str, Any] = {}

            def delivered(err, msg) -> None:
                outcome["error"] = err
                outcome["offset"] = msg.offset() if err is None else None

            try:
                self._producer.produce(self.topic, key=encode(key), value=None if value is None else encode(value),
                                       partition=0, on_delivery=delivered)
                # Longer than message.timeout.ms, so the delivery report always arrives: success or error.
                self._producer.flush(self.timeout_s + 5)
            except Exception as e:  # BufferError, KafkaException
                outcome.setdefault("error", e)
            if "error" not in outcome or outcome["error"] is not None:
                # The record may or may not be in the log: re-read the log before the next decision.
                self._resync_needed = True
                err = outcome.get("error", "no delivery report")
                if getattr(err, "fatal", lambda: False)():
                    self._producer = self._new_producer()
                raise StoreError(f"write to the Kafka store ({self.topic}) failed: {err}")
            self.state.apply(key, value)

    def _resync(self) -> None:
        fresh = RegistryState()
        self._load(fresh)
        self.state = fresh  # one reference swap: readers see the old or the new state, never half
        self._resync_needed = False
        log.info("re-read %s after a failed write: %s", self.topic, fresh.counts())

    def close(self) -> None:
        producer = getattr(self, "_producer", None)
        if producer is not None:
            producer.flush(5)
