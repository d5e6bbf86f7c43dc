"""Migration runner logic against a fake executor: order, idempotence, append-only checksums, placeholders."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from ioscale.provision import migrations as mig
from ioscale.stack.settings import StackSettings, repo_root

PLACEHOLDERS = {"kafka_bootstrap": "127.0.0.1:9092", "registry_url": "http://127.0.0.1:8081"}


class FakeExecutor:
    """Records statements; keeps the bookkeeping table as a dict, like schema_migrations would."""

    def __init__(self, fail_on: str | None = None):
        self.statements: list[str] = []
        self.table: dict[str, str] = {}
        self.fail_on = fail_on

    def execute(self, sql: str) -> None:
        if self.fail_on and self.fail_on in sql:
            raise RuntimeError("Code: 62. DB::Exception: Syntax error")
        self.statements.append(sql)

    def applied(self) -> dict[str, str]:
        return dict(self.table)

    def record(self, name: str, sha256: str, duration_ms: int) -> None:
        assert duration_ms >= 0
        self.table[name] = sha256

    @property
    def ddl(self) -> list[str]:
        return [s for s in self.statements if s not in mig.BOOTSTRAP_SQL]


def write(directory: Path, name: str, text: str) -> Path:
    path = directory / name
    path.write_text(text)
    return path


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    d = tmp_path / "migrations"
    d.mkdir()
    write(d, "0002_create_table_b.sql", "CREATE TABLE IF NOT EXISTS ioscale.b (x UInt8) ENGINE = Memory;\n")
    write(d, "0001_create_database_ioscale.sql", "-- the database\nCREATE DATABASE IF NOT EXISTS ioscale\n")
    write(d, "0010_create_table_q.sql",
          "CREATE TABLE IF NOT EXISTS ioscale.q (x UInt8) ENGINE = Kafka SETTINGS "
          "kafka_broker_list = '{{kafka_bootstrap}}', format_avro_schema_registry_url = '{{ registry_url }}'")
    return d


def test_applies_in_number_order_after_bootstrap(folder: Path) -> None:
    ex = FakeExecutor()
    report = mig.apply(ex, folder, PLACEHOLDERS)
    assert report.applied == ["0001_create_database_ioscale.sql", "0002_create_table_b.sql", "0010_create_table_q.sql"]
    assert ex.statements[: len(mig.BOOTSTRAP_SQL)] == list(mig.BOOTSTRAP_SQL)
    assert ex.ddl[0].endswith("CREATE DATABASE IF NOT EXISTS ioscale")
    assert ex.ddl[1] == "CREATE TABLE IF NOT EXISTS ioscale.b (x UInt8) ENGINE = Memory"  # `;` dropped
    assert "kafka_broker_list = '127.0.0.1:9092'" in ex.ddl[2]
    assert "format_avro_schema_registry_url = 'http://127.0.0.1:8081'" in ex.ddl[2]


def test_second_run_applies_nothing(folder: Path) -> None:
    ex = FakeExecutor()
    mig.apply(ex, folder, PLACEHOLDERS)
    n = len(ex.ddl)
    report = mig.apply(ex, folder, PLACEHOLDERS)
    assert report.applied == [] and len(report.skipped) == 3
    assert len(ex.ddl) == n


def test_new_file_is_applied_alone(folder: Path) -> None:
    ex = FakeExecutor()
    mig.apply(ex, folder, PLACEHOLDERS)
    write(folder, "0011_create_table_c.sql", "CREATE TABLE IF NOT EXISTS ioscale.c (x UInt8) ENGINE = Memory")
    report = mig.apply(ex, folder, PLACEHOLDERS)
    assert report.applied == ["0011_create_table_c.sql"]
    assert ex.ddl[-1].startswith("CREATE TABLE IF NOT EXISTS ioscale.c")


def test_records_checksum_of_raw_file_not_rendered_sql(folder: Path) -> None:
    ex = FakeExecutor()
    mig.apply(ex, folder, PLACEHOLDERS)
    raw = (folder / "0010_create_table_q.sql").read_bytes()
    assert ex.table["0010_create_table_q.sql"] == hashlib.sha256(raw).hexdigest()
    # Moving Kafka to another port changes the rendered SQL, not the migration.
    report = mig.apply(ex, folder, {**PLACEHOLDERS, "kafka_bootstrap": "127.0.0.1:19092"})
    assert report.applied == []


def test_fragments_are_written_out_and_count_in_the_checksum(folder: Path) -> None:
    (folder / mig.FRAGMENTS_DIR).mkdir()
    write(folder / mig.FRAGMENTS_DIR, "pair.sql", "-- two columns\n    x UInt8,\n    y UInt8\n")
    write(folder, "0003_create_table_c.sql", "CREATE TABLE IF NOT EXISTS ioscale.c\n(\n{{pair}},\n    z UInt8\n)\n"
                                             "ENGINE = Memory")
    ex = FakeExecutor()
    mig.apply(ex, folder, PLACEHOLDERS)
    written = ("CREATE TABLE IF NOT EXISTS ioscale.c\n(\n-- two columns\n    x UInt8,\n    y UInt8,\n    z UInt8\n)\n"
               "ENGINE = Memory")
    assert ex.ddl[2] == written
    assert ex.table["0003_create_table_c.sql"] == hashlib.sha256(written.encode()).hexdigest()
    # A changed fragment changes every applied migration that includes it.
    write(folder / mig.FRAGMENTS_DIR, "pair.sql", "    x UInt16,\n    y UInt8\n")
    with pytest.raises(mig.MigrationError, match="changed since they ran: 0003_create_table_c.sql"):
        mig.apply(ex, folder, PLACEHOLDERS)


def test_a_fragment_may_hold_placeholders_filled_like_the_migrations_own(tmp_path: Path) -> None:
    (tmp_path / mig.FRAGMENTS_DIR).mkdir()
    write(tmp_path / mig.FRAGMENTS_DIR, "consumer.sql", "    kafka_broker_list = '{{kafka_bootstrap}}'\n")
    write(tmp_path, "0001_create_table_r.sql", "CREATE TABLE r (x UInt8) ENGINE = Kafka SETTINGS\n{{consumer}}\n")
    [found] = mig.discover(tmp_path)
    # The checksum covers the fragment pasted in, before placeholders: as if it had never been one.
    assert found.text == "CREATE TABLE r (x UInt8) ENGINE = Kafka SETTINGS\n    kafka_broker_list = '{{kafka_bootstrap}}'\n"
    assert mig.render(found, PLACEHOLDERS).endswith(f"kafka_broker_list = '{PLACEHOLDERS['kafka_bootstrap']}'")


def test_changed_applied_migration_is_an_error(folder: Path) -> None:
    ex = FakeExecutor()
    mig.apply(ex, folder, PLACEHOLDERS)
    write(folder, "0002_create_table_b.sql", "CREATE TABLE IF NOT EXISTS ioscale.b (x UInt16) ENGINE = Memory")
    write(folder, "0003_create_table_new.sql", "CREATE TABLE IF NOT EXISTS ioscale.n (x UInt8) ENGINE = Memory")
    with pytest.raises(mig.MigrationError, match="0002_create_table_b.sql") as err:
        mig.apply(ex, folder, PLACEHOLDERS)
    assert "append-only" in err.value.hint
    assert not any("ioscale.n" in s for s in ex.statements)  # nothing runs after a broken history


def test_applied_migration_whose_file_vanished_is_an_error(folder: Path) -> None:
    ex = FakeExecutor()
    mig.apply(ex, folder, PLACEHOLDERS)
    (folder / "0002_create_table_b.sql").unlink()
    with pytest.raises(mig.MigrationError, match=r"1 migration\(s\) the migrations folder no longer holds "
                                                 r"\(0002_create_table_b.sql\)"):
        mig.apply(ex, folder, PLACEHOLDERS)


def test_a_database_from_before_the_baseline_must_be_recreated(folder: Path) -> None:
    """A ClickHouse set up by the chain the baseline replaced: some of its migrations are gone, some of the
    files it applied now hold their final form. The error says to recreate the state, and how."""
    ex = FakeExecutor()
    ex.table = {"0001_create_database_ioscale.sql": mig.discover(folder)[0].sha256,  # unchanged
                "0002_create_table_b.sql": "0" * 64,                                 # patched since, now folded in
                "0003_alter_table_b_codec.sql": "1" * 64,                           # folded into 0002
                "0004_backfill_b.sql": "2" * 64, "0005_optimize_b.sql": "3" * 64, "0006_alter_b.sql": "4" * 64}
    with pytest.raises(mig.MigrationError) as err:
        mig.apply(ex, folder, PLACEHOLDERS)
    assert "4 migration(s) the migrations folder no longer holds (0003_alter_table_b_codec.sql, " \
           "0004_backfill_b.sql, 0005_optimize_b.sql and 1 more)" in str(err.value)
    assert "predates the folder's baseline" in str(err.value)
    assert "`make down && rm -rf .ioscale/data`" in err.value.hint and "`make up`" in err.value.hint
    assert ex.ddl == []  # nothing runs against such a database


def test_failed_statement_is_not_recorded_and_stops_the_run(folder: Path) -> None:
    ex = FakeExecutor(fail_on="ioscale.b")
    with pytest.raises(mig.MigrationError, match="0002_create_table_b.sql failed: Code: 62"):
        mig.apply(ex, folder, PLACEHOLDERS)
    assert list(ex.table) == ["0001_create_database_ioscale.sql"]
    ex.fail_on = None  # fixed: the next run resumes at the failed file
    assert mig.apply(ex, folder, PLACEHOLDERS).applied == ["0002_create_table_b.sql", "0010_create_table_q.sql"]


def test_unknown_placeholder_fails_before_anything_runs(folder: Path) -> None:
    write(folder, "0020_create_table_x.sql", "CREATE TABLE t (x UInt8) ENGINE = Kafka SETTINGS kafka_group_name = '{{group}}'")
    ex = FakeExecutor()
    with pytest.raises(mig.MigrationError, match=r"\{\{group\}\}") as err:
        mig.apply(ex, folder, PLACEHOLDERS)
    assert "kafka_bootstrap" in err.value.hint and "fragments/<name>.sql" in err.value.hint
    assert ex.statements == []


def test_clickhouse_query_parameters_are_left_alone(folder: Path) -> None:
    text = "CREATE VIEW IF NOT EXISTS ioscale.v AS SELECT * FROM ioscale.b WHERE x = {x:UInt8}"
    write(folder, "0030_create_view_v.sql", text)
    ex = FakeExecutor()
    mig.apply(ex, folder, PLACEHOLDERS)
    assert ex.ddl[-1] == text


@pytest.mark.parametrize("name", ["1_x.sql", "0001-create.sql", "0001_Create_Table.sql", "00001_x.sql", "0001_.sql"])
def test_badly_named_file_is_an_error(folder: Path, name: str) -> None:
    write(folder, name, "SELECT 1")
    with pytest.raises(mig.MigrationError, match="badly named"):
        mig.discover(folder)


def test_other_files_are_ignored(folder: Path) -> None:
    write(folder, "README.md", "# notes")
    assert len(mig.discover(folder)) == 3


def test_duplicate_numbers_are_an_error(folder: Path) -> None:
    write(folder, "0002_create_table_other.sql", "SELECT 1")
    with pytest.raises(mig.MigrationError, match="share number 0002"):
        mig.discover(folder)


def test_two_statements_in_one_file_are_an_error(folder: Path) -> None:
    write(folder, "0004_two.sql", "CREATE DATABASE IF NOT EXISTS a; CREATE DATABASE IF NOT EXISTS b;")
    with pytest.raises(mig.MigrationError, match="holds 2 statements"):
        mig.apply(FakeExecutor(), folder, PLACEHOLDERS)


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        ("SELECT 1", ["SELECT 1"]),
        ("SELECT 1;\n-- trailing comment\n", ["SELECT 1"]),
        ("SELECT ';' AS semi, \"a;b\", `c;d`", ["SELECT ';' AS semi, \"a;b\", `c;d`"]),
        ("SELECT 'it''s; fine', 'x\\';y'", ["SELECT 'it''s; fine', 'x\\';y'"]),
        ("/* a; b */ SELECT 1 -- c; d\n", ["/* a; b */ SELECT 1 -- c; d"]),
        ("SELECT 1; SELECT 2", ["SELECT 1", "SELECT 2"]),
        ("-- only a comment;\n", []),
        (";;", []),
    ],
)
def test_split_statements(sql: str, expected: list[str]) -> None:
    assert mig.split_statements(sql) == expected


def test_repository_migrations_are_valid() -> None:
    """The real sql/migrations: names, order, one statement each, only known placeholders."""
    settings = StackSettings.from_env({"IOSCALE_REPO": str(repo_root()), "IOSCALE_HOME": "/nonexistent"})
    found = mig.discover(mig.migrations_dir(settings))
    assert found[0].name == "0001_create_database_ioscale.sql"
    from ioscale.provision.clickhouse import migration_placeholders

    for m in found:
        mig.render(m, migration_placeholders(settings))
    views = mig.discover_views(mig.migrations_dir(settings))
    kinds = [mig.view_folder(v.name) for v in views]
    assert kinds.count(mig.MATERIALIZED_DIR) >= 11 and kinds.count(mig.VIEWS_DIR) >= 14
    assert kinds == sorted(kinds, key=mig.VIEW_FOLDERS.index)  # the views that fill tables first
    for v in views:
        statements = mig.view_statements(v, mig.render(v, migration_placeholders(settings)))
        assert len(statements) == (2 if v.name.startswith(mig.MATERIALIZED_DIR) else 1), v.name
    # No migration defines a view any more: a second definition would be applied over the file's.
    assert not [m.name for m in found if mig.VIEW_MIGRATION_RE.match(m.name)]


# -- repeatable views ---------------------------------------------------------------------------------------
@pytest.fixture
def views(folder: Path) -> Path:
    d = folder.parent / mig.VIEWS_DIR
    d.mkdir()
    write(d, "v_top.sql", "CREATE OR REPLACE VIEW ioscale.v_top AS SELECT * FROM ioscale.v_base")
    write(d, "v_base.sql", "CREATE OR REPLACE VIEW ioscale.v_base AS SELECT x FROM ioscale.b")
    return d


class ViewsNeedTheirSources(FakeExecutor):
    """A view that selects from one not created yet fails, as ClickHouse refuses an unknown table."""

    def execute(self, sql: str) -> None:
        if "FROM ioscale.v_base" in sql and not any("VIEW ioscale.v_base" in s for s in self.statements):
            raise RuntimeError("Code: 60. DB::Exception: Unknown table expression identifier 'ioscale.v_base'")
        super().execute(sql)


def test_views_come_after_the_migrations_each_once_its_sources_exist(folder: Path, views: Path) -> None:
    ex = ViewsNeedTheirSources()
    report = mig.apply(ex, folder, PLACEHOLDERS)
    assert [s.split(" AS ")[0] for s in ex.ddl[-2:]] == ["CREATE OR REPLACE VIEW ioscale.v_base",
                                                          "CREATE OR REPLACE VIEW ioscale.v_top"]
    assert report.applied[-2:] == ["views/v_base.sql", "views/v_top.sql"]
    assert ex.table["views/v_top.sql"] == hashlib.sha256((views / "v_top.sql").read_bytes()).hexdigest()


def test_a_view_is_created_again_only_when_its_file_changed(folder: Path, views: Path) -> None:
    ex = ViewsNeedTheirSources()
    mig.apply(ex, folder, PLACEHOLDERS)
    assert mig.apply(ex, folder, PLACEHOLDERS).applied == []
    write(views, "v_top.sql", "CREATE OR REPLACE VIEW ioscale.v_top AS SELECT x, 1 AS y FROM ioscale.v_base")
    assert mig.apply(ex, folder, PLACEHOLDERS).applied == ["views/v_top.sql"]
    assert ex.ddl[-1].endswith("SELECT x, 1 AS y FROM ioscale.v_base")


def test_a_view_that_cannot_be_created_names_its_file_and_is_not_recorded(folder: Path, views: Path) -> None:
    write(views, "v_top.sql", "CREATE OR REPLACE VIEW ioscale.v_top AS SELECT * FROM ioscale.v_missing BROKEN")
    ex = FakeExecutor(fail_on="BROKEN")
    with pytest.raises(mig.MigrationError, match="view views/v_top.sql failed") as err:
        mig.apply(ex, folder, PLACEHOLDERS)
    assert "v_top.sql" in err.value.hint and "views/v_top.sql" not in ex.table
    assert "views/v_base.sql" in ex.table


# -- repeatable materialized views ---------------------------------------------------------------------------
@pytest.fixture
def materialized(folder: Path) -> Path:
    d = folder.parent / mig.MATERIALIZED_DIR
    d.mkdir()
    write(d, "b_mv.sql", "-- fills b\nCREATE MATERIALIZED VIEW IF NOT EXISTS ioscale.b_mv TO ioscale.b AS\n"
                         "SELECT x FROM ioscale.q WHERE length(_error) = 0")
    write(d, "b_dlq_mv.sql", "CREATE MATERIALIZED VIEW IF NOT EXISTS ioscale.b_dlq_mv TO ioscale.dead AS\n"
                             "SELECT _error AS reason FROM ioscale.q WHERE length(_error) > 0")
    write(d, "b_refresh.sql", "CREATE MATERIALIZED VIEW IF NOT EXISTS ioscale.b_refresh\n"
                              "REFRESH EVERY 15 SECOND APPEND TO ioscale.b AS\nWITH 1 AS one SELECT one AS x")
    return d


def test_a_materialized_view_is_created_and_then_given_its_query_in_place(folder: Path, materialized: Path,
                                                                        views: Path) -> None:
    ex = FakeExecutor()
    report = mig.apply(ex, folder, PLACEHOLDERS)
    # The dead-letter view before the raw one (file-name order), all before the dashboards' views.
    assert report.applied[3:] == ["materialized/b_dlq_mv.sql", "materialized/b_mv.sql", "materialized/b_refresh.sql",
                                  "views/v_base.sql", "views/v_top.sql"]
    assert ex.ddl[3:9] == [
        "CREATE MATERIALIZED VIEW IF NOT EXISTS ioscale.b_dlq_mv TO ioscale.dead AS\n"
        "SELECT _error AS reason FROM ioscale.q WHERE length(_error) > 0",
        "ALTER TABLE ioscale.b_dlq_mv MODIFY QUERY\nSELECT _error AS reason FROM ioscale.q WHERE length(_error) > 0",
        "-- fills b\nCREATE MATERIALIZED VIEW IF NOT EXISTS ioscale.b_mv TO ioscale.b AS\n"
        "SELECT x FROM ioscale.q WHERE length(_error) = 0",
        "ALTER TABLE ioscale.b_mv MODIFY QUERY\nSELECT x FROM ioscale.q WHERE length(_error) = 0",
        "CREATE MATERIALIZED VIEW IF NOT EXISTS ioscale.b_refresh\nREFRESH EVERY 15 SECOND APPEND TO ioscale.b AS\n"
        "WITH 1 AS one SELECT one AS x",
        "ALTER TABLE ioscale.b_refresh MODIFY QUERY\nWITH 1 AS one SELECT one AS x"]
    # A changed query reaches the existing view in place: never dropped, so its queue never loses a record.
    write(materialized, "b_mv.sql", "CREATE MATERIALIZED VIEW IF NOT EXISTS ioscale.b_mv TO ioscale.b AS\n"
                                    "SELECT x + 1 AS x FROM ioscale.q WHERE length(_error) = 0")
    n = len(ex.ddl)
    assert mig.apply(ex, folder, PLACEHOLDERS).applied == ["materialized/b_mv.sql"]
    assert ex.ddl[n:][-1] == "ALTER TABLE ioscale.b_mv MODIFY QUERY\nSELECT x + 1 AS x FROM ioscale.q WHERE length(_error) = 0"
    assert not [s for s in ex.ddl if "DROP" in s]


@pytest.mark.parametrize(("text", "error"), [
    ("CREATE MATERIALIZED VIEW IF NOT EXISTS ioscale.other_mv TO ioscale.b AS SELECT 1", "does not define its view"),
    ("CREATE MATERIALIZED VIEW ioscale.b_mv TO ioscale.b AS SELECT 1", "does not define its view"),
    ("CREATE MATERIALIZED VIEW IF NOT EXISTS ioscale.b_mv ENGINE = Memory AS SELECT 1", "names no target table"),
])
def test_a_materialized_view_file_must_define_its_view_with_a_target(folder: Path, text: str, error: str) -> None:
    d = folder.parent / mig.MATERIALIZED_DIR
    d.mkdir()
    write(d, "b_mv.sql", text)
    ex = FakeExecutor()
    with pytest.raises(mig.MigrationError, match=error):
        mig.apply(ex, folder, PLACEHOLDERS)
    assert ex.ddl == []  # checked before anything runs


def test_the_migrations_of_a_view_now_in_the_views_folder_are_superseded(folder: Path, views: Path) -> None:
    ex = FakeExecutor()
    ex.table = {"0001_create_database_ioscale.sql": "x", "0300_create_view_v_base.sql": "y",
                "0149_replace_view_v_base.sql": "z", "views/v_gone.sql": "w"}
    ex.table["0001_create_database_ioscale.sql"] = mig.discover(folder)[0].sha256
    mig.apply(ex, folder, PLACEHOLDERS)  # no "folder no longer holds" error
    ex.table["0301_create_view_v_elsewhere.sql"] = "y"  # a view the folder does not define: a gone migration
    with pytest.raises(mig.MigrationError, match="no longer holds"):
        mig.apply(ex, folder, PLACEHOLDERS)


@pytest.mark.parametrize(("name", "superseded"), [
    ("0013_create_view_b_mv.sql", True),
    ("0173_alter_view_b_mv_rules.sql", True),       # an alter's name may say why after the view's
    ("0183_alter_view_b_mv.sql", True),
    ("0172_alter_view_b_dlq_mv_rules.sql", False),  # another view's
    ("0014_create_view_b_mv_rules.sql", False),     # a create names its view exactly
    ("0015_create_table_b_mv_x.sql", False),
])
def test_the_migrations_that_altered_a_materialized_view_are_superseded(name: str, superseded: bool) -> None:
    assert mig.superseded_by_view(name, {"b_mv", "dash_b"}) is superseded


def test_badly_named_view_file_is_an_error(folder: Path, views: Path) -> None:
    write(views, "Dash-Bad.sql", "CREATE OR REPLACE VIEW ioscale.x AS SELECT 1")
    with pytest.raises(mig.MigrationError, match="badly named view file"):
        mig.apply(FakeExecutor(), folder, PLACEHOLDERS)
