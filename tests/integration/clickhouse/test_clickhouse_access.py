"""The stack's ClickHouse over HTTP (clickhouse-connect) and native TCP (clickhouse-driver): who may do what.

Each test that needs a table creates its own (``ioscale.itest_access_<random>``) as admin and drops it
afterwards, so the product tables are never touched; whether a writer may drop the database is asked (CHECK
GRANT), not tried.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import requests
from clickhouse_connect.driver.exceptions import DatabaseError
from clickhouse_driver import Client as NativeClient
from clickhouse_driver.errors import ServerException

from ioscale.provision import migrations
from ioscale.stack.clickhouse import client
from ioscale.stack.settings import CLICKHOUSE_USERS

from isolation import SCRATCH_PREFIX, scratch_name

ROLES = list(CLICKHOUSE_USERS)
# ClickHouse error codes asserted below (src/Common/ErrorCodes.cpp).
READONLY = 164
ACCESS_DENIED = 497
AUTHENTICATION_FAILED = 516
USER_SESSION_LIMIT_EXCEEDED = 700


def error_code(exc: BaseException) -> int:
    """The ClickHouse error code carried by a clickhouse-connect or clickhouse-driver exception."""
    if isinstance(exc, ServerException):
        return exc.code
    text = str(exc)
    marker = "Code: "
    assert marker in text, text
    return int(text.split(marker, 1)[1].split(".", 1)[0])


def native(stack, role: str | None = None, user: str | None = None, password: str | None = None) -> NativeClient:
    if role is not None:
        user, password = stack.clickhouse_credentials(role)
    return NativeClient(host=stack.clickhouse_host, port=stack.clickhouse_tcp_port, user=user, password=password,
                        connect_timeout=5, send_receive_timeout=30)


def http_status_and_body(stack, sql: str, auth: tuple[str, str] | None) -> tuple[int, str]:
    resp = requests.post(stack.clickhouse_http_url + "/", data=sql, auth=auth, timeout=10)
    return resp.status_code, resp.text


@pytest.fixture
def table(stack) -> Iterator[str]:
    name = f"ioscale.{scratch_name('access')}"
    with client(stack.settings, stack.secrets, "admin") as admin:
        admin.command(f"CREATE TABLE {name} (id UInt32, note String) ENGINE = MergeTree ORDER BY id")
        yield name
        admin.command(f"DROP TABLE IF EXISTS {name} SYNC")


@pytest.mark.parametrize("role", ROLES)
def test_every_user_answers_over_http_and_native(stack, role: str) -> None:
    with client(stack.settings, stack.secrets, role) as http:
        assert http.command("SELECT currentUser()") == CLICKHOUSE_USERS[role]
        assert http.server_version.startswith("26.9.")
    rows = native(stack, role).execute("SELECT currentUser(), version(), timezone()")
    assert rows[0][0] == CLICKHOUSE_USERS[role]
    assert rows[0][1].startswith("26.9.") and rows[0][2] in ("UTC", "Etc/UTC")


def test_reader_reads_with_its_own_settings_but_cannot_write_or_create(stack, table: str) -> None:
    with client(stack.settings, stack.secrets, "admin") as admin:
        admin.insert(table, [[1, "a"], [2, "b"]], column_names=["id", "note"])
    with client(stack.settings, stack.secrets, "reader", database="ioscale") as reader:
        # Per-query settings, as Superset and clickhouse-connect send them, are allowed (readonly=2).
        assert reader.query(f"SELECT sum(id) FROM {table}", settings={"max_threads": 1}).result_rows == [(3,)]
        # The grant check comes first (SELECT only), so writes fail with ACCESS_DENIED ...
        for sql in (f"INSERT INTO {table} VALUES (3, 'c')",
                    f"CREATE TABLE {table}_copy (id UInt32) ENGINE = Memory",
                    f"CREATE TEMPORARY TABLE {SCRATCH_PREFIX}tmp (x UInt8)",
                    f"DROP TABLE {table}",
                    f"ALTER TABLE {table} DELETE WHERE 1",
                    f"SELECT count() FROM {migrations.MIGRATIONS_TABLE}",  # nothing outside ioscale
                    "SELECT * FROM file('/etc/hostname', 'LineAsString')",
                    "SYSTEM STOP LISTEN HTTP"):
            with pytest.raises(DatabaseError) as err:
                reader.command(sql)
            assert error_code(err.value) == ACCESS_DENIED, sql
        # ... and readonly=2 is the second line: it cannot be switched off.
        with pytest.raises(DatabaseError) as err:
            reader.command("SET readonly = 0")
        assert error_code(err.value) == READONLY
    with pytest.raises(ServerException) as err:
        native(stack, "reader").execute(f"INSERT INTO {table} (id, note) VALUES", [(4, "d")])
    assert err.value.code == ACCESS_DENIED
    with client(stack.settings, stack.secrets, "admin") as admin:
        assert admin.command(f"SELECT count() FROM {table}") == 2


@pytest.mark.parametrize("role", ["ingest", "flink"])
def test_writers_insert_into_ioscale_but_cannot_drop_or_create(stack, table: str, role: str) -> None:
    with client(stack.settings, stack.secrets, role) as writer:
        writer.insert(table, [[i, f"row{i}"] for i in range(100)], column_names=["id", "note"])
        assert writer.command(f"SELECT count() FROM {table}") == 100
        for sql in (f"DROP TABLE {table}", f"TRUNCATE TABLE {table}",
                    f"CREATE TABLE ioscale.{SCRATCH_PREFIX}should_not_exist (x UInt8) ENGINE = Memory",
                    f"CREATE DATABASE {SCRATCH_PREFIX}should_not_exist",
                    f"ALTER TABLE {table} DELETE WHERE 1",
                    f"SELECT count() FROM {migrations.MIGRATIONS_TABLE}"):
            with pytest.raises(DatabaseError) as err:
                writer.command(sql)
            assert error_code(err.value) == ACCESS_DENIED, sql
        # Asked, not tried: with the grant there, trying would drop the developer's database. (The first
        # question shows CHECK GRANT answers for this user.)
        assert int(writer.command("CHECK GRANT INSERT ON ioscale.*")) == 1
        assert int(writer.command("CHECK GRANT DROP DATABASE ON ioscale.*")) == 0
    native(stack, role).execute(f"INSERT INTO {table} (id, note) VALUES", [(1000, "native")])
    with client(stack.settings, stack.secrets, "admin") as admin:
        assert admin.command(f"SELECT count() FROM {table}") == 101
        assert admin.command("EXISTS DATABASE ioscale") == 1


def test_wrong_password_and_unknown_user_are_rejected(stack) -> None:
    user, password = stack.clickhouse_credentials("reader")
    for auth in ((user, password + "x"), ("ioscale_nobody", password)):
        status, body = http_status_and_body(stack, "SELECT 1", auth)
        assert (status, error_code(body)) == (403, AUTHENTICATION_FAILED)
        with pytest.raises(ServerException) as err:
            native(stack, user=auth[0], password=auth[1]).execute("SELECT 1")
        assert err.value.code == AUTHENTICATION_FAILED


def test_no_passwordless_access(stack) -> None:
    # No credentials at all means user `default` with an empty password: the engine holds its only session.
    status, body = http_status_and_body(stack, "SELECT 1", None)
    assert status != 200 and error_code(body) == USER_SESSION_LIMIT_EXCEEDED
    with pytest.raises(ServerException) as err:
        native(stack, user="default", password="").execute("SELECT 1")
    assert err.value.code == USER_SESSION_LIMIT_EXCEEDED
    for user in CLICKHOUSE_USERS.values():
        status, body = http_status_and_body(stack, "SELECT 1", (user, ""))
        assert error_code(body) == AUTHENTICATION_FAILED, user
        with pytest.raises(ServerException) as err:
            native(stack, user=user, password="").execute("SELECT 1")
        assert err.value.code == AUTHENTICATION_FAILED
    with client(stack.settings, stack.secrets, "admin") as admin:
        rows = admin.query("SELECT name FROM system.users WHERE has(auth_type, 'no_password')").result_rows
    assert rows == [("default",)]


def test_every_migration_is_recorded_with_its_checksum(stack) -> None:
    folder = migrations.migrations_dir(stack.settings)
    expected = {m.name: m.sha256 for m in [*migrations.discover(folder), *migrations.discover_views(folder)]}
    with client(stack.settings, stack.secrets, "admin") as admin:
        # a view is recorded again each time it is created again: its latest record is the one in force
        rows = admin.query(f"SELECT name, argMax(sha256, applied_at) FROM {migrations.MIGRATIONS_TABLE} "
                           "GROUP BY name").result_rows
        assert admin.command("EXISTS DATABASE ioscale") == 1
    recorded = {name: digest.decode() if isinstance(digest, bytes) else digest for name, digest in rows}
    assert {name: recorded.get(name) for name in expected} == expected
    # beyond them only what a view's file superseded (a stack set up before the view moved to sql/views)
    views = {v.path.stem for v in migrations.discover_views(folder)}
    assert [n for n in recorded.keys() - expected.keys() if not migrations.superseded_by_view(n, views)] == []
