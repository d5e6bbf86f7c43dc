"""superset/alerts/: the Alerts & Reports definitions and the REST payloads applied for them."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from ioscale.provision import superset_alerts as sa
from ioscale.provision.superset_bundle import load_sources

REPO = Path(__file__).resolve().parents[3]
ALERTS = REPO / "superset" / "alerts"


@pytest.fixture(scope="module")
def alerts() -> list[dict]:
    return sa.load_alerts(ALERTS)


def test_saturation_and_slo_alerts_are_defined_and_sound(alerts):
    names = {a["name"] for a in alerts}
    assert {"ioscale: saturation detected", "ioscale: latency SLO breached", "ioscale: fleet p99 over 10 ms"} <= names
    assert sa.check_alerts(alerts, load_sources(REPO / "superset")) == []
    for a in alerts:
        # new alerts are found by when the job wrote them: an imported run's event times are far from now
        assert "emitted_at >= now64(3) - INTERVAL" in a["sql"], a["_file"]
        assert "password" not in json.dumps({k: v for k, v in a.items() if k != "_file"}).lower()


@pytest.mark.parametrize("mutate,expected", [
    (lambda a: a.update(chart_uuid="00000000-0000-4000-8000-000000000000"), "matches no chart"),
    (lambda a: a.update(database_uuid="00000000-0000-4000-8000-000000000000"), "matches no database"),
    (lambda a: a.update(sql="DELETE FROM ioscale.alerts"), "one SELECT"),
    (lambda a: a.update(sql="SELECT 1; SELECT 2"), "one SELECT"),
    (lambda a: a.update(validator={"op": "=>", "threshold": 1}), "validator"),
    (lambda a: a.update(crontab="every 5 minutes"), "five cron fields"),
    (lambda a: a.pop("description"), "description is missing"),
])
def test_check_catches_broken_definitions(alerts, mutate, expected):
    broken = copy.deepcopy(alerts)
    mutate(broken[0])
    problems = sa.check_alerts(broken, load_sources(REPO / "superset"))
    assert any(expected in p for p in problems), problems


def test_duplicate_names_are_caught(alerts):
    twice = copy.deepcopy(alerts) + [copy.deepcopy(alerts[0])]
    assert any("used twice" in p for p in sa.check_alerts(twice, load_sources(REPO / "superset")))


def test_payload_is_an_operator_alert_on_the_database_with_the_chart_as_text(alerts):
    a = next(x for x in alerts if x["name"] == "ioscale: saturation detected")
    body = sa.report_payload(a, chart_id=12, database_id=3, owner_id=1,
                             recipients=sa.Recipients(["ops@example.org", "lab@example.org"], "https://hook/x"))
    assert body["type"] == "Alert" and body["database"] == 3 and body["chart"] == 12 and body["owners"] == [1]
    assert body["validator_type"] == "operator" and body["validator_config_json"] == {"op": ">", "threshold": 0}
    assert body["report_format"] == "TEXT"  # no browser needed in the Celery worker
    assert body["creation_method"] == "alerts_reports"  # several alerts may show the same chart
    assert body["recipients"] == [
        {"type": "Email", "recipient_config_json": {"target": "ops@example.org,lab@example.org"}},
        {"type": "Webhook", "recipient_config_json": {"target": "https://hook/x"}},
    ]
    assert not body["sql"].endswith(";")


def test_recipients_come_from_the_environment():
    r = sa.Recipients.from_env({"IOSCALE_ALERT_EMAILS": " a@x.org, b@x.org ,", "IOSCALE_ALERT_WEBHOOK_URL": ""})
    assert r.emails == ["a@x.org", "b@x.org"] and r.webhook_url is None
    assert sa.Recipients.from_env({}).payload() == []


class _Resp:
    def __init__(self, status: int, body: dict):
        self.status_code, self._body, self.text = status, body, json.dumps(body)

    def json(self) -> dict:
        return self._body

    def raise_for_status(self) -> None:
        assert self.status_code < 400


class _FakeSuperset:
    """Superset's REST API as far as apply_alerts uses it; one alert exists already."""

    base_url = "http://superset"

    def __init__(self, alerts: list[dict]):
        self.calls: list[tuple[str, str, dict | None]] = []
        self.existing = {alerts[0]["name"]: 41}
        self.chart_ids = {str(a["chart_uuid"]): 7 for a in alerts}

    def get(self, url: str, timeout: float) -> _Resp:
        resource = url.split("/api/v1/")[1].split("/")[0]
        rows = {"chart": [{"id": 7, "uuid": u} for u in self.chart_ids],
                "database": [{"id": 3, "uuid": "e1b5351f-eb90-4ca9-98b1-c8b1d25dae02"}]}[resource]
        return _Resp(200, {"result": rows})

    def api(self, method: str, path: str, **kw) -> _Resp:
        self.calls.append((method, path, kw.get("json")))
        if path == "/api/v1/me/":
            return _Resp(200, {"result": {"id": 1}})
        if method == "GET":
            rows = [{"id": i, "name": n} for n, i in self.existing.items() if f"'{n}'" in path.replace("!'", "'")]
            return _Resp(200, {"result": rows})
        return _Resp(201 if method == "POST" else 200, {"id": 99})


def test_apply_updates_existing_alerts_by_name_and_creates_the_others(alerts):
    fake = _FakeSuperset(alerts)
    done = sa.apply_alerts(fake, alerts, sa.Recipients(["ops@example.org"]))
    assert dict(done) == {a["name"]: ("updated" if a is alerts[0] else "created") for a in alerts}
    writes = [(m, p) for m, p, _ in fake.calls if m in ("POST", "PUT")]
    assert writes[0] == ("PUT", "/api/v1/report/41") and all(w == ("POST", "/api/v1/report/") for w in writes[1:])
    assert all(body["chart"] == 7 and body["database"] == 3 for m, _, body in fake.calls if m in ("POST", "PUT"))


def test_dry_run_writes_nothing(alerts):
    fake = _FakeSuperset(alerts)
    done = sa.apply_alerts(fake, alerts, sa.Recipients(), dry_run=True)
    assert all("would be" in action for _, action in done)
    assert not [c for c in fake.calls if c[0] in ("POST", "PUT")]
