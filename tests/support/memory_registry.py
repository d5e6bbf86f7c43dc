"""The project's own schema registry server on a spare port, in memory: for tests that need a real registry but
no stack (the producers' tests against an unreachable Kafka)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from ioscale.services.registry.server import make_server
from ioscale.services.registry.service import Registry
from ioscale.services.registry.store import InMemoryStore


@contextmanager
def memory_registry() -> Iterator[str]:
    """Yields the registry's URL; stops it afterwards."""
    server = make_server(Registry(InMemoryStore()), "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield server.url
    finally:
        server.shutdown()
        server.server_close()
