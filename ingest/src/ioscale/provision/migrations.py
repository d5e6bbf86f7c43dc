"""Versioned, append-only ClickHouse DDL: ``sql/migrations/NNNN_verb_object.sql``, applied in order.

Rules (checked here, so a mistake fails `stack up` with a clear message rather than half a schema):

- File names are ``NNNN_description.sql``: four digits, then lower-case words joined by ``_``.
  Numbers are unique; files run in number order. Any other ``*.sql`` in the folder is an error.
- One statement per file (a trailing ``;`` is allowed). Comments are welcome and are sent along.
- ``{{name}}`` stands for ``fragments/name.sql`` when that file exists: a piece of DDL several
  migrations share (the measure columns of the rollup tables, the Kafka queues' consumer settings),
  written out where it stands, comments included (and placeholders, filled as the migration's own).
  Every other ``{{name}}`` is a placeholder filled from a dict before execution (e.g.
  ``{{kafka_bootstrap}}``, ``{{registry_url}}``); an unknown name is an error. ClickHouse's own
  ``{name:Type}`` query parameters use single braces and are left alone.
- Each applied file is recorded in ``ioscale_meta.schema_migrations`` with the sha256 of its content
  with its fragments written out, before placeholders: moving Kafka to another port does not "change" a
  migration, changing a fragment changes every migration that uses it.
  Once applied, a file must never change: a different checksum is an error. Fix forward with a new
  migration. An applied migration whose file disappeared is an error too: the folder starts from a
  baseline (the schema's tables each created once, in their final form), and a database set up by
  migrations from before that baseline must be recreated.
- Write statements with ``IF NOT EXISTS``: a crash between the DDL and its bookkeeping row re-runs
  the statement on the next ``up``.

Views are repeatable instead: each file is its view's one definition, and after the migrations each whose file
is new or changed (its sha256 differs from the one recorded as ``<folder>/<file>``) is applied again, in file-name
order; one that selects from a view still to come is retried once the others are in place.

- ``sql/materialized/<view>.sql``: ``CREATE MATERIALIZED VIEW IF NOT EXISTS ioscale.<view> ... TO <table> AS
  <query>``, the views that fill tables (from the Kafka queues, from io_samples, on a refresh schedule). Applied
  as that statement and then ``ALTER TABLE ioscale.<view> MODIFY QUERY <query>``: a view that exists changes its
  query in place, "without interrupting ingestion process" (ClickHouse docs). Dropping and creating it again would
  lose records: the Kafka engine consumes while at least one view of its queue is attached, and what arrives while
  one of the two is missing is read and never written by it. Only the query changes so; another target or
  refresh schedule needs a migration that says how the data moves. A queue's dead-letter view
  (``<table>_dlq_mv``) sorts before its raw view (``<table>_mv``): when the rules of both change, in between a
  broken record reaches both tables, never neither.
- ``sql/views/<view>.sql``: ``CREATE OR REPLACE VIEW``, the dashboards' views, applied after the materialized
  ones. A view keeps the column types it was created with, so a change to the tables it reads reaches it only
  when it is created again: a dashboard view never needs a migration of its own.

The migrations that created or altered a view now defined in these folders (``NNNN_create_view_<view>.sql``,
``NNNN_replace_view_<view>.sql``, ``NNNN_alter_view_<view>[_<why>].sql``) are superseded: a database that applied
them is not asked for them back.

The runner creates ``ioscale_meta`` and its ``schema_migrations`` table itself (idempotently) before
reading it: the bookkeeping must exist before the first migration can be recorded, so it cannot be
a migration.
"""

from __future__ import annotations

import hashlib
import re
import time
from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from ioscale.errors import StackError
from ioscale.stack.settings import StackSettings

META_DATABASE = "ioscale_meta"
MIGRATIONS_TABLE = f"{META_DATABASE}.schema_migrations"
NAME_RE = re.compile(r"^(?P<number>\d{4})_(?P<description>[a-z0-9]+(?:_[a-z0-9]+)*)\.sql$")
PLACEHOLDER_RE = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")
#: Folder, inside the migrations folder, of the DDL pieces ``{{name}}`` includes.
FRAGMENTS_DIR = "fragments"
#: Folders, beside the migrations folder, of the repeatable views, in the order they are applied; their
#: bookkeeping names start with them.
MATERIALIZED_DIR = "materialized"
VIEWS_DIR = "views"
VIEW_FOLDERS = (MATERIALIZED_DIR, VIEWS_DIR)
VIEW_RE = re.compile(r"^(?P<view>[a-z0-9]+(?:_[a-z0-9]+)*)\.sql$")
#: What each folder's file must start with (after its comments), ``{view}`` its file name's stem.
VIEW_HEADS = {MATERIALIZED_DIR: "CREATE MATERIALIZED VIEW IF NOT EXISTS ioscale.{view}",
              VIEWS_DIR: "CREATE OR REPLACE VIEW ioscale.{view} AS"}
#: After a materialized view's head: its refresh schedule and TO target, then its query after the first `` AS ``.
MATERIALIZED_QUERY_RE = re.compile(r"^.*?\bTO\s+\S+\s+AS\s+(?P<query>.*)$", re.S)
#: A migration that created, replaced or altered a view, superseded once the view is defined in a views folder.
VIEW_MIGRATION_RE = re.compile(r"^\d{4}_(?P<verb>create|replace|alter)_view_(?P<view>[a-z0-9_]+)\.sql$")

BOOTSTRAP_SQL: tuple[str, ...] = (
    f"CREATE DATABASE IF NOT EXISTS {META_DATABASE}",
    f"""CREATE TABLE IF NOT EXISTS {MIGRATIONS_TABLE}
(
    name         String,                  -- file name, e.g. 0001_create_database_ioscale.sql
    sha256       FixedString(64),         -- hex digest of the file as committed (before placeholders)
    applied_at   DateTime64(3, 'UTC')     DEFAULT now64(3),
    duration_ms  UInt32
)
ENGINE = MergeTree
ORDER BY name""",
)


class MigrationError(StackError):
    def __init__(self, message: str, hint: str | None = None):
        super().__init__("clickhouse", message, hint=hint)


class Executor(Protocol):
    """What the runner needs from a ClickHouse connection; tests pass a fake."""

    def execute(self, sql: str) -> None: ...

    def applied(self) -> dict[str, str]:
        """name -> sha256 of every recorded migration."""
        ...

    def record(self, name: str, sha256: str, duration_ms: int) -> None: ...


class ClickHouseExecutor:
    """Executor over a clickhouse-connect client logged in as the admin user."""

    def __init__(self, client):
        self.client = client

    def execute(self, sql: str) -> None:
        self.client.command(sql)

    def applied(self) -> dict[str, str]:
        # A view is recorded again each time it is created again: its latest record counts.
        rows = self.client.query(f"SELECT name, argMax(sha256, applied_at) FROM {MIGRATIONS_TABLE} "
                                 "GROUP BY name").result_rows
        return {name: _text(digest) for name, digest in rows}

    def record(self, name: str, sha256: str, duration_ms: int) -> None:
        self.client.insert(MIGRATIONS_TABLE, [[name, sha256, duration_ms]],
                           column_names=["name", "sha256", "duration_ms"])


def _text(value: str | bytes) -> str:
    return value.decode() if isinstance(value, bytes) else value


@dataclass(frozen=True)
class Migration:
    number: int
    name: str  # file name
    path: Path
    text: str  # with its fragments written out

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()


@dataclass
class Report:
    applied: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


def migrations_dir(settings: StackSettings) -> Path:
    return settings.repo / "sql" / "migrations"


def fragments(directory: Path) -> dict[str, str]:
    """``name -> DDL`` of the fragments in ``directory/fragments`` (``name.sql``, trailing line breaks dropped)."""
    folder = directory / FRAGMENTS_DIR
    if not folder.is_dir():
        return {}
    return {path.stem: path.read_text(encoding="utf-8").rstrip("\n") for path in sorted(folder.glob("*.sql"))}


def include_fragments(text: str, parts: Mapping[str, str]) -> str:
    """``text`` with each ``{{name}}`` that names a fragment written out; other placeholders are left."""
    return PLACEHOLDER_RE.sub(lambda m: parts.get(m.group(1), m.group(0)), text)


def discover(directory: Path) -> list[Migration]:
    """All migrations in ``directory``, in order, fragments written out; malformed names and duplicate numbers
    are errors."""
    if not directory.is_dir():
        raise MigrationError(f"migrations folder {directory} does not exist")
    parts = fragments(directory)
    found: list[Migration] = []
    bad: list[str] = []
    for path in sorted(directory.glob("*.sql")):
        m = NAME_RE.match(path.name)
        if not m:
            bad.append(path.name)
            continue
        found.append(Migration(int(m["number"]), path.name, path,
                               include_fragments(path.read_text(encoding="utf-8"), parts)))
    if bad:
        raise MigrationError(f"badly named migration file(s) in {directory}: {', '.join(bad)}",
                             hint="name them NNNN_verb_object.sql, e.g. 0027_create_table_disk_samples.sql")
    found.sort(key=lambda mig: mig.number)
    for a, b in zip(found, found[1:]):
        if a.number == b.number:
            raise MigrationError(f"two migrations share number {a.number:04d}: {a.name} and {b.name}",
                                 hint="give the newer one the next free number")
    return found


def views_dir(directory: Path, kind: str = VIEWS_DIR) -> Path:
    """The repeatable views' folder ``kind`` (one of ``VIEW_FOLDERS``) of the migrations folder ``directory``."""
    return directory.parent / kind


def discover_views(directory: Path) -> list[Migration]:
    """The repeatable views beside the migrations folder ``directory``, folder by folder in ``VIEW_FOLDERS`` order,
    by file name, fragments written out; their names are ``<folder>/<file>`` (number 0: they have no place in the
    migrations' order)."""
    parts = fragments(directory)
    found: list[Migration] = []
    for kind in VIEW_FOLDERS:
        folder = views_dir(directory, kind)
        if not folder.is_dir():
            continue
        bad = [p.name for p in sorted(folder.glob("*.sql")) if not VIEW_RE.match(p.name)]
        if bad:
            raise MigrationError(f"badly named view file(s) in {folder}: {', '.join(bad)}",
                                 hint="name each after its view: " + VIEW_HEADS[kind].format(view="dash_runs")
                                      + " goes in dash_runs.sql")
        found += [Migration(0, f"{kind}/{p.name}", p, include_fragments(p.read_text(encoding="utf-8"), parts))
                  for p in sorted(folder.glob("*.sql"))]
    return found


def view_folder(name: str) -> str | None:
    """The views folder (one of ``VIEW_FOLDERS``) of the bookkeeping name ``name``; None for a migration's."""
    folder = name.split("/")[0]
    return folder if folder in VIEW_FOLDERS else None


def view_statements(view: Migration, sql: str) -> list[str]:
    """What applying the repeatable view ``view`` (rendered as ``sql``) executes: its statement, and for a
    materialized view also the ``MODIFY QUERY`` that brings an existing one to it."""
    kind, stem = view_folder(view.name), view.path.stem
    head = VIEW_HEADS[kind].format(view=stem)
    body = re.sub(r"^(\s*(--[^\n]*)?\n)*", "", sql)  # its leading comments
    if not re.match(re.escape(head) + r"\s", body):
        raise MigrationError(f"{view.name} does not define its view", hint=f"start its statement with `{head}`")
    if kind == VIEWS_DIR:
        return [sql]
    m = MATERIALIZED_QUERY_RE.match(body[len(head):])
    if not m:
        raise MigrationError(f"{view.name} names no target table",
                             hint=f"write `{head} [REFRESH ...] TO ioscale.<table> AS <query>`")
    return [sql, f"ALTER TABLE ioscale.{stem} MODIFY QUERY\n{m['query']}"]


def render(migration: Migration, placeholders: Mapping[str, str]) -> str:
    """The statement to execute: placeholders filled, trailing semicolon dropped, one statement checked."""
    missing = sorted({n for n in PLACEHOLDER_RE.findall(migration.text) if n not in placeholders})
    if missing:
        raise MigrationError(
            f"{migration.name} uses unknown placeholder(s) {', '.join('{{' + n + '}}' for n in missing)}",
            hint=f"known placeholders: {', '.join(sorted(placeholders)) or '(none)'}; a shared piece of DDL "
                 f"goes in {migration.path.parent / FRAGMENTS_DIR}/<name>.sql",
        )
    sql = PLACEHOLDER_RE.sub(lambda m: placeholders[m.group(1)], migration.text)
    statements = split_statements(sql)
    if len(statements) != 1:
        raise MigrationError(
            f"{migration.name} holds {len(statements)} statements; migrations hold exactly one",
            hint="split it into one file per statement",
        )
    return statements[0]


def split_statements(sql: str) -> list[str]:
    """Split on top-level ``;``, aware of quotes and comments; statements with only comments vanish.

    Each statement keeps its comments (they document the DDL in ``system.tables``' create query
    only if kept, and ClickHouse accepts them).
    """
    statements: list[str] = []
    start = 0
    has_code = False
    i, n = 0, len(sql)
    while i < n:
        c = sql[i]
        if c in "'\"`":
            has_code = True
            i += 1
            while i < n and sql[i] != c:
                i += 2 if sql[i] == "\\" else 1
            i += 1
        elif sql.startswith("--", i) or c == "#":
            end = sql.find("\n", i)
            i = n if end < 0 else end + 1
        elif sql.startswith("/*", i):
            end = sql.find("*/", i + 2)
            i = n if end < 0 else end + 2
        elif c == ";":
            if has_code:
                statements.append(sql[start:i].strip())
            start, has_code = i + 1, False
            i += 1
        else:
            if not c.isspace():
                has_code = True
            i += 1
    if has_code:
        statements.append(sql[start:].strip())
    return statements


def apply(executor: Executor, directory: Path, placeholders: Mapping[str, str]) -> Report:
    """Apply every migration not yet recorded, in order, then every view new or changed since it was last created.
    Idempotent: a second run applies nothing."""
    todo = discover(directory)
    views = discover_views(directory)
    # Render everything first: a bad placeholder in file 30 must not leave files 1-29 half applied.
    rendered = {mig.name: [render(mig, placeholders)] for mig in todo}
    rendered |= {view.name: view_statements(view, render(view, placeholders)) for view in views}
    for sql in BOOTSTRAP_SQL:
        executor.execute(sql)
    applied = executor.applied()
    check_history(todo, applied, {v.path.stem for v in views})

    report = Report()
    for mig in todo:
        if mig.name in applied:
            report.skipped.append(mig.name)
            continue
        t0 = time.monotonic()
        try:
            executor.execute(rendered[mig.name][0])
        except Exception as e:
            raise MigrationError(
                f"migration {mig.name} failed: {e}",
                hint=f"fix {mig.path} (it was not recorded, so it is retried) and re-run `ioscale stack up`",
            ) from e
        executor.record(mig.name, mig.sha256, int((time.monotonic() - t0) * 1000))
        report.applied.append(mig.name)
    current = {v.name for v in views if applied.get(v.name) == v.sha256}
    _apply_views(executor, [v for v in views if v.name not in current], rendered, report)
    report.skipped += sorted(current)
    return report


def _apply_views(executor: Executor, pending: list[Migration], rendered: Mapping[str, list[str]],
                 report: Report) -> None:
    """Create ``pending`` again, in passes: a view that selects from another view still to come fails until that
    one is in place; a pass in which nothing succeeds reports the first failure."""
    while pending:
        failed: list[tuple[Migration, Exception]] = []
        for view in pending:
            t0 = time.monotonic()
            try:
                for sql in rendered[view.name]:
                    executor.execute(sql)
            except Exception as e:  # noqa: BLE001 - retried, then reported with the file to fix
                failed.append((view, e))
                continue
            executor.record(view.name, view.sha256, int((time.monotonic() - t0) * 1000))
            report.applied.append(view.name)
        if len(failed) == len(pending):
            view, e = failed[0]
            raise MigrationError(f"view {view.name} failed: {e}",
                                 hint=f"fix {view.path} (it was not recorded, so it is retried) and re-run "
                                      "`ioscale stack up`")
        pending = [view for view, _ in failed]


def superseded_by_view(name: str, views: AbstractSet[str]) -> bool:
    """Whether migration ``name`` created, replaced or altered a view that a views folder now defines (``views``:
    their names). An alter's name may add why after the view's (``0173_alter_view_io_samples_mv_rules.sql``)."""
    m = VIEW_MIGRATION_RE.match(name)
    if m is None:
        return False
    return m["view"] in views or (m["verb"] == "alter" and any(m["view"].startswith(v + "_") for v in views))


def check_history(migrations: Sequence[Migration], applied: Mapping[str, str], views: AbstractSet[str] = frozenset()
                  ) -> None:
    """Applied migrations must still exist, unchanged: the history is append-only. ``views``: the views the views
    folder defines (their old migrations may be gone).

    Applied migrations the folder no longer has are checked first: a database built by migrations that
    were since folded into a new baseline (their files gone, the files they patched changed) must be
    recreated, and the error says so rather than asking for the old files back.
    """
    by_name = {m.name: m for m in migrations}
    gone = sorted(n for n in set(applied) - set(by_name)
                  if view_folder(n) is None and not superseded_by_view(n, views))
    if gone:
        shown = ", ".join(gone[:3]) + (f" and {len(gone) - 3} more" if len(gone) > 3 else "")
        raise MigrationError(
            f"this ClickHouse was set up by {len(gone)} migration(s) the migrations folder no longer holds "
            f"({shown}): its state predates the folder's baseline and cannot be migrated to it",
            hint="recreate the stack's state (this deletes the runs it holds): `make down && rm -rf .ioscale/data` "
                 "(or $IOSCALE_HOME/data), then `make up`; with docker compose, `docker compose down -v`. "
                 "Only if you deleted a migration file by mistake: restore it from git instead",
        )
    changed = [m for m in migrations if m.name in applied and applied[m.name] != m.sha256]
    if changed:
        details = "; ".join(f"{m.name} (applied {applied[m.name][:12]}, file now {m.sha256[:12]})" for m in changed)
        raise MigrationError(
            f"applied migration(s) changed since they ran: {details}",
            hint="migrations are append-only: restore the file as applied (git checkout) and put the "
                 "change in a new migration with the next number",
        )
