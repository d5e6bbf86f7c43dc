"""run_list shows and filters the sweep group `ioscale import` puts on the runs it splits an input into.

The importer's run events go through the stack's own DDL (migrations 0023-0024, sql/materialized/run_events_mv.sql:
the queue's columns, the view that checks the events and flattens the load, the table) on the embedded ClickHouse engine the stack ships (chdb); only the queue's Kafka
engine is swapped for Null, which feeds the view the same way. Then the library's run_list, bound as `ioscale sql`
binds it.
"""

from __future__ import annotations

import json
import re
from datetime import datetime, timezone
from pathlib import Path

import pytest

from ioscale.importers import import_runs
from ioscale.provision import migrations
from ioscale.query import bind, load

chdb_session = pytest.importorskip("chdb.session")

REPO = Path(__file__).resolve().parents[3]
MIGRATIONS = REPO / "sql" / "migrations"
DATA = REPO / "tests" / "unit" / "importers" / "data"
NOW_MS = 1_795_219_200_000


def _ts(ms: int | None) -> str | None:
    return None if ms is None else datetime.fromtimestamp(ms / 1000, timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]


@pytest.fixture(scope="module")
def ch():
    s = chdb_session.Session()
    s.query("CREATE DATABASE IF NOT EXISTS ioscale")
    s.query((MIGRATIONS / "0023_create_table_run_events.sql").read_text())
    queue = (MIGRATIONS / "0024_create_table_run_events_queue.sql").read_text()
    queue = queue[:queue.index("ENGINE = Kafka")].replace("    tags         Map(String, String)\n",
                                                          "    tags         Map(String, String),\n    _error String\n")
    s.query(queue + "ENGINE = Null")
    s.query((MIGRATIONS / "0170_create_function_ioscale_non_negative_rule.sql").read_text())  # the view's rules
    s.query(next(v.text for v in migrations.discover_views(MIGRATIONS) if v.name == "materialized/run_events_mv.sql"))
    yield s
    s.close()


def _insert(ch, runs) -> None:
    rows = []
    for r in runs:
        for e in r.run_events:
            rows.append(json.dumps({**e, "ts_ms": _ts(e["ts_ms"]), "start_ms": _ts(e["start_ms"]),
                                    "end_ms": _ts(e["end_ms"]), "_error": ""}))
    ch.query("INSERT INTO ioscale.run_events_queue FORMAT JSONEachRow\n" + "\n".join(rows))


def _run_list(ch, **params) -> list[dict]:
    q = load("run_list")
    values = {k: str(v) for k, v in bind(q, params).items()}
    out = ch.query(q.sql, "JSONEachRow", params=values).bytes().decode()
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def test_run_list_shows_and_filters_the_sweep_group(ch):
    split = import_runs("iometer", [DATA / "iometer_1.1.0_3specs_qd_cycling.csv"], now_ms=NOW_MS)
    whole = import_runs("iometer", [DATA / "iometer_1.1.0_qd_cycling.csv"], now_ms=NOW_MS, one_run=True)
    _insert(ch, split + whole)
    group = split[0].sweep_group
    rows = _run_list(ch, sweep_group=group)
    assert sorted((r["run_id"], r["steps"], r["sweep_group"], r["sweep_axis"], r["sweep"]) for r in rows) == sorted(
        (r.run_id, 4, group, "iodepth", r.sweep) for r in split)
    assert {r["sweep"] for r in rows} == {"access spec '4K random read'", "access spec '64K seq write'",
                                          "access spec '4K random read aligned 64K'"}
    assert all(re.search(rf"sweep \d of 3 of {group} along iodepth", r["description"]) for r in rows)
    every = {r["run_id"]: r for r in _run_list(ch)}
    assert set(every) == {r.run_id for r in split + whole}
    assert (every[whole[0].run_id]["sweep_group"], every[whole[0].run_id]["steps"]) == ("", 2)
