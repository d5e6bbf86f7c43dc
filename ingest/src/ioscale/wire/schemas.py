"""The Avro schemas in `schema/`, which topic each belongs to, and their registration.

Subjects follow Confluent's TopicNameStrategy (`<topic>-value`), so ClickHouse's AvroConfluent,
Flink and any Confluent client find them without configuration.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import requests

from ioscale.errors import IoscaleError
from ioscale.paths import repo_root
from ioscale.wire import topics

#: topic -> schema file in `schema/`
TOPIC_SCHEMAS: dict[str, str] = {
    topics.RUNS: "run_event.avsc",
    topics.IO_SAMPLES: "io_sample.avsc",
    topics.CPU_SAMPLES: "cpu_sample.avsc",
    topics.PORT_SAMPLES: "port_sample.avsc",
}

REGISTRY_CONTENT_TYPE = "application/vnd.schemaregistry.v1+json"


def subject_for(topic: str) -> str:
    return f"{topic}-value"


@cache
def load_schema(file_name: str) -> dict:
    path = repo_root() / "schema" / file_name
    return json.loads(path.read_text())


def schema_for_topic(topic: str) -> dict:
    return load_schema(TOPIC_SCHEMAS[topic])


@dataclass(frozen=True)
class Registered:
    topic: str
    subject: str
    schema_id: int


def register(registry_url: str, topic: str, schema: dict, timeout_s: float = 10.0) -> int:
    """Register ``schema`` under the topic's subject; returns the global id (same schema, same id)."""
    subject = subject_for(topic)
    resp = requests.post(
        f"{registry_url}/subjects/{subject}/versions",
        data=json.dumps({"schema": json.dumps(schema)}),
        headers={"Content-Type": REGISTRY_CONTENT_TYPE},
        timeout=timeout_s,
    )
    if resp.status_code != 200:
        raise IoscaleError(
            f"registering {subject} at {registry_url} failed: HTTP {resp.status_code} {resp.text[:500]}",
            "an incompatible schema change needs a new field with a default (BACKWARD compatibility)",
        )
    return int(resp.json()["id"])


def fetch_schema(registry_url: str, schema_id: int, timeout_s: float = 10.0) -> dict:
    """The schema registered under a global id (a message's writer schema, from its frame header)."""
    try:
        resp = requests.get(f"{registry_url}/schemas/ids/{schema_id}", timeout=timeout_s)
    except requests.RequestException as e:
        raise IoscaleError(f"cannot reach the schema registry at {registry_url}: {e}",
                           "check that it is up (`ioscale stack status registry`)") from e
    if resp.status_code != 200:
        raise IoscaleError(f"schema id {schema_id} at {registry_url}: HTTP {resp.status_code} {resp.text[:500]}",
                           "the records were written against another registry: pass its --registry-url")
    return json.loads(resp.json()["schema"])


def register_all(registry_url: str) -> list[Registered]:
    return [
        Registered(topic, subject_for(topic), register(registry_url, topic, load_schema(f)))
        for topic, f in TOPIC_SCHEMAS.items()
    ]
