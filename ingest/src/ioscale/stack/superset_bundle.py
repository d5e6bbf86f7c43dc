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
        try:
            doc = yaml.safe_load(path.read_text(encoding="utf-8"))
        except yaml.YAMLError as e:
            raise BundleError(f"{rel}: not valid YAML: {e}") from None
        if not isinstance(doc, dict):
            raise BundleError(f"{rel}: expected a mapping at the top level")
        sources[rel] = doc
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


def _chart_metric_names(chart: dict[str, Any]) -> set[str]:
    """Saved-metric names a chart uses (strings in params.metrics / query_context queries)."""
    names = {m for m in (chart.get("params") or {}).get("metrics") or [] if isinstance(m, str)}
    qc = chart.get("query_context")
    if isinstance(qc, str):
        qc = json.loads(qc)
    for query in (qc or {}).get("queries") or []:
        names.update(m for m in query.get("metrics") or [] if isinstance(m, str))
    return names


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
    for name, doc in datasets.items():
        if str(doc.get("database_uuid")) not in db_uuids:
            problems.append(f"{name}: database_uuid {doc.get('database_uuid')} matches no database")
    for name, doc in charts.items():
        dataset = ds_by_uuid.get(str(doc.get("dataset_uuid")))
        if dataset is None:
            problems.append(f"{name}: dataset_uuid {doc.get('dataset_uuid')} matches no dataset")
            continue
        metrics = {m["metric_name"] for m in dataset.get("metrics") or []}
        columns = {c["column_name"] for c in dataset.get("columns") or []}
        for metric in sorted(_chart_metric_names(doc) - metrics):
            problems.append(f"{name}: metric {metric!r} is not defined in its dataset")
        for col in (doc.get("params") or {}).get("groupby") or []:
            if isinstance(col, str) and col not in columns:
                problems.append(f"{name}: groupby column {col!r} is not in its dataset")
        if doc.get("query_context") is None:
            problems.append(f"{name}: query_context is missing (the chart data API needs it)")
    for name, doc in dashboards.items():
        local_ids = []
        for uuid, chart_id in dashboard_chart_refs(doc):
            if uuid not in chart_uuids:
                problems.append(f"{name}: chart uuid {uuid} matches no chart")
            if not isinstance(chart_id, int):
                problems.append(f"{name}: chart {uuid} needs an integer meta.chartId placeholder")
            local_ids.append(chart_id)
        if len(local_ids) != len(set(local_ids)):
            problems.append(f"{name}: meta.chartId placeholders must be unique within the dashboard")
        for uuid in dashboard_filter_dataset_refs(doc):
            if uuid not in ds_by_uuid:
                problems.append(f"{name}: native filter dataset {uuid} matches no dataset")
    return problems


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
