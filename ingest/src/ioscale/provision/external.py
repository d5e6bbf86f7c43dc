"""Initialise services that something else runs (docker-compose, a lab cluster): `ioscale admin init`.

The local stack does the same work inside its components; this is the path for servers we do not
start: create the topics, register the schemas, create the ClickHouse roles with the same rights as
the local users.xml (SQL access management), apply sql/migrations, and render the Superset bundle.
Passwords come from the environment (CLICKHOUSE_<ROLE>_PASSWORD), never from arguments.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse

from ioscale.errors import ConfigError
from ioscale.stack.progress import Progress
from ioscale.stack.settings import CLICKHOUSE_USERS

#: Same rights as stack/clickhouse/users.xml.tmpl: writers insert and read ioscale.*, the reader only reads.
ROLE_GRANTS = {
    "ingest": ["GRANT SELECT, INSERT ON ioscale.* TO {user}"],
    "flink": ["GRANT SELECT, INSERT ON ioscale.* TO {user}"],
    "reader": ["GRANT SELECT ON ioscale.* TO {user}"],
}
READER_PROFILE = "ioscale_reader_profile"


@dataclass(frozen=True)
class ExternalTargets:
    kafka_bootstrap: str
    registry_url: str
    clickhouse_url: str
    superset_bundle_out: Path | None = None
    superset_clickhouse_host: str | None = None  # host name Superset uses to reach ClickHouse


def password(role: str, env: dict[str, str] | None = None) -> str:
    env = os.environ if env is None else env
    name = f"CLICKHOUSE_{role.upper()}_PASSWORD"
    value = env.get(name, "")
    if not value:
        raise ConfigError(f"{name} is not set", "pass the ClickHouse passwords in the environment")
    return value


def user_statements(env: dict[str, str] | None = None) -> list[str]:
    """Idempotent SQL creating the ingest, Flink and reader users (passwords re-set on every run)."""
    out = [f"CREATE SETTINGS PROFILE IF NOT EXISTS {READER_PROFILE} SETTINGS readonly = 2 CONST, "
           f"max_execution_time = 300"]
    for role, grants in ROLE_GRANTS.items():
        user = CLICKHOUSE_USERS[role]
        pw = password(role, env).replace("\\", "\\\\").replace("'", "\\'")
        profile = f" SETTINGS PROFILE '{READER_PROFILE}'" if role == "reader" else ""
        out.append(f"CREATE USER IF NOT EXISTS {user} IDENTIFIED WITH sha256_password BY '{pw}'{profile}")
        out.append(f"ALTER USER {user} IDENTIFIED WITH sha256_password BY '{pw}'{profile}")
        out += [g.format(user=user) for g in grants]
    return out


def init_external(targets: ExternalTargets, repo: Path, ui: Progress) -> None:
    import clickhouse_connect
    from confluent_kafka.admin import AdminClient

    from ioscale.provision import migrations
    from ioscale.provision.kafka import ensure_topics
    from ioscale.wire import schemas, topics

    created = ensure_topics(AdminClient({"bootstrap.servers": targets.kafka_bootstrap}), topics.TOPICS)
    ui.done(f"kafka: topics ready ({len(created)} created)")
    registered = schemas.register_all(targets.registry_url)
    ui.done(f"registry: {len(registered)} schemas registered")

    url = urlparse(targets.clickhouse_url)
    admin = clickhouse_connect.get_client(host=url.hostname, port=url.port or 8123, username=CLICKHOUSE_USERS["admin"],
                                          password=password("admin"))
    admin.command("CREATE DATABASE IF NOT EXISTS ioscale")
    report = migrations.apply(migrations.ClickHouseExecutor(admin), repo / "sql" / "migrations",
                              {"kafka_bootstrap": targets.kafka_bootstrap, "registry_url": targets.registry_url})
    ui.done(f"clickhouse: {len(report.applied)} migrations applied, {len(report.skipped)} already there")
    for stmt in user_statements():
        admin.command(stmt)
    ui.done("clickhouse: users ioscale_ingest, ioscale_flink, ioscale_reader ready")

    if targets.superset_bundle_out:
        from ioscale.provision.superset_bundle import build_bundle, clickhouse_uri

        uri = clickhouse_uri(CLICKHOUSE_USERS["reader"], password("reader"),
                             targets.superset_clickhouse_host or url.hostname, url.port or 8123)
        targets.superset_bundle_out.parent.mkdir(parents=True, exist_ok=True)
        targets.superset_bundle_out.write_bytes(build_bundle(repo / "superset", uri))
        ui.done(f"superset: bundle written to {targets.superset_bundle_out}")
