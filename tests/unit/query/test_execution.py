"""ioscale.query.execution: validation before connecting, server-side parameters, the query's tag, and server
errors as short messages with what to do next."""

from __future__ import annotations

import pytest

from ioscale.query import NamedQuery, QueryLibraryError, bind, execution


def test_run_validates_before_connecting() -> None:
    # settings/secrets of None: any attempt to connect would raise AttributeError, not QueryLibraryError.
    with pytest.raises(QueryLibraryError, match="unknown output format 'xml'"):
        execution.run("run_list", {}, None, {}, "xml")
    with pytest.raises(QueryLibraryError, match="has no parameter 'bogus'"):
        execution.run("run_list", {"bogus": "1"}, None, {}, "table")
    with pytest.raises(QueryLibraryError, match="needs --param run_id"):
        execution.run("scaling_curve_raw", {}, None, {}, "table")


class FakeResult:
    def __init__(self, columns: tuple[str, ...], rows: list[tuple], summary: dict) -> None:
        self.column_names, self.result_rows, self.summary = columns, rows, summary


class FakeClient:
    """Records what execute() sends: the statement, server-side parameters, settings."""

    def __init__(self, result: FakeResult) -> None:
        self.result, self.calls = result, []

    def query(self, sql: str, parameters: dict, settings: dict) -> FakeResult:
        self.calls.append((sql, parameters, settings))
        return self.result


def test_execute_sends_server_side_parameters_and_tags_the_query(a_query: NamedQuery) -> None:
    fake = FakeClient(FakeResult(("x",), [("r1",)], {"elapsed_ns": "1234567", "query_id": "q-1"}))
    values = bind(a_query, {"run_id": "r1'; DROP TABLE x --"})
    result = execution.execute(a_query, values, fake)
    sql, params, settings = fake.calls[0]
    assert sql == a_query.sql and "r1'" not in sql                     # the value never enters the SQL text
    assert params["run_id"] == "r1'; DROP TABLE x --" and params["step_index"] == -1
    assert settings == {"log_comment": "ioscale sql a_query"}
    assert result == execution.QueryResult(("x",), [("r1",)], 1234567, "q-1")   # the id finds it in query_log


def test_execute_names_the_documented_columns_of_an_empty_answer(a_query: NamedQuery) -> None:
    result = execution.execute(a_query, bind(a_query, {"run_id": "r"}), FakeClient(FakeResult((), [], {})))
    assert result.columns == ("x",) and result.rows == [] and result.elapsed_ns is None


class RaisingClient:
    def __init__(self, exc: Exception) -> None:
        self.exc = exc

    def query(self, *args, **kwargs):
        raise self.exc


def test_execute_turns_server_errors_into_short_messages_with_hints(a_query: NamedQuery) -> None:
    from clickhouse_connect.driver.exceptions import DatabaseError, OperationalError

    from ioscale.errors import IoscaleError, StackError

    missing = DatabaseError("Received ClickHouse exception, code: 60, server response: Code: 60. DB::Exception: "
                            "Unknown table expression identifier 'ioscale.scaling_curves'. In scope SELECT 1. "
                            "(UNKNOWN_TABLE) (for url http://127.0.0.1:8123)")
    with pytest.raises(IoscaleError) as e:
        execution.execute(a_query, bind(a_query, {"run_id": "r"}), RaisingClient(missing))
    assert str(e.value) == "query a_query failed: Unknown table expression identifier 'ioscale.scaling_curves'"
    assert "Flink result tables" in e.value.hint
    with pytest.raises(StackError) as e:
        execution.execute(a_query, bind(a_query, {"run_id": "r"}),
                          RaisingClient(OperationalError("connection refused")))
    assert str(e.value).startswith("clickhouse: cannot reach ClickHouse for query a_query")
    assert "ioscale stack up" in e.value.hint
