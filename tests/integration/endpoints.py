"""Where the services under test are, and how to log in: the ONE place integration tests learn it.

The `stack` fixture (conftest.py) brings up (or reuses) the project's local stack, or with IOSCALE_STACK=containers
the same topology in containers (containers.py); either way tests get a `StackEndpoints` and need no change.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from ioscale.stack.settings import CLICKHOUSE_USERS, SUPERSET_ADMIN_USER, StackSettings


@dataclass(frozen=True)
class StackEndpoints:
    settings: StackSettings
    secrets: dict[str, str]
    kafka_bootstrap: str
    registry_url: str
    clickhouse_host: str
    clickhouse_http_port: int
    clickhouse_tcp_port: int
    flink_url: str
    superset_url: str
    started_here: bool = False
    extra: dict[str, str] = field(default_factory=dict)
    #: the compose project (containers.ContainerStack) when the stack runs in containers, else None
    containers: object | None = None

    @property
    def clickhouse_http_url(self) -> str:
        return f"http://{self.clickhouse_host}:{self.clickhouse_http_port}"

    def clickhouse_credentials(self, role: str) -> tuple[str, str]:
        """(user, password) for role in admin | ingest | flink | reader."""
        return CLICKHOUSE_USERS[role], self.secrets[f"CLICKHOUSE_{role.upper()}_PASSWORD"]

    @property
    def superset_credentials(self) -> tuple[str, str]:
        return SUPERSET_ADMIN_USER, self.secrets["SUPERSET_ADMIN_PASSWORD"]


def from_settings(settings: StackSettings, secrets: dict[str, str], started_here: bool,
                  containers: object | None = None) -> StackEndpoints:
    return StackEndpoints(
        settings=settings,
        secrets=secrets,
        kafka_bootstrap=settings.kafka_bootstrap,
        registry_url=settings.url("registry"),
        clickhouse_host=settings.host,
        clickhouse_http_port=settings.port("clickhouse_http"),
        clickhouse_tcp_port=settings.port("clickhouse_tcp"),
        flink_url=settings.url("flink"),
        superset_url=settings.url("superset"),
        started_here=started_here,
        containers=containers,
    )


def running_components(launcher) -> set[str]:
    """Components whose processes all run (healthy or not): those belong to whoever started them."""
    return {st.name for st in launcher.status() if all(pid for _, pid in st.processes)}


def keep_stack() -> bool:
    return os.environ.get("IOSCALE_KEEP_STACK", "") not in ("", "0", "false")
