"""SupersetComponent without services: locations, process spec, environment, markers, endpoints."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from ioscale.stack.component import StackContext
from ioscale.stack.progress import SilentProgress
from ioscale.stack.settings import StackSettings
from ioscale.stack.superset import DASHBOARD_SLUGS, SupersetComponent

REPO = Path(__file__).resolve().parents[3]
SECRETS = {
    "SUPERSET_SECRET_KEY": "k" * 32,
    "SUPERSET_ADMIN_PASSWORD": "admin-pw-123",
    "CLICKHOUSE_READER_PASSWORD": "reader-pw-456",
}


def _component(tmp_path, secrets=SECRETS, **env) -> SupersetComponent:
    settings = StackSettings.from_env({"IOSCALE_REPO": str(REPO), "IOSCALE_HOME": str(tmp_path), **env})
    return SupersetComponent(StackContext(settings, dict(secrets), SilentProgress()))


def test_gunicorn_runs_in_foreground_on_the_configured_port(tmp_path):
    c = _component(tmp_path, IOSCALE_SUPERSET_PORT="18088")
    [spec] = c.processes()
    argv = spec.argv
    assert argv[0] == str(tmp_path / "dist" / "superset" / "venv" / "bin" / "gunicorn")
    assert argv[argv.index("--bind") + 1] == "127.0.0.1:18088"
    assert spec.ports == (18088,)
    assert "--daemon" not in argv and "-D" not in argv
    assert int(argv[argv.index("--workers") + 1]) <= 2  # memory budget: each worker holds the app
    assert "--no-control-socket" in argv  # gunicorn would otherwise write under ~/.gunicorn
    assert spec.log_file == tmp_path / "logs" / "superset.log"
    assert spec.pid_file == tmp_path / "run" / "superset.pid"


def test_environment_points_superset_at_our_config_and_state(tmp_path):
    c = _component(tmp_path)
    env = c.processes()[0].env
    assert env["SUPERSET_CONFIG_PATH"] == str(REPO / "stack" / "superset" / "superset_config.py")
    assert Path(env["SUPERSET_CONFIG_PATH"]).is_file()
    assert env["SUPERSET_SECRET_KEY"] == SECRETS["SUPERSET_SECRET_KEY"]
    assert env["IOSCALE_SUPERSET_DATA_DIR"] == env["SUPERSET_HOME"] == str(tmp_path / "data" / "superset")
    assert env["TZ"] == "UTC"


def test_stop_and_status_work_without_secrets(tmp_path):
    # `stack down` builds the process list before any secret exists.
    c = _component(tmp_path, secrets={})
    env = c.processes()[0].env
    assert "SUPERSET_SECRET_KEY" not in env


def test_install_version_follows_the_lock_file(tmp_path):
    c = _component(tmp_path)
    assert c.install_version.startswith("superset-6.1.0-lock-")
    assert not c.is_installed()
    c.mark_installed()
    assert c.is_installed()


def test_lock_pins_everything_the_field_notes_require():
    pins = {}
    for line in (REPO / "stack" / "superset" / "requirements.lock").read_text().splitlines():
        if line and not line.startswith("#"):
            name, version = line.split("==")
            pins[name.lower().replace("_", "-")] = version
    assert pins["apache-superset"] == "6.1.0"
    assert pins["clickhouse-connect"] == "1.12.0"
    assert pins["flask-caching"] == "2.3.1"
    assert {"rich", "cachetools", "gunicorn"} <= set(pins)


def test_prepared_marker_needs_db_revision_and_matching_password(tmp_path):
    c = _component(tmp_path)
    c.data.mkdir(parents=True)
    assert not c.is_prepared()  # no metadata DB yet
    with sqlite3.connect(c.metadata_db) as conn:
        conn.execute("CREATE TABLE alembic_version (version_num TEXT)")
        conn.execute("INSERT INTO alembic_version VALUES ('abc123')")
    c._prepared_marker.write_text(json.dumps(c._prepared_state("abc123")))
    assert c.is_prepared()
    assert SECRETS["SUPERSET_ADMIN_PASSWORD"] not in c._prepared_marker.read_text()
    # a new admin password in secrets.env must re-run the admin step
    other = _component(tmp_path, secrets={**SECRETS, "SUPERSET_ADMIN_PASSWORD": "changed"})
    assert not other.is_prepared()
    # so must a schema the marker did not record (e.g. after a Superset upgrade)
    with sqlite3.connect(c.metadata_db) as conn:
        conn.execute("UPDATE alembic_version SET version_num = 'def456'")
    assert not c.is_prepared()


def test_endpoints_say_where_the_password_is_without_printing_it(tmp_path):
    c = _component(tmp_path)
    text = " ".join(f"{e.label} {e.value}" for e in c.endpoints())
    assert "http://127.0.0.1:8088/" in text
    for slug in DASHBOARD_SLUGS:
        assert f"/superset/dashboard/{slug}/" in text
    assert "admin" in text and str(tmp_path / "secrets.env") in text
    assert SECRETS["SUPERSET_ADMIN_PASSWORD"] not in text


def test_health_reports_down_when_nothing_listens(tmp_path):
    c = _component(tmp_path, IOSCALE_SUPERSET_PORT="1")  # port 1: nothing listens there
    h = c.health()
    assert not h.ok and "not answering" in h.detail


@pytest.mark.parametrize("missing", ["SUPERSET_SECRET_KEY", "IOSCALE_SUPERSET_DATA_DIR"])
def test_config_refuses_to_load_without_its_environment(monkeypatch, missing):
    import runpy

    monkeypatch.setenv("SUPERSET_SECRET_KEY", "x" * 32)
    monkeypatch.setenv("IOSCALE_SUPERSET_DATA_DIR", "/tmp/ioscale-superset-test")
    monkeypatch.delenv(missing)
    with pytest.raises(RuntimeError, match=missing):
        runpy.run_path(str(REPO / "stack" / "superset" / "superset_config.py"))


def test_config_settings_for_a_local_single_user(monkeypatch, tmp_path):
    import runpy

    monkeypatch.setenv("SUPERSET_SECRET_KEY", "x" * 32)
    monkeypatch.setenv("IOSCALE_SUPERSET_DATA_DIR", str(tmp_path))
    cfg = runpy.run_path(str(REPO / "stack" / "superset" / "superset_config.py"))
    assert cfg["SECRET_KEY"] == "x" * 32
    assert cfg["SQLALCHEMY_DATABASE_URI"].startswith(f"sqlite:///{tmp_path}/superset.db")
    assert cfg["WTF_CSRF_ENABLED"] is True
    assert cfg["RATELIMIT_STORAGE_URI"] == "memory://"
    assert cfg["CACHE_CONFIG"]["CACHE_TYPE"] == "SimpleCache"
    csp = cfg["TALISMAN_CONFIG"]["content_security_policy"]
    external = [src for srcs in csp.values() if isinstance(srcs, list) for src in srcs if "://" in src]
    assert external == []  # no third-party host may be contacted by the browser (tracking pixel, tiles)


def test_dashboard_links_open_on_a_run_through_the_run_parameter():
    from ioscale.stack.superset import RUN_LINK_SLUGS, dashboard_url

    base = "http://127.0.0.1:8088/"
    assert dashboard_url(base, "ioscale-live") == "http://127.0.0.1:8088/superset/dashboard/ioscale-live/"
    assert dashboard_url(base, "ioscale-live", "sim-demo-fc4-8k-20261122T054153Z-s1") == \
        "http://127.0.0.1:8088/superset/dashboard/ioscale-live/?run=sim-demo-fc4-8k-20261122T054153Z-s1"
    assert dashboard_url(base, "ioscale-scaling", "a b&c=d'") == \
        "http://127.0.0.1:8088/superset/dashboard/ioscale-scaling/?run=a%20b%26c%3Dd%27"
    # the comparison picks several runs and a baseline in its filters: no single-run link
    assert "ioscale-compare" not in RUN_LINK_SLUGS and set(RUN_LINK_SLUGS) < set(DASHBOARD_SLUGS)
    with pytest.raises(ValueError):
        dashboard_url(base, "ioscale-compare", "r1")
