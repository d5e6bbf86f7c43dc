"""The Flink job's field rules on ClickHouse's Kafka path (fragments/*_rules.sql, sql/materialized). What the rules
give is tested on a real server (tests/integration/clickhouse/test_record_rules.py); here, how the queue views take
them: each changed in place (ALTER ... MODIFY QUERY, see test_migrations), the dead-letter view before the raw one,
both with the same rules fragment."""

from __future__ import annotations

import re

import pytest

from ioscale.provision import migrations as mig
from ioscale.stack.settings import StackSettings, repo_root

SETTINGS = StackSettings.from_env({"IOSCALE_REPO": str(repo_root()), "IOSCALE_HOME": "/nonexistent"})
FOUND = [*mig.discover(mig.migrations_dir(SETTINGS)), *mig.discover_views(mig.migrations_dir(SETTINGS))]
RAW = {m.name: m.path.read_text(encoding="utf-8") for m in FOUND}
#: raw table -> the fragment holding its record type's rules
RULES = {"io_samples": "io_sample_rules", "cpu_samples": "cpu_sample_rules", "port_samples": "port_sample_rules",
         "run_events": "run_event_rules"}


@pytest.mark.parametrize("table", sorted(RULES))
def test_dead_letter_view_takes_the_rules_before_the_raw_view_drops_them(table: str) -> None:
    dlq, raw = f"{mig.MATERIALIZED_DIR}/{table}_dlq_mv.sql", f"{mig.MATERIALIZED_DIR}/{table}_mv.sql"
    # A change of both lands dead letters first (the runner applies the folder in file-name order): in between, a
    # broken record reaches both tables, never neither.
    order = [m.name for m in FOUND]
    assert order.index(dlq) < order.index(raw)
    for name in (dlq, raw):
        assert RAW[name].count(f"{{{{{RULES[table]}}}}}") == 1, name
    invalid = f"{RULES[table].replace('_rules', '')}_invalid"
    if table == "io_samples":
        # The rules judge only what io_sample_surely_valid does not clear, and the dead-letter view
        # keeps the rows with a reason -- the parse error, or the rule broken.
        surely = "io_sample_surely_valid"
        assert RAW[dlq].count("{{" + surely + "}}") == RAW[raw].count("{{" + surely + "}}") == 1
        assert f"if(length(_error) > 0, _error, if({surely}, '', {invalid})) AS reason" in RAW[dlq]
        assert "WHERE reason != ''" in RAW[dlq]
        assert f"length(_error) = 0 AND ({surely} OR {invalid} = '')" in RAW[raw]
    else:
        assert f"length(_error) > 0 OR {invalid} != ''" in RAW[dlq]
        assert f"length(_error) = 0 AND {invalid} = ''" in RAW[raw]


def test_no_migration_drops_a_queue_view() -> None:
    # The Kafka engine reads while any view of its queue is attached: a dropped one loses what arrives meanwhile.
    views = "|".join(f"{t}_mv|{t}_dlq_mv" for t in RULES)
    dropping = re.compile(rf"DROP (TABLE|VIEW) (IF EXISTS )?ioscale\.({views})\b")
    assert not [name for name, text in RAW.items() if dropping.search(text)]


@pytest.mark.parametrize("fragment", sorted([*RULES.values(), "io_sample_surely_valid"]))
def test_a_rules_fragment_names_the_queue_columns_with_their_table(fragment: str) -> None:
    # The views output columns named like the queue's (toUInt64(ops) AS ops): a bare field name in the rules
    # would read that output, clamped or cast, and a negative counter would pass.
    table = next(t for t, f in RULES.items() if f == fragment.replace("_surely_valid", "_rules"))
    text = re.sub(r"--[^\n]*", "", (mig.migrations_dir(SETTINGS) / mig.FRAGMENTS_DIR / f"{fragment}.sql").read_text())
    text = re.sub(r"'[^']*'", "''", text)  # field names in the rules' words
    columns = {"io_samples": "ops bytes outstanding_ios errors latency_count latency_sum_ns latency_min_ns "
                             "latency_max_ns interval_ms latency_hist_scheme latency_bucket_index latency_bucket_count",
               "cpu_samples": "utilization_pct interval_ms",
               "port_samples": "link_speed_bps rx_bytes tx_bytes rx_frames tx_frames rx_errors tx_errors interrupts "
                               "interval_ms",
               "run_events": "links"}[table].split()
    queue = f"{table}_queue"
    for column in columns:
        bare = re.findall(rf"(?<![\w.]){column}\b", text)
        assert not bare, f"{fragment}: {column} without {queue}."
        assert f"{queue}.{column}" in text, column
