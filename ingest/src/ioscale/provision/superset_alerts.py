"""Superset Alerts & Reports for ioscale: definitions in ``superset/alerts/*.yaml``, applied through the REST API.

Superset's import bundle has no place for alerts (ImportAssetsCommand takes databases, datasets, charts, dashboards
and saved queries), so the alert definitions live next to the bundle and this module creates or updates them
through ``/api/v1/report/``, matched by name, which makes it idempotent. They only run where Superset runs Celery
(worker + beat, ALERT_REPORTS on): the docker-compose topology. The local stack has no Celery and relies on the
Flink job's alerts (Kafka topic ioscale.alerts) instead.

A definition names its database and the chart its notification shows by UUID, like the bundle does::

    name: "ioscale: saturation detected"
    description: ...
    database_uuid: e1b5351f-...       # superset/databases/
    chart_uuid: 8f1e...               # superset/charts/: sent as text (report_format TEXT), no browser needed
    sql: SELECT count() FROM ioscale.dash_alerts WHERE ...
    validator: {op: ">", threshold: 0}  # fire when the SQL's single value compares true
    crontab: "*/2 * * * *"
    grace_period_s: 1800               # no repeat notification within this many seconds
    working_timeout_s: 300
    log_retention_days: 30

Recipients are not in git: they come from the command line or the environment (IOSCALE_ALERT_EMAILS, a comma
separated list; IOSCALE_ALERT_WEBHOOK_URL).

    python -m ioscale.cli.superset_alerts --superset-url http://superset:8088 [--email ops@example.org]
                                          [--webhook https://hooks.example.org/ioscale] [--dry-run]

The admin password is read from SUPERSET_ADMIN_PASSWORD (never an argument, so it stays out of process lists).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ioscale.errors import ConfigError, IoscaleError
from ioscale.provision.superset_bundle import load_yaml_mapping

VALIDATOR_OPS = ("<", "<=", ">", ">=", "==", "!=")
REQUIRED_KEYS = ("name", "description", "database_uuid", "chart_uuid", "sql", "validator", "crontab")
_CRON_FIELD = re.compile(r"^[\d*/,\-]+$")


class AlertDefinitionError(ConfigError):
    """An alert definition under superset/alerts/ is incomplete or refers to something the bundle lacks."""


@dataclass
class Recipients:
    emails: list[str] = field(default_factory=list)
    webhook_url: str | None = None

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> "Recipients":
        env = os.environ if env is None else env
        emails = [e.strip() for e in env.get("IOSCALE_ALERT_EMAILS", "").split(",") if e.strip()]
        return cls(emails, env.get("IOSCALE_ALERT_WEBHOOK_URL") or None)

    def payload(self) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        if self.emails:
            out.append({"type": "Email", "recipient_config_json": {"target": ",".join(self.emails)}})
        if self.webhook_url:
            out.append({"type": "Webhook", "recipient_config_json": {"target": self.webhook_url}})
        return out


def load_alerts(alerts_dir: Path) -> list[dict[str, Any]]:
    """Every definition under ``alerts_dir``, sorted by file name; each gains ``_file``."""
    return [{**load_yaml_mapping(path, path.name, AlertDefinitionError), "_file": path.name}
            for path in sorted(Path(alerts_dir).glob("*.yaml"))]


def check_alerts(alerts: list[dict[str, Any]], bundle_sources: dict[str, dict[str, Any]]) -> list[str]:
    """Problems that would make an alert fail to apply or never fire; empty when all are sound."""
    chart_uuids = {str(d.get("uuid")) for n, d in bundle_sources.items() if n.startswith("charts/")}
    db_uuids = {str(d.get("uuid")) for n, d in bundle_sources.items() if n.startswith("databases/")}
    problems: list[str] = []
    names: set[str] = set()
    for a in alerts:
        f = a["_file"]
        for key in REQUIRED_KEYS:
            if not a.get(key):
                problems.append(f"{f}: {key} is missing")
        if a.get("name") in names:
            problems.append(f"{f}: name {a['name']!r} is used twice (alerts are matched by name)")
        names.add(a.get("name"))
        if a.get("chart_uuid") and str(a["chart_uuid"]) not in chart_uuids:
            problems.append(f"{f}: chart_uuid {a['chart_uuid']} matches no chart in superset/charts/")
        if a.get("database_uuid") and str(a["database_uuid"]) not in db_uuids:
            problems.append(f"{f}: database_uuid {a['database_uuid']} matches no database in superset/databases/")
        sql = str(a.get("sql") or "").strip().rstrip(";")
        if sql and (";" in sql or not re.match(r"(?is)^\s*(with|select)\b", sql)):
            problems.append(f"{f}: sql must be one SELECT statement (the alert reads one value)")
        v = a.get("validator") or {}
        if v and (v.get("op") not in VALIDATOR_OPS or not isinstance(v.get("threshold"), (int, float))):
            problems.append(f"{f}: validator needs op in {VALIDATOR_OPS} and a numeric threshold")
        cron = str(a.get("crontab") or "").split()
        if a.get("crontab") and (len(cron) != 5 or not all(_CRON_FIELD.match(x) for x in cron)):
            problems.append(f"{f}: crontab {a['crontab']!r} is not five cron fields")
    return problems


def report_payload(alert: dict[str, Any], chart_id: int, database_id: int, owner_id: int,
                   recipients: Recipients) -> dict[str, Any]:
    """The /api/v1/report/ body for one definition (ids resolved by the caller)."""
    return {
        "type": "Alert",
        "name": alert["name"],
        "description": alert["description"].strip(),
        "active": bool(alert.get("active", True)),
        "crontab": alert["crontab"],
        "timezone": alert.get("timezone", "UTC"),
        "sql": alert["sql"].strip().rstrip(";"),
        "database": database_id,
        "chart": chart_id,
        "validator_type": "operator",
        "validator_config_json": {"op": alert["validator"]["op"], "threshold": alert["validator"]["threshold"]},
        # TEXT: the chart's rows in the message body. PNG/PDF would need a browser in the Celery worker.
        "report_format": alert.get("report_format", "TEXT"),
        "grace_period": int(alert.get("grace_period_s", 1800)),
        "working_timeout": int(alert.get("working_timeout_s", 300)),
        "log_retention": int(alert.get("log_retention_days", 30)),
        "creation_method": "alerts_reports",
        "owners": [owner_id],
        "recipients": recipients.payload(),
    }


def _ids_by_uuid(session: Any, resource: str) -> dict[str, int]:
    from ioscale.provision.superset import _list_ids

    return {uuid: obj_id for obj_id, uuid in _list_ids(session, resource)}


def apply_alerts(session: Any, alerts: list[dict[str, Any]], recipients: Recipients,
                 dry_run: bool = False) -> list[tuple[str, str]]:
    """Create or update every alert (matched by name); returns (name, created|updated|would create...)."""
    charts = _ids_by_uuid(session, "chart")
    databases = _ids_by_uuid(session, "database")
    me = session.api("GET", "/api/v1/me/").json()["result"]
    done: list[tuple[str, str]] = []
    for alert in alerts:
        try:
            chart_id, db_id = charts[str(alert["chart_uuid"])], databases[str(alert["database_uuid"])]
        except KeyError as e:
            raise IoscaleError(f"{alert['_file']}: {e} is not in Superset",
                               "import the dashboards first (`ioscale stack up` or superset-init)") from None
        body = report_payload(alert, chart_id, db_id, me["id"], recipients)
        q = "(filters:!((col:name,opr:eq,value:'" + alert["name"].replace("'", "!'") + "')),columns:!(id,name))"
        found = session.api("GET", f"/api/v1/report/?q={q}")
        if found.status_code == 404:
            raise IoscaleError("Superset answers 404 on /api/v1/report/: Alerts & Reports is off",
                               "it is on only with Celery (SUPERSET_CELERY_BROKER_URL, docker-compose)")
        found.raise_for_status()
        existing = [r for r in found.json()["result"] if r["name"] == alert["name"]]
        action = "updated" if existing else "created"
        if dry_run:
            done.append((alert["name"], f"would be {action}: {json.dumps(body)[:200]}"))
            continue
        if existing:
            r = session.api("PUT", f"/api/v1/report/{existing[0]['id']}", json=body)
        else:
            r = session.api("POST", "/api/v1/report/", json=body)
        if r.status_code not in (200, 201):
            raise IoscaleError(f"{alert['_file']}: Superset refused the alert: HTTP {r.status_code} {r.text[:500]}")
        done.append((alert["name"], action))
    return done
