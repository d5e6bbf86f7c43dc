"""private_server: a ClickHouse server process of the test's own (state directory under tmp_path, free ports),
configured but not started; module_private_server: the same, shared by a module's tests; private_admin: an admin
client of a started private_server. It shares nothing with the stack's ClickHouse."""

from __future__ import annotations

import contextlib
import dataclasses
import secrets
import socket
import sys
from pathlib import Path

import pytest

from ioscale.stack import process
from ioscale.stack.clickhouse import ClickHouseComponent, client
from ioscale.stack.component import StackContext
from ioscale.stack.progress import SilentProgress
from ioscale.stack.settings import SECRET_NAMES, StackSettings, repo_root


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def scratch_server(tmp_path: Path):
    """A configured, not started ClickHouse server of its own under ``tmp_path``: (component, process spec); stopped
    on exit. For a fixture of any scope."""
    home = tmp_path / "home"
    home.mkdir()
    (home / "venv").symlink_to(Path(sys.prefix))  # settings.venv_python lives under home
    env = {"IOSCALE_REPO": str(repo_root()), "IOSCALE_HOME": str(home),
           "IOSCALE_CLICKHOUSE_HTTP_PORT": str(free_port()), "IOSCALE_CLICKHOUSE_TCP_PORT": str(free_port())}
    settings = StackSettings.from_env(env)
    ctx = StackContext(settings, {n: secrets.token_urlsafe(16) for n in SECRET_NAMES}, SilentProgress())
    comp = ClickHouseComponent(ctx)
    comp.install()
    comp.prepare()
    # A non-UTC host zone: the server must still answer in UTC (config.xml <timezone>).
    (spec,) = comp.processes()
    spec = dataclasses.replace(spec, env={**spec.env, "TZ": "America/New_York"})
    comp.processes = lambda: [spec]  # type: ignore[method-assign]
    try:
        yield comp, spec
    finally:
        process.stop(spec)


@pytest.fixture
def private_server(tmp_path: Path):
    with scratch_server(tmp_path) as server:
        yield server


@pytest.fixture
def private_admin(private_server):
    """An admin client of private_server, started."""
    comp, spec = private_server
    process.start(spec, comp.settings.host)
    comp.wait_ready(60)
    with client(comp.ctx, role="admin") as ch:
        yield ch


@pytest.fixture(scope="module")
def module_private_server(tmp_path_factory):
    """private_server shared by a module's tests."""
    with scratch_server(tmp_path_factory.mktemp("clickhouse")) as server:
        yield server
