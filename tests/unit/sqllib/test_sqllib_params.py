"""ioscale.sqllib: --param parsing, validation and coercion; errors name the bad parameter; output formats."""

from __future__ import annotations

import datetime as dt
import json
import pytest

from ioscale import sqllib
from ioscale.sqllib import Param, QueryLibraryError

Q = sqllib.parse("""\
-- A query.
--
-- Parameters:
--   run_id       String                          the run
--   step_index   Int32 = -1                      step
--   threshold    Float64 = 20                    percent
--   show_all     Bool = false                    everything
--   limit        UInt32 = 50                     rows
--   metric       String = iops {iops|mb_per_s}   what
--
-- Columns:
--   x   a value
SELECT {run_id:String} AS x, {step_index:Int32}, {threshold:Float64}, {show_all:Bool}, {limit:UInt32}, {metric:String}
""", "a_query")


def p(ptype: str, choices: tuple[str, ...] = ()) -> Param:
    return Param("v", ptype, None, choices, "the value")


@pytest.mark.parametrize("ptype, raw, value", [
    ("String", "abc", "abc"), ("String", "", ""), ("String", "a=b c", "a=b c"),
    ("Int32", "-7", -7), ("Int32", " 12 ", 12), ("Int8", "-128", -128), ("UInt8", "255", 255),
    ("UInt64", str(2 ** 64 - 1), 2 ** 64 - 1), ("Int64", str(-(2 ** 63)), -(2 ** 63)),
    ("Float64", "2.5", 2.5), ("Float64", "1e3", 1000.0), ("Float32", "-0", 0.0),
    ("Bool", "true", True), ("Bool", "FALSE", False), ("Bool", "1", True), ("Bool", "no", False),
    ("Bool", True, True), ("Int32", 5, 5),
])
def test_coerce_accepts(ptype: str, raw: object, value: object) -> None:
    got = sqllib.coerce(p(ptype), raw)
    assert got == value and type(got) is type(value)


@pytest.mark.parametrize("ptype, raw, rule", [
    ("Int32", "abc", "Int32 expects an integer from -2147483648 to 2147483647"),
    ("Int32", "1.5", "expects an integer"),
    ("Int32", "2147483648", "expects an integer"),
    ("UInt32", "-1", "UInt32 expects an integer from 0 to 4294967295"),
    ("UInt8", "256", "from 0 to 255"),
    ("Float64", "fast", "Float64 expects a number"),
    ("Float64", "nan", "finite"),
    ("Float64", "inf", "finite"),
    ("Bool", "maybe", "Bool expects true or false"),
])
def test_coerce_rejects_naming_the_parameter(ptype: str, raw: str, rule: str) -> None:
    with pytest.raises(QueryLibraryError) as e:
        sqllib.coerce(p(ptype), raw)
    assert str(e.value).startswith(f"--param v={raw!r}: ")
    assert rule in str(e.value)
    assert e.value.hint == "v: the value"
    assert e.value.exit_status == 2


def test_choices() -> None:
    assert sqllib.coerce(p("String", ("iops", "mb_per_s")), "mb_per_s") == "mb_per_s"
    with pytest.raises(QueryLibraryError, match="expected one of iops, mb_per_s"):
        sqllib.coerce(p("String", ("iops", "mb_per_s")), "IOPS")
    assert sqllib.coerce(p("Int32", ("1", "2")), "02") == 2       # numeric choices compare as numbers


def test_bind_fills_defaults_and_coerces() -> None:
    assert sqllib.bind(Q, {"run_id": "r1", "step_index": "3"}) == {
        "run_id": "r1", "step_index": 3, "threshold": 20.0, "show_all": False, "limit": 50, "metric": "iops"}


def test_bind_rejects_unknown_parameter_with_a_suggestion() -> None:
    with pytest.raises(QueryLibraryError) as e:
        sqllib.bind(Q, {"run_id": "r1", "stepindex": "3"})
    assert "query a_query has no parameter 'stepindex' (did you mean step_index?)" in str(e.value)
    assert "it takes: run_id, step_index, threshold, show_all, limit, metric" in e.value.hint


def test_bind_names_every_missing_required_parameter() -> None:
    with pytest.raises(QueryLibraryError) as e:
        sqllib.bind(Q, {"limit": "5"})
    assert str(e.value) == "query a_query needs --param run_id=<String>"
    assert e.value.hint == "run_id: the run"


def test_bind_reports_the_bad_value() -> None:
    with pytest.raises(QueryLibraryError, match=r"--param limit='-5': UInt32 expects"):
        sqllib.bind(Q, {"run_id": "r", "limit": "-5"})
    with pytest.raises(QueryLibraryError, match=r"--param metric='latency': expected one of iops, mb_per_s"):
        sqllib.bind(Q, {"run_id": "r", "metric": "latency"})


def test_parse_param_args() -> None:
    assert sqllib.parse_param_args(["run_id=a=b", "label=", " step_index =3"]) == {
        "run_id": "a=b", "label": "", "step_index": "3"}
    with pytest.raises(QueryLibraryError, match="not of the form name=value"):
        sqllib.parse_param_args(["run_id"])
    with pytest.raises(QueryLibraryError, match="not of the form name=value"):
        sqllib.parse_param_args(["=x"])
    with pytest.raises(QueryLibraryError, match="given twice"):
        sqllib.parse_param_args(["a=1", "a=2"])


def test_run_validates_before_connecting() -> None:
    # settings/secrets of None: any attempt to connect would raise AttributeError, not QueryLibraryError.
    with pytest.raises(QueryLibraryError, match="unknown output format 'xml'"):
        sqllib.run("run_list", {}, None, {}, "xml")
    with pytest.raises(QueryLibraryError, match="has no parameter 'bogus'"):
        sqllib.run("run_list", {"bogus": "1"}, None, {}, "table")
    with pytest.raises(QueryLibraryError, match="needs --param run_id"):
        sqllib.run("scaling_curve_raw", {}, None, {}, "table")


COLUMNS = ("step", "label", "iops", "ok", "at", "missing")
ROWS = [
    (0, "1 VM", 27144.4, True, dt.datetime(2026, 9, 21, 14, 13, 25), None),
    (10, "80 VMs/node", 520092.25, False, dt.datetime(2026, 9, 21, 14, 13, 25, 500000), 1.5),
]


def test_table_aligns_numbers_right_and_text_left() -> None:
    out = sqllib.format_result(COLUMNS, ROWS, "table")
    assert out.splitlines() == [
        "step  label             iops  ok     at                       missing",
        "----  -----------  ---------  -----  -----------------------  -------",
        "   0  1 VM           27144.4  true   2026-09-21 14:13:25         NULL",
        "  10  80 VMs/node  520092.25  false  2026-09-21 14:13:25.500      1.5",
        "(2 rows)",
    ]


def test_csv_json_vertical() -> None:
    csv_out = sqllib.format_result(COLUMNS, ROWS, "csv").splitlines()
    assert csv_out[0] == "step,label,iops,ok,at,missing"
    assert csv_out[1] == "0,1 VM,27144.4,true,2026-09-21 14:13:25,"
    data = json.loads(sqllib.format_result(COLUMNS, ROWS, "json"))
    assert data[1] == {"step": 10, "label": "80 VMs/node", "iops": 520092.25, "ok": False,
                       "at": "2026-09-21 14:13:25.500", "missing": 1.5}
    assert data[0]["missing"] is None
    vertical = sqllib.format_result(COLUMNS, ROWS[:1], "vertical").splitlines()
    assert vertical[0].startswith("-- row 1 ")
    assert "iops     27144.4" in vertical and "missing  NULL" in vertical and vertical[-1] == "(1 row)"


def test_empty_result_and_special_values() -> None:
    assert sqllib.format_result(("a",), [], "table").splitlines()[-1] == "(0 rows)"
    assert json.loads(sqllib.format_result(("a", "b"), [(float("nan"), [1, 2])], "json")) == [{"a": None, "b": [1, 2]}]
    assert sqllib.format_result(("a",), [(1e20,)], "csv").splitlines()[1] == "1e+20"


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


def test_execute_sends_server_side_parameters_and_tags_the_query() -> None:
    fake = FakeClient(FakeResult(("x",), [("r1",)], {"elapsed_ns": "1234567", "query_id": "q-1"}))
    values = sqllib.bind(Q, {"run_id": "r1'; DROP TABLE x --"})
    result = sqllib.execute(Q, values, fake)
    sql, params, settings = fake.calls[0]
    assert sql == Q.sql and "r1'" not in sql                     # the value never enters the SQL text
    assert params["run_id"] == "r1'; DROP TABLE x --" and params["step_index"] == -1
    assert settings == {"log_comment": "ioscale sql a_query"}
    assert result == sqllib.QueryResult(("x",), [("r1",)], 1234567, "q-1")   # the id finds it in query_log


def test_execute_names_the_documented_columns_of_an_empty_answer() -> None:
    result = sqllib.execute(Q, sqllib.bind(Q, {"run_id": "r"}), FakeClient(FakeResult((), [], {})))
    assert result.columns == ("x",) and result.rows == [] and result.elapsed_ns is None


class RaisingClient:
    def __init__(self, exc: Exception) -> None:
        self.exc = exc

    def query(self, *args, **kwargs):
        raise self.exc


def test_execute_turns_server_errors_into_short_messages_with_hints() -> None:
    from clickhouse_connect.driver.exceptions import DatabaseError, OperationalError

    from ioscale.errors import IoscaleError, StackError

    missing = DatabaseError("Received ClickHouse exception, code: 60, server response: Code: 60. DB::Exception: "
                            "Unknown table expression identifier 'ioscale.scaling_curves'. In scope SELECT 1. "
                            "(UNKNOWN_TABLE) (for url http://127.0.0.1:8123)")
    with pytest.raises(IoscaleError) as e:
        sqllib.execute(Q, sqllib.bind(Q, {"run_id": "r"}), RaisingClient(missing))
    assert str(e.value) == "query a_query failed: Unknown table expression identifier 'ioscale.scaling_curves'"
    assert "Flink result tables" in e.value.hint
    with pytest.raises(StackError) as e:
        sqllib.execute(Q, sqllib.bind(Q, {"run_id": "r"}), RaisingClient(OperationalError("connection refused")))
    assert str(e.value).startswith("clickhouse: cannot reach ClickHouse for query a_query")
    assert "ioscale stack up" in e.value.hint
