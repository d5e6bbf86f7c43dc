"""What the report's integration tests share: the reader connection, retried reads and the runs they pick."""

from __future__ import annotations

import time
from typing import Any, Callable

import pytest

from ioscale.errors import StackError

CHROMIUM = "/usr/bin/chromium"


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
    from ioscale.cli.report import connect
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


def pick(ch, where: str, what: str) -> str:
    rows = one(ch, f"""
        SELECT s.run_id FROM ioscale.scaling_curves AS s FINAL
        WHERE s.run_id IN (SELECT run_id FROM ioscale.run_events FINAL WHERE {where})
        GROUP BY s.run_id HAVING count() >= 3
        ORDER BY countIf(s.saturation_status = 'SATURATED') > 0 DESC, count() DESC, max(s.emitted_at) DESC
        LIMIT 1""")
    if not rows:
        pytest.skip(f"no {what} with Flink step rows in ClickHouse")
    return rows[0][0]


@pytest.fixture(scope="module")
def simulated(ch) -> str:
    return pick(ch, "tool = 'simulator' AND tags['simulated'] = 'true'",
                "simulated run (run `ioscale simulate` with a scenario, or the simulator integration tests)")


@pytest.fixture(scope="module")
def real_fio(ch) -> str:
    return pick(ch, "tool = 'fio' AND description LIKE 'imported from % fio JSON file%'",
                "imported real fio result (tests/integration run the fio importer on tests/fixtures/real)")


