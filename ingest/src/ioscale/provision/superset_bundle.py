"""Build the Superset import bundle from the repository's ``superset/`` directory (dashboards as code).

The directory holds Superset's export layout, linked by UUID only::

    superset/metadata.yaml                       type: assets (ImportAssetsCommand overwrites by UUID)
    superset/databases/<name>.yaml               sqlalchemy_uri: __IOSCALE_CLICKHOUSE_URI__
    superset/datasets/<database>/<table>.yaml    database_uuid -> a database
    superset/charts/<name>.yaml                  dataset_uuid -> a dataset
    superset/dashboards/<name>.yaml              position CHART nodes -> charts (meta.uuid),
                                                 native filter targets -> datasets (datasetUuid)

Two things differ from a raw export, both resolved here so the files in git stay readable and free
of secrets:
  * the database URI is a placeholder, rendered from the stack settings and secrets at import time;
  * a chart's ``query_context`` may be a YAML mapping; it is serialised to the JSON string Superset
    stores, with ``form_data`` taken from the chart's ``params`` when absent.

Everything here is a pure function of its inputs (no network, no Superset import), for unit tests.
"""

from __future__ import annotations

import copy
import io
import json
import zipfile
from pathlib import Path
from typing import Any
from urllib.parse import quote

import yaml

from ioscale.errors import ConfigError

#: Placeholder in databases/*.yaml; replaced by :func:`clickhouse_uri` output when rendering.
URI_PLACEHOLDER = "__IOSCALE_CLICKHOUSE_URI__"
#: Folder the files sit in inside the zip; Superset strips the first path component on import.
ZIP_ROOT = "ioscale_superset_bundle"
KINDS = ("databases", "datasets", "charts", "dashboards")
#: Fixed zip entry time, so the same sources give byte-identical bundles.
_ZIP_DATE = (2026, 1, 1, 0, 0, 0)


class BundleError(ConfigError):
    """The bundle sources are inconsistent (bad reference, duplicate UUID, secret in git...)."""


def clickhouse_uri(user: str, password: str, host: str, port: int, database: str = "ioscale") -> str:
    """SQLAlchemy URI for clickhouse-connect's dialect; user and password are percent-encoded."""
    return f"clickhousedb://{quote(user, safe='')}:{quote(password, safe='')}@{host}:{port}/{database}"


def load_yaml_mapping(path: Path, label: str, error: type[ConfigError]) -> dict[str, Any]:
    """A YAML file whose top level is a mapping; ``error(f"{label}: ...")`` when it is not valid YAML or no mapping."""
    try:
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as e:
        raise error(f"{label}: not valid YAML: {e}") from None
    if not isinstance(doc, dict):
        raise error(f"{label}: expected a mapping at the top level")
    return doc


def load_sources(src_dir: Path) -> dict[str, dict[str, Any]]:
    """Parse ``metadata.yaml`` and every YAML file under the four kind folders, keyed by relative path."""
    src_dir = Path(src_dir)
    meta_file = src_dir / "metadata.yaml"
    if not meta_file.is_file():
        raise BundleError(f"{meta_file} is missing; is {src_dir} a Superset bundle directory?")
    sources: dict[str, dict[str, Any]] = {}
    files = [meta_file] + sorted(p for kind in KINDS for p in (src_dir / kind).rglob("*.yaml"))
    for path in files:
        rel = path.relative_to(src_dir).as_posix()
        sources[rel] = load_yaml_mapping(path, rel, BundleError)
    return sources


def _of_kind(sources: dict[str, dict[str, Any]], kind: str) -> dict[str, dict[str, Any]]:
    return {name: doc for name, doc in sources.items() if name.startswith(kind + "/")}


def dashboard_chart_refs(dashboard: dict[str, Any]) -> list[tuple[str, Any]]:
    """(chart uuid, bundle-local chartId) of every CHART node in a dashboard's position."""
    refs = []
    for node in (dashboard.get("position") or {}).values():
        if isinstance(node, dict) and node.get("type") == "CHART":
            meta = node.get("meta") or {}
            refs.append((str(meta.get("uuid")), meta.get("chartId")))
    return refs


def dashboard_filter_dataset_refs(dashboard: dict[str, Any]) -> list[str]:
    """Dataset UUIDs that the dashboard's native filters read their values from."""
    refs = []
    for flt in (dashboard.get("metadata") or {}).get("native_filter_configuration") or []:
        for target in flt.get("targets") or []:
            if target.get("datasetUuid"):
                refs.append(str(target["datasetUuid"]))
    return refs


#: params keys that name saved metrics / dataset columns, per the viz types the bundle uses.
_METRIC_KEYS = ("metrics", "metrics_b", "metric", "timeseries_limit_metric", "timeseries_limit_metric_b",
                "percent_metrics", "secondary_metric", "sort_by_metric")
_COLUMN_KEYS = ("groupby", "groupby_b", "columns", "all_columns", "x_axis", "series")
#: Number of queries the frontend builds for a viz type (the chart data API runs query_context as saved).
_QUERIES_PER_VIZ = {"mixed_timeseries": 2}


def _as_list(value: Any) -> list[Any]:
    if value is None or value == "":
        return []
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _query_context(chart: dict[str, Any]) -> dict[str, Any]:
    qc = chart.get("query_context")
    if isinstance(qc, str):
        qc = json.loads(qc)
    return qc or {}


def _chart_metric_names(chart: dict[str, Any]) -> set[str]:
    """Saved-metric names a chart uses: strings in its params and in its query_context's queries."""
    params = chart.get("params") or {}
    names = {m for key in _METRIC_KEYS for m in _as_list(params.get(key)) if isinstance(m, str)}
    for query in _query_context(chart).get("queries") or []:
        names.update(m for m in query.get("metrics") or [] if isinstance(m, str))
        names.update(o[0] for o in query.get("orderby") or [] if isinstance(o, list) and isinstance(o[0], str)
                     and o[0] in names)
    return names


def _chart_column_names(chart: dict[str, Any]) -> set[str]:
    """Dataset columns a chart references by name: params (group-bys, x axis, raw columns, sort, filters) and
    the saved queries (columns, series, filters). Adhoc SQL expressions are not names and are skipped."""
    params = chart.get("params") or {}
    cols = {c for key in _COLUMN_KEYS for c in _as_list(params.get(key)) if isinstance(c, str)}
    for key in ("adhoc_filters", "adhoc_filters_b"):
        cols.update(f["subject"] for f in params.get(key) or []
                    if f.get("expressionType") == "SIMPLE" and isinstance(f.get("subject"), str))
    for item in params.get("order_by_cols") or []:
        cols.add(json.loads(item)[0])
    for query in _query_context(chart).get("queries") or []:
        for c in query.get("columns") or []:
            if isinstance(c, str):
                cols.add(c)
            elif isinstance(c, dict) and c.get("isColumnReference"):
                cols.add(c["sqlExpression"])
        cols.update(c for c in query.get("series_columns") or [] if isinstance(c, str))
        cols.update(f["col"] for f in query.get("filters") or [] if isinstance(f.get("col"), str))
    return cols


def _check_chart(name: str, chart: dict[str, Any], dataset: dict[str, Any]) -> list[str]:
    problems = []
    metrics = {m["metric_name"] for m in dataset.get("metrics") or []}
    columns = {c["column_name"] for c in dataset.get("columns") or []}
    for metric in sorted(_chart_metric_names(chart) - metrics):
        problems.append(f"{name}: metric {metric!r} is not defined in its dataset")
    for col in sorted(_chart_column_names(chart) - columns - metrics):
        problems.append(f"{name}: column {col!r} is not in its dataset")
    qc = _query_context(chart)
    if not qc:
        problems.append(f"{name}: query_context is missing (the chart data API needs it)")
        return problems
    queries = qc.get("queries") or []
    want = _QUERIES_PER_VIZ.get(chart.get("viz_type"), 1)
    if len(queries) != want:
        problems.append(f"{name}: query_context has {len(queries)} queries, {chart.get('viz_type')} builds {want}")
    params = chart.get("params") or {}
    for i, suffix in enumerate(("", "_b")[:len(queries)]):
        # The editor's metrics and the saved query's must agree, or the API and the dashboard show different data.
        expected = [m for m in _as_list(params.get("metrics" + suffix) or params.get("metric")) if isinstance(m, str)]
        got = [m for m in queries[i].get("metrics") or [] if isinstance(m, str)]
        if expected and got and expected != got:
            problems.append(f"{name}: query {i} asks for metrics {got}, the chart shows {expected}")
        axis = [c.get("sqlExpression") for c in queries[i].get("columns") or []
                if isinstance(c, dict) and c.get("columnType") == "BASE_AXIS"]
        if axis and params.get("x_axis") and axis != [params["x_axis"]]:
            problems.append(f"{name}: query {i} is plotted against {axis[0]!r}, the chart's x axis is "
                            f"{params['x_axis']!r}")
    return problems


def _check_dashboard(name: str, dash: dict[str, Any], chart_uuids: set[str],
                     ds_by_uuid: dict[str, dict[str, Any]]) -> list[str]:
    problems = []
    position = dash.get("position") or {}
    local_ids = []
    for uuid, chart_id in dashboard_chart_refs(dash):
        if uuid not in chart_uuids:
            problems.append(f"{name}: chart uuid {uuid} matches no chart")
        if not isinstance(chart_id, int):
            problems.append(f"{name}: chart {uuid} needs an integer meta.chartId placeholder")
        local_ids.append(chart_id)
    if len(local_ids) != len(set(local_ids)):
        problems.append(f"{name}: meta.chartId placeholders must be unique within the dashboard")
    for node_id, node in position.items():
        if not isinstance(node, dict):
            continue
        for child in node.get("children") or []:
            if child not in position:
                problems.append(f"{name}: {node_id} lists child {child} that is not in position")
        if node.get("type") == "ROW":
            width = sum((position.get(c) or {}).get("meta", {}).get("width", 0) for c in node.get("children") or [])
            if width > 12:
                problems.append(f"{name}: {node_id} is {width} columns wide (at most 12)")
    filters = (dash.get("metadata") or {}).get("native_filter_configuration") or []
    filter_ids = {f.get("id") for f in filters}
    for flt in filters:
        for target in flt.get("targets") or []:
            if not target.get("datasetUuid"):
                continue
            ds = ds_by_uuid.get(str(target["datasetUuid"]))
            if ds is None:
                problems.append(f"{name}: native filter dataset {target['datasetUuid']} matches no dataset")
                continue
            col = (target.get("column") or {}).get("name")
            if col not in {c["column_name"] for c in ds.get("columns") or []}:
                problems.append(f"{name}: native filter {flt.get('id')} targets column {col!r}, "
                                f"not in dataset {ds.get('table_name')}")
        for parent in flt.get("cascadeParentIds") or []:
            if parent not in filter_ids:
                problems.append(f"{name}: native filter {flt.get('id')} cascades from unknown filter {parent}")
        for excluded in (flt.get("scope") or {}).get("excluded") or []:
            if excluded not in local_ids:
                problems.append(f"{name}: native filter {flt.get('id')} excludes chartId {excluded}, "
                                f"which is not on the dashboard")
        if (flt.get("controlValues") or {}).get("defaultToFirstItem") and not flt.get("requiredFirst"):
            # Without it Superset 6.1 queries every chart before the filter has its first value: unfiltered.
            problems.append(f"{name}: native filter {flt.get('id')} selects its first value: set requiredFirst: true")
    return problems


def check_sources(sources: dict[str, dict[str, Any]]) -> list[str]:
    """Every problem that would make the import fail or half-work; empty when the bundle is sound."""
    problems: list[str] = []
    meta = sources.get("metadata.yaml", {})
    if meta.get("type") != "assets":
        problems.append("metadata.yaml: type must be 'assets' (overwrite-by-UUID import)")

    seen: dict[str, str] = {}
    for name, doc in sources.items():
        if name == "metadata.yaml":
            continue
        uuid = str(doc.get("uuid") or "")
        if not uuid:
            problems.append(f"{name}: no uuid")
        elif uuid in seen:
            problems.append(f"{name}: uuid {uuid} already used by {seen[uuid]}")
        else:
            seen[uuid] = name

    databases = _of_kind(sources, "databases")
    datasets = _of_kind(sources, "datasets")
    charts = _of_kind(sources, "charts")
    dashboards = _of_kind(sources, "dashboards")
    db_uuids = {str(d["uuid"]) for d in databases.values() if d.get("uuid")}
    ds_by_uuid = {str(d["uuid"]): d for d in datasets.values() if d.get("uuid")}
    chart_uuids = {str(c["uuid"]) for c in charts.values() if c.get("uuid")}

    for name, doc in databases.items():
        if doc.get("sqlalchemy_uri") != URI_PLACEHOLDER:
            # The URI carries the password once rendered: git only ever holds the placeholder.
            problems.append(f"{name}: sqlalchemy_uri must be the placeholder {URI_PLACEHOLDER}")
    table_names: dict[str, str] = {}
    for name, doc in datasets.items():
        if str(doc.get("database_uuid")) not in db_uuids:
            problems.append(f"{name}: database_uuid {doc.get('database_uuid')} matches no database")
        key = f"{doc.get('schema')}.{doc.get('table_name')}"
        if key in table_names:
            problems.append(f"{name}: table_name {key} already used by {table_names[key]} (Superset keeps one)")
        table_names[key] = name
        clash = {m["metric_name"] for m in doc.get("metrics") or []} & {c["column_name"] for c in doc.get("columns") or []}
        if clash:
            # ClickHouse resolves an alias before a column: `sum(x) AS x` nests the aggregate in itself.
            problems.append(f"{name}: metric names equal column names: {sorted(clash)}")
    for name, doc in charts.items():
        dataset = ds_by_uuid.get(str(doc.get("dataset_uuid")))
        if dataset is None:
            problems.append(f"{name}: dataset_uuid {doc.get('dataset_uuid')} matches no dataset")
            continue
        problems += _check_chart(name, doc, dataset)
    slugs: dict[str, str] = {}
    for name, doc in dashboards.items():
        if doc.get("slug") in slugs:
            problems.append(f"{name}: slug {doc.get('slug')!r} already used by {slugs[doc['slug']]}")
        slugs[doc.get("slug")] = name
        problems += _check_dashboard(name, doc, chart_uuids, ds_by_uuid)
    return problems


def physical_tables(sources: dict[str, dict[str, Any]]) -> dict[str, str]:
    """``schema.table`` of every physical dataset (no SQL of its own) -> its file: what must exist in ClickHouse."""
    return {f"{d.get('schema')}.{d['table_name']}": n for n, d in _of_kind(sources, "datasets").items()
            if not d.get("sql")}


def _render_query_context(chart: dict[str, Any]) -> str | None:
    qc = chart.get("query_context")
    if qc is None or isinstance(qc, str):
        return qc
    qc = copy.deepcopy(qc)
    qc.setdefault("form_data", copy.deepcopy(chart.get("params") or {}))
    return json.dumps(qc, separators=(",", ":"), ensure_ascii=False)


def render(sources: dict[str, dict[str, Any]], database_uri: str) -> dict[str, str]:
    """Import-ready YAML text per file: URI filled in, query contexts as JSON strings."""
    out: dict[str, str] = {}
    for name, doc in sources.items():
        doc = copy.deepcopy(doc)
        if name.startswith("databases/") and doc.get("sqlalchemy_uri") == URI_PLACEHOLDER:
            doc["sqlalchemy_uri"] = database_uri
        if name.startswith("charts/"):
            doc["query_context"] = _render_query_context(doc)
        out[name] = yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=1000)
    return out


def to_zip(files: dict[str, str], root: str = ZIP_ROOT) -> bytes:
    """Deterministic zip (fixed order and timestamps) with every file under ``root/``."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name in sorted(files):
            info = zipfile.ZipInfo(f"{root}/{name}", date_time=_ZIP_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, files[name].encode("utf-8"))
    return buf.getvalue()


def build_bundle(src_dir: Path, database_uri: str) -> bytes:
    """Check, render and zip ``src_dir``; raises :class:`BundleError` listing every problem."""
    sources = load_sources(src_dir)
    problems = check_sources(sources)
    if problems:
        raise BundleError(
            f"Superset bundle {src_dir} is inconsistent:\n  " + "\n  ".join(problems),
            hint="fix the YAML files under superset/ (every reference is by UUID)",
        )
    return to_zip(render(sources, database_uri))


def bundle_uuids(src_dir: Path) -> dict[str, list[str]]:
    """UUIDs per kind, e.g. for tests that look the imported objects up."""
    sources = load_sources(src_dir)
    return {kind: [str(d["uuid"]) for d in _of_kind(sources, kind).values()] for kind in KINDS}
