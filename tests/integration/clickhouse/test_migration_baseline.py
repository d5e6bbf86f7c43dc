"""sql/migrations starts from a baseline: each table and view created once, in its final form. It must build the
schema the chain it replaced built (sql/migrations at 3a7f315: 74 files, tables created and then altered --
TTLs, codecs, added columns, a view's query, merge settings -- plus backfills and an OPTIMIZE), and a ClickHouse
set up by that chain must be refused with the way to recreate it.

migration_baseline.json holds, taken once:
- ``schema``: what that chain built, applied by the runner to an empty ClickHouse 26.9 (``snapshot_of``): every
  table and view of ioscale and ioscale_meta with its engine, keys, TTL and settings (``engine_full``), its
  columns (type, default, codec, comment) and, for a view, its create query (query, TO target, refresh);
- ``replaced_chain``: that chain's files with their sha256, as a database it set up records them;
- ``baseline``: the baseline's files. Only they are applied here (with the fragments they include), so
  migrations added after them do not count. The views have since moved to sql/materialized and sql/views, where
  each is defined in place and moves on (``migrations``: repeatable views): their baseline files are gone and
  their first form is not compared.

Both tests start a ClickHouse server of their own (conftest's private_server), never the stack's. The
Kafka-engine tables point at 127.0.0.1:1 and the schema registry at http://127.0.0.1:1, where nothing listens,
so they never consume from the stack's Kafka; the refreshable view step_windows_refresh refreshes over this
server's empty tables.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from ioscale.provision import migrations
from ioscale.stack.settings import repo_root

pytestmark = pytest.mark.slow

FIXTURE = Path(__file__).with_name("migration_baseline.json")
MIGRATIONS = repo_root() / "sql" / "migrations"
PLACEHOLDERS = {"kafka_bootstrap": "127.0.0.1:1", "registry_url": "http://127.0.0.1:1"}
DATABASES = ["ioscale", migrations.META_DATABASE]
TABLE_FIELDS = ("engine", "engine_full", "sorting_key", "primary_key", "partition_key", "sampling_key", "comment",
                "create_table_query")
#: Differences from the replaced chain's schema that the baseline means, as {(table, field): why}; the fixture's
#: ``intended`` holds the baseline's value of each, compared exactly. The baseline's SQL comments differ too, but
#: ClickHouse keeps no `--` comment (it stores each create query re-formatted).
INTENDED: dict[tuple[str, str], str] = {
    ("ioscale.step_windows_refresh", "create_table_query"):
        "p99 by the histogram functions (0030-0035), which a view stores written out: the same values, the "
        "representative and too-few-samples rule now spelled as those functions spell them",
}


def snapshot_of(ch, directory: Path) -> dict:
    """Apply the migrations in ``directory`` to the empty server behind ``ch``, then describe its schema: per table,
    ``TABLE_FIELDS`` of system.tables (``create_table_query`` for views only: their query, TO target and refresh
    schedule are nowhere else; a table's is its columns and engine_full) and its columns as DDL, in order."""
    migrations.apply(migrations.ClickHouseExecutor(ch), directory, PLACEHOLDERS)
    params = {"d": DATABASES}
    databases = dict(ch.query("SELECT name, engine FROM system.databases WHERE name IN {d:Array(String)}",
                              parameters=params).result_rows)
    fields = ", ".join(TABLE_FIELDS).replace(
        "create_table_query", "if(engine LIKE '%View', create_table_query, '') AS create_table_query")
    tables = {f"{db}.{name}": dict(zip(TABLE_FIELDS, rest)) | {"columns": []} for db, name, *rest in ch.query(
        f"SELECT database, name, {fields} FROM system.tables WHERE database IN {{d:Array(String)}}",
        parameters=params).result_rows}
    for db, table, name, ctype, default_kind, default, codec, comment in ch.query(
            "SELECT database, table, name, type, default_kind, default_expression, compression_codec, comment "
            "FROM system.columns WHERE database IN {d:Array(String)} ORDER BY database, table, position",
            parameters=params).result_rows:
        ddl = (name, ctype, f"{default_kind} {default}" if default_kind else "", codec,
               f"COMMENT {comment!r}" if comment else "")
        tables[f"{db}.{table}"]["columns"].append(" ".join(part for part in ddl if part))
    return {"databases": databases, "tables": tables}


def differences(old: dict, new: dict, intended: dict[str, dict[str, object]]) -> list[str]:
    """What differs between the chain's schema ``old`` and the baseline's ``new``, beyond the INTENDED changes,
    which must match the values in ``intended`` (table -> field -> value) exactly."""
    # (an intended change of a view that has since moved to a views folder is not compared)
    assert {(table, field) for table, fields in intended.items() for field in fields} == \
        {key for key in INTENDED if key[0] in old["tables"]}
    old = {**old, "tables": {name: {**table, **intended.get(name, {})} for name, table in old["tables"].items()}}
    out = [f"databases: {old['databases']} -> {new['databases']}"] if old["databases"] != new["databases"] else []
    for name in sorted(old["tables"].keys() | new["tables"].keys()):
        a, b = old["tables"].get(name), new["tables"].get(name)
        if a is None or b is None:
            out.append(f"{name}: {'only in the baseline' if a is None else 'missing from the baseline'}")
            continue
        for field in TABLE_FIELDS + ("columns",):
            if a[field] != b[field]:
                out.append(f"{name}.{field}:\n  chain:    {a[field]}\n  baseline: {b[field]}")
    return out


def test_the_baseline_builds_the_schema_of_the_chain_it_replaced(private_admin, tmp_path) -> None:
    expected = json.loads(FIXTURE.read_text(encoding="utf-8"))
    baseline = tmp_path / "baseline"
    baseline.mkdir()
    views = {v.path.stem for v in migrations.discover_views(MIGRATIONS)}
    repeatable = {f"ioscale.{v}" for v in views}
    for name in expected["baseline"]:
        if migrations.superseded_by_view(name, views):
            continue
        assert (MIGRATIONS / name).is_file(), f"{name} is gone: the baseline is append-only too"
        shutil.copy(MIGRATIONS / name, baseline / name)
    shutil.copytree(MIGRATIONS / migrations.FRAGMENTS_DIR, baseline / migrations.FRAGMENTS_DIR)
    got = snapshot_of(private_admin, baseline)
    schema = {**expected["schema"], "tables": {n: t for n, t in expected["schema"]["tables"].items()
                                               if n not in repeatable}}
    intended = {n: f for n, f in expected["intended"].items() if n not in repeatable}
    diff = differences(schema, got, intended)
    assert not diff, f"{len(diff)} difference(s):\n" + "\n".join(diff[:20])


def test_a_database_set_up_by_the_replaced_chain_must_be_recreated(private_admin) -> None:
    chain = json.loads(FIXTURE.read_text(encoding="utf-8"))["replaced_chain"]
    executor = migrations.ClickHouseExecutor(private_admin)
    for sql in migrations.BOOTSTRAP_SQL:
        executor.execute(sql)
    for name, sha256 in chain.items():
        executor.record(name, sha256, 0)
    with pytest.raises(migrations.MigrationError, match="predates the folder's baseline") as err:
        migrations.apply(executor, MIGRATIONS, PLACEHOLDERS)
    assert "`make down && rm -rf .ioscale/data`" in err.value.hint
    assert private_admin.command("EXISTS DATABASE ioscale") == 0  # nothing ran
