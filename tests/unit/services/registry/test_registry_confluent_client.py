"""confluent-kafka's own SchemaRegistryClient and Avro serde against the registry on an ephemeral port."""

from __future__ import annotations

import json
import struct

import pytest

pytest.importorskip("authlib", reason="confluent_kafka.schema_registry needs Authlib, httpx2, attrs, cachetools")

from confluent_kafka.schema_registry import Schema, SchemaRegistryClient  # noqa: E402
from confluent_kafka.schema_registry.avro import AvroDeserializer, AvroSerializer  # noqa: E402
from confluent_kafka.schema_registry.error import SchemaRegistryError  # noqa: E402
from confluent_kafka.serialization import MessageField, SerializationContext  # noqa: E402

V1 = {"type": "record", "name": "Sample", "namespace": "io.ioscale.test",
      "fields": [{"name": "host", "type": "string"}, {"name": "ops", "type": "long"}]}
V2 = {**V1, "fields": [*V1["fields"], {"name": "vm", "type": "string", "default": ""}]}
V2_REQUIRED = {**V1, "fields": [*V1["fields"], {"name": "vm", "type": "string"}]}


@pytest.fixture
def client(running) -> SchemaRegistryClient:
    # max.retries 0: an error answer must surface at once, not after back-off
    return SchemaRegistryClient({"url": running.url, "max.retries": 0})


def test_register_get_and_lookup(client: SchemaRegistryClient) -> None:
    schema_id = client.register_schema("samples-value", Schema(json.dumps(V1), "AVRO"))
    assert schema_id == 1
    assert client.register_schema("other-value", Schema(json.dumps(V1, indent=2), "AVRO")) == 1
    fetched = client.get_schema(schema_id)
    assert fetched.schema_type == "AVRO"
    assert json.loads(fetched.schema_str) == V1
    latest = client.get_latest_version("samples-value")
    assert (latest.subject, latest.version, latest.schema_id) == ("samples-value", 1, 1)
    found = client.lookup_schema("samples-value", Schema(json.dumps(V1), "AVRO"))
    assert (found.subject, found.version, found.schema_id) == ("samples-value", 1, 1)
    assert client.get_subjects() == ["other-value", "samples-value"]
    assert client.get_versions("samples-value") == [1]
    assert client.get_version("samples-value", 1).schema_id == 1


def test_compatibility_calls(client: SchemaRegistryClient) -> None:
    client.register_schema("samples-value", Schema(json.dumps(V1), "AVRO"))
    assert client.test_compatibility("samples-value", Schema(json.dumps(V2), "AVRO")) is True
    assert client.test_compatibility("samples-value", Schema(json.dumps(V2_REQUIRED), "AVRO")) is False
    assert client.get_compatibility() == "BACKWARD"
    assert client.set_compatibility(level="FORWARD") == {"compatibility": "FORWARD"}
    assert client.get_compatibility() == "FORWARD"
    assert client.set_compatibility("samples-value", "NONE") == {"compatibility": "NONE"}
    assert client.get_compatibility("samples-value") == "NONE"
    assert client.test_compatibility("samples-value", Schema('"string"', "AVRO")) is True
    assert client.get_config().compatibility_level.value == "FORWARD"


def test_errors_carry_confluent_codes(client: SchemaRegistryClient) -> None:
    client.register_schema("samples-value", Schema(json.dumps(V1), "AVRO"))
    with pytest.raises(SchemaRegistryError) as info:
        client.register_schema("samples-value", Schema(json.dumps(V2_REQUIRED), "AVRO"))
    assert (info.value.http_status_code, info.value.error_code) == (409, 409)
    assert "READER_FIELD_MISSING_DEFAULT_VALUE" in info.value.error_message
    with pytest.raises(SchemaRegistryError) as info:
        client.get_schema(42)
    assert (info.value.http_status_code, info.value.error_code) == (404, 40403)
    with pytest.raises(SchemaRegistryError) as info:
        client.get_latest_version("nope")
    assert info.value.error_code == 40401
    with pytest.raises(SchemaRegistryError) as info:
        client.register_schema("x", Schema("{broken", "AVRO"))
    assert (info.value.http_status_code, info.value.error_code) == (422, 42201)
    with pytest.raises(SchemaRegistryError) as info:
        client.set_compatibility(level="SOMETIMES")
    assert info.value.error_code == 42203
    with pytest.raises(SchemaRegistryError) as info:
        client.get_compatibility("samples-value")
    assert info.value.error_code == 40408


def test_delete_subject(client: SchemaRegistryClient) -> None:
    client.register_schema("samples-value", Schema(json.dumps(V1), "AVRO"))
    client.register_schema("samples-value", Schema(json.dumps(V2), "AVRO"))
    assert client.delete_subject("samples-value") == [1, 2]
    assert client.get_subjects() == []
    assert client.delete_subject("samples-value", permanent=True) == [1, 2]


def test_avro_serializer_round_trip(running, client: SchemaRegistryClient) -> None:
    """The Confluent wire format end to end: magic byte 0, 4-byte schema id, Avro body."""
    serializer = AvroSerializer(client, json.dumps(V1))
    ctx = SerializationContext("samples", MessageField.VALUE)
    payload = serializer({"host": "h1", "ops": 123}, ctx)
    assert payload[0] == 0
    (schema_id,) = struct.unpack(">I", payload[1:5])
    assert schema_id == 1
    assert running.api.get("/subjects").body == ["samples-value"]
    # a reader on the newer schema resolves old data through the registry (new field takes its default)
    client.register_schema("samples-value", Schema(json.dumps(V2), "AVRO"))
    deserializer = AvroDeserializer(client, json.dumps(V2))
    assert deserializer(payload, ctx) == {"host": "h1", "ops": 123, "vm": ""}
