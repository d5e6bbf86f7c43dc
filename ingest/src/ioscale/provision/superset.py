"""Superset's dashboards as code: the bundle built from ``superset/`` imported once Superset answers, and the
logged-in API sessions that import, the alerts (``superset_alerts``) and the tests use.

    configure  import the bundle built from superset/ through /api/v1/assets/import/ (overwrite by UUID), then
               delete what an earlier import created and the bundle no longer has (data/superset/imported.json)
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import requests

from ioscale.errors import StackError
from ioscale.provision.superset_bundle import KINDS, build_bundle, bundle_uuids, clickhouse_uri
from ioscale.stack.settings import CLICKHOUSE_USERS, SUPERSET_ADMIN_USER, StackSettings
from ioscale.stack.superset import DASHBOARD_SLUGS, SupersetComponent

#: REST resource per bundle folder, in the order stale objects are deleted (users of an object first).
_API_RESOURCE = {"dashboards": "dashboard", "charts": "chart", "datasets": "dataset", "databases": "database"}


class SupersetDashboards(SupersetComponent):
    """Superset with ioscale's databases, datasets, charts and dashboards."""

    @property
    def _imported_record(self) -> Path:
        """UUIDs the last import brought in, per bundle folder: what a later import may delete."""
        return self.data / "imported.json"

    def configure(self) -> None:
        """Import superset/ (databases, datasets, charts, dashboards); objects are matched by UUID."""
        t0 = time.monotonic()
        uri = clickhouse_uri(
            CLICKHOUSE_USERS["reader"],
            self.ctx.secrets["CLICKHOUSE_READER_PASSWORD"],
            self.settings.host,
            self.settings.port("clickhouse_http"),
        )
        bundle = build_bundle(self.bundle_dir, uri)
        session = api_session(self.settings, self.ctx.secrets)
        r = session.post(
            f"{self.url}/api/v1/assets/import/",
            files={"bundle": ("ioscale_superset_bundle.zip", bundle, "application/zip")},
            timeout=120,
        )
        if r.status_code != 200:
            raise StackError(
                self.name,
                f"dashboard import failed: HTTP {r.status_code}: {_redact(r.text, self.ctx.secrets)[:800]}",
                str(self.log_file),
                "fix the bundle under superset/ (or see the log), then re-run `ioscale stack up`",
            )
        for slug in DASHBOARD_SLUGS:
            r = session.get(f"{self.url}/api/v1/dashboard/{slug}", timeout=30)
            if r.status_code != 200:
                raise StackError(self.name, f"import reported OK but dashboard {slug!r} is missing (HTTP {r.status_code})",
                                 str(self.log_file), "see the log, then re-run `ioscale stack up`")
        removed = self._prune(session, bundle_uuids(self.bundle_dir))
        note = f", removed {removed} object(s) no longer in superset/" if removed else ""
        self.ui.done(f"{self.name}: imported dashboards from superset/ ({time.monotonic() - t0:.1f}s{note})")

    def _prune(self, session: "SupersetSession", current: dict[str, list[str]]) -> int:
        """Delete objects the previous import created that the bundle no longer holds (a renamed or removed
        chart would otherwise linger on its dashboards' former users' lists); objects made in the UI, which
        no import recorded, are never touched. Records the current UUIDs for the next run."""
        try:
            previous = json.loads(self._imported_record.read_text())
        except (FileNotFoundError, ValueError):
            previous = {}
        removed = 0
        for kind, resource in _API_RESOURCE.items():
            stale = set(previous.get(kind, [])) - set(current.get(kind, []))
            if not stale:
                continue
            for obj_id, uuid in _list_ids(session, resource):
                if uuid in stale:
                    r = session.delete(f"{self.url}/api/v1/{resource}/{obj_id}", timeout=60)
                    if r.status_code not in (200, 404):
                        raise StackError(self.name, f"could not delete stale {resource} {uuid}: HTTP {r.status_code} "
                                         f"{_redact(r.text, self.ctx.secrets)[:300]}", str(self.log_file))
                    removed += 1
        self._imported_record.write_text(json.dumps({k: sorted(current.get(k, [])) for k in KINDS}, indent=2))
        return removed


def _list_ids(session: "SupersetSession", resource: str) -> list[tuple[int, str]]:
    """(id, uuid) of every object of a REST resource (chart, dashboard, dataset, database), all pages."""
    out: list[tuple[int, str]] = []
    page = 0
    while True:
        r = session.get(f"{session.base_url}/api/v1/{resource}/?q=(columns:!(id,uuid),page:{page},page_size:100)",
                        timeout=60)
        r.raise_for_status()
        rows = r.json()["result"]
        out += [(row["id"], str(row["uuid"])) for row in rows]
        if len(rows) < 100:
            return out
        page += 1


def _redact(text: str, secrets: dict[str, str]) -> str:
    for value in secrets.values():
        if value:
            text = text.replace(value, "***")
    return text


class SupersetSession(requests.Session):
    """A logged-in API session; ``base_url`` is Superset's root URL."""

    base_url: str

    def api(self, method: str, path: str, **kw) -> requests.Response:
        kw.setdefault("timeout", 60)
        return self.request(method, f"{self.base_url}{path}", **kw)


def api_session(settings: StackSettings, secrets: dict[str, str], timeout_s: float = 30.0) -> SupersetSession:
    """Session logged in as the local stack's admin (see :func:`api_session_for`)."""
    return api_session_for(settings.url("superset"), SUPERSET_ADMIN_USER, secrets["SUPERSET_ADMIN_PASSWORD"],
                           timeout_s)


def api_session_for(base_url: str, user: str, password: str, timeout_s: float = 30.0) -> SupersetSession:
    """Session logged in to Superset at ``base_url``: JWT bearer token plus the session cookie and CSRF token
    that state-changing endpoints (imports, SQL Lab, reports) require."""
    base = base_url.rstrip("/")
    s = SupersetSession()
    s.trust_env = False
    s.base_url = base
    try:
        r = s.post(
            f"{base}/api/v1/security/login",
            json={"username": user, "password": password, "provider": "db", "refresh": False},
            timeout=timeout_s,
        )
    except requests.RequestException as e:
        raise StackError("superset", f"cannot reach {base}: {e}", hint="is the stack up? `ioscale stack status`") from None
    if r.status_code != 200 or "access_token" not in r.text:
        raise StackError(
            "superset",
            f"API login as {user!r} failed: HTTP {r.status_code}",
            hint="re-run `ioscale stack up`: it resets the admin password to the one in secrets.env",
        )
    s.headers["Authorization"] = f"Bearer {r.json()['access_token']}"
    r = s.get(f"{base}/api/v1/security/csrf_token/", timeout=timeout_s)
    r.raise_for_status()
    s.headers["X-CSRFToken"] = r.json()["result"]
    s.headers["Referer"] = f"{base}/"
    return s
