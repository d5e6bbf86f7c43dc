"""The ClickHouse SQL functions of latency histogram scheme 1 (sql/migrations/0030-0035: ioscaleBucketLowerNs,
ioscaleBucketWidthNs, ioscaleBucketValueNs, ioscaleRequiredN, ioscaleQuantileNs, replaced by 0140), which every
view and query over stored buckets calls, give exactly the golden vectors that ioscale.histogram and
LatencyHistogram.java are checked against (schema/histogram_vectors.tsv): every bucket row, every required_n
row, and every quantile row computed as the queries compute it, quantileExactWeighted over
(ioscaleBucketValueNs(index), count) of the row's histogram, then ioscaleQuantileNs -- except that an empty
histogram (n = 0) gives NULL where the libraries answer 0, flagged: a column has no percentile to show there.
They are created by the migration runner on a server of the test's own (conftest's private_server) and must
survive its restart (kept under <path>/user_defined).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ioscale.provision import migrations
from ioscale.stack import process
from ioscale.stack.clickhouse import client
from ioscale.stack.settings import repo_root

pytestmark = pytest.mark.slow

VECTORS = repo_root() / "schema" / "histogram_vectors.tsv"
FUNCTIONS = {"ioscaleBucketShift", "ioscaleBucketLowerNs", "ioscaleBucketWidthNs", "ioscaleBucketValueNs",
             "ioscaleRequiredN", "ioscaleQuantileNs"}


def vectors(kind: str) -> list[list[str]]:
    return [line.split("\t")[1:] for line in VECTORS.read_text(encoding="utf-8").splitlines()
            if line.startswith(kind + "\t")]


def ints(field: str) -> list[int]:
    return [int(x) for x in field.split(",")] if field else []


def function_migrations(tmp: Path) -> Path:
    """A migrations folder holding only the function migrations, those that replace one included (they need
    nothing else)."""
    folder = tmp / "functions"
    folder.mkdir()
    for mig in migrations.discover(repo_root() / "sql" / "migrations"):
        if "_function_" in mig.name:
            (folder / mig.name).write_text(mig.path.read_text(encoding="utf-8"), encoding="utf-8")
    return folder


@pytest.fixture
def server(private_server, tmp_path):
    comp, spec = private_server
    process.start(spec, comp.settings.host)
    comp.wait_ready(60)
    with client(comp.ctx, role="admin") as ch:
        migrations.apply(migrations.ClickHouseExecutor(ch), function_migrations(tmp_path), {})
    process.stop(spec)  # the functions must outlive a restart: the stack's `up` does not create them again
    process.start(spec, comp.settings.host)
    comp.wait_ready(60)
    return comp


def test_the_functions_give_the_golden_vectors_exactly(server) -> None:
    with client(server.ctx, role="admin") as ch:
        created = {name for (name,) in ch.query(
            "SELECT name FROM system.functions WHERE origin = 'SQLUserDefined'").result_rows}
        assert FUNCTIONS <= created

        buckets = vectors("bucket")
        assert len(buckets) > 100
        indexes = [int(row[1]) for row in buckets]
        got = ch.query("SELECT i, ioscaleBucketLowerNs(i), ioscaleBucketLowerNs(i) + ioscaleBucketWidthNs(i), "
                       "ioscaleBucketValueNs(i) FROM (SELECT arrayJoin({ix:Array(UInt16)}) AS i)",
                       parameters={"ix": indexes}).result_rows
        expected = [(int(index), int(lower), int(upper), int(rep)) for _, index, lower, upper, rep, _ in buckets]
        assert [tuple(row) for row in got] == expected

        required = vectors("required_n")
        got = ch.query("SELECT ioscaleRequiredN(toFloat64(q)) FROM (SELECT arrayJoin({q:Array(String)}) AS q)",
                       parameters={"q": [q for q, _ in required]}).result_rows
        assert [n for (n,) in got] == [int(n) for _, n in required]

        hists = {row[0]: row for row in vectors("hist")}
        quantiles = vectors("quantile")
        assert len(quantiles) > 100
        got = {}
        for level in dict.fromkeys(q for _, q, *_ in quantiles):  # arrayReduce takes a constant level
            rows = [row for row in quantiles if row[1] == level]
            cases = []
            for name, *_ in rows:
                _, _, ix, counts, count, _sum, min_ns, max_ns, *_ = hists[name]
                cases.append((ints(ix), ints(counts), int(count), int(min_ns), int(max_ns)))
            values = ch.query(
                f"""SELECT
                       ioscaleQuantileNs(toFloat64({level!r}),
                                         arrayReduce('quantileExactWeighted({float(level)!r})',
                                                     arrayMap(i -> ioscaleBucketValueNs(i), c.1), c.2),
                                         c.3, c.4, c.5),
                       c.3 < ioscaleRequiredN(toFloat64({level!r})),
                       ioscaleRequiredN(toFloat64({level!r}))
                   FROM (SELECT arrayJoin({{c:Array(Tuple(Array(UInt16), Array(UInt64), UInt64, UInt64, UInt64))}}) AS c)""",
                parameters={"c": cases}).result_rows
            got |= {(name, level): (v, bool(t), r) for (name, *_), (v, t, r) in zip(rows, values)}
        expected = {(name, q): (None if int(n) == 0 else int(value), bool(int(too_few)), int(req))
                    for name, q, value, n, too_few, req in quantiles}
        assert sum(v is None for v, _, _ in expected.values()) == 8  # the empty histogram's 8 levels
        assert got == expected

        # No histogram but exact statistics (an Iometer sample: mean 0.8 ms, max 35.6 ms): NULL, not the max.
        assert ch.query("SELECT ioscaleQuantileNs(0.5, 0, 0, 100000, 35600000), "
                        "ioscaleQuantileNs(0.5, 0, 1, 35600000, 35600000)").result_rows == [(None, 35600000)]
