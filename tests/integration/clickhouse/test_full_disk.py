"""A full disk pauses the ClickHouse server's writers; every insert it acknowledged is whole afterwards.

The engine (chdb-core) ignores a write(2) that fails: an insert or merge whose files meet ENOSPC is committed
with its files empty, answered "ok", and every later read of the table fails ("Empty marks file"). The server
loads stack/clickhouse/wait_for_space.c's library so those writes wait for space instead. Here a private server
on a tmpfs of its own takes inserts from two clients while the tmpfs is filled to its last byte and freed, over
and over; the rows must be exactly those of the acknowledged inserts, and every part must read back.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
import time

import pytest

from ioscale.stack import process
from ioscale.stack.clickhouse import client

from disk_full import fill

pytestmark = pytest.mark.slow

ROWS_PER_INSERT = 2_000
#: Cycles of full and free: at least MIN_CYCLES, then until the writers were seen waiting WAITS_WANTED times (a
#: part write must straddle the moment the disk fills, which most cycles catch), at most MAX_CYCLES.
MIN_CYCLES = 3
WAITS_WANTED = 2
MAX_CYCLES = 25
TMPFS_SIZE = 96 << 20

TABLE = """
CREATE TABLE ioscale.landed (
    id      UInt64,
    run_id  LowCardinality(String),
    vm      LowCardinality(String),
    hist    Map(UInt16, UInt64) CODEC(T64, ZSTD(1))
) ENGINE = MergeTree ORDER BY (run_id, id) SETTINGS index_granularity = 1024
"""


@pytest.fixture
def server_on_tmpfs(private_server):
    comp, spec = private_server
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("a tmpfs for ClickHouse's data directory needs root and mount(8)")
    comp.data.mkdir(parents=True, exist_ok=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={TMPFS_SIZE},mode=0700", "ioscale-full-disk",
                    str(comp.data)], check=True)
    try:
        comp.prepare()  # its config lives under the data directory, now hidden by the tmpfs
        process.start(spec, comp.settings.host)
        comp.wait_ready(60)
        yield comp, spec
    finally:
        process.stop(spec)
        subprocess.run(["umount", str(comp.data)], check=True)


def test_inserts_acknowledged_on_a_filling_disk_are_all_readable(server_on_tmpfs) -> None:
    comp, spec = server_on_tmpfs
    with client(comp.ctx, role="admin") as admin:
        admin.command("CREATE DATABASE IF NOT EXISTS ioscale")
        admin.command(TABLE)

    acknowledged: list[int] = []  # first id of every insert the server answered with success
    refused = [0]
    stop = threading.Event()

    def insert(worker: int) -> None:
        with client(comp.ctx, role="ingest", database="ioscale", send_receive_timeout=120) as ch:
            batch = 0
            while not stop.is_set():
                first = (worker * 1_000_000 + batch) * ROWS_PER_INSERT
                rows = [[first + i, f"run-{batch % 3}", f"vm-{i % 80}", {b: first + i + b for b in range(20)}]
                        for i in range(ROWS_PER_INSERT)]
                try:
                    ch.insert("landed", rows, column_names=["id", "run_id", "vm", "hist"])
                    acknowledged.append(first)
                except Exception:  # NOT_ENOUGH_SPACE while the disk is full: the client's to retry
                    refused[0] += 1
                batch += 1
                time.sleep(0.02)

    writers = [threading.Thread(target=insert, args=(w,), daemon=True) for w in range(2)]
    for w in writers:
        w.start()
    cycles = waits = 0
    try:
        while cycles < MIN_CYCLES or (waits < WAITS_WANTED and cycles < MAX_CYCLES):
            time.sleep(1.5)
            ballast = fill(comp.data)
            time.sleep(1.5)
            ballast.unlink()
            cycles += 1
            waits = spec.log_file.read_text(errors="replace").count("wait_for_space: no space left")
    finally:
        stop.set()
        for w in writers:
            w.join(timeout=150)

    with client(comp.ctx, role="admin", database="ioscale") as admin:
        admin.command("OPTIMIZE TABLE ioscale.landed FINAL")  # reads every part back through a merge
        got = admin.query("SELECT count(), uniqExact(id), sum(length(hist)) FROM ioscale.landed").result_rows[0]
        checked = admin.query("CHECK TABLE ioscale.landed SETTINGS check_query_single_value_result = 0").result_rows
    expected = len(acknowledged) * ROWS_PER_INSERT
    print(f"\n{cycles} fill/free cycles, writers waited {waits} times, {len(acknowledged)} inserts acknowledged, "
          f"{refused[0]} refused")
    assert waits >= WAITS_WANTED, "no part write met the full disk: the test did not exercise the guard"
    assert got == (expected, expected, expected * 20)
    assert [row for row in checked if str(row[1]) != "1"] == []
