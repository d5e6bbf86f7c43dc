"""Superset in the running stack: login, imported objects, SQL Lab and chart data against ClickHouse.

Known rows go into ioscale.io_samples under a run_id unique to this test session (isolation.unique), so the
expected rates and latencies are exact whatever else the table holds; they are deleted afterwards.
"""

from __future__ import annotations

import json
import secrets as pysecrets
from datetime import datetime, timedelta, timezone

import pytest
import requests

from ioscale.provision.superset import SupersetDashboards, api_session
from ioscale.provision.superset_bundle import bundle_uuids, dashboard_chart_refs, load_sources
from ioscale.stack.component import StackContext
from ioscale.stack.progress import SilentProgress
from ioscale.stack.settings import CLICKHOUSE_USERS
from ioscale.stack.superset import DATABASE_NAME, LIVE_DASHBOARD_SLUG

from isolation import PREFIX, delete_rows, unique

pytestmark = pytest.mark.timeout(300)

INTERVAL_MS = 2000
CHART_IOPS = "70c1e039-ad45-4a95-9bef-c95265730b7e"  # fleet IOPS (query 0) and MB/s (query 1) by direction
CHART_LATENCY = "a808fdc6-fb90-403b-a60d-1c1e9c00ad46"  # mean latency by direction (query 0), outstanding I/Os (1)


@pytest.fixture(scope="module")
def api(stack):
    return api_session(stack.settings, stack.secrets)


@pytest.fixture(scope="module")
def database_id(api) -> int:
    rows = api.api("GET", "/api/v1/database/?q=(columns:!(id,database_name,backend,uuid),page_size:100)").json()
    [db] = [r for r in rows["result"] if r["database_name"] == DATABASE_NAME]
    return db["id"]


def _chart_ids(api) -> dict[str, int]:
    rows = api.api("GET", "/api/v1/chart/?q=(columns:!(id,uuid),page_size:100)").json()["result"]
    return {r["uuid"]: r["id"] for r in rows}


@pytest.fixture(scope="module")
def samples(stack):
    """Four rows of a fresh run: two 2 s intervals in two 10 s buckets, two targets, both directions."""
    import clickhouse_connect

    run_id = unique("superset")
    # The live charts plot 10 s buckets: t0 starts one, t1 the next.
    now = datetime.now(timezone.utc).replace(microsecond=0) - timedelta(seconds=60)
    t0 = now - timedelta(seconds=now.second % 10)
    t1 = t0 + timedelta(seconds=10)
    # (ts, target, direction, ops, bytes, mean latency ns)
    rows = [
        (t0, "disk-a", "read", 1000, 4_096_000, 250_000),
        (t0, "disk-b", "read", 500, 2_048_000, 400_000),
        (t0, "disk-a", "write", 200, 819_200, 1_000_000),
        (t1, "disk-a", "read", 2000, 8_192_000, 100_000),
    ]
    columns = ["ts", "interval_ms", "run_id", "step_index", "host", "vm", "target", "direction", "ops", "bytes",
               "outstanding_ios", "errors", "latency_count", "latency_sum_ns", "latency_min_ns", "latency_max_ns"]
    data = [
        [ts, INTERVAL_MS, run_id, 0, f"{PREFIX}host-1", "vm-1", target, direction, ops, nbytes, 4.0, 0,
         ops, ops * lat_ns, lat_ns // 2, lat_ns * 3]
        for ts, target, direction, ops, nbytes, lat_ns in rows
    ]
    user, password = CLICKHOUSE_USERS["admin"], stack.secrets["CLICKHOUSE_ADMIN_PASSWORD"]
    client = clickhouse_connect.get_client(
        host=stack.settings.host, port=stack.settings.port("clickhouse_http"), username=user, password=password
    )
    client.insert("ioscale.io_samples", data, column_names=columns)
    yield {"run_id": run_id, "t0_ms": int(t0.timestamp() * 1000), "t1_ms": int(t1.timestamp() * 1000)}
    try:
        delete_rows(client, "io_samples", run_id)
    finally:
        client.close()


def _sql_lab(api, database_id: int, sql: str) -> dict:
    r = api.api("POST", "/api/v1/sqllab/execute/", json={
        "database_id": database_id,
        "sql": sql,
        "schema": "ioscale",
        "runAsync": False,
        "client_id": pysecrets.token_hex(5),  # the query table holds 11 characters at most
        "queryLimit": 1000,
        "tab": "ioscale integration test",
    })
    assert r.status_code == 200, r.text[:1000]
    body = r.json()
    assert body["status"] == "success", body
    return body


# -- login and imported objects ----------------------------------------------------------------------
def test_health_endpoint(stack):
    r = requests.get(f"{stack.settings.url('superset')}/health", timeout=10)
    assert (r.status_code, r.text.strip()) == (200, "OK")


def test_api_login_as_admin(api):
    me = api.api("GET", "/api/v1/me/").json()["result"]
    assert me["username"] == "admin" and me["is_active"]


def test_wrong_password_is_refused(stack):
    r = requests.post(
        f"{stack.settings.url('superset')}/api/v1/security/login",
        json={"username": "admin", "password": "not-the-password", "provider": "db"}, timeout=30,
    )
    assert r.status_code == 401


def test_csrf_is_enforced_on_state_changing_calls(stack):
    no_csrf = api_session(stack.settings, stack.secrets)
    del no_csrf.headers["X-CSRFToken"]
    r = no_csrf.api("POST", "/api/v1/sqllab/execute/", json={"database_id": 1, "sql": "SELECT 1", "runAsync": False})
    assert r.status_code == 400 and "CSRF token is missing" in r.text


def test_clickhouse_database_is_listed_with_the_reader_account(api, database_id, stack):
    expected_uuid = bundle_uuids(stack.settings.repo / "superset")["databases"][0]
    rows = api.api("GET", "/api/v1/database/?q=(columns:!(id,database_name,backend,uuid))").json()["result"]
    [db] = [r for r in rows if r["id"] == database_id]
    assert (db["backend"], db["uuid"]) == ("clickhousedb", expected_uuid)
    uri = api.api("GET", f"/api/v1/database/{database_id}/connection").json()["result"]["sqlalchemy_uri"]
    host, port = stack.settings.host, stack.settings.port("clickhouse_http")
    assert uri == f"clickhousedb://{CLICKHOUSE_USERS['reader']}:XXXXXXXXXX@{host}:{port}/ioscale"


def test_live_dashboard_is_imported_with_its_charts_and_filters(api, stack):
    sources = load_sources(stack.settings.repo / "superset")
    dash = api.api("GET", f"/api/v1/dashboard/{LIVE_DASHBOARD_SLUG}").json()["result"]
    assert dash["dashboard_title"] == "ioscale — live run" and dash["published"]
    meta = json.loads(dash["json_metadata"])
    assert meta["refresh_frequency"] == 5
    by_column = {f["targets"][0]["column"]["name"]: f for f in meta["native_filter_configuration"]
                 if f["filterType"] == "filter_select"}
    assert set(by_column) == {"run_id", "host", "vm", "target"}
    dataset_ids = {r["uuid"]: r["id"] for r in
                   api.api("GET", "/api/v1/dataset/?q=(columns:!(id,uuid),page_size:100)").json()["result"]}
    runs_uuid = next(str(d["uuid"]) for n, d in sources.items() if n.startswith("datasets/") and d["table_name"] == "dash_runs")
    assert by_column["run_id"]["targets"][0]["datasetId"] == dataset_ids[runs_uuid]  # remapped from the UUID
    charts = api.api("GET", f"/api/v1/dashboard/{dash['id']}/charts").json()["result"]
    ids = _chart_ids(api)
    # the preview charts kept their UUIDs and live on in the live dashboard (throughput merged into the IOPS chart)
    assert {ids[u] for u in (CHART_IOPS, CHART_LATENCY)} <= {c["id"] for c in charts}
    assert len(charts) == len(dashboard_chart_refs(next(d for n, d in sources.items()
                                                        if n.startswith("dashboards/") and d["slug"] == LIVE_DASHBOARD_SLUG)))


def test_reimport_is_idempotent(api, stack):
    """`stack up` imports on every run: objects are matched by UUID, never duplicated."""
    before = _chart_ids(api)
    comp = SupersetDashboards(StackContext(stack.settings, stack.secrets, SilentProgress()))
    comp.configure()
    comp.configure()
    assert _chart_ids(api) == before
    dashboards = api.api("GET", "/api/v1/dashboard/?q=(columns:!(id,uuid),page_size:100)").json()["result"]
    for uuid in bundle_uuids(stack.settings.repo / "superset")["dashboards"]:
        assert [d["uuid"] for d in dashboards].count(uuid) == 1
    databases = api.api("GET", "/api/v1/database/?q=(columns:!(id,database_name))").json()["result"]
    assert [d["database_name"] for d in databases].count(DATABASE_NAME) == 1


# -- queries through Superset against ClickHouse ------------------------------------------------------
def test_sql_lab_runs_on_clickhouse(api, database_id):
    body = _sql_lab(api, database_id, "SELECT 6 * 7 AS answer, currentUser() AS who")
    assert body["data"] == [{"answer": 42, "who": CLICKHOUSE_USERS["reader"]}]


def test_sql_lab_reads_io_samples(api, database_id, samples):
    body = _sql_lab(
        api, database_id,
        f"SELECT sum(ops) AS ops, count() AS n, uniqExact(target) AS targets "
        f"FROM ioscale.io_samples WHERE run_id = '{samples['run_id']}'",
    )
    assert body["data"] == [{"ops": 3700, "n": 4, "targets": 2}]


def test_saved_chart_data_api_returns_rows(api, samples):
    chart_id = _chart_ids(api)[CHART_IOPS]
    r = api.api("GET", f"/api/v1/chart/{chart_id}/data/")
    assert r.status_code == 200, r.text[:1000]
    result = r.json()["result"][0]
    assert result["rowcount"] >= 2 and result["data"]
    assert {"ts_10s", "read"} <= set(result["colnames"])


def _chart_data_for_run(api, chart_uuid: str, run_id: str, query: int = 0) -> dict[int, dict]:
    """The chart's saved query number ``query``, narrowed to one run (what the dashboard's run filter does)."""
    chart = api.api("GET", f"/api/v1/chart/{_chart_ids(api)[chart_uuid]}").json()["result"]
    qc = json.loads(chart["query_context"])
    for q in qc["queries"]:
        q["filters"].append({"col": "run_id", "op": "==", "val": run_id})
    qc["force"] = True
    r = api.api("POST", "/api/v1/chart/data", json=qc)
    assert r.status_code == 200, r.text[:1000]
    result = r.json()["result"][query]
    x = result["colnames"][0]  # the time axis: ts_10s
    return {row[x]: row for row in result["data"]}


def test_chart_rates_and_latency_are_exact(api, samples):
    t0, t1 = samples["t0_ms"], samples["t1_ms"]
    iops = _chart_data_for_run(api, CHART_IOPS, samples["run_id"])
    assert sorted(iops) == [t0, t1]
    # two targets read 1000 + 500 ops in a 2 s interval; one wrote 200: a bucket's rate is over the span it covers
    assert iops[t0]["read"] == pytest.approx(750.0) and iops[t0]["write"] == pytest.approx(100.0)
    assert iops[t1]["read"] == pytest.approx(1000.0) and iops[t1].get("write") is None
    mbps = _chart_data_for_run(api, CHART_IOPS, samples["run_id"], query=1)
    assert mbps[t0]["read"] == pytest.approx((4_096_000 + 2_048_000) / 2 / 1e6)
    latency = _chart_data_for_run(api, CHART_LATENCY, samples["run_id"])
    # weighted by I/O count: (1000 x 250 us + 500 x 400 us) / 1500
    assert latency[t0]["read"] == pytest.approx(300.0)
    assert latency[t0]["write"] == pytest.approx(1000.0)
    assert latency[t1]["read"] == pytest.approx(100.0)
