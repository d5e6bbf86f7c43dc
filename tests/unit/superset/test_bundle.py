"""The Superset bundle in superset/: sound references, no secrets in git, correct rendering and zip."""

from __future__ import annotations

import copy
import io
import json
import re
import zipfile
from pathlib import Path
from urllib.parse import unquote

import pytest
import yaml

from ioscale.stack import superset_bundle as sb
from ioscale.stack.superset import DATABASE_NAME, LIVE_DASHBOARD_SLUG

REPO = Path(__file__).resolve().parents[3]
BUNDLE = REPO / "superset"
IO_SAMPLES_DDL = REPO / "sql" / "migrations" / "0010_create_table_io_samples.sql"
UUID_RE = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
# A password that needs every kind of quoting in a URI.
NASTY_PASSWORD = "p@ss:w/rd?#%&=+ é"


@pytest.fixture(scope="module")
def sources() -> dict:
    return sb.load_sources(BUNDLE)


def _uri(password: str = NASTY_PASSWORD) -> str:
    return sb.clickhouse_uri("ioscale_reader", password, "127.0.0.1", 8123)


def _rendered(sources: dict, password: str = NASTY_PASSWORD) -> dict[str, dict]:
    return {name: yaml.safe_load(text) for name, text in sb.render(sources, _uri(password)).items()}


# -- the sources in git -----------------------------------------------------------------------------
def test_every_yaml_file_parses_and_all_kinds_are_present(sources):
    kinds = {name.split("/")[0] for name in sources}
    assert kinds == {"metadata.yaml", "databases", "datasets", "charts", "dashboards"}
    assert sources["metadata.yaml"]["type"] == "assets"
    all_yaml = sorted(p.relative_to(BUNDLE).as_posix() for p in BUNDLE.rglob("*.yaml"))
    assert sorted(sources) == all_yaml  # no YAML file is silently left out of the bundle


def test_bundle_is_consistent(sources):
    assert sb.check_sources(sources) == []


def test_uuids_are_fixed_valid_and_unique(sources):
    uuids = [str(d["uuid"]) for n, d in sources.items() if n != "metadata.yaml"]
    assert all(UUID_RE.fullmatch(u) for u in uuids)
    assert len(uuids) == len(set(uuids))
    # stable across loads: they are literals in the files, not generated
    assert uuids == [str(d["uuid"]) for n, d in sb.load_sources(BUNDLE).items() if n != "metadata.yaml"]


def test_every_uuid_reference_resolves(sources):
    by_uuid = {str(d["uuid"]): n for n, d in sources.items() if n != "metadata.yaml"}
    refs: list[tuple[str, str, str]] = []  # (file, referenced uuid, expected folder)
    for name, doc in sources.items():
        if name.startswith("datasets/"):
            refs.append((name, str(doc["database_uuid"]), "databases/"))
        elif name.startswith("charts/"):
            refs.append((name, str(doc["dataset_uuid"]), "datasets/"))
        elif name.startswith("dashboards/"):
            refs += [(name, u, "charts/") for u, _ in sb.dashboard_chart_refs(doc)]
            refs += [(name, u, "datasets/") for u in sb.dashboard_filter_dataset_refs(doc)]
    assert refs, "no references found at all"
    for name, uuid, folder in refs:
        assert by_uuid.get(uuid, "").startswith(folder), f"{name} -> {uuid} does not resolve to {folder}"


def test_no_password_or_uri_credentials_in_repo_files():
    for path in BUNDLE.rglob("*"):
        if not path.is_file():
            continue
        text = path.read_text(encoding="utf-8")
        # user:password@host in any URI
        assert not re.search(r"://[^/\s:@]+:[^@\s]+@", text), f"{path} holds credentials in a URI"
        assert "password" not in text.lower().replace("no password", ""), f"{path} mentions a password"
    db = yaml.safe_load((BUNDLE / "databases" / "ioscale_ClickHouse.yaml").read_text())
    assert db["sqlalchemy_uri"] == sb.URI_PLACEHOLDER


def test_constants_in_code_match_the_bundle(sources):
    dashboards = [d for n, d in sources.items() if n.startswith("dashboards/")]
    assert LIVE_DASHBOARD_SLUG in {d["slug"] for d in dashboards}
    assert DATABASE_NAME in {d["database_name"] for n, d in sources.items() if n.startswith("databases/")}


def test_live_dashboard_refreshes_every_5s_and_filters_by_run(sources):
    dash = next(d for n, d in sources.items() if n.startswith("dashboards/") and d["slug"] == LIVE_DASHBOARD_SLUG)
    assert dash["metadata"]["refresh_frequency"] == 5
    filters = dash["metadata"]["native_filter_configuration"]
    run_filter = [f for f in filters if f["filterType"] == "filter_select"]
    assert [t["column"]["name"] for f in run_filter for t in f["targets"]] == ["run_id"]
    charts = {str(d["uuid"]): d for n, d in sources.items() if n.startswith("charts/")}
    on_dash = [charts[u] for u, _ in sb.dashboard_chart_refs(dash)]
    assert {c["params"]["metrics"][0] for c in on_dash} == {"iops", "mb_per_s", "mean_latency_us"}
    for chart in on_dash:  # units in axis titles
        assert re.search(r"\((ops/s|operations/s|MB/s|µs)", chart["params"]["y_axis_title"]), chart["slice_name"]


def test_dataset_columns_match_the_clickhouse_ddl(sources):
    ddl_types = _ddl_columns(IO_SAMPLES_DDL.read_text())
    dataset = next(d for n, d in sources.items() if n.startswith("datasets/") and d["table_name"] == "io_samples")
    for col in dataset["columns"]:
        assert col["column_name"] in ddl_types, f"{col['column_name']} is not a column of ioscale.io_samples"
        assert col["type"] == ddl_types[col["column_name"]], col["column_name"]
    # ClickHouse resolves aliases before columns: a metric named like a column breaks its own query.
    assert not {m["metric_name"] for m in dataset["metrics"]} & set(ddl_types)


def _ddl_columns(ddl: str) -> dict[str, str]:
    ddl = re.sub(r"--.*", "", ddl)
    start = ddl.index("(", ddl.index("CREATE TABLE"))
    body = ddl[start + 1 : ddl.index("\n)", start)]
    cols = {}
    for line in body.splitlines():
        line = line.strip().rstrip(",").strip()
        if not line:
            continue
        name, rest = line.split(None, 1)
        cols[name] = re.split(r"\s+(?:CODEC|DEFAULT|MATERIALIZED|ALIAS)\b", rest)[0].strip()
    return cols


# -- rendering --------------------------------------------------------------------------------------
def test_uri_quotes_user_and_password():
    uri = _uri()
    creds = uri.split("://", 1)[1].rsplit("@", 1)[0]
    user, password = creds.split(":", 1)
    assert (user, unquote(password)) == ("ioscale_reader", NASTY_PASSWORD)
    assert uri.endswith("@127.0.0.1:8123/ioscale")
    assert not set(password) & set("@:/?# ")


def test_render_injects_the_uri_only_into_the_database(sources):
    out = _rendered(sources)
    dbs = [d for n, d in out.items() if n.startswith("databases/")]
    assert [d["sqlalchemy_uri"] for d in dbs] == [_uri()]
    others = "".join(t for n, t in sb.render(sources, _uri()).items() if not n.startswith("databases/"))
    assert "ioscale_reader" not in others
    assert sources["databases/ioscale_ClickHouse.yaml"]["sqlalchemy_uri"] == sb.URI_PLACEHOLDER  # input untouched


def test_render_serialises_query_context_with_form_data(sources):
    out = _rendered(sources)
    charts = {n: d for n, d in out.items() if n.startswith("charts/")}
    assert charts
    for name, chart in charts.items():
        assert isinstance(chart["query_context"], str), name
        qc = json.loads(chart["query_context"])
        assert qc["form_data"] == chart["params"], name
        query = qc["queries"][0]
        # the query asks for what the editor shows: same metrics, x axis plus the same group-by
        assert query["metrics"] == chart["params"]["metrics"], name
        assert query["columns"][0]["sqlExpression"] == chart["params"]["x_axis"], name
        assert query["columns"][1:] == chart["params"]["groupby"], name


def test_query_context_given_as_json_string_is_kept(sources):
    src = copy.deepcopy(sources)
    chart_name = next(n for n in src if n.startswith("charts/"))
    src[chart_name]["query_context"] = '{"queries": [{"metrics": ["iops"]}]}'
    out = _rendered(src)
    assert out[chart_name]["query_context"] == '{"queries": [{"metrics": ["iops"]}]}'


def test_zip_layout_and_determinism(sources):
    files = sb.render(sources, _uri())
    blob = sb.to_zip(files)
    assert blob == sb.to_zip(files)
    names = zipfile.ZipFile(io.BytesIO(blob)).namelist()
    assert all(n.startswith(sb.ZIP_ROOT + "/") for n in names)
    assert sorted(n.split("/", 1)[1] for n in names) == sorted(files)
    db_text = zipfile.ZipFile(io.BytesIO(blob)).read(f"{sb.ZIP_ROOT}/databases/ioscale_ClickHouse.yaml").decode()
    assert yaml.safe_load(db_text)["sqlalchemy_uri"] == _uri()


def test_build_bundle_end_to_end():
    blob = sb.build_bundle(BUNDLE, _uri("secret-1"))
    zf = zipfile.ZipFile(io.BytesIO(blob))
    assert f"{sb.ZIP_ROOT}/metadata.yaml" in zf.namelist()
    assert sb.bundle_uuids(BUNDLE)["dashboards"] == ["7ac26bbd-f745-4533-bbe6-ea7a3a6caa5a"]


# -- the checks catch broken bundles ----------------------------------------------------------------
def _break(sources: dict, prefix: str, mutate) -> list[str]:
    src = copy.deepcopy(sources)
    name = next(n for n in src if n.startswith(prefix))
    mutate(src[name])
    return sb.check_sources(src)


@pytest.mark.parametrize(
    "prefix,mutate,expected",
    [
        ("charts/", lambda c: c.update(dataset_uuid="00000000-0000-4000-8000-000000000000"), "matches no dataset"),
        ("datasets/", lambda d: d.update(database_uuid="00000000-0000-4000-8000-000000000000"), "matches no database"),
        ("databases/", lambda d: d.update(sqlalchemy_uri="clickhousedb://u:pw@h:1/db"), "placeholder"),
        ("charts/", lambda c: c["params"].update(metrics=["no_such_metric"]), "'no_such_metric' is not defined"),
        ("charts/", lambda c: c["params"].update(groupby=["no_such_col"]), "'no_such_col' is not in its dataset"),
        ("charts/", lambda c: c.update(query_context=None), "query_context is missing"),
        ("dashboards/", lambda d: next(v for v in d["position"].values()
                                       if isinstance(v, dict) and v.get("type") == "CHART")["meta"].update(
                                           uuid="00000000-0000-4000-8000-000000000000"), "matches no chart"),
        ("dashboards/", lambda d: d["metadata"]["native_filter_configuration"][0]["targets"][0].update(
            datasetUuid="00000000-0000-4000-8000-000000000000"), "native filter dataset"),
    ],
)
def test_check_reports_broken_references(sources, prefix, mutate, expected):
    problems = _break(sources, prefix, mutate)
    assert any(expected in p for p in problems), problems


def test_check_reports_duplicate_uuid(sources):
    src = copy.deepcopy(sources)
    a, b = [n for n in src if n.startswith("charts/")][:2]
    src[b]["uuid"] = src[a]["uuid"]
    assert any("already used by" in p for p in sb.check_sources(src))


def test_build_bundle_raises_with_every_problem(tmp_path):
    import shutil

    shutil.copytree(BUNDLE, tmp_path / "b")
    chart = next((tmp_path / "b" / "charts").glob("*.yaml"))
    doc = yaml.safe_load(chart.read_text())
    doc["dataset_uuid"] = "00000000-0000-4000-8000-000000000000"
    chart.write_text(yaml.safe_dump(doc))
    with pytest.raises(sb.BundleError, match="matches no dataset") as e:
        sb.build_bundle(tmp_path / "b", _uri())
    assert e.value.hint


def test_invalid_yaml_names_the_file(tmp_path):
    (tmp_path / "charts").mkdir()
    (tmp_path / "metadata.yaml").write_text("version: 1.0.0\ntype: assets\n")
    (tmp_path / "charts" / "bad.yaml").write_text("slice_name: [unclosed\n")
    with pytest.raises(sb.BundleError, match="charts/bad.yaml"):
        sb.load_sources(tmp_path)
