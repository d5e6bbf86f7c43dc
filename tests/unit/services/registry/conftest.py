"""Fixtures: the real registry HTTP server on an ephemeral port, backed by an in-memory store."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import requests

from ioscale.services.registry.server import make_server
from ioscale.services.registry.service import Registry
from ioscale.services.registry.store import InMemoryStore

CT = "application/vnd.schemaregistry.v1+json"


@dataclass
class Answer:
    status: int
    body: Any
    headers: Any


class Api:
    """Thin JSON client: returns status and decoded body, never raises on HTTP errors."""

    def __init__(self, url: str):
        self.url = url
        self.session = requests.Session()

    def call(self, method: str, path: str, body: Any = None, raw: str | None = None) -> Answer:
        data = raw if raw is not None else (json.dumps(body) if body is not None else None)
        resp = self.session.request(method, self.url + path, data=data, headers={"Content-Type": CT}, timeout=10)
        try:
            decoded = resp.json()
        except ValueError:
            decoded = resp.text
        return Answer(resp.status_code, decoded, resp.headers)

    def get(self, path: str) -> Answer:
        return self.call("GET", path)

    def post(self, path: str, body: Any = None, raw: str | None = None) -> Answer:
        return self.call("POST", path, body, raw)

    def put(self, path: str, body: Any = None) -> Answer:
        return self.call("PUT", path, body)

    def delete(self, path: str) -> Answer:
        return self.call("DELETE", path)

    def register(self, subject: str, schema: Any) -> Answer:
        text = schema if isinstance(schema, str) else json.dumps(schema)
        return self.post(f"/subjects/{subject}/versions", {"schema": text})


@dataclass
class RunningRegistry:
    url: str
    store: InMemoryStore
    registry: Registry
    api: Api


@pytest.fixture
def running() -> Iterator[RunningRegistry]:
    store = InMemoryStore()
    registry = Registry(store)
    server = make_server(registry, "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield RunningRegistry(server.url, store, registry, Api(server.url))
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


@pytest.fixture
def api(running: RunningRegistry) -> Api:
    return running.api

