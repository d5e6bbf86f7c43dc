"""ClickHouse 26.9 for the local stack: chdb-core's engine served over HTTP and native TCP.

Nothing is downloaded: ``chdb`` and ``chdb-core`` are pinned in the ioscale venv (the ``stack`` extra), and
``ioscale.services.clickhouse_server`` turns the embedded engine into a foreground server process
(see that module for how and why). This module renders its config and accounts, starts it and
waits for a real query to answer; ``ioscale.provision.clickhouse`` applies the SQL migrations.

Accounts (names in ``settings.CLICKHOUSE_USERS``, passwords generated into ``secrets.env`` and
stored in users.xml only as sha256):

    ioscale_admin   everything, incl. DDL and access management   (migrations, operators)
    ioscale_ingest  SELECT, INSERT on ioscale.*                   (importers, collectors)
    ioscale_flink   SELECT, INSERT on ioscale.*                   (Flink sink)
    ioscale_reader  SELECT on ioscale.*, readonly=2               (Superset, analysts)

The engine's own in-process session needs a passwordless ``default`` user; it is limited to one
session, which the engine holds for its lifetime, so nobody can log in as ``default`` over the
network (error 700, USER_SESSION_LIMIT_EXCEEDED).
"""

from __future__ import annotations

import base64
import hashlib
import os
import shutil
import string
import urllib.error
import urllib.request
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ioscale.errors import StackError
from ioscale.paths import Subpath, write_private
from ioscale.stack.commands import run_logged
from ioscale.stack.component import Component, Endpoint, Health, StackContext
from ioscale.stack.process import ProcessSpec, port_in_use
from ioscale.stack.settings import CLICKHOUSE_USERS, StackSettings

ROLES = tuple(CLICKHOUSE_USERS)  # admin, ingest, flink, reader
PROBE_TIMEOUT_S = 5.0
#: Which pinned packages the install marker vouches for; bump with the pins in pyproject.toml.
ENGINE_PINS = "chdb-4.4.0+chdb-core-26.9.0"


def password_secret_name(role: str) -> str:
    return f"CLICKHOUSE_{role.upper()}_PASSWORD"


def user_and_password(secrets: Mapping[str, str], role: str) -> tuple[str, str]:
    """(user, password) for ``role`` in admin | ingest | flink | reader."""
    if role not in CLICKHOUSE_USERS:
        raise ValueError(f"unknown ClickHouse role {role!r}; choose from {', '.join(ROLES)}")
    key = password_secret_name(role)
    if not secrets.get(key):
        raise StackError("clickhouse", f"{key} is missing from the secrets",
                         hint="run `ioscale stack up` once to generate .ioscale/secrets.env")
    return CLICKHOUSE_USERS[role], secrets[key]


def sha256_hex(password: str) -> str:
    return hashlib.sha256(password.encode("utf-8")).hexdigest()


def template_dir(settings: StackSettings) -> Path:
    return settings.repo / "stack" / "clickhouse"


def wait_for_space_source(settings: StackSettings) -> Path:
    return template_dir(settings) / "wait_for_space.c"


def wait_for_space_library(settings: StackSettings) -> Path:
    """Where the build of ``stack/clickhouse/wait_for_space.c`` lives: named by the source's hash, so an edit
    is rebuilt and a running server keeps the file it loaded."""
    digest = hashlib.sha256(wait_for_space_source(settings).read_bytes()).hexdigest()[:12]
    return settings.dist_dir / "clickhouse" / f"wait_for_space-{digest}.so"


def render_config(settings: StackSettings, data_path: Path, users_config: Path, template: str) -> str:
    return string.Template(template).substitute(
        host=settings.host,
        http_port=settings.port("clickhouse_http"),
        tcp_port=settings.port("clickhouse_tcp"),
        data_path=str(data_path).rstrip("/"),
        users_config=str(users_config),
        log_dir=str(settings.log_dir),
    )


def render_users(secrets: Mapping[str, str], template: str) -> str:
    values: dict[str, str] = {}
    for role in ROLES:
        user, password = user_and_password(secrets, role)
        values[f"{role}_user"] = user
        values[f"{role}_password_sha256"] = sha256_hex(password)
    return string.Template(template).substitute(values)


def client(ctx_or_settings: StackContext | StackSettings, secrets: Mapping[str, str] | None = None,
           role: str = "reader", **kwargs: Any):
    """A clickhouse-connect (HTTP) client logged in as ``role`` (admin | ingest | flink | reader).

    ``secrets`` defaults to the context's; extra keyword arguments go to
    ``clickhouse_connect.get_client`` (e.g. ``database="ioscale"``, ``settings={...}``).
    """
    import clickhouse_connect  # imported here: `stack status` should not pay for it

    if isinstance(ctx_or_settings, StackContext):
        settings = ctx_or_settings.settings
        secrets = ctx_or_settings.secrets if secrets is None else secrets
    else:
        settings = ctx_or_settings
    if secrets is None:
        raise ValueError("secrets are required when a StackSettings is passed")
    user, password = user_and_password(secrets, role)
    kwargs.setdefault("connect_timeout", 10)
    return clickhouse_connect.get_client(
        host=settings.host, port=settings.port("clickhouse_http"), username=user, password=password, **kwargs
    )


class ClickHouseComponent(Component):
    name = "clickhouse"
    install_version = ENGINE_PINS

    config_file = Subpath("conf_dir", "config.xml")
    users_file = Subpath("conf_dir", "users.xml")
    #: ClickHouse's own log (the process log holds only the wrapper's lines and crashes)
    server_log = Subpath("settings.log_dir", "clickhouse-server.log")

    @property
    def http_url(self) -> str:
        return self.settings.url("clickhouse_http")

    # -- lifecycle -------------------------------------------------------------------------------
    def build_wait_for_space(self) -> Path:
        """Compiles the full-disk write guard the server loads (a second, on every machine with a C compiler)."""
        library = wait_for_space_library(self.settings)
        if library.exists():
            return library
        compiler = shutil.which(os.environ.get("CC", "cc"))
        if compiler is None:
            raise StackError("clickhouse", "no C compiler to build the full-disk write guard "
                             f"({wait_for_space_source(self.settings).name})",
                             hint="install gcc and libc6-dev (Debian), or set CC, then re-run `ioscale stack up`")
        library.parent.mkdir(parents=True, exist_ok=True)
        partial = library.with_name(library.name + ".partial")
        run_logged("clickhouse", "building the full-disk write guard",
                   [compiler, "-O2", "-Wall", "-Wextra", "-Werror", "-shared", "-fPIC", "-o", partial,
                    wait_for_space_source(self.settings), "-ldl"],
                   self.install_log, self.ui, timeout_s=120,
                   hint="the compiler's messages are in the install log above; a C compiler for this "
                        "machine (gcc, libc6-dev) is needed")
        partial.rename(library)
        return library

    def install(self) -> None:
        self.build_wait_for_space()
        if self.is_installed():
            return
        # Nothing to fetch: prove the venv's pinned engine loads and answers a query in memory.
        run_logged(
            "clickhouse",
            "checking the embedded ClickHouse engine (chdb-core) in the venv",
            [self.settings.venv_python, "-m", "ioscale.services.clickhouse_server", "--check",
             "--wait-for-space", wait_for_space_library(self.settings)],
            self.install_log,
            self.ui,
            timeout_s=120,
            hint="reinstall the venv's pinned chdb==4.4.0 and chdb-core==26.9.0 "
                 "(scripts/bootstrap.sh: pip install -e 'ingest[stack]'), then re-run `ioscale stack up`",
        )
        self.mark_installed()

    def prepare(self) -> None:
        self.build_wait_for_space()  # also here: an installed stack gets a guard it predates, or an edited one
        templates = template_dir(self.settings)
        self.data.mkdir(parents=True, exist_ok=True)
        self.settings.log_dir.mkdir(parents=True, exist_ok=True)
        # Re-rendered on every `up`: a changed port or rotated password takes effect on restart. Private:
        # it holds the password hashes.
        write_private(self.users_file, render_users(self.ctx.secrets, (templates / "users.xml.tmpl").read_text()))
        self.config_file.write_text(
            render_config(self.settings, self.data, self.users_file, (templates / "config.xml.tmpl").read_text())
        )

    def processes(self) -> list[ProcessSpec]:
        return [
            self.spec(
                None,
                [str(self.settings.venv_python), "-m", "ioscale.services.clickhouse_server",
                 "--config", str(self.config_file),
                 "--wait-for-space", str(wait_for_space_library(self.settings))],
                cwd=self.conf_dir,
                env={"PYTHONUNBUFFERED": "1"},
                ports=(self.settings.port("clickhouse_http"), self.settings.port("clickhouse_tcp")),
                stop_timeout_s=30.0,
            )
        ]

    def _http_query(self, sql: str, role: str = "admin") -> str:
        user, password = user_and_password(self.ctx.secrets, role)
        token = base64.b64encode(f"{user}:{password}".encode()).decode()
        req = urllib.request.Request(self.http_url + "/", data=sql.encode(), method="POST",
                                     headers={"Authorization": f"Basic {token}"})
        try:
            with urllib.request.urlopen(req, timeout=PROBE_TIMEOUT_S) as resp:
                return resp.read().decode()
        except urllib.error.HTTPError as e:  # ClickHouse puts the reason in the body
            raise RuntimeError(f"HTTP {e.code}: {e.read().decode(errors='replace').strip()[:300]}") from None

    def _answers(self) -> bool:
        if not port_in_use(self.settings.host, self.settings.port("clickhouse_http")):
            return False
        if self._http_query("SELECT 1").strip() != "1":
            return False
        # Both listeners start in the same call; TCP follows HTTP by milliseconds.
        return port_in_use(self.settings.host, self.settings.port("clickhouse_tcp"))

    def wait_ready(self, timeout_s: float) -> None:
        # The engine answers within a second; poll finely so `up` does not idle.
        self.wait_for("SELECT 1 over HTTP as the admin user", self._answers, timeout_s, interval_s=0.1)

    def health(self) -> Health:
        if not port_in_use(self.settings.host, self.settings.port("clickhouse_http")):
            return Health(False, f"nothing listens on {self.http_url}")
        try:
            if not self.ctx.secrets:
                # `stack status` before any `up` has no credentials; /ping needs none.
                with urllib.request.urlopen(self.http_url + "/ping", timeout=PROBE_TIMEOUT_S) as resp:
                    return Health(resp.read().strip() == b"Ok.", "answers /ping (no credentials to query with)")
            version, uptime_s = self._http_query("SELECT version(), uptime() FORMAT TSV").strip().split("\t")
        except Exception as e:  # refused, timeout, auth, bad answer
            return Health(False, f"not answering at {self.http_url} ({e})")
        return Health(True, f"ClickHouse {version}, up {_duration(int(uptime_s))}")

    def endpoints(self) -> list[Endpoint]:
        users = ", ".join(f"{role}={user}" for role, user in CLICKHOUSE_USERS.items())
        keys = ", ".join(password_secret_name(r) for r in ROLES)
        return [
            Endpoint("ClickHouse HTTP", self.http_url),
            Endpoint("ClickHouse native", f"clickhouse://{self.settings.host}:{self.settings.port('clickhouse_tcp')}"),
            Endpoint("ClickHouse users", users),
            Endpoint("ClickHouse passwords", f"{self.settings.secrets_file} ({keys})"),
            Endpoint("ClickHouse server log", str(self.server_log)),
        ]


def _duration(seconds: int) -> str:
    if seconds < 120:
        return f"{seconds}s"
    if seconds < 7200:
        return f"{seconds // 60}m"
    return f"{seconds // 3600}h{(seconds % 3600) // 60:02d}m"
