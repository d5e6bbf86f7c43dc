"""What the report's integration tests share: the reader connection, retried reads and the runs they report on."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable

import pytest

from ioscale.errors import StackError

from isolation import unique

CHROMIUM = "/usr/bin/chromium"
REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real"


def retried(fn: Callable[[], Any], seconds: float = 90.0) -> Any:
    """A component may be restarted under us (fault drills): retry a read for a while."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            return fn()
        except (StackError, OSError) as e:
            if time.monotonic() > deadline:
                raise
            print(f"retrying after {type(e).__name__}: {str(e)[:120]}")
            time.sleep(5)
        except Exception as e:  # clickhouse-connect's own errors for a refused or reset connection
            if "Connection" not in type(e).__name__ and "connect" not in str(e).lower() \
                    or time.monotonic() > deadline:
                raise
            time.sleep(5)


@pytest.fixture(scope="module")
def ch():
    from ioscale.query import connect
    from ioscale.stack.settings import StackSettings, load_secrets

    settings = StackSettings.from_env()
    try:
        client = retried(lambda: connect(settings, load_secrets(settings)), 40)
    except Exception as e:
        pytest.skip(f"ClickHouse is not reachable ({e}): start the stack with `ioscale stack up`")
    yield client
    client.close()


def one(ch, sql: str, **params) -> Any:
    return retried(lambda: ch.query(sql, parameters=params).result_rows)


@pytest.fixture(scope="module")
def simulated(analysed_sweep) -> str:
    """The session's `demo` run (4 steps; its read channel saturates at a 4 Gbps FC port)."""
    return analysed_sweep.demo


@pytest.fixture(scope="module")
def real_fio(stack) -> str:
    """fio-plot's real MX200 queue-depth sweep (7 json+ files), imported and analysed under a run id of its own."""
    run_id = unique("report-real-fio")
    files = sorted(str(p) for p in (REAL / "fio_fioplot_mx200_randread_qd").glob("*.json"))
    done = subprocess.run([sys.executable, "-m", "ioscale.cli", "import", "fio", *files, "--run-id", run_id,
                           "--sweep-axis", "iodepth", "--analyze"], capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr
    return run_id
