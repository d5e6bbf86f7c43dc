"""The registry against the real broker: the Kafka store survives a rebuild, the process survives a
restart with the same ids, and the stack's registry answers Confluent clients.

Every test uses its own topic (``itest-schemas-<random>``) and deletes it afterwards, so the stack's
real ``_schemas`` topic is never touched; the test against the stack's running registry uses a
subject of its own (``itest-registry-<random>-value``) and deletes it permanently at the end.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest
import requests

from ioscale.services.registry.service import Registry
from ioscale.services.registry.store import KafkaStore

from isolation import unique

CT = {"Content-Type": "application/vnd.schemaregistry.v1+json"}
V1 = {"type": "record", "name": "ItSample", "namespace": "io.ioscale.it",
      "fields": [{"name": "host", "type": "string"}, {"name": "ops", "type": "long"}]}
V2 = {**V1, "fields": [*V1["fields"], {"name": "vm", "type": "string", "default": ""}]}
V2_REQUIRED = {**V1, "fields": [*V1["fields"], {"name": "vm", "type": "string"}]}


def body(schema: object) -> dict[str, str]:
    return {"schema": json.dumps(schema)}


@pytest.fixture
def topic(stack) -> Iterator[str]:
    from confluent_kafka.admin import AdminClient

    name = unique("schemas")
    yield name
    admin = AdminClient({"bootstrap.servers": stack.settings.kafka_bootstrap})
    for future in admin.delete_topics([name], operation_timeout=15).values():
        try:
            future.result(timeout=20)
        except Exception:
            pass  # never created (a test failed early)


def _snapshot(store: KafkaStore) -> dict[str, object]:
    s = store.state
    return {
        "versions": {subj: [(v.version, v.id, v.schema, v.deleted) for v in s.versions(subj)] for subj in s.subjects(True)},
        "configs": dict(s.configs),
        "next_id": s.next_id(),
    }


def test_kafka_store_rebuilds_the_same_state(stack, topic: str) -> None:
    from confluent_kafka.admin import AdminClient, ConfigResource, ResourceType

    bootstrap = stack.settings.kafka_bootstrap
    store = KafkaStore(bootstrap, topic, timeout_s=15)
    assert store.load_stats.records == 0
    reg = Registry(store)
    assert reg.register("a-value", body(V1)) == {"id": 1}
    assert reg.register("b-value", body(V1)) == {"id": 1}
    assert reg.register("a-value", body(V2)) == {"id": 2}
    reg.set_config(None, {"compatibility": "FULL"})
    reg.set_config("b-value", {"compatibility": "NONE"})
    assert reg.register("c-value", body("string")) == {"id": 3}
    reg.delete_subject("c-value")
    before = _snapshot(store)
    store.close()

    rebuilt = KafkaStore(bootstrap, topic, timeout_s=15)
    assert rebuilt.load_stats.records == 7  # 4 schemas, 2 configs, 1 delete-subject
    assert _snapshot(rebuilt) == before
    reg2 = Registry(rebuilt)
    assert reg2.register("a-value", body(V2)) == {"id": 2}  # dedupe still works after the rebuild
    assert reg2.register("d-value", body("bytes")) == {"id": 4}  # ids continue
    assert reg2.level_for("a-value") == "FULL"
    rebuilt.close()

    # the topic has Confluent's layout
    admin = AdminClient({"bootstrap.servers": bootstrap})
    meta = admin.list_topics(topic, timeout=10).topics[topic]
    assert len(meta.partitions) == 1
    res = ConfigResource(ResourceType.TOPIC, topic)
    assert admin.describe_configs([res])[res].result(timeout=10)["cleanup.policy"].value == "compact"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start_registry(stack, port: int, topic: str, log_path) -> subprocess.Popen:
    log = open(log_path, "ab")
    python = str(stack.settings.venv_python) if stack.settings.venv_python.exists() else sys.executable
    return subprocess.Popen(
        [python, "-m", "ioscale.services.registry", "--host", "127.0.0.1", "--port", str(port),
         "--bootstrap", stack.settings.kafka_bootstrap, "--topic", topic],
        stdout=log, stderr=subprocess.STDOUT, env={**os.environ, "PYTHONUNBUFFERED": "1"}, start_new_session=True,
    )


def _wait_ready(url: str, proc: subprocess.Popen, timeout_s: float = 60) -> float:
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout_s:
        assert proc.poll() is None, "registry exited while starting"
        try:
            if requests.get(f"{url}/subjects", timeout=1).status_code == 200:
                return time.monotonic() - t0
        except requests.ConnectionError:
            pass
        time.sleep(0.05)
    raise AssertionError(f"registry at {url} not ready after {timeout_s}s")


def _stop(proc: subprocess.Popen) -> int:
    os.killpg(proc.pid, signal.SIGTERM)
    return proc.wait(timeout=15)


def test_registry_process_restarts_with_the_same_ids(stack, topic: str, tmp_path) -> None:
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    proc = _start_registry(stack, port, topic, tmp_path / "registry.log")
    try:
        _wait_ready(url, proc)
        ids = [requests.post(f"{url}/subjects/s{i}-value/versions", json=body({**V1, "doc": f"v{i}"}),
                             headers=CT, timeout=10).json()["id"] for i in range(5)]
        assert ids == [1, 2, 3, 4, 5]
        assert requests.put(f"{url}/config/s0-value", json={"compatibility": "FORWARD"}, headers=CT, timeout=10).ok
        assert _stop(proc) == 0

        proc = _start_registry(stack, port, topic, tmp_path / "registry.log")
        ready_s = _wait_ready(url, proc)
        assert ready_s < 30
        for i, schema_id in enumerate(ids):
            got = requests.get(f"{url}/schemas/ids/{schema_id}", timeout=5).json()
            assert json.loads(got["schema"])["doc"] == f"v{i}"
        assert requests.get(f"{url}/subjects", timeout=5).json() == [f"s{i}-value" for i in range(5)]
        assert requests.get(f"{url}/config/s0-value", timeout=5).json() == {"compatibilityLevel": "FORWARD"}
        again = requests.post(f"{url}/subjects/s3-value/versions", json=body({**V1, "doc": "v3"}), headers=CT, timeout=10)
        assert again.json() == {"id": 4}
        fresh = requests.post(f"{url}/subjects/new-value/versions", json=body("string"), headers=CT, timeout=10)
        assert fresh.json() == {"id": 6}
    finally:
        if proc.poll() is None:
            _stop(proc)
    log_text = (tmp_path / "registry.log").read_text()
    assert "read 6 records from" in log_text, log_text[-2000:]


def test_stack_registry_serves_confluent_clients(stack) -> None:
    pytest.importorskip("authlib", reason="confluent_kafka.schema_registry needs Authlib, httpx2, attrs, cachetools")
    from confluent_kafka.schema_registry import Schema, SchemaRegistryClient
    from confluent_kafka.schema_registry.error import SchemaRegistryError

    url = stack.settings.url("registry")
    subject = f"{unique('registry')}-value"
    client = SchemaRegistryClient({"url": url, "max.retries": 0})
    try:
        schema_id = client.register_schema(subject, Schema(json.dumps(V1), "AVRO"))
        assert client.register_schema(subject, Schema(json.dumps(V1, indent=1), "AVRO")) == schema_id
        # what ClickHouse's AvroConfluent and the Flink jobs call
        got = requests.get(f"{url}/schemas/ids/{schema_id}", timeout=5)
        assert got.status_code == 200
        assert json.loads(got.json()["schema"]) == V1
        assert client.test_compatibility(subject, Schema(json.dumps(V2), "AVRO")) is True
        with pytest.raises(SchemaRegistryError) as info:
            client.register_schema(subject, Schema(json.dumps(V2_REQUIRED), "AVRO"))
        assert info.value.http_status_code == 409
        v2_id = client.register_schema(subject, Schema(json.dumps(V2), "AVRO"))
        latest = client.get_latest_version(subject)
        assert (latest.version, latest.schema_id) == (2, v2_id)
    finally:
        try:
            client.delete_subject(subject)
            client.delete_subject(subject, permanent=True)
        except SchemaRegistryError:
            pass
