"""A second, private ClickHouse server process (own state directory, free ports): start, SIGTERM, restart.

It does not touch the stack's ClickHouse, and it creates no Kafka tables (those would join the
stack's consumer groups). Needs only the venv; timings are printed (run with ``-s`` to see them).
"""

from __future__ import annotations

import dataclasses
import secrets
import socket
import sys
import time
from pathlib import Path

import pytest

from ioscale.stack import process
from ioscale.stack.clickhouse import ClickHouseComponent, client
from ioscale.stack.component import StackContext
from ioscale.stack.progress import SilentProgress
from ioscale.stack.settings import SECRET_NAMES, StackSettings, repo_root

pytestmark = pytest.mark.slow


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


@pytest.fixture
def private_server(tmp_path: Path):
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
    yield comp, spec
    process.stop(spec)


def start(comp: ClickHouseComponent, spec) -> tuple[int, float]:
    t0 = time.monotonic()
    pid = process.start(spec, comp.settings.host)
    comp.wait_ready(60)
    return pid, time.monotonic() - t0


def test_start_stop_restart_keeps_data(private_server) -> None:
    comp, spec = private_server
    pid, ready_s = start(comp, spec)
    # The admin client stays open across the stop: an idle pooled connection must not keep the
    # engine from shutting down cleanly (clickhouse_server.hang_up_clients).
    admin = client(comp.ctx, role="admin")
    assert admin.command("SELECT timezone()") in ("UTC", "Etc/UTC")  # despite TZ=America/New_York
    admin.command("CREATE DATABASE IF NOT EXISTS ioscale")
    admin.command("CREATE TABLE ioscale.kept (id UInt64, v Float64) ENGINE = MergeTree ORDER BY id")
    admin.insert("ioscale.kept", [[i, i * 0.5] for i in range(10_000)], column_names=["id", "v"])
    time.sleep(2)  # let start-up work settle before measuring the idle footprint
    idle_rss_mb = rss_mb(pid)
    assert comp.health().ok

    t0 = time.monotonic()
    assert process.stop(spec)
    stop_s = time.monotonic() - t0
    assert stop_s < 10
    assert not process.port_in_use(comp.settings.host, comp.settings.port("clickhouse_http"))
    assert "stopped in" in process.tail(spec.log_file, 5)  # a clean shutdown, not the SIGKILL fallback
    admin.close()

    pid2, restart_ready_s = start(comp, spec)
    assert pid2 != pid
    # The engine removes its status file on a clean shutdown; a leftover one is logged at start.
    assert "unclean restart" not in comp.server_log.read_text()
    with client(comp.ctx, role="reader", database="ioscale") as reader:
        assert reader.query("SELECT count(), sum(v) FROM ioscale.kept").result_rows == [(10_000, 0.5 * 9_999 * 10_000 / 2)]
    print(f"\nclickhouse: ready {ready_s:.2f}s, idle RSS {idle_rss_mb:.0f} MB, SIGTERM stop {stop_s:.2f}s, "
          f"restart ready {restart_ready_s:.2f}s")


def test_engine_failure_is_reported_with_the_cause(private_server) -> None:
    comp, spec = private_server
    # A users.xml that ClickHouse refuses: the process must exit and wait_ready must say why.
    comp.users_file.write_text(comp.users_file.read_text().replace("<password_sha256_hex>", "<password>", 1)
                               .replace("</password_sha256_hex>", "</password>", 1))
    process.start(spec, comp.settings.host)
    with pytest.raises(Exception) as err:
        comp.wait_ready(30)
    assert "died while starting" in str(err.value)
    assert "plaintext" in str(err.value).lower() or "password" in str(err.value).lower()
