"""ioscale.query.params: --param parsing, validation and coercion; errors name the bad parameter."""

from __future__ import annotations

import pytest

from ioscale.query import NamedQuery, Param, QueryLibraryError, params


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
    got = params.coerce(p(ptype), raw)
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
        params.coerce(p(ptype), raw)
    assert str(e.value).startswith(f"--param v={raw!r}: ")
    assert rule in str(e.value)
    assert e.value.hint == "v: the value"
    assert e.value.exit_status == 2


def test_choices() -> None:
    assert params.coerce(p("String", ("iops", "mb_per_s")), "mb_per_s") == "mb_per_s"
    with pytest.raises(QueryLibraryError, match="expected one of iops, mb_per_s"):
        params.coerce(p("String", ("iops", "mb_per_s")), "IOPS")
    assert params.coerce(p("Int32", ("1", "2")), "02") == 2       # numeric choices compare as numbers


def test_bind_fills_defaults_and_coerces(a_query: NamedQuery) -> None:
    assert params.bind(a_query, {"run_id": "r1", "step_index": "3"}) == {
        "run_id": "r1", "step_index": 3, "threshold": 20.0, "show_all": False, "limit": 50, "metric": "iops"}


def test_bind_rejects_unknown_parameter_with_a_suggestion(a_query: NamedQuery) -> None:
    with pytest.raises(QueryLibraryError) as e:
        params.bind(a_query, {"run_id": "r1", "stepindex": "3"})
    assert "query a_query has no parameter 'stepindex' (did you mean step_index?)" in str(e.value)
    assert "it takes: run_id, step_index, threshold, show_all, limit, metric" in e.value.hint


def test_bind_names_every_missing_required_parameter(a_query: NamedQuery) -> None:
    with pytest.raises(QueryLibraryError) as e:
        params.bind(a_query, {"limit": "5"})
    assert str(e.value) == "query a_query needs --param run_id=<String>"
    assert e.value.hint == "run_id: the run"


def test_bind_reports_the_bad_value(a_query: NamedQuery) -> None:
    with pytest.raises(QueryLibraryError, match=r"--param limit='-5': UInt32 expects"):
        params.bind(a_query, {"run_id": "r", "limit": "-5"})
    with pytest.raises(QueryLibraryError, match=r"--param metric='latency': expected one of iops, mb_per_s"):
        params.bind(a_query, {"run_id": "r", "metric": "latency"})


def test_parse_param_args() -> None:
    assert params.parse_param_args(["run_id=a=b", "label=", " step_index =3"]) == {
        "run_id": "a=b", "label": "", "step_index": "3"}
    with pytest.raises(QueryLibraryError, match="not of the form name=value"):
        params.parse_param_args(["run_id"])
    with pytest.raises(QueryLibraryError, match="not of the form name=value"):
        params.parse_param_args(["=x"])
    with pytest.raises(QueryLibraryError, match="given twice"):
        params.parse_param_args(["a=1", "a=2"])
