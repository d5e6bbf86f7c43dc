"""The state as a projection of Confluent-format log records: replay, foreign records, ids."""

from __future__ import annotations

import json

import pytest

from ioscale.services.registry.errors import StoreError
from ioscale.services.registry.service import Registry
from ioscale.services.registry.store import InMemoryStore, KafkaStore, RegistryState, SchemaStore, encode

V1 = {"type": "record", "name": "R", "fields": [{"name": "a", "type": "int"}]}
V2 = {**V1, "fields": [*V1["fields"], {"name": "b", "type": "long", "default": 0}]}


def body(schema: object) -> dict[str, str]:
    return {"schema": json.dumps(schema)}


def snapshot(state: RegistryState) -> dict[str, object]:
    return {
        "subjects": state.subjects(include_deleted=True),
        "live": state.subjects(),
        "versions": {s: [(v.version, v.id, v.deleted) for v in state.versions(s)] for s in state.subjects(True)},
        "ids": dict(sorted(state.schema_by_id.items())),
        "configs": dict(state.configs),
        "next_id": state.next_id(),
    }


def test_replaying_the_log_rebuilds_the_same_state() -> None:
    store = InMemoryStore()
    reg = Registry(store)
    reg.register("a", body(V1))
    reg.register("a", body(V2))
    reg.register("b", body(V1))
    reg.set_config(None, {"compatibility": "FULL"})
    reg.set_config("b", {"compatibility": "NONE"})
    reg.register("c", body("string"))
    reg.delete_subject("c")
    reg.delete_version("a", "2")
    replayed = RegistryState()
    for key, value in store.log:
        # through the same bytes a KafkaStore would write and read back
        KafkaStore._apply_raw(replayed, encode(key), None if value is None else encode(value), 0)
    assert snapshot(replayed) == snapshot(store.state)
    assert snapshot(replayed)["versions"] == {"a": [(1, 1, False), (2, 2, True)], "b": [(1, 1, False)],
                                              "c": [(1, 3, True)]}
    assert replayed.next_id() == 4


def test_key_bytes_match_confluent() -> None:
    # Compaction keys on these exact bytes, so they must equal what Confluent's Jackson writes.
    assert encode({"keytype": "SCHEMA", "subject": "t-value", "version": 1, "magic": 1}) == \
        b'{"keytype":"SCHEMA","subject":"t-value","version":1,"magic":1}'
    store = InMemoryStore()
    Registry(store).register("t-value", body(V1))
    key, value = store.log[0]
    assert encode(key) == b'{"keytype":"SCHEMA","subject":"t-value","version":1,"magic":1}'
    assert encode(value) == (b'{"subject":"t-value","version":1,"id":1,"schema":'
                             b'"{\\"type\\":\\"record\\",\\"name\\":\\"R\\",\\"fields\\":[{\\"name\\":\\"a\\",'
                             b'\\"type\\":\\"int\\"}]}","deleted":false}')


def test_records_written_by_a_confluent_registry_are_understood() -> None:
    """A _schemas topic written by Confluent (older key shapes, NOOP and MODE records) loads."""
    records = [
        (b'{"keytype":"NOOP","magic":0}', None),
        (b'{"keytype":"CONFIG","subject":null,"magic":0}', b'{"compatibilityLevel":"FULL"}'),
        (b'{"keytype":"SCHEMA","subject":"x-value","version":1,"magic":1}',
         b'{"subject":"x-value","version":1,"id":7,"schema":"\\"string\\"","deleted":false}'),
        (b'{"keytype":"SCHEMA","subject":"x-value","version":2,"magic":1}',
         b'{"subject":"x-value","version":2,"id":9,"schema":"\\"bytes\\"","deleted":false,"references":[]}'),
        (b'{"keytype":"MODE","subject":null,"magic":0}', b'{"mode":"READWRITE"}'),
        (b'{"keytype":"SCHEMA","subject":"p-value","version":1,"magic":1}',
         b'{"subject":"p-value","version":1,"id":10,"schemaType":"PROTOBUF","schema":"syntax = \\"proto3\\";"}'),
        (b'not json', b'{}'),
        (b'{"keytype":"DELETE_SUBJECT","subject":"x-value","magic":0}', b'{"subject":"x-value","version":1}'),
    ]
    state = RegistryState()
    for offset, (k, v) in enumerate(records):
        KafkaStore._apply_raw(state, k, v, offset)
    assert state.configs == {None: "FULL"}
    assert [(v.version, v.id, v.deleted) for v in state.versions("x-value")] == [(1, 7, True), (2, 9, False)]
    assert state.schema_for_id(7) == '"string"'
    assert state.versions("p-value") == []  # not AVRO: not served
    assert state.next_id() == 10
    store = InMemoryStore()
    store.state = state
    # new ids continue after the highest one seen, and ids of equal schemas are reused
    reg = Registry(store)
    assert reg.register("y-value", body("bytes")) == {"id": 9}
    reg.set_config("z-value", {"compatibility": "NONE"})
    assert reg.register("z-value", body({"type": "fixed", "name": "F", "size": 2})) == {"id": 10}


def test_tombstones_free_ids_only_when_no_version_holds_them() -> None:
    store = InMemoryStore()
    reg = Registry(store)
    reg.register("a", body(V1))
    reg.register("b", body(V1))
    reg.delete_subject("a")
    reg.delete_subject("a", permanent=True)
    assert store.state.schema_for_id(1) is not None  # b still holds it
    reg.delete_subject("b")
    reg.delete_subject("b", permanent=True)
    assert store.state.schema_for_id(1) is None
    assert store.state.id_for_schema(json.dumps(V1, separators=(",", ":"))) is None


class FlakyProducer:
    """Appends every record to a fake log, but reports the first delivery as failed: the ambiguous case
    (a timed-out write that did reach the broker)."""

    def __init__(self, log: list[tuple[bytes, bytes | None]]):
        self.log = log
        self.failures_left = 1
        self.pending = []

    def produce(self, topic, key, value, partition, on_delivery):
        self.log.append((key, value))
        self.pending.append(on_delivery)

    def flush(self, timeout):
        from confluent_kafka import KafkaError

        for cb in self.pending:
            if self.failures_left:
                self.failures_left -= 1
                cb(KafkaError(KafkaError._MSG_TIMED_OUT), None)
            else:
                cb(None, type("Msg", (), {"offset": lambda self: 0})())
        self.pending.clear()
        return 0


def test_failed_write_forces_a_re_read_before_the_next_decision() -> None:
    fake_log: list[tuple[bytes, bytes | None]] = []
    store = object.__new__(KafkaStore)  # no broker: wire the parts _write and _resync use
    SchemaStore.__init__(store)
    store.topic, store.timeout_s, store._resync_needed = "_schemas", 1.0, False
    store._producer = FlakyProducer(fake_log)

    def load(state: RegistryState) -> None:
        for offset, (k, v) in enumerate(fake_log):
            KafkaStore._apply_raw(state, k, v, offset)

    store._load = load
    reg = Registry(store)
    with pytest.raises(StoreError) as info:
        reg.register("s-value", body(V1))
    assert (info.value.status, info.value.error_code) == (500, 50001)
    assert store.state.versions("s-value") == []  # not applied: the outcome is unknown
    # The record did land. The next write re-reads the log first, so it answers the same id and
    # does not write a duplicate version.
    assert reg.register("s-value", body(V1)) == {"id": 1}
    assert reg.register("s-value", body(V2)) == {"id": 2}
    assert [(v.version, v.id) for v in store.state.versions("s-value")] == [(1, 1), (2, 2)]
    assert len(fake_log) == 2
