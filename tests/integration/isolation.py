"""What the integration tests write into the stack they share with the developer, and how they remove it.

The stack under test is the developer's own (its ``ioscale`` database, topics and registry). So every run id a
test writes starts with PREFIX, as do the topics, subjects and consumer groups it creates and the scenario and
host names of its hand-written records; every scratch database or table it creates starts with SCRATCH_PREFIX (a
ClickHouse name takes no dash). Clean-up deletes only rows whose run id has the prefix (``delete_rows``) and drops
only the scratch objects a test made itself; tests/unit/suite/test_integration_isolation.py checks every such
statement in this directory.

Every row carries its run id, which is what marks it: the simulator's records keep their scenario's names, and
the SQL tests' known runs their hosts and VMs (their oracles spell them).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

PREFIX = "itest-"
SCRATCH_PREFIX = PREFIX.replace("-", "_")


def unique(kind: str) -> str:
    """A name of this test's own (run id, topic, subject, consumer group): ``itest-<kind>-<random>``."""
    return f"{PREFIX}{kind}-{uuid.uuid4().hex[:10]}"


def scratch_name(kind: str) -> str:
    """A ClickHouse database or table name of this test's own: ``itest_<kind>_<random>``."""
    return f"{SCRATCH_PREFIX}{kind}_{uuid.uuid4().hex[:8]}"


def prefixed(record: dict[str, Any]) -> dict[str, Any]:
    """A simulator record (its engine names runs ``sim-<scenario>-...``) under a run id with the prefix."""
    return {**record, "run_id": PREFIX + record["run_id"]}


def delete_rows(admin, table: str, run_id: str) -> None:
    """Deletes one test run's rows from ``ioscale.<table>``; a run id without the prefix is refused, and the
    statement itself cannot match a row of another run."""
    if not run_id.startswith(PREFIX):
        raise ValueError(f"refusing to delete run {run_id!r} from ioscale.{table}: not a test run ({PREFIX}*)")
    admin.command(f"DELETE FROM ioscale.{table} WHERE run_id = {{run:String}} AND startsWith(run_id, '{PREFIX}')",
                  parameters={"run": run_id})


@contextmanager
def scratch_database(stack, kind: str, migration_names: Sequence[str]) -> Iterator[tuple[str, Any]]:
    """(database, admin client): a scratch database with the named migrations' real DDL (as the runner reads
    them, fragments written out) aimed at it instead of ``ioscale``; dropped afterwards."""
    from ioscale.paths import repo_root
    from ioscale.provision import migrations
    from ioscale.stack.clickhouse import client

    db = scratch_name(kind)
    with client(stack.settings, stack.secrets, "admin") as admin:
        admin.command(f"CREATE DATABASE {db}")
        try:
            ddl = {m.name: m.text for m in migrations.discover(repo_root() / "sql" / "migrations")}
            for name in migration_names:
                admin.command(ddl[name].replace("ioscale.", f"{db}."))
            yield db, admin
        finally:
            admin.command(f"DROP DATABASE IF EXISTS {db} SYNC")


def wait_for_io_samples(ch, run_id: str, count: int, timeout_s: float = 120.0) -> int:
    """Waits until ``ioscale.io_samples`` holds ``count`` samples of the run (the Kafka engine's delay); the
    number it holds when it returns."""
    deadline = time.monotonic() + timeout_s
    while True:
        held = ch.query("SELECT count() FROM ioscale.io_samples WHERE run_id = {r:String}",
                        parameters={"r": run_id}).result_rows[0][0]
        if held >= count or time.monotonic() > deadline:
            return held
        time.sleep(1)
