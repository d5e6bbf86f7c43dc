"""io_samples_hist_sums keeps few parts (migration 0040): the SQL library reads it up to five times per query
without FINAL, and each of its parts costs every read. Small parts of similar size, the shape a run's ingest
leaves, must merge on their own, where the server-wide merge_selector_base of 20 would leave them apart."""

from __future__ import annotations

import time

import pytest

from ioscale.stack.clickhouse import client

from isolation import unique

pytestmark = pytest.mark.slow

PARTS = 8          # 8 equal parts: 8x the largest in all, merged at base 5, not at 20
MERGE_TIMEOUT_S = 180.0   # the age rule alone takes 60 s


def test_small_parts_of_the_histogram_sums_merge_on_their_own(stack) -> None:
    run_id = unique("merge")
    with client(stack.settings, stack.secrets, "admin") as admin:
        engine = admin.command("SELECT engine_full FROM system.tables "
                               "WHERE database = 'ioscale' AND name = 'io_samples_hist_sums'")
        for setting in ("merge_selector_base = 5", "min_age_to_force_merge_seconds = 60",
                        "min_age_to_force_merge_on_partition_only = 1"):
            assert setting in engine
        for part in range(PARTS):   # one INSERT, one part
            admin.command(
                "INSERT INTO ioscale.io_samples_hist_sums (run_id, step_index, grain, ts, samples, hist, ingested_at) "
                "SELECT {run:String}, 0, 'step_ts', toDateTime64({part:UInt32} * 100 + number, 3, 'UTC'), 1, "
                "map(toUInt16(number % 7), toUInt64(1)), now64(3) FROM numbers(100)",
                parameters={"run": run_id, "part": part})

        def parts_and_samples() -> tuple[int, int]:
            return admin.query("SELECT uniqExact(_part), sum(samples) FROM ioscale.io_samples_hist_sums "
                               "WHERE run_id = {run:String}", parameters={"run": run_id}).result_rows[0]

        assert parts_and_samples()[1] == PARTS * 100   # (merges may have begun already: seen here)
        deadline = time.monotonic() + MERGE_TIMEOUT_S
        while parts_and_samples()[0] > 1 and time.monotonic() < deadline:
            time.sleep(2.0)
        # One part, every row kept (distinct keys: nothing to collapse).
        assert parts_and_samples() == (1, PARTS * 100)
