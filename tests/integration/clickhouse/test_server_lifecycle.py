"""A second, private ClickHouse server process (own state directory, free ports; conftest's private_server):
start, SIGTERM, restart.

It does not touch the stack's ClickHouse, and it creates no Kafka tables (those would join the
stack's consumer groups). Needs only the venv; timings are printed (run with ``-s`` to see them).
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from ioscale.stack import process
from ioscale.stack.clickhouse import ClickHouseComponent, client

pytestmark = pytest.mark.slow


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


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
