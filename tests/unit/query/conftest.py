"""Two small query files for the SQL library's tests: `thing.sql` (every part of the header format) and
`a_query` (one parameter of each kind)."""

from __future__ import annotations

import pytest

from ioscale.query import NamedQuery, parse

THING_SQL = """\
-- Per-step thing of a run.
--
-- A longer description
-- over two lines.
--
-- Second paragraph.
--
-- Parameters:
--   run_id        String                          the run
--   step_index    Int32 = -1                      step, 0-based; -1 = every step
--   direction     String = all {all|read|write}   reads, writes
--                                                 or both
--   label         String = ''                     free text
--
-- Columns:
--   step_index    step, 0-based
--   p99_us        99th percentile,
--                 microseconds
--
-- Notes:
--   Why FINAL.
--     an indented table line
SELECT step_index, 1 AS p99_us
FROM ioscale.io_samples FINAL
WHERE run_id = {run_id:String} AND ({step_index:Int32} < 0 OR step_index = {step_index:Int32})
  AND ({direction:String} = 'all' OR direction = {direction:String}) AND {label:String} = {label:String};
"""

A_QUERY_SQL = """\
-- A query.
--
-- Parameters:
--   run_id       String                          the run
--   step_index   Int32 = -1                      step
--   threshold    Float64 = 20                    percent
--   show_all     Bool = false                    everything
--   limit        UInt32 = 50                     rows
--   metric       String = iops {iops|mb_per_s}   what
--
-- Columns:
--   x   a value
SELECT {run_id:String} AS x, {step_index:Int32}, {threshold:Float64}, {show_all:Bool}, {limit:UInt32}, {metric:String}
"""


@pytest.fixture
def thing_sql() -> str:
    return THING_SQL


@pytest.fixture(scope="session")
def a_query() -> NamedQuery:
    return parse(A_QUERY_SQL, "a_query")
