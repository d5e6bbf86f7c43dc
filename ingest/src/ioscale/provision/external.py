"""Initialise services that something else runs (docker-compose, a lab cluster): `ioscale admin init` and
`ioscale admin submit-jobs`.

The local stack does the same work inside its components; this is the path for servers we do not
start: create the topics, register the schemas, create the ClickHouse roles with the same rights as
the local users.xml (SQL access management), apply sql/migrations, and render the Superset bundle;
then submit the stream jobs to the Flink cluster with the local stack's own submitter and job list
(``provision.flink``). Passwords come from the environment (CLICKHOUSE_<ROLE>_PASSWORD), never from arguments.

The roles' rights have one definition, stack/clickhouse/users.xml.tmpl (what the local server reads): the
grants of each account and the reader profile's limits are read from it and issued here as SQL.
"""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse

from ioscale.errors import ConfigError
from ioscale.paths import repo_root, write_private
from ioscale.provision import analytics_config
from ioscale.provision.flink import JobEndpoints, JobSubmitter, StreamJob, stream_jobs_for
from ioscale.stack.clickhouse import ROLES, password_secret_name, render_users
from ioscale.stack.progress import Progress
from ioscale.stack.settings import CLICKHOUSE_USERS

READER_PROFILE = "ioscale_reader_profile"
#: Settings of the local reader profile that the SQL profile carries too.
READER_LIMITS = ("readonly", "max_execution_time")


@dataclass(frozen=True)
class ExternalTargets:
    kafka_bootstrap: str
    registry_url: str
    clickhouse_url: str
    superset_bundle_out: Path | None = None
    superset_clickhouse_host: str | None = None  # host name Superset uses to reach ClickHouse


def password(role: str, env: dict[str, str] | None = None) -> str:
    env = os.environ if env is None else env
    name = password_secret_name(role)
    value = env.get(name, "")
    if not value:
        raise ConfigError(f"{name} is not set", "pass the ClickHouse passwords in the environment")
    return value


def local_rights(repo: Path) -> tuple[dict[str, list[str]], dict[str, str]]:
    """The grants of every account that has some (the admin holds all rights instead: it is the server's own
    account) and the reader profile's limits, as stack/clickhouse/users.xml.tmpl gives them to the local server."""
    template = (repo / "stack" / "clickhouse" / "users.xml.tmpl").read_text()
    root = ET.fromstring(render_users({password_secret_name(r): "-" for r in ROLES}, template))
    users = root.find("users")
    grants = {role: [q.text.strip() for q in users.find(CLICKHOUSE_USERS[role]).findall("grants/query")]
              for role in ROLES if users.find(CLICKHOUSE_USERS[role]).find("grants") is not None}
    profile = root.find(f"profiles/{users.find(CLICKHOUSE_USERS['reader']).findtext('profile')}")
    return grants, {name: profile.findtext(name).strip() for name in READER_LIMITS}


def user_statements(env: dict[str, str] | None = None, repo: Path | None = None,
                    server_defined: frozenset[str] = frozenset()) -> list[str]:
    """Idempotent SQL creating the ingest, Flink and reader users (passwords re-set on every run).

    Users in ``server_defined`` are left out: the server defines them in its users.xml (SQL cannot change those;
    the local stack's engine in a container has no other storage), from the same template.
    """
    grants, limits = local_rights(repo or repo_root())
    out = []
    if CLICKHOUSE_USERS["reader"] not in server_defined:
        out.append(f"CREATE SETTINGS PROFILE IF NOT EXISTS {READER_PROFILE} SETTINGS readonly = {limits['readonly']} "
                   f"CONST, max_execution_time = {limits['max_execution_time']}")
    for role, role_grants in grants.items():
        user = CLICKHOUSE_USERS[role]
        if user in server_defined:
            continue
        pw = password(role, env).replace("\\", "\\\\").replace("'", "\\'")
        profile = f" SETTINGS PROFILE '{READER_PROFILE}'" if role == "reader" else ""
        out.append(f"CREATE USER IF NOT EXISTS {user} IDENTIFIED WITH sha256_password BY '{pw}'{profile}")
        out.append(f"ALTER USER {user} IDENTIFIED WITH sha256_password BY '{pw}'{profile}")
        out += [f"{g} TO {user}" for g in role_grants]
    return out


def init_external(targets: ExternalTargets, repo: Path, ui: Progress) -> None:
    import clickhouse_connect
    from confluent_kafka.admin import AdminClient

    from ioscale.provision import migrations
    from ioscale.provision.kafka import ensure_topics
    from ioscale.wire import schemas, topics

    replication = topics.Replication.from_env()
    created = ensure_topics(AdminClient({"bootstrap.servers": targets.kafka_bootstrap}), topics.TOPICS, replication)
    ui.done(f"kafka: topics ready ({len(created)} created, replication factor {replication.factor}, "
            f"min.insync.replicas {replication.min_insync})")
    registered = schemas.register_all(targets.registry_url)
    ui.done(f"registry: {len(registered)} schemas registered")

    url = urlparse(targets.clickhouse_url)
    admin = clickhouse_connect.get_client(host=url.hostname, port=url.port or 8123, username=CLICKHOUSE_USERS["admin"],
                                          password=password("admin"))
    admin.command("CREATE DATABASE IF NOT EXISTS ioscale")
    report = migrations.apply(migrations.ClickHouseExecutor(admin), repo / "sql" / "migrations",
                              {"kafka_bootstrap": targets.kafka_bootstrap, "registry_url": targets.registry_url})
    ui.done(f"clickhouse: {len(report.applied)} migrations applied, {len(report.skipped)} already there")
    defined = frozenset(r[0] for r in admin.query("SELECT name FROM system.users WHERE storage = 'users_xml'").result_rows)
    for stmt in user_statements(repo=repo, server_defined=defined):
        admin.command(stmt)
    kept = sorted(defined & {CLICKHOUSE_USERS[r] for r in ROLES if r != "admin"})
    ui.done("clickhouse: users ioscale_ingest, ioscale_flink, ioscale_reader ready"
            + (f" ({', '.join(kept)} as the server's users.xml defines them)" if kept else ""))

    if targets.superset_bundle_out:
        write_superset_bundle(targets.superset_bundle_out, repo, targets.superset_clickhouse_host or url.hostname,
                              url.port or 8123)
        ui.done(f"superset: bundle written to {targets.superset_bundle_out}")


def write_superset_bundle(out: Path, repo: Path, host: str, port: int, env: dict[str, str] | None = None) -> None:
    """The dashboards bundle for a Superset that reaches ClickHouse at ``host:port``, written private: its
    database URI holds the reader's password."""
    from ioscale.provision.superset_bundle import build_bundle, clickhouse_uri

    uri = clickhouse_uri(CLICKHOUSE_USERS["reader"], password("reader", env), host, port)
    write_private(out, build_bundle(repo / "superset", uri))


#: In ``submit-jobs``' state directory: the Flink writer's password for the analytics job's main(), which runs in
#: the JobManager (so the JobManager must read it at this path: the directory is shared with it).
PASSWORD_FILE = "clickhouse.env"


@dataclass(frozen=True)
class FlinkTargets:
    """A Flink cluster to run the stream jobs on: its REST URL, and paths that this host and the cluster share."""

    rest_url: str
    jar: Path
    checkpoint_root: Path  # each job's checkpoints under <root>/<job>, written by the cluster, read here
    state_dir: Path  # deployment records, savepoints (written by the cluster) and the password file
    parallelism: int | None = None  # every job's; None: Flink's default


def external_jobs(targets: ExternalTargets, flink: FlinkTargets, env: Mapping[str, str]) -> list[StreamJob]:
    """The local stack's stream jobs (``provision.flink.stream_jobs_for``) pointed at these services, with the
    analytics tunables of ``IOSCALE_<KEY>`` variables (``analytics_config.from_env``)."""
    return stream_jobs_for(JobEndpoints(targets.kafka_bootstrap, targets.registry_url, targets.clickhouse_url,
                                        flink.state_dir / PASSWORD_FILE, flink.checkpoint_root,
                                        analytics_config.from_env(env), flink.parallelism))


def submit_jobs_external(targets: ExternalTargets, flink: FlinkTargets, ui: Progress, env: dict[str, str] | None = None,
                         ready_timeout_s: float = 120.0) -> None:
    """Submit the stream jobs that are not running and redeploy those whose jar or arguments changed, restoring
    the newest retained checkpoint: the local stack's ``JobSubmitter``, on this cluster."""
    env = dict(os.environ if env is None else env)
    jobs = external_jobs(targets, flink, env)  # first: a bad IOSCALE_<KEY> is reported before anything is written
    write_private(flink.state_dir / PASSWORD_FILE, f"{password_secret_name('flink')}={password('flink', env)}\n")
    submitter = JobSubmitter(flink.rest_url, flink.jar, flink.state_dir, jobs, ui, rerun="ioscale admin submit-jobs")
    submitter.wait_taskmanager(ready_timeout_s)
    submitter.submit_jobs()
