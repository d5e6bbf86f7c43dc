"""Apache Superset 6.1.0 for the local stack: own Python 3.11 venv, SQLite metadata, dashboards as code.

    install    venv at <home>/dist/superset/venv, `pip install -r stack/superset/requirements.lock`
    prepare    `superset db upgrade`, `superset init`, admin user (created, or its password reset);
               skipped when data/superset/prepared.json matches the install, DB revision and password
    processes  gunicorn in the foreground on 127.0.0.1, two gthread workers (memory: ~300 MB RSS each)

Configuration lives in stack/superset/superset_config.py; it gets its secret key and state directory
from the environment set here (see :meth:`SupersetComponent.env`). ``ioscale.provision.superset`` imports the
dashboards once it answers.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import shutil
import sqlite3
import subprocess
from pathlib import Path
from urllib.parse import quote

import requests

from ioscale.errors import StackError
from ioscale.paths import Subpath
from ioscale.stack.commands import run_logged
from ioscale.stack.component import Component, Endpoint, Health, StackContext
from ioscale.stack.process import ProcessSpec
from ioscale.stack.settings import SUPERSET_ADMIN_USER, StackSettings

SUPERSET_VERSION = "6.1.0"
PYTHON_VERSION = (3, 11)
#: Slug of the dashboard in superset/dashboards/ioscale_live_run.yaml.
LIVE_DASHBOARD_SLUG = "ioscale-live"
#: Every dashboard of superset/dashboards/ by slug, with what `stack up` lists it as (a unit test compares them).
DASHBOARD_SLUGS = {
    LIVE_DASHBOARD_SLUG: "Live run",
    "ioscale-scaling": "Scaling curves",
    "ioscale-saturation": "Saturation and alerts",
    "ioscale-compare": "Run comparison",
    "ioscale-fleet-balance": "Fleet balance",
}
#: Dashboards whose Run filter selects its first value: a link's ``?run=<run_id>`` puts that run first
#: (the filter's sort metric ``run_order`` reads it, superset/datasets/), so the dashboard opens on it.
RUN_LINK_SLUGS = frozenset({LIVE_DASHBOARD_SLUG, "ioscale-scaling", "ioscale-saturation", "ioscale-fleet-balance"})
#: Name of the database in superset/databases/ (what SQL Lab and the tests look for).
DATABASE_NAME = "ioscale ClickHouse"
#: Two worker processes with threads. A dashboard sends all its chart queries at once, and each one spends
#: ~100 ms of Python (query building, pandas, JSON) besides its ClickHouse time: in one process the GIL runs them
#: one after the other, in two they use both cores. Each worker holds the whole app (~300 MB RSS).
GUNICORN_WORKERS = 2
GUNICORN_THREADS = 8

# Creates the admin user or resets its password, reading the password from the environment so it
# never shows in a process list (`superset fab create-admin` only takes it as an argument or a prompt).
_ADMIN_SCRIPT = """\
# Written by ioscale.stack.superset at each prepare; run with the Superset venv's python.
import os, sys
from werkzeug.security import check_password_hash
from superset.app import create_app
app = create_app()
with app.app_context():
    from superset import security_manager as sm
    name = os.environ["IOSCALE_SUPERSET_ADMIN_USER"]
    password = os.environ["IOSCALE_SUPERSET_ADMIN_PASSWORD"]
    role = sm.find_role(sm.auth_role_admin)
    if role is None:
        sys.exit("role Admin is missing: `superset init` did not run")
    user = sm.find_user(username=name)
    if user is None:
        if not sm.add_user(name, "ioscale", "admin", f"{name}@localhost", role, password=password):
            sys.exit(f"could not create user {name}")
        print(f"created admin user {name}")
    else:
        if not check_password_hash(user.password, password):
            sm.reset_password(user.id, password)
            print(f"reset the password of {name} to the one in secrets.env")
        user = sm.find_user(username=name)
        if role not in user.roles or not user.active:
            user.roles = list({*user.roles, role})
            user.active = True
            sm.update_user(user)
            print(f"re-enabled {name} with the Admin role")
        print(f"admin user {name} is up to date")
"""


class SupersetComponent(Component):
    name = "superset"

    def __init__(self, ctx: StackContext):
        super().__init__(ctx)
        # The lock's digest is part of the install version: editing the lock reinstalls the venv.
        lock_digest = hashlib.sha256(self.lock_file.read_bytes()).hexdigest()[:16]
        self.install_version = f"superset-{SUPERSET_VERSION}-lock-{lock_digest}"

    # -- locations ---------------------------------------------------------------------------
    lock_file = Subpath("settings.repo", "stack", "superset", "requirements.lock")
    config_file = Subpath("settings.repo", "stack", "superset", "superset_config.py")
    bundle_dir = Subpath("settings.repo", "superset")
    venv = Subpath("dist", "venv")
    metadata_db = Subpath("data", "superset.db")

    @property
    def prepare_log(self) -> Path:
        return self.settings.log_dir / f"{self.name}-prepare.log"

    _prepared_marker = Subpath("data", "prepared.json")

    @property
    def url(self) -> str:
        return self.settings.url("superset")

    def env(self) -> dict[str, str]:
        """Environment for every Superset process (web server and CLI)."""
        env = {
            "SUPERSET_CONFIG_PATH": str(self.config_file),
            "IOSCALE_SUPERSET_DATA_DIR": str(self.data),
            # Upstream's default DATA_DIR; set so nothing is written to ~/.superset.
            "SUPERSET_HOME": str(self.data),
            # Relative time ranges ("last 15 minutes") are computed in local time; samples are UTC.
            "TZ": "UTC",
            "VIRTUAL_ENV": str(self.venv),
            "PYTHONNOUSERSITE": "1",
            "PYTHONUNBUFFERED": "1",
        }
        # `stack down` and `status` build the process list without secrets; only a start needs the key
        # (superset_config.py refuses to start without it).
        if self.ctx.secrets.get("SUPERSET_SECRET_KEY"):
            env["SUPERSET_SECRET_KEY"] = self.ctx.secrets["SUPERSET_SECRET_KEY"]
        return env

    # -- install -------------------------------------------------------------------------------
    def install(self) -> None:
        if self.is_installed():
            return
        python = find_python311()
        self.dist.mkdir(parents=True, exist_ok=True)
        # --clear: a venv left by an interrupted install is rebuilt from scratch.
        run_logged(
            self.name, "create venv (Python 3.11)", [python, "-m", "venv", "--clear", str(self.venv)],
            self.install_log, self.ui, timeout_s=300,
        )
        run_logged(
            self.name,
            f"pip install Superset {SUPERSET_VERSION} ({self.lock_file.name}, ~1 GB)",
            [
                str(self.venv / "bin" / "python"), "-m", "pip", "install", "--no-input",
                "--disable-pip-version-check", "--progress-bar", "off", "-r", str(self.lock_file),
            ],
            self.install_log, self.ui, timeout_s=1800,
            env={"PIP_NO_INPUT": "1", "PYTHONNOUSERSITE": "1"},
            hint="check network access to the package registry, then re-run `ioscale stack up`",
        )
        run_logged(
            self.name, "pip check", [str(self.venv / "bin" / "python"), "-m", "pip", "check"],
            self.install_log, self.ui, timeout_s=300,
        )
        self.mark_installed()

    # -- prepare -------------------------------------------------------------------------------
    def _db_revision(self) -> str | None:
        """Alembic revision of the metadata DB, None when the DB or its version table is missing."""
        if not self.metadata_db.exists():
            return None
        try:
            with contextlib.closing(sqlite3.connect(f"file:{self.metadata_db}?mode=ro", uri=True, timeout=10)) as conn:
                row = conn.execute("SELECT version_num FROM alembic_version").fetchone()
        except sqlite3.Error:
            return None
        return row[0] if row else None

    def _password_digest(self) -> str:
        # Keyed with the secret key so the marker file alone gives nothing to guess against.
        key = self.ctx.secrets["SUPERSET_SECRET_KEY"].encode()
        return hashlib.sha256(key + b"\0" + self.ctx.secrets["SUPERSET_ADMIN_PASSWORD"].encode()).hexdigest()

    def _prepared_state(self, revision: str | None) -> dict[str, str | None]:
        return {
            "install_version": self.install_version,
            "db_revision": revision,
            "admin_user": SUPERSET_ADMIN_USER,
            "admin_password_digest": self._password_digest(),
        }

    def is_prepared(self) -> bool:
        revision = self._db_revision()
        try:
            recorded = json.loads(self._prepared_marker.read_text())
        except (FileNotFoundError, ValueError):
            return False
        return revision is not None and recorded == self._prepared_state(revision)

    def prepare(self) -> None:
        self.data.mkdir(parents=True, exist_ok=True)
        # The metadata DB holds the admin's password hash and the (encrypted) ClickHouse password.
        self.data.chmod(0o700)
        if self.is_prepared():
            self.ui.done(f"{self.name}: metadata DB and admin user up to date")
            return
        self._prepared_marker.unlink(missing_ok=True)
        superset = str(self.venv / "bin" / "superset")
        env = self.env()
        hint = "see the log; `rm -rf .ioscale/data/superset` resets Superset's metadata (dashboards are re-imported)"
        run_logged(self.name, "superset db upgrade", [superset, "db", "upgrade"], self.prepare_log, self.ui,
                   env=env, cwd=self.data, timeout_s=900, hint=hint)
        run_logged(self.name, "superset init (roles, permissions)", [superset, "init"], self.prepare_log, self.ui,
                   env=env, cwd=self.data, timeout_s=900, hint=hint)
        admin_script = self.data / "ensure_admin.py"  # a file, so the log shows a path, not the script
        admin_script.write_text(_ADMIN_SCRIPT)
        run_logged(
            self.name, f"admin user {SUPERSET_ADMIN_USER!r}", [str(self.venv / "bin" / "python"), str(admin_script)],
            self.prepare_log, self.ui, cwd=self.data, timeout_s=300, hint=hint,
            env={
                **env,
                "IOSCALE_SUPERSET_ADMIN_USER": SUPERSET_ADMIN_USER,
                "IOSCALE_SUPERSET_ADMIN_PASSWORD": self.ctx.secrets["SUPERSET_ADMIN_PASSWORD"],
            },
        )
        revision = self._db_revision()
        if revision is None:
            raise StackError(self.name, f"{self.metadata_db} has no schema revision after `db upgrade`",
                             str(self.prepare_log), hint)
        self._prepared_marker.write_text(json.dumps(self._prepared_state(revision), indent=2))

    # -- run -----------------------------------------------------------------------------------
    def processes(self) -> list[ProcessSpec]:
        argv = [
            str(self.venv / "bin" / "gunicorn"),
            "--bind", f"{self.settings.host}:{self.settings.port('superset')}",
            "--worker-class", "gthread",
            "--workers", str(GUNICORN_WORKERS),
            "--threads", str(GUNICORN_THREADS),
            # Above SUPERSET_WEBSERVER_TIMEOUT (90 s) so Superset, not gunicorn, times slow queries out.
            "--timeout", "120",
            "--graceful-timeout", "10",
            # Superset's own launcher lifts these: dashboard URLs with filter state get long.
            "--limit-request-line", "0",
            "--limit-request-field_size", "0",
            # gunicorn >= 25 opens a control socket under ~/.gunicorn by default; nothing needs it.
            "--no-control-socket",
            "superset.app:create_app()",
        ]
        return [
            self.spec(None, argv, env=self.env(), cwd=self.data, ports=(self.settings.port("superset"),),
                      stop_timeout_s=20.0, config_files=(self.config_file,))
        ]

    def _http(self) -> requests.Session:
        s = requests.Session()
        s.trust_env = False  # never route 127.0.0.1 through a proxy from the environment
        return s

    def wait_ready(self, timeout_s: float) -> None:
        http = self._http()

        def healthy() -> bool:
            r = http.get(f"{self.url}/health", timeout=3)
            return r.status_code == 200 and r.text.strip() == "OK"

        self.wait_for(f"GET {self.url}/health = OK", healthy, timeout_s, interval_s=1.0)

    def health(self) -> Health:
        try:
            r = self._http().get(f"{self.url}/health", timeout=3)
        except requests.RequestException as e:
            return Health(False, f"{self.url} not answering ({type(e).__name__})")
        if r.status_code == 200 and r.text.strip() == "OK":
            return Health(True, f"{self.url} healthy")
        return Health(False, f"{self.url}/health answered HTTP {r.status_code}")

    def endpoints(self) -> list[Endpoint]:
        return [
            Endpoint("Superset", f"{self.url}/"),
            *[Endpoint(f"Dashboard: {label}", dashboard_url(self.url, slug))
              for slug, label in DASHBOARD_SLUGS.items()],
            Endpoint(
                "Superset login",
                f"user {SUPERSET_ADMIN_USER}, password: SUPERSET_ADMIN_PASSWORD in {self.settings.secrets_file}",
            ),
        ]


def dashboard_url(base_url: str, slug: str, run_id: str | None = None) -> str:
    """Link to a dashboard, opened on ``run_id`` when given (else on the newest run).

    The run travels as ``?run=`` rather than as a filter state (``native_filters_key``) or ``native_filters``:
    with either of those Superset 6.1 re-applies the run to a "select first value" Run filter twice as the
    filter's options arrive and requests every chart three times; named by ``?run=``, the run is the filter's
    first value and every chart is requested once."""
    url = f"{base_url.rstrip('/')}/superset/dashboard/{slug}/"
    if run_id is None:
        return url
    if slug not in RUN_LINK_SLUGS:
        raise ValueError(f"dashboard {slug!r} picks its runs in its filters; it has no ?run= link")
    return f"{url}?run={quote(run_id, safe='')}"


def chart_data_cache_dir(settings: StackSettings) -> Path:
    """Superset's chart-data cache (a FileSystemCache both gunicorn workers share; superset_config.py puts it
    at <data dir>/cache/chart_data). Benchmarks empty it to measure a cold load."""
    return settings.data_dir / SupersetComponent.name / "cache" / "chart_data"


def clear_chart_data_cache(settings: StackSettings) -> int:
    """Delete every cached chart result (the next load queries ClickHouse again); returns how many."""
    removed = 0
    for entry in chart_data_cache_dir(settings).glob("*"):
        if entry.is_file():
            entry.unlink(missing_ok=True)
            removed += 1
    return removed


def find_python311() -> str:
    """Absolute path of a Python 3.11 interpreter (resolving pyenv shims to the real binary)."""
    exe = shutil.which("python3.11")
    hint = "install Python 3.11 and put `python3.11` on PATH (e.g. `pyenv install 3.11`), then re-run"
    if exe is None:
        raise StackError("superset", "python3.11 not found on PATH (Superset 6.1 runs on Python 3.11)", hint=hint)
    try:
        out = subprocess.run(
            [exe, "-c", "import sys; print(sys.executable); print('%d.%d' % sys.version_info[:2])"],
            capture_output=True, text=True, timeout=30, check=True,
        ).stdout.split()
    except (subprocess.SubprocessError, OSError) as e:
        raise StackError("superset", f"{exe} does not run: {e}", hint=hint) from None
    if len(out) != 2 or out[1] != "%d.%d" % PYTHON_VERSION:
        raise StackError("superset", f"{exe} is not Python 3.11 ({out})", hint=hint)
    return out[0]
