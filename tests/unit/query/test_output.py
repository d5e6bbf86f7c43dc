"""ioscale.query.output: results as table, vertical, CSV and JSON; a query's documentation and the list."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

from ioscale.query import list_queries, output

COLUMNS = ("step", "label", "iops", "ok", "at", "missing")
ROWS = [
    (0, "1 VM", 27144.4, True, dt.datetime(2026, 9, 21, 14, 13, 25), None),
    (10, "80 VMs/node", 520092.25, False, dt.datetime(2026, 9, 21, 14, 13, 25, 500000), 1.5),
]


def test_table_aligns_numbers_right_and_text_left() -> None:
    out = output.format_result(COLUMNS, ROWS, "table")
    assert out.splitlines() == [
        "step  label             iops  ok     at                       missing",
        "----  -----------  ---------  -----  -----------------------  -------",
        "   0  1 VM           27144.4  true   2026-09-21 14:13:25          n/a",
        "  10  80 VMs/node  520092.25  false  2026-09-21 14:13:25.500      1.5",
        "(2 rows)",
    ]


def test_csv_json_vertical() -> None:
    csv_out = output.format_result(COLUMNS, ROWS, "csv").splitlines()
    assert csv_out[0] == "step,label,iops,ok,at,missing"
    assert csv_out[1] == "0,1 VM,27144.4,true,2026-09-21 14:13:25,"
    data = json.loads(output.format_result(COLUMNS, ROWS, "json"))
    assert data[1] == {"step": 10, "label": "80 VMs/node", "iops": 520092.25, "ok": False,
                       "at": "2026-09-21 14:13:25.500", "missing": 1.5}
    assert data[0]["missing"] is None
    vertical = output.format_result(COLUMNS, ROWS[:1], "vertical").splitlines()
    assert vertical[0].startswith("-- row 1 ")
    assert "iops     27144.4" in vertical and "missing  n/a" in vertical and vertical[-1] == "(1 row)"


def test_empty_result_and_special_values() -> None:
    assert output.format_result(("a",), [], "table").splitlines()[-1] == "(0 rows)"
    assert json.loads(output.format_result(("a", "b"), [(float("nan"), [1, 2])], "json")) == [{"a": None, "b": [1, 2]}]
    assert output.format_result(("a",), [(1e20,)], "csv").splitlines()[1] == "1e+20"


def test_describe_shows_parameters_columns_notes_and_an_example(tmp_path: Path, thing_sql: str) -> None:
    (tmp_path / "thing.sql").write_text(thing_sql)
    text = output.describe("thing", tmp_path)
    assert text.startswith("thing - Per-step thing of a run.")
    assert "run_id      String   required" in text
    assert "direction   String   default all; one of all, read, write" in text
    assert "label       String   default ''" in text
    assert "p99_us      99th percentile, microseconds" in text
    assert "Notes:\n  Why FINAL." in text
    assert "ioscale sql thing --param run_id=..." in text


def test_format_query_list_names_required_parameters(tmp_path: Path, thing_sql: str) -> None:
    (tmp_path / "thing.sql").write_text(thing_sql)
    assert output.format_query_list(list_queries(tmp_path)) == \
        "thing  Per-step thing of a run.  [needs run_id=]\n"
